#!/bin/sh
# Power-fail injection: unflushed cached writes can vanish, flushed and FUA
# writes survive, a normal write in flight at the cut is torn, an atomic one
# lands whole or not at all, and across hundreds of cuts no atomic write is
# ever torn while the same run with normal writes finds torn units.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
CTL=/sys/devices/awscsi
aw_insmod awscsi dev_size_mb=8 write_cache=1 atomic_wr=1 atomic_wr_max_length=64 || fail insmod
disk=$(aw_disks awscsi) || fail "no disk"
sg=$(aw_sg $disk)
sg_modes --page=8 $sg | grep -q 'WCE *1' || sg_modes --page=8 $sg | grep -i wce
python3 - "$sg" <<'PYEOF' || fail "power-fail semantics"
import os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
from awsg import *
CTL = "/sys/devices/awscsi/"
def ctl(name, val):
    with open(CTL + name, "w") as f:
        f.write(val)
fd = open_sg(sys.argv[1])
L = 512
check = Checks()
sync = lambda: sg_io(fd, [0x35] + [0] * 9)
r = sg_io(fd, [0x1a, 0x08, 0x08, 0, 255, 0], data_in_len=255)
check("caching page reports WCE=1 with write_cache=1", r.good and r.data[6] & 4)
A, B, C, D = (bytes([x]) * L for x in (0xaa, 0xbb, 0xcc, 0xdd))
# 64 separate blocks: A flushed, then B unflushed; C flushed; D with FUA.
for i in range(64):
    write16(fd, 2 * i, A, L)
check("SYNCHRONIZE CACHE", sync().good)
for i in range(64):
    write16(fd, 2 * i, B, L)
    write16(fd, 1000 + i, C, L)
    write16(fd, 2000 + i, D, L, fua=True)
check("SYNCHRONIZE CACHE", sync().good)
for i in range(64):
    write16(fd, 3000 + i, B, L)
ctl("powered", "0")
r = read16(fd, 0, 1, L)
check("commands fail while the power is off (host status %d)" % r.host, not r.good and r.host == 1)
ctl("powered", "1")
lost = sum(read16(fd, 3000 + i, 1, L).data != B for i in range(64))
check("unflushed writes can vanish: %d of 64 lost" % lost, 0 < lost < 64)
check("flushed writes survive", all(read16(fd, 2 * i, 1, L).data == B and
                                    read16(fd, 1000 + i, 1, L).data == C for i in range(64)))
check("FUA writes survive", all(read16(fd, 2000 + i, 1, L).data == D for i in range(64)))
# A normal 64-block write in flight at the cut is torn.
old, new = b"\x11" * (64 * L), b"\x22" * (64 * L)
write16(fd, 4096, old, L, fua=True)
ctl("cut_after", "0")
r = write16(fd, 4096, new, L, fua=True)
check("the write in flight at the cut fails", not r.good)
ctl("powered", "1")
got = read16(fd, 4096, 64, L).data
check("a normal write cut mid-flight is found torn", got != old and got != new)
# An atomic write in flight lands whole or not at all, both outcomes seen.
seen = set()
for k in range(40):
    old, new = bytes([k]) * (64 * L), bytes([k + 100]) * (64 * L)
    write_atomic16(fd, 4096, old, L, fua=True)
    ctl("cut_after", "0")
    write_atomic16(fd, 4096, new, L, fua=True)
    ctl("powered", "1")
    got = read16(fd, 4096, 64, L).data
    seen.add("old" if got == old else "new" if got == new else "TORN")
check("atomic writes cut in flight land whole or not at all: %s" % sorted(seen),
      seen == {"old", "new"})
check.exit()
PYEOF
T=$AWKIT_ROOT/build/tools/awtorn
seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
out=$($T crash $sg 512 32 64 250 atomic $CTL $seed) || fail "awtorn crash atomic"
echo "$out"
case "$out" in *" torn=0 lost=0 "*) ;; *) fail "atomic writes torn or lost across power cuts: $out" ;; esac
out=$($T crash $sg 512 32 64 60 normal $CTL $seed) || fail "awtorn crash normal"
echo "$out"
torn=$(echo "$out" | sed 's/.* torn=\([0-9]*\).*/\1/')
[ "$torn" -gt 0 ] || fail "normal writes never tore: the crash test has no teeth"
echo "ok: $(cat $CTL/cuts) power cuts, no torn atomic write; normal writes tore $torn times"
cat $CTL/stats
