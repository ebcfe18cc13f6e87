"""awwberr.py OP ...: a failed write-back of the lower file reaches every
awfs file description and syncfs() once, as on any file system.
prep FILE: 16 blocks of 4 KiB, each marked with the file's name and its
index, written and fsync'd.
table DEV LOWER SECTORS FILE...: the device-mapper table of a linear map of
LOWER (SECTORS long) with an error target over the first 4 blocks of each
FILE, found by their marks on DEV (which reads LOWER through the same map).
fsyncs FILE: two descriptors open, a plain write through the first; each
fsync() must fail with EIO once, then succeed; a descriptor opened after
the error must not see it; syncfs() on the second fails once. Then 16
rounds of a plain write and both descriptors' fsync() at once: both fail.
syncfs FILE: a plain write, then syncfs() must fail with EIO once; an
fsync() of the same descriptor too (its cursor is the file's), once, and
not syncfs() again.
dsync FILE LOWERFILE: a plain write whose write-back below fails (started
on LOWERFILE, the lower file), then an O_DIRECT|O_DSYNC write elsewhere in
FILE, whose lower sync the same lower file description makes (it fails
too, as on ext4): fsync() of the first descriptor must still fail with EIO
once."""
import ctypes
import errno
import mmap
import os
import sys
import threading

BS = 4096
NB = 16
BAD = 4
libc = ctypes.CDLL(None, use_errno=True)
libc.sync_file_range.argtypes = [ctypes.c_int, ctypes.c_longlong,
                                 ctypes.c_longlong, ctypes.c_uint]
WAIT_BEFORE, WRITE, WAIT_AFTER = 1, 2, 4


def block(name, i):
    mark = b"awwberr:%s:%d:" % (os.path.basename(name).encode(), i)
    return (mark * (BS // len(mark) + 1))[:BS]


def prep(path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for i in range(NB):
            assert os.pwrite(fd, block(path, i), i * BS) == BS
        os.fsync(fd)
    finally:
        os.close(fd)


def locate(dev, paths):
    """Sectors of DEV holding the paths' blocks, read around any cache."""
    want = {block(p, i): (p, i) for p in paths for i in range(BAD)}
    found = {}
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 1 << 20)
    off = 0
    try:
        while True:
            n = os.preadv(fd, [buf], off)
            for b in range(0, n - n % BS, BS):
                k = buf[b:b + BS]
                if k in want:
                    if want[k] in found:
                        sys.exit("block %s twice on %s" % (want[k], dev))
                    found[want[k]] = (off + b) // 512
            if n < len(buf):
                break
            off += n
    finally:
        os.close(fd)
    missing = [k for k in want.values() if k not in found]
    if missing:
        sys.exit("blocks not found on %s: %s" % (dev, missing))
    return sorted(found.values())


def table(dev, lower, sectors, paths):
    bad = locate(dev, paths)
    rows, pos = [], 0
    for s in bad:
        if s > pos:
            rows.append("%d %d linear %s %d" % (pos, s - pos, lower, pos))
        rows.append("%d %d error" % (s, BS // 512))
        pos = s + BS // 512
    if pos < sectors:
        rows.append("%d %d linear %s %d" % (pos, sectors - pos, lower, pos))
    print("\n".join(rows))


def sync_result(call, fd):
    try:
        call(fd)
        return 0
    except OSError as e:
        return e.errno


def do_syncfs(fd):
    if libc.syncfs(fd) != 0:
        raise OSError(ctypes.get_errno(), "syncfs")


def expect(what, got, want):
    print("%s: %s" % (what, errno.errorcode.get(got, got) if got else "0"))
    return got == want


def write(fd, path, v):
    if os.pwrite(fd, block(path, v), 0) != BS:
        sys.exit("short write")


def together(a, b):
    """fsync() of both at once: their errors."""
    res = [None, None]
    go = threading.Barrier(2)

    def one(i, fd):
        go.wait()
        res[i] = sync_result(os.fsync, fd)
    t = [threading.Thread(target=one, args=(i, fd))
         for i, fd in enumerate((a, b))]
    for x in t:
        x.start()
    for x in t:
        x.join()
    return res


def fsyncs(path):
    a = os.open(path, os.O_RDWR)
    b = os.open(path, os.O_RDWR)
    write(a, path, 99)
    ok = expect("fsync first", sync_result(os.fsync, a), errno.EIO)
    ok &= expect("fsync second", sync_result(os.fsync, b), errno.EIO)
    ok &= expect("fsync first again", sync_result(os.fsync, a), 0)
    ok &= expect("fsync second again", sync_result(os.fsync, b), 0)
    c = os.open(path, os.O_RDWR)
    ok &= expect("fsync opened after", sync_result(os.fsync, c), 0)
    ok &= expect("syncfs second", sync_result(do_syncfs, b), errno.EIO)
    ok &= expect("syncfs second again", sync_result(do_syncfs, b), 0)
    both = 0
    for r in range(16):
        write(a, path, 100 + r)
        res = together(a, b)
        if res != [errno.EIO, errno.EIO]:
            print("round %d: fsync at once: %s" % (r, res))
        else:
            both += 1
    print("fsyncs at once: both failed in %d of 16 rounds" % both)
    ok &= both == 16
    for fd in (a, b, c):
        os.close(fd)
    return ok


def syncfs(path):
    fd = os.open(path, os.O_RDWR)
    write(fd, path, 99)
    ok = expect("syncfs", sync_result(do_syncfs, fd), errno.EIO)
    ok &= expect("syncfs again", sync_result(do_syncfs, fd), 0)
    ok &= expect("fsync", sync_result(os.fsync, fd), errno.EIO)
    ok &= expect("syncfs after the fsync", sync_result(do_syncfs, fd), 0)
    os.close(fd)
    return ok


def dsync(path, lower):
    a = os.open(path, os.O_RDWR)
    write(a, path, 99)
    # Into the lower page cache, then the lower write-back, which fails.
    if libc.sync_file_range(a, 0, BS, WAIT_BEFORE | WRITE | WAIT_AFTER):
        sys.exit("sync_file_range: %s" % os.strerror(ctypes.get_errno()))
    lf = os.open(lower, os.O_RDONLY)
    # Its error, if any, is the lower file description's, not ours.
    libc.sync_file_range(lf, 0, BS, WRITE | WAIT_AFTER)
    os.close(lf)
    d = os.open(path, os.O_RDWR | os.O_DIRECT | os.O_DSYNC)
    buf = mmap.mmap(-1, BS)
    buf[:] = block(path, 98)
    ok = expect("O_DIRECT|O_DSYNC write of a good block",
                sync_result(lambda fd: os.pwritev(fd, [buf], 8 * BS), d),
                errno.EIO)
    os.close(d)
    ok &= expect("fsync", sync_result(os.fsync, a), errno.EIO)
    ok &= expect("fsync again", sync_result(os.fsync, a), 0)
    os.close(a)
    return ok


def main():
    op, args = sys.argv[1], sys.argv[2:]
    if op == "prep":
        prep(args[0])
    elif op == "table":
        table(args[0], args[1], int(args[2]), args[3:])
    elif op == "fsyncs":
        sys.exit(0 if fsyncs(args[0]) else 1)
    elif op == "dsync":
        sys.exit(0 if dsync(args[0], args[1]) else 1)
    elif op == "syncfs":
        sys.exit(0 if syncfs(args[0]) else 1)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
