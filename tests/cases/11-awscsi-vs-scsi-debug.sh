#!/bin/sh
# The kernel's own sd driver as the client: awscsi and the kernel's
# scsi_debug, loaded with the same parameter string in the same guest, give sd
# the same queue limits, and (6.12) pwritev2(RWF_ATOMIC) on O_DIRECT succeeds
# or fails the same way on both. On 6.1, which has no atomic limits, the
# non-atomic limits must agree and RWF_ATOMIC is refused by both.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
native=0
aw_kernel_at_least 6 11 && native=1
Q=/sys/block
ATTRS="logical_block_size physical_block_size max_hw_sectors_kb max_segments optimal_io_size"
[ $native = 1 ] && ATTRS="$ATTRS atomic_write_unit_min_bytes atomic_write_unit_max_bytes atomic_write_max_bytes atomic_write_boundary_bytes"
set -- \
	"dev_size_mb=16 sector_size=512 atomic_wr=1" \
	"dev_size_mb=16 sector_size=4096 physblk_exp=2 atomic_wr=1 atomic_wr_max_length=16 atomic_wr_align=4 atomic_wr_gran=4" \
	"dev_size_mb=16 sector_size=512 physblk_exp=3 atomic_wr=1 atomic_wr_max_length=0 atomic_wr_max_length_bndry=64 atomic_wr_max_bndry=32 atomic_wr_align=8 atomic_wr_gran=8" \
	"dev_size_mb=16 sector_size=512 physblk_exp=5 atomic_wr=1 atomic_wr_max_length=64 atomic_wr_align=32 atomic_wr_gran=32"
for P in "$@"; do
	note "parameters: $P"
	sdp=$P
	[ $native = 1 ] || sdp=$(echo "$P" | sed 's/atomic_wr[a-z_]*=[0-9]*//g')
	modprobe scsi_debug $sdp delay=0 || fail "modprobe scsi_debug $sdp"
	aw_insmod awscsi $P delay=0 || fail "insmod awscsi $P delay=0"
	a=$(aw_disks awscsi) || fail "no awscsi disk"
	s=$(aw_disks scsi_debug) || fail "no scsi_debug disk"
	for attr in $ATTRS; do
		va=$(cat $Q/$a/queue/$attr) vs=$(cat $Q/$s/queue/$attr)
		echo "  $attr: awscsi=$va scsi_debug=$vs"
		[ "$va" = "$vs" ] || fail "$attr differs for '$P'"
	done
	if [ $native = 1 ]; then
		[ "$(cat $Q/$a/queue/atomic_write_unit_max_bytes)" -gt 0 ] ||
			fail "no atomic support derived for '$P'"
	fi
	python3 - /dev/$a /dev/$s $(cat $Q/$a/queue/logical_block_size) $native <<'PYEOF' || fail "RWF_ATOMIC differs for '$P'"
import mmap, os, sys
a, s, lbs, native = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
q = lambda d, n: int(open("/sys/block/%s/queue/%s" % (os.path.basename(d), n)).read()) if native else 0
umin = q(a, "atomic_write_unit_min_bytes") or lbs
umax = q(a, "atomic_write_unit_max_bytes") or 4 * lbs
cases = [("unit_min", [umin], 0), ("unit_max", [umax], 0),
         ("unit_max plus one block", [umax + lbs], 0),
         ("misaligned", [umax], lbs),
         ("non-power-of-two", [3 * lbs], 0),
         ("two iovecs", [umax // 2, umax // 2], 0)]
if umin > lbs:
    cases.append(("unit_min minus one block", [umin - lbs], 0))
def run(dev):
    out = []
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    for name, sizes, off in cases:
        bufs = []
        for n in sizes:
            m = mmap.mmap(-1, n)
            m.write(os.urandom(n))
            bufs.append(m)
        try:
            r = os.pwritev(fd, bufs, off, 0x40)
            res = "ok %d" % r
            back = os.preadv(fd, [mmap.mmap(-1, sum(sizes))], off)
        except OSError as e:
            res = "errno %s" % os.strerror(e.errno)
        out.append((name, res))
    os.close(fd)
    return out
ra, rs = run(a), run(s)
bad = 0
for (name, x), (_, y) in zip(ra, rs):
    print("  RWF_ATOMIC %-26s awscsi: %-22s scsi_debug: %s" % (name, x, y))
    bad += x != y
if not native:
    bad += any(not x.startswith("errno") for _, x in ra)
if native:
    want = {"unit_min": "ok", "unit_max": "ok", "unit_max plus one block": "errno",
            "misaligned": "errno", "two iovecs": "errno", "unit_min minus one block": "errno"}
    for name, x in ra:
        if name in want and not x.startswith(want[name]):
            print("FAIL: %s should be %s" % (name, want[name]))
            bad += 1
sys.exit(1 if bad else 0)
PYEOF
	aw_unload awscsi scsi_debug || fail "unload"
done
echo "ok: awscsi and scsi_debug agree for $# parameter sets"
