#!/bin/sh
# In the guest: awkit against its peers on the same backing store, in one
# boot, alternating runs (A B A B ...), printing for every comparison the
# median, min and max of the ratio next to its target. Everything runs on
# disks with the `none` scheduler (the first row shows why).
#
# Two profiles (AWKIT_BENCH_PROFILE, comma-separated; both by default):
# cpu, the rows below on devices that complete inline, where every row is
# bound by the emulator's CPU and shows what each path costs in CPU per I/O;
# and disk (profile_disk, below), on an awscsi disk with a latency and a
# flush cost, where durable writes are compared with durable writes.
#
# Profile cpu:
#   sd + mq-deadline / none   why: mq-deadline serializes these emulated disks
#   awscsi / scsi_debug       fio 4 KiB random read/write, QD16, libaio, O_DIRECT
#   awblk / raw, / dm-linear  the same job: awblk pass-through against the disk
#                             itself and against dm-linear over it
#   untorn / plain awblk      fio 16 and 64 KiB random writes on awblk --untorn 16k
#   atomic / plain            16 KiB writes, 1/4/16 threads (awbench): atomic
#                             writes through awblk against plain O_DIRECT writes
#                             to the disk below, over an awscsi disk (SCSI
#                             engine) and an NVMe/TCP loopback namespace (NVMe)
#   awblk / scsi_debug        (6.11+) the same atomic writes against RWF_ATOMIC
#                             on scsi_debug atomic_wr=1, the upstream path
#   atomic+DSYNC / doublewrite  durable atomic writes against InnoDB's answer
#                             to torn pages, both on an awscsi disk with its
#                             volatile write cache on
#   sw atomic / doublewrite, / plain  the software engine on a RAM disk (brd,
#                             no cache) and on awscsi with its write cache on,
#                             against doublewrite and plain writes on the same disk
#   awfs untorn / ext4        buffered 16 KiB writes ending in fdatasync, 4
#                             writers, on awfs (unit=16k,untorn) against the
#                             same on its lower ext4 (bigalloc) directly, both
#                             on awblk over awscsi with its write cache on
# Every row also reports CPU time per I/O (or per write): the guest's busy
# time from /proc/stat over the run, divided by the I/Os completed.
#
# Profile disk (16 KiB writes from 1/4/16 writers unless said):
#   awblk / raw disk          fio 4 KiB random read/write QD16, pass-through
#   atomic+DSYNC / O_DSYNC    durable atomic writes through the SCSI engine, and
#                             through the NVMe engine over NVMe/TCP, against
#                             plain O_DIRECT|O_DSYNC writes to the disk below;
#                             doublewrite and non-durable atomic/plain as
#                             references (16 writers)
#   untorn / plain awblk      fio 64 KiB random writes QD16, --untorn 16k, at
#                             16 ms a command (4 ms: a reference row)
#   sw atomic+DSYNC / doublewrite, / O_DSYNC  the software engine over a disk
#                             without atomic writes
#   awfs untorn / ext4        as above, 8 KiB pages, 16 writers, unit=8k
#   databases (ONLY=db; pg,   PostgreSQL and MariaDB without double writes
#   mariadb: one of them)
#                             on awkit against with them on ext4 (db-bench.sh)
#
# Outputs in $AWKIT_OUT, per profile P: bench-P.txt (the Markdown rows),
# bench-P.jsonl (one JSON object a row), threads-P.dat (throughput, latency
# and CPU per write against threads, for the chart), model-P.txt (the
# device model's values). tests/bench/report.sh turns them into the results
# on the host.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/bench/db-bench.sh"
reps=${AWKIT_BENCH_REPS:-5}
secs=${AWKIT_BENCH_SECS:-5}
[ "$AWKIT_CASE" = quick ] && { reps=3; secs=3; }
AWCTL=$AWKIT_ROOT/build/tools/awctl
AWB=$AWKIT_ROOT/build/tools/awbench

# profile_files P: this profile's outputs.
profile_files() {
	out=$AWKIT_OUT/bench-$1.txt
	json=$AWKIT_OUT/bench-$1.jsonl
	dat=$AWKIT_OUT/threads-$1.dat
	: >$out; : >$json; : >$dat
}

# Busy CPU ticks of the whole guest so far (/proc/stat).
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# fio_iops DEV RW [BS]: IOPS of one fio run, QD16, libaio, O_DIRECT. The
# CPU time per I/O (microseconds) of the run goes to /tmp/cpu_us.
fio_iops() {
	local b0 n
	b0=$(busy)
	n=$(fio --name=b --filename=$1 --ioengine=libaio --direct=1 --rw=$2 \
		--bs=${3:-4k} --iodepth=16 --size=200M --time_based --runtime=$secs \
		--randrepeat=0 --output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' -v rw=$2 '{ print (rw ~ /read/) ? $8 : $49 }')
	echo "$(busy) $b0 $n $secs $(getconf CLK_TCK)" |
		awk '{ printf "%.1f\n", $3 ? ($1 - $2) * 1e6 / $5 / ($3 * $4) : 0 }' >/tmp/cpu_us
	echo $n
}
iops() { fio_iops "$@"; }

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
num() { awk '{ printf "%.3f\n", $1 }'; }	# bc prints .95: JSON wants 0.950

# row LABEL TARGET FILE: FILE holds one ratio a line. TARGET 0: none; a
# number: the median must be at least that; "le" and a number (le1.05): at
# most that (a cost).
row() {
	local med min max tgt verdict t=${2#le} cmp=">="
	[ "$t" = "$2" ] || cmp="<="
	med=$(median <"$3" | num)
	min=$(sort -n "$3" | head -n 1 | num)
	max=$(sort -n "$3" | tail -n 1 | num)
	if [ "$t" = 0 ]; then
		tgt="" verdict="(no target)"
	elif [ "$(echo "$med $cmp $t" | bc)" = 1 ]; then
		tgt="$cmp $t" verdict="meets"
	elif [ "$cmp" = ">=" ]; then
		tgt="$cmp $t" verdict="short by $(echo "$t - $med" | bc)"
	else
		tgt="$cmp $t" verdict="over by $(echo "$med - $t" | bc)"
	fi
	echo "| $1 | $med | $min | $max | $tgt | $verdict |" >>$out
	echo "{\"comparison\": \"$1\", \"median\": $med, \"min\": $min, \"max\": $max, \"target\": \"$tgt\", \"verdict\": \"$verdict\", \"ratios\": [$(num <"$3" | paste -sd,)]}" >>$json
}

ratio() { echo "scale=3; $1 / $2" | bc; }

# awbench output "iops N p50_us N p99_us N cpu_us N" -> field N (2 iops,
# 4 p50, 6 p99, 8 CPU microseconds per write).
f() { echo "$1" | awk -v n=$2 '{ print $n }'; }

# point PATH THREADS FILE: the median IOPS, p50, p99 and CPU per write of
# FILE's awbench lines, for the chart and the latency table.
point() {
	[ -s "$3" ] || return 1
	echo "\"$1\" $2 $(awk '{ print $2 }' $3 | median) $(awk '{ print $4 }' $3 | median) $(awk '{ print $6 }' $3 | median) $(awk '{ print $8 }' $3 | median)" >>$dat
}

# alt I A-CMD B-CMD: A's output in $x and B's in $y, A run first when I
# is odd and B first when even (A B B A ...), so neither side always
# follows the other.
alt() {
	if [ $(($1 % 2)) = 1 ]; then
		x=$($2); y=$($3)
	else
		y=$($3); x=$($2)
	fi
}

# compare A-LABEL A-CMD B-LABEL B-CMD ROW-LABEL TARGET: awbench runs of A
# and B alternating (A B B A A B ...), the ratio A/B per pair, a row, and
# the chart points of both for $t threads.
compare() {
	local i x y
	: >/tmp/r; : >/tmp/a; : >/tmp/b
	for i in $(seq $reps); do
		alt $i "$2" "$4"
		[ -n "$x" ] && [ -n "$y" ] || { echo "awbench failed: $2 / $4"; exit 1; }
		echo "  $5 run $i: $1($x) $3($y)"
		echo "$x" >>/tmp/a; echo "$y" >>/tmp/b
		ratio $(f "$x" 2) $(f "$y" 2) >>/tmp/r
	done
	row "$5" $6 /tmp/r
	point "$1" $t /tmp/a
	point "$3" $t /tmp/b
}

# bench_disk MB PARAMS...: awscsi loaded with PARAMS, its disk in $a with
# the none scheduler and its first MB MiB written (0: none): awscsi
# allocates its store as blocks are first written, and no run should pay
# for allocation that another skipped.
bench_disk() {
	local mb=$1
	shift
	aw_insmod awscsi "$@" || exit 1
	a=$(aw_disks awscsi) || exit 1
	# The disk is what the row says it is (a clobbered parameter list once
	# gave the default 8 MiB).
	for p in "$@"; do
		case $p in dev_size_mb=*)
			[ "$(cat /sys/block/$a/size)" = $((${p#*=} * 2048)) ] ||
				{ echo "awscsi disk $a is not ${p#*=} MiB"; exit 1; } ;;
		esac
	done
	echo none >/sys/block/$a/queue/scheduler
	[ "$mb" = 0 ] || fio --name=fill --filename=/dev/$a --ioengine=libaio \
		--direct=1 --rw=write --bs=1M --iodepth=4 --size=${mb}M >/dev/null 2>&1
}

awblk_iops() { # RW [BS] [CREATE-OPTIONS]
	local dev
	dev=$($AWCTL create /dev/$a $3) || return 1
	fio_iops $dev $1 $2
	$AWCTL remove $dev
}

dm_iops() { # RW
	DM_DISABLE_UDEV=1 dmsetup create awlin --table "0 $sectors linear /dev/$a 0" || return 1
	iops /dev/mapper/awlin $1
	DM_DISABLE_UDEV=1 dmsetup remove awlin
}

# sw_rows LABEL DISK: the software engine over DISK (formatted here) against
# doublewrite and plain writes on DISK itself, 1/4/16 threads.
sw_rows() {
	local dev t target
	$AWCTL format /dev/$2 --force >/dev/null || exit 1
	dev=$($AWCTL create /dev/$2) || exit 1
	for t in 1 4 16; do
		target=0; [ $t = 16 ] && target=2
		compare "awblk atomic (sw, $1)" "$AWB $dev atomic 16384 $t $secs" \
			"doublewrite ($1)" "$AWB /dev/$2 doublewrite 16384 $t $secs" \
			"awblk sw atomic / doublewrite, $1, 16 KiB, $t threads" $target
		target=0; [ $t = 16 ] && target=0.40
		compare "awblk atomic (sw, $1)" "$AWB $dev atomic 16384 $t $secs" \
			"plain O_DIRECT ($1)" "$AWB /dev/$2 plain 16384 $t $secs" \
			"awblk sw atomic / plain, $1, 16 KiB, $t threads" $target
	done
	echo "  engine: $(tr '\n' ' ' </sys/block/${dev#/dev/}/awblk/engine_stats)"
	$AWCTL remove $dev
}

# awfs_row BS WRITERS TARGET MODEL...: buffered BS-byte page writes, an
# fdatasync after every 4, on awfs (unit=BS, untorn) against the same
# workload on its lower ext4 (bigalloc, BS clusters) directly, both on awblk
# (SCSI engine) over an awscsi disk with MODEL. One 64 MiB preallocated
# file each, on one file system.
awfs_row() {
	local bs=$1 t=$2 target=$3 dev
	shift 3
	echo "== awfs untorn against its lower ext4: buffered $((bs / 1024)) KiB writes with fdatasync"
	aw_insmod awfs || exit 1
	modprobe ext4 || exit 1
	bench_disk 0 $P $A "$@"
	dev=$($AWCTL create /dev/$a --engine scsi) || exit 1
	mkfs.ext4 -q -F -O bigalloc -C $bs -b 4096 $dev || exit 1
	mkdir -p /tmp/bl /tmp/bm
	mount -t ext4 $dev /tmp/bl && mkdir -p /tmp/bl/aw /tmp/bl/plain || exit 1
	mount -t awfs -o unit=$bs,untorn /tmp/bl/aw /tmp/bm || exit 1
	for f in /tmp/bm/f /tmp/bl/plain/f; do
		dd if=/dev/zero of=$f bs=1M count=64 conv=fsync status=none || {
			df -k /tmp/bl /tmp/bm; grep ' /tmp/' /proc/mounts
			ls -ls /tmp/bl/aw /tmp/bl/plain; exit 1
		}
	done
	compare "awfs untorn ($((bs / 1024)) KiB)" "$AWB /tmp/bm/f buffered-sync $bs $t $secs" \
		"ext4 ($((bs / 1024)) KiB)" "$AWB /tmp/bl/plain/f buffered-sync $bs $t $secs" \
		"awfs untorn / ext4, buffered $((bs / 1024)) KiB + fdatasync, $t writers" $target
	grep -q "atomic_writes [1-9]" /sys/devices/awscsi/stats || { echo "no atomic writes reached the disk"; exit 1; }
	umount /tmp/bm; umount /tmp/bl
	$AWCTL remove $dev
	aw_unload awfs awscsi
}

# Profile cpu: devices that complete inline.
profile_cpu() {
echo "inline: awscsi $P (delay=0), scsi_debug delay=0, brd" >$AWKIT_OUT/model-cpu.txt
if [ -z "$only" ] || want pass; then
# scsi_debug has atomic writes from 6.11: the upstream path to measure.
sdA=""
aw_kernel_at_least 6 11 && sdA=$A
modprobe scsi_debug $P delay=0 $sdA || exit 1
aw_insmod awscsi $P $A || exit 1
a=$(aw_disks awscsi) || exit 1
s=$(aw_disks scsi_debug) || exit 1
sectors=$(cat /sys/block/$a/size)
# awscsi allocates its store as blocks are first written: fill the region
# the benchmarks touch, so no run pays for allocation that another skipped.
for d in $a $s; do
	fio --name=fill --filename=/dev/$d --ioengine=libaio --direct=1 \
		--rw=write --bs=1M --iodepth=4 --size=200M >/dev/null 2>&1
done

if [ -z "$only" ]; then
echo "== the scheduler: sd with mq-deadline against sd with none (4 KiB randread, QD16)"
: >/tmp/r
for i in $(seq $reps); do
	echo mq-deadline >/sys/block/$a/queue/scheduler
	x=$(iops /dev/$a randread)
	echo none >/sys/block/$a/queue/scheduler
	y=$(iops /dev/$a randread)
	echo "  run $i: mq-deadline $x, none $y IOPS"
	ratio $x $y >>/tmp/r
done
row "sd + mq-deadline / sd + none, 4 KiB randread QD16" 0 /tmp/r
for d in $a $s; do echo none >/sys/block/$d/queue/scheduler; done

echo "== awscsi vs scsi_debug (4 KiB, QD16)"
for rw in randread randwrite; do
	: >/tmp/r
	for i in $(seq $reps); do
		if [ $((i % 2)) = 1 ]; then
			x=$(iops /dev/$a $rw); y=$(iops /dev/$s $rw)
		else
			y=$(iops /dev/$s $rw); x=$(iops /dev/$a $rw)
		fi
		echo "  $rw $i: awscsi $x, scsi_debug $y IOPS"
		ratio $x $y >>/tmp/r
	done
	row "awscsi / scsi_debug, 4 KiB $rw QD16" 0.80 /tmp/r
done

fi

# A few per cent of CPU per I/O is within one short run's noise on a TCG
# guest: this section takes at least 7 runs a side, and dm-linear's own
# cost over the raw disk is shown beside awblk's (the kernel's remap target
# pays the same second trip through the block layer).
echo "== awblk pass-through vs the raw disk and dm-linear (4 KiB, QD16)"
preps=$((reps < 7 ? 7 : reps))
for rw in randread randwrite; do
	: >/tmp/r1; : >/tmp/r2; : >/tmp/r3; : >/tmp/r4
	for i in $(seq $preps); do
		# Alternate the order (raw awblk dm, dm awblk raw, ...) so that
		# drift over the run favours none of them. awblk and dm-linear
		# each hold the disk exclusively: one at a time.
		# /tmp/cpu_us: the CPU time per I/O of the last fio run.
		if [ $((i % 2)) = 1 ]; then
			raw=$(iops /dev/$a $rw); craw=$(cat /tmp/cpu_us)
			x=$(awblk_iops $rw); cx=$(cat /tmp/cpu_us)
			y=$(dm_iops $rw); cy=$(cat /tmp/cpu_us)
		else
			y=$(dm_iops $rw); cy=$(cat /tmp/cpu_us)
			x=$(awblk_iops $rw); cx=$(cat /tmp/cpu_us)
			raw=$(iops /dev/$a $rw); craw=$(cat /tmp/cpu_us)
		fi
		[ -n "$x" ] && [ -n "$y" ] || exit 1
		echo "  $rw $i: raw $raw, awblk $x, dm-linear $y IOPS; CPU per I/O raw $craw us, awblk $cx us, dm-linear $cy us"
		ratio $x $raw >>/tmp/r1
		ratio $x $y >>/tmp/r2
		ratio $cx $craw >>/tmp/r3
		ratio $cy $craw >>/tmp/r4
	done
	row "awblk / raw disk, 4 KiB $rw QD16" 0.97 /tmp/r1
	row "awblk / dm-linear, 4 KiB $rw QD16" 1.00 /tmp/r2
	row "awblk / raw disk, CPU per I/O, 4 KiB $rw QD16" le1.05 /tmp/r3
	row "reference: dm-linear / raw disk, CPU per I/O, 4 KiB $rw QD16" 0 /tmp/r4
done
if [ -n "$only" ]; then
	aw_unload awscsi scsi_debug
else

echo "== untorn mode (16 KiB units) against plain awblk: fio random writes, QD16"
for bs in 16k 64k; do
	: >/tmp/r
	for i in $(seq $reps); do
		if [ $((i % 2)) = 1 ]; then
			x=$(awblk_iops randwrite $bs "--untorn 16k")
			y=$(awblk_iops randwrite $bs)
		else
			y=$(awblk_iops randwrite $bs)
			x=$(awblk_iops randwrite $bs "--untorn 16k")
		fi
		[ -n "$x" ] && [ -n "$y" ] || exit 1
		echo "  $bs $i: untorn $x, plain $y IOPS"
		ratio $x $y >>/tmp/r
	done
	row "awblk untorn 16k / awblk, fio $bs randwrite QD16" 0 /tmp/r
done

echo "== atomic 16 KiB writes through awblk vs plain 16 KiB O_DIRECT writes (SCSI)"
dev=$($AWCTL create /dev/$a) || exit 1
for t in 1 4 16; do
	target=0; [ $t = 16 ] && target=0.90
	compare "awblk atomic (SCSI)" "$AWB $dev atomic 16384 $t $secs" \
		"plain O_DIRECT (SCSI)" "$AWB /dev/$a plain 16384 $t $secs" \
		"awblk atomic / plain, SCSI, 16 KiB, $t threads" $target
done
if aw_kernel_at_least 6 11; then
	echo "== the same atomic writes vs RWF_ATOMIC on scsi_debug atomic_wr=1 (upstream)"
	for t in 1 4 16; do
		compare "awblk atomic (SCSI)" "$AWB $dev atomic 16384 $t $secs" \
			"scsi_debug RWF_ATOMIC" "$AWB /dev/$s rwf 16384 $t $secs" \
			"awblk atomic (awscsi) / RWF_ATOMIC (scsi_debug), 16 KiB, $t threads" 0
	done
fi
$AWCTL remove $dev
aw_unload awscsi scsi_debug

echo "== durable atomic writes vs InnoDB-style doublewrite (write cache on)"
bench_disk 256 $P $A write_cache=1
dev=$($AWCTL create /dev/$a) || exit 1
for t in 1 4 16; do
	compare "awblk atomic+DSYNC (SCSI)" "$AWB $dev atomic-dsync 16384 $t $secs" \
		"doublewrite (SCSI)" "$AWB /dev/$a doublewrite 16384 $t $secs" \
		"awblk atomic+DSYNC / doublewrite, SCSI, 16 KiB, $t threads" 0
done
$AWCTL remove $dev
aw_unload awscsi

echo "== atomic 16 KiB writes over NVMe/TCP on loopback (nvmet over an awscsi disk)"
bench_disk 0 $P
aw_nvmet_setup && aw_nvmet_export $a || exit 1
ns=$(aw_nvme_disks Linux 1) || exit 1
ns=${ns% }
dev=$($AWCTL create /dev/$ns) || exit 1
for t in 1 4 16; do
	target=0; [ $t = 16 ] && target=0.90
	compare "awblk atomic (NVMe/TCP)" "$AWB $dev atomic 16384 $t $secs" \
		"plain O_DIRECT (NVMe/TCP)" "$AWB /dev/$ns plain 16384 $t $secs" \
		"awblk atomic / plain, NVMe/TCP, 16 KiB, $t threads" $target
done
$AWCTL remove $dev
aw_nvmet_unexport
aw_unload awscsi
fi
fi

if want sw; then
echo "== the software engine on a RAM disk without a write cache (brd)"
# Flushes are free here: doublewrite's fdatasyncs cost nothing, and what is
# left is the cost of writing every page twice (and, for the journal, a
# checksum) against writing it once.
modprobe brd rd_nr=1 rd_size=$((512 * 1024)) max_part=0 || exit 1
sw_rows "brd" ram0
rmmod brd

echo "== the software engine on a RAM-backed disk with a volatile write cache (awscsi)"
# As disks with a cache are: a flush costs. Group commit shares one flush
# among concurrent writers; doublewrite pays two per page.
bench_disk 256 $P write_cache=1
sw_rows "awscsi cache" $a
aw_unload awscsi

fi

if want awfs; then
	awfs_row 16384 4 0.70 write_cache=1
fi
}

# Profile disk: an awscsi disk whose commands take DISK_NS and whose cache
# flushes (SYNCHRONIZE CACHE, the flush part of a FUA write) take FLUSH_NS
# more, write cache on. At 4 ms, 16 writers of 16 KiB reach about 90% of
# the 4000 IOPS the latency allows on a 2-vCPU TCG guest, with the CPUs
# mostly idle: the device, not the emulator, bounds them. Durable writes
# are compared with durable writes; non-durable rows are references.
DISK_NS=${AWKIT_BENCH_DISK_NS:-4000000}
FLUSH_NS=${AWKIT_BENCH_FLUSH_NS:-4000000}
# 64 KiB writes cost the emulator four times the copying: at 4 ms, plain
# ones reach only 61 to 87% of the 4000 a second the latency allows (6.1's
# path costs more CPU than 6.12's), so untorn's target row takes 16 ms a
# command, where both sides run at the device's pace; the 4 ms row stays
# beside it as a reference.
UNTORN_NS=${AWKIT_BENCH_UNTORN_NS:-16000000}

# untorn_row NS TARGET: untorn 16k against plain awblk, fio 64 KiB random
# writes QD16, on a fresh disk whose commands take NS; the plain side's
# share of the device's pace (16 commands per NS) is printed with each run.
untorn_row() {
	local ms=$(($1 / 1000000)) pace=$((16 * 1000000000 / $1)) x y i label
	echo "== disk: untorn mode (16 KiB units) against plain awblk: fio 64 KiB random writes, QD16, $ms ms a command"
	bench_disk 200 $P $A ndelay=$1 write_cache=1 flush_ndelay=$FLUSH_NS
	: >/tmp/r
	for i in $(seq $reps); do
		if [ $((i % 2)) = 1 ]; then
			x=$(awblk_iops randwrite 64k "--untorn 16k"); y=$(awblk_iops randwrite 64k)
		else
			y=$(awblk_iops randwrite 64k); x=$(awblk_iops randwrite 64k "--untorn 16k")
		fi
		[ -n "$x" ] && [ -n "$y" ] || exit 1
		echo "  64k $i: untorn $x, plain $y IOPS (plain at $((y * 100 / pace))% of the device's $pace)"
		ratio $x $y >>/tmp/r
	done
	[ "$2" = 0 ] && label="reference: " || label=""
	row "${label}awblk untorn 16k / awblk, fio 64k randwrite QD16, $ms ms a command" $2 /tmp/r
	aw_unload awscsi
}
profile_disk() {
	local M="ndelay=$DISK_NS write_cache=1 flush_ndelay=$FLUSH_NS" dev t target ns
	echo "awscsi $P $M" >$AWKIT_OUT/model-disk.txt
	if [ -z "$only" ]; then
	echo "== disk: awblk pass-through vs the raw disk (4 KiB, QD16)"
	bench_disk 200 $P $A $M
	for rw in randread randwrite; do
		: >/tmp/r
		for i in $(seq $reps); do
			if [ $((i % 2)) = 1 ]; then
				raw=$(iops /dev/$a $rw); x=$(awblk_iops $rw)
			else
				x=$(awblk_iops $rw); raw=$(iops /dev/$a $rw)
			fi
			[ -n "$x" ] && [ -n "$raw" ] || exit 1
			echo "  $rw $i: raw $raw, awblk $x IOPS"
			ratio $x $raw >>/tmp/r
		done
		row "awblk / raw disk, 4 KiB $rw QD16" 0.98 /tmp/r
	done

	echo "== disk: SCSI engine, durable atomic writes vs plain O_DSYNC writes"
	dev=$($AWCTL create /dev/$a) || exit 1
	for t in 1 4 16; do
		target=0; [ $t = 16 ] && target=0.95
		compare "awblk atomic+DSYNC (SCSI)" "$AWB $dev atomic-dsync 16384 $t $secs" \
			"plain O_DSYNC (SCSI)" "$AWB /dev/$a plain-dsync 16384 $t $secs" \
			"awblk atomic+DSYNC / plain O_DSYNC, SCSI, 16 KiB, $t writers" $target
	done
	t=16
	compare "awblk atomic+DSYNC (SCSI)" "$AWB $dev atomic-dsync 16384 $t $secs" \
		"doublewrite (SCSI)" "$AWB /dev/$a doublewrite 16384 $t $secs" \
		"awblk atomic+DSYNC / doublewrite, SCSI, 16 KiB, $t writers" 0
	compare "awblk atomic (SCSI)" "$AWB $dev atomic 16384 $t $secs" \
		"plain O_DIRECT (SCSI)" "$AWB /dev/$a plain 16384 $t $secs" \
		"non-durable reference: awblk atomic / plain, SCSI, 16 KiB, $t writers" 0
	$AWCTL remove $dev
	aw_unload awscsi
	fi

	if want untorn; then
	untorn_row $UNTORN_NS 0.95
	untorn_row $DISK_NS 0
	fi

	if [ -z "$only" ]; then
	echo "== disk: NVMe engine over NVMe/TCP on loopback (nvmet over the awscsi disk)"
	bench_disk 0 $P $M
	aw_nvmet_setup && aw_nvmet_export $a || exit 1
	ns=$(aw_nvme_disks Linux 1) || exit 1
	ns=${ns% }
	dev=$($AWCTL create /dev/$ns) || exit 1
	for t in 1 4 16; do
		target=0; [ $t = 16 ] && target=0.95
		compare "awblk atomic+DSYNC (NVMe/TCP)" "$AWB $dev atomic-dsync 16384 $t $secs" \
			"plain O_DSYNC (NVMe/TCP)" "$AWB /dev/$ns plain-dsync 16384 $t $secs" \
			"awblk atomic+DSYNC / plain O_DSYNC, NVMe/TCP, 16 KiB, $t writers" $target
	done
	$AWCTL remove $dev
	aw_nvmet_unexport
	aw_unload awscsi
	fi

	if want sw; then
	echo "== disk: the software engine over the awscsi disk (no atomic support)"
	bench_disk 256 $P $M
	$AWCTL format /dev/$a --force >/dev/null || exit 1
	dev=$($AWCTL create /dev/$a) || exit 1
	for t in 1 4 16; do
		target=0; [ $t = 16 ] && target=2
		compare "awblk sw atomic+DSYNC" "$AWB $dev atomic-dsync 16384 $t $secs" \
			"doublewrite (sw disk)" "$AWB /dev/$a doublewrite 16384 $t $secs" \
			"awblk sw atomic+DSYNC / doublewrite, 16 KiB, $t writers" $target
		target=0; [ $t = 16 ] && target=0.75
		compare "awblk sw atomic+DSYNC" "$AWB $dev atomic-dsync 16384 $t $secs" \
			"plain O_DSYNC (sw disk)" "$AWB /dev/$a plain-dsync 16384 $t $secs" \
			"awblk sw atomic+DSYNC / plain O_DSYNC, 16 KiB, $t writers" $target
	done
	echo "  engine: $(tr '\n' ' ' </sys/block/${dev#/dev/}/awblk/engine_stats)"
	$AWCTL remove $dev
	aw_unload awscsi
	fi

	# The database rows only when asked for (ONLY=db, or ONLY=pg or
	# ONLY=mariadb for one database's): they take about half an hour a
	# kernel.
	if [ -n "$only" ] && { want db || want pg || want mariadb; }; then
		db_rows
	fi

	if want awfs; then
		# 8 KiB atomic units: 8 KiB physical blocks and granularity.
		awfs_row 8192 16 0.90 $M physblk_exp=4 atomic_wr_align=16 atomic_wr_gran=16
	fi
}

summary() {
	echo
	echo "profile $1 ($(cat $AWKIT_OUT/model-$1.txt))"
	echo "| comparison ($(uname -r)) | median ratio | min | max | target | verdict |"
	echo "|---|---|---|---|---|---|"
	cat $out
	echo
	echo "writes: path, threads, median IOPS, p50 us, p99 us, CPU us per write"
	sort -u $dat
}

aw_load_awnvme || exit 1
modprobe dm_mod
P="dev_size_mb=256 physblk_exp=5"
A="atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=32 atomic_wr_gran=32"
# AWKIT_BENCH_ONLY=sw, awfs, untorn, pass, db or a list (sw,awfs; set in
# the guest): those rows alone (untorn, db: profile disk's; pass: profile
# cpu's pass-through rows). The database rows run only when named.
only=${AWKIT_BENCH_ONLY:-}
want() { [ -z "$only" ] || case ",$only," in *",$1,"*) true ;; *) false ;; esac; }
for prof in $(echo "${AWKIT_BENCH_PROFILE:-cpu,disk}" | tr ',' ' '); do
	case $prof in
	cpu|disk) ;;
	*) echo "unknown profile $prof (cpu or disk)"; exit 1 ;;
	esac
	profile_files $prof
	echo "=== profile $prof"
	# A row that fails ends its profile (a subshell), not the others.
	( profile_$prof ) || {
		echo "!! profile $prof stopped early (rows above are complete); the kernel log's end:"
		dmesg | tail -n 30
		failed=1
		pkill -KILL -u postgres; pkill -KILL -u mysql
		umount /tmp/bm /tmp/bl /tmp/dbAw /tmp/dbA /tmp/dbB 2>/dev/null
		for d in /sys/block/awblk*; do
			[ -e "$d" ] && $AWCTL remove /dev/${d##*/}
		done
		aw_nvmet_unexport
		aw_unload awfs awscsi brd
	}
	summary $prof
done
aw_cleanup
exit ${failed:-0}
