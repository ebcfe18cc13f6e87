#!/bin/bash
# run.sh MODE [CASE]: boot one QEMU (TCG) guest per target kernel with the
# host root shared read-only over 9p and run MODE (check, crash, demo or
# bench) in it.
# check: prints per-kernel counts and ends with "N passed, N failed".
# crash: check's runner on 41-awsw-crash (or CASE) alone, with
# AW_CRASH_CUTS power cuts per kernel (default 500) and AWKIT_SEED (random);
# prints each kernel's awcrash lines too.
set -u
mode=${1:-check}
case_=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kvers=${KVERS:-$(sh "$here/kernels.sh")}
# AW_SLOW=N: a machine N times slower than usual (a loaded one, make check
# BUSY=...): every time limit, the guest's and each case's, N times longer.
slow=${AW_SLOW:-1}
# A whole check runs about 45 minutes per kernel under TCG (alone).
tmo=${GUEST_TIMEOUT:-$((4200 * slow))}
# A full benchmark runs about half an hour per kernel and profile.
[ "$mode" = bench ] && tmo=${GUEST_TIMEOUT:-7200}
# A crash run: about 2 s per cut under TCG, 500 cuts per kernel by default;
# a case's "# awkit-secs-per-cut: N" line says when a cut takes longer.
cuts=""
if [ "$mode" = crash ]; then
	cuts=${AW_CRASH_CUTS:-500}
	case_=${case_:-41-awsw-crash}
	spc=$(cat "$root"/tests/cases/$case_.sh 2>/dev/null |
		sed -n 's/^# awkit-secs-per-cut: \([0-9]*\)$/\1/p' | head -n 1)
	tmo=${GUEST_TIMEOUT:-$((cuts * (${spc:-4} + 1) + 900))}
fi
# The check runner's modes: results, PASS/FAIL lines.
checkish=false
case $mode in check|crash) checkish=true ;; esac
[ -n "$kvers" ] || { echo "run.sh: no target kernels installed (make deps)"; exit 1; }

# An oops or panic in the console log before the first case started.
early_crash() {
	grep -q 'AWKIT-CASE' "$1" && return 1
	grep -qE 'Oops|BUG:|Kernel panic|general protection|end Kernel panic' "$1"
}

boot() { # KVER OUTDIR [EXTRA-KERNEL-ARGS]
	local k=$1 out=$2 extra=${3:-} quiet="" debug=${AWKIT_KDEBUG-slub_debug=FZPU}
	# Tests run with slab debugging; benchmarks and the demo as users run.
	$checkish || { quiet=quiet; debug=""; }
	# Two emulated NVMe controllers (QEMU: AWUN = AWUPF = 0), one namespace
	# each, with 512 and 4096-byte LBAs, on fresh sparse files.
	local nvme="" n
	for n in 512 4096; do
		truncate -s 0 "$out/nvme-$n.img" && truncate -s 64M "$out/nvme-$n.img" || return 1
		nvme="$nvme -drive file=$out/nvme-$n.img,if=none,id=nv$n,format=raw"
		nvme="$nvme -device nvme,serial=awkit$n,drive=nv$n,logical_block_size=$n,physical_block_size=$n"
	done
	timeout -s KILL "$tmo" qemu-system-x86_64 -machine pc,accel=tcg -cpu max \
		-smp 2 -m 3G -nographic -no-reboot -nic none \
		-device virtio-rng-pci $nvme \
		-kernel "/boot/vmlinuz-$k" -initrd "$root/build/$k/initramfs.gz" \
		-append "console=ttyS0,115200 loglevel=5 $quiet panic=-1 $debug log_buf_len=8M mitigations=off scsi_mod.scan=sync rdinit=/init awkit_root=$root awkit_kver=$k awkit_mode=$mode awkit_case=$case_ awkit_cuts=$cuts awkit_seed=${AWKIT_SEED:-} awkit_only=${AWKIT_BENCH_ONLY:-} awkit_profile=${AWKIT_BENCH_PROFILE:-cpu,disk} awkit_slow=$slow $extra" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$root,mount_tag=awsrc,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$out,mount_tag=awout,security_model=none" \
		</dev/null 2>"$out/qemu.err" | tee "$out/console.log" | filter
}

filter() {
	if $checkish; then
		grep --line-buffered -E '^(PASS|FAIL|SKIP|AWKIT-GUEST-FATAL)'
	else
		sed -u -n '/AWKIT-GUEST-START/,$ { /^\[ *[0-9]*\.[0-9]*\]/d; /AWKIT-/d; p; }'
	fi
}

# One kernel's run; its counts go to $root/build/$k/counts-$mode.
run_kernel() { # KVER
	local k=$1 b out attempt start extra secs p f s
	b=$root/build/$k
	mkdir -p "$b"
	rm -f "$b/counts-$mode"
	sh "$here/mkinitramfs.sh" "$k" "$b/initramfs.gz" || return 1
	out=$b/out-$mode
	rm -rf "$out".crashed-*
	echo "== kernel $k: $mode${case_:+ (case $case_)}"
	for attempt in 1 2; do
		rm -rf "$out"
		mkdir -p "$out"
		start=$(date +%s)
		extra=""
		[ $attempt = 1 ] && [ -n "${AWKIT_SELFTEST_EARLY_CRASH:-}" ] && extra=awkit_crash=1
		boot "$k" "$out" $extra
		if ! $checkish; then
			grep -q 'AWKIT-GUEST-DONE' "$out/console.log" && break
		else
			grep -q 'AWKIT-RUN-COMPLETE' "$out/results" 2>/dev/null && break
		fi
		if [ $attempt = 1 ] && early_crash "$out/console.log"; then
			echo "!! kernel $k: the guest crashed during early boot, before any case ran:"
			grep -m 3 -E 'Oops|BUG:|Kernel panic|general protection' "$out/console.log" | sed 's/^/!!   /'
			echo "!! retrying this guest once (a known rare TCG early-boot crash)"
			mv "$out" "$out.crashed-$(date +%s)" 2>/dev/null
			continue
		fi
		break
	done
	secs=$(( $(date +%s) - start ))
	if [ "$mode" = bench ]; then
		for prof in cpu disk; do
			[ -s "$out/bench-$prof.txt" ] || continue
			sh "$root/tests/bench/report.sh" "$out" "$k" "$case_" "$root/build/bench" $prof ||
				echo "!! kernel $k: the benchmark report ($prof) failed"
		done
	fi
	if ! $checkish; then
		f=0
		grep -q 'AWKIT-GUEST-DONE' "$out/console.log" ||
			{ echo "!! kernel $k: the guest did not finish (console: $out/console.log)"; f=1; }
		echo "0 $f 0 $secs" >"$b/counts-$mode"
		return
	fi
	p=$(grep -c '^PASS' "$out/results" 2>/dev/null)
	f=$(grep -c '^FAIL' "$out/results" 2>/dev/null)
	s=$(grep -c '^SKIP' "$out/results" 2>/dev/null)
	p=${p:-0} f=${f:-0} s=${s:-0}
	if ! grep -q 'AWKIT-RUN-COMPLETE' "$out/results" 2>/dev/null; then
		echo "FAIL guest on $k did not finish (after ${secs}s; console: $out/console.log)"
		tail -n 20 "$out/console.log" | sed 's/^/   | /'
		f=$((f + 1))
	fi
	if [ -n "$case_" ] && [ $((p + f + s)) = 0 ]; then
		echo "FAIL no case named $case_ ran"
		f=$((f + 1))
	fi
	if [ "$mode" = crash ]; then
		grep -hE '^(sizes|ok:)' "$out"/*.log 2>/dev/null | sed "s/^/  $k: /"
	fi
	echo "$p $f $s $secs" >"$b/counts-$mode"
}

# AW_PARALLEL=1 (make check PARALLEL=1) runs the kernels side by side, each
# line of output marked with its kernel; every time limit doubles, as each
# guest gets about half the CPU time it would alone. Only a host with more
# cores than two guests' vCPUs gains from it: on 2 cores it is slower.
par=${AW_PARALLEL:-0}
set -- $kvers
[ $# -gt 1 ] && $checkish || par=0
if [ "$par" = 1 ]; then
	slow=$((slow * 2))
	tmo=$((tmo * 2))
	for k in $kvers; do
		run_kernel "$k" 2>&1 | sed -u "s/^/[$k] /" &
	done
	wait
else
	for k in $kvers; do
		run_kernel "$k" || exit 1
	done
fi
pass=0 failn=0 skipn=0 summary=""
for k in $kvers; do
	c=$root/build/$k/counts-$mode
	if [ -s "$c" ]; then
		read -r p f s secs <"$c"
	else
		echo "FAIL kernel $k: no result (the initramfs or the runner failed)"
		p=0 f=1 s=0 secs=0
	fi
	pass=$((pass + p)) failn=$((failn + f)) skipn=$((skipn + s))
	summary="$summary$(printf '  %-24s %3d passed, %3d failed, %3d skipped (%ds)' "$k" "$p" "$f" "$s" "$secs")\n"
done
if $checkish; then
	echo "== summary"
	printf "$summary"
	echo "$pass passed, $failn failed"
fi
[ $failn = 0 ]
