#!/bin/sh
# The PostgreSQL-like power-cut test: 4 writers rewrite 8 KiB and 16 KiB
# pages of preallocated files with buffered pwrite and fdatasync, on awfs
# (untorn; each file's unit set to its page size) over ext4 (bigalloc,
# 16 KiB clusters) on awblk on awscsi with its write cache on. The power is
# cut at random and stays off until awfs, ext4 and awblk are torn down (a
# reboot), then the disk is attached again, everything mounted again (ext4
# replays its journal) and every page checked (awpgcrash): none torn, every
# fdatasync'd page present, and the atomic writes reached the disk as
# WRITE ATOMIC(16). The same workload must find torn pages on awfs without
# untorn and on that ext4 directly (the test has teeth, and what keeps the
# pages whole is untorn's atomic writeback). AW_CRASH_CUTS sets the number
# of cuts of the untorn run (40, each a teardown and a reattach; make crash
# CASE=51-awfs-powercut CUTS=N for more); AWKIT_SEED the seed.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
aw_awfs_stack 128 write_cache=1
CTL=/sys/devices/awscsi
P=$AWKIT_ROOT/build/tools/awpgcrash
seed=${AWKIT_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
cuts=${AW_CRASH_CUTS:-40}
R="sh $AWKIT_ROOT/tests/qemu/awfs-reattach.sh"
mount -t awfs -o unit=16k,untorn $LOWER_MNT/data $AWFS_MNT || fail "mount awfs"
cd /
run() { # DIR CUTS MODE REATTACH_MODE: one awpgcrash run; sets $out
	t0=$(date +%s)
	out=$($P $1 $CTL $2 $seed $3 --reattach "$R $4") ||
		fail "awpgcrash $3 (seed $seed)"
	echo "$out ($3: $(( $(date +%s) - t0 ))s)"
}
run $AWFS_MNT $cuts untorn awfs
case "$out" in
*" torn=0 lost=0 "*) ;;
*) fail "pages torn or lost on awfs across power cuts: $out" ;;
esac
echo "ok: awfs: $cuts power cuts, no page torn, no fdatasync'd page lost"
grep -q "atomic_writes [1-9]" $CTL/stats || { cat $CTL/stats; fail "no atomic write reached the disk"; }
run $AWFS_MNT 20 untorn awfs-plain
case "$out" in
*" torn=0 "*) fail "awfs without untorn never tore a page: the test has no teeth ($out)" ;;
esac
echo "ok: awfs without untorn tore $(echo "$out" | sed 's/.* torn=\([0-9]*\).*/\1/') pages"
umount $AWFS_MNT || fail "umount awfs"
run $LOWER_MNT/data 20 plain ext4
case "$out" in
*" torn=0 "*) fail "plain ext4 never tore a page: the test has no teeth ($out)" ;;
esac
echo "ok: plain ext4 tore $(echo "$out" | sed 's/.* torn=\([0-9]*\).*/\1/') pages"
echo "ok: $(cat $CTL/cuts) power cuts in all, seed $seed"
aw_awfs_down
