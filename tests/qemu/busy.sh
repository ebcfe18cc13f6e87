#!/bin/sh
# busy.sh N COMMAND...: run COMMAND with N CPU hogs beside it (N=0: none),
# as on a shared, loaded machine; the hogs end with COMMAND.
n=$1; shift
pids=""
i=0
while [ "$i" -lt "$n" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
stop() { [ -z "$pids" ] || kill $pids 2>/dev/null; pids=""; }
trap 'stop; exit 130' INT TERM
echo "== $n CPU hog(s) beside the guests on $(nproc) CPUs"
"$@"
rc=$?
stop
exit $rc
