"""SG_IO from Python for awkit's guest tests: send any CDB, get status,
sense and data back. Linux sg_io_hdr v3 on x86-64."""
import ctypes
import fcntl
import os
import struct

SG_IO = 0x2285
TO_DEV, FROM_DEV, NONE = -2, -3, -1
# interface_id, dxfer_direction, cmd_len, mx_sb_len, iovec_count, dxfer_len,
# dxferp, cmdp, sbp, timeout, flags, pack_id, usr_ptr, status, masked_status,
# msg_status, sb_len_wr, host_status, driver_status, resid, duration, info
HDR = "iiBBHIPPPIIiPBBBBHHiII"


class Result:
    def __init__(self, status, host, driver, sense, data, resid):
        self.status, self.host, self.driver = status, host, driver
        self.sense, self.data, self.resid = sense, data, resid

    @property
    def good(self):
        return self.status == 0 and self.host == 0 and self.driver == 0

    @property
    def key_asc(self):
        """(sense key, ASC, ASCQ) of fixed or descriptor sense, or None."""
        s = self.sense
        if len(s) < 8:
            return None
        if s[0] & 0x7f in (0x70, 0x71):
            return (s[2] & 0xf, s[12], s[13])
        return (s[1] & 0xf, s[2], s[3])

    @property
    def field_pointer(self):
        s = self.sense
        if len(s) >= 18 and s[0] & 0x7f == 0x70 and s[15] & 0x80:
            return struct.unpack(">H", s[16:18])[0]
        return None

    def __repr__(self):
        return "Result(status=%#x host=%d driver=%d sense=%s)" % (
            self.status, self.host, self.driver, self.key_asc)


def sg_io(fd, cdb, data_out=None, data_in_len=0, timeout_ms=30000):
    cdb_buf = ctypes.create_string_buffer(bytes(cdb), len(cdb))
    sense = ctypes.create_string_buffer(64)
    if data_out is not None:
        data = ctypes.create_string_buffer(bytes(data_out), len(data_out))
        direction, length = TO_DEV, len(data_out)
    elif data_in_len:
        data = ctypes.create_string_buffer(data_in_len)
        direction, length = FROM_DEV, data_in_len
    else:
        data, direction, length = None, NONE, 0
    hdr = bytearray(struct.pack(
        HDR, ord("S"), direction, len(cdb), 64, 0, length,
        ctypes.addressof(data) if data is not None else 0,
        ctypes.addressof(cdb_buf), ctypes.addressof(sense), timeout_ms,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    fcntl.ioctl(fd, SG_IO, hdr)
    f = struct.unpack(HDR, bytes(hdr))
    status, sb_len, host, driver, resid = f[13], f[16], f[17], f[18], f[19]
    got = data.raw[:length - resid] if direction == FROM_DEV else b""
    return Result(status, host, driver, sense.raw[:sb_len], got, resid)


def open_sg(path):
    return os.open(path, os.O_RDWR)


def be(v, n):
    return v.to_bytes(n, "big")


def read16(fd, lba, nblk, lbs):
    return sg_io(fd, [0x88, 0] + list(be(lba, 8)) + list(be(nblk, 4)) + [0, 0],
                 data_in_len=nblk * lbs)


def write16(fd, lba, data, lbs, fua=False):
    nblk = len(data) // lbs
    return sg_io(fd, [0x8a, 0x08 if fua else 0] + list(be(lba, 8)) +
                 list(be(nblk, 4)) + [0, 0], data_out=data)


def write_atomic16(fd, lba, data, lbs, boundary=0, nblk=None, fua=False):
    nblk = len(data) // lbs if nblk is None else nblk
    return sg_io(fd, [0x9c, 0x08 if fua else 0] + list(be(lba, 8)) +
                 list(be(boundary, 2)) + list(be(nblk, 2)) + [0, 0],
                 data_out=data)


class Checks:
    """Named checks: print ok/FAIL for each, count the failures."""

    def __init__(self):
        self.bad = 0

    def __call__(self, name, ok):
        print(("ok: " if ok else "FAIL: ") + name)
        self.bad += not ok

    def exit(self):
        raise SystemExit(1 if self.bad else 0)
