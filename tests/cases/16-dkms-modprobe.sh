#!/bin/sh
# The DKMS-installed modules load with plain modprobe, engines on demand.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
path=$(modinfo -n awscsi) || fail "modinfo finds no awscsi: is the DKMS package installed for $KVER?"
echo "awscsi: $path"
case "$path" in */updates/dkms/*) ;; *) fail "awscsi is not the DKMS-installed module: $path" ;; esac
modprobe awscsi num_tgts=2 atomic_wr=1 || fail "modprobe awscsi"
disks=$(aw_disks awscsi 2) || fail "two disks"
echo "ok: modprobe awscsi gives $disks"
modprobe -r awscsi || fail "modprobe -r"
# awblk and its SCSI engine too: the engine loads on demand by alias.
modprobe awscsi atomic_wr=1 || fail "modprobe awscsi"
disk=$(aw_disks awscsi) || fail "no disk"
modprobe awblk "lower=/dev/$disk" || fail "modprobe awblk lower=/dev/$disk"
i=0
until [ -b /dev/awblk0 ] && [ -e /sys/block/awblk0/awblk/engine ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "no /dev/awblk0 after modprobe awblk lower=/dev/$disk"
	sleep 0.1
done
[ "$(cat /sys/block/awblk0/awblk/engine)" = scsi ] || fail "engine not scsi: $(cat /sys/block/awblk0/awblk/engine)"
case "$(modinfo -n awscsi_engine)" in */updates/dkms/*) ;; *) fail "awscsi_engine not from DKMS" ;; esac
echo "ok: modprobe awblk lower=/dev/$disk gives /dev/awblk0 with the scsi engine"
aw_cleanup || fail "cleanup"
# The NVMe engine, on demand too, over QEMU's emulated NVMe: awctl (the
# tree's) hands it the Identify data.
modprobe nvme || fail "modprobe nvme"
ns=$(aw_nvme_disks QEMU 1) || fail "no NVMe namespace"
ns=${ns%% *}
modprobe awblk || fail "modprobe awblk"
dev=$($AWKIT_ROOT/build/tools/awctl create /dev/$ns) || fail "awctl create /dev/$ns"
[ "$(cat /sys/block/${dev#/dev/}/awblk/engine)" = nvme ] || fail "engine not nvme"
case "$(modinfo -n awnvme)" in */updates/dkms/*) ;; *) fail "awnvme not from DKMS" ;; esac
grep -q '^awnvme ' /proc/modules || fail "awnvme is not loaded"
echo "ok: awctl create /dev/$ns loads the DKMS-installed awnvme on demand"
aw_cleanup || fail "cleanup"
# The software engine, on demand too, over a disk that awctl formatted.
modprobe awscsi atomic_wr=0 || fail "modprobe awscsi"
disk=$(aw_disks awscsi) || fail "no disk"
$AWKIT_ROOT/build/tools/awctl format /dev/$disk >/dev/null || fail "awctl format /dev/$disk"
modprobe awblk || fail "modprobe awblk"
dev=$($AWKIT_ROOT/build/tools/awctl create /dev/$disk) || fail "awctl create /dev/$disk"
[ "$(cat /sys/block/${dev#/dev/}/awblk/engine)" = sw ] || fail "engine not sw"
case "$(modinfo -n awsw)" in */updates/dkms/*) ;; *) fail "awsw not from DKMS" ;; esac
grep -q '^awsw ' /proc/modules || fail "awsw is not loaded"
echo "ok: awctl create over a formatted disk loads the DKMS-installed awsw on demand"
aw_cleanup || fail "cleanup"
