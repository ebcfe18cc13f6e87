#!/bin/sh
# awnvme over NVMe/TCP on the guest's own loopback: nvmet exports an awscsi
# disk with 16 KiB physical blocks (512 and 4096-byte logical blocks), so
# the namespace reports NSFEAT bit 1 and NAWUPF; awnvme derives 16 KiB, the
# ladder passes, and `nvme id-ns` agrees with `awctl info` (and on 6.12
# with the kernel's own limits for the namespace).
. "$AWKIT_ROOT/tests/qemu/lib.sh"
AWCTL=$AWKIT_ROOT/build/tools/awctl

field() { echo "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }
idns() { nvme id-ns "/dev/$1" | awk -v k="$2" '$1 == k { print $3 }'; }

aw_nvmet_setup || fail "nvmet, nvme-tcp and the loopback"
aw_load_awnvme || fail "load awblk and awnvme"

for lbs in 512 4096; do
	pexp=$((lbs == 512 ? 5 : 2))
	aw_insmod awscsi dev_size_mb=32 sector_size=$lbs physblk_exp=$pexp || fail "insmod awscsi"
	sd=$(aw_disks awscsi) || fail "no awscsi disk"
	aw_nvmet_export $sd || { aw_nvmet_unexport; fail "nvmet export of $sd"; }
	ns=$(aw_nvme_disks Linux 1) || { aw_nvmet_unexport; fail "no NVMe/TCP namespace"; }
	ns=${ns% }
	nsfeat=$(idns $ns nsfeat) nawupf=$(idns $ns nawupf) nabspf=$(idns $ns nabspf)
	echo "$ns over $sd ($lbs-byte blocks): nsfeat $nsfeat nawupf $nawupf nabspf $nabspf"
	[ $((nsfeat & 2)) = 2 ] || fail "$ns: NSFEAT bit 1 is not set"
	[ "$nawupf" = $((16384 / lbs - 1)) ] || fail "$ns: NAWUPF $nawupf, want $((16384 / lbs - 1))"
	dev=$($AWCTL create /dev/$ns) || fail "awctl create /dev/$ns"
	info=$($AWCTL info $dev)
	echo "$info" | sed "s/^/$ns: /"
	[ "$(field "$info" engine)" = nvme ] || fail "engine is not nvme"
	want=$(((nawupf + 1) * lbs))
	[ "$(field "$info" atomic_write_max_bytes)" = $want ] &&
		[ "$(field "$info" atomic_write_unit_max)" = 16384 ] &&
		[ "$(field "$info" atomic_write_unit_min)" = $lbs ] ||
		fail "awctl info disagrees with nvme id-ns ((1 + $nawupf) * $lbs = $want)"
	echo "ok: nvme id-ns (NAWUPF $nawupf) and awctl info agree: $lbs..16384, max $want"
	if aw_kernel_at_least 6 11; then
		q=/sys/block/$ns/queue
		p=$(ls -d /sys/class/nvme/nvme*/nvme*c*n${ns##*n} 2>/dev/null | head -n 1)
		if [ -n "$p" ]; then
			# A multipath head (nvmet reports CMIC): 6.12 sets the
			# limits on its path only, they do not stack, so
			# RWF_ATOMIC on the head itself fails; awblk over the
			# head still makes atomic writes (the ladder below).
			echo "$ns is a multipath head with atomic_write_unit_max_bytes $(cat $q/atomic_write_unit_max_bytes); its path is ${p##*/}"
			q=$p/queue
		fi
		[ "$(cat $q/atomic_write_unit_min_bytes)" = $lbs ] &&
			[ "$(cat $q/atomic_write_unit_max_bytes)" = 16384 ] &&
			[ "$(cat $q/atomic_write_max_bytes)" = $want ] ||
			fail "the kernel's limits for $ns differ: $(cat $q/atomic_write_unit_min_bytes) $(cat $q/atomic_write_unit_max_bytes) $(cat $q/atomic_write_max_bytes)"
		echo "ok: the kernel's own limits for $ns (${q%/queue}) are the same"
	fi
	python3 - $dev <<'PYEOF' || { aw_nvmet_unexport; fail "ladder on $dev"; }
import errno, mmap, os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
from awsg import Checks
dev = sys.argv[1]
native = not os.uname().release.startswith("6.1.")
check = Checks()
fd = os.open(dev, os.O_RDWR)
L = A.limits(fd)
umin, umax = L["unit_min"], L["unit_max"]
def read(off, n):
    os.lseek(fd, off, 0)
    return os.read(fd, n)
def ioctl(off, n):
    data = os.urandom(n)
    try:
        A.atomic_write(fd, off, data)
    except OSError as e:
        return e.errno, data
    return 0, data
def rwf(off, n):
    dfd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    m = mmap.mmap(-1, max(n, 4096))
    m.write(os.urandom(len(m)))
    try:
        os.pwritev(dfd, [memoryview(m)[:n]], off, 0x40)
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(dfd)
before = read(0, 1 << 20)
for what, off, n in (("unit_max + one block", 0, umax + umin), ("misaligned", umin, umax),
                     ("non-power-of-two", 0, 3 * umin if umin < umax // 2 else umax - umin),
                     ("unit_min - ... (half a unit)", 0, umin // 2 if umin > 512 else 0)):
    if n == 0 or n % 512:
        continue
    got, _ = ioctl(off, n)
    check("%s (%d at %d) -> EINVAL" % (what, n, off), got == errno.EINVAL)
    if native:
        check("RWF_ATOMIC %s -> EINVAL" % what, rwf(off, n) == errno.EINVAL)
check("the rejections changed nothing", read(0, 1 << 20) == before)
for what, off, n in (("unit_max", 4 * umax, umax), ("unit_min", 3 * umin, umin)):
    got, data = ioctl(off, n)
    check("%s (%d) -> ok" % (what, n), got == 0 and read(off, n) == data)
    if native:
        check("RWF_ATOMIC %s -> ok" % what, rwf(off, n) == 0)
check.exit()
PYEOF
	$AWCTL remove $dev || fail "remove $dev"
	aw_nvmet_unexport
	aw_unload awscsi || fail "unload awscsi"
done
aw_cleanup
