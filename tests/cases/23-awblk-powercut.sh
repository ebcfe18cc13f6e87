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
# fio itself (libaio, O_DIRECT, 64 KiB blocks, verify=crc32c with a header
# and checksum per 16 KiB) with power cuts; afterwards every 16 KiB unit of
# the region must be untouched or one whole fio write.
fio_cuts() { # DEV CUTS: prints the number of torn units found after each cut
	dd if=/dev/zero of=$1 bs=1M count=8 oflag=direct conv=fdatasync status=none || fail "zero $1"
	total=0
	for i in $(seq $2); do
		echo $(( $(od -An -N1 -tu1 /dev/urandom) % 48 )) >$CTL/cut_after
		fio --name=cut --filename=$1 --ioengine=libaio --direct=1 --rw=randwrite \
			--bs=64k --iodepth=16 --size=8M --verify=crc32c --verify_interval=16k \
			--do_verify=0 --time_based --runtime=5 --randrepeat=0 \
			--output=/dev/null >/dev/null 2>&1
		echo 1 >$CTL/powered
		r=$($C fiocheck $1 16384 8388608) || fail "fiocheck"
		t=$(echo "$r" | sed 's/.*torn=//')
		total=$((total + t))
	done
	echo "$r, torn units summed over $2 cuts: $total" >&2
	echo $total
}
t=$(fio_cuts $dev 20) || exit 1
[ "$t" = 0 ] || fail "fio's 64 KiB writes on the untorn device tore $t units of 16 KiB"
echo "ok: fio 64 KiB writes with 20 power cuts: no torn 16 KiB unit on the untorn device"
echo "ok: $(cat $CTL/cuts) power cuts"
cat /sys/block/${dev#/dev/}/awblk/stats | head -3
aw_awblk remove ${dev#/dev/awblk} || fail "remove"
dev=$(aw_awblk create /dev/$disk) || fail "create without untorn"
t=$(fio_cuts $dev 8) || exit 1
[ "$t" -gt 0 ] || fail "fio's writes never tore without untorn: the fio check has no teeth"
echo "ok: without untorn the same fio run tore $t units"
aw_awblk remove ${dev#/dev/awblk} || fail "remove"
dev=$(aw_awblk create /dev/$disk auto 0 16384) || fail "create --untorn 16k"

for bs in 64k 16k; do
	fio --name=untorn --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite \
		--bs=$bs --iodepth=16 --size=8M --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --output=/tmp/fio.out || { cat /tmp/fio.out; fail "fio bs=$bs on untorn awblk"; }
	echo "ok: fio bs=$bs verify=crc32c on the untorn device"
done
aw_cleanup || fail cleanup
