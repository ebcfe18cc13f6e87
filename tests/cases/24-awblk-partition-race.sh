#!/bin/sh
# awblk over partitions: one whose start is not aligned to the atomic unit
# reports no atomic support, an aligned one does. A reader racing atomic
# writers through awblk never sees a mixed unit; racing normal writes, it does.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_awblk || fail "load awblk"
AWCTL=$AWKIT_ROOT/build/tools/awctl
aw_insmod awscsi dev_size_mb=64 physblk_exp=5 atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=32 atomic_wr_gran=32 block_ndelay=20000 || fail insmod
disk=$(aw_disks awscsi) || fail "no disk"
# Requests go straight to the disk, so a read and a write can be in flight
# together (an I/O scheduler may serialize dispatch).
echo none >/sys/block/$disk/queue/scheduler
# An MBR: partition 1 at sector 2049 (not 16 KiB aligned), 2 at 65536.
aw_mbr /dev/$disk 2049:60000 65536:32768 || fail "partition table"
p1=$($AWCTL create /dev/${disk}1) || fail "create over ${disk}1"
p2=$($AWCTL create /dev/${disk}2) || fail "create over ${disk}2"
u1=$($AWCTL info $p1 | sed -n 's/^atomic_write_unit_max: //p')
u2=$($AWCTL info $p2 | sed -n 's/^atomic_write_unit_max: //p')
echo "unaligned partition: unit_max $u1; aligned partition: unit_max $u2"
[ "$u1" = 0 ] || fail "a partition at sector 2049 reports atomic support"
[ "$u2" = 65536 ] || fail "the aligned partition reports unit_max $u2"
$AWCTL write $p1 --offset 0 --length 16k --atomic 2>/dev/null && fail "atomic write accepted on the unaligned partition"
# The atomic write lands where the partition says: read it back on the disk.
$AWCTL write $p2 --offset 16384 --length 16k --atomic --pattern 0x77 || fail "atomic write on the partition"
dd if=/dev/$disk bs=512 skip=$((65536 + 32)) count=32 iflag=direct status=none | od -An -tx1 | sort -u | grep -q '^ *77 77' ||
	fail "the atomic write did not land at the partition's offset"
echo "ok: partition alignment rules"
# The race starts from a uniform unit, not the pattern above.
aw_race_check $p2 100
aw_cleanup || fail cleanup
