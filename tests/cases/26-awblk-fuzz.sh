#!/bin/sh
# A seeded ioctl fuzzer on the control and device nodes (100,000 calls): no
# oops, no warning (the log scan), and the device still works afterwards.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_awblk || fail "load awblk"
AWCTL=$AWKIT_ROOT/build/tools/awctl
aw_insmod awscsi dev_size_mb=80 physblk_exp=3 atomic_wr=1 || fail insmod
disk=$(aw_disks awscsi) || fail "no disk"
dev=$($AWCTL create /dev/$disk) || fail create
seed=${AWKIT_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed"
$AWKIT_ROOT/build/tools/awfuzz $seed 100000 /dev/awblk-control $dev || fail "awfuzz (seed $seed)"
$AWCTL write $dev --offset 0 --length 4k --atomic --pattern 3 || fail "the device does not work after fuzzing"
ls /sys/block | grep awblk
aw_cleanup || fail cleanup
