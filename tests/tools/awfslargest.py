"""awfslargest.py MOUNT UNIT [untorn]: atomic writes of a whole UNIT-byte
awfs unit (the device's unit_max) through every awfs path: the ioctl on a
buffered descriptor, the ioctl with O_DIRECT, and on an untorn mount a
plain write(2) of the unit. Each reaches the awscsi disk below as one
WRITE ATOMIC(16) and reads back whole after the caches are dropped."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import awblkio as A  # noqa: E402
from awlargest import disk_atomic_writes  # noqa: E402


def pattern(k, n):
    """A different byte in every 4 KiB page, so a torn or shifted unit shows."""
    return b"".join(bytes([(k * 37 + p) & 0xff]) * 4096 for p in range(n // 4096))


def main():
    m, u = sys.argv[1], int(sys.argv[2])
    untorn = sys.argv[3:] == ["untorn"]
    f = m + "/largest"
    want = [pattern(1, u), pattern(2, u), pattern(3, u)]
    fd = os.open(f, os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o644)
    os.ftruncate(fd, 3 * u)
    os.fsync(fd)
    before = disk_atomic_writes()
    A.atomic_write(fd, 0, want[0])
    os.fsync(fd)
    dfd = os.open(f, os.O_RDWR | os.O_DIRECT)
    A.atomic_write(dfd, u, want[1])
    os.close(dfd)
    n = 2
    if untorn:
        assert os.pwrite(fd, want[2], 2 * u) == u
        os.fsync(fd)
        n = 3
    got = disk_atomic_writes() - before
    assert got == n, "%d atomic writes of %d bytes reached the disk as %d" % (n, u, got)
    os.close(fd)
    with open("/proc/sys/vm/drop_caches", "w") as d:
        d.write("3")
    with open(f, "rb") as r:
        for i in range(n):
            assert r.read(u) == want[i], "unit %d does not read back whole" % i
    os.unlink(f)
    print("ok: awfs%s unit %d: %d atomic writes, each one WRITE ATOMIC(16), read back whole"
          % (" untorn" if untorn else "", u, n))


if __name__ == "__main__":
    main()
