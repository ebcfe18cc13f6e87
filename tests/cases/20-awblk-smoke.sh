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
aw_unload awscsi awscsi_engine awsw awblk || fail unload
