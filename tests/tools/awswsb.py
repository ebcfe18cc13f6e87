"""The software engine's superblock (engines/sw/sw_format.h) from Python, for
tests: written from the format description, not from the C code, so the
two check each other.

    python3 awswsb.py show DEV|IMAGE         the fields, one "key value" a line
    python3 awswsb.py set DEV|IMAGE KEY=VALUE...   change fields, new crc
    python3 awswsb.py flip DEV|IMAGE OFFSET  invert one byte (crc left as is)

Reads and writes of a block device use O_DIRECT, so what they see is the
disk, not a page cache another opener may have left stale.
"""
import mmap
import os
import stat
import struct
import sys

MAGIC = b"AWKITSW1"
SIZE = 4096
# name, offset, struct format (little-endian)
FIELDS = [
    ("version", 8, "<I"), ("flags", 12, "<I"), ("uuid", 16, "16s"),
    ("lbs", 32, "<I"), ("unit_max", 36, "<I"),
    ("journal_start", 40, "<Q"), ("journal_size", 48, "<Q"),
    ("data_start", 56, "<Q"), ("data_size", 64, "<Q"),
    ("checkpoint_seq", 72, "<Q"), ("crc", 80, "<I"),
]
USED = 84


def _crc_byte(c):
    for _ in range(8):
        c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    return c


_TABLE = [_crc_byte(i) for i in range(256)]


def crc32c(data, crc=0):
    """crc32c, reflected polynomial 0x82F63B78: crc32c(b"123456789") is
    0xE3069283."""
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def sb_crc(buf):
    """The crc the superblock in buf should carry (its crc field as zero)."""
    return crc32c(bytes(buf[:80]) + b"\0" * 4 + bytes(buf[84:SIZE]))


def decode(buf):
    """The fields of the superblock at the start of buf, plus "magic",
    "crc_ok" and "reserved_zero"."""
    f = {"magic": bytes(buf[:8])}
    for name, off, fmt in FIELDS:
        f[name] = struct.unpack_from(fmt, buf, off)[0]
    f["crc_ok"] = f["crc"] == sb_crc(buf)
    f["reserved_zero"] = not any(buf[USED:SIZE])
    return f


def encode(f):
    """4096 bytes of superblock from fields f, with a fresh crc unless f
    says "keep_crc"."""
    buf = bytearray(SIZE)
    buf[:8] = f.get("magic", MAGIC)
    for name, off, fmt in FIELDS:
        if name != "crc":
            struct.pack_into(fmt, buf, off, f[name])
    crc = f["crc"] if f.get("keep_crc") else sb_crc(buf)
    struct.pack_into("<I", buf, 80, crc)
    return bytes(buf)


def _is_blk(path):
    return stat.S_ISBLK(os.stat(path).st_mode)


def read(path, off=0, length=SIZE):
    """length bytes at off (both multiples of 4096 for a block device)."""
    if not _is_blk(path):
        with open(path, "rb") as fh:
            fh.seek(off)
            return fh.read(length)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        buf = mmap.mmap(-1, length)
        n = os.preadv(fd, [buf], off)
        return bytes(buf[:n])
    finally:
        os.close(fd)


def write(path, data, off=0):
    if not _is_blk(path):
        with open(path, "r+b") as fh:
            fh.seek(off)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        return
    fd = os.open(path, os.O_WRONLY | os.O_DIRECT | os.O_SYNC)
    try:
        buf = mmap.mmap(-1, len(data))
        buf[:] = data
        assert os.pwritev(fd, [buf], off) == len(data)
    finally:
        os.close(fd)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("show", "set", "flip"):
        sys.exit(__doc__)
    path = argv[2]
    buf = bytearray(read(path))
    if argv[1] == "show":
        for k, v in decode(buf).items():
            if k == "magic":
                v = v.decode("ascii", "backslashreplace")
            elif isinstance(v, bytes):
                v = v.hex()
            elif isinstance(v, bool):
                v = int(v)
            print(k, v)
    elif argv[1] == "set":
        f = decode(buf)
        for kv in argv[3:]:
            k, v = kv.split("=", 1)
            if k not in f or k in ("crc_ok", "reserved_zero"):
                sys.exit("awswsb: no field " + k)
            if k == "magic":
                f[k] = v.encode()
            elif k == "uuid":
                f[k] = bytes.fromhex(v)
            else:
                f[k] = int(v, 0)
                if k == "crc":
                    f["keep_crc"] = True
        write(path, encode(f))
    else:
        off = int(argv[3], 0)
        buf[off] ^= 0xFF
        write(path, bytes(buf))


if __name__ == "__main__":
    main(sys.argv)
