"""awfsconc.py FILE SECONDS UNIT [check]: writers, readers and mmap users on
one awfs file at once.

The file is UNITS (64) units of UNIT bytes. Units belong to writers round
robin: an atomic writer (AW_IOC_ATOMIC_WRITE), a plain writer (pwrite of
the whole unit) and an mmap writer (a shared mapping, the whole unit
copied in); each rewrites its units with increasing versions, every
512-byte block stamped (unit, version). Readers read random units with
pread and through a mapping and check that every block belongs to that
unit (a read racing a write may see old and new bytes mixed, as buffered
I/O allows; zeros or another unit's data are errors).
At the end each writer's last versions are saved next to FILE (.state).
With "check", FILE (after an unmount with dirty data and a mount) must
hold exactly those last versions: every unit whole and current.
Prints one line; exit status 1 on any error.
"""
import mmap
import os
import random
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import awblkio as A  # noqa: E402

UNITS = 64
MAGIC = 0x61776663


def block(unit, version, i):
    head = struct.pack("=IIII", MAGIC, unit, version, i)
    return head + bytes([(unit * 7 + version * 13 + i) & 0xff]) * (512 - len(head))


def unit_data(unit, version, size):
    return b"".join(block(unit, version, i) for i in range(size // 512))


def ours(data, unit, size):
    """Is every block of data one of unit's? A read racing a write may see
    a block half copied (buffered I/O promises no more; read() takes no
    page lock), so only the fields no rewrite changes are compared: the
    magic, the unit and the block's index. Zeros or another unit's data
    fail."""
    for i in range(size // 512):
        magic, u, _, j = struct.unpack("=IIII", data[i * 512:i * 512 + 16])
        if magic != MAGIC or u != unit or j != i:
            return False
    return True


def versions_of(data, unit, size):
    """The versions of data's blocks, or None when one is not ours."""
    vs = []
    for i in range(size // 512):
        b = data[i * 512:(i + 1) * 512]
        magic, u, v, j = struct.unpack("=IIII", b[:16])
        if magic != MAGIC or u != unit or j != i or b != block(u, v, i):
            return None
        vs.append(v)
    return vs


def main():
    path, seconds, size = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    state = path + ".state"
    if len(sys.argv) > 4:
        return check(path, size, state)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    for u in range(UNITS):
        os.pwrite(fd, unit_data(u, 0, size), u * size)
    os.fsync(fd)
    last = [0] * UNITS
    errors = []
    stop = time.time() + seconds
    counts = {"atomic": 0, "plain": 0, "mmap": 0, "read": 0, "mapread": 0}

    def writer(kind):
        mine = [u for u in range(UNITS) if u % 3 == ["atomic", "plain", "mmap"].index(kind)]
        wfd = os.open(path, os.O_RDWR)
        m = mmap.mmap(wfd, UNITS * size) if kind == "mmap" else None
        try:
            while time.time() < stop:
                u = random.choice(mine)
                v = last[u] + 1
                d = unit_data(u, v, size)
                if kind == "atomic":
                    A.atomic_write(wfd, u * size, d)
                elif kind == "plain":
                    os.pwrite(wfd, d, u * size)
                else:
                    m[u * size:(u + 1) * size] = d
                    if v % 16 == 0:
                        m.flush()
                last[u] = v
                counts[kind] += 1
        except Exception as e:  # noqa: BLE001
            errors.append("%s writer: %r" % (kind, e))
        finally:
            if m:
                m.close()
            os.close(wfd)

    def reader(mapped):
        rfd = os.open(path, os.O_RDONLY)
        m = mmap.mmap(rfd, UNITS * size, prot=mmap.PROT_READ) if mapped else None
        try:
            while time.time() < stop:
                u = random.randrange(UNITS)
                d = m[u * size:(u + 1) * size] if mapped else os.pread(rfd, size, u * size)
                if not ours(d, u, size):
                    errors.append("reader saw garbage in unit %d" % u)
                    return
                counts["mapread" if mapped else "read"] += 1
        finally:
            if m:
                m.close()
            os.close(rfd)

    threads = [threading.Thread(target=writer, args=(k,)) for k in ("atomic", "plain", "mmap")]
    threads += [threading.Thread(target=reader, args=(m,)) for m in (False, True, False)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    os.close(fd)
    with open(state, "w") as f:
        f.write(" ".join(map(str, last)))
    print("awfsconc: %s%s" % (" ".join("%s=%d" % kv for kv in sorted(counts.items())),
                             "" if not errors else " errors: " + "; ".join(errors[:5])))
    if errors or min(counts.values()) == 0:
        return 1
    return 0


def check(path, size, state):
    last = list(map(int, open(state).read().split()))
    with open(path, "rb") as f:
        data = f.read()
    if len(data) != UNITS * size:
        print("awfsconc check: size %d, not %d" % (len(data), UNITS * size))
        return 1
    bad = []
    for u in range(UNITS):
        vs = versions_of(data[u * size:(u + 1) * size], u, size)
        if vs is None or set(vs) != {last[u]}:
            bad.append("unit %d: %s, want version %d" % (u, "garbage" if vs is None else sorted(set(vs)), last[u]))
    print("awfsconc check: %d units, %d wrong%s" % (UNITS, len(bad), (": " + "; ".join(bad[:5])) if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
