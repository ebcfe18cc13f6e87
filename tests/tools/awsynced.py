"""awsynced.py write|check FILE N SEED [syncfs]: durability of what a
program synced. write: N times pwrite a 4 KiB block (block i at i * 4096,
its content derived from SEED and i) then fdatasync, so every block is
acknowledged as durable before the next; with syncfs, the N writes and one
syncfs() at the end instead. check: after a power cut and a remount, count
the blocks that do not hold their content; prints "synced=N lost=L" and
exits 1 when L > 0."""
import ctypes
import hashlib
import os
import sys

BS = 4096


def block(seed, i):
    h = hashlib.sha256(b"%d:%d" % (seed, i)).digest()
    return (h * (BS // len(h)))[:BS]


def write(path, n, seed, syncfs):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        for i in range(n):
            assert os.pwrite(fd, block(seed, i), i * BS) == BS
            if not syncfs:
                os.fdatasync(fd)
        if syncfs:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.syncfs(fd) != 0:
                raise OSError(ctypes.get_errno(), "syncfs")
    finally:
        os.close(fd)
    print("synced=%d" % n)


def check(path, n, seed):
    try:
        data = open(path, "rb").read()
    except OSError as e:
        print("synced=%d lost=%d (%s)" % (n, n, e))
        return 1
    lost = [i for i in range(n) if data[i * BS:(i + 1) * BS] != block(seed, i)]
    print("synced=%d lost=%d%s" % (n, len(lost),
                                   " first=%d" % lost[0] if lost else ""))
    return 1 if lost else 0


def main():
    op, path, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if op == "write":
        write(path, n, seed, len(sys.argv) > 5 and sys.argv[5] == "syncfs")
        return 0
    return check(path, n, seed)


sys.exit(main())
