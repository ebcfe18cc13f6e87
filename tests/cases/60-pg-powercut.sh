#!/bin/sh
# PostgreSQL 15 with full_page_writes = off and data checksums, across power
# cuts, on awfs (unit=8k,untorn) over ext4 (bigalloc) on awblk over an
# awscsi disk with its write cache on: through the SCSI engine (a disk with
# atomic writes) and through the software engine (a disk without).
#
# Each trial (tests/qemu/db-lib.sh): the server up, pgbench -c 4 and a
# client committing numbered rows one by one running, the power cut after a
# random number of disk commands, every PostgreSQL process killed (nothing
# of a server survives a power loss), awfs, ext4 and awblk torn down with
# the power still off; then what a reboot does: power, attach, awblk create
# (the software engine's recovery), ext4 mount (journal replay), awfs
# mount, server start (its crash recovery must succeed), every commit the
# client saw acknowledged, pgbench's balance invariants, pg_amcheck on its
# tables and indexes, a clean stop and pg_checksums --check (no bad block).
# On awfs every trial must pass. Controls must break (the test has teeth):
# the same cluster on that ext4 on the disk itself, and, in make crash, on
# the same stack through the software engine with awfs's untorn off. AW_CRASH_CUTS:
# cuts per engine (4; make crash CASE=60-pg-powercut CUTS=N), AWKIT_SEED.
# awkit-timeout: 2700
# awkit-secs-per-cut: 60
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/db-lib.sh"
PGB=/usr/lib/postgresql/15/bin
[ -x $PGB/postgres ] || skip "postgresql-15 is not installed (make deps)"
LOWER=/tmp/pg-lower
AWFS=/tmp/pg-awfs
SOCK=/run/awpg
LOG=/tmp/pg-server.log
DB=PostgreSQL
STACK="awfs unit=8k,untorn"
DB_USER=postgres
DB_LOAD_LOG=/tmp/pgbench.log
DB_LOAD_READY='^progress: '
DB_AWBLK_STAT=atomic_writes
# What PostgreSQL and its tools say of corruption.
DB_BROKEN='invalid page|checksum|corrupt|invariants broken|pg_amcheck|could not read block|PANIC'

pgrun() {
	setpriv --reuid=postgres --regid=postgres --clear-groups \
		env HOME=/tmp PGHOST=$SOCK PGDATABASE=postgres PGUSER=postgres "$@"
}
psqlc() { pgrun $PGB/psql -X -A -t -q -v ON_ERROR_STOP=1 -c "$1"; }
db_start() {
	: >$LOG && chown postgres $LOG
	pgrun $PGB/pg_ctl -D $data -l $LOG -w -t $tmo start >/dev/null 2>&1
}
db_stop() { pgrun $PGB/pg_ctl -D $data -m fast -w -t $tmo stop >/dev/null 2>&1; }
db_errors() { grep -m 2 -E 'FATAL|PANIC|ERROR' $LOG | tr '\n' ' '; }
db_load() {
	pgrun $PGB/pgbench -c 4 -j 2 -T $tmo -P 1 -n >$DB_LOAD_LOG 2>&1 &
}
db_ack() { psqlc "INSERT INTO awkit_acks VALUES ($1)"; }
db_acked() { psqlc "SELECT count(*) FROM awkit_acks WHERE id BETWEEN $1 AND $2"; }

db_check_online() {
	local ok r
	ok=$(psqlc "SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)
		AND (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)
		AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)" 2>&1)
	[ "$ok" = t ] || { echo "balance invariants broken: $ok"; return 1; }
	pgrun $PGB/pg_amcheck -d postgres -t 'pgbench_*' -t awkit_acks \
		--heapallindexed >/tmp/amcheck.log 2>&1 ||
		{ echo "pg_amcheck: $(head -c 300 /tmp/amcheck.log)"; return 1; }
	# Not "incorrect resource manager data checksum in record": that is
	# how recovery finds the end of the WAL after any crash.
	r=$(grep -m 2 -iE 'invalid page|page verification failed|corrupt' $LOG) &&
		{ echo "the server log: $(echo "$r" | tr '\n' ' ')"; return 1; }
	echo "$(psqlc "SELECT count(*) FROM pgbench_history") pgbench transactions kept"
}
db_check_offline() {
	pgrun $PGB/pg_checksums --check -D $data >/tmp/checksums.log 2>&1 ||
		{ echo "pg_checksums: $(grep -m 3 -iE 'checksum|bad' /tmp/checksums.log | tr '\n' ' ')"; return 1; }
}

# up MODE: the stack over the disk, the power on: ext4 on awblk with the
# MODE's engine (plain: the software engine), awfs over ext4's data
# directory (plain: without untorn); none: ext4 on the disk itself. Sets
# $data, the cluster's directory.
up() {
	local dev eng=$1 opt=unit=8k,untorn
	dev=/dev/$(aw_disks awscsi) || return 1
	[ $1 = plain ] && eng=sw opt=unit=8k
	[ $1 = none ] || dev=$($AWCTL create $dev --engine $eng) || return 1
	mount -t ext4 $dev $LOWER || return 1
	data=$LOWER/data/pg
	[ $1 = none ] && return 0
	mount -t awfs -o $opt $LOWER/data $AWFS || return 1
	data=$AWFS/pg
}
db_unmount() {
	umount $AWFS 2>/dev/null
	umount $LOWER
}

# db_disk MODE: a fresh awscsi disk (atomic writes for scsi and none, none
# for sw and plain) with ext4 (bigalloc, 16 KiB clusters) and a pgbench
# cluster made on the ext4 directly (how data gets into awfs fast is
# another matter): small WAL segments and buffer pool and frequent
# checkpoints, so pages are written between checkpoints all the time.
# Comes up with MODE.
db_disk() {
	local awr d dev
	aw_load_awblk || fail "load awblk"
	awr="atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=1 atomic_wr_gran=1"
	case $1 in sw | plain) awr=atomic_wr=0 ;; esac
	# 512-byte sectors: an 8 KiB page is 16 of them, so an unflushed one
	# tears at a cut (with 4 KiB ones the control broke in 1 of 3 and in
	# 1 of 16 cuts).
	aw_insmod awscsi dev_size_mb=320 write_cache=1 $awr ||
		fail "insmod awscsi"
	aw_insmod awfs || fail "insmod awfs"
	d=/dev/$(aw_disks awscsi) || fail "no awscsi disk"
	[ "$awr" = atomic_wr=0 ] && { aw_sw_format $d || fail "format"; }
	dev=$d
	case $1 in
	none) ;;
	plain) dev=$($AWCTL create $d --engine sw) || fail "awctl create" ;;
	*) dev=$($AWCTL create $d --engine $1) || fail "awctl create" ;;
	esac
	mkfs.ext4 -q -F -O bigalloc -C 16384 -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0 $dev || fail "mkfs.ext4"
	mount -t ext4 $dev $LOWER || fail "mount ext4"
	mkdir -p $LOWER/data && chown postgres:postgres $LOWER/data || fail "chown"
	data=$LOWER/data/pg
	pgrun $PGB/initdb -k -A trust -U postgres --wal-segsize=1 -D $data \
		>/tmp/initdb.log 2>&1 || { cat /tmp/initdb.log; fail "initdb"; }
	cat >>$data/postgresql.conf <<-EOF2
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
	EOF2
	db_start || { cat $LOG; fail "first start"; }
	pgrun $PGB/pgbench -i -q -s 2 >/tmp/pgbench-init.log 2>&1 ||
		{ cat /tmp/pgbench-init.log; fail "pgbench -i"; }
	psqlc "CREATE EXTENSION amcheck; CREATE TABLE awkit_acks (id bigint PRIMARY KEY)" ||
		fail "CREATE EXTENSION amcheck, TABLE awkit_acks"
	db_stop || fail "stop"
	db_unmount || fail "umount ext4"
	[ $1 = none ] || $AWCTL remove $dev || fail "awctl remove"
	up $1 || fail "up $1"
}

# The kernel writes dirty pages back within a second or two, not 30 s:
# what PostgreSQL wrote between checkpoints is on the disk (in its cache,
# not yet flushed) when the power fails, on awfs and in the controls alike.
# The runner restores both after the case.
echo 50 >/proc/sys/vm/dirty_writeback_centisecs &&
	echo 100 >/proc/sys/vm/dirty_expire_centisecs || fail "writeback sysctls"
trap db_exit EXIT
mkdir -p $LOWER $AWFS $SOCK && chown postgres:postgres $SOCK || fail "dirs"
modprobe ext4 || fail "modprobe ext4"
campaign scsi
campaign sw
db_live
db_controls "ext4 alone, full_page_writes = off" \
	"awfs without untorn over awblk's software engine"
echo "ok: PostgreSQL without full-page writes on awfs: no corruption in $((2 * cuts)) cuts (seed $seed)"
