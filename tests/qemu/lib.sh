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
		[ $i -gt $((200 * ${AW_SLOW:-1})) ] && { echo "aw_disks: $drv has $n of $want disks" >&2; return 1; }
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
				i=$((i + 1)); [ $i -gt $((50 * ${AW_SLOW:-1})) ] && { echo "cannot unload $m" >&2; return 1; }
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

# Load awblk with the SCSI and software engines from this kernel's build of
# the tree. The software engine uses the kernel's crc32c, which takes the
# best implementation loaded: under TCG, emulating the crc32 instruction
# (crc32c-intel) is far slower than the generic tables, so use those
# (modprobe libcrc32c would pull crc32c-intel in as a soft dependency).
aw_load_awblk() {
	aw_load_scsi && modprobe crc32c_generic &&
	{ grep -q '^libcrc32c ' /proc/modules || insmod "$(modinfo -n libcrc32c)"; } &&
	aw_insmod awblk && insmod "$AW_MOD/engines/scsi/awscsi_engine.ko" &&
	insmod "$AW_MOD/engines/sw/awsw.ko"
}
aw_load_awsw() { aw_load_awblk; }

# Load awblk with the NVMe engine (and the SCSI one).
aw_load_awnvme() { aw_load_awblk && insmod "$AW_MOD/engines/nvme/awnvme.ko"; }

# aw_nvme_disks MODEL [N]: the namespaces (nvme0n1 ...) of the NVMe
# controllers whose model starts with MODEL (QEMU: QEMU's emulated ones;
# Linux: nvmet's), waiting for N to appear. Sorted by logical block size,
# then name. (A multipath head's device is its subsystem, which has a model.)
aw_nvme_disks() {
	model=$1; want=${2:-1}; i=0
	while :; do
		list=""
		for b in /sys/block/nvme*n*; do
			[ -e "$b" ] || continue
			case "$(cat "$b/device/model" 2>/dev/null)" in
			"$model"*) ;;
			*) continue ;;
			esac
			n=${b##*/}
			[ -b "/dev/$n" ] && [ "$(cat "$b/size")" != 0 ] &&
				list="$list $(cat "$b/queue/logical_block_size"):$n"
		done
		n=$(echo $list | wc -w)
		if [ "$n" -ge "$want" ]; then
			echo $list | tr ' ' '\n' | sort -t: -k1,1n -k2 | cut -d: -f2 | tr '\n' ' '
			echo
			return 0
		fi
		i=$((i + 1))
		[ $i -gt $((300 * ${AW_SLOW:-1})) ] && { echo "aw_nvme_disks: $n of $want $model namespaces" >&2; return 1; }
		sleep 0.1
	done
}

# NVMe over TCP on the guest's own loopback, with Linux's target (nvmet).
AW_NVMET=/sys/kernel/config/nvmet
AW_NQN=nqn.2026-12.org.awkit:loop

aw_nvmet_setup() {
	for m in nvmet nvmet_tcp nvme_tcp; do modprobe $m || return 1; done
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	ip link set lo up
}

# aw_nvmet_export BLOCKNAME: export it on 127.0.0.1:4420 and connect to it.
aw_nvmet_export() {
	# Local: a caller's S or P (the benchmark's awscsi parameters) stays.
	local S=$AW_NVMET/subsystems/$AW_NQN P=$AW_NVMET/ports/1
	mkdir $S && echo 1 >$S/attr_allow_any_host &&
	mkdir $S/namespaces/1 && echo -n "/dev/$1" >$S/namespaces/1/device_path &&
	echo 1 >$S/namespaces/1/enable &&
	mkdir $P && echo tcp >$P/addr_trtype && echo ipv4 >$P/addr_adrfam &&
	echo 127.0.0.1 >$P/addr_traddr && echo 4420 >$P/addr_trsvcid &&
	ln -s $S $P/subsystems/$AW_NQN &&
	echo "transport=tcp,traddr=127.0.0.1,trsvcid=4420,nqn=$AW_NQN" >/dev/nvme-fabrics
}

# Disconnect every NVMe/TCP controller and take the export down.
aw_nvmet_unexport() {
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat $c/transport 2>/dev/null)" = tcp ] && echo 1 >$c/delete_controller
	done
	rm -f $AW_NVMET/ports/1/subsystems/$AW_NQN
	rmdir $AW_NVMET/ports/1 2>/dev/null
	[ -d $AW_NVMET/subsystems/$AW_NQN ] || return 0
	echo 0 >$AW_NVMET/subsystems/$AW_NQN/namespaces/1/enable
	rmdir $AW_NVMET/subsystems/$AW_NQN/namespaces/1 $AW_NVMET/subsystems/$AW_NQN
}

# aw_mbr DEV START:SECTORS...: an MBR on DEV with these Linux partitions,
# read again (BLKRRPART); then wait for their nodes, which devtmpfs makes a
# moment after BLKRRPART returns (DEVN, or DEVpN when DEV ends in a digit).
aw_mbr() {
	local dev=$1 p n=0 i
	shift
	python3 - "$dev" "$@" <<'PYEOF' || return 1
import fcntl, os, struct, sys
mbr = bytearray(512)
for i, part in enumerate(sys.argv[2:]):
    start, n = (int(x) for x in part.split(":"))
    mbr[446 + 16 * i:462 + 16 * i] = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", start, n)
mbr[510:512] = b"\x55\xaa"
fd = os.open(sys.argv[1], os.O_RDWR)
os.pwrite(fd, bytes(mbr), 0)
os.fsync(fd)
fcntl.ioctl(fd, 0x125f)   # BLKRRPART
os.close(fd)
PYEOF
	case $dev in *[0-9]) p=${dev}p ;; *) p=$dev ;; esac
	for _ in "$@"; do
		n=$((n + 1)) i=0
		until [ -b "$p$n" ]; do
			i=$((i + 1))
			[ $i -gt $((100 * ${AW_SLOW:-1})) ] && { echo "aw_mbr: no $p$n" >&2; return 1; }
			sleep 0.1
		done
	done
}

# Remove every awblk device and unload all of awkit's modules.
aw_cleanup() {
	for d in /sys/block/awblk*; do
		[ -e "$d" ] && aw_awblk remove "${d##*awblk}"
	done
	[ -d $AW_NVMET/subsystems/$AW_NQN ] && aw_nvmet_unexport
	aw_unload awscsi_engine awnvme awsw awblk awscsi scsi_debug
}

# aw_sw_format LOWER: a fresh sw engine format on LOWER.
aw_sw_format() { "$AWKIT_ROOT/build/tools/awctl" format "$1" --force >/dev/null; }

# aw_sum_stat FILE NAME: the sum of "NAME N" over the engine_stats lines
# awsw-attach.sh logged.
aw_sum_stat() { tr ' ' '\n' <"$1" | awk -v n="$2" 'p == n { s += $1 } { p = $1 } END { print s + 0 }'; }

# aw_mariadbd DATADIR RUNDIR LOG OPTION...: become mariadbd as the MariaDB
# case and benchmark run it (call it in the background: $! is the server),
# its socket RUNDIR/my.sock: 16 KiB pages written with O_DIRECT, every
# commit durable, no binary log, no network, no buffer-pool dump or reload.
aw_mariadbd() {
	local d=$1 r=$2 l=$3
	shift 3
	exec /usr/sbin/mariadbd --no-defaults --user=mysql --datadir=$d \
		--socket=$r/my.sock --pid-file=$r/my.pid --skip-networking \
		--log-error=$l --innodb-flush-method=O_DIRECT \
		--innodb-page-size=16k --innodb-flush-log-at-trx-commit=1 \
		--innodb-buffer-pool-load-at-startup=0 \
		--innodb-buffer-pool-dump-at-shutdown=0 --skip-log-bin "$@"
}

# aw_race_check DEV MIN_READS: readers racing atomic writes to DEV's first
# 64 KiB unit never see it mixed (at least MIN_READS reads), and readers
# racing plain writes do (the check has teeth).
aw_race_check() {
	local out reads
	# The race starts from a uniform unit.
	dd if=/dev/zero of=$1 bs=64k count=1 oflag=direct status=none || fail "zero unit 0 of $1"
	out=$("$AWKIT_ROOT/build/tools/awcrash" race $1 65536 10 atomic) || fail "race atomic on $1"
	echo "$out"
	case "$out" in *" mixed=0") ;; *) fail "a reader saw a torn atomic write on $1" ;; esac
	reads=$(echo "$out" | sed 's/.*reads=\([0-9]*\).*/\1/')
	[ "$reads" -gt $2 ] || fail "too few reads ($reads)"
	out=$("$AWKIT_ROOT/build/tools/awcrash" race $1 65536 30 normal) || fail "race normal on $1"
	echo "$out"
	case "$out" in *" mixed=0") fail "plain writes never tore for a racing reader on $1: no teeth" ;; esac
}

# aw_sw_crash_setup: for the software engine's power-cut cases: awsw
# loaded and one awscsi disk (24 MiB, write cache on, no atomic support)
# in $disk; $C (awcrash), $CTL (awscsi's controls), $AWCTL, $seed
# (AWKIT_SEED or random), $R (the command that attaches again) and
# AWSW_STATS (where it logs the engine's counts).
aw_sw_crash_setup() {
	aw_load_awsw || fail "load awsw"
	CTL=/sys/devices/awscsi
	C=$AWKIT_ROOT/build/tools/awcrash
	AWCTL=$AWKIT_ROOT/build/tools/awctl
	aw_insmod awscsi dev_size_mb=24 write_cache=1 atomic_wr=0 || fail insmod
	disk=$(aw_disks awscsi) || fail "no disk"
	seed=${AWKIT_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
	export AWSW_STATS=/tmp/awsw-stats
	R="sh $AWKIT_ROOT/tests/qemu/awsw-attach.sh /dev/$disk"
}
