#!/bin/sh
# Memory pressure: a memory cgroup of 32 MiB squeezes writers of 48 MiB of
# 64 KiB writes, so their page cache is reclaimed and written back from
# inside the limit. Through an untorn awblk device (buffered, then
# O_DIRECT) and through awfs (untorn, buffered, fsync): every write must
# complete (no deadlock in the split, gather and writeback paths, whose
# pools and work queues must make progress under reclaim), the data must
# read back, the limit must have been hit and nothing OOM-killed.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
CG=/tmp/cg
mkdir -p $CG
mount -t cgroup2 none $CG || fail "mount cgroup2"
echo +memory >$CG/cgroup.subtree_control && mkdir -p $CG/aw &&
	echo 32M >$CG/aw/memory.max || fail "memory cgroup"
[ -e $CG/aw/memory.swap.max ] && echo 0 >$CG/aw/memory.swap.max
squeezed() { sh -c 'echo $$ >'$CG'/aw/cgroup.procs && exec "$@"' sh "$@"; }
head -c 48M /dev/urandom >/tmp/src || fail "source data"
# 1. The raw untorn device: gathered buffered writeback, then O_DIRECT.
aw_load_awblk || fail "load awblk"
aw_insmod awscsi dev_size_mb=64 write_cache=1 atomic_wr=1 \
	atomic_wr_max_length=128 || fail "insmod awscsi"
disk=$(aw_disks awscsi) || fail "no disk"
dev=$($AWCTL create /dev/$disk --untorn 16k) || fail "create --untorn 16k"
u0=$(sed -n 's/^untorn_units //p' /sys/block/${dev#/dev/}/awblk/stats)
ok "buffered 64 KiB writes in 32 MiB" squeezed dd if=/tmp/src of=$dev bs=64k conv=fsync status=none
ok "read back" cmp -n 48M /tmp/src $dev
ok "O_DIRECT 64 KiB writes in 32 MiB" squeezed dd if=/tmp/src of=$dev bs=64k oflag=direct conv=fsync status=none
ok "read back" cmp -n 48M /tmp/src $dev
u1=$(sed -n 's/^untorn_units //p' /sys/block/${dev#/dev/}/awblk/stats)
[ $((u1 - u0)) -ge 3072 ] || fail "only $((u1 - u0)) untorn units for 2 x 48 MiB"
$AWCTL remove $dev && aw_cleanup || fail "remove"
# 2. awfs: untorn units through its page cache and writeback.
aw_awfs_stack 128
mount -t awfs -o unit=16k,untorn $LOWER_MNT/data $AWFS_MNT || fail "mount awfs"
ok "awfs: buffered 64 KiB writes in 32 MiB" squeezed dd if=/tmp/src of=$AWFS_MNT/f bs=64k conv=fsync status=none
echo 3 >/proc/sys/vm/drop_caches
ok "awfs: read back" cmp /tmp/src $AWFS_MNT/f
aw_awfs_down
ev=$(tr "\n" " " <$CG/aw/memory.events)
echo "memory.events: $ev"
case " $ev " in *" max 0 "*) fail "the limit was never hit: nothing was tested" ;; esac
case " $ev " in *" oom_kill 0 "*) ;; *) fail "a writer was OOM-killed" ;; esac
rmdir $CG/aw && umount $CG || fail "cgroup cleanup"
rm -f /tmp/src
