#!/usr/bin/python3
"""awscsi's latency model, through SG_IO (one command at a time, timed).

    awlatency.py SG NDELAY_NS FLUSH_NS WCE   medians of READ, WRITE, FUA
        WRITE and SYNCHRONIZE CACHE against the loaded delays
    awlatency.py SG cut LATENCY_NS write|atomic|sync   a command in flight
        on its timer when the power is cut fails
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from awsg import (Checks, open_sg, read16, sg_io, write16,  # noqa: E402
                  write_atomic16)

CTL = "/sys/devices/awscsi/"
L = 512
check = Checks()


def timed(fn):
    t = time.monotonic_ns()
    r = fn()
    return time.monotonic_ns() - t, r


def median_ns(fn, n=5):
    times = []
    for _ in range(n):
        ns, r = timed(fn)
        if not r.good:
            raise SystemExit("command failed: %r" % r)
        times.append(ns)
    return sorted(times)[n // 2]


def sync(fd):
    return sg_io(fd, [0x35] + [0] * 9)


def latencies(fd, base, flush, wce):
    ms = lambda ns: "%.1f ms" % (ns / 1e6)
    data = b"\x5a" * (8 * L)
    cost = flush if wce else 0
    rd = median_ns(lambda: read16(fd, 0, 8, L))
    wr = median_ns(lambda: write16(fd, 0, data, L))
    fua = median_ns(lambda: write16(fd, 0, data, L, fua=True))
    sy = median_ns(lambda: sync(fd))
    slack = base / 2 + 5e6 * int(os.environ.get("AW_SLOW", "1"))
    print("-- medians: read %s, write %s, FUA write %s, sync %s" %
          (ms(rd), ms(wr), ms(fua), ms(sy)))
    check("a read takes the latency, and no flush time (%s)" % ms(rd),
          base <= rd < base + slack)
    check("a plain write takes the latency, and no flush time (%s)" % ms(wr),
          base <= wr < base + slack)
    if wce:
        check("a FUA write pays the flush time (%s)" % ms(fua),
              fua >= base + cost)
        check("SYNCHRONIZE CACHE pays the flush time (%s)" % ms(sy),
              sy >= base + cost)
    else:
        check("without a write cache, FUA costs nothing more (%s)" % ms(fua),
              base <= fua < base + slack)
        check("without a write cache, a flush costs nothing more (%s)" %
              ms(sy), base <= sy < base + slack)


def counter(name):
    with open(CTL + "stats") as f:
        w = f.readline().split()
    return int(w[w.index(name) + 1])


def ctl(name, val):
    with open(CTL + name, "w") as f:
        f.write(val)


def cut_in_flight(sg, lat, kind):
    """
    A child sends one command; the parent cuts the power as soon as the
    disk has done its media work (its counter moved). When the cut is done
    sooner than the latency after the poll that first saw the command
    began, the command was on its timer at the cut, and must fail. Returns
    None when a slow machine made the try inconclusive.
    """
    name = {"write": "writes", "atomic": "atomic_writes",
            "sync": "flushes"}[kind]
    data = b"\xc3" * (16 * L)
    before = counter(name)
    pid = os.fork()
    if pid == 0:
        fd = open_sg(sg)
        if kind == "write":
            r = write16(fd, 64, data, L)
        elif kind == "atomic":
            r = write_atomic16(fd, 64, data, L)
        else:
            r = sync(fd)
        os._exit(0 if r.good else 3)
    deadline = time.monotonic_ns() + 30 * 10**9
    while True:
        # The command arrived after t0 when this read is the first to see
        # it, so its timer fires after t0 + lat.
        t0 = time.monotonic_ns()
        if counter(name) != before:
            break
        if t0 > deadline:
            raise SystemExit("the %s never reached the disk" % kind)
    ctl("powered", "0")
    t_cut = time.monotonic_ns()
    _, status = os.waitpid(pid, 0)
    ctl("powered", "1")
    if t_cut - t0 >= lat:
        return None
    return os.waitstatus_to_exitcode(status)


def main():
    sg = sys.argv[1]
    if sys.argv[2] == "cut":
        lat, kind = int(sys.argv[3]), sys.argv[4]
        for _ in range(5):
            rc = cut_in_flight(sg, lat, kind)
            if rc is not None:
                what = {"write": "a write", "atomic": "an atomic write",
                        "sync": "a cache flush"}[kind]
                check("%s on its timer at the cut fails (child exit %d)" %
                      (what, rc), rc == 3)
                check.exit()
            print("-- inconclusive try (the poll was slow): again")
        raise SystemExit("five inconclusive tries")
    fd = open_sg(sg)
    latencies(fd, int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1")
    check.exit()


main()
