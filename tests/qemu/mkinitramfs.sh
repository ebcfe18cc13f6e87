#!/bin/sh
# mkinitramfs.sh KVER OUT: a tiny initramfs (static busybox, the virtio and 9p
# modules of KVER, our init) that mounts the host's root read-only over 9p.
set -e
kver=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/mods" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/root"
cp /bin/busybox "$tmp/bin/busybox"
ln -s busybox "$tmp/bin/sh"
: >"$tmp/mods/order"
for m in virtio_pci 9pnet_virtio 9p virtio_rng; do
	modprobe -S "$kver" --show-depends "$m"
done | awk '$1 == "insmod" {print $2}' | while read -r ko; do
	name=$(basename "$ko")
	grep -qx "${name%.xz}" "$tmp/mods/order" && continue
	case "$ko" in
	*.xz) xz -dc "$ko" >"$tmp/mods/${name%.xz}" ;;
	*.zst) zstd -qdc "$ko" >"$tmp/mods/${name%.zst}" ;;
	*) cp "$ko" "$tmp/mods/$name" ;;
	esac
	echo "${name%.xz}" >>"$tmp/mods/order"
done
cp "$here/init" "$tmp/init"
chmod +x "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
