#!/bin/sh
# In the guest: show an awscsi disk's atomic limits, then a power-cut run in
# which normal 16 KiB writes come back torn and atomic ones never do.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
T=$AWKIT_ROOT/build/tools/awtorn
aw_load_scsi
P="dev_size_mb=64 sector_size=512 physblk_exp=5 write_cache=1 atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=32 atomic_wr_gran=32"
aw_insmod awscsi $P || exit 1
disk=$(aw_disks awscsi) || exit 1
sg=$(aw_sg $disk)
echo
echo "=== awkit demo on Linux $(uname -r)"
echo "An emulated SCSI disk: modprobe awscsi $P"
echo "It is /dev/$disk ($sg): 512-byte logical blocks, 16 KiB physical blocks, a volatile write cache."
echo
echo "--- What the disk reports (sg_vpd --page=bl, the SBC-4 Block Limits page):"
sg_vpd --page=bl $sg | grep -i atomic
if [ -e /sys/block/$disk/queue/atomic_write_unit_max_bytes ]; then
	echo
	echo "--- What this kernel's sd driver derived from it (/sys/block/$disk/queue):"
	for f in unit_min unit_max max boundary; do
		printf '  atomic_write_%s_bytes = %s\n' $f "$(cat /sys/block/$disk/queue/atomic_write_${f}_bytes)"
	done
else
	echo "(Linux $(uname -r) has no atomic-write queue limits; awblk brings them.)"
fi
echo
echo "--- Power cuts: 64 units of 16 KiB, writers stamp every 512-byte block with the"
echo "    unit's version; the power is cut after a random number of commands, restored,"
echo "    and every unit is read back: all one version, or torn."
seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
n=$($T crash $sg 512 32 64 100 normal /sys/devices/awscsi $seed 2>/dev/null)
echo "  normal WRITE(16):        $n"
a=$($T crash $sg 512 32 64 100 atomic /sys/devices/awscsi $seed 2>/dev/null)
echo "  WRITE ATOMIC(16):        $a"
tn=$(echo "$n" | sed 's/.* torn=\([0-9]*\).*/\1/')
ta=$(echo "$a" | sed 's/.* torn=\([0-9]*\).*/\1/')
echo
echo "In 100 power cuts, $tn units written with normal 16 KiB writes came back torn"
echo "(half old, half new); $ta units written with atomic writes did."
aw_unload awscsi
