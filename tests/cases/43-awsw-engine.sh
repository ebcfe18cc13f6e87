#!/bin/sh
# The software engine over an awscsi disk with atomic support off and its
# write cache on: readers racing atomic writers never see a mixed unit (and
# do racing plain writes); recovery never undoes a later plain write; a full
# journal makes writers wait, not fail (fio verifies the data, untorn mode);
# a lower device that fails stops the engine until it is attached again,
# which recovers; on 6.12 statx and RWF_ATOMIC work on the device.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
AWCTL=$AWKIT_ROOT/build/tools/awctl
CTL=/sys/devices/awscsi
aw_load_awsw || fail "load awblk and awsw"
aw_insmod awscsi dev_size_mb=64 atomic_wr=0 write_cache=1 block_ndelay=20000 || fail "insmod awscsi"
disk=$(aw_disks awscsi) || fail "no awscsi disk"
# Requests go straight to the disk, so a read and a write can be in flight
# together (an I/O scheduler may serialize dispatch).
echo none >/sys/block/$disk/queue/scheduler
$AWCTL format /dev/$disk || fail "awctl format /dev/$disk"
dev=$($AWCTL create /dev/$disk) || fail "create"
n=${dev#/dev/}
stat() { sed -n "s/^$1 //p" /sys/block/$n/awblk/engine_stats; }
[ "$(cat /sys/block/$n/awblk/engine)" = sw ] || fail "engine is not sw"
$AWCTL info $dev | grep -q '^atomic_write_unit_max: 65536$' || fail "unit_max is not 64 KiB: $($AWCTL info $dev)"

# 1. Racing readers (awscsi's per-block delay widens the window).
aw_race_check $dev 50
echo "ok: readers see atomic writes whole, plain writes mixed"

# 2. An atomic write, then a durable plain write over it, then a power cut
# before any checkpoint of the device's own: the replay must not bring the
# atomic write back. (Removing the device while powered off cannot
# checkpoint either.)
ck=$(stat plain_checkpoints)
$AWCTL write $dev --offset 1m --length 64k --atomic --pattern 0xaa >/dev/null || fail "atomic write"
$AWCTL write $dev --offset 1m --length 64k --dsync --pattern 0xbb >/dev/null || fail "plain write"
pck=$(stat plain_checkpoints)
[ "$pck" -gt "$ck" ] || fail "the plain write over a live record did not checkpoint"
echo 0 >$CTL/powered
$AWCTL remove $dev || fail "remove while the power is off"
echo 1 >$CTL/powered
dev=$($AWCTL create /dev/$disk) || fail "attach after the cut"
n=${dev#/dev/}
got=$(dd if=$dev bs=64k skip=16 count=1 iflag=direct status=none | od -An -v -tx1 | tr -s ' ' '\n' | sort -u | tr -d '\n')
[ "$got" = bb ] || fail "after recovery the unit holds '$got', not the plain write's 0xbb"
echo "ok: recovery keeps the later plain write (plain_checkpoints $pck)"

# 2b. The largest records: a format for 1 MiB writes, of which awblk allows
# what one bio to this disk can carry (512 KiB here). Each record goes down
# as one write, its header block and the data pages behind it. Acknowledged,
# then the power is cut before any flush of the in-place data: the cache
# loses some of its blocks at random, and only a replay of the record brings
# the write back whole.
$AWCTL remove $dev || fail remove
$AWCTL format /dev/$disk --unit-max 1m --force >/dev/null || fail "format --unit-max 1m"
dev=$($AWCTL create /dev/$disk) || fail "create over the 1 MiB format"
n=${dev#/dev/}
um=$($AWCTL info $dev | sed -n 's/^atomic_write_unit_max: //p')
[ "$um" -ge 262144 ] || fail "unit_max $um: want at least 256 KiB for this check"
for k in 2 4; do
	$AWCTL write $dev --offset $((k * um)) --length $um --atomic --pattern 0xcc >/dev/null ||
		fail "atomic write of $um bytes at $((k * um))"
done
echo 0 >$CTL/powered
$AWCTL remove $dev || fail "remove while the power is off"
echo 1 >$CTL/powered
dev=$($AWCTL create /dev/$disk) || fail "attach after the cut"
n=${dev#/dev/}
[ "$(stat replayed)" -ge 2 ] || fail "recovery replayed $(stat replayed) records, want the two large writes"
for k in 2 4; do
	got=$(dd if=$dev bs=$um skip=$k count=1 iflag=direct status=none | od -An -v -tx1 | tr -s ' ' '\n' | sort -u | tr -d '\n')
	[ "$got" = cc ] || fail "after recovery the $um-byte write at $((k * um)) holds '$got', not 0xcc whole"
done
echo "ok: atomic writes of $um bytes come back whole from their records ($(stat replayed) replayed)"
$AWCTL remove $dev || fail remove
$AWCTL format /dev/$disk --force >/dev/null || fail "format again"
dev=$($AWCTL create /dev/$disk) || fail "create"

# 3. A journal full under load: writers wait for checkpoints, nothing fails.
$AWCTL remove $dev || fail remove
dev=$($AWCTL create /dev/$disk --untorn 16k) || fail "create --untorn 16k"
n=${dev#/dev/}
fio --name=full --filename=$dev --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=64k --iodepth=16 --numjobs=1 --size=16M --verify=crc32c --do_verify=1 \
	--verify_fatal=1 --output=/tmp/fio.out || { cat /tmp/fio.out; fail "fio on the untorn sw device"; }
cat /sys/block/$n/awblk/engine_stats | tr '\n' ' '; echo
[ "$(stat journal_full)" -gt 0 ] || fail "the journal never filled: the case proves nothing"
[ "$(stat failed)" = 0 ] || fail "the engine failed"
grep -q "^untorn_units" /sys/block/$n/awblk/stats &&
	[ "$(sed -n 's/^untorn_units //p' /sys/block/$n/awblk/stats)" -gt 0 ] ||
	fail "no untorn units were written: $(cat /sys/block/$n/awblk/stats)"
echo "ok: 16 MiB of 64 KiB untorn writes through a 4 MiB journal verify"

# 4. The lower device fails: the atomic write fails, the engine stops, and
# the next attach recovers.
echo 0 >$CTL/powered
$AWCTL write $dev --offset 0 --length 16k --atomic --pattern 0x11 2>/dev/null &&
	fail "an atomic write succeeded with the power off"
[ "$(stat failed)" = 1 ] || fail "the engine did not stop"
echo 1 >$CTL/powered
dd if=$dev bs=4k count=1 iflag=direct of=/dev/null status=none 2>/dev/null &&
	fail "a read succeeded on a stopped engine"
$AWCTL remove $dev || fail "remove a stopped device"
dev=$($AWCTL create /dev/$disk) || fail "attach after the failure"
n=${dev#/dev/}
[ "$(stat failed)" = 0 ] || fail "still failed after attach"
$AWCTL write $dev --offset 0 --length 16k --atomic --pattern 0x22 >/dev/null || fail "atomic write after recovery"
echo "ok: a failing lower device stops the engine until the next attach"

# 5. 6.12: the native interface.
if aw_kernel_at_least 6 11; then
	python3 - $dev <<'PYEOF' || fail "statx / RWF_ATOMIC on the sw device"
import ctypes, errno, mmap, os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
from awsg import Checks
check = Checks()
RWF_ATOMIC = 0x40
fd = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 1 << 17)
def w(off, n):
    buf[:n] = b"\x5a" * n
    try:
        os.pwritev(fd, [memoryview(buf)[:n]], off, RWF_ATOMIC)
        return 0
    except OSError as e:
        return e.errno
check("RWF_ATOMIC 64 KiB -> ok", w(65536, 65536) == 0)
check("RWF_ATOMIC 64 KiB + 512 -> EINVAL", w(0, 65536 + 512) == errno.EINVAL)
check("RWF_ATOMIC misaligned -> EINVAL", w(4096, 8192) == errno.EINVAL)
check("RWF_ATOMIC 512 -> ok", w(512, 512) == 0)
check.exit()
PYEOF
	echo "ok: RWF_ATOMIC on the sw device"
fi
aw_cleanup || fail cleanup
