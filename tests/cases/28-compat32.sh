#!/bin/sh
# 32-bit programs: awkit's ioctls on /dev/awblkN and on an awfs file work
# from a -m32 build of libaw (compat_ioctl), as from a 64-bit one.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
A32=$AWKIT_ROOT/build/tools/aw32
[ -x $A32 ] || fail "no $A32 (make tools)"
aw_load_awblk || fail "load awblk"
aw_insmod awscsi dev_size_mb=8 atomic_wr=1 || fail "insmod awscsi"
disk=$(aw_disks awscsi) || fail "no disk"
dev=$($AWCTL create /dev/$disk) || fail "create"
$A32 $dev || fail "a 32-bit program on $dev"
aw_cleanup || fail "cleanup"
aw_awfs_stack 64
mount -t awfs -o unit=16k $LOWER_MNT/data $AWFS_MNT || fail "mount awfs"
: >$AWFS_MNT/f32 || fail "create"
$A32 $AWFS_MNT/f32 || fail "a 32-bit program on an awfs file"
aw_awfs_down
