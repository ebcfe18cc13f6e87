#!/bin/sh
# The device model's latency (delay, ndelay, flush_ndelay), media rate
# (mbps) and hosts
# (add_host, per_host_store): commands take the configured time with the
# CPU free meanwhile, a flush pays its cost only with a write cache, a
# command on its timer at a power cut fails, detach and rmmod with commands
# on their timers are clean, a command that times out while it waits is
# taken back cleanly, data moves at the media rate one command at a time,
# and hosts share a store or have their own.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
aw_load_scsi || fail "sd_mod/sg"
CTL=/sys/devices/awscsi
LAT=$AWKIT_ROOT/tests/tools/awlatency.py
for P in "delay=100000" "ndelay=1000000000" "flush_ndelay=1000000000" "mbps=100001" \
	"add_host=0" "add_host=17" "per_host_store=1 add_host=4 num_tgts=5"; do
	dmesg -C
	if aw_insmod awscsi $P 2>/dev/null; then fail "loaded with impossible parameters: $P"; fi
	msg=$(dmesg | grep 'awscsi:' | grep -v taint | tail -n 1)
	[ -n "$msg" ] || fail "no message for refused parameters $P"
	echo "ok: refused '$P': $msg"
done

# fio_json DEV RW DEPTH SECS: fio's JSON for 4 KiB O_DIRECT I/O.
fio_json() {
	fio --name=l --filename=/dev/$1 --ioengine=libaio --direct=1 --rw=$2 \
		--bs=4k --iodepth=$3 --time_based --runtime=$4 --size=8M \
		--output-format=json
}
# jq-less field: python reads fio's JSON from stdin.
fio_field() { python3 -c "import json, sys; j = json.load(sys.stdin)['jobs'][0]['$1']; print($2)"; }

note "ndelay=4 ms: fio's latency; at 20 ms, 16 commands in flight at once"
aw_insmod awscsi dev_size_mb=8 ndelay=4000000 || fail "insmod ndelay"
d=$(aw_disks awscsi) || fail "no disk"
dmesg | grep -q "awscsi: latency 4000000 ns a command" ||
	fail "no latency line in the kernel log"
# lat (submission to completion) cannot be shorter than the device's time.
lat=$(fio_json $d randread 1 3 | fio_field read "j['lat_ns']['mean'] / 1e6") || fail "fio QD1"
echo "  QD1 latency mean $lat ms"
python3 -c "import sys; sys.exit(not 4.0 <= $lat < 4.0 + 4 * ${AW_SLOW:-1})" ||
	fail "QD1 latency $lat ms is not about 4 ms"
aw_unload awscsi || fail "rmmod"
# So long a latency that the CPU cost of an I/O does not count.
aw_insmod awscsi dev_size_mb=8 ndelay=20000000 || fail "insmod ndelay"
d=$(aw_disks awscsi) || fail "no disk"
iops1=$(fio_json $d randread 1 3 | fio_field read "int(j['iops'])")
iops16=$(fio_json $d randread 16 3 | fio_field read "int(j['iops'])")
echo "  IOPS at 20 ms: QD1 $iops1, QD16 $iops16"
[ "$iops16" -ge $((iops1 * 4)) ] || fail "16 commands in flight are not 4 times faster than 1: the latency holds the CPU or serializes"
echo "ok: latency about 4 ms, commands overlap"
aw_unload awscsi || fail "rmmod"

# Bounds a slow machine only makes safer: the rate caps throughput.
note "mbps=8: 64 KiB writes and reads, 16 in flight, move one at a time"
aw_insmod awscsi dev_size_mb=8 mbps=8 || fail "insmod mbps"
d=$(aw_disks awscsi) || fail "no disk"
dmesg | grep -q "awscsi: media rate 8 MB/s" || fail "no media rate line in the kernel log"
# 8 MB/s moves 122 transfers of 64 KiB a second; transfers that overlapped
# would reach 16 times that.
for rw in randwrite randread; do
	iops=$(fio --name=r --filename=/dev/$d --ioengine=libaio --direct=1 \
		--rw=$rw --bs=64k --iodepth=16 --time_based --runtime=3 \
		--size=8M --output-format=json |
		fio_field ${rw#rand} "int(j['iops'])") || fail "fio $rw at mbps=8"
	echo "  64 KiB $rw at QD16: $iops a second (the rate allows 122)"
	[ "$iops" -le 135 ] || fail "$iops ${rw#rand}s a second: transfers overlap or the rate is not applied"
done
# took_ms CMD...: the milliseconds CMD takes, on a monotonic clock, timed inside
# one process (python's start would otherwise count, and hide a missing
# rate).
took_ms() {
	python3 -c 'import subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:]).returncode
print(int((time.monotonic() - t) * 1000))
sys.exit(r)' "$@"
}
ms=$(took_ms dd if=/dev/zero of=/dev/$d bs=1M count=2 oflag=direct status=none) || fail "dd"
echo "  2 MiB written: $ms ms (at least 262)"
[ $ms -ge 255 ] || fail "2 MiB took $ms ms at 8 MB/s"
# A rate changed at run time holds for the next commands.
echo 1 >/sys/module/awscsi/parameters/mbps || fail "mbps at run time"
if echo 100001 >/sys/module/awscsi/parameters/mbps 2>/dev/null; then
	fail "mbps=100001 taken at run time"
fi
ms=$(took_ms dd if=/dev/zero of=/dev/$d bs=1M count=1 oflag=direct status=none) || fail "dd"
echo "  1 MiB written at 1 MB/s: $ms ms (at least 1048)"
[ $ms -ge 1040 ] || fail "1 MiB took $ms ms at 1 MB/s"
# 64 writes of 1 MiB in flight at 1 MB/s would wait 64 s, past sd's 30 s
# timeout: the disk holds at most a second of transfers and sends the rest
# back busy, so none times out.
tmo0=$(($(cat /sys/block/$d/device/iotmo_cnt)))
fio --name=deep --filename=/dev/$d --ioengine=libaio --direct=1 --rw=write \
	--bs=1M --iodepth=64 --time_based --runtime=5 --size=8M \
	>/tmp/fio-deep.out 2>&1 || { cat /tmp/fio-deep.out; fail "1 MiB writes, 64 in flight, at 1 MB/s"; }
[ $(($(cat /sys/block/$d/device/iotmo_cnt))) = $tmo0 ] ||
	fail "commands timed out behind the media queue"
aw_unload awscsi || fail "rmmod"
echo "ok: the media rate holds, one transfer at a time, with a queue no command times out in"

note "delay=2 jiffies (ndelay 0), flush_ndelay=30 ms, write cache on and off"
hz=$(sed -n 's/^CONFIG_HZ=//p' /boot/config-$(uname -r))
[ -n "$hz" ] || fail "no CONFIG_HZ"
j2=$((2 * 1000000000 / hz))
for wce in 1 0; do
	aw_insmod awscsi dev_size_mb=8 delay=2 flush_ndelay=30000000 write_cache=$wce ||
		fail "insmod delay=2"
	d=$(aw_disks awscsi) || fail "no disk"
	python3 $LAT $(aw_sg $d) $j2 30000000 $wce || fail "latencies with write_cache=$wce"
	aw_unload awscsi || fail "rmmod"
done
echo "ok: delay in jiffies, flush cost with a write cache only"

note "a command on its timer at a power cut fails"
aw_insmod awscsi dev_size_mb=8 ndelay=300000000 write_cache=1 atomic_wr=1 ||
	fail "insmod ndelay=300 ms"
d=$(aw_disks awscsi) || fail "no disk"
for kind in write atomic sync; do
	python3 $LAT $(aw_sg $d) cut 300000000 $kind || fail "$kind in flight at the cut"
done

note "detach with commands on their timers, power on and off, then rmmod"
w0=$(aw_sum_stat $CTL/stats writes)
fio --name=busy --filename=/dev/$d --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=16 --time_based --runtime=60 --size=8M >/tmp/fio.out 2>&1 &
fpid=$!
i=0
until [ "$(aw_sum_stat $CTL/stats writes)" -gt $((w0 + 16)) ]; do
	i=$((i + 1)); [ $i -gt $((600 * ${AW_SLOW:-1})) ] && fail "fio's writes never reached the disk"
	sleep 0.1
done
echo 0 >$CTL/attached || fail "detach with commands in flight"
[ -e /sys/block/$d ] && fail "disk still present after detach"
wait $fpid && fail "fio kept writing to a detached disk"
echo "ok: detach with commands on their timers; fio saw the disk go"
echo 1 >$CTL/attached || fail "attach"
d=$(aw_disks awscsi) || fail "no disk after attach"
dd if=/dev/$d of=/dev/null bs=4k count=1 iflag=direct status=none || fail "read after attach"
w0=$(aw_sum_stat $CTL/stats writes)
fio --name=busy --filename=/dev/$d --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=16 --time_based --runtime=60 --size=8M >/tmp/fio.out 2>&1 &
fpid=$!
i=0
until [ "$(aw_sum_stat $CTL/stats writes)" -gt $((w0 + 16)) ]; do
	i=$((i + 1)); [ $i -gt $((600 * ${AW_SLOW:-1})) ] && fail "fio's writes never reached the disk"
	sleep 0.1
done
echo 0 >$CTL/powered
echo 0 >$CTL/attached || fail "detach with the power off"
wait $fpid
echo 1 >$CTL/powered
rmmod awscsi || fail "rmmod right after a detach with commands on their timers"
echo "ok: rmmod after commands on timers"

note "commands that time out while they wait: error handling takes them back"
# A latency set at run time, 3 s against a 1 s timeout: sd's write times out,
# is aborted and retried, and its retry times out again (which error
# handling takes back without an abort).
aw_insmod awscsi dev_size_mb=8 write_cache=1 || fail "insmod"
d=$(aw_disks awscsi) || fail "no disk"
PAR=/sys/module/awscsi/parameters
if echo 100000 >$PAR/delay 2>/dev/null; then fail "delay=100000 taken at run time"; fi
echo 1 >/sys/block/$d/device/timeout || fail "device timeout"
echo $((3 * hz)) >$PAR/delay || fail "set delay at run time"
dd if=/dev/zero of=/dev/$d bs=4k count=1 oflag=direct status=none 2>/dev/null &
ddpid=$!
i=0
until [ $(($(cat /sys/block/$d/device/iotmo_cnt))) -ge 2 ]; do
	i=$((i + 1)); [ $i -gt $((900 * ${AW_SLOW:-1})) ] && fail "the retried write never timed out"
	sleep 0.1
done
echo 0 >$PAR/delay
wait $ddpid
rc=$?
note "dd after $(($(cat /sys/block/$d/device/iotmo_cnt))) timeouts: exit $rc"
dd if=/dev/$d of=/dev/null bs=4k count=1 iflag=direct status=none || fail "read after error handling"
echo 0 >$CTL/attached || fail "detach after the timeouts"
rmmod awscsi || fail "rmmod after the timeouts"
echo "ok: timeouts while commands wait, then detach and rmmod"

note "hosts: add_host=2 share the store, per_host_store=1 gives each its own"
aw_insmod awscsi dev_size_mb=8 add_host=2 ndelay=100000 || fail "insmod add_host=2"
disks=$(aw_disks awscsi 2) || fail "two disks"
set -- $disks
[ $# = 2 ] || fail "add_host=2 num_tgts=1: $# disks"
[ "$(grep -c '^disk' $CTL/stats)" = 1 ] || fail "shared store: $(cat $CTL/stats)"
w1=$(cat /sys/block/$1/device/wwid) w2=$(cat /sys/block/$2/device/wwid)
[ "$w1" = "$w2" ] || fail "two paths to one store, two identities: $w1 / $w2"
python3 -c "import sys; sys.stdout.buffer.write(b'\x77' * 65536)" >/tmp/p
dd if=/tmp/p of=/dev/$1 bs=64k oflag=direct status=none || fail "write on host 1"
dd if=/dev/$2 of=/tmp/b bs=64k count=1 iflag=direct status=none || fail "read on host 2"
cmp -s /tmp/p /tmp/b || fail "host 2 does not see host 1's write"
echo "ok: two hosts, one store, one identity ($w1)"
aw_unload awscsi || fail "rmmod"
aw_insmod awscsi dev_size_mb=8 add_host=2 num_tgts=2 per_host_store=1 ||
	fail "insmod per_host_store=1"
disks=$(aw_disks awscsi 4) || fail "four disks"
set -- $disks
[ $# = 4 ] || fail "add_host=2 num_tgts=2 per_host_store=1: $# disks"
[ "$(grep -c '^disk' $CTL/stats)" = 4 ] || fail "per-host stores: $(cat $CTL/stats)"
[ "$(for b in "$@"; do cat /sys/block/$b/device/wwid; done | sort -u | wc -l)" = 4 ] ||
	fail "four stores need four identities"
i=0
for b in "$@"; do
	i=$((i + 1))
	python3 -c "import sys; sys.stdout.buffer.write(bytes([$i]) * 65536)" >/tmp/p$i
	dd if=/tmp/p$i of=/dev/$b bs=64k oflag=direct status=none || fail "write $b"
done
i=0
for b in "$@"; do
	i=$((i + 1))
	dd if=/dev/$b of=/tmp/b bs=64k count=1 iflag=direct status=none
	cmp -s /tmp/b /tmp/p$i || fail "$b does not keep its own data"
done
echo "ok: four disks on two hosts, each with its own store"
aw_unload awscsi || fail "rmmod"
