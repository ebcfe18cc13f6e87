#!/bin/sh
# The media model is honest: a reader racing a multi-block normal writer sees
# a mix of old and new blocks at least once; racing WRITE ATOMIC(16), never.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
# Each block takes 20 us to write, so a racing read overlaps a write often.
aw_insmod awscsi dev_size_mb=8 atomic_wr=1 atomic_wr_max_length=256 block_ndelay=20000 || fail insmod
disk=$(aw_disks awscsi) || fail "no disk"
sg=$(aw_sg $disk)
T=$AWKIT_ROOT/build/tools/awtorn
out=$($T race $sg 512 128 30 normal) || fail "awtorn race normal"
echo "$out"
mixed=$(echo "$out" | sed 's/.*mixed=//')
[ "$mixed" -gt 0 ] || fail "no torn read observed with normal writes: the torn-write test has no teeth"
out=$($T race $sg 512 128 10 atomic) || fail "awtorn race atomic"
echo "$out"
reads=$(echo "$out" | sed 's/.*reads=\([0-9]*\).*/\1/')
mixed=$(echo "$out" | sed 's/.*mixed=//')
[ "$reads" -gt 100 ] || fail "too few racing reads ($reads)"
[ "$mixed" = 0 ] || fail "a reader saw a torn atomic write ($mixed times)"
echo "ok: normal writes tear for racing readers, atomic writes never do"
