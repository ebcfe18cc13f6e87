#!/bin/sh
# awfs: writers, readers and mmap users on one file at once, then an
# unmount with dirty data and a mount (every unit whole and current); the
# atomic and unit ioctls' bad input (clear errno, nothing written); O_DIRECT
# atomic writes and limits; libaw on awfs files; append-only and file size
# limits as write(2) has them; RWF_ATOMIC and statx on 6.12; a full lower
# file system (ENOSPC, nothing written); a read-only lower mount (EROFS,
# nothing changed) and a frozen one (changes wait for the thaw); a user's
# block quota (EDQUOT, nothing written); atomic writes counted for the
# writer's cgroup.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
aw_awfs_stack 256
L=$LOWER_MNT/data M=$AWFS_MNT
CONC="python3 $AWKIT_ROOT/tests/tools/awfsconc.py"

# 1. Concurrency, then unmount with dirty data.
mount -t awfs -o unit=16k,untorn $L $M || fail "mount awfs"
$CONC $M/c 15 16384 || fail "writers, readers and mmap users"
umount $M || fail "umount with dirty data"
mount -t awfs -o unit=16k,untorn $L $M || fail "mount again"
$CONC $M/c 0 16384 check || fail "after an unmount with dirty data"
echo "ok: concurrent writers, readers, mmap; unmount with dirty data kept all"

# 2. Bad input, limits, O_DIRECT, append-only, size limits.
chattr_a() { chattr +a "$L/$1"; }
python3 - $M $L <<'PYEOF' || fail "ioctls"
import ctypes, errno, fcntl, mmap, os, resource, signal, struct, subprocess, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
M, L = sys.argv[1], sys.argv[2]
ALIGN_FMT = "=8I"
GET_ALIGN = (2 << 30) | (32 << 16) | (0xa7 << 8) | 32
SET_ALIGN = (1 << 30) | (32 << 16) | (0xa7 << 8) | 33
U = 16384

def expect(err, what, f, *a, **k):
    try:
        f(*a, **k)
    except OSError as e:
        assert e.errno == err, "%s: %s, want %s" % (what, e, errno.errorcode[err])
        print("ok: %s -> %s" % (what, errno.errorcode[err]))
        return
    raise SystemExit("%s: succeeded, want %s" % (what, errno.errorcode[err]))

def set_align(fd, flags, unit, status=0, res=None):
    fcntl.ioctl(fd, SET_ALIGN, struct.pack(ALIGN_FMT, flags, unit, status, *(res or [0] * 5)))

def get_align(fd):
    b = bytearray(32)
    fcntl.ioctl(fd, GET_ALIGN, b)
    return struct.unpack(ALIGN_FMT, bytes(b))

p = M + "/a"
fd = os.open(p, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
old = os.urandom(4 * U)
os.pwrite(fd, old, 0)
os.fsync(fd)
def same(what):
    assert os.pread(fd, 4 * U, 0) == old, what + ": data changed"
    assert os.fstat(fd).st_size == 4 * U, what + ": size changed"
lim = A.limits(fd)
assert (lim["unit_min"], lim["unit_max"], lim["max_bytes"], lim["segments_max"]) == (U, U, U, 1), lim
assert lim["untorn"] == U and lim["engine"] == 2, lim
print("ok: buffered limits", lim)
new = os.urandom(2 * U)
for what, args in (
        ("two units", (0, new)),
        ("half a unit", (0, new[:U // 2])),
        ("misaligned", (4096, new[:U])),
        ("not a power of two", (0, new[:3 * 4096])),
        ("a reserved field", (0, new[:U], 0, 1)),
        ("an unknown flag", (0, new[:U], 0x80))):
    expect(errno.EINVAL, "atomic write with " + what, A.atomic_write, fd, *args)
    same(what)
expect(errno.EINVAL, "atomic write with reserved[2]", A.atomic_write, fd, 0, new[:U], reserved=[0, 0, 7, 0])
expect(errno.EFAULT, "atomic write from a bad pointer", A.atomic_write, fd, 0, None, addr=16, length=U)
same("bad pointer")
ro = os.open(p, os.O_RDONLY)
expect(errno.EBADF, "atomic write on a read-only descriptor", A.atomic_write, ro, 0, new[:U])
expect(errno.EBADF, "set unit on a read-only descriptor", set_align, ro, 1, U)
os.close(ro)
same("read-only")
# The unit: only on an empty file; bad values refused.
expect(errno.EBUSY, "set unit on a file with data", set_align, fd, 1, 8192)
e = os.open(M + "/e", os.O_RDWR | os.O_CREAT, 0o644)
for what, a in (("12 KiB", (1, 12288)), ("an unknown flag", (3, U)), ("a unit without force", (0, U)),
                ("status set", (1, U, 1)), ("a reserved field", (1, U, 0, [0, 1, 0, 0, 0])),
                ("a unit too big for the device", (1, 131072))):
    expect(errno.EINVAL, "set unit " + what, set_align, e, *a)
assert get_align(e)[:3] == (1, U, 1), get_align(e)
set_align(e, 0, 0)
assert get_align(e)[:3] == (0, 0, 0), get_align(e)
assert A.limits(e)["unit_max"] == 0
os.pwrite(e, b"x" * U, 0)
expect(errno.EOPNOTSUPP, "atomic write on a file without a unit", A.atomic_write, e, 0, new[:U])
assert os.pread(e, U, 0) == b"x" * U
os.close(e)
e = os.open(M + "/e8", os.O_RDWR | os.O_CREAT, 0o644)
set_align(e, 1, 8192)
assert A.limits(e)["unit_max"] == 8192
A.atomic_write(e, 8192, new[:8192])
assert os.pread(e, 16384, 0) == bytes(8192) + new[:8192]
os.close(e)
print("ok: per-file units (ioctl, 8 KiB unit written)")
# O_DIRECT: the device's limits within the unit; a direct atomic write.
d = os.open(p, os.O_RDWR | os.O_DIRECT)
lim = A.limits(d)
assert (lim["unit_min"], lim["unit_max"]) == (512, U), lim
A.atomic_write(d, 2 * U + 4096, new[:4096])
old = old[:2 * U + 4096] + new[:4096] + old[2 * U + 8192:]
same("O_DIRECT atomic write")
A.atomic_write(d, U + 1536, new[8192:8704])	# inside a block
old = old[:U + 1536] + new[8192:8704] + old[U + 2048:]
same("O_DIRECT atomic write of 512 bytes")
expect(errno.EINVAL, "O_DIRECT atomic write across units", A.atomic_write, d, U + 8192, new[:U])
os.close(d)
print("ok: O_DIRECT limits and atomic write")
# Append-only (set on the lower file, seen through awfs).
subprocess.check_call(["chattr", "+a", L + "/a"])
os.stat(p)
expect(errno.EPERM, "atomic write on an append-only file", A.atomic_write, fd, 0, new[:U])
subprocess.check_call(["chattr", "-a", L + "/a"])
same("append-only")
# libaw takes awfs files as they are: its limits and atomic writes.
aw = ctypes.CDLL(os.environ["AWKIT_ROOT"] + "/build/lib/libaw.so", use_errno=True)
lb = ctypes.create_string_buffer(72)
assert aw.aw_limits(fd, lb) == 0 and struct.unpack("=8I", lb.raw[:32])[:2] == (U, U)
buf = ctypes.create_string_buffer(new[:U], U)
assert aw.aw_pwrite_atomic(fd, buf, ctypes.c_size_t(U), ctypes.c_long(3 * U), 0) == U, ctypes.get_errno()
old = old[:3 * U] + new[:U]
same("libaw")
print("ok: libaw's aw_limits and aw_pwrite_atomic on an awfs file")
# Where the kernel has RWF_ATOMIC (6.11+): pwritev2 and statx on awfs files.
rel = tuple(int(x) for x in os.uname().release.split("-")[0].split(".")[:2])
if rel >= (6, 11):
    RWF_ATOMIC = 0x40
    assert os.pwritev(fd, [new[:U]], 0, RWF_ATOMIC) == U
    old = new[:U] + old[U:]
    same("RWF_ATOMIC")
    expect(errno.EINVAL, "RWF_ATOMIC misaligned", os.pwritev, fd, [new[:U]], 4096, RWF_ATOMIC)
    expect(errno.EINVAL, "RWF_ATOMIC with two iovecs", os.pwritev, fd, [new[:4096], new[:U - 4096]], 0, RWF_ATOMIC)
    expect(errno.EINVAL, "RWF_ATOMIC of half a unit", os.pwritev, fd, [new[:U // 2]], 0, RWF_ATOMIC)
    same("RWF_ATOMIC refused")
    libc = ctypes.CDLL(None, use_errno=True)
    sb = ctypes.create_string_buffer(256)
    assert libc.syscall(332, fd, b"", 0x1000, 0x10000, sb) == 0, ctypes.get_errno()
    raw = sb.raw
    st = (int.from_bytes(raw[0xa8:0xac], "little"), int.from_bytes(raw[0xac:0xb0], "little"))
    assert st == (U, U), st
    d = os.open(p, os.O_RDWR | os.O_DIRECT)
    m = mmap.mmap(-1, 4096)
    m.write(new[:4096])
    assert os.pwritev(d, [m], 3 * U, RWF_ATOMIC) == 4096
    os.close(d)
    old = old[:3 * U] + new[:4096] + old[3 * U + 4096:]
    same("RWF_ATOMIC with O_DIRECT")
    print("ok: RWF_ATOMIC (buffered and O_DIRECT) and statx on an awfs file")
# RLIMIT_FSIZE, as write(2): EFBIG (SIGXFSZ ignored).
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4 * U, resource.RLIM_INFINITY))
expect(errno.EFBIG, "atomic write past RLIMIT_FSIZE", A.atomic_write, fd, 4 * U, new[:U])
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
same("RLIMIT_FSIZE")
os.close(fd)
PYEOF
echo "ok: ioctls"

# 3. A full lower file system: ENOSPC, nothing written; written units still go.
python3 - $M <<'PYEOF' || fail "ENOSPC"
import errno, os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
M = sys.argv[1]
U = 16384
fd = os.open(M + "/full", os.O_RDWR | os.O_CREAT, 0o644)
data = os.urandom(U)
os.pwrite(fd, data, 0)
os.fsync(fd)
fill = os.open(M + "/filler", os.O_RDWR | os.O_CREAT, 0o644)
off = 0
for step in (1 << 20, U):	# megabytes, then the last clusters
    while True:
        try:
            os.posix_fallocate(fill, off, step)
            off += step
        except OSError as e:
            assert e.errno == errno.ENOSPC, e
            break
n = off >> 20
print("filled the lower file system with %d MiB" % n)
try:
    A.atomic_write(fd, 8 * U, os.urandom(U))
    raise SystemExit("atomic write into a hole of a full file system succeeded")
except OSError as e:
    assert e.errno in (errno.ENOSPC, errno.EDQUOT), e
    print("ok: atomic write into a hole of a full file system ->", errno.errorcode[e.errno])
assert os.fstat(fd).st_size == U and os.pread(fd, U, 0) == data, "changed"
new = os.urandom(U)
A.atomic_write(fd, 0, new)
os.fsync(fd)
assert os.pread(fd, U, 0) == new
print("ok: atomic write over a written unit still works on a full file system")
os.close(fd)
os.close(fill)
os.unlink(M + "/filler")
PYEOF
umount $M || fail "umount"

# 4. awfs changes the lower file system only with write access to its
# mount: on a read-only mount every change is refused (EROFS) and nothing
# changes below; on a frozen file system a change waits for the thaw in
# the freeze protection (not inside the lower file system's journal).
R=/tmp/awfs-lower-ro
mkdir -p $R $L/ro && echo x >$L/ro/f && sync || fail "setup"
mount --bind $L $R && mount -o remount,bind,ro $R || fail "read-only bind mount"
mount -t awfs -o unit=16k $R $M || fail "mount awfs over a read-only mount"
xattr="python3 -c 'import os, sys; os.setxattr(sys.argv[1], \"user.a\", b\"1\")'"
for op in "mkdir $M/ro/d" "mknod $M/ro/p p" "ln -s f $M/ro/s" "ln $M/ro/f $M/ro/h" \
	"rm $M/ro/f" "mv $M/ro/f $M/ro/g" "chmod 600 $M/ro/f" "truncate -s 0 $M/ro/f" \
	"touch $M/ro/new" "$xattr $M/ro/f"; do
	out=$(eval "$op" 2>&1) && fail "$op through awfs on a read-only lower mount succeeded"
	case $out in
	*"Read-only file system"*) ;;
	*) fail "$op: $out (want EROFS)" ;;
	esac
done
[ "$(ls $L/ro)" = f ] && [ "$(cat $L/ro/f)" = x ] &&
	[ "$(stat -c %a $L/ro/f)" = 644 ] || fail "the lower changed: $(ls -l $L/ro)"
umount $M && umount $R || fail "umount the read-only stack"
echo "ok: a read-only lower mount: every change refused with EROFS, nothing changed below"
# untorn: the whole-unit writes of the frozen check below are atomic units.
mount -t awfs -o unit=16k,untorn $L $M || fail "mount awfs"
fsfreeze -f $LOWER_MNT || fail "fsfreeze"
mkdir $M/frozen & pid=$!
i=0
until grep -q percpu_rwsem /proc/$pid/wchan 2>/dev/null; do
	i=$((i + 1))
	if ! kill -0 $pid 2>/dev/null || [ $i -gt 600 ]; then
		w=$(cat /proc/$pid/wchan 2>/dev/null)
		fsfreeze -u $LOWER_MNT
		fail "mkdir through awfs on a frozen lower did not wait for the thaw (${w:-finished})"
	fi
	sleep 0.05
done
[ -e $L/frozen ] && { fsfreeze -u $LOWER_MNT; fail "mkdir reached a frozen file system"; }
fsfreeze -u $LOWER_MNT || fail "thaw"
wait $pid || fail "mkdir after the thaw"
[ -d $L/frozen ] || fail "no directory after the thaw"
python3 - $M $L $LOWER_MNT $dev <<'PYEOF' || fail "an atomic unit's writeback while the lower is frozen"
import ctypes, fcntl, mmap, os, struct, subprocess, sys
M, L, lower, dev = sys.argv[1:5]
U = 16384
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(M + "/fz", os.O_RDWR | os.O_CREAT, 0o644)
os.pwrite(fd, b"\1" * U, 0)
os.fsync(fd)
lf = os.open(L + "/fz", os.O_RDONLY)
blk = struct.unpack("i", fcntl.ioctl(lf, 1, struct.pack("i", 0)))[0]  # FIBMAP
at = blk * os.fstat(lf).st_blksize
os.close(lf)
def disk():
    d = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    m = mmap.mmap(-1, U)
    os.preadv(d, [m], at)
    os.close(d)
    return bytes(m)
assert disk() == b"\1" * U, "the first unit is not on the disk"
os.pwrite(fd, b"\2" * U, 0)		# an atomic unit, dirty in awfs's cache
subprocess.check_call(["fsfreeze", "-f", lower])
try:
    # Background-style writeback (WB_SYNC_NONE) must leave it for later.
    if libc.sync_file_range(fd, 0, U, 2) != 0:
        raise OSError(ctypes.get_errno(), "sync_file_range")
    assert disk() == b"\1" * U, "an atomic unit reached a frozen file system"
finally:
    subprocess.check_call(["fsfreeze", "-u", lower])
os.fsync(fd)
assert disk() == b"\2" * U, "the unit is not on the disk after the thaw and fsync"
os.close(fd)
os.unlink(M + "/fz")
PYEOF
rmdir $M/frozen && rm -r $M/ro && umount $M || fail "clean up"
echo "ok: a frozen lower file system: mkdir through awfs waited for the thaw, an atomic unit's background writeback left it alone; then both went on"

# 5. Quotas, as write(2) has them: ext4 with quotas enforced, a user with a
# block limit; an atomic write that needs space past it fails with EDQUOT
# and writes nothing.
umount $LOWER_MNT || fail "umount ext4"
mkfs.ext4 -q -F -O bigalloc,quota -C 16384 -b 4096 $dev || fail "mkfs.ext4 with quotas"
mount -t ext4 -o usrquota $dev $LOWER_MNT && mkdir -p $L && chmod 1777 $L || fail "mount with quotas"
mount -t awfs -o unit=16k $L $M || fail "mount awfs"
python3 - $M $dev <<'PYEOF' || fail "quota"
import ctypes, errno, os, struct, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
M, dev, U, UID = sys.argv[1], sys.argv[2], 16384, 4242
libc = ctypes.CDLL(None, use_errno=True)
def setquota(kib):	# struct if_dqblk, block limits in KiB
    q = struct.pack("=8QI", kib, kib, 0, 0, 0, 0, 0, 0, 1)
    cmd = ctypes.c_int(((0x800008 << 8) | 0) & 0xffffffff)	# QCMD(Q_SETQUOTA, USRQUOTA)
    if libc.quotactl(cmd, dev.encode(), UID, q) != 0:
        raise OSError(ctypes.get_errno(), "quotactl")
setquota(4 * U // 1024)		# 64 KiB: four units
pid = os.fork()
if pid == 0:
    os.setgid(UID); os.setuid(UID)
    fd = os.open(M + "/q", os.O_RDWR | os.O_CREAT, 0o644)
    a = os.urandom(U)
    for u in range(4):
        A.atomic_write(fd, u * U, a)
    try:
        A.atomic_write(fd, 8 * U, os.urandom(U))
        os._exit(3)
    except OSError as e:
        if e.errno != errno.EDQUOT:
            print("atomic write past the quota:", e); os._exit(4)
    if os.fstat(fd).st_size != 4 * U or os.pread(fd, U, 3 * U) != a:
        os._exit(5)
    A.atomic_write(fd, 2 * U, os.urandom(U))	# allocated: no new space
    os._exit(0)
_, st = os.waitpid(pid, 0)
assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, "child: %d" % os.WEXITSTATUS(st)
print("ok: an atomic write past the user's quota -> EDQUOT, nothing written; within it, fine")
PYEOF
umount $M || fail "umount"

# 6. awfs's atomic writes go through the block layer as every write does:
# counted (and so throttled) for the writer's cgroup, on the awblk device.
CG=/tmp/aw-cgroup
mkdir -p $CG && mount -t cgroup2 none $CG || fail "mount cgroup2"
echo +io >$CG/cgroup.subtree_control && mkdir $CG/aw || fail "an io cgroup"
mount -t awfs -o unit=16k $L $M || fail "mount awfs"
python3 - $M $CG/aw "$(cat /sys/block/${dev#/dev/}/dev)" <<'PYEOF' || fail "io.stat"
import os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
M, cg, devno = sys.argv[1:4]
U, N = 16384, 32
# Written and synced first, outside the cgroup: the atomic writes below
# allocate nothing, so theirs is the only I/O the cgroup makes.
fd = os.open(M + "/iostat", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, b"\0" * N * U)
os.fsync(fd)
os.close(fd)
pid = os.fork()
if pid == 0:
    with open(cg + "/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    fd = os.open(M + "/iostat", os.O_RDWR | os.O_DIRECT)
    for i in range(N):
        A.atomic_write(fd, i * U, os.urandom(U))
    os.close(fd)
    os._exit(0)
_, st = os.waitpid(pid, 0)
assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, "writer: %d" % os.WEXITSTATUS(st)
stat = open(cg + "/io.stat").read()
line = [l for l in stat.splitlines() if l.startswith(devno + " ")]
assert line, "no write to awblk (%s) counted for the writer's cgroup: %r" % (devno, stat)
io = dict(kv.split("=", 1) for kv in line[0].split()[1:] if "=" in kv)
assert int(io.get("wbytes", 0)) >= N * U and int(io.get("wios", 0)) >= N, \
    "the atomic writes were not counted for the writer's cgroup: %s" % line[0]
os.unlink(M + "/iostat")
print("ok: %d O_DIRECT atomic writes through awfs counted for the writer's cgroup: %s" % (N, line[0]))
PYEOF
umount $M && rmdir $CG/aw && umount $CG || fail "cgroup cleanup"
aw_awfs_down
