#!/bin/sh
# awblk over an awscsi disk: create, limits, one atomic write, remove.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
aw_insmod awblk || fail "insmod awblk"
insmod $AW_MOD/engines/scsi/awscsi_engine.ko || fail "insmod awscsi_engine"
aw_insmod awscsi dev_size_mb=32 sector_size=512 physblk_exp=5 atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=32 atomic_wr_gran=32 || fail insmod
disk=$(aw_disks awscsi) || fail "no disk"
python3 - /dev/$disk <<'PYEOF' || fail "smoke"
import os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
dev = A.create(sys.argv[1])
print("created", dev)
holder = "/sys/block/%s/holders/%s" % (os.path.basename(sys.argv[1]), os.path.basename(dev))
assert os.path.exists(holder), "no " + holder + ": lsblk would not show the stack"
print("ok:", holder)
fd = os.open(dev, os.O_RDWR)
lim = A.limits(fd)
print(lim)
assert lim["unit_min"] == 16384 and lim["unit_max"] == 65536, lim
data = os.urandom(65536)
A.atomic_write(fd, 65536, data)
os.lseek(fd, 65536, 0)
assert os.read(fd, 65536) == data
print("ok: atomic write reads back")
for f in ("engine", "lower", "untorn", "stats"):
    print(f, open("/sys/block/%s/awblk/%s" % (os.path.basename(dev), f)).read().strip())
for f in ("unit_min", "unit_max", "max", "boundary"):
    print(f, open("/sys/block/%s/queue/atomic_write_%s_bytes" % (os.path.basename(dev), f)).read().strip())
try:
    A.remove(int(dev[-1]))
    raise SystemExit("remove while open succeeded")
except OSError as e:
    print("ok: remove while open:", e)
os.close(fd)
A.remove(int(dev[-1]))
print("ok: removed")
PYEOF
grep -q "atomic_writes 1 " /sys/devices/awscsi/stats || { cat /sys/devices/awscsi/stats; fail "the atomic write did not reach the disk as WRITE ATOMIC(16)"; }
# Untorn mode: a run of whole units goes down as one atomic write, as large
# as the limits allow (a power of two aligned to its size); a write built of
# small scattered pieces goes one unit at a time. Each reads back.
python3 - /dev/$disk <<'PYEOF' || fail "untorn runs"
import mmap, os, re, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
dev = A.create(sys.argv[1], untorn=16384)
name = os.path.basename(dev)
def cmds():
    s = open("/sys/devices/awscsi/stats").read()
    return sum(int(x) for x in re.findall(r"atomic_writes (\d+)", s))
def units():
    s = open("/sys/block/%s/awblk/stats" % name).read()
    return int(re.search(r"untorn_units (\d+)", s).group(1))
fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 1 << 20)
# (offset, length, atomic commands, units): 64 KiB at 0 is one command of
# four units; 48 KiB is 32 + 16; 64 KiB at 16 KiB is 16 + 32 + 16.
for off, ln, nc, nu in ((0, 65536, 1, 4), (131072, 49152, 2, 3),
                        (262144 + 16384, 65536, 3, 4), (524288, 131072, 2, 8)):
    c0, u0 = cmds(), units()
    data = os.urandom(ln)
    buf[0:ln] = data
    assert os.pwrite(fd, memoryview(buf)[0:ln], off) == ln
    got = (cmds() - c0, units() - u0)
    assert got == (nc, nu), "%d KiB at %d: %s commands/units, want %s" % (ln >> 10, off, got, (nc, nu))
    os.preadv(fd, [memoryview(buf)[0:ln]], off)
    assert buf[0:ln] == data, "%d KiB at %d reads back wrong" % (ln >> 10, off)
    print("ok: %d KiB at %d: %d atomic writes, %d units" % (ln >> 10, off, nc, nu))
# 64 KiB from 128 pieces of 512 bytes with gaps between them in memory.
data = os.urandom(65536)
vecs = []
for i in range(128):
    buf[i * 1024:i * 1024 + 512] = data[i * 512:(i + 1) * 512]
    vecs.append(memoryview(buf)[i * 1024:i * 1024 + 512])
c0, u0 = cmds(), units()
assert os.pwritev(fd, vecs, 786432) == 65536
got = (cmds() - c0, units() - u0)
assert got == (4, 4), "scattered 64 KiB: %s commands/units, want (4, 4)" % (got,)
buf[0:65536] = bytes(65536)
os.preadv(fd, [memoryview(buf)[0:65536]], 786432)
assert buf[0:65536] == data, "scattered 64 KiB reads back wrong"
print("ok: 64 KiB from scattered 512-byte pieces: one atomic write per unit")
os.close(fd)
A.remove(int(dev[-1]))
PYEOF
aw_unload awscsi awscsi_engine awsw awblk || fail unload
