#!/bin/sh
# awfs's atomic writes reach the disk around the lower file system, so
# their cache flush is awfs's own. With the disk's write cache on and ext4
# (bigalloc) or XFS (stripe unit = the unit) below: 48 units rewritten whole
# then one syncfs(), or four threads rewriting their own units each with an
# fdatasync() (their fsyncs overlap each other's writes); then the power
# goes and stays off until awfs, the lower file system and awblk are torn
# down; after a reattach not one acknowledged unit may be missing. An
# fdatasync costs the disk one cache flush, not two.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_awblk || fail "load awblk"
aw_insmod awfs || fail "insmod awfs"
modprobe ext4 && modprobe xfs || fail "modprobe ext4 xfs"
AWCTL=$AWKIT_ROOT/build/tools/awctl
CTL=/sys/devices/awscsi
D="python3 $AWKIT_ROOT/tests/tools/awfsdurable.py"
L=/tmp/dur-lower M=/tmp/dur-awfs N=48
mkdir -p $L $M
seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
up() { # FS: awblk over $disk, the lower file system, awfs over its dir
	dev=$($AWCTL create /dev/$disk --engine scsi) || fail "create"
	mount -t $1 $dev $L && mkdir -p $L/d || fail "mount $1"
	mount -t awfs -o unit=16k,untorn $L/d $M || fail "mount awfs"
}
disk_flushes() { sed -n 's/.* flushes \([0-9]*\) .*/\1/p' $CTL/stats; }
# The lower fsync's cache flush began after awfs's atomic writes had
# completed, so it made them durable: awfs sends no second one (and none
# fewer: each fdatasync must reach the disk's cache at least once).
awblk_flushes() { sed -n 's/^flushes //p' $cnt; }
one_flush_each() {
	k=16 f0=$(disk_flushes) a0=$(awblk_flushes)
	$D fsyncs $M/f $k $seed 1 >/dev/null || fail "fdatasyncs ($what)"
	n=$(($(disk_flushes) - f0)) a=$(($(awblk_flushes) - a0))
	echo "$what: $n cache flushes for $k fdatasyncs ($a through awblk)"
	[ $n -ge $k ] && [ $n -le $((k + k / 4)) ] && [ $a -ge $k ] ||
		fail "$what: $n cache flushes ($a through awblk) for $k fdatasyncs, want one each"
}
run() { # FS HOW
	fs=$1 how=$2 what="awfs on $1, $2"
	mb=96
	[ $fs = xfs ] && mb=384		# XFS needs 300 MB
	aw_insmod awscsi dev_size_mb=$mb write_cache=1 atomic_wr=1 \
		atomic_wr_max_length=128 atomic_wr_align=1 atomic_wr_gran=1 ||
		fail "insmod awscsi"
	disk=$(aw_disks awscsi) || fail "no disk"
	dev=$($AWCTL create /dev/$disk --engine scsi) || fail "create"
	case $fs in
	# Inode tables zeroed now: no lazy init's flush during the count.
	ext4) mkfs.ext4 -q -F -O bigalloc -C 16384 -b 4096 \
		-E lazy_itable_init=0 $dev ;;
	xfs) mkfs.xfs -f -q -l size=64m -d su=16k,sw=1,agcount=2 $dev ;;
	esac >/dev/null || fail "mkfs.$fs"
	$AWCTL remove $dev || fail "remove"
	up $fs
	$D prep $M/f $N >/dev/null || fail "prep ($what)"
	cnt=/sys/block/${dev#/dev/}/awblk/stats
	[ $how = fsyncs ] && one_flush_each
	before=$(sed -n 's/^atomic_writes //p' $cnt)
	case $how in
	syncfs) $D syncfs $M/f $N $seed ;;
	*) $D fsyncs $M/f $N $seed 4 ;;
	esac >/dev/null || fail "writer ($what)"
	after=$(sed -n 's/^atomic_writes //p' $cnt)
	[ "$after" -ge $((before + N)) ] ||
		fail "$what: $((after - before)) atomic writes for $N units"
	echo 0 >$CTL/powered
	# Power off: tear down everything above the disk, as a reboot would.
	umount $M 2>/dev/null || umount -l $M || fail "umount awfs after the cut"
	umount $L 2>/dev/null || umount -l $L || fail "umount $fs after the cut"
	$AWCTL remove $dev || fail "remove after the cut"
	echo 0 >$CTL/attached && echo 1 >$CTL/powered && echo 1 >$CTL/attached ||
		fail "reattach"
	disk=$(aw_disks awscsi) || fail "no disk after the reattach"
	up $fs
	r=$($D check $M/f $N $seed)
	echo "$what: $r"
	umount $M && umount $L && $AWCTL remove $dev && aw_unload awscsi ||
		fail "tear down"
	case $r in *" lost=0"*) ;; *) fail "$what: acknowledged data lost ($r)" ;; esac
}
for fs in xfs ext4; do
	run $fs syncfs
	run $fs fsyncs
done
aw_unload awfs || fail "unload awfs"
