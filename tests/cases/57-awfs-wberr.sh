#!/bin/sh
# A lower write-back error reaches awfs's callers as on any file system.
# awfs (unit=16k) over ext4 on awblk's software engine on a device-mapper
# map of an awscsi disk; once three files are written, the map fails every
# write to their first blocks. A plain write then a syncfs() must fail with
# EIO once; a plain write then an fsync() on each of two descriptors must
# fail with EIO once each, and not on a descriptor opened after the error;
# so must two descriptors' fsync() at once, and an fsync() after an
# O_DIRECT|O_DSYNC write (whose lower sync sees the error first). Each
# error is reported once.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
AWCTL=$AWKIT_ROOT/build/tools/awctl
W="python3 $AWKIT_ROOT/tests/tools/awwberr.py"
L=/tmp/wberr-lower M=/tmp/wberr-awfs MAP=awwberr
export DM_DISABLE_UDEV=1
aw_load_awblk || fail "load awblk"
aw_insmod awfs || fail "insmod awfs"
modprobe ext4 && modprobe dm_mod || fail "modprobe ext4 dm_mod"
aw_insmod awscsi dev_size_mb=64 || fail "insmod awscsi"
disk=$(aw_disks awscsi) || fail "no disk"
sectors=$(blockdev --getsz /dev/$disk)
dmsetup create $MAP --table "0 $sectors linear /dev/$disk 0" ||
	fail "dmsetup create"
linear() { dmsetup suspend $MAP &&
	dmsetup load $MAP --table "0 $sectors linear /dev/$disk 0" &&
	dmsetup resume $MAP; }
# On a failure too: leave nothing behind for the next case.
down() {
	linear
	umount $M; umount $L
	[ -z "$dev" ] || $AWCTL remove $dev
	dmsetup remove $MAP; aw_unload awfs awscsi
}
dev=
trap 'down >/dev/null 2>&1' EXIT
aw_sw_format /dev/mapper/$MAP || fail "format"
dev=$($AWCTL create /dev/mapper/$MAP --engine sw) || fail "create"
mkfs.ext4 -q -F -b 4096 $dev >/dev/null || fail "mkfs.ext4"
mkdir -p $L $M
mount -t ext4 $dev $L && mkdir $L/d || fail "mount ext4"
mount -t awfs -o unit=16k $L/d $M || fail "mount awfs"
$W prep $M/a && $W prep $M/b && $W prep $M/c || fail "prep"
$W table /dev/mapper/$MAP /dev/$disk $sectors $L/d/a $L/d/b $L/d/c \
	>/tmp/wberr.table ||
	fail "locate the files' blocks"
dmsetup suspend $MAP && dmsetup load $MAP /tmp/wberr.table &&
	dmsetup resume $MAP || fail "fail writes to the files' blocks"
ok "syncfs reports a lower write-back error once" $W syncfs $M/a
ok "fsync reports it once to each open file" $W fsyncs $M/b
ok "an O_DSYNC write below does not take it from fsync" $W dsync $M/c $L/d/c
linear || fail "restore the map"
trap - EXIT
umount $M && umount $L && $AWCTL remove $dev || fail "tear down"
dmsetup remove $MAP && aw_unload awfs awscsi || fail "unload"
