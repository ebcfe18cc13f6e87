# Shared by the awfs cases (sourced after lib.sh).
# aw_awfs_stack SIZE_MB [AWSCSI_PARAMS...]: awscsi disk with atomic writes
# from 512 bytes to 64 KiB, awblk (SCSI engine) on it, ext4 with bigalloc
# and 16 KiB clusters on that, mounted at $LOWER_MNT; awfs loaded. Sets
# $disk, $dev (/dev/awblkN), $LOWER_MNT, $AWFS_MNT, $AWCTL.
AWCTL=$AWKIT_ROOT/build/tools/awctl
LOWER_MNT=/tmp/awfs-lower
AWFS_MNT=/tmp/awfs
aw_awfs_stack() {
	mb=$1; shift
	aw_load_awblk || fail "load awblk"
	aw_insmod awfs || fail "insmod awfs"
	modprobe ext4 || fail "modprobe ext4"
	aw_insmod awscsi dev_size_mb=$mb atomic_wr=1 atomic_wr_max_length=128 \
		atomic_wr_align=1 atomic_wr_gran=1 "$@" || fail "insmod awscsi"
	disk=$(aw_disks awscsi) || fail "no awscsi disk"
	dev=$($AWCTL create /dev/$disk --engine scsi) || fail "awctl create"
	mkfs.ext4 -q -F -O bigalloc -C 16384 -b 4096 $dev || fail "mkfs.ext4 bigalloc on $dev"
	mkdir -p $LOWER_MNT $AWFS_MNT
	mount -t ext4 $dev $LOWER_MNT || fail "mount ext4"
	mkdir -p $LOWER_MNT/data
}

# aw_awfs_down: unmount both, remove the awblk device, unload.
aw_awfs_down() {
	umount $AWFS_MNT 2>/dev/null
	umount $LOWER_MNT 2>/dev/null
	aw_unload awfs
	aw_cleanup
}
