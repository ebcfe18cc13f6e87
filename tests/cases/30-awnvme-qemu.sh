#!/bin/sh
# awnvme over QEMU's emulated NVMe controllers (AWUN = AWUPF = 0): the
# atomic unit is one logical block, for 512 and 4096-byte LBA formats, and a
# larger atomic write is EINVAL with the data unchanged; on 6.12 the limits
# equal the kernel's own for the namespace. Junk, foreign or misplaced
# Identify data is refused with a reason and creates nothing. Untorn units
# reach the namespace one command each, never merged (block layer tracing).
. "$AWKIT_ROOT/tests/qemu/lib.sh"
AWCTL=$AWKIT_ROOT/build/tools/awctl
modprobe nvme || fail "modprobe nvme"
aw_load_awnvme || fail "load awblk and awnvme"
set -- $(aw_nvme_disks QEMU 2) || fail "QEMU's NVMe namespaces did not appear"
[ "$(cat /sys/block/$1/queue/logical_block_size)" = 512 ] &&
	[ "$(cat /sys/block/$2/queue/logical_block_size)" = 4096 ] ||
	fail "want namespaces with 512 and 4096-byte blocks: $*"
ns512=$1 ns4k=$2

field() { echo "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }

for ns in $ns512 $ns4k; do
	lbs=$(cat /sys/block/$ns/queue/logical_block_size)
	dev=$($AWCTL create /dev/$ns) || fail "awctl create /dev/$ns"
	info=$($AWCTL info $dev) || fail "awctl info $dev"
	echo "$info" | sed "s/^/$ns: /"
	[ "$(field "$info" engine)" = nvme ] || fail "$ns: engine is not nvme"
	for k in unit_min unit_max max_bytes; do
		[ "$(field "$info" atomic_write_$k)" = "$lbs" ] ||
			fail "$ns: atomic_write_$k is not $lbs"
	done
	[ "$(field "$info" atomic_write_boundary)" = 0 ] || fail "$ns: boundary"
	echo "ok: $ns ($lbs-byte blocks): atomic unit $lbs..$lbs, max $lbs, no boundary"
	if aw_kernel_at_least 6 11; then
		q=/sys/block/$ns/queue
		for k in unit_min unit_max max; do
			[ "$(cat $q/atomic_write_${k}_bytes)" = "$(field "$info" atomic_write_$([ $k = max ] && echo max_bytes || echo $k))" ] ||
				fail "$ns: the kernel's atomic_write_${k}_bytes $(cat $q/atomic_write_${k}_bytes) differs from awnvme's"
		done
		[ "$(cat $q/atomic_write_boundary_bytes)" = 0 ] || fail "$ns: kernel boundary"
		echo "ok: $ns: the same limits as the kernel's own queue limits"
	fi
	python3 - $dev $lbs <<'PYEOF' || fail "$ns: atomic writes"
import errno, mmap, os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
from awsg import Checks
dev, lbs = sys.argv[1], int(sys.argv[2])
native = not os.uname().release.startswith("6.1.")
check = Checks()
fd = os.open(dev, os.O_RDWR)
def read(off, n):
    os.lseek(fd, off, 0)
    return os.read(fd, n)
def ioctl(off, data):
    try:
        A.atomic_write(fd, off, data)
        return 0
    except OSError as e:
        return e.errno
new = os.urandom(lbs)
check("one block at block 5: ok", ioctl(5 * lbs, new) == 0)
check("one block at block 5: read back", read(5 * lbs, lbs) == new)
before = read(0, 64 * lbs)
for n, off, what in ((2 * lbs, 8 * lbs, "two blocks"), (lbs, lbs // 2 if lbs > 512 else 1, "misaligned"),
                     (16 * lbs, 16 * lbs, "16 blocks")):
    if n % 512 or off % 512:
        continue
    check("%s -> EINVAL" % what, ioctl(off, os.urandom(n)) == errno.EINVAL)
check("rejections left the data unchanged", read(0, 64 * lbs) == before)
if native:
    dfd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    for n, want in ((lbs, None), (2 * lbs, errno.EINVAL)):
        m = mmap.mmap(-1, n)
        m.write(os.urandom(n))
        try:
            os.pwritev(dfd, [m], 12 * lbs, 0x40)
            got = None
        except OSError as e:
            got = e.errno
        check("RWF_ATOMIC %d bytes -> %s" % (n, errno.errorcode.get(want, "ok")), got == want)
        if want is None:
            check("RWF_ATOMIC data read back", read(12 * lbs, n) == bytes(m))
    os.close(dfd)
check.exit()
PYEOF
	$AWCTL remove $dev || fail "remove $dev"
done

# Identify data: the real thing from nvme-cli, then broken copies of it.
nvme id-ctrl -b /dev/$ns4k >/tmp/ctrl.bin && nvme id-ns -b /dev/$ns4k >/tmp/ns.bin ||
	fail "nvme id-ctrl/id-ns -b"
aw_insmod awscsi dev_size_mb=16 || fail "insmod awscsi"
sd=$(aw_disks awscsi) || fail "no awscsi disk"
python3 - /dev/$ns4k /dev/$ns512 /dev/$sd <<'PYEOF' || fail "Identify data checks"
import ctypes, errno, glob, os, subprocess, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
from awsg import Checks
ns, other, sd = sys.argv[1:4]
check = Checks()
ctrl = bytearray(open("/tmp/ctrl.bin", "rb").read())
nsd = bytearray(open("/tmp/ns.bin", "rb").read())
check("identify data is 4096 + 4096 bytes", (len(ctrl), len(nsd)) == (4096, 4096))
def devices():
    return sorted(glob.glob("/sys/block/awblk*"))
def create(lower, **kw):
    try:
        d = A.create(lower, **kw)
    except OSError as e:
        return e.errno
    A.remove(int(d[len("/dev/awblk"):]))
    return 0
good = A.nvme_id(ctrl, nsd)
check("the real data is taken (engine nvme)", create(ns, engine="nvme", hwinfo=good) == 0)
def mut(off, val):
    n = bytearray(nsd)
    n[off] = val
    return A.nvme_id(ctrl, n)
nlbaf = nsd[25]
cases = [
    ("wrong type", A.nvme_id(ctrl, nsd, type_=2), errno.EINVAL),
    ("reserved set", A.nvme_id(ctrl, nsd, reserved=1), errno.EINVAL),
    ("truncated", good[:100], errno.EINVAL),
    ("FLBAS past NLBAF", mut(26, (nlbaf + 1) & 0x0f if nlbaf < 15 else 0x0f), errno.EINVAL),
    ("NSZE of another size", mut(3, nsd[3] ^ 0x01), errno.EINVAL),
    ("LBA format of 512 bytes over a 4096-byte namespace", mut(128 + 4 * (nsd[26] & 0x0f) + 2, 9), errno.EINVAL),
    ("LBADS 40", mut(128 + 4 * (nsd[26] & 0x0f) + 2, 40), errno.EINVAL),
]
for what, data, want in cases:
    got = create(ns, engine="nvme", hwinfo=data)
    check("%s -> %s" % (what, errno.errorcode.get(want)), got == want)
    got = create(ns, engine="auto", hwinfo=data)
    check("%s, engine auto -> %s" % (what, errno.errorcode.get(want)), got == want)
check("identify of the 4096-byte namespace over the 512-byte one -> EINVAL",
      create(other, engine="nvme", hwinfo=good) == errno.EINVAL)
check("bad hwinfo address -> EFAULT", create(ns, hwinfo=good, hwinfo_addr=16) == errno.EFAULT)
check("hwinfo longer than AW_HWINFO_MAX -> EINVAL", create(ns, hwinfo=good, hwinfo_len=16385) == errno.EINVAL)
check("hwinfo over a SCSI disk -> EINVAL", create(sd, hwinfo=good) == errno.EINVAL)
check("engine nvme over a SCSI disk -> ENODEV", create(sd, engine="nvme") == errno.ENODEV)
check("nothing was left behind", devices() == [])
log = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
for reason in ("not NVMe Identify data", "LBA size does not match", "describes", "no LBA format at FLBAS"):
    check("the kernel log says why: '%s'" % reason, reason in log)
check.exit()
PYEOF
r=$($AWCTL create --engine nvme /dev/$sd 2>&1) && fail "awctl create --engine nvme over SCSI worked"
echo "ok: awctl refuses the nvme engine over a SCSI disk: $r"

# Untorn units of one block, from 64 KiB direct writes: every unit is one
# command at the namespace. Plain awblk sends the 64 KiB writes whole.
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
	fail "mount tracefs"
T=/sys/kernel/tracing
majmin=$(cat /sys/block/$ns4k/dev)
count() { # DEV UNTORN: "commands max_bytes" at the namespace for 64 x 64 KiB
	dev=$($AWCTL create /dev/$ns4k --untorn $2) || return 1
	echo 0 >$T/tracing_on; : >$T/trace
	echo 1 >$T/events/block/block_rq_issue/enable; echo 1 >$T/tracing_on
	fio --name=u --filename=$dev --ioengine=libaio --direct=1 --rw=write \
		--bs=64k --iodepth=8 --size=4M >/dev/null 2>&1 || return 1
	# The event stays enabled: under TCG, patching the kernel's text to
	# switch it off has been seen to stall the guest (a lost IPI).
	echo 0 >$T/tracing_on
	$AWCTL remove $dev
	awk -v d="${majmin%%:*},${majmin##*:}" '$0 ~ "block_rq_issue: " d " W" {
		for (i = 1; i <= NF; i++) if ($i == "+") { n++; s = $(i + 1) * 512; if (s > m) m = s } }
		END { print n + 0, m + 0 }' $T/trace
}
set -- $(count $ns4k 4096) || fail "untorn run"
echo "untorn 4096: $1 write commands, largest $2 bytes"
[ "$1" = 1024 ] && [ "$2" = 4096 ] || fail "untorn units were merged or split: $1 commands, largest $2"
set -- $(count $ns4k 0) || fail "plain run"
echo "plain: $1 write commands, largest $2 bytes"
[ "$2" -ge 65536 ] || fail "plain 64 KiB writes did not arrive whole (largest $2): the count above proves nothing"
echo "ok: 1024 untorn units arrived as 1024 commands of 4096 bytes; plain writes arrive as 64 KiB"
aw_cleanup
