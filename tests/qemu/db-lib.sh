# The power-cut campaign the database cases share (sourced after lib.sh).
#
# A case sets DB_USER (the server's user), DB_LOAD_LOG and DB_LOAD_READY
# (its load generator's output and a pattern that shows the load runs),
# DB_BROKEN (a pattern of what the database says of corruption) and
# DB_AWBLK_STAT (the awblk counter its stack's atomic writes count in),
# and defines:
#   db_disk MODE     a fresh awscsi disk, the database made on it, the
#                    stack up (up MODE); fails the case on error
#   up MODE          the stack over the attached disk; sets $data
#   db_unmount       unmount what sits on awblk or the disk
#   db_start         start the server; status 1 when it does not come up
#                    (the server gone, or still starting when time is up)
#   db_stop          a clean stop
#   db_errors        the server log's errors, on one line
#   db_load          start the load generator in the background
#   db_ack N         commit row N of table awkit_acks (a BIGINT key), alone
#   db_acked LO HI   print how many rows of awkit_acks are in [LO, HI]
#   db_check_online  checks with the server up: print why on status 1,
#                    in the database's own words where it has them
#   db_check_offline checks after the clean stop: the same
# MODE is scsi or sw (awkit's stack through that engine), plain (the same
# stack through the software engine, awkit's atomicity off) or none (the
# file system on the disk itself).
CTL=/sys/devices/awscsi
AWCTL=$AWKIT_ROOT/build/tools/awctl
ACKS=/tmp/db-acks
seed=${AWKIT_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
cuts=${AW_CRASH_CUTS:-4}
tmo=$((600 * ${AW_SLOW:-1}))
# The controls: in make check until each first breaks (at most 16 cuts);
# in a crash run a quarter as many cuts as each engine's, all of them, for
# their rate. AW_DB_CONTROL sets how many. crash_run: a crash run (make
# crash), which also runs the control on awkit's own stack (db_controls).
if [ -n "${AW_CRASH_CUTS:-}" ]; then
	control=${AW_DB_CONTROL:-$((cuts / 4 > 4 ? cuts / 4 : 4))} first=false
	crash_run=true
else
	control=${AW_DB_CONTROL:-16} first=true crash_run=false
fi

rnd() { # N LO HI: the seed's Nth number in [LO, HI]
	awk -v s=$seed -v i=$1 -v lo=$2 -v hi=$3 \
		'BEGIN { srand(s * 1000 + i); print int(lo + rand() * (hi - lo + 1)) }'
}

# Every server process gone (zombies aside: they hold nothing).
db_alive() { ps -u $DB_USER -o stat= | grep -qv '^Z'; }
db_killall() {
	local k=0
	while db_alive; do
		pkill -KILL -u $DB_USER
		sleep 0.1
		k=$((k + 1))
		[ $k -lt 600 ] || fail "$DB_USER's processes outlive SIGKILL"
	done
}

# db_wait SECS CMD...: poll CMD every 0.2 s until it succeeds.
db_wait() {
	local t=0 n=$((5 * $1))
	shift
	until "$@"; do
		sleep 0.2
		t=$((t + 1))
		[ $t -lt $n ] || return 1
	done
}

# db_ack_loop BASE: commits a client saw acknowledged, one by one: row
# BASE + N, N in $ACKS only after the server said it was committed while
# the power was still on (a commit acknowledged after the cut may be lost:
# the disk fails every command then, so none should be).
db_ack_loop() {
	local n=0
	while n=$((n + 1)) && db_ack $(($1 + n)) >/dev/null 2>&1; do
		[ "$(cat $CTL/powered)" = 1 ] || break
		echo $n >>$ACKS
	done
}

# db_awblk_count: $DB_AWBLK_STAT summed over the awblk devices there are.
db_awblk_count() {
	local f n=0
	for f in /sys/block/awblk*/awblk/stats; do
		[ -e "$f" ] && n=$((n + $(aw_sum_stat "$f" $DB_AWBLK_STAT)))
	done
	echo $n
}

# reboot MODE: after a cut, with the power still off, unmount what sits on
# the disk (what it still held is lost) and remove awblk, as the power loss
# did to them; only then restore the power, attach the disk and come up.
reboot() {
	[ "$(cat $CTL/powered)" = 0 ] || { echo "the power is on"; return 1; }
	db_unmount || return 1
	awblk_end=$(db_awblk_count)
	for d in /sys/block/awblk*; do
		[ -e "$d" ] && { $AWCTL remove "/dev/${d##*/}" || return 1; }
	done
	echo 0 >$CTL/attached && echo 1 >$CTL/powered && echo 1 >$CTL/attached &&
		up $1 >&2
}

db_load_runs() { grep -qE "$DB_LOAD_READY" $DB_LOAD_LOG && [ -s $ACKS ]; }
db_powered_off() { [ "$(cat $CTL/powered)" = 0 ]; }

# verify BASE: what a database engineer checks after the reboot: recovery,
# every acknowledged commit (rows BASE + 1 to BASE + the last in $ACKS),
# the case's checks. Prints what failed (status 1; 2 and HARNESS: a
# server still busy when time was up) or what was kept.
verify() {
	local n got r on
	if ! db_start; then
		db_alive && { db_killall; echo "HARNESS: the server did not come up in ${tmo}s"; return 2; }
		echo "crash recovery failed: $(db_errors)"
		return 1
	fi
	n=$(tail -n 1 $ACKS)
	n=${n:-0}
	got=$(db_acked $(($1 + 1)) $(($1 + n))) ||
		{ db_killall; echo "query failed: $(db_errors)"; return 1; }
	[ "$got" = "$n" ] ||
		{ db_killall; echo "lost acknowledged commits: $got of $n kept"; return 1; }
	on=$(db_check_online) || { db_killall; echo "$on"; return 1; }
	if ! db_stop; then
		db_alive && { db_killall; echo "HARNESS: the server did not stop in ${tmo}s"; return 2; }
		echo "clean stop failed: $(db_errors)"
		return 1
	fi
	# The offline checks read the disk, not what the page cache still has.
	sync && echo 3 >/proc/sys/vm/drop_caches
	r=$(db_check_offline) || { echo "$r"; return 1; }
	echo "all $n acknowledged commits kept${on:+, $on}${r:+, $r}"
}

# trial N MODE: one power cut under load (the seed's Nth), the reboot, the
# checks. Status 1: the database broke; 2: the harness did (its message
# says HARNESS). Appends what awblk counted under load to /tmp/db-awblk
# and, on awkit, how many unflushed blocks the cut lost to /tmp/db-live.
trial() {
	local ack load lost torn st r u
	db_start || { db_killall; echo "HARNESS: start: $(db_errors)"; return 2; }
	: >$ACKS
	db_ack_loop $(($1 * 100000)) >/dev/null 2>&1 &
	ack=$!
	db_load
	load=$!
	# The cut is armed once the load and the acknowledged commits run.
	if ! db_wait $tmo db_load_runs; then
		db_killall
		db_stop_load
		echo "HARNESS: the load never ran: $(tail -n 2 $DB_LOAD_LOG)"
		return 2
	fi
	lost=$(aw_sum_stat $CTL/stats cache_lost)
	torn=$(aw_sum_stat $CTL/stats torn_writes)
	u=$(db_awblk_count)
	echo $(rnd $1 300 4000) >$CTL/cut_after
	if ! db_wait $tmo db_powered_off; then
		db_killall
		db_stop_load
		echo "HARNESS: no power cut after ${tmo}s"
		return 2
	fi
	db_killall
	db_stop_load
	# What the server wrote before the cut went the atomic way.
	if [ $2 != plain ] && dmesg | grep -m 1 'awfs: .*no atomic writes'; then
		echo "HARNESS: awfs fell back to plain writes"
		return 2
	fi
	reboot $2 || { echo "HARNESS: reboot failed"; return 2; }
	lost=$(($(aw_sum_stat $CTL/stats cache_lost) - lost))
	torn=$(($(aw_sum_stat $CTL/stats torn_writes) - torn))
	u=$((awblk_end - u))
	echo $u >>/tmp/db-awblk
	# A live cut on awkit: the disk lost written blocks it had not flushed.
	case $2 in scsi | sw) echo $lost >>/tmp/db-live ;; esac
	r=$(verify $(($1 * 100000)))
	st=$?
	echo "$r; the cut lost $lost unflushed blocks and tore $torn writes; $u $DB_AWBLK_STAT under load"
	return $st
}

# db_stop_load: the load and the client gone (the server was killed).
db_stop_load() {
	kill $load $ack 2>/dev/null
	wait $load $ack
}

# db_down: unmount, remove the awblk device, unload.
db_down() {
	db_unmount || fail "unmount"
	[ ! -d /sys/module/awfs ] || aw_unload awfs || fail "unload awfs"
	aw_cleanup
}

# db_sum FILE: the sum of FILE's numbers.
db_sum() { awk '{ s += $1 } END { print s + 0 }' "$1"; }

# campaign ENGINE: $cuts power cuts on awkit's stack; every one must leave
# the database whole, and the load's writes must have taken awblk's
# atomic way (and atomic writes reached the disk, for the SCSI engine),
# and awfs never fallen back to plain writes.
campaign() {
	local a0 i r live off=0 l0
	[ $1 = scsi ] || off=500	# other cut points for each engine
	l0=$(grep -cv '^0$' /tmp/db-live)
	: >/tmp/db-awblk
	db_disk $1
	a0=$(aw_sum_stat $CTL/stats atomic_writes)
	for i in $(seq $cuts); do
		r=$(trial $((off + i)) $1) || fail "$DB on $STACK ($1 engine), cut $i (seed $seed): $r"
		echo "ok: $1 engine, cut $i: $r"
	done
	[ $1 = sw ] || [ $(aw_sum_stat $CTL/stats atomic_writes) -gt $a0 ] ||
		fail "no atomic write reached the disk"
	db_down
	live=$(($(grep -cv '^0$' /tmp/db-live) - l0))
	[ $(db_sum /tmp/db-awblk) -gt 0 ] ||
		fail "awblk counted no $DB_AWBLK_STAT under load ($1 engine)"
	echo "ok: $DB on $STACK ($1 engine): $cuts power cuts, $live of them live, no corruption, $(db_sum /tmp/db-awblk) $DB_AWBLK_STAT under load (seed $seed)"
}

# control MODE WHAT: the same trials without awkit's atomicity (awblk
# must count none of it) must break the database (the test has teeth), in
# the database's own words of corruption or with acknowledged commits
# lost, not as a harness fault. The database is restored between cuts
# when a crash run goes on after a break.
control() {
	local broke=0 base=1000 i n=0 r st
	[ $1 = none ] || base=2000
	: >/tmp/db-awblk
	db_disk $1
	cp -a $data /tmp/db-pristine || fail "copy the database"
	for i in $(seq $control); do
		n=$i
		r=$(trial $((base + i)) $1)
		st=$?
		[ $st -lt 2 ] || fail "control ($2), cut $i (seed $seed): $r"
		[ $(db_sum /tmp/db-awblk) = 0 ] ||
			fail "control ($2), cut $i: awblk counted $DB_AWBLK_STAT: not a control"
		if [ $st = 0 ]; then
			echo "-- control ($2), cut $i: no damage: $r"
			continue
		fi
		echo "$r" | grep -qE "lost acknowledged|$DB_BROKEN" ||
			fail "control ($2), cut $i broke, but not as corruption does: $r"
		broke=$((broke + 1))
		echo "ok: control ($2), cut $i: the database broke: $r"
		db_killall
		$first && break
		rm -rf $data && cp -a /tmp/db-pristine $data && sync ||
			fail "restore the database"
	done
	db_down
	rm -rf /tmp/db-pristine
	[ $broke -gt 0 ] ||
		fail "the control ($2) never broke in $control cuts: the test has no teeth"
	echo "ok: the control ($2) broke in $broke of $n cuts (seed $seed)"
}

# db_live: the campaigns' cuts must have hit something: some (an eighth,
# at least one) lost unflushed blocks. A cut that comes just after a cache
# flush loses nothing: about half do, so this counts over all of a case's
# campaigns.
db_live() {
	local n live
	n=$(wc -l </tmp/db-live)
	live=$(grep -cv '^0$' /tmp/db-live)
	[ $live -ge $((n / 8 > 0 ? n / 8 : 1)) ] ||
		fail "only $live of $n cuts on awkit lost unflushed blocks: the cuts missed"
	echo "ok: $live of $n cuts on awkit lost unflushed blocks"
}

# db_controls WHAT-NONE WHAT-PLAIN: the control on the file system alone
# (what the setting risks); in a crash run also the one on awkit's stack
# with its atomicity off (what keeps the pages whole is awkit), which
# make check leaves out for time (cases 23 and 51 show writes tearing on
# awblk without untorn and on awfs without untorn).
db_controls() {
	control none "$1"
	if $crash_run; then
		control plain "$2"
	else
		echo "-- the control ($2) runs in make crash only"
	fi
}

db_exit() { pkill -KILL -u $DB_USER; }
: >/tmp/db-live
