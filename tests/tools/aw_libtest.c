// SPDX-License-Identifier: GPL-2.0
/*
 * aw_libtest: libaw against a real device.
 *
 *   aw_libtest DEV
 *	prints aw_limits(DEV); when DEV has atomic writes (unit_min > 0),
 *	writes unit_min bytes of 0x5a at offset 0 with aw_pwrite_atomic and
 *	reads them back, then checks that a length that is not a valid atomic
 *	write unit fails with EINVAL and leaves the data alone. Unknown flags
 *	must fail with EINVAL everywhere. Destroys the data at the start of DEV.
 *
 * Prints "aw_libtest: N passed, M failed"; exit status 1 on any failure,
 * 2 when DEV cannot be opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libaw.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int passed, failed;

static void check(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

static int pow2(unsigned long long n)
{
	return n && !(n & (n - 1));
}

/* Does a call that returned ret fail with EINVAL? Reports it as what. */
static void expect_einval(ssize_t ret, const char *what)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s: %s", what,
		 ret >= 0 ? "succeeded" : strerror(errno));
	check(ret < 0 && errno == EINVAL, msg);
}

/* Is every byte of p[0..len) c? */
static int all(const unsigned char *p, size_t len, unsigned char c)
{
	while (len--)
		if (*p++ != c)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct aw_limits lim;
	unsigned char *buf, *back;
	size_t unit, lbs, bad;
	unsigned int i;
	ssize_t n;
	int fd, zero = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: aw_libtest DEV\n");
		return 2;
	}
	/* RWF_ATOMIC needs O_DIRECT; tmpfs and a few others refuse it. */
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0 && errno == EINVAL)
		fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}

	check(!strcmp(aw_engine_name(AW_ENGINE_SW), "sw") &&
	      !strcmp(aw_engine_name(AW_ENGINE_MAX + 1), "unknown"),
	      "aw_engine_name");
	if (aw_limits(fd, &lim) < 0) {
		check(0, "aw_limits");
		printf("aw_limits: %s\n", strerror(errno));
		goto out;
	}
	check(1, "aw_limits");
	printf("unit_min=%u unit_max=%u max_bytes=%u boundary=%u segments_max=%u\n",
	       lim.unit_min, lim.unit_max, lim.max_bytes, lim.boundary,
	       lim.segments_max);
	printf("engine=%s untorn=%u logical_block_size=%u size=%llu\n",
	       lim.engine == AW_ENGINE_AUTO ? "native" :
	       aw_engine_name(lim.engine), lim.untorn, lim.logical_block_size,
	       (unsigned long long)lim.size);
	for (i = 0; i < ARRAY_SIZE(lim.reserved); i++)
		zero &= !lim.reserved[i];
	check(zero, "reserved fields are zero");

	/* Unknown flags are refused before anything is written. */
	expect_einval(aw_pwrite_atomic(fd, &lim, 0, 0, 0x80), "flags=0x80");

	if (!lim.unit_min) {
		printf("aw_libtest: skipping writes: %s has no atomic writes (unit_min=0)\n",
		       argv[1]);
		goto out;
	}
	unit = lim.unit_min;
	lbs = lim.logical_block_size ? lim.logical_block_size : 512;
	check(pow2(lim.unit_min) && pow2(lim.unit_max) &&
	      lim.unit_min <= lim.unit_max && lim.segments_max >= 1,
	      "unit_min and unit_max are powers of two, min <= max");
	if (lim.size && lim.size < unit) {
		printf("aw_libtest: skipping writes: %s is smaller than unit_min\n",
		       argv[1]);
		goto out;
	}

	/* A length that is no atomic write unit: odd, or above unit_max. */
	bad = unit + lbs;
	if (pow2(bad) && bad <= lim.unit_max)
		bad = (size_t)lim.unit_max + lbs;
	if (posix_memalign((void **)&buf, 4096, bad) ||
	    posix_memalign((void **)&back, 4096, unit)) {
		perror("aw_libtest: memory");
		return 2;
	}

	memset(buf, 0x5a, unit);
	n = aw_pwrite_atomic(fd, buf, unit, 0, AW_WRITE_DSYNC);
	check(n == (ssize_t)unit, "atomic write of unit_min bytes at 0");
	if (n < 0)
		printf("aw_pwrite_atomic: %s\n", strerror(errno));
	memset(back, 0, unit);
	check(pread(fd, back, unit, 0) == (ssize_t)unit && all(back, unit, 0x5a),
	      "read back 0x5a");

	memset(buf, 0xa5, bad);
	expect_einval(aw_pwrite_atomic(fd, buf, bad, 0, 0),
		      "atomic write of an invalid length");
	memset(back, 0, unit);
	check(pread(fd, back, unit, 0) == (ssize_t)unit && all(back, unit, 0x5a),
	      "the refused write left the data alone");
	free(buf);
	free(back);
out:
	close(fd);
	printf("aw_libtest: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
