#!/bin/sh
# The ladder on /dev/awblkN: the ioctl on both kernels, RWF_ATOMIC too on
# 6.12, libaw, awctl; bad input (reserved fields, flags, pointers, a
# read-only descriptor or device, no atomic support) gets the right errno and
# every rejection leaves the data unchanged.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_awblk || fail "load awblk"
AWCTL=$AWKIT_ROOT/build/tools/awctl
aw_insmod awscsi num_tgts=2 dev_size_mb=16 physblk_exp=3 atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=8 atomic_wr_gran=8 || fail insmod
set -- $(aw_disks awscsi 2) || fail "no disks"
dev=$($AWCTL create /dev/$1) || fail "create"
none=$($AWCTL create /dev/$2 --engine none) || fail "create --engine none"
python3 - $dev $none <<'PYEOF' || fail "ladder"
import ctypes, errno, mmap, os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
from awsg import Checks
dev, none = sys.argv[1], sys.argv[2]
native = not os.uname().release.startswith("6.1.")
check = Checks()
fd = os.open(dev, os.O_RDWR)
L = A.limits(fd)
print(L)
umin, umax, lbs, size = L["unit_min"], L["unit_max"], L["logical_block_size"], L["size"]
check("limits 4 KiB..64 KiB", (umin, umax) == (4096, 65536))
def snapshot():
    os.lseek(fd, 0, 0)
    head = os.read(fd, 256 * 1024)
    os.lseek(fd, size - 256 * 1024, 0)
    return head + os.read(fd, 256 * 1024)
def try_ioctl(off, n, **kw):
    try:
        A.atomic_write(fd, off, os.urandom(n) if n else b"", **kw)
        return 0
    except OSError as e:
        return e.errno
def try_rwf(off, sizes, flags=0x40):
    dfd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    bufs = []
    for n in sizes:
        m = mmap.mmap(-1, n); m.write(os.urandom(n)); bufs.append(m)
    try:
        os.pwritev(dfd, bufs, off, flags)
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(dfd)
ladder = [("unit_max", 0, umax, 0), ("unit_max plus one block", 0, umax + lbs, errno.EINVAL),
          ("unit_min", umin, umin, 0), ("unit_min minus one block", 0, umin - lbs, errno.EINVAL),
          ("misaligned", lbs, umin, errno.EINVAL), ("non-power-of-two", 0, 3 * umin, errno.EINVAL),
          ("past the end", size, umin, errno.EINVAL), ("straddling the end", size - umin // 2, umin, errno.EINVAL)]
for name, off, n, want in ladder:
    before = snapshot()
    got = try_ioctl(off, n)
    check("ioctl %-26s -> %s" % (name, errno.errorcode.get(got, got)), got == want)
    if want:
        check("  data unchanged", snapshot() == before)
    if native and off + n <= size:
        before = snapshot()
        got = try_rwf(off, [n])
        check("RWF_ATOMIC %-23s -> %s" % (name, errno.errorcode.get(got, got)), got == want)
        if want:
            check("  data unchanged", snapshot() == before)
# Data written by the ioctl reads back.
data = os.urandom(umax)
A.atomic_write(fd, 2 * umax, data, flags=A.DSYNC)
os.lseek(fd, 2 * umax, 0)
check("ioctl DSYNC write reads back", os.read(fd, umax) == data)
got = try_rwf(0, [umax // 2, umax // 2])
check("two iovecs -> %s" % errno.errorcode.get(got, got), got == (errno.EINVAL if native else errno.EOPNOTSUPP))
if not native:
    check("6.1: RWF_ATOMIC refused by the VFS", try_rwf(0, [umin]) == errno.EOPNOTSUPP)
# A read with the atomic flag.
rfd = os.open(dev, os.O_RDWR | os.O_DIRECT)
try:
    os.preadv(rfd, [mmap.mmap(-1, umin)], 0, 0x40)
    got = 0
except OSError as e:
    got = e.errno
os.close(rfd)
check("read with the atomic flag -> %s" % errno.errorcode.get(got, got), got == errno.EOPNOTSUPP)
# Bad input to the ioctl.
before = snapshot()
check("reserved0 set -> EINVAL", try_ioctl(0, umin, reserved0=1) == errno.EINVAL)
check("reserved[3] set -> EINVAL", try_ioctl(0, umin, reserved=[0, 0, 0, 1]) == errno.EINVAL)
check("unknown flag -> EINVAL", try_ioctl(0, umin, flags=0x80) == errno.EINVAL)
check("bad user pointer -> EFAULT", try_ioctl(0, umin, addr=8, length=umin) == errno.EFAULT)
m = mmap.mmap(-1, 8192); m.write(b"x" * 4096)
half = ctypes.addressof(ctypes.c_char.from_buffer(m)) + 4096
m2 = mmap.mmap(-1, 4096)
check("pointer running into unmapped memory -> EFAULT",
      try_ioctl(0, 0, addr=ctypes.addressof(ctypes.c_char.from_buffer(m2)) + 4096 * 1000000, length=umin) == errno.EFAULT)
check("all rejected: data unchanged", snapshot() == before)
ro = os.open(dev, os.O_RDONLY)
try:
    A.atomic_write(ro, 0, os.urandom(umin)); got = 0
except OSError as e:
    got = e.errno
os.close(ro)
check("read-only descriptor -> EBADF", got == errno.EBADF)
import fcntl
fcntl.ioctl(fd, 0x125d, b"\x01\x00\x00\x00")   # BLKROSET
check("read-only device -> EROFS", try_ioctl(0, umin) == errno.EROFS)
fcntl.ioctl(fd, 0x125d, b"\x00\x00\x00\x00")
check("data unchanged after EBADF/EROFS", snapshot() == before)
nfd = os.open(none, os.O_RDWR)
N = A.limits(nfd)
check("engine none: no atomic limits %s" % N, N["unit_max"] == 0 and N["engine"] == A.ENGINES["none"])
try:
    A.atomic_write(nfd, 0, os.urandom(4096)); got = 0
except OSError as e:
    got = e.errno
check("engine none: atomic write -> EOPNOTSUPP", got == errno.EOPNOTSUPP)
os.close(nfd)
print(open("/sys/block/%s/awblk/stats" % os.path.basename(dev)).read())
check.exit()
PYEOF
out=$($AWKIT_ROOT/build/tools/aw_libtest $dev) || { echo "$out"; fail "aw_libtest"; }
echo "$out" | tail -n 2
$AWCTL write $dev --offset 65536 --length 16k --atomic --dsync --pattern 0x5a || fail "awctl write --atomic"
$AWCTL write $dev --offset 512 --length 16k --atomic --pattern 1 2>/tmp/err && fail "awctl write --atomic misaligned succeeded"
[ $? = 1 ] || fail "awctl exit code for a rejected write"
echo "ok: awctl write --atomic: $(cat /tmp/err)"

# Offsets of awkit's ioctls are the whole awblk device's. A partition of it
# refuses them (ENOTTY); libaw does not send them to a device-mapper volume
# over part of it (dm hands unknown ioctls down to the device below). An
# atomic write there goes to the volume's own offsets (RWF_ATOMIC, where
# the kernel has it) or fails: the awblk device's start stays as it was.
dd if=/dev/zero of=$dev bs=1M count=4 oflag=direct status=none || fail "zero"
aw_mbr $dev 2048:4096 || fail "partition table on $dev"
head0=$(dd if=$dev bs=64k count=1 iflag=direct status=none | md5sum)
python3 - ${dev}p1 <<'PYEOF' || fail "ioctls on a partition"
import errno, os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
fd = os.open(sys.argv[1], os.O_RDWR)
for what, f in (("GET_LIMITS", lambda: A.limits(fd)),
                ("ATOMIC_WRITE", lambda: A.atomic_write(fd, 0, os.urandom(8192)))):
    try:
        f(); got = 0
    except OSError as e:
        got = e.errno
    assert got == errno.ENOTTY, "%s on a partition: errno %d, want ENOTTY" % (what, got)
print("ok: a partition of an awblk device refuses the ioctls (ENOTTY)")
PYEOF
modprobe dm_mod || fail "dm_mod"
DM_DISABLE_UDEV=1 dmsetup create awpart --table "0 8192 linear $dev 2048" || fail "dmsetup create"
for t in ${dev}p1 /dev/mapper/awpart; do
	if $AWCTL write $t --offset 0 --length 8k --atomic --dsync --pattern 0x77 2>/tmp/err; then
		# Only RWF_ATOMIC can have taken it: at the volume's offset 0,
		# which is 1 MiB into the awblk device.
		[ "$(dd if=$dev bs=8k skip=128 count=1 iflag=direct status=none | tr -d '\167' | wc -c)" = 0 ] ||
			fail "awctl write on $t succeeded, but not at its own offset"
		echo "ok: $t: the atomic write went to its own offset"
	else
		echo "ok: $t: refused: $(cat /tmp/err)"
	fi
	[ "$(dd if=$dev bs=64k count=1 iflag=direct status=none | md5sum)" = "$head0" ] ||
		fail "an atomic write to $t landed at the start of $dev"
	dd if=/dev/zero of=$dev bs=1M seek=1 count=1 oflag=direct status=none
done
# aw_libtest writes at offset 0 of what it is given, if libaw finds limits.
out=$($AWKIT_ROOT/build/tools/aw_libtest /dev/mapper/awpart 2>&1)
echo "aw_libtest on a dm volume: $(echo "$out" | tail -n 1)"
[ "$(dd if=$dev bs=64k count=1 iflag=direct status=none | md5sum)" = "$head0" ] ||
	fail "libaw on a dm volume wrote at the start of $dev"
DM_DISABLE_UDEV=1 dmsetup remove awpart || fail "dmsetup remove"
aw_cleanup || fail cleanup
