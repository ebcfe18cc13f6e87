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
aw_cleanup || fail cleanup
