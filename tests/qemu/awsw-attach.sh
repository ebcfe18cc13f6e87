#!/bin/sh
# awsw-attach.sh LOWER [recut N | corrupt SEED]: what `awcrash sizes
# --reattach` runs between a power cut and the check. It removes the awblk
# device $AWCRASH_DEV, creates one over LOWER again (for the sw engine that
# attach replays the journal) and prints its path; messages go to stderr.
#   recut N       first an attach with cut_after random below N, so the power
#                 may go during the recovery (the attach may fail): restore
#                 it, remove what that attach made, and attach again
#   corrupt SEED  corrupt the journal on LOWER first (awswdisk.py); an attach
#                 that refuses must leave LOWER as it was: prints "refused"
# Each attach appends "WHAT <engine_stats on one line>" to $AWSW_STATS (if
# set); $AWSW_CREATE holds extra `awctl create` arguments.
set -u
lower=$1 mode=${2:-plain} arg=${3:-}
AWCTL=$AWKIT_ROOT/build/tools/awctl
DISK="python3 $AWKIT_ROOT/tests/tools/awswdisk.py"
CTL=/sys/devices/awscsi
stats() { # WHAT DEV
	[ -n "${AWSW_STATS:-}" ] || return 0
	echo "$1 $({ tr '\n' ' ' <"/sys/block/${2#/dev/}/awblk/engine_stats"; } 2>/dev/null)" >>"$AWSW_STATS"
}
create() { $AWCTL create "$lower" ${AWSW_CREATE:-}; }
md5() { dd if="$lower" iflag=direct bs=1M status=none | md5sum; }

$AWCTL remove "$AWCRASH_DEV" >&2 || exit 1
case $mode in
recut)
	echo $(( $(od -An -N2 -tu2 /dev/urandom) % arg )) >$CTL/cut_after
	if d=$(create 2>/dev/null); then
		echo 1 >$CTL/powered
		stats cut-attach-ok "$d"
		$AWCTL remove "$d" >&2 || exit 1
	else
		echo 1 >$CTL/powered
		[ -n "${AWSW_STATS:-}" ] && echo "cut-attach-failed" >>"$AWSW_STATS"
	fi
	;;
corrupt)
	$DISK info "$lower" >&2
	$DISK corrupt "$lower" "$arg" | sed 's/^/corrupt: /' >&2
	sum=$(md5)
	if ! d=$(create); then
		[ "$(md5)" = "$sum" ] || { echo "a refused attach changed $lower" >&2; exit 1; }
		[ -n "${AWSW_STATS:-}" ] && echo "refused" >>"$AWSW_STATS"
		echo refused
		exit 0
	fi
	stats corrupt-attach "$d"
	echo "$d"
	exit 0
	;;
esac
d=$(create) || exit 1
stats attach "$d"
echo "$d"
