#!/bin/sh
# Loading with impossible parameters fails cleanly with a message; several
# disks each keep their own data; the store outlives a host detach/attach;
# removing the module works when idle and is refused while a disk is in use.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
CTL=/sys/devices/awscsi
for P in "sector_size=1000" "physblk_exp=16" "num_tgts=0" "num_tgts=17" \
	"dev_size_mb=0" "dev_size_mb=60000" \
	"atomic_wr=1 atomic_wr_max_length=0 atomic_wr_max_length_bndry=0" \
	"atomic_wr=1 atomic_wr_gran=16 atomic_wr_max_length=8 atomic_wr_max_length_bndry=0" \
	"atomic_wr=1 atomic_wr_max_length_bndry=64 atomic_wr_max_bndry=0 atomic_wr_max_length=0"; do
	dmesg -C
	if aw_insmod awscsi $P 2>/dev/null; then fail "loaded with impossible parameters: $P"; fi
	[ -d /sys/module/awscsi ] && fail "module present after a refused load ($P)"
	msg=$(dmesg | grep 'awscsi:' | grep -v taint | tail -n 1)
	[ -n "$msg" ] || fail "no message for refused parameters $P"
	echo "ok: refused '$P': $msg"
done

aw_insmod awscsi num_tgts=3 dev_size_mb=8 || fail "insmod num_tgts=3"
disks=$(aw_disks awscsi 3) || fail "three disks"
set -- $disks
i=0
for d in "$@"; do
	i=$((i + 1))
	python3 -c "import sys; sys.stdout.buffer.write(bytes([$i]) * 65536)" >/tmp/pat$i
	dd if=/tmp/pat$i of=/dev/$d bs=64k oflag=direct status=none || fail "write $d"
done
i=0
for d in "$@"; do
	i=$((i + 1))
	dd if=/dev/$d of=/tmp/back bs=64k count=1 iflag=direct status=none
	cmp -s /tmp/back /tmp/pat$i || fail "disk $d does not keep its own data"
done
echo "ok: three disks, each with its own store"

echo 0 >$CTL/attached || fail "detach"
[ -e /sys/block/$1 ] && fail "disk still present after detach"
echo 1 >$CTL/attached || fail "attach"
disks=$(aw_disks awscsi 3) || fail "disks after re-attach"
set -- $disks
dd if=/dev/$1 of=/tmp/back bs=64k count=1 iflag=direct status=none
cmp -s /tmp/back /tmp/pat1 || fail "data lost across detach/attach"
echo "ok: the store outlives a host detach and attach"

# fio creates a regular file where no device is: make sure there is one.
[ -b /dev/$1 ] || fail "/dev/$1 is not a block device"
writes() { awk '{ print $5 }' /sys/block/$1/stat; }
w0=$(writes $1)
fio --name=busy --filename=/dev/$1 --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=16 --time_based --runtime=6 --size=8M --output=/tmp/fio.out &
fpid=$!
# rmmod while fio's writes are reaching the disk, however slow its start.
i=0
until [ "$(writes $1)" -gt $((w0 + 64)) ]; do
	i=$((i + 1)); [ $i -gt $((300 * ${AW_SLOW:-1})) ] && fail "fio's writes never reached $1"
	kill -0 $fpid 2>/dev/null || fail "fio ended before its writes reached $1"
	sleep 0.1
done
if rmmod awscsi 2>/tmp/rmmod.err; then fail "rmmod succeeded with I/O in flight"; fi
echo "ok: rmmod with I/O in flight refused: $(cat /tmp/rmmod.err)"
wait $fpid || fail "fio failed while rmmod was attempted"
rmmod awscsi || fail "rmmod when idle"
[ -d /sys/module/awscsi ] && fail "module still loaded"
echo "ok: rmmod when idle"
