#!/bin/sh
# awctl format and the software engine's attach, on awscsi disks that offer
# no atomic writes of their own (atomic_wr=0): a formatted disk gives an sw
# device of the superblock's data_size with its limits, and an atomic write
# of unit_max reads back, also after remove and create; format refuses a
# disk in use, an earlier format, a filesystem and a partition table without
# --force; create refuses an unformatted disk (ENODEV) and a damaged
# superblock (EINVAL), with the reason in the kernel log, writing nothing;
# another engine over a formatted disk is refused (EINVAL).
. "$AWKIT_ROOT/tests/qemu/lib.sh"
AWCTL=$AWKIT_ROOT/build/tools/awctl
SB="python3 $AWKIT_ROOT/tests/tools/awswsb.py"
MiB=1048576
aw_load_awsw || fail "load awblk and the software engine"
aw_insmod awscsi num_tgts=3 dev_size_mb=32 atomic_wr=0 || fail "insmod awscsi"
set -- $(aw_disks awscsi 3) || fail "no disks"
A=/dev/$1 B=/dev/$2 C=/dev/$3

code() { "$@" >/tmp/out 2>/tmp/err; echo $?; }
field() { $SB show "$1" | sed -n "s/^$2 //p"; }
info() { $AWCTL info "$1" | sed -n "s/^$2: //p"; }
# Kernel log lines since mark (the harness scans the whole log afterwards,
# so it is never cleared).
mark() { mark=$(dmesg | wc -l); }
logged() { dmesg | tail -n +$((mark + 1)) | grep -F -- "$1" | grep -qF -- "$2"; }
sum2m() { dd if="$1" bs=1M count=2 iflag=direct status=none | sha256sum; }
no_awblk() { for d in /sys/block/awblk*; do [ -e "$d" ] && return 1; done; return 0; }
# pattern FILE LEN BYTE(octal): LEN bytes of BYTE.
pattern() { head -c "$2" /dev/zero | tr '\0' "\\$3" >"$1"; }
# readback DEV OFF LEN FILE: LEN bytes at OFF of DEV (O_DIRECT) equal FILE.
readback() {
	dd if="$1" of=/tmp/got bs="$3" skip=$(($2 / $3)) count=1 iflag=direct status=none &&
		cmp -s /tmp/got "$4"
}
# refused_create DISK ERRNO-TEXT LOG-TEXT [ARGS]: create fails, says why in
# the kernel log (a line of module $who, awsw unless set), leaves the first
# 2 MiB of DISK as they were.
refused_create() {
	disk=$1 etext=$2 ltext=$3; shift 3
	before=$(sum2m "$disk")
	mark
	[ "$(code $AWCTL create "$disk" "$@")" = 1 ] ||
		fail "create $disk $* not refused ($ltext): $(cat /tmp/out /tmp/err)"
	grep -qF "$etext" /tmp/err || fail "create $disk $*: '$etext' expected: $(cat /tmp/err)"
	logged "${who:-awsw}: " "${disk#/dev/}: $ltext" ||
		fail "no kernel log line '${who:-awsw}: ${disk#/dev/}: $ltext': $(dmesg | tail -n +$((mark + 1)))"
	[ "$(sum2m "$disk")" = "$before" ] || fail "refused create $disk $* changed the disk"
	no_awblk || fail "a refused create left a device: $(ls /sys/block)"
	echo "ok: create $disk${*:+ $*} refused: $(cat /tmp/err); log: $ltext"
}

# An unformatted disk: the software engine asked for by name says so.
refused_create "$B" "No such device" "no awkit format (run awctl format)" --engine sw

# Format, then the superblock as the disk holds it.
size=$(blockdev --getsize64 "$A") lbs=$(cat "/sys/block/$1/queue/logical_block_size")
[ "$size $lbs" = "$((32 * MiB)) 512" ] || fail "disk $A: $size bytes, $lbs-byte blocks"
out=$($AWCTL format "$A") || fail "format $A"
[ "$out" = "formatted $A: data 28 MiB at 4 MiB, journal 4032 KiB, atomic writes up to 65536 bytes" ] ||
	fail "format said: $out"
$SB show "$A" >/tmp/sb
for kv in magic=AWKITSW1 version=1 crc_ok=1 lbs=512 unit_max=65536 \
	journal_start=65536 data_start=$((4 * MiB)) data_size=$((28 * MiB)) checkpoint_seq=0; do
	grep -qx "${kv%%=*} ${kv#*=}" /tmp/sb || fail "superblock on $A: $kv expected: $(cat /tmp/sb)"
done
uuid=$(field "$A" uuid) dsize=$((28 * MiB)) dstart=$((4 * MiB))
echo "ok: $out"

# Any other engine would show the superblock and journal as data. Refused
# by the signature alone: also an engine that is not loaded (awnvme, with
# modprobe failing) must not make it "no such device".
who=awblk
mp=$(cat /proc/sys/kernel/modprobe)
echo /bin/false >/proc/sys/kernel/modprobe
(for e in none scsi nvme; do
	refused_create "$A" "Invalid argument" \
		"holds the software engine's format: only --engine sw or auto may use it" --engine $e
done
# Auto, with the software engine neither loaded nor loadable: refused too,
# never another engine or a pass-through over the journal.
rmmod awsw || fail "rmmod awsw"
refused_create "$A" "No such device" \
	"holds the software engine's format, but the software engine is not available")
r=$?
echo "$mp" >/proc/sys/kernel/modprobe
[ $r = 0 ] || exit 1
insmod "$AW_MOD/engines/sw/awsw.ko" || fail "insmod awsw"
who=

# create picks the software engine; the device is the data area.
dev=$($AWCTL create "$A") || fail "create over the formatted $A"
n=${dev#/dev/awblk}
[ "$(info "$dev" engine)" = sw ] || fail "engine: $($AWCTL info "$dev")"
[ "$(info "$dev" size)" = "$dsize" ] || fail "size: $($AWCTL info "$dev")"
[ "$(blockdev --getsize64 "$dev")" = "$dsize" ] || fail "blockdev size of $dev"
for kv in unit_min=$lbs unit_max=65536 max_bytes=65536 boundary=0; do
	[ "$(info "$dev" "atomic_write_${kv%%=*}")" = "${kv#*=}" ] ||
		fail "awctl info: $kv expected: $($AWCTL info "$dev")"
done
q=/sys/block/awblk$n/queue
[ "$(cat $q/atomic_write_unit_min_bytes) $(cat $q/atomic_write_unit_max_bytes) $(cat $q/atomic_write_max_bytes) $(cat $q/atomic_write_boundary_bytes)" = "$lbs 65536 65536 0" ] ||
	fail "sysfs limits: $(grep . $q/atomic_write_*)"
$AWCTL list | grep -q "^awblk$n lower=.* engine=sw .*size=$dsize\$" || fail "awctl list: $($AWCTL list)"
stats=/sys/block/awblk$n/awblk/engine_stats
for k in replayed discarded records commits checkpoints failed; do
	grep -Eq "^$k [0-9]+\$" $stats || fail "engine_stats has no '$k N': $(cat $stats)"
done
echo "ok: $dev: engine sw, size $dsize, limits $lbs/65536/65536/0, engine_stats"

# format refuses a disk awblk holds, and writes nothing.
[ "$(code $AWCTL format "$A" --force)" = 1 ] || fail "format of a disk in use"
grep -q "busy" /tmp/err || fail "format of a disk in use: $(cat /tmp/err)"
echo "ok: format of a disk in use refused: $(cat /tmp/err)"

# An atomic write of unit_max, a plain one, and one too large.
pattern /tmp/p5a 65536 132
pattern /tmp/p77 4096 167
$AWCTL write "$dev" --offset 128k --length 64k --atomic --dsync --pattern 0x5a >/dev/null ||
	fail "atomic write of unit_max"
readback "$dev" 131072 65536 /tmp/p5a || fail "atomic write of unit_max does not read back"
grep -qx "failed 0" $stats || fail "engine_stats after the write: $(cat $stats)"
$AWCTL write "$dev" --offset 0 --length 4k --dsync --pattern 0x77 >/dev/null || fail "plain write"
[ "$(code $AWCTL write "$dev" --offset 128k --length 128k --atomic)" = 1 ] ||
	fail "atomic write of 2 x unit_max accepted"
readback "$dev" 131072 65536 /tmp/p5a || fail "a refused write changed the data"
echo "ok: 64 KiB atomic write reads back; 128 KiB refused; engine_stats: $(tr '\n' ' ' <$stats)"
$AWCTL remove "$dev" || fail "remove $dev"

# On the disk: the superblock is intact, the data area starts at data_start.
[ "$(field "$A" crc_ok) $(field "$A" uuid)" = "1 $uuid" ] || fail "superblock after remove: $($SB show "$A")"
readback "$A" "$dstart" 4096 /tmp/p77 || fail "device offset 0 is not the disk's data_start"
dev=$($AWCTL create "$A") || fail "second create over $A"
[ "$(info "$dev" engine)" = sw ] || fail "engine after re-create"
readback "$dev" 131072 65536 /tmp/p5a || fail "atomic write lost after remove and create"
readback "$dev" 0 4096 /tmp/p77 || fail "plain write lost after remove and create"
$AWCTL remove "$dev" || fail "remove $dev"
echo "ok: data at data_start; both writes read back after remove and create"

# A formatted disk is not formatted again without --force.
before=$(sum2m "$A")
[ "$(code $AWCTL format "$A")" = 1 ] || fail "format of a formatted disk"
grep -q "already formatted" /tmp/err || fail "format of a formatted disk: $(cat /tmp/err)"
[ "$(sum2m "$A")" = "$before" ] || fail "refused format changed the disk"
echo "ok: $(cat /tmp/err)"

# Damaged superblocks: create refuses them and writes nothing.
$SB flip "$A" 40
refused_create "$A" "Invalid argument" "refusing: superblock checksum mismatch" --engine sw
refused_create "$A" "Invalid argument" "refusing: superblock checksum mismatch"
$SB flip "$A" 40
$SB set "$A" version=2
refused_create "$A" "Invalid argument" "refusing: superblock version is not supported"
$SB set "$A" version=1 data_size=$((dsize + MiB))
refused_create "$A" "Invalid argument" "refusing: data area runs past the end of the device"
$SB set "$A" data_size=$dsize lbs=4096
refused_create "$A" "Invalid argument" "refusing: logical block size does not match the device's"
# Put back as it was, it attaches again: awswsb writes what the engine reads.
$SB set "$A" lbs=512
dev=$($AWCTL create "$A" --engine sw) || fail "create over the repaired superblock"
readback "$dev" 131072 65536 /tmp/p5a || fail "data after the repaired superblock"
$AWCTL remove "$dev" || fail "remove $dev"
echo "ok: the repaired superblock attaches and the data is there"

# A filesystem: refused without --force, then formatted over.
mkfs.ext4 -q -F "$C" || fail "mkfs.ext4 $C"
before=$(sum2m "$C")
[ "$(code $AWCTL format "$C")" = 1 ] || fail "format over ext4"
grep -qF "holds a signature of ext2/3/4" /tmp/err || fail "format over ext4: $(cat /tmp/err)"
[ "$(sum2m "$C")" = "$before" ] || fail "refused format changed the ext4 disk"
echo "ok: $(cat /tmp/err)"
$AWCTL format "$C" --force >/tmp/out 2>/tmp/err || fail "format --force over ext4: $(cat /tmp/err)"
echo "ok: --force: $(cat /tmp/out)"
if command -v blkid >/dev/null; then
	t=$(blkid -p -o value -s TYPE "$C")
	[ -z "$t" ] || fail "blkid still finds '$t' on $C"
fi
dev=$($AWCTL create "$C") || fail "create over $C"
[ "$(info "$dev" engine)" = sw ] || fail "engine over $C"
$AWCTL remove "$dev" || fail "remove $dev"

# A partition table: refused, then formatted over; the partition goes away.
dd if=/dev/zero of="$C" bs=64k count=2 oflag=direct status=none
aw_mbr "$C" 2048:8192 || fail "write an MBR"
[ "$(code $AWCTL format "$C")" = 1 ] || fail "format over an MBR"
grep -qF "holds a signature of MBR partition table" /tmp/err || fail "format over an MBR: $(cat /tmp/err)"
echo "ok: $(cat /tmp/err)"
$AWCTL format "$C" --force >/tmp/out 2>/tmp/err || fail "format --force over an MBR: $(cat /tmp/err)"
[ -e "/sys/block/$3/${3}1" ] && fail "partition ${3}1 still there after the forced format: $(cat /tmp/err)"
echo "ok: formatted over the MBR; ${3}1 is gone"

# Options: a smaller unit and journal give those limits.
$AWCTL format "$B" --unit-max 16k --journal 1m >/tmp/out || fail "format --unit-max 16k"
grep -qx "formatted $B: data 30 MiB at 2 MiB, journal 1 MiB, atomic writes up to 16384 bytes" /tmp/out ||
	fail "format said: $(cat /tmp/out)"
dev=$($AWCTL create "$B") || fail "create over $B"
[ "$(info "$dev" atomic_write_unit_max) $(info "$dev" atomic_write_max_bytes) $(info "$dev" size)" = "16384 16384 $((30 * MiB))" ] ||
	fail "limits over $B: $($AWCTL info "$dev")"
[ "$(code $AWCTL write "$dev" --offset 32k --length 32k --atomic)" = 1 ] || fail "32 KiB atomic write accepted"
$AWCTL remove "$dev" || fail "remove $dev"
echo "ok: --unit-max 16k --journal 1m: limits 16384, size 30 MiB"

# 4096-byte logical blocks: the superblock and the device follow them.
aw_unload awscsi || fail "unload awscsi"
aw_insmod awscsi num_tgts=1 dev_size_mb=32 sector_size=4096 atomic_wr=0 || fail "insmod awscsi 4k"
set -- $(aw_disks awscsi 1) || fail "no 4k disk"
D=/dev/$1
$AWCTL format "$D" --unit-max 256k >/tmp/out || fail "format of a 4k disk"
[ "$(field "$D" lbs) $(field "$D" unit_max)" = "4096 262144" ] || fail "4k superblock: $($SB show "$D")"
dev=$($AWCTL create "$D") || fail "create over the 4k disk"
[ "$(info "$dev" atomic_write_unit_min) $(info "$dev" atomic_write_unit_max) $(info "$dev" engine)" = "4096 262144 sw" ] ||
	fail "4k limits: $($AWCTL info "$dev")"
pattern /tmp/p33 262144 63
$AWCTL write "$dev" --offset 256k --length 256k --atomic --from /tmp/p33 >/dev/null || fail "256 KiB atomic write"
readback "$dev" 262144 262144 /tmp/p33 || fail "256 KiB atomic write does not read back"
$AWCTL remove "$dev" || fail "remove $dev"
echo "ok: 4096-byte blocks: $(cat /tmp/out); unit 4096..262144, a 256 KiB atomic write reads back"

aw_cleanup || fail cleanup
