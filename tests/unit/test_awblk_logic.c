// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for awblk/awblk_logic.c and engines/scsi/scsi_vpd.c.
 * Plain C: each check prints one line when it fails, and the program ends
 * with "N passed, N failed" and a non-zero exit status on any failure.
 */
#include <stdio.h>
#include "check.h"
#include "awblk_logic.h"
#include "scsi_vpd.h"

#define KiB 1024u
#define MiB (1024u * 1024u)

static void check_4(u32 g0, u32 g1, u32 g2, u32 g3, u32 e0, u32 e1, u32 e2,
		    u32 e3, int line, const char *expr)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%s (got %u/%u/%u/%u want %u/%u/%u/%u)",
		 expr, g0, g1, g2, g3, e0, e1, e2, e3);
	check(g0 == e0 && g1 == e1 && g2 == e2 && g3 == e3, line, msg);
}

/* Expect derived limits: unit_min, unit_max, max_bytes, boundary. */
#define CHECK_LIM(l, a, b, c, d) check_4((l).unit_min, (l).unit_max,	\
	(l).max_bytes, (l).boundary, a, b, c, d, __LINE__,		\
	"limits " #l " == " #a "/" #b "/" #c "/" #d)
#define CHECK_ZERO(l) CHECK_LIM(l, 0, 0, 0, 0)
/* Expect SCSI hw limits, and use_boundary u. */
#define CHECK_HW(h, a, b, c, u) do {					\
	CHECK_LIM((h).lim, a, b, c, 0);				\
	CHECK_EQ((h).use_boundary, u);					\
} while (0)

/* Default queue: 512-byte blocks, no max_hw_sectors cap, 2048 segments. */
static struct awblk_queue def_q(void)
{
	struct awblk_queue q = {
		.lbs = 512, .max_hw_sectors = 0xffffffffu,
		.max_segments = 2048, .page_size = 4096, .start = 0,
	};
	return q;
}

static struct aw_atomic_limits derive(u32 umin, u32 umax, u32 maxb, u32 bndry,
				  const struct awblk_queue *q, u64 cap)
{
	struct aw_atomic_limits hw = { umin, umax, maxb, bndry };
	struct aw_atomic_limits l;

	memset(&l, 0xa5, sizeof(l));
	awblk_derive_limits(&hw, q, cap, &l);
	return l;
}

static void test_derive(void)
{
	struct awblk_queue q = def_q();
	struct aw_atomic_limits l;

	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_LIM(l, 4096, 65536, 65536, 0);
	l = derive(512, 512, 512, 0, &q, 0);
	CHECK_LIM(l, 512, 512, 512, 0);
	l = derive(4096, 65536, 65536, 65536, &q, 0);
	CHECK_LIM(l, 4096, 65536, 65536, 65536);

	/* 2*512 + 254*4096 = 1041408 -> 512 KiB unit limit */
	l = derive(4096, 1 * MiB, 1 * MiB, 0, &q, 0);
	CHECK_LIM(l, 4096, 512 * KiB, 1 * MiB, 0);
	/* 4096-byte blocks: 256 * 4096 = 1 MiB */
	q.lbs = 4096;
	l = derive(4096, 1 * MiB, 2 * MiB, 0, &q, 0);
	CHECK_LIM(l, 4096, 1 * MiB, 2 * MiB, 0);
	q.lbs = 512;
	/* 8 segments: 2*512 + 6*4096 = 25600 -> 16384 */
	q.max_segments = 8;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_LIM(l, 4096, 16384, 65536, 0);
	/* 2 segments: 1024 bytes caps unit_min too */
	q.max_segments = 2;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_LIM(l, 1024, 1024, 65536, 0);
	q.max_segments = 0;
	l = derive(512, 65536, 65536, 0, &q, 0);
	CHECK_ZERO(l);
	q.max_segments = 2048;

	/* max_hw_sectors caps the unit limit and max_bytes */
	q.max_hw_sectors = 64;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_LIM(l, 4096, 32768, 32768, 0);
	/* 100 sectors = 51200: unit_max rounds down, max_bytes does not */
	q.max_hw_sectors = 100;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_LIM(l, 4096, 32768, 51200, 0);
	q.max_hw_sectors = 4;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_LIM(l, 2048, 2048, 2048, 0);
	q.max_hw_sectors = 0;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_ZERO(l);
	/* 2^23 sectors = 4 GiB: must not wrap to 0 in 32 bits */
	q.max_hw_sectors = 1u << 23;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_LIM(l, 4096, 65536, 65536, 0);
	q.max_hw_sectors = 0xffffffffu;

	/* hw max_bytes need not be a power of two */
	l = derive(4096, 65536, 100000, 0, &q, 0);
	CHECK_LIM(l, 4096, 65536, 100000, 0);
	l = derive(4096, 65536, 100000, 131072, &q, 0);
	CHECK_LIM(l, 4096, 65536, 100000, 131072);

	/* invalid hardware values: no support */
	l = derive(3072, 65536, 65536, 0, &q, 0);
	CHECK_ZERO(l);
	l = derive(4096, 49152, 65536, 0, &q, 0);
	CHECK_ZERO(l);
	l = derive(0, 65536, 65536, 0, &q, 0);
	CHECK_ZERO(l);
	l = derive(8192, 4096, 65536, 0, &q, 0);
	CHECK_ZERO(l);
	l = derive(4096, 65536, 32768, 0, &q, 0);
	CHECK_ZERO(l);
	l = derive(4096, 65536, 65536, 3 * 65536, &q, 0);
	CHECK_ZERO(l);
	l = derive(4096, 65536, 65536, 32768, &q, 0);
	CHECK_ZERO(l);
	l = derive(4096, 65536, 100000, 65536, &q, 0);
	CHECK_ZERO(l);
	q.lbs = 4096;
	l = derive(512, 65536, 65536, 0, &q, 0);
	CHECK_ZERO(l);
	q.lbs = 0;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_ZERO(l);
	q.lbs = 512;

	/* user cap */
	l = derive(4096, 262144, 262144, 0, &q, 100000);
	CHECK_LIM(l, 4096, 65536, 262144, 0);
	l = derive(4096, 262144, 262144, 0, &q, 4096);
	CHECK_LIM(l, 4096, 4096, 262144, 0);
	l = derive(4096, 262144, 262144, 0, &q, 8191);
	CHECK_LIM(l, 4096, 4096, 262144, 0);
	l = derive(4096, 262144, 262144, 0, &q, 1ULL << 40);
	CHECK_LIM(l, 4096, 262144, 262144, 0);
	l = derive(4096, 262144, 262144, 0, &q, 4095);
	CHECK_ZERO(l);

	/* partition start aligned to max(unit_min, boundary) */
	q.start = 3 * 4096;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_LIM(l, 4096, 65536, 65536, 0);
	q.start = 3 * 512;
	l = derive(4096, 65536, 65536, 0, &q, 0);
	CHECK_ZERO(l);
	q.start = 4096;
	l = derive(4096, 65536, 65536, 65536, &q, 0);
	CHECK_ZERO(l);
	q.start = 5 * 65536;
	l = derive(4096, 65536, 65536, 65536, &q, 0);
	CHECK_LIM(l, 4096, 65536, 65536, 65536);
}

static struct aw_atomic_limits lim(u32 umin, u32 umax, u32 maxb, u32 bndry)
{
	struct aw_atomic_limits l = { umin, umax, maxb, bndry };
	return l;
}

static void test_check_write(void)
{
	struct aw_atomic_limits l = lim(4096, 65536, 65536, 0);
	struct aw_atomic_limits none = lim(0, 0, 0, 0);
	struct aw_atomic_limits b = lim(4096, 65536, 65536, 16384);
	const u64 size = 1 * MiB;
	const u64 top = ~0ULL - 65535;	/* 2^64 - 65536 */

	/* no support beats every other reason */
	CHECK_EQ(awblk_check_write(&none, size, 0, 4096, 1), AWB_NOSUPPORT);
	CHECK_EQ(awblk_check_write(&none, size, 1, 3, 2), AWB_NOSUPPORT);

	CHECK_EQ(awblk_check_write(&l, size, 0, 4096, 0), AWB_SEGMENTS);
	CHECK_EQ(awblk_check_write(&l, size, 0, 4096, 2), AWB_SEGMENTS);
	CHECK_EQ(awblk_check_write(&l, size, 1, 3, 2), AWB_SEGMENTS);
	CHECK_EQ(awblk_check_write(&l, 0, 4 * MiB, 1 * MiB, 2), AWB_SEGMENTS);

	CHECK_EQ(awblk_check_write(&l, size, 0, 12288, 1), AWB_POW2);
	CHECK_EQ(awblk_check_write(&l, size, 0, 0, 1), AWB_POW2);

	CHECK_EQ(awblk_check_write(&l, size, 4096, 8192, 1), AWB_ALIGN);
	CHECK_EQ(awblk_check_write(&l, size, 49152, 32768, 1), AWB_ALIGN);
	/* unaligned and too large: alignment first */
	CHECK_EQ(awblk_check_write(&l, size, 4096, 1 * MiB, 1), AWB_ALIGN);

	CHECK_EQ(awblk_check_write(&l, size, 0, 131072, 1), AWB_SIZE);
	CHECK_EQ(awblk_check_write(&l, size, 0, 2048, 1), AWB_SIZE);
	CHECK_EQ(awblk_check_write(&l, size, 512, 512, 1), AWB_SIZE);
	/* too large and past the end: size first */
	CHECK_EQ(awblk_check_write(&l, size, 2 * MiB, 1 * MiB, 1), AWB_SIZE);

	/* boundary straddles (hand-built limits; valid hw cannot straddle) */
	CHECK_EQ(awblk_check_write(&b, size, 0, 32768, 1), AWB_BOUNDARY);
	CHECK_EQ(awblk_check_write(&b, size, 65536, 65536, 1), AWB_BOUNDARY);
	CHECK_EQ(awblk_check_write(&b, size, 0, 16384, 1), AWB_OK);
	CHECK_EQ(awblk_check_write(&b, size, 49152, 16384, 1), AWB_OK);
	/* straddle and past the end: boundary first */
	CHECK_EQ(awblk_check_write(&b, size, 1 * MiB, 32768, 1), AWB_BOUNDARY);
	/* over max_bytes (inconsistent limits): EINVAL class, not OK */
	l.max_bytes = 32768;
	CHECK_EQ(awblk_check_write(&l, size, 0, 65536, 1), AWB_SIZE);
	CHECK_EQ(awblk_check_write(&l, size, 0, 32768, 1), AWB_OK);
	l.max_bytes = 65536;

	CHECK_EQ(awblk_check_write(&l, size, size, 4096, 1), AWB_RANGE);
	CHECK_EQ(awblk_check_write(&l, size - 4096, size - 8192, 8192, 1),
		 AWB_RANGE);
	CHECK_EQ(awblk_check_write(&l, 0, 0, 4096, 1), AWB_RANGE);
	CHECK_EQ(awblk_check_write(&l, size, size - 4096, 4096, 1), AWB_OK);
	CHECK_EQ(awblk_check_write(&l, size, size - 65536, 65536, 1), AWB_OK);

	/* offsets near 2^64 must not wrap */
	CHECK_EQ(awblk_check_write(&l, size, top, 65536, 1), AWB_RANGE);
	CHECK_EQ(awblk_check_write(&l, ~0ULL, top, 65536, 1), AWB_RANGE);
	CHECK_EQ(awblk_check_write(&l, ~0ULL, top - 65536, 65536, 1), AWB_OK);
	CHECK_EQ(awblk_check_write(&l, ~0ULL, ~0ULL - 4095, 4096, 1),
		 AWB_RANGE);
	b.boundary = 65536;
	CHECK_EQ(awblk_check_write(&b, ~0ULL, top - 65536, 65536, 1), AWB_OK);
	CHECK_EQ(awblk_check_write(&b, ~0ULL, top, 65536, 1), AWB_RANGE);

	/* valid writes, each size from unit_min to unit_max */
	CHECK_EQ(awblk_check_write(&l, size, 0, 4096, 1), AWB_OK);
	CHECK_EQ(awblk_check_write(&l, size, 16384, 16384, 1), AWB_OK);
	l = lim(512, 1 * MiB, 1 * MiB, 0);
	CHECK_EQ(awblk_check_write(&l, size, 0, 1 * MiB, 1), AWB_OK);
	CHECK_EQ(awblk_check_write(&l, size, 1536, 512, 1), AWB_OK);
}

static void test_reject(void)
{
	int i, j;

	CHECK_EQ(awblk_reject_errno(AWB_OK), 0);
	CHECK_EQ(awblk_reject_errno(AWB_NOSUPPORT), -EOPNOTSUPP);
	CHECK_EQ(awblk_reject_errno(AWB_SEGMENTS), -EINVAL);
	CHECK_EQ(awblk_reject_errno(AWB_POW2), -EINVAL);
	CHECK_EQ(awblk_reject_errno(AWB_ALIGN), -EINVAL);
	CHECK_EQ(awblk_reject_errno(AWB_SIZE), -EINVAL);
	CHECK_EQ(awblk_reject_errno(AWB_BOUNDARY), -EINVAL);
	CHECK_EQ(awblk_reject_errno(AWB_RANGE), -EINVAL);

	CHECK_EQ(AWB_NREASONS, 8);
	for (i = 0; i < AWB_NREASONS; i++) {
		CHECK(awblk_reject_names[i] && awblk_reject_names[i][0]);
		for (j = 0; j < i; j++)
			CHECK(strcmp(awblk_reject_names[i],
				     awblk_reject_names[j]) != 0);
	}
	CHECK(!strcmp(awblk_reject_names[AWB_OK], "ok"));
	CHECK(!strcmp(awblk_reject_names[AWB_NOSUPPORT], "nosupport"));
}

static void test_untorn(void)
{
	struct aw_atomic_limits l = lim(4096, 65536, 65536, 0);
	struct aw_atomic_limits none = lim(0, 0, 0, 0);

	CHECK(awblk_untorn_ok(&l, 4096));
	CHECK(awblk_untorn_ok(&l, 16384));
	CHECK(awblk_untorn_ok(&l, 65536));
	CHECK(!awblk_untorn_ok(&l, 2048));
	CHECK(!awblk_untorn_ok(&l, 131072));
	CHECK(!awblk_untorn_ok(&l, 0));
	CHECK(!awblk_untorn_ok(&none, 4096));

	CHECK_EQ(awblk_untorn_piece(0, 1 * MiB, 16384), 16384);
	CHECK_EQ(awblk_untorn_piece(32768, 1 * MiB, 16384), 16384);
	CHECK_EQ(awblk_untorn_piece(4096, 1 * MiB, 16384), 12288);
	CHECK_EQ(awblk_untorn_piece(16383, 1 * MiB, 16384), 1);
	CHECK_EQ(awblk_untorn_piece(4096, 8192, 16384), 8192);
	CHECK_EQ(awblk_untorn_piece(4096, 12288, 16384), 12288);
	CHECK_EQ(awblk_untorn_piece(~0ULL - 4095, 1 * MiB, 4096), 4096);

	/* Runs of whole units: powers of two aligned to their size. */
	CHECK_EQ(awblk_untorn_run(&l, 0, 1 * MiB, 16384), 65536);
	CHECK_EQ(awblk_untorn_run(&l, 0, 65536, 16384), 65536);
	CHECK_EQ(awblk_untorn_run(&l, 0, 65535, 16384), 32768);
	CHECK_EQ(awblk_untorn_run(&l, 0, 49152, 16384), 32768);
	CHECK_EQ(awblk_untorn_run(&l, 16384, 65536, 16384), 16384);
	CHECK_EQ(awblk_untorn_run(&l, 32768, 65536, 16384), 32768);
	CHECK_EQ(awblk_untorn_run(&l, 0, 16384, 16384), 16384);
	CHECK_EQ(awblk_untorn_run(&l, 0, 1 * MiB, 65536), 65536);
	/* unit_max, max_bytes and the boundary each cap a run. */
	l = lim(4096, 32768, 65536, 0);
	CHECK_EQ(awblk_untorn_run(&l, 0, 1 * MiB, 4096), 32768);
	l = lim(4096, 65536, 65536, 0);
	l.max_bytes = 16384;
	CHECK_EQ(awblk_untorn_run(&l, 0, 1 * MiB, 4096), 16384);
	l = lim(4096, 65536, 65536, 32768);
	CHECK_EQ(awblk_untorn_run(&l, 0, 1 * MiB, 4096), 32768);
	CHECK_EQ(awblk_untorn_run(&l, 0, 1 * MiB, 32768), 32768);
	/* Near the top of the range: no overflow. */
	l = lim(4096, 65536, 65536, 0);
	CHECK_EQ(awblk_untorn_run(&l, ~0ULL - 65535, 65536, 4096), 65536);
}

/* A Block Limits page with the atomic fields, in logical blocks. */
static void vpd(u8 *b, u32 max, u32 align, u32 gran, u32 max_bndry_len,
		u32 max_bndry)
{
	memset(b, 0, 64);
	b[1] = 0xb0;
	put_unaligned_be16(0x3c, b + 2);
	put_unaligned_be32(max, b + 44);
	put_unaligned_be32(align, b + 48);
	put_unaligned_be32(gran, b + 52);
	put_unaligned_be32(max_bndry_len, b + 56);
	put_unaligned_be32(max_bndry, b + 60);
}

static struct awscsi_hw vpd_hw(const u8 *b, u32 len, u32 lbs, u32 pbs)
{
	struct awscsi_hw h;

	memset(&h, 0xa5, sizeof(h));
	awscsi_vpd_atomic_hw(b, len, lbs, pbs, &h);
	return h;
}

static void test_vpd(void)
{
	struct awscsi_hw h;
	u8 b[64];

	/* scsi_debug defaults */
	vpd(b, 8192, 2, 2, 8192, 128);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 1024, 4 * MiB, 4 * MiB, false);
	h = vpd_hw(b, 64, 4096, 4096);
	CHECK_HW(h, 8192, 32 * MiB, 32 * MiB, false);
	h = vpd_hw(b, 63, 512, 512);
	CHECK_HW(h, 0, 0, 0, false);
	b[1] = 0xb1;
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 0, 0, 0, false);

	/* granularity 0: physical/logical ratio */
	vpd(b, 8192, 0, 0, 0, 0);
	h = vpd_hw(b, 64, 512, 4096);
	CHECK_HW(h, 4096, 4 * MiB, 4 * MiB, false);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 512, 4 * MiB, 4 * MiB, false);
	vpd(b, 8192, 2, 0, 0, 0);
	h = vpd_hw(b, 64, 512, 4096);
	CHECK_HW(h, 4096, 4 * MiB, 4 * MiB, false);
	/* a unit_min of 1 block is exempt from alignment 2, as in sd */
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 512, 4 * MiB, 4 * MiB, false);

	/* no plain maximum: the boundary pair */
	vpd(b, 0, 2, 2, 8192, 128);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 1024, 65536, 4 * MiB, true);
	vpd(b, 0, 2, 2, 8192, 100);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 1024, 32768, 4 * MiB, true);
	vpd(b, 0, 2, 2, 8192, 0);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 0, 0, 0, false);
	/* a plain maximum wins over the boundary pair */
	vpd(b, 64, 2, 2, 8192, 128);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 1024, 32768, 32768, false);

	/* both maxima zero */
	vpd(b, 0, 2, 2, 0, 128);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 0, 0, 0, false);

	/* granularity or alignment that does not divide the units */
	vpd(b, 8192, 2, 3, 0, 0);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 0, 0, 0, false);
	vpd(b, 8192, 3, 2, 0, 0);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 0, 0, 0, false);
	vpd(b, 8192, 8, 4, 0, 0);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 0, 0, 0, false);
	vpd(b, 8192, 4, 8, 0, 0);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 4096, 4 * MiB, 4 * MiB, false);
	/* granularity above the maximum */
	vpd(b, 4, 0, 8, 0, 0);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 0, 0, 0, false);

	/* non-power-of-two maximum: unit_max rounds down, max_bytes kept */
	vpd(b, 1000, 2, 2, 0, 0);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 1024, 256 * KiB, 512000, false);
	h = vpd_hw(b, 64, 4096, 4096);
	CHECK_HW(h, 8192, 2 * MiB, 4096000, false);

	/* 16-bit TRANSFER LENGTH */
	vpd(b, 0x20000, 2, 2, 0, 0);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 1024, 0x8000 * 512, 0xffff * 512, false);
	vpd(b, 0xffff, 2, 2, 0, 0);
	h = vpd_hw(b, 64, 512, 512);
	CHECK_HW(h, 1024, 0x8000 * 512, 0xffff * 512, false);
}

static void test_cdb(void)
{
	static const u8 want[16] = {
		0x9c, 0x08, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x12, 0x34, 0x12, 0x34, 0, 0,
	};
	u8 cdb[16];
	int i;

	memset(cdb, 0xff, sizeof(cdb));
	awscsi_cdb_write_atomic16(cdb, 0x0102030405060708ULL, 0x1234, true,
				  true);
	for (i = 0; i < 16; i++)
		CHECK_EQ(cdb[i], want[i]);

	memset(cdb, 0xff, sizeof(cdb));
	awscsi_cdb_write_atomic16(cdb, 0xfedcba9876543210ULL, 8, false, false);
	CHECK_EQ(cdb[0], 0x9c);
	CHECK_EQ(cdb[1], 0);
	CHECK(get_unaligned_be64(cdb + 2) == 0xfedcba9876543210ULL);
	CHECK_EQ(get_unaligned_be16(cdb + 10), 0);
	CHECK_EQ(get_unaligned_be16(cdb + 12), 8);
	CHECK(cdb[14] == 0 && cdb[15] == 0);

	awscsi_cdb_write_atomic16(cdb, 0, 128, false, true);
	CHECK_EQ(cdb[1], 0);
	CHECK_EQ(get_unaligned_be16(cdb + 10), 128);
	CHECK_EQ(get_unaligned_be16(cdb + 12), 128);
}

int main(void)
{
	test_derive();
	test_check_write();
	test_reject();
	test_untorn();
	test_vpd();
	test_cdb();
	return unit_summary();
}
