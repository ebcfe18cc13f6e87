#!/bin/sh
# Power cuts in awscsi (write cache on) while writers run through awblk:
# atomic writes (the ioctl) are never torn and DSYNC/flushed ones never lost;
# the same run with normal writes finds torn units. Untorn mode: 64 KiB
# O_DIRECT writes and buffered writes with fdatasync are torn only at 16 KiB
# boundaries; without untorn the same 64 KiB writes tear inside units.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_awblk || fail "load awblk"
CTL=/sys/devices/awscsi
C=$AWKIT_ROOT/build/tools/awcrash
aw_insmod awscsi dev_size_mb=16 physblk_exp=5 write_cache=1 atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=32 atomic_wr_gran=32 || fail insmod
disk=$(aw_disks awscsi) || fail "no disk"
seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
expect() { # WANT(clean|torn) OUTPUT
	echo "$2"
	case "$1:$2" in
	clean:*" torn=0 lost=0 "*) ;;
	torn:*" torn=0 "*) fail "no torn unit without atomicity: the test has no teeth ($2)" ;;
	torn:*" lost=0 "*) ;;
	*) fail "expected $1: $2" ;;
	esac
}
dev=$(aw_awblk create /dev/$disk) || fail "create"
expect clean "$($C crash $dev 16384 128 220 atomic $CTL $seed)"
expect torn "$($C crash $dev 16384 128 60 normal $CTL $seed)"
expect torn "$($C crash $dev 16384 128 60 direct $CTL $seed 65536)"
aw_awblk remove ${dev#/dev/awblk} || fail "remove"
dev=$(aw_awblk create /dev/$disk auto 0 16384) || fail "create --untorn 16k"
[ "$(cat /sys/block/${dev#/dev/}/awblk/untorn)" = 16384 ] || fail "untorn not shown"
expect clean "$($C crash $dev 16384 128 150 direct $CTL $seed 65536)"
expect clean "$($C crash $dev 16384 128 80 buffered $CTL $seed 65536)"
echo "ok: $(cat $CTL/cuts) power cuts"
cat /sys/block/${dev#/dev/}/awblk/counters | head -3
for bs in 64k 16k; do
	fio --name=untorn --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite \
		--bs=$bs --iodepth=16 --size=8M --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --output=/tmp/fio.out || { cat /tmp/fio.out; fail "fio bs=$bs on untorn awblk"; }
	echo "ok: fio bs=$bs verify=crc32c on the untorn device"
done
aw_cleanup || fail cleanup
