#!/bin/sh
# PostgreSQL 15 with full_page_writes = off and data checksums, across power
# cuts, on awfs (unit=8k,untorn) over ext4 (bigalloc) on awblk over an
# awscsi disk with its write cache on: through the SCSI engine (a disk with
# atomic writes) and through the software engine (a disk without). The
# control is the same cluster and load on that ext4 on the disk itself.
#
# Each trial: the server up, pgbench -c 4 running, the power cut after a
# random number of disk commands, every PostgreSQL process killed (nothing
# of a server survives a power loss), awfs, ext4 and awblk torn down with
# the power still off; then what a reboot does: power, attach, awblk create
# (the software engine's recovery), ext4 mount (journal replay), awfs
# mount, server start (its crash recovery must succeed), pgbench's balance
# invariants, pg_amcheck on its tables and indexes, a clean stop and
# pg_checksums --check (no bad block). On awfs every trial must pass; the
# control must break at least once (the test has teeth): make check runs
# it until it does (16 cuts at most), a crash run for a quarter as many
# cuts (at least 4), all of them, and prints its rate. AW_CRASH_CUTS: cuts
# per engine (8; make crash CASE=60-pg-powercut CUTS=N), AWKIT_SEED.
# awkit-timeout: 1800
# awkit-secs-per-cut: 60
. "$AWKIT_ROOT/tests/qemu/lib.sh"
PGB=/usr/lib/postgresql/15/bin
[ -x $PGB/postgres ] || skip "postgresql-15 is not installed (make deps)"
AWCTL=$AWKIT_ROOT/build/tools/awctl
CTL=/sys/devices/awscsi
LOWER=/tmp/pg-lower
AWFS=/tmp/pg-awfs
SOCK=/run/awpg
LOG=/tmp/pg-server.log
seed=${AWKIT_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
cuts=${AW_CRASH_CUTS:-8}
# The control: in make check until it first breaks (at most 16 cuts); in a
# crash run a quarter as many cuts as each engine's, all of them, for its
# rate.
if [ -n "${AW_CRASH_CUTS:-}" ]; then
	control=${AW_PG_CONTROL:-$((cuts / 4 > 4 ? cuts / 4 : 4))} first=false
else
	control=${AW_PG_CONTROL:-16} first=true
fi
tmo=$((600 * ${AW_SLOW:-1}))

pgrun() {
	setpriv --reuid=postgres --regid=postgres --clear-groups \
		env HOME=/tmp PGHOST=$SOCK PGDATABASE=postgres PGUSER=postgres "$@"
}
psqlc() { pgrun $PGB/psql -X -A -t -q -v ON_ERROR_STOP=1 -c "$1"; }
pg_start() { # DATA
	: >$LOG && chown postgres $LOG
	pgrun $PGB/pg_ctl -D $1 -l $LOG -w -t $tmo start >/dev/null 2>&1
}
pg_stop() { pgrun $PGB/pg_ctl -D $1 -m fast -w -t $tmo stop >/dev/null 2>&1; }
# Every server process gone (zombies aside: they hold nothing).
pg_alive() { ps -u postgres -o stat= | grep -qv '^Z'; }
pg_killall() {
	k=0
	while pg_alive; do
		pkill -KILL -u postgres
		sleep 0.1
		k=$((k + 1))
		[ $k -lt 600 ] || fail "PostgreSQL processes outlive SIGKILL"
	done
}
rnd() { # N LO HI: the seed's Nth number in [LO, HI]
	awk -v s=$seed -v i=$1 -v lo=$2 -v hi=$3 \
		'BEGIN { srand(s * 1000 + i); print int(lo + rand() * (hi - lo + 1)) }'
}

# up ENGINE: the stack over the disk, the power on. ENGINE scsi or sw:
# awblk with that engine, ext4 on it, awfs over ext4's data directory;
# none: ext4 on the disk itself. Sets $data, the cluster's directory.
up() {
	dev=/dev/$(aw_disks awscsi) || return 1
	[ $1 = none ] || dev=$($AWCTL create $dev --engine $1) || return 1
	mount -t ext4 $dev $LOWER || return 1
	data=$LOWER/data/pg
	[ $1 = none ] && return 0
	mount -t awfs -o unit=8k,untorn $LOWER/data $AWFS || return 1
	data=$AWFS/pg
}

# reboot ENGINE: after a cut, with the power still off, unmount awfs and
# ext4 (what they still held is lost) and remove awblk, as the power loss
# did to them; only then restore the power, attach the disk and come up.
reboot() {
	[ "$(cat $CTL/powered)" = 0 ] || { echo "the power is on"; return 1; }
	umount $AWFS 2>/dev/null
	umount $LOWER || return 1
	for d in /sys/block/awblk*; do
		[ -e "$d" ] && { $AWCTL remove "/dev/${d##*/}" || return 1; }
	done
	echo 0 >$CTL/attached && echo 1 >$CTL/powered && echo 1 >$CTL/attached &&
		up $1 >&2
}

# disk ENGINE: a fresh awscsi disk (atomic writes for scsi and none, none
# for sw) with ext4 (bigalloc, 16 KiB clusters) and a pgbench cluster made
# on the ext4 directly (how data gets into awfs fast is another matter):
# small WAL segments and buffer pool and frequent checkpoints, so pages are
# written between checkpoints all the time. Comes up with ENGINE.
disk() {
	aw_load_awblk || fail "load awblk"
	awr="atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=1 atomic_wr_gran=1"
	[ $1 = sw ] && awr=atomic_wr=0
	# 512-byte sectors: an 8 KiB page is 16 of them, so an unflushed one
	# tears at a cut (with 4 KiB ones the control broke in 1 of 3 and in
	# 1 of 16 cuts).
	aw_insmod awscsi dev_size_mb=320 write_cache=1 $awr ||
		fail "insmod awscsi"
	aw_insmod awfs || fail "insmod awfs"
	d=/dev/$(aw_disks awscsi) || fail "no awscsi disk"
	[ $1 = sw ] && { aw_sw_format $d || fail "format"; }
	dev=$d
	[ $1 = none ] || dev=$($AWCTL create $d --engine $1) || fail "awctl create"
	mkfs.ext4 -q -F -O bigalloc -C 16384 -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0 $dev || fail "mkfs.ext4"
	mount -t ext4 $dev $LOWER || fail "mount ext4"
	mkdir -p $LOWER/data && chown postgres:postgres $LOWER/data || fail "chown"
	pgrun $PGB/initdb -k -A trust -U postgres --wal-segsize=1 -D $LOWER/data/pg \
		>/tmp/initdb.log 2>&1 || { cat /tmp/initdb.log; fail "initdb"; }
	cat >>$LOWER/data/pg/postgresql.conf <<-EOF
	full_page_writes = off
	listen_addresses = ''
	unix_socket_directories = '$SOCK'
	dynamic_shared_memory_type = sysv
	shared_buffers = 4MB
	max_connections = 12
	max_wal_size = 16MB
	min_wal_size = 4MB
	checkpoint_timeout = 30s
	bgwriter_delay = 10ms
	bgwriter_lru_maxpages = 1000
	restart_after_crash = off
	EOF
	pg_start $LOWER/data/pg || { cat $LOG; fail "first start"; }
	pgrun $PGB/pgbench -i -q -s 2 >/tmp/pgbench-init.log 2>&1 ||
		{ cat /tmp/pgbench-init.log; fail "pgbench -i"; }
	psqlc "CREATE EXTENSION amcheck" || fail "CREATE EXTENSION amcheck"
	pg_stop $LOWER/data/pg || fail "stop"
	umount $LOWER || fail "umount ext4"
	[ $1 = none ] || $AWCTL remove $dev || fail "awctl remove"
	up $1 || fail "up $1"
}

# check: what a database engineer checks after the reboot. Prints what
# failed (status 1) or the number of pgbench transactions kept.
check() {
	pg_start $data || { pg_killall; echo "crash recovery failed: $(grep -m 2 -E 'FATAL|PANIC' $LOG | tr '\n' ' ')"; return 1; }
	h=$(psqlc "SELECT count(*) FROM pgbench_history") || { pg_killall; echo "query failed"; return 1; }
	ok=$(psqlc "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)
		AND (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)
		AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)" 2>&1)
	[ "$ok" = t ] || { pg_killall; echo "balance invariants broken: $ok"; return 1; }
	pgrun $PGB/pg_amcheck -d postgres -t 'pgbench_*' --heapallindexed >/tmp/amcheck.log 2>&1 ||
		{ pg_killall; echo "pg_amcheck: $(head -c 300 /tmp/amcheck.log)"; return 1; }
	pg_stop $data || { pg_killall; echo "clean stop failed"; return 1; }
	pgrun $PGB/pg_checksums --check -D $data >/tmp/checksums.log 2>&1 ||
		{ echo "pg_checksums: $(grep -m 3 -iE 'checksum|bad' /tmp/checksums.log | tr '\n' ' ')"; return 1; }
	echo "$h transactions kept"
}

# trial N ENGINE: one power cut under pgbench, the reboot, the checks.
# Status 1: the database broke; 2: the harness did.
trial() {
	pg_start $data || { echo "start: $(tail -n 3 $LOG)"; return 2; }
	echo $(rnd $1 300 4000) >$CTL/cut_after
	pgrun $PGB/pgbench -c 4 -j 2 -T $tmo -n >/tmp/pgbench.log 2>&1 &
	pb=$!
	t=0
	while [ "$(cat $CTL/powered)" = 1 ]; do
		sleep 0.2
		t=$((t + 1))
		[ $t -lt $((5 * tmo)) ] || { echo "no power cut after ${tmo}s"; return 2; }
	done
	pg_killall
	wait $pb
	reboot $2 || { echo "reboot failed"; return 2; }
	check
}

# down: unmount, remove the awblk device, unload.
down() {
	umount $AWFS 2>/dev/null
	umount $LOWER || fail "umount ext4"
	aw_unload awfs || fail "unload awfs"
	aw_cleanup
}

# The kernel writes dirty pages back within a second or two, not 30 s:
# what PostgreSQL wrote between checkpoints is on the disk (in its cache,
# not yet flushed) when the power fails, on awfs and in the control alike.
# The runner restores both after the case.
echo 50 >/proc/sys/vm/dirty_writeback_centisecs &&
	echo 100 >/proc/sys/vm/dirty_expire_centisecs || fail "writeback sysctls"
trap 'pkill -KILL -u postgres' EXIT
mkdir -p $LOWER $AWFS $SOCK && chown postgres:postgres $SOCK || fail "dirs"
modprobe ext4 || fail "modprobe ext4"
for eng in scsi sw; do
	disk $eng
	a0=$(aw_sum_stat $CTL/stats atomic_writes)
	for i in $(seq $cuts); do
		r=$(trial $i $eng) || fail "PostgreSQL on awfs ($eng engine), cut $i (seed $seed): $r"
		echo "ok: awfs ($eng engine), cut $i: recovered, invariants hold, pg_amcheck and pg_checksums clean, $r"
	done
	[ $eng = sw ] || [ $(aw_sum_stat $CTL/stats atomic_writes) -gt $a0 ] ||
		fail "no atomic write reached the disk"
	echo "ok: awfs ($eng engine): $cuts power cuts under pgbench, no corruption"
	down
done

broke=0
disk none
cp -a $LOWER/data/pg /tmp/pg-pristine || fail "copy the cluster"
for i in $(seq $control); do
	r=$(trial $((1000 + i)) none)
	st=$?
	[ $st -lt 2 ] || fail "control cut $i (seed $seed): $r"
	if [ $st = 0 ]; then
		echo "-- control cut $i: no damage, $r"
		continue
	fi
	broke=$((broke + 1))
	echo "ok: control cut $i: ext4 with full_page_writes = off broke: $r"
	pg_killall
	mountpoint -q $LOWER || fail "ext4 is not mounted after control cut $i"
	$first && break
	rm -rf $data && cp -a /tmp/pg-pristine $data && sync || fail "restore the cluster"
done
[ $broke -gt 0 ] || fail "the control (ext4 alone) never broke in $control cuts: the test has no teeth"
echo "ok: the control broke in $broke of $i cuts; awfs in 0 of $((2 * cuts)) (seed $seed)"
down
