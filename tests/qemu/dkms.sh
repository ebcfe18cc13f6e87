#!/bin/sh
# dkms.sh install VERSION KVER...: put the awkit sources in /usr/src/awkit-VERSION
# and add, build and install the DKMS package for each kernel.
# dkms.sh remove VERSION: remove the package from every kernel.
set -e
cmd=$1
ver=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
src=/usr/src/awkit-$ver
if dkms status -m awkit -v "$ver" 2>/dev/null | grep -q awkit; then
	dkms remove -m awkit -v "$ver" --all >/dev/null
fi
[ "$cmd" = remove ] && { rm -rf "$src"; echo "dkms: awkit $ver removed"; exit 0; }
rm -rf "$src"
mkdir -p "$src"
cp -r "$root/dkms.conf" "$root/Kbuild" "$root/include" "$root/compat" "$root/awscsi" "$root/awblk" "$root/engines" "$root/awfs" "$src/"
dkms add -m awkit -v "$ver" >/dev/null
for k in "$@"; do
	if ! dkms build -m awkit -v "$ver" -k "$k" >/tmp/awkit-dkms.log 2>&1 ||
		! dkms install -m awkit -v "$ver" -k "$k" >>/tmp/awkit-dkms.log 2>&1; then
		cat /tmp/awkit-dkms.log
		cat "/var/lib/dkms/awkit/$ver/build/make.log" 2>/dev/null
		exit 1
	fi
done
dkms status -m awkit -v "$ver"
