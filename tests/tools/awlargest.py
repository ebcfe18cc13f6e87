"""awlargest.py DEV UNIT_MAX [untorn]: atomic writes of UNIT_MAX bytes
through every path awblk has, each read back whole and counted by the
awscsi disk below as one WRITE ATOMIC(16). Exits non-zero on a mismatch."""
import ctypes
import mmap
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import awblkio as A  # noqa: E402

RWF_ATOMIC = 0x40


def disk_atomic_writes():
    s = open("/sys/devices/awscsi/stats").read()
    return sum(int(x) for x in re.findall(r"atomic_writes (\d+)", s))


def readback(dev, off, n):
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, n)
    try:
        got = os.preadv(fd, [buf], off)
        assert got == n, "short read %d of %d" % (got, n)
        return bytes(buf)
    finally:
        os.close(fd)


def check(dev, what, off, data, before, want_cmds=1):
    got = readback(dev, off, len(data))
    if got != data:
        bad = next(i for i in range(len(data)) if got[i] != data[i])
        raise SystemExit("FAIL: %s: reads back wrong from byte %d" % (what, bad))
    cmds = disk_atomic_writes() - before
    if cmds != want_cmds:
        raise SystemExit("FAIL: %s: %d WRITE ATOMIC(16) commands, want %d"
                         % (what, cmds, want_cmds))
    print("ok: %s (%d bytes at %d)" % (what, len(data), off))


def ioctl_paths(dev, umax):
    fd = os.open(dev, os.O_RDWR)
    try:
        lim = A.limits(fd)
        assert lim["unit_max"] == umax, lim
        # A page-aligned buffer (pinned), then one a sector and one a byte
        # past a page (pinned across one page more, or copied).
        for shift, what in ((0, "page-aligned"), (512, "sector-aligned"),
                            (1, "byte-aligned")):
            data = os.urandom(umax)
            m = mmap.mmap(-1, umax + 4096)
            m[shift:shift + umax] = data
            addr = ctypes.addressof(ctypes.c_char.from_buffer(m)) + shift
            before = disk_atomic_writes()
            A.atomic_write(fd, 0, None, addr=addr, length=umax)
            check(dev, "ioctl, %s buffer" % what, 0, data, before)
            m.close()
    finally:
        os.close(fd)


def rwf_atomic(dev, umax):
    if not hasattr(os, "pwritev"):
        return
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    try:
        data = os.urandom(umax)
        m = mmap.mmap(-1, umax)
        m[:] = data
        before = disk_atomic_writes()
        try:
            n = os.pwritev(fd, [m], 2 * umax, RWF_ATOMIC)
        except OSError as e:
            print("-- RWF_ATOMIC not on this kernel:", e)
            return
        assert n == umax, n
        check(dev, "pwritev2(RWF_ATOMIC)", 2 * umax, data, before)
    finally:
        os.close(fd)


def untorn(dev, umax):
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    try:
        data = os.urandom(umax)
        m = mmap.mmap(-1, umax)
        m[:] = data
        before = disk_atomic_writes()
        assert os.pwritev(fd, [m], umax) == umax
        check(dev, "untorn, O_DIRECT write of one unit", umax, data, before)
    finally:
        os.close(fd)
    fd = os.open(dev, os.O_RDWR)
    try:
        data = os.urandom(umax)
        assert os.pwrite(fd, data, 2 * umax) == umax
        os.fsync(fd)
        # Page-cache writeback may send the unit in pieces; awblk gathers
        # them into whole units where it can. What counts is the data.
        got = readback(dev, 2 * umax, umax)
        assert got == data, "untorn buffered write reads back wrong"
        print("ok: untorn, buffered write of one unit")
    finally:
        os.close(fd)


def main():
    dev, umax = sys.argv[1], int(sys.argv[2])
    if len(sys.argv) > 3 and sys.argv[3] == "untorn":
        untorn(dev, umax)
        return
    ioctl_paths(dev, umax)
    rwf_atomic(dev, umax)


if __name__ == "__main__":
    main()
