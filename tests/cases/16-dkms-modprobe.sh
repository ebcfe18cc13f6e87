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
# on_demand LOWER ENGINE MODULE: awctl create over LOWER picks ENGINE, its
# MODULE loaded on demand from the DKMS install.
on_demand() {
	modprobe awblk || fail "modprobe awblk"
	dev=$($AWKIT_ROOT/build/tools/awctl create $1) || fail "awctl create $1"
	[ "$(cat /sys/block/${dev#/dev/}/awblk/engine)" = $2 ] || fail "engine not $2"
	case "$(modinfo -n $3)" in */updates/dkms/*) ;; *) fail "$3 not from DKMS" ;; esac
	grep -q "^$3 " /proc/modules || fail "$3 is not loaded"
	echo "ok: awctl create $1 loads the DKMS-installed $3 on demand"
	aw_cleanup || fail "cleanup"
}
# The NVMe engine, on demand too, over QEMU's emulated NVMe: awctl (the
# tree's) hands it the Identify data.
modprobe nvme || fail "modprobe nvme"
ns=$(aw_nvme_disks QEMU 1) || fail "no NVMe namespace"
ns=${ns%% *}
on_demand /dev/$ns nvme awnvme
# The software engine, on demand too, over a disk that awctl formatted.
modprobe awscsi atomic_wr=0 || fail "modprobe awscsi"
disk=$(aw_disks awscsi) || fail "no disk"
$AWKIT_ROOT/build/tools/awctl format /dev/$disk >/dev/null || fail "awctl format /dev/$disk"
on_demand /dev/$disk sw awsw
# awfs: mount -t awfs loads the DKMS-installed module by its fs-awfs alias.
modprobe awscsi atomic_wr=1 || fail "modprobe awscsi"
disk=$(aw_disks awscsi) || fail "no disk"
modprobe awblk "lower=/dev/$disk" || fail "modprobe awblk"
i=0
until [ -b /dev/awblk0 ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "no /dev/awblk0"; sleep 0.1
done
modprobe ext4 && mkfs.ext4 -q -F /dev/awblk0 || fail "mkfs.ext4"
mkdir -p /tmp/l /tmp/m && mount /dev/awblk0 /tmp/l || fail "mount ext4"
grep -q awfs /proc/filesystems && fail "awfs loaded before the mount"
mount -t awfs -o unit=16k /tmp/l /tmp/m || fail "mount -t awfs did not load awfs on demand"
case "$(modinfo -n awfs)" in */updates/dkms/*) ;; *) fail "awfs not from DKMS" ;; esac
echo "ok: mount -t awfs loads the DKMS-installed awfs on demand"
umount /tmp/m && umount /tmp/l || fail "umount"
modprobe -r awfs && aw_cleanup || fail "cleanup"
