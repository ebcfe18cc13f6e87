"""The sw engine's on-disk format (engines/sw/sw_format.h) from Python, for the
guest cases: read the superblock, list the journal's records, corrupt them.

    awswdisk.py info LOWER            superblock fields and record count
    awswdisk.py corrupt LOWER SEED    1-4 random corruptions of the journal,
                                      one line each on stdout
    awswdisk.py sbcorrupt LOWER       flip one byte the superblock crc covers
"""
import fcntl
import os
import random
import struct
import sys

SB_MAGIC = b"AWKITSW1"
REC_MAGIC = b"AWJR"
BLKFLSBUF = 0x1261

_T = []
for _i in range(256):
    _c = _i
    for _k in range(8):
        _c = (_c >> 1) ^ (0x82F63B78 & -(_c & 1))
    _T.append(_c)


def crc32c(data, crc=0):
    """awsw_crc32c(): chainable, crc32c(b"123456789") == 0xE3069283."""
    c = crc ^ 0xFFFFFFFF
    t = _T
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def _pread(dev, off, n):
    fd = os.open(dev, os.O_RDONLY)
    try:
        # awblk writes the lower device past its page cache: drop it.
        fcntl.ioctl(fd, BLKFLSBUF, 0)
        return os.pread(fd, n, off)
    finally:
        os.close(fd)


def _pwrite(dev, off, data):
    fd = os.open(dev, os.O_RDWR)
    try:
        os.pwrite(fd, data, off)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_sb(dev):
    b = _pread(dev, 0, 4096)
    if b[:8] != SB_MAGIC:
        raise SystemExit("%s: no awkit superblock" % dev)
    f = struct.unpack_from("<II16sIIQQQQQI", b, 8)
    keys = ("version", "flags", "uuid", "lbs", "unit_max", "journal_start",
            "journal_size", "data_start", "data_size", "checkpoint", "crc")
    return dict(zip(keys, f))


def records(dev, sb):
    """(pos, len, seq, target) of every header in the journal whose magic,
    uuid and pos match (the data crc is not checked: too slow here)."""
    lbs = sb["lbs"]
    j = _pread(dev, sb["journal_start"], sb["journal_size"])
    out = []
    for pos in range(0, len(j) - lbs + 1, lbs):
        if j[pos:pos + 4] != REC_MAGIC:
            continue
        ln, seq, target, p, uuid = struct.unpack_from("<IQQQ16s", j, pos + 12)
        if p == pos and uuid == sb["uuid"] and 0 < ln <= sb["unit_max"]:
            out.append((pos, ln, seq, target))
    return out


def corrupt(dev, seed):
    """Corrupt the journal at random; returns what was done, one line each.
    Records whose header is rewritten with a good crc get values no valid
    record has (the header checks must refuse them, not the crc)."""
    rnd = random.Random(seed)
    sb = read_sb(dev)
    lbs, js, jsize = sb["lbs"], sb["journal_start"], sb["journal_size"]
    recs = records(dev, sb)
    done = []
    for _ in range(rnd.randint(1, 4)):
        kind = rnd.choice(["flip", "flip", "zero", "copy", "field", "badhdr",
                           "garbage"])
        if not recs and kind in ("flip", "zero", "copy", "field", "badhdr"):
            kind = "garbage"
        if kind == "garbage":
            off = rnd.randrange(jsize // lbs) * lbs
            data = bytes(rnd.getrandbits(8) for _ in range(lbs))
            if rnd.random() < 0.5:
                # A header-looking block: magic and this format's uuid.
                data = REC_MAGIC + data[4:40] + sb["uuid"] + data[56:]
            _pwrite(dev, js + off, data)
            done.append("garbage block at journal +%d" % off)
            continue
        pos, ln, seq, target = rnd.choice(recs)
        if kind == "flip":
            off = pos + rnd.randrange(lbs + ln)
            b = _pread(dev, js + off, 1)[0] ^ (1 << rnd.randrange(8))
            _pwrite(dev, js + off, bytes([b]))
            done.append("bit flip in the record of seq %d at +%d" % (seq, off - pos))
        elif kind == "zero":
            blk = rnd.randrange((lbs + ln) // lbs)
            _pwrite(dev, js + pos + blk * lbs, bytes(lbs))
            done.append("zeroed block %d of the record of seq %d" % (blk, seq))
        elif kind == "copy":
            src = rnd.choice(recs)
            img = _pread(dev, js + src[0], lbs + src[1])
            dst = rnd.randrange(jsize // lbs) * lbs
            img = img[:max(0, jsize - dst)]
            _pwrite(dev, js + dst, img)
            done.append("record of seq %d copied to journal +%d" % (src[2], dst))
        elif kind == "field":
            name, off, fmt = rnd.choice([("len", 12, "<I"), ("seq", 16, "<Q"),
                                         ("target", 24, "<Q")])
            old = struct.unpack(fmt, _pread(dev, js + pos + off, struct.calcsize(fmt)))[0]
            new = rnd.choice([old + 1, old ^ (1 << rnd.randrange(8 * struct.calcsize(fmt))),
                              old * 2, 0])
            new &= (1 << (8 * struct.calcsize(fmt))) - 1
            _pwrite(dev, js + pos + off, struct.pack(fmt, new))
            done.append("record of seq %d: %s %d -> %d (crc left)" % (seq, name, old, new))
        else:
            hdr = bytearray(_pread(dev, js + pos, lbs))
            data = _pread(dev, js + pos + lbs, ln)
            name, off, fmt, val = rnd.choice([
                ("len", 12, "<I", ln + lbs),                       # not a power of two
                ("len", 12, "<I", sb["unit_max"] * 2),             # too long
                ("len", 12, "<I", 0x80000000),                     # far past the journal
                ("target", 24, "<Q", sb["data_size"]),             # past the data area
                ("target", 24, "<Q", (1 << 64) - ln),              # wraps
                ("target", 24, "<Q", target + lbs if ln > lbs else target + 1),  # misaligned
                ("seq", 16, "<Q", 0),                              # seq 0
                ("pos", 32, "<Q", pos + lbs),                      # someone else's place
                ("version", 4, "<I", 2),
                ("flags", 8, "<I", 1)])
            struct.pack_into(fmt, hdr, off, val)
            struct.pack_into("<I", hdr, 56, 0)
            struct.pack_into("<I", hdr, 56, crc32c(bytes(hdr), crc32c(data)))
            _pwrite(dev, js + pos, bytes(hdr))
            done.append("record of seq %d: %s -> %d with a good crc" % (seq, name, val))
    return done


def sbcorrupt(dev):
    b = _pread(dev, 0, 4096)
    _pwrite(dev, 48, bytes([b[48] ^ 0x10]))


def main(a):
    if a[0] == "info":
        sb = read_sb(a[1])
        print("lbs=%d unit_max=%d journal=%d+%d data=%d+%d checkpoint=%d records=%d" % (
            sb["lbs"], sb["unit_max"], sb["journal_start"], sb["journal_size"],
            sb["data_start"], sb["data_size"], sb["checkpoint"], len(records(a[1], sb))))
    elif a[0] == "corrupt":
        for line in corrupt(a[1], int(a[2])):
            print(line)
    elif a[0] == "sbcorrupt":
        sbcorrupt(a[1])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
