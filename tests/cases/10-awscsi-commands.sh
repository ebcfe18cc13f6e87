#!/bin/sh
# awscsi answers the SCSI commands it claims: VPD Block Limits with the atomic
# fields, REPORT SUPPORTED OPERATION CODES, WRITE ATOMIC(16) with the
# device-side checks and sense data, and bad input with the right sense.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
P="dev_size_mb=16 sector_size=512 physblk_exp=3 atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=8 atomic_wr_gran=8 atomic_wr_max_length_bndry=256 atomic_wr_max_bndry=64"
aw_insmod awscsi $P || fail "insmod awscsi $P"
disk=$(aw_disks awscsi) || fail "no awscsi disk"
sg=$(aw_sg $disk)
note "disk $disk sg $sg"
sg_vpd --page=bl $sg | tee /tmp/bl
field() { grep -i "$1" /tmp/bl | head -n 1 | sed 's/.*: *//; s/ .*//'; }
[ "$(field 'Maximum atomic transfer length:')" = 128 ] || fail "max atomic transfer length"
[ "$(field 'Atomic alignment')" = 8 ] || fail "atomic alignment"
[ "$(field 'Atomic transfer length granularity')" = 8 ] || fail "granularity"
[ "$(field 'Maximum atomic transfer length with')" = 256 ] || fail "max with boundary"
[ "$(field 'Maximum atomic boundary size')" = 64 ] || fail "max boundary"
echo "ok: sg_vpd --page=bl shows the configured atomic fields"
sg_opcodes $sg >/tmp/ops || fail "sg_opcodes"
grep -iE '^ *9c ' /tmp/ops || { cat /tmp/ops; fail "sg_opcodes does not list WRITE ATOMIC(16)"; }
echo "ok: sg_opcodes lists 9c"
sg_readcap --16 $sg | grep -q 'Logical blocks per physical block exponent=3' || fail "RC16 physical exponent"
sg_modes --page=8 $sg >/tmp/modes 2>&1 || true
sg_luns $sg | grep -q 'Lun list length = 8' || fail "REPORT LUNS"
echo "ok: READ CAPACITY(16), REPORT LUNS"

# sg_write_x sends a valid WRITE ATOMIC(16); read it back.
head -c 8192 /dev/urandom >/tmp/pat
sg_write_x --atomic=0 --lba=64 --num=16 --in=/tmp/pat $sg || fail "sg_write_x --atomic"
sg_dd if=$sg bs=512 skip=64 count=16 of=/tmp/back 2>/dev/null || fail "read back"
cmp /tmp/pat /tmp/back || fail "sg_write_x data did not read back"
echo "ok: sg_write_x --atomic wrote 16 blocks that read back"

python3 - "$sg" <<'PYEOF' || fail "WRITE ATOMIC(16) checks"
import os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
from awsg import *
fd = open_sg(sys.argv[1])
LBS = 512
check = Checks()
def expect_rejected(name, lba, nblk, boundary, key_asc, field=None, data_blocks=None):
    before = read16(fd, 0, 2048, LBS).data
    nb = nblk if data_blocks is None else data_blocks
    r = write_atomic16(fd, lba, os.urandom(nb * LBS), LBS, boundary=boundary, nblk=nblk)
    after = read16(fd, 0, 2048, LBS).data
    check("%s -> %s (got %s fp=%s)" % (name, key_asc, r.key_asc, r.field_pointer),
          r.status == 2 and r.key_asc == key_asc and
          (field is None or r.field_pointer == field))
    check(name + ": data unchanged", before == after)
ILL = 5
expect_rejected("misaligned LBA", 4, 8, 0, (ILL, 0x24, 0))
expect_rejected("length not a multiple of granularity", 8, 12, 0, (ILL, 0x24, 0))
expect_rejected("length over the maximum", 0, 136, 0, (ILL, 0x24, 0), 12)
expect_rejected("boundary over the maximum boundary", 0, 128, 72, (ILL, 0x24, 0), 12)
expect_rejected("length over the maximum with boundary", 0, 264, 64, (ILL, 0x24, 0), 12)
nblocks = 16 * 1024 * 1024 // LBS
expect_rejected("past the end of the disk", nblocks - 8, 16, 0, (ILL, 0x21, 0))
for lba, n, b in ((0, 128, 0), (8, 8, 0), (256, 256, 64), (nblocks - 128, 128, 0)):
    data = os.urandom(n * LBS)
    r = write_atomic16(fd, lba, data, LBS, boundary=b)
    check("valid atomic write lba=%d n=%d boundary=%d: %r" % (lba, n, b, r), r.good)
    check("  reads back", read16(fd, lba, n, LBS).data == data)
# Other commands' bad input.
r = sg_io(fd, [0x88, 0] + list(be(nblocks, 8)) + list(be(1, 4)) + [0, 0], data_in_len=LBS)
check("READ(16) past the end -> LBA out of range", r.key_asc == (ILL, 0x21, 0))
r = sg_io(fd, [0xc5] + [0] * 15)
check("unknown opcode -> invalid command operation code", r.key_asc == (ILL, 0x20, 0))
r = sg_io(fd, [0x12, 0x01, 0xb9, 0, 255, 0], data_in_len=255)
check("unknown VPD page -> invalid field in CDB", r.key_asc == (ILL, 0x24, 0))
r = sg_io(fd, [0x1a, 0, 0xc8, 0, 255, 0], data_in_len=255)
check("MODE SENSE saved values -> saving parameters not supported", r.key_asc == (ILL, 0x39, 0))
r = sg_io(fd, [0x1a, 0x08, 0x08, 0, 255, 0], data_in_len=255)
check("caching page WCE=0 without write_cache", r.good and r.data[4] == 8 and not r.data[6] & 4)
check("DPOFUA set", r.good and r.data[2] & 0x10)
r = sg_io(fd, [0xa3, 0x0c, 0x01, 0x9c, 0, 0, 0, 0, 1, 0, 0, 0], data_in_len=256)
check("REPORT OPCODES one command: 9c supported", r.good and r.data[1] & 7 == 3)
check("  its FUA bit usable, as DPOFUA says", r.good and r.data[5] & 0x08)
# SPC: REQUEST SENSE returns a pending UNIT ATTENTION and clears it.
with open("/sys/devices/awscsi/unit_attention", "w") as f:
    f.write("1")
r = sg_io(fd, [0x03, 0, 0, 0, 252, 0], data_in_len=252)
check("REQUEST SENSE reports a pending UNIT ATTENTION (got %r)" % (r.data[:14],),
      r.good and r.data[2] & 0x0f == 6 and r.data[12] == 0x29)
r = sg_io(fd, [0, 0, 0, 0, 0, 0])
check("  which it cleared: TEST UNIT READY is good", r.good)
r = sg_io(fd, [0x03, 0, 0, 0, 252, 0], data_in_len=252)
check("  and REQUEST SENSE says NO SENSE again", r.good and r.data[2] & 0x0f == 0)
check.exit()
PYEOF

# With atomic_wr=0 the command is unsupported and the fields are zero.
aw_unload awscsi || fail "unload"
aw_insmod awscsi dev_size_mb=16 || fail "insmod awscsi atomic_wr=0"
disk=$(aw_disks awscsi) || fail "no awscsi disk"
sg=$(aw_sg $disk)
sg_vpd --page=bl $sg >/tmp/bl
[ "$(field 'Maximum atomic transfer length:')" = 0 ] || fail "atomic_wr=0 reports a max atomic length"
sg_opcodes $sg >/tmp/ops
grep -iqE '^ *9c ' /tmp/ops && fail "atomic_wr=0 still lists 9c"
python3 - "$sg" <<'PYEOF' || fail "atomic_wr=0 checks"
import os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
from awsg import *
fd = open_sg(sys.argv[1])
before = read16(fd, 0, 64, 512).data
r = write_atomic16(fd, 0, os.urandom(16 * 512), 512)
print("atomic_wr=0: WRITE ATOMIC(16) ->", r)
assert r.key_asc == (5, 0x20, 0), r
assert read16(fd, 0, 64, 512).data == before
print("ok: atomic_wr=0 rejects WRITE ATOMIC(16) with invalid opcode, data unchanged")
PYEOF
aw_unload awscsi || fail "unload"
