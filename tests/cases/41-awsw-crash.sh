#!/bin/sh
# The software engine across power cuts. awscsi with a volatile write cache
# and no atomic support of its own; 4 writers make atomic writes of every
# power of two from 4 KiB to unit_max, naturally aligned, some DSYNC; the
# power is cut at random, restored, the awblk device created again (that
# attach replays the journal) and every unit checked (awcrash sizes): none
# torn, no acknowledged write lost (acknowledged is durable for this
# engine). The same run with plain O_DIRECT writes must find torn units
# (the test has teeth), and a mixed run, plain and atomic writes on the same
# units, must lose no durable write. AW_CRASH_CUTS (make crash) sets the
# number of cuts of the atomic run; AWKIT_SEED its seed.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_sw_crash_setup
aw_sw_format /dev/$disk || fail "format"
dev=$($AWCTL create /dev/$disk) || fail "create"
[ -e /sys/block/${dev#/dev/}/awblk/engine_stats ] || fail "$dev is not on the sw engine"
$AWCTL info $dev
cuts=${AW_CRASH_CUTS:-60}
run() { # CUTS MODE: one awcrash sizes run; sets $out and $dev
	: >$AWSW_STATS
	t0=$(date +%s)
	out=$($C sizes $dev $CTL $1 $seed $2 --cut-max 160 --reattach "$R") ||
		fail "awcrash sizes $2 (seed $seed)"
	dev=${out##*dev=}
	echo "$out (${2}: $(( $(date +%s) - t0 ))s)"
}
run $cuts journal
case "$out" in
*" torn=0 lost=0 "*) ;;
*) fail "atomic writes torn or lost across power cuts: $out" ;;
esac
replayed=$(aw_sum_stat $AWSW_STATS replayed)
[ "$replayed" -gt 0 ] || fail "no attach replayed a record: the journal was never needed"
echo "ok: $cuts power cuts, no atomic write torn or lost; the attaches replayed $replayed records"
run 20 plain
case "$out" in
*" torn=0 "*) fail "plain writes never tore: the test has no teeth ($out)" ;;
*" lost=0 "*) ;;
*) fail "plain writes made durable were lost: $out" ;;
esac
echo "ok: plain writes tore $(echo "$out" | sed 's/.* torn=\([0-9]*\).*/\1/') units"
run 20 mixed
case "$out" in
*" lost=0 "*) ;;
*) fail "durable writes lost with plain and atomic writes mixed: $out" ;;
esac
echo "ok: mixed plain and atomic writes, no durable write lost"
echo "ok: $(cat $CTL/cuts) power cuts in all, seed $seed"
dmesg | grep -c 'awsw.*recovery:' | sed 's/^/recovery log lines: /'
aw_cleanup || fail cleanup
