# Shell helpers for guest cases (sourced). Everything runs as root in the guest.
AW_MOD=${AWKIT_ROOT}/build/${KVER}
# Kernel log lines that fail any case.
AW_BAD='WARNING:|BUG:|BUG [a-z]|kernel BUG|Oops|general protection|list_add corruption|list_del corruption|Poison overwritten|Redzone|Object padding|Padding overwritten|Freepointer|soft lockup|hard LOCKUP|blocked for more than|rcu_.*stall|rcu: INFO|UBSAN|refcount_t:|Call Trace|double free|use-after-free'

aw_scan_log() { grep -E "$AW_BAD"; }

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "-- $*"; }
# expect DESCRIPTION COMMAND...: the command must succeed.
ok() { d=$1; shift; "$@" || fail "$d (command: $*)"; echo "ok: $d"; }

# Is the running kernel at least MAJOR.MINOR?
aw_kernel_at_least() {
	v=$(uname -r); maj=${v%%.*}; rest=${v#*.}; min=${rest%%.*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }
}

aw_load_scsi() { modprobe sd_mod && modprobe sg; }

# aw_insmod NAME ARGS...: load a module from this kernel's build of the tree.
aw_insmod() { m=$1; shift; insmod "$AW_MOD/$m/$m.ko" "$@"; }

# aw_disks DRIVER [N]: print the block device names (sda ...) of the SCSI
# disks whose host is DRIVER (awscsi or scsi_debug), waiting for N to appear.
aw_disks() {
	drv=$1; want=${2:-1}; i=0
	while :; do
		list=""
		for h in /sys/class/scsi_host/host*; do
			[ "$(cat "$h/proc_name" 2>/dev/null)" = "$drv" ] || continue
			hn=${h##*/host}
			for d in /sys/class/scsi_disk/"$hn":*; do
				[ -d "$d/device/block" ] || continue
				b=$(ls "$d/device/block" | head -n 1)
				[ -b "/dev/$b" ] && [ "$(cat "/sys/block/$b/size")" != 0 ] && list="$list $b"
			done
		done
		n=$(echo $list | wc -w)
		if [ "$n" -ge "$want" ]; then echo $list; return 0; fi
		i=$((i + 1))
		[ $i -gt 200 ] && { echo "aw_disks: $drv has $n of $want disks" >&2; return 1; }
		sleep 0.1
	done
}

# aw_sg BLOCKNAME: the sg node of a SCSI disk.
aw_sg() { echo "/dev/$(ls "/sys/block/$1/device/scsi_generic")"; }

aw_unload() {
	for m in "$@"; do
		if [ -d "/sys/module/$m" ]; then
			i=0
			until rmmod "$m" 2>/dev/null; do
				i=$((i + 1)); [ $i -gt 50 ] && { echo "cannot unload $m" >&2; return 1; }
				sleep 0.1
			done
		fi
	done
	return 0
}

# awblk from Python: aw_awblk create LOWER [ENGINE] [UNIT_MAX] [UNTORN] -> /dev/awblkN
aw_awblk() {
	python3 -c "import sys; sys.path.insert(0, '$AWKIT_ROOT/tests/tools'); import awblkio as A
a = sys.argv[1:]
if a[0] == 'create':
    print(A.create(a[1], *(a[2:3] or ['auto']), *[int(x) for x in a[3:5]]))
else:
    A.remove(int(a[1]))" "$@"
}

# Load awblk and the SCSI engine from this kernel's build of the tree.
aw_load_awblk() {
	aw_load_scsi && aw_insmod awblk && insmod "$AW_MOD/awscsi/awscsi_engine.ko"
}

# Remove every awblk device and unload all of awkit's modules.
aw_cleanup() {
	for d in /sys/block/awblk*; do
		[ -e "$d" ] && aw_awblk remove "${d##*awblk}"
	done
	aw_unload awscsi_engine awblk awscsi scsi_debug
}
