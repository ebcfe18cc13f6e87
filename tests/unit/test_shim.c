// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the shim (tools/include/): the kernel helpers the pure
 * files use must give here what they give in the kernel, checked against
 * the kernel's definitions written out independently.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "aw_pure.h"
#include <linux/crc32c.h>
#include <linux/sort.h>
#include <scsi/scsi_proto.h>

static void test_unaligned(void)
{
	static const u8 le[8] = { 0x01, 0x02, 0x03, 0x04,
				  0x05, 0x06, 0x07, 0x88 };
	u8 b[9];

	put_unaligned_be16(0x1234, b);
	CHECK(b[0] == 0x12 && b[1] == 0x34);
	CHECK_EQ(get_unaligned_be16(b), 0x1234);
	put_unaligned_be32(0x01020384, b);
	CHECK(b[0] == 0x01 && b[1] == 0x02 && b[2] == 0x03 && b[3] == 0x84);
	CHECK_EQ(get_unaligned_be32(b), 0x01020384);
	put_unaligned_be32(0xfedcba98, b);
	CHECK(get_unaligned_be32(b) == 0xfedcba98u);
	put_unaligned_be64(0x0123456789abcdefULL, b);
	CHECK(b[0] == 0x01 && b[3] == 0x67 && b[4] == 0x89 && b[7] == 0xef);
	CHECK(get_unaligned_be64(b) == 0x0123456789abcdefULL);
	put_unaligned_be64(0xfedcba9876543210ULL, b);
	CHECK(get_unaligned_be64(b) == 0xfedcba9876543210ULL);

	CHECK_EQ(get_unaligned_le16(le), 0x0201);
	CHECK_EQ(get_unaligned_le16(le + 6), 0x8807);
	CHECK_EQ(get_unaligned_le32(le), 0x04030201);
	CHECK(get_unaligned_le32(le + 4) == 0x88070605u);
	CHECK(get_unaligned_le64(le) == 0x8807060504030201ULL);
	/* Odd addresses: unaligned, as the name says. */
	put_unaligned_le32(0x8a0b0c0d, b + 1);
	CHECK(b[1] == 0x0d && b[2] == 0x0c && b[3] == 0x0b && b[4] == 0x8a);
	CHECK(get_unaligned_le32(b + 1) == 0x8a0b0c0du);
	put_unaligned_le16(0xbeef, b + 1);
	CHECK(b[1] == 0xef && b[2] == 0xbe);
	put_unaligned_le64(0xf1e2d3c4b5a69788ULL, b + 1);
	CHECK(b[1] == 0x88 && b[4] == 0xb5 && b[5] == 0xc4 && b[8] == 0xf1);
	CHECK(get_unaligned_le64(b + 1) == 0xf1e2d3c4b5a69788ULL);
	put_unaligned_be16(0xcafe, b + 1);
	CHECK(get_unaligned_be16(b + 1) == 0xcafe && b[1] == 0xca);
}

static void test_log2(void)
{
	static const u64 v[] = { 1, 2, 3, 4096, 4097, 0x7fffffff, 1ULL << 32,
				 (1ULL << 32) + 1, 1ULL << 63, ~0ULL };
	static const u64 rd[] = { 1, 2, 2, 4096, 4096, 1ULL << 30, 1ULL << 32,
				  1ULL << 32, 1ULL << 63, 1ULL << 63 };
	static const bool p2[] = { 1, 1, 0, 1, 0, 0, 1, 0, 1, 0 };
	size_t i;

	/* rounddown_pow_of_two(0) is undefined in the kernel: not asked. */
	CHECK(!is_power_of_2(0));
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		CHECK_EQ(is_power_of_2(v[i]), p2[i]);
		CHECK(rounddown_pow_of_two(v[i]) == rd[i]);
	}
}

static void test_kernel_h(void)
{
	u32 a = 7, b = 9;
	u64 big = 1ULL << 40;
	int arr[5];

	CHECK_EQ(ARRAY_SIZE(arr), 5);
	CHECK_EQ(min(a, b), 7);
	CHECK_EQ(max(a, b), 9);
	CHECK_EQ(min(b, 256U), 9);
	CHECK(min_t(u64, big, U32_MAX) == 0xffffffffULL);
	CHECK(min_t(u64, a, big) == 7);
	CHECK(max_t(u64, a, big) == big);
	CHECK(U32_MAX == 0xffffffffU && U16_MAX == 0xffff);
	CHECK(ALIGN(0ULL, 4096) == 0);
	CHECK(ALIGN(1ULL, 4096) == 4096);
	CHECK(ALIGN(4096ULL, 4096) == 4096);
	CHECK(ALIGN((1ULL << 40) + 1, 1ULL << 20) == (1ULL << 40) + (1 << 20));
	CHECK(ALIGN_DOWN(4095ULL, 4096) == 0);
	CHECK(ALIGN_DOWN(8191ULL, 4096U) == 4096);
	/* A u32 alignment of a u64 value widens before the mask. */
	CHECK(ALIGN_DOWN((1ULL << 40) + 4097, 4096U) == (1ULL << 40) + 4096);
}

static void test_string(void)
{
	u8 b[64] = { 0 };

	CHECK(memchr_inv(b, 0, sizeof(b)) == NULL);
	CHECK(memchr_inv(b, 0, 0) == NULL);
	b[63] = 1;
	CHECK(memchr_inv(b, 0, sizeof(b)) == b + 63);
	CHECK(memchr_inv(b, 0, 63) == NULL);
	memset(b, 0xa5, sizeof(b));
	CHECK(memchr_inv(b, 0xa5, sizeof(b)) == NULL);
	CHECK(memchr_inv(b, 0x1a5, sizeof(b)) == NULL);	/* as a byte */
	CHECK(memchr_inv(b, 0, sizeof(b)) == b);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static void swap_int(void *a, void *b, int size)
{
	int t = *(int *)a;

	(void)size;
	*(int *)a = *(int *)b;
	*(int *)b = t;
}

static void test_sort(void)
{
	static int a[1000], r[1000];
	unsigned int n, i, round, bad = 0;

	sort(NULL, 0, sizeof(int), cmp_int, NULL);
	a[0] = 5;
	sort(a, 1, sizeof(int), cmp_int, NULL);
	CHECK_EQ(a[0], 5);
	srand(1);
	for (round = 0; round < 200; round++) {
		n = (unsigned int)rand() % 1000;
		for (i = 0; i < n; i++)
			a[i] = r[i] = rand() % (round % 2 ? 50 : 100000);
		sort(a, n, sizeof(int), cmp_int,
		     round % 3 ? NULL : swap_int);
		qsort(r, n, sizeof(int), cmp_int);
		if (memcmp(a, r, n * sizeof(int)))
			bad++;
	}
	CHECK_EQ(bad, 0);
}

/* The crc32c definition, one bit at a time, with no inversion. */
static u32 ref_crc32c(u32 c, const u8 *p, size_t n)
{
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? 0x82F63B78 : 0);
	}
	return c;
}

static void test_crc32c(void)
{
	u8 b[300];
	unsigned int i, bad = 0;

	/* The kernel's convention: the caller inverts, crc32c() does not. */
	CHECK(crc32c(~0U, "123456789", 9) == 0x1CF96D7Cu);
	CHECK(~crc32c(~0U, "123456789", 9) == 0xE3069283u);
	CHECK(crc32c(0, "123456789", 9) == 0x58E3FA20u);
	CHECK(crc32c(0x12345678, "", 0) == 0x12345678u);
	for (i = 0; i < sizeof(b); i++)
		b[i] = (u8)(i * 7 + 3);
	for (i = 0; i <= sizeof(b); i++)
		if (crc32c(i * 0x9e3779b9u, b, i) !=
		    ref_crc32c(i * 0x9e3779b9u, b, i))
			bad++;
	CHECK_EQ(bad, 0);
}

static void test_scsi_proto(void)
{
	/* A few of scsi_proto.h's values, from SPC and SBC. */
	CHECK_EQ(INQUIRY, 0x12);
	CHECK_EQ(WRITE_16, 0x8a);
	CHECK_EQ(WRITE_ATOMIC_16, 0x9c);
	CHECK_EQ(SERVICE_ACTION_IN_16, 0x9e);
	CHECK_EQ(SAI_READ_CAPACITY_16, 0x10);
	CHECK_EQ(MI_REPORT_SUPPORTED_OPERATION_CODES, 0x0c);
	CHECK_EQ(ILLEGAL_REQUEST, 0x05);
	CHECK_EQ(UNIT_ATTENTION, 0x06);
}

int main(void)
{
	test_unaligned();
	test_log2();
	test_kernel_h();
	test_string();
	test_sort();
	test_crc32c();
	test_scsi_proto();
	return unit_summary();
}
