#!/bin/sh
# Harness self-test: a guest that oopses during early boot, before any case,
# is told apart from a test failure and retried once.
here=$(cd "$(dirname "$0")" && pwd)
k=$(sh "$here/kernels.sh" | head -n 1)
out=$(AWKIT_SELFTEST_EARLY_CRASH=1 KVERS=$k bash "$here/run.sh" check 00-guest-sanity 2>&1)
rc=$?
echo "$out" | grep -E '^!!|passed,'
if [ $rc = 0 ] && echo "$out" | grep -q 'retrying this guest once' &&
	echo "$out" | grep -q '^1 passed, 0 failed'; then
	echo "harness self-test: early-boot crash detected and retried: ok"
	exit 0
fi
echo "harness self-test FAILED: an early-boot crash was not retried cleanly"
echo "$out" | tail -n 20
exit 1
