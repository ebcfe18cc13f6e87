#!/bin/sh
# The largest atomic writes on 512 and 4096-byte-sector disks: at unit_max
# (1 MiB with 4096-byte sectors) through every awblk path: the ioctl with a
# page-aligned, a sector-aligned and a byte-aligned buffer, awctl write
# --atomic, untorn mode (direct and buffered), RWF_ATOMIC where the kernel
# has it, and awfs with a unit of unit_max (buffered and O_DIRECT atomic
# writes, untorn write(2)). Each write reads back whole and reaches the
# disk as one WRITE ATOMIC(16).
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_awblk || fail "load awblk"
aw_insmod awfs && modprobe ext4 || fail "load awfs and ext4"
AWCTL=$AWKIT_ROOT/build/tools/awctl
for lbs in 512 4096; do
	note "awscsi sector_size=$lbs"
	aw_insmod awscsi dev_size_mb=64 sector_size=$lbs atomic_wr=1 \
		atomic_wr_align=1 atomic_wr_gran=1 || fail "insmod awscsi"
	disk=$(aw_disks awscsi) || fail "no disk"
	dev=$($AWCTL create /dev/$disk) || fail "create"
	umax=$(cat /sys/block/${dev#/dev/}/queue/atomic_write_unit_max_bytes)
	note "$dev: unit_max $umax"
	[ "$lbs" = 512 ] || [ "$umax" = 1048576 ] || fail "unit_max $umax on 4096-byte sectors, want 1 MiB"
	python3 "$AWKIT_ROOT/tests/tools/awlargest.py" $dev $umax ||
		fail "largest writes on $lbs-byte sectors"
	ok "awctl write --atomic at unit_max" $AWCTL write $dev --offset $umax \
		--length $umax --atomic --pattern 0x5a
	$AWCTL remove $dev || fail "remove $dev"
	# untorn at unit_max: every whole unit is one atomic write.
	dev=$($AWCTL create /dev/$disk --untorn $umax) || fail "create untorn"
	python3 "$AWKIT_ROOT/tests/tools/awlargest.py" $dev $umax untorn ||
		fail "untorn at unit_max on $lbs-byte sectors"
	$AWCTL remove $dev || fail "remove $dev"
	# awfs at unit_max, over ext4 with unit_max clusters.
	dev=$($AWCTL create /dev/$disk) || fail "create for awfs"
	mkfs.ext4 -q -F -O bigalloc -C $umax -b 4096 $dev || fail "mkfs.ext4 -C $umax"
	mkdir -p /tmp/lower27 /tmp/awfs27
	mount -t ext4 $dev /tmp/lower27 && mkdir -p /tmp/lower27/d || fail "mount ext4"
	for o in "" untorn; do
		mount -t awfs -o unit=$umax${o:+,$o} /tmp/lower27/d /tmp/awfs27 ||
			fail "mount awfs unit=$umax $o"
		python3 "$AWKIT_ROOT/tests/tools/awfslargest.py" /tmp/awfs27 $umax $o ||
			fail "awfs $o at unit_max on $lbs-byte sectors"
		umount /tmp/awfs27 || fail "umount awfs"
	done
	umount /tmp/lower27 || fail "umount ext4"
	$AWCTL remove $dev || fail "remove $dev"
	cat /sys/devices/awscsi/stats
	aw_unload awscsi || fail "unload awscsi"
done
aw_unload awfs || fail "unload awfs"
