#!/bin/sh
# The guest environment the other cases rely on: tools, /dev/fd, scratch.
. "$AWKIT_ROOT/tests/qemu/lib.sh"
ok "kernel is the target" [ "$(uname -r)" = "$KVER" ]
ok "/dev/fd works" sh -c 'cat /dev/fd/0 </dev/null'
ok "tmpfs scratch is writable" sh -c 'echo x >/tmp/probe'
ok "root is read-only" sh -c '! touch /probe 2>/dev/null'
for t in fio sg_vpd sg_raw python3 nvme; do
	ok "$t is present" command -v $t
done
ok "sd_mod and sg load" aw_load_scsi
