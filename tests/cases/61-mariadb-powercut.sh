#!/bin/sh
# MariaDB (InnoDB, 16 KiB pages) with innodb_doublewrite = OFF and
# innodb_flush_method = O_DIRECT, across power cuts, on ext4 (bigalloc,
# 16 KiB clusters: every aligned page is one aligned cluster on the device)
# on awblk --untorn 16k over an awscsi disk with its write cache on: through
# the SCSI engine (a disk with atomic writes) and through the software
# engine (a disk without).
#
# Each trial (tests/qemu/db-lib.sh): the server up, sysbench
# oltp_write_only with 4 threads and a client committing numbered rows one
# by one running, the power cut after a random number of disk commands, every
# MariaDB process killed, ext4 and awblk torn down with the power still
# off; then what a reboot does: power, attach, awblk create (the software
# engine's recovery), ext4 mount (journal replay), server start (InnoDB's
# crash recovery must succeed), every commit the client saw acknowledged,
# the server's error log, CHECK TABLE ... EXTENDED on the sysbench tables,
# sysbench's invariant (oltp_write_only deletes and inserts each row it
# moves in one transaction: every table keeps its rows, by the primary key
# and by the secondary index), a clean stop and innochecksum on the system
# tablespace and every table's. On awblk every trial must pass.
# Controls must break, as in case 60: ext4 on the disk itself, and, in make
# crash, ext4 on awblk through the software engine without --untorn. AW_CRASH_CUTS: cuts per
# engine (4; make crash CASE=61-mariadb-powercut CUTS=N), AWKIT_SEED.
# awkit-timeout: 2700
# awkit-secs-per-cut: 60
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/db-lib.sh"
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] ||
	skip "mariadb-server is not installed (make deps)"
MNT=/tmp/my-ext4
RUN=/run/awmy
SOCK=$RUN/my.sock
LOG=/tmp/my-server.log
ROWS=20000
TABLES=2
DB=MariaDB
STACK="ext4 on awblk --untorn 16k"
DB_USER=mysql
DB_LOAD_LOG=/tmp/sb.log
DB_LOAD_READY='thds: 4 tps:'
DB_AWBLK_STAT=untorn_units
# What InnoDB and the checks say of corruption.
DB_BROKEN='[Cc]orrupt|CHECK TABLE|rows by primary|innochecksum|Unable to apply log|Database page'
data=$MNT/mysql

myc() { mariadb --no-defaults --socket=$SOCK -u root -N -B -e "$1"; }
# The server as the tests run it: no double write, O_DIRECT, a small
# buffer pool and redo log (pages are written all the time), nothing kept
# in memory across a restart that could stand in for what is on the disk.
db_start() {
	local pid
	: >$LOG && chown mysql $LOG
	aw_mariadbd $data $RUN $LOG --innodb=FORCE --innodb-doublewrite=0 \
		--innodb-buffer-pool-size=8M --innodb-log-file-size=16M \
		>/dev/null 2>&1 &
	pid=$!
	# Ready, or gone (a failed recovery ends the server).
	my_up() {
		mariadb-admin --no-defaults --socket=$SOCK -u root \
			--connect-timeout=2 ping >/dev/null 2>&1 ||
			{ kill -0 $pid 2>/dev/null && return 1; return 0; }
	}
	db_wait $tmo my_up && kill -0 $pid 2>/dev/null
}
# A clean stop: the server's own shutdown, then its process gone.
db_stop() {
	mariadb-admin --no-defaults --socket=$SOCK -u root \
		--shutdown-timeout=$tmo shutdown >/dev/null 2>&1 || return 1
	db_wait $tmo eval '! db_alive'
}
db_errors() { grep -m 2 -E '\[ERROR\]' $LOG | tr '\n' ' '; }
SB="oltp_write_only --db-driver=mysql --mysql-socket=$SOCK --mysql-user=root
	--mysql-db=sbtest --tables=$TABLES --table-size=$ROWS"
sb() { sysbench $SB "$@"; } # COMMAND [OPTIONS]
# Not through sb: $! must be sysbench itself.
db_load() {
	sysbench $SB run --threads=4 --time=$tmo --report-interval=1 \
		>$DB_LOAD_LOG 2>&1 &
}
db_ack() { myc "INSERT INTO sbtest.awkit_acks VALUES ($1)"; }
db_acked() { myc "SELECT COUNT(*) FROM sbtest.awkit_acks WHERE id BETWEEN $1 AND $2"; }

# check_table T: CHECK TABLE ... EXTENDED says T is OK, and nothing else.
check_table() {
	local r
	r=$(myc "CHECK TABLE $1 EXTENDED" 2>&1)
	echo "$r" | awk '$3 == "error" || $3 == "Error" || $3 == "warning" || $3 == "Warning" { bad = 1 }
		$3 == "status" && $4 == "OK" { ok = 1 } END { exit !(ok && !bad) }' ||
		{ echo "CHECK TABLE $1 EXTENDED: $(echo "$r" | tr '\n' ' ')"; return 1; }
}

# Every table whole, by CHECK TABLE and by sysbench's invariant
# (oltp_write_only deletes and inserts each row it moves in one
# transaction: every table keeps its rows, by the primary key and by the
# secondary index); nothing in the error log.
db_check_online() {
	local r n t
	for t in $(seq $TABLES); do
		check_table sbtest.sbtest$t || return 1
		n=$(myc "SELECT (SELECT COUNT(*) FROM sbtest.sbtest$t FORCE INDEX (PRIMARY)),
			(SELECT COUNT(*) FROM sbtest.sbtest$t FORCE INDEX (k_$t))" 2>&1)
		[ "$n" = "$(printf '%s\t%s' $ROWS $ROWS)" ] ||
			{ echo "sbtest$t rows by primary key and index: $n, want $ROWS"; return 1; }
	done
	check_table sbtest.awkit_acks || return 1
	r=$(grep -m 2 -iE '\[ERROR\]|corrupt' $LOG) &&
		{ echo "the server log: $(echo "$r" | tr '\n' ' ')"; return 1; }
	echo "sysbench ran $(grep -c 'thds: 4 tps:' $DB_LOAD_LOG) s before the cut"
}
db_check_offline() {
	local f
	for f in $data/ibdata1 $data/*/*.ibd; do
		innochecksum "$f" >/tmp/innochecksum.log 2>&1 ||
			{ echo "innochecksum ${f#$data/}: $(head -c 300 /tmp/innochecksum.log)"; return 1; }
	done
}

# up MODE: the stack over the disk, the power on. MODE scsi or sw: ext4
# on awblk --untorn 16k with that engine; plain: on awblk through the
# software engine without --untorn; none: ext4 on the disk.
up() {
	local dev
	dev=/dev/$(aw_disks awscsi) || return 1
	case $1 in
	none) ;;
	plain) dev=$($AWCTL create $dev --engine sw) || return 1 ;;
	*) dev=$($AWCTL create $dev --engine $1 --untorn 16k) || return 1 ;;
	esac
	mount -t ext4 $dev $MNT
}
db_unmount() { umount $MNT; }

# db_disk MODE: a fresh awscsi disk (atomic writes for scsi and none, none
# for sw and plain) with ext4 and a sysbench database, made on the stack
# itself.
db_disk() {
	local awr d
	aw_load_awblk || fail "load awblk"
	awr="atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=1 atomic_wr_gran=1"
	case $1 in sw | plain) awr=atomic_wr=0 ;; esac
	aw_insmod awscsi dev_size_mb=320 sector_size=4096 write_cache=1 $awr ||
		fail "insmod awscsi"
	d=/dev/$(aw_disks awscsi) || fail "no awscsi disk"
	[ "$awr" = atomic_wr=0 ] && { aw_sw_format $d || fail "format"; }
	case $1 in
	none) ;;
	plain) d=$($AWCTL create $d --engine sw) || fail "awctl create" ;;
	*) d=$($AWCTL create $d --engine $1 --untorn 16k) || fail "awctl create" ;;
	esac
	mkfs.ext4 -q -F -O bigalloc -C 16384 -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0 $d || fail "mkfs.ext4"
	mount -t ext4 $d $MNT || fail "mount ext4"
	mkdir -p $data && chown mysql:mysql $data || fail "chown"
	mariadb-install-db --no-defaults --user=mysql --datadir=$data \
		--auth-root-authentication-method=normal --skip-test-db \
		--innodb-page-size=16k >/tmp/install-db.log 2>&1 ||
		{ cat /tmp/install-db.log; fail "mariadb-install-db"; }
	db_start || { cat $LOG; fail "first start"; }
	myc "CREATE DATABASE sbtest; CREATE TABLE sbtest.awkit_acks (id BIGINT PRIMARY KEY) ENGINE=InnoDB" ||
		fail "CREATE DATABASE, TABLE awkit_acks"
	sb prepare >/tmp/sb-prepare.log 2>&1 || { cat /tmp/sb-prepare.log; fail "sysbench prepare"; }
	db_stop || fail "stop"
	sync
}

trap db_exit EXIT
mkdir -p $MNT $RUN && chown mysql:mysql $RUN || fail "dirs"
modprobe ext4 || fail "modprobe ext4"
campaign scsi
campaign sw
db_live
db_controls "ext4 alone, innodb_doublewrite = OFF" \
	"ext4 on awblk's software engine without --untorn"
echo "ok: MariaDB without the doublewrite buffer on awblk --untorn 16k: no corruption in $((2 * cuts)) cuts (seed $seed)"
