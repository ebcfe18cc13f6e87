# Profile disk's database rows (make bench ONLY=db; sourced by
# guest-bench.sh): what a database gains when it stops writing pages twice,
# on two awscsi disks with the profile's latency and flush cost, one for
# each side of a row, alternating runs (A B B A ...).
#   PostgreSQL 15: pgbench TPS, full_page_writes = off on awfs
#     (unit=8k,untorn) over ext4 on awblk (SCSI engine), against
#     full_page_writes = on on ext4 on the disk itself
#   MariaDB 10.11: sysbench oltp_read_write TPS, innodb_doublewrite = OFF
#     on ext4 on awblk --untorn 16k, against ON on ext4 on the disk itself
#   both: p99 latency against the peer's, and creating data (cp -a of a
#     fresh cluster) through awfs against ext4
# Settings that make the double write matter as it does in production:
# checkpoints within every run, a working set several times the buffer
# pool. Each run starts from a checkpoint (a clean buffer pool).
DBSECS=${AWKIT_BENCH_DBSECS:-90}
DB_MBPS=4
[ "$AWKIT_CASE" = quick ] && DBSECS=45
PGB=/usr/lib/postgresql/15/bin
BSOCK=/run/awbench-db

pgb() {
	setpriv --reuid=postgres --regid=postgres --clear-groups \
		env HOME=/tmp PGHOST=$BSOCK PGDATABASE=postgres PGUSER=postgres "$@"
}
bpsql() { pgb $PGB/psql -X -A -t -q -v ON_ERROR_STOP=1 -c "$1"; }

# db_disks UNIT [CREATE-OPTIONS]: two awscsi disks of 768 MiB with the
# profile's model and atomic writes of UNIT-byte units (the peer does not
# use them), $d0 for awkit and $d1 for the peer, each with ext4 (bigalloc,
# 16 KiB clusters) mounted on /tmp/dbA (over awblk, SCSI engine: $dev) and
# /tmp/dbB (the disk itself).
db_disks() {
	local disks opts="$2" s=$(($1 / 512)) p
	p=$(awk -v s=$s 'BEGIN { while (2 ^ e < s) e++; print e }')
	aw_insmod awscsi num_tgts=2 dev_size_mb=768 physblk_exp=$p atomic_wr=1 \
		atomic_wr_max_length=128 atomic_wr_align=$s atomic_wr_gran=$s \
		$DBM || exit 1
	disks=$(aw_disks awscsi 2) || exit 1
	set -- $disks
	[ $# = 2 ] || { echo "want two awscsi disks, have: $disks"; exit 1; }
	d0=$1 d1=$2
	# 32 requests in flight, as a SATA disk takes (NCQ).
	for p in $d0 $d1; do
		echo none >/sys/block/$p/queue/scheduler &&
			echo 32 >/sys/block/$p/queue/nr_requests || exit 1
	done
	dev=$($AWCTL create /dev/$d0 $opts) || exit 1
	rej=$(aw_sum_stat /sys/devices/awscsi/stats atomic_rejected)
	# Both servers' sockets (postgres and mysql).
	mkdir -p /tmp/dbA /tmp/dbB /tmp/dbAw $BSOCK && chmod 1777 $BSOCK
	for p in "$dev /tmp/dbA" "/dev/$d1 /tmp/dbB"; do
		set -- $p
		mkfs.ext4 -q -F -O bigalloc -C 16384 -b 4096 \
			-E lazy_itable_init=0,lazy_journal_init=0 $1 || exit 1
		mount -t ext4 $1 $2 || exit 1
	done
}
db_disks_down() {
	[ "$(aw_sum_stat /sys/devices/awscsi/stats atomic_rejected)" = "$rej" ] ||
		{ echo "the disk rejected atomic writes"; exit 1; }
	umount /tmp/dbAw 2>/dev/null
	umount /tmp/dbA /tmp/dbB
	$AWCTL remove $dev
	aw_unload awscsi
}

# pg_cluster DIR FPW: a pgbench cluster (scale 10, about 160 MB, against
# 16 MB of shared buffers) in DIR, made on ext4 directly.
pg_cluster() {
	mkdir -p $1 && chown postgres $1 || exit 1
	pgb $PGB/initdb -k -A trust -U postgres -D $1/pg >/dev/null || exit 1
	cat >>$1/pg/postgresql.conf <<-EOF
	full_page_writes = $2
	listen_addresses = ''
	unix_socket_directories = '$BSOCK'
	dynamic_shared_memory_type = sysv
	shared_buffers = 16MB
	max_wal_size = 64MB
	checkpoint_timeout = 30s
	EOF
	pgb $PGB/pg_ctl -D $1/pg -l /tmp/pgb-server.log -w -t 600 start >/dev/null || exit 1
	pgb $PGB/pgbench -i -q -s 10 >/dev/null 2>&1 || exit 1
	pgb $PGB/pg_ctl -D $1/pg -m fast -w -t 600 stop >/dev/null || exit 1
}

# cold: what the last run left in the page cache goes.
cold() { sync && echo 3 >/proc/sys/vm/drop_caches; }

# numeric V...: every V a number.
numeric() {
	for v in "$@"; do
		case $v in '' | *[!0-9.]*) return 1 ;; esac
	done
}

# p99: the 99th percentile (nearest rank) of the numbers on stdin.
p99() {
	sort -n | awk '{ a[NR] = $1 }
		END { r = int(NR * 0.99); if (r < NR * 0.99) r++; if (r < 1) r = 1; print a[r] }'
}

# pg_run DATA: one pgbench run on the cluster in DATA, 8 clients, from a
# checkpoint and a cold page cache: "tps N p99_us N".
pg_run() {
	local tps p st
	cold
	pgb $PGB/pg_ctl -D $1 -l /tmp/pgb-server.log -w -t 600 start >/dev/null || return 1
	bpsql CHECKPOINT || { pgb $PGB/pg_ctl -D $1 -m fast -w -t 600 stop >/dev/null; return 1; }
	rm -f /tmp/pgl*
	(cd /tmp && pgb $PGB/pgbench -n -c 8 -j 2 -T $DBSECS -l \
		--log-prefix=/tmp/pgl >/tmp/pgb.out 2>&1)
	st=$?
	pgb $PGB/pg_ctl -D $1 -m fast -w -t 600 stop >/dev/null || return 1
	[ $st = 0 ] || { cat /tmp/pgb.out >&2; return 1; }
	tps=$(awk '/^tps = / { print $3 }' /tmp/pgb.out)
	# The log's third field: each transaction's latency in microseconds.
	p=$(cat /tmp/pgl* | awk '{ print $3 }' | p99)
	numeric "$tps" "$p" || return 1
	echo "tps $tps p99_us $p"
}

# my_start_b DATADIR DOUBLEWRITE: the server up (status 1: it died or
# did not come up in 600 s).
my_start_b() {
	local pid i=0
	aw_mariadbd $1 $BSOCK /tmp/myb-server.log --innodb-doublewrite=$2 \
		--innodb-buffer-pool-size=16M --innodb-log-file-size=64M \
		>/dev/null 2>&1 &
	pid=$!
	until mariadb-admin --no-defaults --socket=$BSOCK/my.sock -u root \
		--connect-timeout=2 ping >/dev/null 2>&1; do
		kill -0 $pid 2>/dev/null || return 1
		sleep 0.2
		i=$((i + 1))
		[ $i -lt 3000 ] || return 1
	done
}
my_stop_b() {
	local i=0
	mariadb-admin --no-defaults --socket=$BSOCK/my.sock -u root \
		--shutdown-timeout=600 shutdown >/dev/null 2>&1 || return 1
	while ps -u mysql -o stat= | grep -qv '^Z'; do
		sleep 0.2
		i=$((i + 1))
		[ $i -lt 3000 ] || return 1
	done
}
mysb() {
	sysbench oltp_read_write --db-driver=mysql --mysql-socket=$BSOCK/my.sock \
		--mysql-user=root --mysql-db=sbtest --tables=4 --table-size=50000 "$@"
}
my_db() { # DIR: a sysbench database (4 tables of 50000 rows, about 50 MB)
	mkdir -p $1/my && chown mysql $1/my || exit 1
	mariadb-install-db --no-defaults --user=mysql --datadir=$1/my \
		--auth-root-authentication-method=normal --skip-test-db \
		--innodb-page-size=16k >/tmp/myb-install.log 2>&1 ||
		{ tail -n 5 /tmp/myb-install.log; echo "mariadb-install-db failed"; exit 1; }
	my_start_b $1/my 1 ||
		{ tail -n 5 /tmp/myb-server.log; echo "mariadbd did not start"; exit 1; }
	mariadb --no-defaults --socket=$BSOCK/my.sock -u root -e "CREATE DATABASE sbtest" || exit 1
	mysb prepare >/tmp/myb-prepare.log 2>&1 ||
		{ tail -n 5 /tmp/myb-prepare.log; echo "sysbench prepare failed"; exit 1; }
	my_stop_b || { echo "mariadbd did not stop"; exit 1; }
}
# my_run DATADIR DOUBLEWRITE: one sysbench oltp_read_write run, 8
# threads, from a clean start and a cold page cache: "tps N p99_us N".
my_run() {
	local out st tps p
	cold
	my_start_b $1 $2 || return 1
	out=$(mysb run --threads=8 --time=$DBSECS --percentile=99 2>&1)
	st=$?
	my_stop_b || return 1
	[ $st = 0 ] || { echo "$out" >&2; return 1; }
	tps=$(echo "$out" | awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }')
	p=$(echo "$out" | awk '/99th percentile:/ { print $3 * 1000 }')
	numeric "$tps" "$p" || return 1
	echo "tps $tps p99_us $p"
}

# io_stat DISK: its block layer counters (reads, sectors read, writes,
# sectors written: /sys/block/DISK/stat fields 1, 3, 5, 7) and the cache
# flushes awscsi counted for it (the block layer does not count the
# flushes it makes of REQ_PREFLUSH): disk N of awscsi's stats is target N.
io_stat() {
	local t
	t=$(basename "$(readlink /sys/block/$1/device)" | cut -d: -f3)
	echo "$(awk '{ print $1, $3, $5, $7 }' /sys/block/$1/stat)" \
		"$(sed -n "s/^disk$t .* flushes \([0-9]*\) .*/\1/p" /sys/devices/awscsi/stats)"
}

# io_delta BEFORE AFTER: what a disk did between two io_stat lines.
io_delta() {
	echo "$1 $2" | awk '{ printf "%d reads %.1f MB, %d writes %.1f MB, %d flushes",
		$6 - $1, ($7 - $2) / 2048, $8 - $3, ($9 - $4) / 2048, $10 - $5 }'
}

# db_compare A-LABEL A-CMD B-LABEL B-CMD ROW TARGET: runs of A (on disk
# $d0) and B (on $d1) alternating, rows for TPS (A / B, TARGET) and p99
# latency (A / B, no worse: at most 1), and what each run asked of its
# disk.
db_compare() {
	local i x y a0 b0
	: >/tmp/r; : >/tmp/rl
	for i in $(seq $reps); do
		a0=$(io_stat $d0) b0=$(io_stat $d1)
		alt $i "$2" "$4"
		[ -n "$x" ] && [ -n "$y" ] || { echo "a database run failed: $2 / $4"; exit 1; }
		echo "  $5 run $i: $1 ($x) $3 ($y)"
		echo "    disk: $1: $(io_delta "$a0" "$(io_stat $d0)"); $3: $(io_delta "$b0" "$(io_stat $d1)")"
		ratio $(f "$x" 2) $(f "$y" 2) >>/tmp/r
		ratio $(f "$x" 4) $(f "$y" 4) >>/tmp/rl
	done
	row "$5, TPS" $6 /tmp/r
	row "$5, p99 latency" le1.00 /tmp/rl
}

# copy_ns SRC DST: nanoseconds cp -a SRC DST and a sync take.
copy_ns() {
	local t
	rm -rf $2 && cold
	t=$(date +%s%N)
	cp -a $1 $2 && sync || return 1
	echo $(($(date +%s%N) - t))
}

# bulk_row DIR: cp -a of DIR (a fresh cluster, in memory) into awfs
# (unit=8k,untorn, on /tmp/dbA's ext4 on awblk) against into ext4 on the
# peer's disk, alternating: throughput awfs / ext4.
bulk_row() {
	local i x y n=$reps
	# Copying into awfs is slow today: one run a side when quick.
	[ "$AWKIT_CASE" = quick ] && n=1
	: >/tmp/r
	for i in $(seq $n); do
		alt $i "copy_ns $1 /tmp/dbAw/c" "copy_ns $1 /tmp/dbB/c"
		[ -n "$x" ] && [ -n "$y" ] || { echo "cp -a failed"; exit 1; }
		echo "  cp -a run $i: awfs $((x / 1000000)) ms, ext4 $((y / 1000000)) ms"
		ratio $y $x >>/tmp/r
	done
	row "creating data: cp -a of a fresh PostgreSQL cluster ($(du -sm $1 | cut -f1) MB), awfs untorn / ext4, throughput" 0.50 /tmp/r
	rm -rf /tmp/dbAw/c /tmp/dbB/c
}

db_rows() {
	local u
	# The profile's latency and flush cost, and a media rate: with latency
	# alone, commands in flight overlap without limit and a page's second
	# copy costs nothing; a real disk moves data at a finite rate, and a
	# busy server's load keeps it near that rate. 4 MB/s: low enough that
	# the guest's loads, slowed by the emulation, spend a real share of
	# the disk's time moving data (not calibrated against a real server).
	DBM="ndelay=$DISK_NS write_cache=1 flush_ndelay=$FLUSH_NS mbps=$DB_MBPS"
	echo "== the database rows' disks: awscsi $DBM"
	modprobe ext4 || exit 1
	aw_insmod awfs || exit 1
	if ! want db && ! want pg; then
		:
	elif [ -x $PGB/postgres ]; then
		echo "== disk: PostgreSQL 15, pgbench: full_page_writes = off on awfs untorn against on, on ext4"
		db_disks 8192
		pg_cluster /tmp/dbA/data off
		pg_cluster /tmp/dbB/data on
		mount -t awfs -o unit=8k,untorn /tmp/dbA/data /tmp/dbAw || exit 1
		db_compare "off, awfs" "pg_run /tmp/dbAw/pg" "on, ext4" "pg_run /tmp/dbB/data/pg" \
			"PostgreSQL: full_page_writes = off on awfs untorn / on, on ext4, pgbench scale 10, 8 clients" 1.3
		grep -q "atomic_writes [1-9]" /sys/block/${dev#/dev/}/awblk/stats ||
			{ echo "awfs made no atomic write"; exit 1; }
		! dmesg | grep -m 1 'awfs: .*no atomic writes' || { echo "awfs fell back"; exit 1; }
		mkdir -p /tmp/fresh && chown postgres /tmp/fresh && rm -rf /tmp/fresh/pg
		pgb $PGB/initdb -k -A trust -U postgres --wal-segsize=1 -D /tmp/fresh/pg >/dev/null || exit 1
		bulk_row /tmp/fresh/pg
		rm -rf /tmp/fresh
		db_disks_down
	else
		echo "!! postgresql-15 is not installed (make deps): no PostgreSQL row"
	fi
	if ! want db && ! want mariadb; then
		:
	elif [ -x /usr/sbin/mariadbd ]; then
		echo "== disk: MariaDB 10.11, sysbench oltp_read_write: innodb_doublewrite = OFF on awblk --untorn 16k against ON, on ext4"
		db_disks 16384 "--untorn 16k"
		my_db /tmp/dbA
		my_db /tmp/dbB
		u=$(aw_sum_stat /sys/block/${dev#/dev/}/awblk/stats untorn_units)
		db_compare "OFF, awblk untorn" "my_run /tmp/dbA/my 0" "ON, ext4" "my_run /tmp/dbB/my 1" \
			"MariaDB: innodb_doublewrite = OFF on awblk --untorn 16k / ON, on ext4, sysbench oltp_read_write, 8 threads" 1.3
		[ $(aw_sum_stat /sys/block/${dev#/dev/}/awblk/stats untorn_units) -gt $u ] ||
			{ echo "awblk made no page write an untorn unit"; exit 1; }
		db_disks_down
	else
		echo "!! mariadb-server is not installed (make deps): no MariaDB row"
	fi
	aw_unload awfs
}
