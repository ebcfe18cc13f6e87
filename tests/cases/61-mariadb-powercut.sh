#!/bin/sh
# MariaDB (InnoDB, 16 KiB pages) with innodb_doublewrite = OFF and
# innodb_flush_method = O_DIRECT, across power cuts, on ext4 (bigalloc,
# 16 KiB clusters: every aligned page is one aligned cluster on the device)
# on awblk --untorn 16k over an awscsi disk with its write cache on: through
# the SCSI engine (a disk with atomic writes) and through the software
# engine (a disk without). The control is the same server and load on that
# ext4 on the disk itself.
#
# Each trial: the server up, sysbench oltp_write_only with 4 threads
# running, the power cut after a random number of disk commands, every
# MariaDB process killed, ext4 and awblk torn down with the power still
# off; then what a reboot does: power, attach, awblk create (the software
# engine's recovery), ext4 mount (journal replay), server start (InnoDB's
# crash recovery must succeed), CHECK TABLE ... EXTENDED on the sysbench tables,
# sysbench's invariant (oltp_write_only deletes and inserts each row it
# moves in one transaction: every table keeps its rows, by the primary key
# and by the secondary index), a clean stop and innochecksum on the system
# tablespace and the sysbench tables'. On awblk every trial must pass; the
# control must break at least once, as in case 60. AW_CRASH_CUTS: cuts per
# engine (8; make crash CASE=61-mariadb-powercut CUTS=N), AWKIT_SEED.
# awkit-timeout: 1800
# awkit-secs-per-cut: 60
. "$AWKIT_ROOT/tests/qemu/lib.sh"
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] ||
	skip "mariadb-server is not installed (make deps)"
AWCTL=$AWKIT_ROOT/build/tools/awctl
CTL=/sys/devices/awscsi
MNT=/tmp/my-ext4
RUN=/run/awmy
SOCK=$RUN/sock
LOG=/tmp/my-server.log
ROWS=20000
TABLES=2
seed=${AWKIT_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
cuts=${AW_CRASH_CUTS:-8}
# The control: in make check until it first breaks (at most 16 cuts); in a
# crash run a quarter as many cuts as each engine's, all of them, for its
# rate.
if [ -n "${AW_CRASH_CUTS:-}" ]; then
	control=${AW_MY_CONTROL:-$((cuts / 4 > 4 ? cuts / 4 : 4))} first=false
else
	control=${AW_MY_CONTROL:-16} first=true
fi
tmo=$((600 * ${AW_SLOW:-1}))
data=$MNT/mysql

myc() { mariadb --no-defaults --socket=$SOCK -u root -N -B -e "$1"; }
my_start() {
	: >$LOG && chown mysql $LOG
	/usr/sbin/mariadbd --no-defaults --user=mysql --datadir=$data \
		--socket=$SOCK --pid-file=$RUN/pid --skip-networking \
		--log-error=$LOG --innodb-doublewrite=0 \
		--innodb-flush-method=O_DIRECT --innodb-page-size=16k \
		--innodb-buffer-pool-size=8M --innodb-log-file-size=16M \
		--innodb-flush-log-at-trx-commit=1 --skip-log-bin >/dev/null 2>&1 &
	pid=$!
	# Ready, or gone (a failed recovery ends the server).
	t=0
	until mariadb-admin --no-defaults --socket=$SOCK -u root \
		--connect-timeout=2 ping >/dev/null 2>&1; do
		kill -0 $pid 2>/dev/null || return 1
		sleep 0.2
		t=$((t + 1))
		[ $t -lt $((5 * tmo)) ] || return 1
	done
}
# A clean stop: the server's own shutdown, then its process gone.
my_stop() {
	mariadb-admin --no-defaults --socket=$SOCK -u root \
		--shutdown-timeout=$tmo shutdown >/dev/null 2>&1 || return 1
	t=0
	while my_alive; do
		sleep 0.2
		t=$((t + 1))
		[ $t -lt $((5 * tmo)) ] || return 1
	done
}
# Every server process gone (zombies aside: they hold nothing).
my_alive() { ps -u mysql -o stat= | grep -qv '^Z'; }
my_killall() {
	k=0
	while my_alive; do
		pkill -KILL -u mysql
		sleep 0.1
		k=$((k + 1))
		[ $k -lt 600 ] || fail "MariaDB processes outlive SIGKILL"
	done
}
rnd() { # N LO HI: the seed's Nth number in [LO, HI]
	awk -v s=$seed -v i=$1 -v lo=$2 -v hi=$3 \
		'BEGIN { srand(s * 1000 + i); print int(lo + rand() * (hi - lo + 1)) }'
}
sb() { # sysbench COMMAND [OPTIONS]
	sysbench oltp_write_only --db-driver=mysql --mysql-socket=$SOCK \
		--mysql-user=root --mysql-db=sbtest --tables=$TABLES \
		--table-size=$ROWS "$@"
}

# up ENGINE: the stack over the disk, the power on. ENGINE scsi or sw:
# ext4 on awblk --untorn 16k with that engine; none: ext4 on the disk.
up() {
	dev=/dev/$(aw_disks awscsi) || return 1
	[ $1 = none ] || dev=$($AWCTL create $dev --engine $1 --untorn 16k) || return 1
	mount -t ext4 $dev $MNT
}

# reboot ENGINE: after a cut, with the power still off, unmount ext4 (what
# it still held is lost) and remove awblk, as the power loss did to them;
# only then restore the power, attach the disk and come up.
reboot() {
	[ "$(cat $CTL/powered)" = 0 ] || { echo "the power is on"; return 1; }
	umount $MNT || return 1
	for d in /sys/block/awblk*; do
		[ -e "$d" ] && { $AWCTL remove "/dev/${d##*/}" || return 1; }
	done
	echo 0 >$CTL/attached && echo 1 >$CTL/powered && echo 1 >$CTL/attached &&
		up $1 >&2
}

# disk ENGINE: a fresh awscsi disk (atomic writes for scsi and none, none
# for sw) with ext4 and a sysbench database, made on the stack itself; a
# small buffer pool and redo log, so pages are written all the time.
disk() {
	aw_load_awblk || fail "load awblk"
	awr="atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=1 atomic_wr_gran=1"
	[ $1 = sw ] && awr=atomic_wr=0
	aw_insmod awscsi dev_size_mb=320 sector_size=4096 write_cache=1 $awr ||
		fail "insmod awscsi"
	d=/dev/$(aw_disks awscsi) || fail "no awscsi disk"
	[ $1 = sw ] && { aw_sw_format $d || fail "format"; }
	dev=$d
	[ $1 = none ] || dev=$($AWCTL create $d --engine $1 --untorn 16k) ||
		fail "awctl create"
	mkfs.ext4 -q -F -O bigalloc -C 16384 -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0 $dev || fail "mkfs.ext4"
	mount -t ext4 $dev $MNT || fail "mount ext4"
	mkdir -p $data && chown mysql:mysql $data || fail "chown"
	mariadb-install-db --no-defaults --user=mysql --datadir=$data \
		--auth-root-authentication-method=normal --skip-test-db \
		--innodb-page-size=16k >/tmp/install-db.log 2>&1 ||
		{ cat /tmp/install-db.log; fail "mariadb-install-db"; }
	my_start || { cat $LOG; fail "first start"; }
	myc "CREATE DATABASE sbtest" || fail "CREATE DATABASE"
	sb prepare >/tmp/sb-prepare.log 2>&1 || { cat /tmp/sb-prepare.log; fail "sysbench prepare"; }
	my_stop || fail "stop"
	sync
}

# check: what a database engineer checks after the reboot. Prints what
# failed (status 1) or the rows' count.
check() {
	my_start || { my_killall; echo "crash recovery failed: $(grep -m 2 -E '\[ERROR\]' $LOG | tr '\n' ' ')"; return 1; }
	for t in $(seq $TABLES); do
		r=$(myc "CHECK TABLE sbtest.sbtest$t EXTENDED" 2>&1 | awk '$3 == "status" { print $4 }')
		[ "$r" = OK ] || { my_killall; echo "CHECK TABLE sbtest$t EXTENDED: $(myc "CHECK TABLE sbtest.sbtest$t EXTENDED" 2>&1 | tr '\n' ' ')"; return 1; }
		n=$(myc "SELECT (SELECT COUNT(*) FROM sbtest.sbtest$t FORCE INDEX (PRIMARY)),
			(SELECT COUNT(*) FROM sbtest.sbtest$t FORCE INDEX (k_$t))" 2>&1)
		[ "$n" = "$(printf '%s\t%s' $ROWS $ROWS)" ] ||
			{ my_killall; echo "sbtest$t rows by primary key and index: $n, want $ROWS"; return 1; }
	done
	my_stop || { my_killall; echo "clean stop failed"; return 1; }
	for f in $data/ibdata1 $data/sbtest/*.ibd; do
		innochecksum "$f" >/tmp/innochecksum.log 2>&1 ||
			{ echo "innochecksum ${f##*/}: $(head -c 300 /tmp/innochecksum.log)"; return 1; }
	done
}

# trial N ENGINE: one power cut under sysbench, the reboot, the checks.
# Status 1: the database broke; 2: the harness did.
trial() {
	my_start || { echo "start: $(tail -n 3 $LOG)"; return 2; }
	echo $(rnd $1 300 4000) >$CTL/cut_after
	sb run --threads=4 --time=$tmo --report-interval=1 >/tmp/sb.log 2>&1 &
	pb=$!
	t=0
	while [ "$(cat $CTL/powered)" = 1 ]; do
		sleep 0.2
		t=$((t + 1))
		[ $t -lt $((5 * tmo)) ] || { echo "no power cut after ${tmo}s"; return 2; }
	done
	my_killall
	kill $pb 2>/dev/null
	wait $pb
	reboot $2 || { echo "reboot failed"; return 2; }
	check || return 1
	echo "sysbench ran $(grep -c 'thds: 4 tps:' /tmp/sb.log) s before the cut ($(grep -o 'tps: [0-9.]*' /tmp/sb.log | tail -n 1) in its last second)"
}

# down: unmount, remove the awblk device, unload.
down() {
	umount $MNT || fail "umount ext4"
	aw_cleanup
}

trap 'pkill -KILL -u mysql' EXIT
mkdir -p $MNT $RUN && chown mysql:mysql $RUN || fail "dirs"
modprobe ext4 || fail "modprobe ext4"
for eng in scsi sw; do
	disk $eng
	a0=$(aw_sum_stat $CTL/stats atomic_writes)
	for i in $(seq $cuts); do
		r=$(trial $i $eng) || fail "MariaDB on awblk --untorn 16k ($eng engine), cut $i (seed $seed): $r"
		echo "ok: awblk ($eng engine), cut $i: recovered, CHECK TABLE, rows and innochecksum clean; $r"
	done
	[ $eng = sw ] || [ $(aw_sum_stat $CTL/stats atomic_writes) -gt $a0 ] ||
		fail "no atomic write reached the disk"
	echo "ok: awblk --untorn 16k ($eng engine): $cuts power cuts under sysbench, no corruption"
	down
done

broke=0
disk none
cp -a $data /tmp/my-pristine || fail "copy the database"
for i in $(seq $control); do
	r=$(trial $((1000 + i)) none)
	st=$?
	[ $st -lt 2 ] || fail "control cut $i (seed $seed): $r"
	if [ $st = 0 ]; then
		echo "-- control cut $i: no damage"
		continue
	fi
	broke=$((broke + 1))
	echo "ok: control cut $i: ext4 with innodb_doublewrite = OFF broke: $r"
	my_killall
	mountpoint -q $MNT || fail "ext4 is not mounted after control cut $i"
	$first && break
	rm -rf $data && cp -a /tmp/my-pristine $data && sync || fail "restore the database"
done
[ $broke -gt 0 ] || fail "the control (ext4 alone) never broke in $control cuts: the test has no teeth"
echo "ok: the control broke in $broke of $i cuts; awblk in 0 of $((2 * cuts)) (seed $seed)"
down
