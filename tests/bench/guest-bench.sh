#!/bin/sh
# In the guest: awkit against its peers on the same backing store, in one
# boot, alternating runs (A B A B ...), printing for every comparison the
# median, min and max of the ratio next to its target.
#
#   awscsi vs scsi_debug      4 KiB random read/write, QD16 (fio, libaio, O_DIRECT)
#   awblk vs the raw disk     the same, awblk pass-through over an awscsi disk
#   awblk vs dm-linear        the same, dm-linear over the same disk
#   awblk atomic vs plain     16 KiB writes, 16 threads: atomic writes through
#                             awblk (libaw) against plain O_DIRECT writes to the disk
. "$AWKIT_ROOT/tests/qemu/lib.sh"
reps=${AWKIT_BENCH_REPS:-5}
secs=${AWKIT_BENCH_SECS:-5}
[ "$AWKIT_CASE" = quick ] && { reps=3; secs=3; }
AWCTL=$AWKIT_ROOT/build/tools/awctl
AWB=$AWKIT_ROOT/build/tools/awbench
out=$AWKIT_OUT/bench.txt
: >$out

iops() { # DEV RW
	fio --name=b --filename=$1 --ioengine=libaio --direct=1 --rw=$2 \
		--bs=4k --iodepth=16 --size=200M --time_based --runtime=$secs \
		--randrepeat=0 --output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' -v rw=$2 '{ print (rw == "randread") ? $8 : $49 }'
}

# row LABEL TARGET FILE: FILE holds one ratio a line.
row() {
	sort -n "$3" >/tmp/sorted
	med=$(awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' /tmp/sorted)
	min=$(head -n 1 /tmp/sorted)
	max=$(tail -n 1 /tmp/sorted)
	if [ "$(echo "$med >= $2" | bc)" = 1 ]; then v="meets"; else v="short by $(echo "$2 - $med" | bc)"; fi
	echo "| $1 | $med | $min | $max | >= $2 | $v |" >>$out
}

ratio() { echo "scale=3; $1 / $2" | bc; }

aw_load_awblk || exit 1
modprobe dm_mod
modprobe scsi_debug dev_size_mb=256 delay=0 || exit 1
aw_insmod awscsi dev_size_mb=256 physblk_exp=5 atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=32 atomic_wr_gran=32 || exit 1
a=$(aw_disks awscsi) || exit 1
s=$(aw_disks scsi_debug) || exit 1
for d in $a $s; do echo none >/sys/block/$d/queue/scheduler; done
sectors=$(cat /sys/block/$a/size)
# awscsi allocates its store as blocks are first written: fill the region
# the benchmarks touch, so no run pays for allocation that another skipped.
for d in $a $s; do
	fio --name=fill --filename=/dev/$d --ioengine=libaio --direct=1 \
		--rw=write --bs=1M --iodepth=4 --size=200M >/dev/null 2>&1
done

echo "== awscsi vs scsi_debug (4 KiB, QD16)"
for rw in randread randwrite; do
	: >/tmp/r
	iops /dev/$a $rw >/dev/null
	iops /dev/$s $rw >/dev/null
	for i in $(seq $reps); do
		x=$(iops /dev/$a $rw); y=$(iops /dev/$s $rw)
		echo "  $rw $i: awscsi $x, scsi_debug $y IOPS"
		ratio $x $y >>/tmp/r
	done
	row "awscsi / scsi_debug, 4 KiB $rw QD16" 0.80 /tmp/r
done

awblk_iops() { # RW
	local dev
	dev=$($AWCTL create /dev/$a) || return 1
	iops $dev $1
	$AWCTL remove $dev
}

dm_iops() { # RW
	DM_DISABLE_UDEV=1 dmsetup create awlin --table "0 $sectors linear /dev/$a 0" || return 1
	iops /dev/mapper/awlin $1
	DM_DISABLE_UDEV=1 dmsetup remove awlin
}

echo "== awblk pass-through vs the raw disk and dm-linear (4 KiB, QD16)"
for rw in randread randwrite; do
	: >/tmp/r1; : >/tmp/r2
	for i in $(seq $reps); do
		# Alternate the order (raw awblk dm, dm awblk raw, ...) so that
		# drift over the run favours none of them. awblk and dm-linear
		# each hold the disk exclusively: one at a time.
		if [ $((i % 2)) = 1 ]; then
			raw=$(iops /dev/$a $rw); x=$(awblk_iops $rw)
			y=$(dm_iops $rw)
		else
			y=$(dm_iops $rw); x=$(awblk_iops $rw)
			raw=$(iops /dev/$a $rw)
		fi
		[ -n "$x" ] && [ -n "$y" ] || exit 1
		echo "  $rw $i: raw $raw, awblk $x, dm-linear $y IOPS"
		ratio $x $raw >>/tmp/r1
		ratio $x $y >>/tmp/r2
	done
	row "awblk / raw disk, 4 KiB $rw QD16" 0.97 /tmp/r1
	row "awblk / dm-linear, 4 KiB $rw QD16" 1.00 /tmp/r2
done

echo "== awblk atomic 16 KiB writes vs plain 16 KiB O_DIRECT writes"
dev=$($AWCTL create /dev/$a) || exit 1
for t in 1 4 16; do
	: >/tmp/r
	for i in $(seq $reps); do
		x=$($AWB $dev atomic 16384 $t $secs)
		y=$($AWB /dev/$a plain 16384 $t $secs)
		echo "  threads $t run $i: atomic($x) plain($y)"
		ratio $(echo "$x" | awk '{print $2}') $(echo "$y" | awk '{print $2}') >>/tmp/r
		echo "atomic $t $x" >>$AWKIT_OUT/latency.txt
		echo "plain $t $y" >>$AWKIT_OUT/latency.txt
	done
	target=0.90
	[ $t = 16 ] || target=0.00
	row "awblk atomic / plain, 16 KiB writes, $t threads" $target /tmp/r
done
$AWCTL remove $dev

echo
echo "| comparison ($(uname -r)) | median ratio | min | max | target | verdict |"
echo "|---|---|---|---|---|---|"
cat $out
echo
echo "latency (us), last run of each: kind threads iops N p50_us N p99_us N"
sort -u -k1,2 $AWKIT_OUT/latency.txt 2>/dev/null
aw_cleanup
