#!/bin/sh
# Stable pages: a unit's pages hold still while its atomic write is under
# way. On awfs (untorn, 16 KiB) over ext4 on awblk on a slow awscsi medium,
# one thread rewrites a unit whole again and again (write(2)), one keeps
# starting its writeback, one reads the unit straight from the disk: every
# read must find one version in all its pages, as a power cut at that
# moment would (without stable pages it finds torn units). An untorn awblk
# device asks the file systems and page caches above it for stable writes;
# a plain one does not.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
aw_awfs_stack 64 block_ndelay=20000
L=$LOWER_MNT/data M=$AWFS_MNT
mount -t awfs -o unit=16k,untorn $L $M || fail "mount awfs"
ok "a unit rewritten under writeback reaches the disk whole" \
	$AWKIT_ROOT/build/tools/awstable $M/s $L/s $dev 20000
umount $M || fail "umount awfs"
aw_awfs_down
aw_load_awblk || fail "load awblk"
aw_insmod awscsi dev_size_mb=8 atomic_wr=1 || fail "insmod awscsi"
disk=$(aw_disks awscsi) || fail "no disk"
for u in 16k 0; do
	a=""
	[ $u = 0 ] || a="--untorn $u"
	dev=$($AWCTL create /dev/$disk $a) || fail "create $a"
	s=$(cat /sys/block/${dev#/dev/}/queue/stable_writes)
	want=1
	[ $u = 0 ] && want=0
	[ "$s" = $want ] || fail "untorn $u: stable_writes $s, want $want"
	echo "ok: untorn $u: stable_writes $s"
	$AWCTL remove $dev || fail "remove"
done
aw_cleanup || fail "cleanup"
