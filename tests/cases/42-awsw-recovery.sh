#!/bin/sh
# The software engine's recovery under stress, on awscsi with a volatile
# write cache and no atomic support.
# (a) Corruption fuzz, AW_FUZZ_SEEDS seeds (16): writers fill the journal,
#     their writes are flushed and the power cut, then the journal is
#     corrupted at random (bit flips, zeroed blocks, garbage, records copied
#     elsewhere, header fields changed with and without a good crc). The
#     attach must recover with no unit torn (a write whose record was
#     destroyed may go back to an older one: lost is reported, not failed),
#     or refuse and leave the disk as it was; no oops (the log scan).
# (b) The power goes during the recovery of an attach (cut_after small
#     before create): that attach may fail; the next one recovers, with no
#     unit torn and no acknowledged write lost, and records were replayed.
# (c) A corrupt superblock: create fails with EINVAL and writes nothing.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_sw_crash_setup
md5() { dd if=/dev/$disk iflag=direct bs=1M status=none | md5sum; }

# (a)
: >$AWSW_STATS
refused=0 recovered=0 lost=0
for i in $(seq ${AW_FUZZ_SEEDS:-16}); do
	s=$((seed + i))
	aw_sw_format /dev/$disk || fail "format"
	dev=$($AWCTL create /dev/$disk) || fail "create (seed $s)"
	out=$($C sizes $dev $CTL 1 $s journal --sync-cut 48 --reattach "$R corrupt $s" 2>/tmp/err) ||
		{ cat /tmp/err; fail "awcrash sizes with a corrupt journal (seed $s)"; }
	echo "seed $s: $(grep -v '^corrupt:' /tmp/err | tr '\n' ' ')"
	grep '^corrupt:' /tmp/err
	case "$out" in
	*" refused=1 "*) refused=$((refused + 1)); echo "seed $s: attach refused"; continue ;;
	*" torn=0 "*) recovered=$((recovered + 1)) ;;
	*) cat /tmp/err; fail "seed $s: a unit torn after recovering a corrupt journal: $out" ;;
	esac
	echo "seed $s: $out"
	l=${out#* lost=}; lost=$((lost + ${l%% *}))
	dev=${out##*dev=}
	$AWCTL remove $dev || fail "remove"
done
records=$(grep -c . $AWSW_STATS)
replayed=$(aw_sum_stat $AWSW_STATS replayed)
discarded=$(aw_sum_stat $AWSW_STATS discarded)
echo "ok: corrupt journals, seeds $((seed + 1))..$((seed + ${AW_FUZZ_SEEDS:-16})): $recovered recovered (no unit torn; $lost units back to an older write), $refused refused cleanly; $replayed records replayed, $discarded discarded"
[ "$replayed" -gt 0 ] || fail "no record was ever replayed: the fuzz has no teeth"
[ "$discarded" -gt 0 ] || fail "no corrupt record was ever discarded: the fuzz has no teeth"

# (b)
: >$AWSW_STATS
aw_sw_format /dev/$disk || fail "format"
dev=$($AWCTL create /dev/$disk) || fail "create"
dmesg -C
out=$($C sizes $dev $CTL ${AW_RECUT_CUTS:-16} $seed journal --cut-max 160 --reattach "$R recut 40") ||
	fail "awcrash sizes with cuts during recovery (seed $seed)"
echo "$out"
case "$out" in
*" torn=0 lost=0 "*) ;;
*) fail "torn or lost after a power cut during recovery: $out" ;;
esac
failed=$(grep -c cut-attach-failed $AWSW_STATS)
midway=$(dmesg | grep -c 'recovery failed')
replayed=$(grep '^attach' $AWSW_STATS >/tmp/att; aw_sum_stat /tmp/att replayed)
echo "ok: power cut during recovery: $failed attaches failed ($midway during the recovery), the next ones replayed $replayed records; no unit torn or lost"
[ "$midway" -gt 0 ] || fail "the power never went during a recovery: no teeth"
[ "$replayed" -gt 0 ] || fail "no records replayed after a cut recovery: no teeth"
dev=${out##*dev=}

# (c)
$AWCTL remove $dev || fail "remove"
python3 "$AWKIT_ROOT/tests/tools/awswdisk.py" sbcorrupt /dev/$disk || fail "sbcorrupt"
sum=$(md5)
if err=$($AWCTL create /dev/$disk 2>&1); then
	fail "create over a corrupt superblock succeeded: $err"
fi
echo "$err"
echo "$err" | grep -q 'Invalid argument' || fail "create over a corrupt superblock: not EINVAL: $err"
[ "$(md5)" = "$sum" ] || fail "a refused create wrote to the disk"
echo "ok: corrupt superblock: create fails with EINVAL and writes nothing"
aw_cleanup || fail cleanup
