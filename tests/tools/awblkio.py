"""The awblk ioctls from Python (layouts of include/uapi/awkit.h), for tests."""
import ctypes
import fcntl
import os
import struct

MAGIC = 0xA7
ENGINES = {"auto": 0, "none": 1, "scsi": 2, "nvme": 3, "sw": 4}
CREATE_FMT = "=IIIIQQIIQ6I"    # 72 bytes
REMOVE_FMT = "=8I"             # 32
LIMITS_FMT = "=8IQ8I"          # 72
WRITE_FMT = "=QQQII4Q"         # 64
DSYNC, SYNC = 1, 2


def _ioc(d, nr, size):
    return (d << 30) | (size << 16) | (MAGIC << 8) | nr


IOC_CREATE = _ioc(3, 1, struct.calcsize(CREATE_FMT))
IOC_REMOVE = _ioc(1, 2, struct.calcsize(REMOVE_FMT))
IOC_GET_LIMITS = _ioc(2, 16, struct.calcsize(LIMITS_FMT))
IOC_ATOMIC_WRITE = _ioc(1, 17, struct.calcsize(WRITE_FMT))


def create(lower, engine="auto", unit_max=0, untorn=0, flags=0, reserved=None,
           hwinfo=None, hwinfo_len=None, hwinfo_addr=None):
    """hwinfo: bytes handed to the engine (e.g. nvme_id()); the length and
    address can be forced to test the kernel's checks."""
    st = os.stat(lower)
    hbuf = ctypes.create_string_buffer(hwinfo, len(hwinfo)) if hwinfo else None
    addr = hwinfo_addr if hwinfo_addr is not None else (ctypes.addressof(hbuf) if hbuf else 0)
    hlen = hwinfo_len if hwinfo_len is not None else (len(hwinfo) if hwinfo else 0)
    buf = bytearray(struct.pack(CREATE_FMT, os.major(st.st_rdev), os.minor(st.st_rdev),
                                ENGINES[engine], flags, unit_max, untorn, 0, hlen, addr,
                                *(reserved or [0] * 6)))
    fd = os.open("/dev/awblk-control", os.O_RDWR)
    try:
        fcntl.ioctl(fd, IOC_CREATE, buf)
    finally:
        os.close(fd)
    return "/dev/awblk%d" % struct.unpack(CREATE_FMT, bytes(buf))[6]


HWINFO_NVME_ID = 1


def nvme_id(ctrl, ns, nsid=1, type_=HWINFO_NVME_ID, reserved=0):
    """struct aw_nvme_id from 4096-byte Identify Controller and Namespace data."""
    return struct.pack("=IIQ", type_, nsid, reserved) + bytes(ctrl) + bytes(ns)


def remove(index, flags=0):
    fd = os.open("/dev/awblk-control", os.O_RDWR)
    try:
        fcntl.ioctl(fd, IOC_REMOVE, struct.pack(REMOVE_FMT, index, flags, *[0] * 6))
    finally:
        os.close(fd)


def limits(fd):
    buf = bytearray(struct.calcsize(LIMITS_FMT))
    fcntl.ioctl(fd, IOC_GET_LIMITS, buf)
    f = struct.unpack(LIMITS_FMT, bytes(buf))
    keys = ("unit_min", "unit_max", "max_bytes", "boundary", "segments_max",
            "engine", "untorn", "logical_block_size", "size")
    return dict(zip(keys, f[:9]))


def atomic_write(fd, offset, data, flags=0, reserved0=0, reserved=None, addr=None, length=None):
    """Returns 0 or raises OSError with the kernel's errno."""
    cbuf = ctypes.create_string_buffer(bytes(data), len(data)) if data is not None else None
    a = addr if addr is not None else ctypes.addressof(cbuf)
    n = length if length is not None else len(data)
    arg = struct.pack(WRITE_FMT, offset, a, n, flags, reserved0, *(reserved or [0] * 4))
    fcntl.ioctl(fd, IOC_ATOMIC_WRITE, arg)
    return 0
