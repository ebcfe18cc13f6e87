#!/bin/sh
# Reads through awfs ask no more of the disk than the same reads of the
# lower file: awfs reads ahead in the lower page cache the window the
# kernel chose for its own file, whose readahead size is the lower file
# system's. Over ext4 (bigalloc) on awblk, a 32 MiB
# file: 1500 reads of 8 KiB units in a random order (a database's index
# lookups) and one sequential read (a scan or a copy), each from a cold
# cache, on the lower file directly and through awfs (unit=8k, untorn).
# Through awfs the random reads may move at most a quarter more data, and
# the sequential one may take at most twice the commands.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
. "$AWKIT_ROOT/tests/qemu/awfs-lib.sh"
aw_awfs_stack 128
L=$LOWER_MNT/data M=$AWFS_MNT
mount -t awfs -o unit=8k,untorn $L $M || fail "mount awfs"
dd if=/dev/urandom of=$L/f bs=1M count=32 status=none && sync ||
	fail "write the file"
echo "-- readahead: $(cat /sys/block/${dev#/dev/}/queue/read_ahead_kb) KiB below, $(cat /sys/class/bdi/awfs-*/read_ahead_kb) KiB on awfs"
seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')

# reads FILE random|seq: "COMMANDS SECTORS" the disk read for it, cold.
reads() {
	local a b
	sync && echo 3 >/proc/sys/vm/drop_caches || return 1
	a=$(awk '{ print $1, $3 }' /sys/block/$disk/stat)
	python3 - "$1" "$2" "$seed" <<-'EOF' || return 1
	import os, random, sys
	fd = os.open(sys.argv[1], os.O_RDONLY)
	units = os.fstat(fd).st_size // 8192
	if sys.argv[2] == "seq":
	    order = range(units)
	else:
	    order = random.Random(int(sys.argv[3])).sample(range(units), 1500)
	for u in order:
	    if len(os.pread(fd, 8192, u * 8192)) != 8192:
	        sys.exit("short read of unit %d" % u)
	EOF
	b=$(awk '{ print $1, $3 }' /sys/block/$disk/stat)
	echo "$a $b" | awk '{ print $3 - $1, $4 - $2 }'
}

for m in random seq; do
	r=$(reads $L/f $m) || fail "$m reads of the lower file"
	lc=${r% *} ls=${r#* }
	r=$(reads $M/f $m) || fail "$m reads through awfs"
	ac=${r% *} as=${r#* }
	echo "-- $m: the lower file $lc reads, $((ls / 2)) KiB; awfs $ac reads, $((as / 2)) KiB"
	[ "$ls" -gt 0 ] && [ "$as" -gt 0 ] || fail "$m: nothing was read from the disk"
	case $m in
	random)
		[ $((as * 4)) -le $((ls * 5)) ] ||
			fail "random 8 KiB reads through awfs read $((as / 2)) KiB, the lower file's $((ls / 2)) KiB (seed $seed)"
		;;
	seq)
		[ "$ac" -le $((lc * 2)) ] ||
			fail "a sequential read through awfs took $ac commands, the lower file's $lc"
		;;
	esac
	echo "ok: $m reads through awfs cost the disk what the lower file's do"
done
umount $M || fail "umount awfs"
aw_awfs_down
