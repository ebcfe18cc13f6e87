#!/bin/sh
# awfs-reattach.sh [awfs|awfs-plain|ext4]: what `awpgcrash --reattach`
# runs after a power cut, with the power still off, as a reboot would:
# unmount awfs and ext4 (whatever they still held is lost, never written),
# remove the awblk device, and only then restore the power and attach the
# awscsi disk again; create the awblk device over it, mount ext4 (its
# journal replays) and, for awfs, awfs with unit=16k,untorn (awfs-plain:
# without untorn) over its data directory; prints the directory to check.
# Messages go to stderr.
set -u
mode=${1:-awfs}
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
CTL=/sys/devices/awscsi
[ "$(cat $CTL/powered)" = 0 ] || { echo "awfs-reattach: the power is on" >&2; exit 1; }
umount $AWFS_MNT 2>/dev/null || umount -l $AWFS_MNT 2>/dev/null
umount $LOWER_MNT >&2 || exit 1
for d in /sys/block/awblk*; do
	[ -e "$d" ] && { $AWCTL remove "/dev/${d##*/}" >&2 || exit 1; }
done
echo 0 >$CTL/attached && echo 1 >$CTL/powered && echo 1 >$CTL/attached ||
	exit 1
disk=/dev/$(aw_disks awscsi) || exit 1
dev=$($AWCTL create "$disk" --engine scsi) || exit 1
mount -t ext4 "$dev" $LOWER_MNT >&2 || exit 1
if [ "$mode" = ext4 ]; then
	echo $LOWER_MNT/data
	exit 0
fi
opts=unit=16k,untorn
[ "$mode" = awfs-plain ] && opts=unit=16k
mount -t awfs -o $opts $LOWER_MNT/data $AWFS_MNT >&2 || exit 1
echo $AWFS_MNT
