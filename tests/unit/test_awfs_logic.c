// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for awfs/awfs_logic.c: the unit option, which units a
 * device can take, the physical-extent rule and how write() is cut into
 * whole units and the rest.
 */
#include <stdio.h>
#include "check.h"
#include "awfs_logic.h"

#define KiB 1024u

static void test_parse(void)
{
	u64 v = 7;

	CHECK(!awfs_parse_size("16384", &v) && v == 16384);
	CHECK(!awfs_parse_size("16k", &v) && v == 16384);
	CHECK(!awfs_parse_size("16K", &v) && v == 16384);
	CHECK(!awfs_parse_size("1m", &v) && v == 1048576);
	CHECK(!awfs_parse_size("0", &v) && v == 0);
	v = 7;
	CHECK_EQ(awfs_parse_size("", &v), -EINVAL);
	CHECK_EQ(awfs_parse_size("k", &v), -EINVAL);
	CHECK_EQ(awfs_parse_size("16kb", &v), -EINVAL);
	CHECK_EQ(awfs_parse_size("16g", &v), -EINVAL);
	CHECK_EQ(awfs_parse_size("-16", &v), -EINVAL);
	CHECK_EQ(awfs_parse_size(" 16", &v), -EINVAL);
	CHECK_EQ(awfs_parse_size("99999999999999999999", &v), -EINVAL);
	CHECK_EQ(awfs_parse_size("18014398509481984m", &v), -EINVAL);
	CHECK_EQ(v, 7);		/* untouched on error */
}

static int unit_ok(u64 unit, u32 fsb, u32 umin, u32 umax, u32 max, u32 bnd)
{
	const char *why;
	int ret = awfs_unit_ok(unit, 4096, fsb, umin, umax, max, bnd, &why);

	CHECK(!ret == !why);	/* a reason exactly when refused */
	return ret;
}

static void test_unit_ok(void)
{
	CHECK_EQ(unit_ok(16 * KiB, 4096, 512, 64 * KiB, 64 * KiB, 0), 0);
	CHECK_EQ(unit_ok(8 * KiB, 4096, 512, 64 * KiB, 64 * KiB, 0), 0);
	CHECK_EQ(unit_ok(64 * KiB, 4096, 512, 64 * KiB, 64 * KiB, 0), 0);
	CHECK_EQ(unit_ok(128 * KiB, 4096, 512, 64 * KiB, 128 * KiB, 0), -EINVAL);
	CHECK_EQ(unit_ok(12 * KiB, 4096, 512, 64 * KiB, 64 * KiB, 0), -EINVAL);
	CHECK_EQ(unit_ok(0, 4096, 512, 64 * KiB, 64 * KiB, 0), -EINVAL);
	CHECK_EQ(unit_ok(2 * KiB, 1024, 512, 64 * KiB, 64 * KiB, 0), -EINVAL);
	CHECK_EQ(unit_ok(16 * KiB, 4096, 32 * KiB, 64 * KiB, 64 * KiB, 0), -EINVAL);
	CHECK_EQ(unit_ok(16 * KiB, 4096, 0, 0, 0, 0), -EINVAL);
	CHECK_EQ(unit_ok(32 * KiB, 4096, 512, 64 * KiB, 16 * KiB, 0), -EINVAL);
	CHECK_EQ(unit_ok(16 * KiB, 4096, 512, 64 * KiB, 64 * KiB, 64 * KiB), 0);
	CHECK_EQ(unit_ok(64 * KiB, 4096, 512, 64 * KiB, 64 * KiB, 32 * KiB), -EINVAL);
	/* A 64 KiB block file system cannot place 16 KiB units. */
	CHECK_EQ(unit_ok(16 * KiB, 65536, 512, 64 * KiB, 64 * KiB, 0), -EINVAL);
}

static void test_extent(void)
{
	u64 ok[4] = { 404, 405, 406, 407 };	/* 4 KiB blocks, 16 KiB unit */
	u64 hole[4] = { 404, 0, 406, 407 };
	u64 gap[4] = { 404, 405, 500, 501 };
	u64 mis[4] = { 401, 402, 403, 404 };
	u64 one[1] = { 6 };

	CHECK_EQ(awfs_extent_check(ok, 4, 12, 16 * KiB), 1);
	CHECK_EQ(awfs_extent_check(hole, 4, 12, 16 * KiB), 0);
	CHECK_EQ(awfs_extent_check(gap, 4, 12, 16 * KiB), -EINVAL);
	CHECK_EQ(awfs_extent_check(mis, 4, 12, 16 * KiB), -EINVAL);
	CHECK_EQ(awfs_extent_check(ok, 4, 12, 64 * KiB), -EINVAL);
	CHECK_EQ(awfs_extent_check(one, 1, 12, 8 * KiB), 1);
	CHECK_EQ(awfs_extent_check(one, 1, 12, 16 * KiB), -EINVAL);
	/* A 512-byte O_DIRECT atomic write inside one block. */
	CHECK_EQ(awfs_extent_check(one, 1, 12, 512), 1);
}

static void test_pieces(void)
{
	bool whole;

	CHECK_EQ(awfs_next_piece(0, 65536, 16384, &whole), 16384);
	CHECK(whole);
	CHECK_EQ(awfs_next_piece(100, 65536, 16384, &whole), 16284);
	CHECK(!whole);
	CHECK_EQ(awfs_next_piece(16384, 1000, 16384, &whole), 1000);
	CHECK(!whole);
	CHECK_EQ(awfs_next_piece(16383, 1, 16384, &whole), 1);
	CHECK(!whole);
	CHECK_EQ(awfs_next_piece(32768, 16384, 16384, &whole), 16384);
	CHECK(whole);
	CHECK_EQ(awfs_next_piece(5, 123456, 0, &whole), 123456);
	CHECK(!whole);
}

int main(void)
{
	test_parse();
	test_unit_ok();
	test_extent();
	test_pieces();
	return unit_summary();
}
