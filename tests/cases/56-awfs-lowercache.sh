#!/bin/sh
# The lower page cache beside a unit. XFS caches a file in folios larger
# than a page, so one folio may hold an 8 KiB unit and part of its
# neighbour. awfs (unit=8k, untorn) over XFS on awblk on a slow awscsi
# medium: one thread rewrites a unit and reads it back from below again
# and again, while another keeps writing its neighbour with plain writes
# after reclaim-like drops of both caches. The lower cache must never
# serve, or write back over the unit, data from before its atomic write.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
aw_awfs_stack 512 block_ndelay=20000
L=$LOWER_MNT/data M=$AWFS_MNT
umount $LOWER_MNT || fail "umount ext4"
modprobe xfs || fail "modprobe xfs"
mkfs.xfs -q -f -l size=64m -d su=16k,sw=1,agcount=2 $dev || fail "mkfs.xfs"
mount -t xfs $dev $LOWER_MNT && mkdir $L || fail "mount xfs"
mount -t awfs -o unit=8k,untorn $L $M || fail "mount awfs over xfs"
atomics() { sed -n 's/^disk0 .* atomic_writes \([0-9]*\) .*/\1/p' /sys/devices/awscsi/stats; }
a0=$(atomics)
ok "the lower cache never keeps a unit's old data" \
	$AWKIT_ROOT/build/tools/awlowerrace $M/lower $L/lower 3000
a1=$(atomics)
# Each round's unit went to the disk as WRITE ATOMIC(16), not as plain
# writes (what awfs does when XFS places a unit where none can go).
[ $((a1 - a0)) -ge 3000 ] || fail "only $((a1 - a0)) atomic writes in 3000 rounds"
echo "ok: $((a1 - a0)) atomic writes reached the disk"
umount $M || fail "umount awfs"
aw_awfs_down
