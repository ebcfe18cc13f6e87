#!/bin/sh
# In the guest: run tests/cases/*.sh (or only $AWKIT_CASE), one by one, each
# followed by a scan of the kernel log. Results go to $AWKIT_OUT/results.
cd /tmp || exit 1
. "$AWKIT_ROOT/tests/qemu/lib.sh"
out=$AWKIT_OUT
case "$AWKIT_MODE" in
demo) exec sh "$AWKIT_ROOT/tests/qemu/demo.sh" ;;
bench) exec sh "$AWKIT_ROOT/tests/bench/guest-bench.sh" ;;
esac
# A case's time limit: 900 s, or its "# awkit-timeout: SECONDS" line; in
# crash mode (the check runner on the power-cut cases only, long ones)
# 4 s a cut, or its "# awkit-secs-per-cut: SECONDS" line, and 600 s more.
case_tmo() {
	local t
	if [ "$AWKIT_MODE" = crash ]; then
		t=$(sed -n 's/^# awkit-secs-per-cut: \([0-9]*\)$/\1/p' "$1")
		echo $(( (${AW_CRASH_CUTS:-500} * ${t:-4} + 600) * ${AW_SLOW:-1} ))
	else
		t=$(sed -n 's/^# awkit-timeout: \([0-9]*\)$/\1/p' "$1")
		echo $(( ${t:-900} * ${AW_SLOW:-1} ))
	fi
}
# On a loaded host a vCPU can wait many seconds for a host CPU, which the
# lockup, stall and hung-task detectors would take for a kernel that
# stopped: their limits grow with AW_SLOW too (as set here, they are the
# kernel's defaults when AW_SLOW is 1).
slow=${AW_SLOW:-1}
wd=$((10 * slow)) rcu=$((21 * slow))
[ $wd -gt 60 ] && wd=60
[ $rcu -gt 300 ] && rcu=300
echo $wd >/proc/sys/kernel/watchdog_thresh
echo $rcu >/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
echo $((120 * slow)) >/proc/sys/kernel/hung_task_timeout_secs
: >"$out/results"
dmesg >"$out/boot.dmesg"
if aw_scan_log <"$out/boot.dmesg" >"$out/boot.bad"; then
	echo "FAIL boot kernel log before any case: $(head -n 1 "$out/boot.bad")" >>"$out/results"
fi
dmesg -C
wb_sec=$(cat /proc/sys/vm/dirty_writeback_centisecs)
wb_exp=$(cat /proc/sys/vm/dirty_expire_centisecs)
for c in "$AWKIT_ROOT"/tests/cases/*.sh; do
	name=$(basename "$c" .sh)
	# CASE is a name or a shell pattern (CASE='4*').
	if [ -n "$AWKIT_CASE" ]; then
		case $name in $AWKIT_CASE) ;; *) continue ;; esac
	fi
	echo "AWKIT-CASE $name"
	start=$(date +%s)
	timeout -s KILL $(case_tmo "$c") sh "$c" >"$out/$name.log" 2>&1 </dev/null
	rc=$?
	secs=$(( $(date +%s) - start ))
	# Leave nothing of a case behind for the next: no process, mount or
	# module, the kernel's writeback timing, and no regular file where a
	# later case expects a device node (a tool that opened a missing node
	# with O_CREAT, fio does, made one). A database a failed case left
	# running would keep its files open.
	for u in postgres mysql; do
		pkill -KILL -u $u 2>/dev/null
		i=0
		while ps -u $u -o stat= 2>/dev/null | grep -qv '^Z' && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
	# What a failed case left mounted on awkit: awfs, then file systems
	# on awblk devices, then on the emulated disks (lazily, so a busy one
	# does not stop the rest).
	for t in '$3 == "awfs"' '$1 ~ /^\/dev\/awblk/' '$1 ~ /^\/dev\/(sd|nvme)/'; do
		awk "$t { print \$2 }" /proc/mounts | while read -r m; do
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
		done
	done
	aw_unload awfs >/dev/null 2>&1
	aw_cleanup >/dev/null 2>&1
	# Writeback timing a case changed goes back to the kernel's.
	echo $wb_sec >/proc/sys/vm/dirty_writeback_centisecs
	echo $wb_exp >/proc/sys/vm/dirty_expire_centisecs
	for f in /dev/sd* /dev/sg* /dev/awblk* /dev/nvme*; do
		[ -f "$f" ] && rm -f "$f" && echo "$name: removed a stray regular file $f" >>"$out/$name.log"
	done
	sleep 0.2
	dmesg >"$out/$name.dmesg"
	dmesg -C
	if aw_scan_log <"$out/$name.dmesg" >"$out/$name.bad"; then
		echo "FAIL $name kernel log: $(head -n 1 "$out/$name.bad")" >>"$out/results"
	elif [ $rc = 0 ]; then
		echo "PASS $name (${secs}s)" >>"$out/results"
	elif [ $rc = 77 ]; then
		echo "SKIP $name $(grep '^SKIP:' "$out/$name.log" | tail -n 1)" >>"$out/results"
	else
		why=$(grep '^FAIL:' "$out/$name.log" | head -n 1)
		[ $rc = 137 ] && why="timed out after ${secs}s"
		echo "FAIL $name rc=$rc ${why:-$(tail -n 1 "$out/$name.log")}" >>"$out/results"
	fi
	tail -n 1 "$out/results"
done
echo "AWKIT-RUN-COMPLETE" >>"$out/results"
