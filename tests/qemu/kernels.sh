#!/bin/sh
# Print the target kernel versions, one per line: Debian 12's default 6.1
# (what linux-image-amd64 points at) and the newest installed 6.12 deb12 kernel.
# A kernel counts only when both its image and its headers are installed.
set -e
k61=$(dpkg-query -W -f='${Depends}\n' linux-image-amd64 2>/dev/null |
	sed -n 's/.*linux-image-\([^ ]*\) .*/\1/p' | head -n 1)
k612=$(ls -d /lib/modules/6.12.*+deb12-amd64 2>/dev/null | sed 's,.*/,,' |
	sort -V | tail -n 1)
for k in $k61 $k612; do
	if [ -f "/boot/vmlinuz-$k" ] && [ -d "/lib/modules/$k/build" ]; then
		echo "$k"
	fi
done
