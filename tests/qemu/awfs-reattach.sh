#!/bin/sh
# awfs-reattach.sh LOWER_DISK [awfs|awfs-plain|ext4]: what `awpgcrash
# --reattach` runs after a power cut: unmount awfs and ext4 (whatever they
# still held is gone), remove the awblk device, create it again over
# LOWER_DISK, mount ext4 (its journal replays) and, for awfs, awfs with
# unit=16k,untorn (awfs-plain: without untorn) over its data directory;
# prints the directory to check. Messages go to stderr.
set -u
disk=$1 mode=${2:-awfs}
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
umount $AWFS_MNT 2>/dev/null
umount $LOWER_MNT >&2 || exit 1
for d in /sys/block/awblk*; do
	[ -e "$d" ] && { $AWCTL remove "/dev/${d##*/}" >&2 || exit 1; }
done
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
