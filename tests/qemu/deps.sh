#!/bin/sh
# Install everything awkit needs from Debian 12's archive. Idempotent: when
# every package is present it only checks and returns.
set -e
pkgs="build-essential kmod dkms qemu-system-x86 qemu-utils busybox-static
cpio xz-utils zstd fio sg3-utils nvme-cli python3 gnuplot-nox bc dmsetup
e2fsprogs xfsprogs gcc-multilib procps util-linux postgresql-15
mariadb-server mariadb-client sysbench
linux-image-amd64 linux-headers-amd64"

export DEBIAN_FRONTEND=noninteractive
have_lists() { ls /var/lib/apt/lists/*Packages* >/dev/null 2>&1; }
missing() {
	for p in $pkgs; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'install ok installed' || echo "$p"
	done
}

if [ "$(id -u)" != 0 ]; then
	echo "deps: run as root (apt-get install is needed)" >&2
	exit 1
fi
have_lists || apt-get update -q
# The newest 6.12 kernel Debian 12 ships (bookworm-security).
k612=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
	awk '{print $1}' | sort -V | tail -n 1)
if [ -z "$k612" ]; then
	apt-get update -q
	k612=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
		awk '{print $1}' | sort -V | tail -n 1)
fi
if [ -z "$k612" ]; then
	echo "deps: no linux-image-6.12.*+deb12-amd64-unsigned in the archive; is bookworm-security in sources?" >&2
	exit 1
fi
v612=${k612#linux-image-}
v612=${v612%-unsigned}
pkgs="$pkgs $k612 linux-headers-$v612"

need=$(missing)
if [ -n "$need" ]; then
	echo "deps: installing $(echo $need)"
	apt-get install -y -q --no-install-recommends $need ||
		{ apt-get update -q && apt-get install -y -q --no-install-recommends $need; }
fi
need=$(missing)
if [ -n "$need" ]; then
	echo "deps: still missing: $need" >&2
	exit 1
fi
echo "deps: ok (kernels: $(sh "$(dirname "$0")/kernels.sh" | tr '\n' ' '))"
