#!/bin/sh
# awblk lifecycle and bad input: remove while open, module unload with
# devices, a lower device held exclusively, not a block device, nonsense
# options, the lower device disappearing, creating and removing from many
# threads at once, --engine auto when the engine module is missing (and
# once it can be loaded), removing while other threads open and use the
# device, a create whose answer cannot be copied back.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_awblk || fail "load awblk"
AWCTL=$AWKIT_ROOT/build/tools/awctl
aw_insmod awscsi num_tgts=4 dev_size_mb=8 physblk_exp=3 atomic_wr=1 || fail insmod
set -- $(aw_disks awscsi 4) || fail "no disks"
code() { "$@" >/tmp/out 2>&1; echo $?; }
dev=$($AWCTL create /dev/$1) || fail create
exec 3<>$dev
[ "$(code $AWCTL remove $dev)" = 1 ] || fail "remove while open did not fail"
echo "ok: remove while open: $(cat /tmp/out)"
exec 3>&-
rmmod awblk 2>/tmp/out && fail "awblk unloaded with a device present"
echo "ok: unload with a device present refused: $(cat /tmp/out)"
[ "$(code $AWCTL create /dev/$1)" = 1 ] || fail "second create on the same lower did not fail"
grep -q 'busy' /tmp/out || fail "no clear message for a held lower device: $(cat /tmp/out)"
echo "ok: lower held exclusively: $(cat /tmp/out)"
[ "$(code $AWCTL create /etc/passwd)" = 1 ] || fail "create over a regular file"
echo "ok: $(cat /tmp/out)"
[ "$(code $AWCTL create /dev/$2 --engine bogus)" = 2 ] || fail "bogus engine"
[ "$(code $AWCTL create /dev/$2 --untorn 12k)" = 1 ] || fail "untorn not a power of two"
[ "$(code $AWCTL create /dev/$2 --untorn 4m)" = 1 ] || fail "untorn above unit_max"
[ "$(code $AWCTL create /dev/$2 --engine nvme)" = 1 ] || fail "nvme engine on a SCSI disk"
[ "$(code $AWCTL create /dev/$2 --unit-max 12x)" = 2 ] || fail "bad size"
[ "$(code $AWCTL remove awblk99)" = 1 ] || fail "remove of a missing device"
python3 - /dev/$2 <<'PYEOF' || fail "control ioctl bad input"
import errno, os, sys
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
def err(**kw):
    try:
        d = A.create(sys.argv[1], **kw)
        A.remove(int(d[len("/dev/awblk"):]))
        return 0
    except OSError as e:
        return e.errno
for kw in ({"flags": 1}, {"reserved": [0] * 5 + [1]}, {"hwinfo": b"\0" * 16}, {"untorn": 3 << 12}, {"unit_max": 1 << 40}):
    got = err(**kw)
    print("create %s -> %s" % (kw, errno.errorcode.get(got, got)))
    assert got == errno.EINVAL, kw
try:
    A.remove(0, flags=2)
    raise SystemExit("remove with flags accepted")
except OSError as e:
    assert e.errno == errno.EINVAL
print("ok: reserved fields, flags and sizes checked")
PYEOF
echo "ok: nonsense options rejected with exit codes 1/2"

# The lower device disappears under an open awblk device.
exec 3<>$dev
echo 0 >/sys/devices/awscsi/attached
dd if=/dev/zero of=$dev bs=4k count=4 oflag=direct status=none 2>/dev/null && fail "write succeeded to a vanished lower device"
dd if=$dev of=/dev/null bs=4k count=4 iflag=direct status=none 2>/dev/null && fail "read succeeded from a vanished lower device"
exec 3>&-
$AWCTL remove $dev || fail "remove after the lower device vanished"
echo 1 >/sys/devices/awscsi/attached
set -- $(aw_disks awscsi 4) || fail "disks after re-attach"
echo "ok: lower device removed: I/O errors, then the awblk device was removed"

# Many threads creating and removing at once.
python3 - "$@" <<'PYEOF' || fail "concurrent create/remove"
import errno, os, sys, threading
sys.path.insert(0, os.environ["AWKIT_ROOT"] + "/tests/tools")
import awblkio as A
disks = ["/dev/" + d for d in sys.argv[1:]]
counts = {"created": 0, "busy": 0}
lock = threading.Lock()
def worker(i):
    for k in range(25):
        try:
            d = A.create(disks[(i + k) % len(disks)])
        except OSError as e:
            assert e.errno == errno.EBUSY, e
            with lock: counts["busy"] += 1
            continue
        with lock: counts["created"] += 1
        A.remove(int(d[len("/dev/awblk"):]))
ts = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
print("ok: 8 threads x 25: %(created)d created and removed, %(busy)d busy" % counts)
assert counts["created"] > 0
assert not [d for d in os.listdir("/sys/block") if d.startswith("awblk")]
PYEOF
# --engine auto over a disk that reports atomic writes, with no engine module
# to drive it: awctl says so and leaves no device (exit 1); --engine none
# still makes a plain one.
rmmod awscsi_engine || fail "rmmod awscsi_engine"
mp=$(cat /proc/sys/kernel/modprobe)
echo /bin/false >/proc/sys/kernel/modprobe
[ "$(code $AWCTL create /dev/$1)" = 1 ] || {
	echo "$mp" >/proc/sys/kernel/modprobe; fail "auto without an engine module did not fail"; }
echo "$mp" >/proc/sys/kernel/modprobe
grep -q "no engine drives it" /tmp/out || fail "no clear message: $(cat /tmp/out)"
ls /sys/block | grep -q awblk && fail "a device was left behind"
echo "ok: auto without its engine module: $(cat /tmp/out)"
d0=$($AWCTL create /dev/$1 --engine none) && $AWCTL remove $d0 || fail "--engine none"
# Once the module can be loaded, the next create loads it: a failed
# request is not remembered. The kernel runs this modprobe, which loads the
# tree's engine and logs what it was asked for.
cat >/tmp/aw-modprobe <<MODPROBE
#!/bin/sh
echo "\$*" >>/tmp/aw-modprobe.log
case "\$*" in
*awblk-engine-scsi*) exec /sbin/insmod $AW_MOD/engines/scsi/awscsi_engine.ko ;;
esac
exit 1
MODPROBE
chmod 755 /tmp/aw-modprobe && rm -f /tmp/aw-modprobe.log
echo /tmp/aw-modprobe >/proc/sys/kernel/modprobe
d0=$($AWCTL create /dev/$1 2>/tmp/out); r=$?
echo "$mp" >/proc/sys/kernel/modprobe
[ $r = 0 ] || fail "auto once the engine is loadable: $(cat /tmp/out); modprobe was asked for: $(cat /tmp/aw-modprobe.log 2>/dev/null)"
[ "$(cat /sys/block/${d0#/dev/}/awblk/engine)" = scsi ] || fail "engine $(cat /sys/block/${d0#/dev/}/awblk/engine), not scsi"
grep -q awblk-engine-scsi /tmp/aw-modprobe.log || fail "modprobe was not asked for the engine"
$AWCTL remove $d0 || fail "remove $d0"
echo "ok: a create after a failed engine request loads the engine ($(tr '\n' ' ' </tmp/aw-modprobe.log))"

# Remove racing open: opens that land while a remove decides must be
# refused, never handed a device that is then freed under them.
ok "remove racing open, ioctls and I/O" $AWKIT_ROOT/build/tools/awremoverace /dev/$1 2000
# A create whose index cannot be copied back (a read-only struct): EFAULT,
# and no device, not even for a moment, while a watcher opens any it sees.
ok "create that cannot report its index: EFAULT, no device" \
	$AWKIT_ROOT/build/tools/awcreatefault /dev/$1 500
aw_cleanup || fail cleanup
[ -d /sys/module/awblk ] && fail "awblk still loaded"
echo "ok: unload after the last device"
