#!/bin/sh
# The DKMS-installed modules load with plain modprobe.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
path=$(modinfo -n awscsi) || fail "modinfo finds no awscsi: is the DKMS package installed for $KVER?"
echo "awscsi: $path"
case "$path" in */updates/dkms/*) ;; *) fail "awscsi is not the DKMS-installed module: $path" ;; esac
modprobe awscsi num_tgts=2 atomic_wr=1 || fail "modprobe awscsi"
disks=$(aw_disks awscsi 2) || fail "two disks"
echo "ok: modprobe awscsi gives $disks"
modprobe -r awscsi || fail "modprobe -r"
