#!/bin/sh
# fio (libaio, O_DIRECT, verify=crc32c) against awscsi disks, with the write
# cache off and on, 512 and 4096-byte blocks.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
for P in "sector_size=512 write_cache=0" "sector_size=4096 physblk_exp=2 write_cache=1"; do
	aw_insmod awscsi dev_size_mb=64 atomic_wr=1 $P || fail "insmod $P"
	disk=$(aw_disks awscsi) || fail "no disk"
	fio --name=verify --filename=/dev/$disk --ioengine=libaio --direct=1 \
		--rw=randwrite --bsrange=4k-64k --iodepth=16 --size=48M \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio.out ||
		{ cat /tmp/fio.out; fail "fio verify on awscsi ($P)"; }
	grep -E 'err=|WRITE:|READ:' /tmp/fio.out
	aw_unload awscsi || fail unload
	echo "ok: fio verify=crc32c passes ($P)"
done
