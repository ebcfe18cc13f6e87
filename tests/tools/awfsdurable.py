"""awfsdurable.py OP FILE N SEED [THREADS]: durability of awfs's atomic
writes, which reach the disk around the lower file system.
prep: N units allocated at once, written with zeros and fsync'd (so later
writes overwrite allocated, written units, as a database's pages are).
syncfs: each unit rewritten whole (content from SEED and its index), one
syncfs() at the end.
fsyncs: THREADS threads (default 4), thread t rewrites units t, t+THREADS,
... each followed by fdatasync(), so the threads' ranged fsyncs overlap
each other's writes.
check: after a power cut and a remount, count the units that do not hold
their content; prints "synced=N lost=L" and exits 1 when L > 0.
The unit is 16 KiB (the awfs mount's unit=16k)."""
import ctypes
import hashlib
import os
import sys
import threading

UNIT = 16384


def unit(seed, i):
    h = hashlib.sha256(b"%d:%d" % (seed, i)).digest()
    return (h * (UNIT // len(h)))[:UNIT]


def prep(path, n):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        # One allocation, so that XFS aligns it to its stripe unit.
        os.posix_fallocate(fd, 0, n * UNIT)
        for i in range(n):
            assert os.pwrite(fd, bytes(UNIT), i * UNIT) == UNIT
        os.fsync(fd)
    finally:
        os.close(fd)


def write_syncfs(path, n, seed):
    fd = os.open(path, os.O_RDWR)
    try:
        for i in range(n):
            assert os.pwrite(fd, unit(seed, i), i * UNIT) == UNIT
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.syncfs(fd) != 0:
            raise OSError(ctypes.get_errno(), "syncfs")
    finally:
        os.close(fd)


def write_fsyncs(path, n, seed, threads):
    errors = []

    def worker(t):
        fd = os.open(path, os.O_RDWR)
        try:
            for i in range(t, n, threads):
                assert os.pwrite(fd, unit(seed, i), i * UNIT) == UNIT
                os.fdatasync(fd)
        except Exception as e:  # reported below
            errors.append(e)
        finally:
            os.close(fd)

    ts = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]


def check(path, n, seed):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        print("synced=%d lost=%d (%s)" % (n, n, e))
        return 1
    lost = [i for i in range(n)
            if data[i * UNIT:(i + 1) * UNIT] != unit(seed, i)]
    print("synced=%d lost=%d%s" % (n, len(lost),
                                   " first=%d" % lost[0] if lost else ""))
    return 1 if lost else 0


def main():
    op, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    if op == "prep":
        prep(path, n)
    elif op == "syncfs":
        write_syncfs(path, n, seed)
    elif op == "fsyncs":
        write_fsyncs(path, n, seed,
                     int(sys.argv[5]) if len(sys.argv) > 5 else 4)
    elif op == "check":
        return check(path, n, seed)
    else:
        sys.exit("awfsdurable.py: unknown op " + op)
    print("synced=%d" % n)
    return 0


sys.exit(main())
