#!/bin/sh
# awblk over awscsi disks for several parameter sets (512 and 4096-byte
# blocks, the boundary variant, a unit-max cap, no atomic support): awctl
# info, /sys/block/awblkN/queue/atomic_write_* and (6.12) statx agree with
# each other and with FACTS.md's derivation computed here independently; on
# 6.12 they also equal what the kernel's own sd derived for the lower disk.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_awblk || fail "load awblk"
AWCTL=$AWKIT_ROOT/build/tools/awctl
check_set() { # CAP PARAMS...
	cap=$1; shift
	note "awscsi $* (unit-max cap $cap)"
	aw_insmod awscsi dev_size_mb=16 "$@" || fail "insmod $*"
	disk=$(aw_disks awscsi) || fail "no disk"
	if [ "$cap" = 0 ]; then dev=$($AWCTL create /dev/$disk); else dev=$($AWCTL create /dev/$disk --unit-max $cap); fi
	[ -b "$dev" ] || fail "awctl create gave '$dev'"
	$AWCTL info $dev >/tmp/info || fail "awctl info"
	cat /tmp/info
	python3 - $dev $disk $cap "$*" <<'PYEOF' || fail "limits disagree for '$*'"
import ctypes, os, sys
dev, disk, cap, params = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
p = dict(kv.split("=") for kv in params.split())
g = lambda k, d: int(p.get(k, d))
lbs = g("sector_size", 512); pbs = lbs << g("physblk_exp", 0)
gran, align = g("atomic_wr_gran", 2), g("atomic_wr_align", 2)
mlen, mlenb, mb = g("atomic_wr_max_length", 8192), g("atomic_wr_max_length_bndry", 8192), g("atomic_wr_max_bndry", 128)
q = lambda d, f: int(open("/sys/block/%s/queue/%s" % (d, f)).read())
mhs, segs = q(disk, "max_hw_sectors_kb") * 2, q(disk, "max_segments")
rp2 = lambda v: 1 << (v.bit_length() - 1) if v else 0
def expected():
    z = dict(unit_min=0, unit_max=0, max_bytes=0, boundary=0)
    if not g("atomic_wr", 0) or not (mlen or mlenb):
        return z
    umin = rp2(gran or pbs // lbs)
    hwmax, umax = (mlen, rp2(mlen)) if mlen else (mlenb, rp2(mb))
    for x in (gran, align):
        if x > 1 and (umin % x or umax % x):
            return z
    s = min(256, segs)
    ul = rp2(min(mhs * 512, 2 * lbs + (s - 2) * 4096))
    e = dict(unit_min=min(umin * lbs, ul), unit_max=min(umax * lbs, ul),
             max_bytes=min(hwmax * lbs, mhs * 512), boundary=0)
    if cap and cap < e["unit_max"]:
        e["unit_max"] = rp2(cap)
    return e
want = expected()
info = dict(l.split(": ", 1) for l in open("/tmp/info").read().splitlines())
name = os.path.basename(dev)
bad = 0
def same(what, got):
    global bad
    ok = got == want
    print("  %-8s %s %s" % (what, got, "" if ok else "!= expected %s" % want))
    bad += not ok
same("expected", want)
same("awctl", {k: int(info["atomic_write_" + (k if k != "max_bytes" else "max_bytes")]) for k in want})
same("sysfs", {k: q(name, "atomic_write_%s_bytes" % ("max" if k == "max_bytes" else k)) for k in want})
if os.path.exists("/sys/block/%s/queue/atomic_write_unit_max_bytes" % disk) and not os.uname().release.startswith("6.1."):
    # statx(STATX_WRITE_ATOMIC) on the awblk node
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(256)
    fd = os.open(dev, os.O_RDONLY)
    r = libc.syscall(332, fd, b"", 0x1000, 0x10000, buf)
    os.close(fd)
    raw = buf.raw
    mask = int.from_bytes(raw[0:4], "little")
    st = {"unit_min": int.from_bytes(raw[0xa8:0xac], "little"),
          "unit_max": int.from_bytes(raw[0xac:0xb0], "little")}
    ok = r == 0 and (st == {k: want[k] for k in st})
    print("  statx    %s mask=%#x %s" % (st, mask, "" if ok else "!= expected"))
    bad += not ok
    if not cap:
        same("sd", {k: q(disk, "atomic_write_%s_bytes" % ("max" if k == "max_bytes" else k)) for k in want})
sys.exit(1 if bad else 0)
PYEOF
	$AWCTL remove $dev || fail "awctl remove"
	aw_unload awscsi || fail unload
}
check_set 0 sector_size=512 physblk_exp=3 atomic_wr=1 atomic_wr_max_length=128 atomic_wr_align=8 atomic_wr_gran=8
check_set 0 sector_size=4096 physblk_exp=2 atomic_wr=1 atomic_wr_max_length=16 atomic_wr_align=4 atomic_wr_gran=4
check_set 0 sector_size=512 physblk_exp=3 atomic_wr=1 atomic_wr_max_length=0 atomic_wr_max_length_bndry=64 atomic_wr_max_bndry=32 atomic_wr_align=8 atomic_wr_gran=8
check_set 65536 sector_size=512 atomic_wr=1
check_set 0 sector_size=512 atomic_wr=1
check_set 0 sector_size=4096 atomic_wr=0
echo "ok: awctl info, sysfs and statx agree with the derivation"
