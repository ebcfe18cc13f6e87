#!/bin/sh
# awctl format on image files (host side; `make unit` runs it): the
# superblock it writes, decoded by tests/tools/awswsb.py (written from the
# format description, with its own crc32c), what it zeroes and what it
# leaves alone, the signatures and superblocks it refuses without --force
# (leaving the image unchanged), bad options and exit codes.
# usage: test_awctl_format.sh [AWCTL]
AWCTL=${1:-build/tools/awctl}
here=$(cd "$(dirname "$0")" && pwd)
SB="python3 $here/../tools/awswsb.py"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 nfail=0
MiB=1048576

good() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
# check DESCRIPTION COMMAND...: the command must succeed.
check() { d=$1; shift; if "$@"; then good; else bad "$d"; fi; }
# expect RC DESCRIPTION COMMAND...: the command must exit with RC; its
# output is in $T/out and $T/err.
expect() {
	want=$1 d=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ "$rc" = "$want" ]; then good; else
		bad "$d: exit $rc, expected $want; stderr: $(cat "$T/err")"; fi
}
# said FILE TEXT: FILE (out or err) contains TEXT.
said() { check "message '$2' in: $(cat "$T/$1")" grep -qF -- "$2" "$T/$1"; }
field() { $SB show "$1" | sed -n "s/^$2 //p"; }
# fields IMAGE KEY=VALUE...: the superblock's fields are these.
fields() {
	img=$1; shift
	$SB show "$img" >"$T/sb"
	for kv in "$@"; do
		got=$(sed -n "s/^${kv%%=*} //p" "$T/sb")
		if [ "$got" = "${kv#*=}" ]; then good; else
			bad "$img: ${kv%%=*} is '$got', expected '${kv#*=}'"; fi
	done
}
sum() { sha256sum "$1" | cut -d' ' -f1; }
# put IMAGE OFFSET HEX: write bytes into an image.
put() { python3 -c "import sys; f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); f.write(bytes.fromhex(sys.argv[3]))" "$@"; }
# range_is IMAGE FROM TO BYTE: bytes [FROM, TO) of IMAGE all equal BYTE.
range_is() {
	python3 -c "import sys; f = open(sys.argv[1], 'rb'); f.seek(int(sys.argv[2])); b = f.read(int(sys.argv[3]) - int(sys.argv[2]))
sys.exit(len(b) != int(sys.argv[3]) - int(sys.argv[2]) or b.count(int(sys.argv[4])) != len(b))" "$@"
}
# refused IMAGE TEXT ARGS...: format refuses (exit 1) with TEXT, image unchanged.
refused() {
	img=$1 text=$2; shift 2
	before=$(sum "$img")
	expect 1 "format $img $* refused ($text)" "$AWCTL" format "$img" "$@"
	said err "$text"
	check "$img unchanged by a refused format" [ "$(sum "$img")" = "$before" ]
}

# A 32 MiB image full of 0xaa: the default layout, byte for byte.
head -c $((32 * MiB)) /dev/zero | tr '\0' '\252' >"$T/img"
expect 0 "format of a 32 MiB image" "$AWCTL" format "$T/img"
check "the summary line: $(cat "$T/out")" [ "$(cat "$T/out")" = \
	"formatted $T/img: data 28 MiB at 4 MiB, journal 4032 KiB, atomic writes up to 65536 bytes" ]
fields "$T/img" magic=AWKITSW1 version=1 flags=0 lbs=512 unit_max=65536 \
	journal_start=65536 journal_size=$((4 * MiB - 65536)) \
	data_start=$((4 * MiB)) data_size=$((28 * MiB)) checkpoint_seq=0 \
	crc_ok=1 reserved_zero=1
uuid1=$(field "$T/img" uuid)
check "uuid is not zero" [ "$uuid1" != 00000000000000000000000000000000 ]
check "the image keeps its size" [ "$(stat -c %s "$T/img")" = $((32 * MiB)) ]
check "bytes 4 KiB to 68 KiB are zeroed" range_is "$T/img" 4096 69632 0
check "the journal beyond 68 KiB and the data are left alone" \
	range_is "$T/img" 69632 $((32 * MiB)) 170

expect 0 "format --force of a formatted image" "$AWCTL" format "$T/img" --force
said err "already formatted"
uuid2=$(field "$T/img" uuid)
check "a new format has a new uuid ($uuid1 $uuid2)" [ "$uuid1" != "$uuid2" ]
fields "$T/img" crc_ok=1 data_start=$((4 * MiB))

# Options: the journal size and the largest atomic write.
truncate -s 64M "$T/img64"
expect 0 "--journal 1m --unit-max 128k" "$AWCTL" format "$T/img64" --journal 1m --unit-max 128k
check "summary: $(cat "$T/out")" [ "$(cat "$T/out")" = \
	"formatted $T/img64: data 62 MiB at 2 MiB, journal 1 MiB, atomic writes up to 131072 bytes" ]
fields "$T/img64" unit_max=131072 journal_start=65536 journal_size=$MiB \
	data_start=$((2 * MiB)) data_size=$((62 * MiB)) crc_ok=1
expect 0 "--unit-max 1m (the largest)" "$AWCTL" format "$T/img64" --unit-max 1m --force
fields "$T/img64" unit_max=$MiB journal_size=$((8 * MiB - 65536)) \
	data_start=$((8 * MiB)) data_size=$((56 * MiB)) crc_ok=1
expect 0 "--unit-max 512 (one block)" "$AWCTL" format "$T/img64" --unit-max 512 --force
fields "$T/img64" unit_max=512 crc_ok=1
expect 0 "--journal 2052k, 1 KiB above a MiB multiple" "$AWCTL" format "$T/img64" --journal 2052k --force
fields "$T/img64" journal_size=$((2052 * 1024)) data_start=$((3 * MiB)) crc_ok=1
# A size that is no multiple of a MiB: the data area runs to the end.
truncate -s $((33 * MiB + 512)) "$T/odd"
expect 0 "an image of 33 MiB + 512 bytes" "$AWCTL" format "$T/odd"
fields "$T/odd" data_start=$((4 * MiB)) data_size=$((29 * MiB + 512)) crc_ok=1
check "summary of an odd size: $(cat "$T/out")" grep -qF "data 30409216 bytes at 4 MiB" "$T/out"

# An awkit superblock already there: intact, damaged, of another version,
# not fitting the device. Each is refused and the image left unchanged.
truncate -s 32M "$T/f"
"$AWCTL" format "$T/f" >/dev/null || bad "format of a blank image"
refused "$T/f" "already formatted for the software engine (data 28 MiB at 4 MiB"
refused "$T/f" "already formatted" --unit-max 128k
$SB flip "$T/f" 40
refused "$T/f" "damaged awkit superblock (superblock checksum mismatch)"
$SB flip "$T/f" 40
$SB set "$T/f" version=2
refused "$T/f" "damaged awkit superblock (superblock version is not supported)"
$SB set "$T/f" version=1 data_size=$((29 * MiB))
refused "$T/f" "damaged awkit superblock (data area runs past the end of the device)"
$SB set "$T/f" data_size=$((28 * MiB)) magic=AWKITSW2
refused "$T/f" "damaged awkit superblock (awkit superblock of an unknown format)"
expect 0 "--force over a damaged superblock" "$AWCTL" format "$T/f" --force
said err "damaged awkit superblock"
fields "$T/f" magic=AWKITSW1 crc_ok=1

# Foreign signatures (offset, bytes, name as awsw_foreign_signature says).
while read -r off hex name; do
	truncate -s 0 "$T/s" && truncate -s 32M "$T/s"
	put "$T/s" "$off" "$hex"
	refused "$T/s" "holds a signature of $name"
	expect 0 "--force over $name" "$AWCTL" format "$T/s" --force
	said err "holds a signature of $name; formatting over it (--force)"
	fields "$T/s" magic=AWKITSW1 crc_ok=1
	n=$(( ${#hex} / 2 ))
	if [ "$off" -ge 84 ]; then
		check "$name signature zeroed" range_is "$T/s" "$off" $((off + n)) 0
	fi
done <<'EOF'
1080 53ef ext2/3/4
65600 5f42485266535f4d btrfs
0 58465342 XFS
0 4c554b53babe LUKS
4086 53574150535041434532 swap
512 4546492050415254 GPT partition table
4096 fc4e2ba9 Linux MD RAID member
EOF
# The MBR row needs its boot signature too: check that case by itself.
truncate -s 0 "$T/s" && truncate -s 32M "$T/s"
put "$T/s" 446 0000000083
put "$T/s" 510 55aa
refused "$T/s" "holds a signature of MBR partition table"
expect 0 "--force over an MBR" "$AWCTL" format "$T/s" --force
check "boot signature zeroed" range_is "$T/s" 510 512 0

# Parameters format refuses (exit 1, the layout's reason), image unchanged.
truncate -s 32M "$T/b"
for u in 12k 2m 256 3 8g; do
	refused "$T/b" "largest atomic write is not a power of two" --unit-max $u
done
refused "$T/b" "journal is too small for the largest atomic write" --journal 4k
refused "$T/b" "journal is too small for the largest atomic write" --journal 4m --unit-max 1m
refused "$T/b" "journal is not aligned to the logical block size" --journal 1000000
refused "$T/b" "device is too small for the format" --journal 32m
check "refused parameters wrote nothing" range_is "$T/b" 0 $((32 * MiB)) 0
for sz in 2M 1M 4096 0; do
	truncate -s 0 "$T/small" && truncate -s $sz "$T/small"
	refused "$T/small" "device is too small for the format"
done
truncate -s $((32 * MiB + 100)) "$T/ragged"
refused "$T/ragged" "device size is not a multiple of the logical block size"

# Usage errors: exit 2, nothing written.
for args in "--unit-max 12x" "--unit-max 0" "--unit-max -4k" "--journal 0" \
	"--journal junk" "--bogus" "--unit-max"; do
	# shellcheck disable=SC2086
	expect 2 "format IMG $args" "$AWCTL" format "$T/b" $args
	said err "Try 'awctl format --help'"
done
expect 2 "format without LOWER" "$AWCTL" format
said err "format needs one LOWER"
expect 2 "format with two LOWERs" "$AWCTL" format "$T/b" "$T/img"
check "usage errors wrote nothing" range_is "$T/b" 0 $((32 * MiB)) 0

# What is not a device or an image.
expect 1 "format of a missing file" "$AWCTL" format "$T/missing"
said err "No such file or directory"
check "no file created" [ ! -e "$T/missing" ]
expect 1 "format of /dev/null" "$AWCTL" format /dev/null
said err "not a block device or a regular file"
expect 1 "format of a directory" "$AWCTL" format "$T"
said err "not a block device or a regular file"
if [ "$(id -u)" != 0 ]; then
	truncate -s 32M "$T/ro" && chmod 444 "$T/ro"
	expect 1 "format of a read-only image" "$AWCTL" format "$T/ro"
	said err "Permission denied"
fi

# Help.
expect 0 "format --help" "$AWCTL" format --help
said out "usage: awctl format LOWER [--journal BYTES] [--unit-max BYTES] [--force]"
expect 0 "awctl --help" "$AWCTL" --help
said out "format LOWER [--journal BYTES] [--unit-max BYTES] [--force]"

echo "$pass passed, $nfail failed"
[ "$nfail" = 0 ]
