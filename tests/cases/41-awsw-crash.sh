#!/bin/sh
# The software engine across power cuts. awscsi with a volatile write cache
# and no atomic support of its own; 4 writers make atomic writes of every
# power of two from 4 KiB to unit_max, naturally aligned, some DSYNC; the
# power is cut at random, restored, the awblk device created again (that
# attach replays the journal) and every unit checked (awcrash sizes): none
# torn, no acknowledged write lost (acknowledged is durable for this
# engine). The same run with plain O_DIRECT writes must find torn units
# (the test has teeth), and a mixed run, plain and atomic writes on the same
# units, must lose no durable write. Records go with FUA where the disk has
# it, else one flush per batch makes them durable: both are cut, and the
# counters show which was used. AW_CRASH_CUTS (make crash) sets the
# number of cuts of the atomic run; AWKIT_SEED its seed.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_sw_crash_setup
aw_sw_format /dev/$disk || fail "format"
dev=$($AWCTL create /dev/$disk) || fail "create"
[ -e /sys/block/${dev#/dev/}/awblk/engine_stats ] || fail "$dev is not on the sw engine"
$AWCTL info $dev
cuts=${AW_CRASH_CUTS:-40}
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
# engine_stat NAME: the engine counter of $dev.
engine_stat() { sed -n "s/^$1 //p" /sys/block/${dev#/dev/}/awblk/engine_stats; }
# With FUA on the disk each record is durable by itself: no batch flushes.
r0=$(engine_stat records) c0=$(engine_stat commits)
$AWCTL write $dev --offset 65536 --length 16384 --atomic --dsync --pattern 7 || fail "awctl write"
[ "$(engine_stat records)" -gt "$r0" ] && [ "$(engine_stat commits)" = "$c0" ] ||
	fail "FUA disk: records $r0 -> $(engine_stat records), flushes $c0 -> $(engine_stat commits): want a record and no flush"
echo "ok: with FUA, a record needs no flush of the cache"
cuts0=$(cat $CTL/cuts)
# The same cuts on a disk without FUA: records wait for their batch's flush.
$AWCTL remove $dev || fail "remove"
aw_unload awscsi || fail "unload awscsi"
aw_insmod awscsi dev_size_mb=24 write_cache=1 atomic_wr=0 fua=0 || fail "insmod fua=0"
disk=$(aw_disks awscsi) || fail "no disk"
R="sh $AWKIT_ROOT/tests/qemu/awsw-attach.sh /dev/$disk"
[ "$(cat /sys/block/$disk/queue/fua)" = 0 ] || fail "awscsi fua=0 still reports FUA"
aw_sw_format /dev/$disk || fail "format"
dev=$($AWCTL create /dev/$disk) || fail "create"
r0=$(engine_stat records) c0=$(engine_stat commits)
$AWCTL write $dev --offset 65536 --length 16384 --atomic --dsync --pattern 7 || fail "awctl write"
[ "$(engine_stat records)" -gt "$r0" ] && [ "$(engine_stat commits)" -gt "$c0" ] ||
	fail "no FUA: records $r0 -> $(engine_stat records), flushes $c0 -> $(engine_stat commits): want a record and a flush"
run 20 journal
case "$out" in
*" torn=0 lost=0 "*) ;;
*) fail "without FUA: atomic writes torn or lost across power cuts: $out" ;;
esac
[ "$(aw_sum_stat $AWSW_STATS replayed)" -gt 0 ] || fail "without FUA: no attach replayed a record"
echo "ok: without FUA on the disk, 20 power cuts, no atomic write torn or lost"
echo "ok: $((cuts0 + $(cat $CTL/cuts))) power cuts in all, seed $seed"
dmesg | grep -c 'awsw.*recovery:' | sed 's/^/recovery log lines: /'
aw_cleanup || fail cleanup
