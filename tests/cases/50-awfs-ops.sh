#!/bin/sh
# awfs over ext4 (bigalloc, 16 KiB clusters) on awblk on an awscsi disk with
# atomic writes: mount refusals; every file operation through awfs, checked
# against the lower directory; awfsx (random writes, reads, truncates, mmap,
# fallocate and atomic writes against a model, invalid atomic writes that
# must change nothing) on a plain and an untorn mount, and after a remount;
# then XFS below (see 5).
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
aw_awfs_stack 512
L=$LOWER_MNT/data M=$AWFS_MNT
FSX=$AWKIT_ROOT/build/tools/awfsx

# 1. Mount refusals, each with its reason in the log.
refused() { # WHY LOG_TEXT MOUNT_ARGS...
	why=$1 text=$2; shift 2
	mount -t awfs "$@" 2>/dev/null && { umount $M; fail "mounted: $why"; }
	dmesg | tail -5 | grep -q "$text" || fail "no \"$text\" in the log for $why"
	echo "ok: refused $why"
}
mkdir -p /tmp/notaw
refused "a directory not on awblk" "is not on an awblk device" -o unit=16k /tmp/notaw $M
refused "no unit" "unit=BYTES is required" $L $M
refused "a unit the device cannot do" "outside the device's atomic unit range" -o unit=128k $L $M
refused "a unit that is not a power of two" "not a power of two" -o unit=12k $L $M
refused "an unknown option" "unknown option" -o unit=16k,bogus $L $M
refused "a unit below a page" "smaller than a page" -o unit=2k $L $M
refused "a unit without a value" 'unknown option "unit"' -o unit $L $M
refused "untorn with a value" 'unknown option "untorn=1"' -o unit=16k,untorn=1 $L $M
refused "a bad unit" 'bad unit in "unit=16q"' -o unit=16q $L $M

mount -t awfs -o unit=16k $L $M || fail "mount awfs"
grep -q " $M awfs .*unit=16384" /proc/mounts || fail "mount options not shown: $(grep awfs /proc/mounts)"
# Remount changes only the VFS flags: awfs's own options stay as mounted.
mount -o remount,unit=32k $M || fail "remount with options"
grep -q " $M awfs .*unit=16384" /proc/mounts || fail "remount changed the unit: $(grep awfs /proc/mounts)"
[ "$(stat -f -c %t $M)" = 61776673 ] || fail "statfs type is not awfs"

# 2. Names and attributes, each checked in the lower directory.
cd $M || fail cd
ok "mkdir" mkdir -p d1/d2
ok "create" sh -c 'echo hello >d1/f'
ok "lower has the file" test -f $L/d1/f
ok "sync" sync d1/f
ok "lower has the data after sync" grep -q hello $L/d1/f
ok "rename" mv d1/f d1/d2/g
ok "renamed in lower" test -f $L/d1/d2/g -a ! -e $L/d1/f
ok "hard link" ln d1/d2/g h
[ "$(stat -c %h h)" = 2 ] || fail "link count $(stat -c %h h)"
ok "symlink" ln -s d1/d2/g s
[ "$(readlink s)" = d1/d2/g ] && [ "$(cat s)" = hello ] || fail "symlink"
ok "lower symlink" test -L $L/s
ok "chmod" chmod 640 h
[ "$(stat -c %a $L/h)" = 640 ] || fail "chmod did not reach the lower"
ok "xattrs" python3 - h $L/d1/d2/g <<'PYEOF'
import os, sys
os.setxattr(sys.argv[1], "user.k", b"v1")
assert os.getxattr(sys.argv[2], "user.k") == b"v1", "not in the lower"
assert "user.k" in os.listxattr(sys.argv[1]), os.listxattr(sys.argv[1])
assert os.getxattr(sys.argv[1], "user.k") == b"v1"
os.removexattr(sys.argv[1], "user.k")
assert "user.k" not in os.listxattr(sys.argv[2])
PYEOF
ok "readdir" sh -c "ls -a d1/d2 | tr '\n' ' ' | grep -q '^\. \.\. g $'"
ok "unlink" rm h
[ "$(stat -c %h d1/d2/g)" = 1 ] || fail "link count after unlink"
ok "truncate up" truncate -s 100000 d1/d2/g
[ "$(stat -c %s $L/d1/d2/g)" = 100000 ] || fail "lower size after truncate"
ok "truncate down" truncate -s 3 d1/d2/g
[ "$(cat d1/d2/g)" = hel ] || fail "truncated content"
ok "fallocate" fallocate -l 1M fa
[ "$(stat -c %s fa)" = 1048576 ] || fail "fallocate size"
ok "rmdir refused when not empty" sh -c '! rmdir d1 2>/dev/null'
ok "rm -r" rm -r d1 s fa
ok "lower empty" test -z "$(ls -A $L)"
ok "mknod fifo" mkfifo p
ok "fifo in lower" test -p $L/p
rm p
# Written data reaches the lower file at writeback; fsync makes it so.
head -c 200000 /dev/urandom >r
ok "fsync" python3 -c "import os; fd = os.open('r', os.O_RDWR); os.fsync(fd)"
cmp r $L/r || fail "lower file differs after fsync"
rm r
echo "ok: names, attributes, xattrs, links, truncate, fallocate"

# 3. awfsx: random operations against a model, with and without mmap,
# with atomic writes.
for seed in 1 2 3; do
	$FSX $M/x$seed --seed $seed --ops 3000 --atomic --reopen || fail "awfsx seed $seed"
done
$FSX $M/plain --seed 4 --ops 3000 --no-mmap || fail "awfsx without mmap"
cd /
umount $M || fail "umount"
# Remounted: the data and the files' units persist.
mount -t awfs -o unit=16k $L $M || fail "remount"
$FSX $M/x4 --seed 5 --ops 2000 --atomic || fail "awfsx after remount"
# POSIX ACLs of the lower files decide access through awfs too: a file
# 0644 with user:4242:--- is closed to user 4242, its neighbour is open;
# a default ACL of a directory reaches files made through awfs, the umask
# notwithstanding. The ACLs themselves are the lower files' both ways:
# read through awfs they are the lower's, and set or removed through awfs
# (since 6.2 the VFS hands these names to ->get_acl/->set_acl, not to the
# xattr handlers) they are set or removed below, with their effect.
python3 - $L $M <<'PYEOF' || fail "ACLs"
import errno, os, struct, sys
L, M = sys.argv[1:3]
UID, ANY = 4242, 0xffffffff
def acl(*entries):	# the system.posix_acl_* xattr format, version 2
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)
for name in ("closed", "open"):
    with open(M + "/" + name, "w") as f:
        f.write(name)
    os.chmod(M + "/" + name, 0o644)
# user::rw- user:4242:--- group::r-- mask::r-- other::r--
os.setxattr(L + "/closed", "system.posix_acl_access",
            acl((1, 6, ANY), (2, 0, UID), (4, 4, ANY), (0x10, 4, ANY), (0x20, 4, ANY)))
os.mkdir(M + "/dacl", 0o755)
# default: user::rwx group::rwx other::rwx
os.setxattr(L + "/dacl", "system.posix_acl_default",
            acl((1, 7, ANY), (4, 7, ANY), (0x20, 7, ANY)))
pid = os.fork()
if pid == 0:
    os.setgid(UID)
    os.setuid(UID)
    for d, want in ((L, False), (M, False)):
        try:
            open(d + "/closed").read()
            os._exit(3 if d == M else 4)
        except PermissionError:
            pass
    if open(M + "/open").read() != "open":
        os._exit(5)
    os._exit(0)
_, st = os.waitpid(pid, 0)
assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, "user 4242: %d" % os.WEXITSTATUS(st)
PA, PD = "system.posix_acl_access", "system.posix_acl_default"
def can_read(uid, path):	# may @uid read @path? (in a child)
    pid = os.fork()
    if pid == 0:
        code = 2
        try:
            os.setgid(uid)
            os.setuid(uid)
            open(path).read()
            code = 0
        except PermissionError:
            code = 1
        finally:
            os._exit(code)
    _, st = os.waitpid(pid, 0)
    assert os.WIFEXITED(st) and os.WEXITSTATUS(st) < 2, "reading %s as %d: %x" % (path, uid, st)
    return os.WEXITSTATUS(st) == 0
def xattr(path, name):	# None: there is none
    try:
        return os.getxattr(path, name)
    except OSError as e:
        if e.errno != errno.ENODATA:
            raise AssertionError("%s of %s: %s" % (name, path, e))
        return None
for p, x in (("/closed", PA), ("/dacl", PD)):
    below, above = xattr(L + p, x), xattr(M + p, x)
    assert below and above == below, "%s of %s through awfs: %r, below: %r" % (x, p, above, below)
# user::rw- user:4243:r-- group::r-- mask::r-- other::---
new = acl((1, 6, ANY), (2, 4, 4243), (4, 4, ANY), (0x10, 4, ANY), (0x20, 0, ANY))
try:
    os.setxattr(M + "/open", PA, new)
except OSError as e:
    raise AssertionError("setting an ACL through awfs: %s" % e)
assert xattr(L + "/open", PA) == new, "the ACL set through awfs is not below"
assert xattr(M + "/open", PA) == new, "the ACL set through awfs does not read back"
for d in (L, M):
    mode = os.stat(d + "/open").st_mode & 0o777
    assert mode == 0o640, "mode after the ACL through awfs, in %s: %o" % (d, mode)
assert can_read(4243, M + "/open"), "user 4243 cannot read with user:4243:r-- set through awfs"
assert not can_read(UID, M + "/open"), "user 4242 reads with other::--- set through awfs"
os.removexattr(M + "/open", PA)
assert xattr(L + "/open", PA) is None, "the ACL removed through awfs is still below"
assert xattr(M + "/open", PA) is None, "the ACL removed through awfs still reads"
assert not can_read(4243, M + "/open"), "user 4243 still reads after the ACL was removed"
# Changed below after awfs has read it: awfs sees the change at once.
os.setxattr(L + "/open", PA, new)
assert xattr(M + "/open", PA) == new, "an ACL set below after awfs read none"
os.removexattr(L + "/open", PA)
assert xattr(M + "/open", PA) is None, "an ACL removed below still reads through awfs"
old = os.umask(0o077)
os.close(os.open(M + "/dacl/f", os.O_CREAT | os.O_WRONLY, 0o666))
os.umask(old)
mode = os.stat(L + "/dacl/f").st_mode & 0o777
assert mode == 0o666, "a file made under a default ACL through awfs: %o" % mode
for p in ("/closed", "/open", "/dacl/f"):
    os.unlink(M + p)
os.rmdir(M + "/dacl")
print("ok: ACLs: user:4242:--- denies through awfs as below, a default ACL beats the umask")
print("ok: ACLs read, set and removed through awfs are the lower files', with their effect")
PYEOF
# The same with the ACL tools, where the guest has them.
if command -v setfacl >/dev/null && command -v getfacl >/dev/null; then
	echo x >$M/facl
	ok "setfacl through awfs" setfacl -m u:4244:r $M/facl
	getfacl -cn $L/facl | grep -qx 'user:4244:r--' || fail "setfacl's entry is not below"
	getfacl -cn $M/facl | grep -qx 'user:4244:r--' || fail "getfacl through awfs misses it"
	ok "setfacl -b through awfs" setfacl -b $M/facl
	getfacl -cn $L/facl | grep -q 'user:4244' && fail "setfacl -b left the entry below"
	rm $M/facl
else
	note "no setfacl/getfacl in the guest: the python checks above stand for them"
fi
umount $M

# 4. Untorn mount: write() of whole units is atomic.
mount -t awfs -o unit=16k,untorn $L $M || fail "mount untorn"
for seed in 6 7; do
	$FSX $M/u$seed --seed $seed --ops 3000 --atomic --reopen || fail "awfsx untorn seed $seed"
done
cd /
umount $M || fail "umount untorn"
grep -q "atomic_writes [1-9]" /sys/devices/awscsi/stats || { cat /sys/devices/awscsi/stats; fail "no atomic write reached the disk"; }

# 5. XFS below (a 16 KiB stripe unit, which XFS aligns file allocations
# at the end of a file to): awfsx's file operations; a file preallocated in
# one piece is aligned and takes atomic writes in every unit; a unit XFS
# placed unaligned makes its file not atomic-capable (EOPNOTSUPP, said in
# the log), never a torn or misplaced write.
umount $LOWER_MNT || fail "umount ext4"
modprobe xfs || fail "modprobe xfs"
mkfs.xfs -q -f -l size=64m -d su=16k,sw=1,agcount=2 $dev || fail "mkfs.xfs"
mount -t xfs $dev $LOWER_MNT && mkdir $L || fail "mount xfs"
mount -t awfs -o unit=16k,untorn $L $M || fail "mount awfs over xfs"
for seed in 8 9; do
	$FSX $M/x$seed --seed $seed --ops 3000 --reopen || fail "awfsx on xfs, seed $seed"
done
python3 - $M <<'PYEOF' || fail "atomic writes on xfs"
import errno, fcntl, os, struct, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
M, U = sys.argv[1], 16384
GET_ALIGN = (2 << 30) | (32 << 16) | (0xa7 << 8) | 32
def capable(fd):
    b = bytearray(32)
    fcntl.ioctl(fd, GET_ALIGN, b)
    return struct.unpack("=8I", bytes(b))[2] & 1
fd = os.open(M + "/pre", os.O_RDWR | os.O_CREAT, 0o644)
os.posix_fallocate(fd, 0, 64 * U)
data = [os.urandom(U) for _ in range(64)]
for u in range(64):
    A.atomic_write(fd, u * U, data[u])
os.fsync(fd)
assert all(os.pread(fd, U, u * U) == data[u] for u in range(64)) and capable(fd)
print("ok: a preallocated file on xfs takes atomic writes in all 64 units")
# Units allocated one at a time in a sparse file: XFS may place them unaligned.
fd2 = os.open(M + "/sparse", os.O_RDWR | os.O_CREAT, 0o644)
done = refused = 0
for u in (40, 3, 77, 12, 55, 21, 90, 7):
    d = os.urandom(U)
    try:
        A.atomic_write(fd2, u * U, d)
        done += 1
        assert os.pread(fd2, U, u * U) == d
    except OSError as e:
        assert e.errno == errno.EOPNOTSUPP and not capable(fd2), e
        assert os.pread(fd2, U, u * U) != d
        refused += 1
os.fsync(fd2)
print("ok: sparse file on xfs: %d atomic writes, %d refused (unaligned placement), capable=%d" % (done, refused, capable(fd2)))
PYEOF
# A direct write into a hole that is not block-aligned (XFS then holds the
# file's i_rwsem exclusively to zero the rest of the block) and a direct
# read, each with its buffer in a mapping of the same file, of pages awfs
# must read in from below: the fault that fills them must not need that
# i_rwsem again. It would wait forever.
python3 - $M/selfdio $L/selfdio <<'PYEOF' || fail "direct I/O through a mapping of the same file on xfs"
import mmap, os, sys, time, traceback
p, lp, n, h = sys.argv[1], sys.argv[2], 65536, 32768	# data up to h, a hole after it
data = bytearray(os.urandom(h)) + bytearray(n - h)
fd = os.open(p, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.pwrite(fd, data[:h], 0)
os.ftruncate(fd, n)
os.fsync(fd)
dfd = os.open(p, os.O_RDWR | os.O_DIRECT)
m = mmap.mmap(fd, n)
v = memoryview(m)
def cold():	# nothing of the file in awfs's cache: the fault reads below
    m.madvise(mmap.MADV_DONTNEED)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
def hole(off):	# XFS writes into a hole under its i_rwsem held exclusively
    lfd = os.open(lp, os.O_RDONLY)
    assert os.lseek(lfd, off, os.SEEK_HOLE) == off, "no hole at %d below" % off
    os.close(lfd)
def io():
    cold()
    hole(41472)
    assert os.pwrite(dfd, v[4608:5120], 41472) == 512	# data into the hole
    cold()
    assert os.pwrite(dfd, v[49664:50176], 49664) == 512	# the hole onto itself
    cold()
    assert os.preadv(dfd, [v[8704:9216]], 512) == 512
# In a child: a deadlocked task cannot be killed, only reported.
pid = os.fork()
if pid == 0:
    try:
        io()
        os._exit(0)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(1)
end = time.monotonic() + 120 * int(os.environ.get("AW_SLOW", "1"))
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        assert status == 0, "direct I/O through a mapping failed"
        break
    if time.monotonic() > end:
        print(open("/proc/%d/stack" % pid).read())
        raise SystemExit("direct I/O through a mapping of its own file hangs")
    time.sleep(0.1)
data[41472:41984] = data[4608:5120]
data[8704:9216] = data[512:1024]
assert os.pread(fd, n, 0) == bytes(data), "data after direct I/O"
os.fsync(fd)
cold()
assert os.pread(fd, n, 0) == bytes(data), "data read again from below"
lfd = os.open(lp, os.O_RDONLY | os.O_DIRECT)
below = mmap.mmap(-1, n)
assert os.preadv(lfd, [below], 0) == n and below[:] == bytes(data), "the lower file"
print("ok: direct I/O from and into a mapping of the same file on xfs")
PYEOF
umount $M || fail "umount awfs over xfs"
mount -t awfs -o unit=16k $L $M || fail "remount awfs over xfs"
python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); assert os.fstat(fd).st_size == 64*16384" $M/pre || fail "preallocated file after remount"
umount $M
echo "ok: awfs over xfs"
aw_awfs_down
