// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for engines/nvme/nvme_identify.c and the little-endian
 * readers it uses (the shim's, tools/include/), over synthetic Identify data
 * built field by field.
 * Plain C: each check prints one line when it fails, and the program ends
 * with "N passed, N failed" and a non-zero exit status on any failure.
 */
#include <stdio.h>
#include "check.h"
#include "nvme_identify.h"

#define KiB 1024u
#define MiB (1024u * 1024u)

/* One controller's and one namespace's Identify data. */
struct id {
	u8 ctrl[AWNVME_ID_LEN];
	u8 ns[AWNVME_ID_LEN];
};

static struct id d;
static struct awnvme_id_info info;
static const char *why;

/* Writers of our own, so a wrong reader in the shim cannot hide. */
static void put_le16(u8 *p, u16 v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static void put_le64(u8 *p, u64 v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (u8)(v >> (8 * i));
}

/* Format table entry: metadata size and LBADS. */
static void set_lbaf(struct id *x, unsigned int idx, u16 ms, u8 lbads)
{
	put_le16(x->ns + 128 + 4 * idx, ms);
	x->ns[128 + 4 * idx + 2] = lbads;
}

/*
 * A plain namespace of 1 GiB worth of blocks: formats 0 = 512, 1 = 4096,
 * 2 = 2^lbads (whatever it is), FLBAS picking the one that has lbads.
 */
static void mk(struct id *x, u8 lbads)
{
	memset(x, 0, sizeof(*x));
	put_le64(x->ns + 0, (1ull << 30) >> (lbads < 64 ? lbads : 0));
	x->ns[25] = 2;
	set_lbaf(x, 0, 0, 9);
	set_lbaf(x, 1, 0, 12);
	set_lbaf(x, 2, 8, lbads);
	x->ns[26] = lbads == 9 ? 0 : lbads == 12 ? 1 : 2;
}

static void set_ctrl(struct id *x, u16 awun, u16 awupf)
{
	put_le16(x->ctrl + 526, awun);
	put_le16(x->ctrl + 528, awupf);
}

static void set_ns(struct id *x, u8 nsfeat, u16 nawupf, u16 nabo,
		   u16 nabspf)
{
	x->ns[24] = nsfeat;
	put_le16(x->ns + 36, nawupf);
	put_le16(x->ns + 42, nabo);
	put_le16(x->ns + 44, nabspf);
}

/* Parse d with garbage in info first, so stale values cannot pass. */
static int parse(u32 dev_lbs)
{
	memset(&info, 0xa5, sizeof(info));
	why = "stale";
	return awnvme_id_parse(d.ctrl, sizeof(d.ctrl), d.ns, sizeof(d.ns),
			       dev_lbs, &info, &why);
}

static void check_5(u32 g0, u32 g1, u32 g2, u32 g3, u32 g4, u32 e0, u32 e1,
		    u32 e2, u32 e3, u32 e4, int line, const char *expr)
{
	char msg[320];

	snprintf(msg, sizeof(msg),
		 "%s (got %u/%u/%u/%u/%u want %u/%u/%u/%u/%u)", expr,
		 g0, g1, g2, g3, g4, e0, e1, e2, e3, e4);
	check(g0 == e0 && g1 == e1 && g2 == e2 && g3 == e3 && g4 == e4,
	      line, msg);
}

/* Expect atomic_bs, boundary, unit_min, unit_max, max_bytes. */
#define CHECK_ATOM(a, b, c, e, f) check_5(info.atomic_bs, info.lim.boundary, \
	info.lim.unit_min, info.lim.unit_max, info.lim.max_bytes, a, b, c, e, f,	\
	__LINE__, "atomic " #a "/" #b "/" #c "/" #e "/" #f)
#define CHECK_NONE() CHECK_ATOM(0, 0, 0, 0, 0)
/* Expect success. */
#define CHECK_OK(rc) do {						\
	CHECK_EQ(rc, 0);						\
	CHECK(why == NULL);						\
} while (0)
/* Expect -EINVAL with a reason containing s, and no atomic limits. */
#define CHECK_ERR(rc, s) do {						\
	CHECK_EQ(rc, -EINVAL);						\
	CHECK(why && strstr(why, s));					\
	CHECK_NONE();							\
	CHECK_EQ(info.src, AWNVME_ATOMIC_NONE);				\
} while (0)

static void test_le(void)
{
	static const u8 b[8] = { 0x01, 0x02, 0x03, 0x04,
				 0x05, 0x06, 0x07, 0x88 };

	CHECK_EQ(get_unaligned_le16(b), 0x0201);
	CHECK_EQ(get_unaligned_le16(b + 6), 0x8807);
	CHECK_EQ(get_unaligned_le32(b), 0x04030201);
	CHECK(get_unaligned_le64(b) == 0x8807060504030201ull);
}

/* QEMU 7.2's emulated NVMe: AWUN = AWUPF = 0, no NSFEAT bit 1. */
static void test_qemu(void)
{
	mk(&d, 9);
	CHECK_OK(parse(512));
	CHECK_ATOM(512, 0, 512, 512, 512);
	CHECK_EQ(info.src, AWNVME_ATOMIC_AWUPF);
	CHECK_EQ(info.lbs, 512);
	CHECK_EQ(info.lbads, 9);
	CHECK_EQ(info.lbaf_index, 0);
	CHECK(info.nsze == 2 * MiB);
	CHECK(info.awupf_bs == 512);
	CHECK(info.nawupf_bs == 0);

	mk(&d, 12);
	CHECK_OK(parse(4096));
	CHECK_ATOM(4096, 0, 4096, 4096, 4096);
	CHECK_EQ(info.lbaf_index, 1);
	CHECK(info.nsze == 256 * KiB);
}

/* Linux's nvmet over a bdev: NSFEAT bit 1, NAWUPF = 16 KiB / lbs - 1. */
static void test_nvmet(void)
{
	mk(&d, 9);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 16384 / 512 - 1, 0, 0);
	CHECK_OK(parse(512));
	CHECK_ATOM(16 * KiB, 0, 512, 16 * KiB, 16 * KiB);
	CHECK_EQ(info.src, AWNVME_ATOMIC_NAWUPF);
	CHECK_EQ(info.nawupf, 31);

	mk(&d, 12);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 16384 / 4096 - 1, 0, 0);
	CHECK_OK(parse(4096));
	CHECK_ATOM(16 * KiB, 0, 4096, 16 * KiB, 16 * KiB);
	CHECK(info.nawupf_bs == 16 * KiB);
}

static void test_awupf(void)
{
	/* AWUPF alone: 8 blocks of 512. */
	mk(&d, 9);
	set_ctrl(&d, 15, 7);
	CHECK_OK(parse(0));
	CHECK_ATOM(4096, 0, 512, 4096, 4096);
	CHECK_EQ(info.awun, 15);
	CHECK_EQ(info.awupf, 7);

	/* NSFEAT bit 1 with NAWUPF = 0: back to AWUPF, NABSPF unused. */
	mk(&d, 12);
	set_ctrl(&d, 0, 7);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 0, 0, 15);
	CHECK_OK(parse(4096));
	CHECK_ATOM(32 * KiB, 0, 4096, 32 * KiB, 32 * KiB);
	CHECK_EQ(info.src, AWNVME_ATOMIC_AWUPF);
	CHECK(info.nawupf_bs == 0);

	/* NAWUPF without NSFEAT bit 1 is not valid: AWUPF it is. */
	mk(&d, 12);
	set_ctrl(&d, 0, 1);
	set_ns(&d, 0x01 | 0x04, 15, 0, 15);
	CHECK_OK(parse(4096));
	CHECK_ATOM(8 * KiB, 0, 4096, 8 * KiB, 8 * KiB);
	CHECK_EQ(info.src, AWNVME_ATOMIC_AWUPF);

	/* NSFEAT bit 1 and NAWUPF win over a larger AWUPF. */
	mk(&d, 12);
	set_ctrl(&d, 0, 63);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 3, 0, 0);
	CHECK_OK(parse(4096));
	CHECK_ATOM(16 * KiB, 0, 4096, 16 * KiB, 16 * KiB);
	CHECK(info.awupf_bs == 256 * KiB);

	/* All zero atomic fields, bit 1 set: one logical block. */
	mk(&d, 12);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 0, 0, 0);
	CHECK_OK(parse(4096));
	CHECK_ATOM(4096, 0, 4096, 4096, 4096);
}

static void test_nabo(void)
{
	/* A boundary offset: no atomic writes, and not an error. */
	mk(&d, 12);
	set_ctrl(&d, 7, 7);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 3, 1, 3);
	CHECK_OK(parse(4096));
	CHECK_NONE();
	CHECK_EQ(info.src, AWNVME_ATOMIC_NONE);
	CHECK_EQ(info.nabo, 1);
	CHECK_EQ(info.lbs, 4096);
	CHECK(info.nawupf_bs == 16 * KiB);

	/* Even with AWUPF only. */
	mk(&d, 9);
	set_ctrl(&d, 0, 7);
	set_ns(&d, 0, 0, 0xffff, 0);
	CHECK_OK(parse(512));
	CHECK_NONE();
}

static void test_boundary(void)
{
	/* 16 KiB unit inside 64 KiB boundaries. */
	mk(&d, 12);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 3, 0, 15);
	CHECK_OK(parse(4096));
	CHECK_ATOM(16 * KiB, 64 * KiB, 4096, 16 * KiB, 16 * KiB);
	CHECK_EQ(info.nabspf, 15);

	/* Boundary equal to the unit. */
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 3, 0, 3);
	CHECK_OK(parse(4096));
	CHECK_ATOM(16 * KiB, 16 * KiB, 4096, 16 * KiB, 16 * KiB);

	/* 12 KiB boundary: not a power of two. */
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 3, 0, 2);
	CHECK_ERR(parse(4096), "not a power of two");
	CHECK_EQ(info.lbs, 4096);

	/* 8 KiB boundary under a 16 KiB unit. */
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 3, 0, 1);
	CHECK_ERR(parse(4096), "smaller than the atomic write unit");

	/* 12 KiB unit, 8 KiB boundary = unit_max: kept, as Linux keeps it. */
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 2, 0, 1);
	CHECK_OK(parse(4096));
	CHECK_ATOM(12 * KiB, 8 * KiB, 4096, 8 * KiB, 12 * KiB);

	/* 512-byte blocks: 4 KiB unit, 128 KiB boundary. */
	mk(&d, 9);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 7, 0, 255);
	CHECK_OK(parse(512));
	CHECK_ATOM(4 * KiB, 128 * KiB, 512, 4 * KiB, 4 * KiB);
}

static void test_not_pow2(void)
{
	mk(&d, 12);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 2, 0, 0);
	CHECK_OK(parse(4096));
	CHECK_ATOM(12288, 0, 4096, 8192, 12288);

	mk(&d, 9);
	set_ctrl(&d, 0, 2);
	CHECK_OK(parse(512));
	CHECK_ATOM(1536, 0, 512, 1024, 1536);

	/* 100 blocks of 4 KiB: unit_max 256 KiB. */
	mk(&d, 12);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 99, 0, 0);
	CHECK_OK(parse(4096));
	CHECK_ATOM(409600, 0, 4096, 256 * KiB, 409600);
}

static void test_max(void)
{
	/* 0xffff everywhere that fits: 65536 blocks. */
	mk(&d, 12);
	set_ctrl(&d, 0xffff, 0xffff);
	CHECK_OK(parse(4096));
	CHECK_ATOM(256 * MiB, 0, 4096, 256 * MiB, 256 * MiB);

	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 0xffff, 0, 0xffff);
	CHECK_OK(parse(4096));
	CHECK_ATOM(256 * MiB, 256 * MiB, 4096, 256 * MiB, 256 * MiB);

	mk(&d, 9);
	set_ctrl(&d, 0xffff, 0xffff);
	CHECK_OK(parse(512));
	CHECK_ATOM(32 * MiB, 0, 512, 32 * MiB, 32 * MiB);

	/* 64 KiB blocks: 65536 of them is 2^32, one too many. */
	mk(&d, 16);
	set_ctrl(&d, 0xffff, 0xffff);
	CHECK_ERR(parse(0), "does not fit in 32 bits");
	CHECK(info.awupf_bs == 1ull << 32);

	/* 65535 blocks of 64 KiB fit; a 2^32 boundary does not. */
	mk(&d, 16);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 0xfffe, 0, 0);
	CHECK_OK(parse(0));
	CHECK_ATOM(0xffff0000u, 0, 64 * KiB, 0x80000000u, 0xffff0000u);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 0xfffe, 0, 0xffff);
	CHECK_ERR(parse(0), "boundary does not fit in 32 bits");

	/* One 64 KiB block is fine. */
	mk(&d, 16);
	CHECK_OK(parse(64 * KiB));
	CHECK_ATOM(64 * KiB, 0, 64 * KiB, 64 * KiB, 64 * KiB);

	/* All-ones data: 256 formats cannot be, so it is refused. */
	memset(&d, 0xff, sizeof(d));
	CHECK_ERR(parse(0), "more than 64 LBA formats");
}

static void test_formats(void)
{
	/* Metadata size of the chosen format is read. */
	mk(&d, 13);
	CHECK_OK(parse(8192));
	CHECK_EQ(info.lbaf_index, 2);
	CHECK_EQ(info.ms, 8);
	CHECK_EQ(info.lbs, 8192);
	CHECK_ATOM(8192, 0, 8192, 8192, 8192);

	/* FLBAS bit 4 (metadata at the end of the LBA) is not the index. */
	mk(&d, 12);
	d.ns[26] = 0x11;
	CHECK_OK(parse(4096));
	CHECK_EQ(info.lbaf_index, 1);

	/* 16 formats: bits 6:5 are reserved and ignored. */
	mk(&d, 12);
	d.ns[25] = 15;
	d.ns[26] = 0x61;
	CHECK_OK(parse(4096));
	CHECK_EQ(info.lbaf_index, 1);
	CHECK_EQ(info.flbas, 0x61);

	/* 17 formats: bits 6:5 are the high bits, index 16. */
	mk(&d, 12);
	d.ns[25] = 16;
	d.ns[26] = 0x20;
	set_lbaf(&d, 16, 0, 12);
	CHECK_OK(parse(4096));
	CHECK_EQ(info.lbaf_index, 16);
	CHECK_EQ(info.lbs, 4096);

	/* 64 formats, the last one in use. */
	mk(&d, 9);
	d.ns[25] = 63;
	d.ns[26] = 0x6f;
	set_lbaf(&d, 63, 16, 12);
	CHECK_OK(parse(4096));
	CHECK_EQ(info.lbaf_index, 63);
	CHECK_EQ(info.ms, 16);

	/* Index beyond NLBAF. */
	mk(&d, 12);
	d.ns[25] = 1;
	d.ns[26] = 2;
	CHECK_ERR(parse(0), "no LBA format at FLBAS index");
	mk(&d, 9);
	d.ns[25] = 0;
	d.ns[26] = 0x0f;
	CHECK_ERR(parse(0), "no LBA format at FLBAS index");
	mk(&d, 9);
	d.ns[25] = 16;
	d.ns[26] = 0x21;
	CHECK_ERR(parse(0), "no LBA format at FLBAS index");
	CHECK_EQ(info.lbaf_index, 17);

	/* 65 formats. */
	mk(&d, 9);
	d.ns[25] = 64;
	CHECK_ERR(parse(0), "more than 64 LBA formats");
}

static void test_lbads(void)
{
	static const u8 bad[] = { 0, 8, 17, 32, 255 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		mk(&d, bad[i]);
		put_le64(d.ns, 1000);
		set_ctrl(&d, 0, 7);
		CHECK_ERR(parse(0), "LBA data size is not supported");
		CHECK_EQ(info.lbads, bad[i]);
		CHECK_EQ(info.lbs, 0);
	}
}

static void test_lengths(void)
{
	int rc;

	mk(&d, 12);
	set_ctrl(&d, 0, 7);
	memset(&info, 0xa5, sizeof(info));
	rc = awnvme_id_parse(d.ctrl, 0, d.ns, AWNVME_ID_LEN, 0, &info, &why);
	CHECK_ERR(rc, "identify controller data is not 4096 bytes");
	rc = awnvme_id_parse(d.ctrl, 4095, d.ns, AWNVME_ID_LEN, 0, &info,
			     &why);
	CHECK_ERR(rc, "identify controller data is not 4096 bytes");
	rc = awnvme_id_parse(d.ctrl, 4097, d.ns, AWNVME_ID_LEN, 0, &info,
			     &why);
	CHECK_ERR(rc, "identify controller data is not 4096 bytes");
	rc = awnvme_id_parse(NULL, AWNVME_ID_LEN, d.ns, AWNVME_ID_LEN, 0,
			     &info, &why);
	CHECK_ERR(rc, "identify controller data is not 4096 bytes");
	rc = awnvme_id_parse(d.ctrl, AWNVME_ID_LEN, d.ns, 0, 0, &info, &why);
	CHECK_ERR(rc, "identify namespace data is not 4096 bytes");
	rc = awnvme_id_parse(d.ctrl, AWNVME_ID_LEN, d.ns, 4095, 0, &info,
			     &why);
	CHECK_ERR(rc, "identify namespace data is not 4096 bytes");
	rc = awnvme_id_parse(d.ctrl, AWNVME_ID_LEN, NULL, AWNVME_ID_LEN, 0,
			     &info, &why);
	CHECK_ERR(rc, "identify namespace data is not 4096 bytes");
	/* Nothing was read: raw fields stay zero. */
	CHECK_EQ(info.awupf, 0);
	CHECK_EQ(info.lbs, 0);

	/* why may be NULL. */
	rc = awnvme_id_parse(d.ctrl, 1, d.ns, 1, 0, &info, NULL);
	CHECK_EQ(rc, -EINVAL);
	rc = awnvme_id_parse(d.ctrl, AWNVME_ID_LEN, d.ns, AWNVME_ID_LEN, 0,
			     &info, NULL);
	CHECK_EQ(rc, 0);
	CHECK_EQ(info.lim.max_bytes, 32 * KiB);
}

static void test_dev_lbs(void)
{
	mk(&d, 12);
	set_ctrl(&d, 0, 3);
	CHECK_ERR(parse(512), "does not match the device's logical block size");
	CHECK_EQ(info.lbs, 4096);
	CHECK_OK(parse(0));
	CHECK_ATOM(16 * KiB, 0, 4096, 16 * KiB, 16 * KiB);

	mk(&d, 9);
	CHECK_ERR(parse(4096), "does not match the device's logical block size");
	CHECK_EQ(info.lbs, 512);
}

static void test_nsze(void)
{
	mk(&d, 12);
	put_le64(d.ns, 0);
	CHECK_ERR(parse(4096), "namespace size is zero");

	/* All-zero data: an inactive namespace. */
	memset(&d, 0, sizeof(d));
	CHECK_ERR(parse(0), "namespace size is zero");

	/* Only the top byte set: still read as 64 bits. */
	mk(&d, 12);
	put_le64(d.ns, 1ull << 56);
	CHECK_OK(parse(4096));
	CHECK(info.nsze == 1ull << 56);
}

/* Raw fields come from the right offsets, little-endian. */
static void test_raw(void)
{
	mk(&d, 12);
	set_ctrl(&d, 0x1234, 0x0102);
	set_ns(&d, 0x1a, 0x0304, 0, 0x0506);
	put_le16(d.ns + 34, 0x2345);
	put_le16(d.ns + 40, 0x3456);
	put_le16(d.ns + 46, 0x4567);
	put_le64(d.ns, 0x0102030405060708ull);
	CHECK_EQ(parse(4096), -EINVAL);	/* 0x506 + 1 is no power of 2 */
	CHECK_EQ(info.awun, 0x1234);
	CHECK_EQ(info.awupf, 0x0102);
	CHECK_EQ(info.nsfeat, 0x1a);
	CHECK_EQ(info.nawupf, 0x0304);
	CHECK_EQ(info.nawun, 0x2345);
	CHECK_EQ(info.nabsn, 0x3456);
	CHECK_EQ(info.noiob, 0x4567);
	CHECK_EQ(info.nabspf, 0x0506);
	CHECK_EQ(info.nabo, 0);
	CHECK(info.nsze == 0x0102030405060708ull);
	CHECK_EQ(info.nlbaf, 2);
	CHECK(info.awupf_bs == 0x103ull * 4096);
	CHECK(info.nawupf_bs == 0x305ull * 4096);
}

/* The submission check: size, block alignment and the boundary window. */
static void test_write_ok(void)
{
	mk(&d, 12);
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 3, 0, 15);	/* 16 KiB in 64 KiB */
	CHECK_OK(parse(4096));
	CHECK(awnvme_write_ok(&info, 0, 16 * KiB));
	CHECK(awnvme_write_ok(&info, 48 * KiB, 16 * KiB));
	CHECK(awnvme_write_ok(&info, 60 * KiB, 4 * KiB));
	CHECK(awnvme_write_ok(&info, 4 * KiB, 8 * KiB));
	CHECK(!awnvme_write_ok(&info, 56 * KiB, 16 * KiB));	/* crosses */
	CHECK(!awnvme_write_ok(&info, 60 * KiB, 8 * KiB));	/* crosses */
	CHECK(!awnvme_write_ok(&info, 0, 32 * KiB));		/* too big */
	CHECK(!awnvme_write_ok(&info, 0, 16 * KiB + 4096));
	CHECK(!awnvme_write_ok(&info, 512, 4096));		/* misaligned */
	CHECK(!awnvme_write_ok(&info, 0, 512));			/* part block */
	CHECK(!awnvme_write_ok(&info, 0, 0));
	CHECK(awnvme_write_ok(&info, 64 * KiB * 1000003ULL, 16 * KiB));

	/* No boundary: any block-aligned write up to atomic_bs. */
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 2, 0, 0);	/* 12 KiB */
	CHECK_OK(parse(4096));
	CHECK(awnvme_write_ok(&info, 4096, 12 * KiB));
	CHECK(!awnvme_write_ok(&info, 4096, 16 * KiB));

	/* NABO set: nothing is atomic. */
	set_ns(&d, AWNVME_NSFEAT_ATOMICS, 3, 1, 0);
	CHECK_OK(parse(4096));
	CHECK(!awnvme_write_ok(&info, 0, 4096));
}

int main(void)
{
	test_le();
	test_qemu();
	test_nvmet();
	test_awupf();
	test_nabo();
	test_boundary();
	test_not_pow2();
	test_max();
	test_formats();
	test_lbads();
	test_lengths();
	test_dev_lbs();
	test_nsze();
	test_raw();
	test_write_ok();
	return unit_summary();
}
