#!/bin/sh
# In the guest: awscsi against the kernel's scsi_debug (delay=0), same size,
# same sd driver, 4 KiB random reads and writes at queue depth 16 (fio,
# libaio, O_DIRECT), alternating runs A B A B ..., ratios of IOPS.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
reps=${AWKIT_BENCH_REPS:-5}
secs=${AWKIT_BENCH_SECS:-5}
[ "$AWKIT_CASE" = quick ] && { reps=3; secs=3; }
aw_load_scsi
modprobe scsi_debug dev_size_mb=256 delay=0 || exit 1
aw_insmod awscsi dev_size_mb=256 || exit 1
a=$(aw_disks awscsi) || exit 1
s=$(aw_disks scsi_debug) || exit 1
for d in $a $s; do echo none >/sys/block/$d/queue/scheduler 2>/dev/null; done
iops() { # DEV RW
	fio --name=b --filename=/dev/$1 --ioengine=libaio --direct=1 --rw=$2 \
		--bs=4k --iodepth=16 --size=200M --time_based --runtime=$secs \
		--randrepeat=0 --output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' -v rw=$2 '{ print (rw == "randread") ? $8 : $49 }'
}
out=$AWKIT_OUT/bench.txt
: >$out
for rw in randread randwrite; do
	iops $a $rw >/dev/null; iops $s $rw >/dev/null	# warm up
	ratios=""
	for i in $(seq $reps); do
		x=$(iops $a $rw); y=$(iops $s $rw)
		r=$(echo "scale=3; $x / $y" | bc)
		echo "  $rw run $i: awscsi $x IOPS, scsi_debug $y IOPS, ratio $r"
		ratios="$ratios $r"
	done
	echo "$ratios" | tr ' ' '\n' | grep . | sort -n >/tmp/r
	med=$(awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' /tmp/r)
	min=$(head -n 1 /tmp/r); max=$(tail -n 1 /tmp/r)
	verdict=$(echo "$med >= 0.80" | bc)
	[ "$verdict" = 1 ] && v="meets" || v="short by $(echo "0.80 - $med" | bc)"
	echo "| awscsi vs scsi_debug, 4 KiB $rw QD16 | $med | $min | $max | >= 0.80 | $v |" >>$out
done
echo
echo "| comparison ($(uname -r)) | median ratio | min | max | target | verdict |"
echo "|---|---|---|---|---|---|"
cat $out
aw_unload awscsi scsi_debug
