// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for awscsi/awscsi_logic.c.
 * Plain C: each check prints one line when it fails, and the program ends
 * with "N passed, N failed" and a non-zero exit status on any failure.
 */
#include <stdio.h>
#include "check.h"
#include "awscsi_logic.h"

static void check_sense(const struct awscsi_sense *s, int k, int a, int q,
			int f, int line, const char *expr)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%s (got %02x/%02x/%02x field %d)", expr,
		 s->key, s->asc, s->ascq, s->field);
	check(s->key == k && s->asc == a && s->ascq == q && s->field == f,
	      line, msg);
}

/* Expect the sense data of a CHECK CONDITION. */
#define CHECK_SENSE(s, k, a, q, f) check_sense(&(s), k, a, q, f, __LINE__, \
	"sense " #s " == " #k "/" #a "/" #q " field " #f)
/* A call that must fail with ILLEGAL REQUEST, asc/0 and field pointer f. */
#define CHECK_ERR(e, s, a, f) do {					\
	CHECK((e) < 0);							\
	CHECK_SENSE(s, ILLEGAL_REQUEST, a, 0, f);		\
} while (0)

static const u8 zero[32];
static const struct awscsi_sense sense_junk = { 0xee, 0xee, 0xee, 0x777 };

static struct awscsi_cfg def_cfg(void)
{
	struct awscsi_cfg c = {
		.lbs = 512, .physblk_exp = 0, .nblocks = 16384, .wce = true,
		.fua = true, .atomic = true, .atomic_max = 8192, .atomic_align = 2,
		.atomic_gran = 2, .atomic_max_bndry_len = 8192,
		.atomic_max_bndry = 128,
	};
	return c;
}

/* Build a config from the default with some fields changed, then check it. */
#define CFG(ok, ...) do {						\
	struct awscsi_cfg c = def_cfg();				\
	__VA_ARGS__;							\
	check((awscsi_cfg_check(&c) == NULL) == (ok), __LINE__,	\
	      "cfg_check(" #__VA_ARGS__ ") == NULL is " #ok);		\
} while (0)

static void test_cfg_check(void)
{
	CFG(true, (void)0);
	CFG(true, c.lbs = 4096);
	CFG(false, c.lbs = 1000);
	CFG(true, c.physblk_exp = 15);
	CFG(false, c.physblk_exp = 16);
	CFG(false, c.nblocks = 63);
	CFG(true, c.nblocks = 64; c.atomic_align = 64);
	CFG(false, c.atomic_max = 0; c.atomic_max_bndry_len = 0);
	CFG(true, c.atomic_max = 0);	/* boundary-only atomic writes */
	CFG(false, c.atomic_max_bndry = 0);
	CFG(false, c.atomic_max = 4; c.atomic_gran = 8;
	    c.atomic_max_bndry_len = 0; c.atomic_max_bndry = 0);
	CFG(false, c.atomic_gran = 16; c.atomic_max_bndry_len = 8);
	CFG(false, c.atomic_align = 16385);
	/* atomic off: the atomic fields do not matter */
	CFG(true, c.atomic = false; c.atomic_max = 0; c.atomic_gran = 99;
	    c.atomic_max_bndry_len = 7; c.atomic_max_bndry = 0;
	    c.atomic_align = 16385);
}

static const struct {
	u8 op, sa, len;
	enum awscsi_kind kind;
} cmds[] = {
	{ 0x00, 0, 6, AWS_K_TUR }, { 0x03, 0, 6, AWS_K_REQUEST_SENSE },
	{ 0x08, 0, 6, AWS_K_READ }, { 0x0a, 0, 6, AWS_K_WRITE },
	{ 0x12, 0, 6, AWS_K_INQUIRY }, { 0x1a, 0, 6, AWS_K_MODE_SENSE },
	{ 0x1b, 0, 6, AWS_K_START_STOP }, { 0x25, 0, 10, AWS_K_READ_CAPACITY },
	{ 0x28, 0, 10, AWS_K_READ }, { 0x2a, 0, 10, AWS_K_WRITE },
	{ 0x35, 0, 10, AWS_K_SYNC }, { 0x5a, 0, 10, AWS_K_MODE_SENSE },
	{ 0x88, 0, 16, AWS_K_READ }, { 0x8a, 0, 16, AWS_K_WRITE },
	{ 0x91, 0, 16, AWS_K_SYNC }, { 0x9c, 0, 16, AWS_K_WRITE_ATOMIC },
	{ 0x9e, 0x10, 16, AWS_K_READ_CAPACITY },
	{ 0xa0, 0, 12, AWS_K_REPORT_LUNS },
	{ 0xa3, 0x0c, 12, AWS_K_REPORT_OPCODES },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static enum awscsi_kind classify(const struct awscsi_cfg *c, u8 op, u8 b1,
				 u32 len, struct awscsi_sense *s)
{
	u8 cdb[16] = { op, b1 };

	*s = sense_junk;
	return awscsi_classify(c, cdb, len, s);
}

#define CHECK_NONE(c, op, b1, len) do {				\
	CHECK_EQ(classify(c, op, b1, len, &s), AWS_K_NONE);		\
	CHECK_SENSE(s, 5, 0x20, 0, -1);					\
} while (0)

static void test_classify(void)
{
	struct awscsi_cfg c = def_cfg(), off = def_cfg();
	struct awscsi_sense s;
	size_t i;

	off.atomic = false;
	for (i = 0; i < NCMDS; i++) {
		CHECK_EQ(classify(&c, cmds[i].op, cmds[i].sa, 16, &s),
			 cmds[i].kind);
		CHECK_EQ(classify(&c, cmds[i].op, cmds[i].sa, cmds[i].len, &s),
			 cmds[i].kind);
		CHECK_NONE(&c, cmds[i].op, cmds[i].sa, cmds[i].len - 1);
	}
	CHECK_NONE(&off, 0x9c, 0, 16);
	CHECK_EQ(classify(&off, 0x8a, 0, 16, &s), AWS_K_WRITE);
	CHECK_NONE(&c, 0xc5, 0, 16);
	CHECK_NONE(&c, 0x9e, 0x11, 16);
	CHECK_NONE(&c, 0xa3, 0x0d, 12);
}

/* Decode cdb and compare every field of the result. */
#define DECODE(cdb, l, n, b, f) do {					\
	struct awscsi_rw rw;						\
	memset(&rw, 0xaa, sizeof(rw));					\
	CHECK_EQ(awscsi_decode_rw(cdb, &rw), 0);			\
	CHECK(rw.lba == (u64)(l));					\
	CHECK(rw.nblocks == (u32)(n));					\
	CHECK_EQ(rw.boundary, (b));					\
	CHECK_EQ(rw.fua, (f));						\
} while (0)

static void test_decode_rw(void)
{
	u8 r6[6] = { 0x08, 0xff, 0x34, 0x56, 0x00, 0 };
	u8 w6[6] = { 0x0a, 0x01, 0x00, 0x02, 0x05, 0 };
	u8 r10[10] = { 0x28, 8, 0x12, 0x34, 0x56, 0x78, 0xff, 0xab, 0xcd, 0 };
	u8 w10[10] = { 0x2a, 0x00, 0xfe, 0, 0, 1, 0, 0, 1, 0 };
	u8 s10[10] = { 0x35, 0, 0, 0, 0x10, 0, 0, 0, 0x20, 0 };
	u8 r16[16] = { 0x88, 0x08, 1, 2, 3, 4, 5, 6, 7, 8,
		       0x90, 0xa0, 0xb0, 0xc0, 0xff, 0 };
	u8 w16[16] = { 0x8a, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		       0, 0, 0, 9, 0, 0 };
	u8 s16[16] = { 0x91, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0 };
	u8 wa[16] = { 0x9c, 0x08, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
		      0x88, 0x12, 0x34, 0x56, 0x78, 0xff, 0 };
	u8 inq[6] = { 0x12 };
	struct awscsi_rw rw;

	/* READ(6): 21-bit LBA, top of byte 1 ignored, length 0 means 256 */
	DECODE(r6, 0x1f3456, 256, 0, false);
	DECODE(w6, 0x10002, 5, 0, false);
	DECODE(r10, 0x12345678, 0xabcd, 0, true);
	DECODE(w10, 0xfe000001ULL, 1, 0, false);
	DECODE(s10, 0x1000, 0x20, 0, false);
	DECODE(r16, 0x0102030405060708ULL, 0x90a0b0c0u, 0, true);
	DECODE(w16, 0xfffffffffffffffeULL, 9, 0, false);
	DECODE(s16, 0x0100000000ULL, 0x01000000, 0, false);
	/* WRITE ATOMIC(16): 16-bit length, byte 14 is the group number */
	DECODE(wa, 0x1122334455667788ULL, 0x5678, 0x1234, true);
	wa[1] = 0x10;			/* DPO only */
	DECODE(wa, 0x1122334455667788ULL, 0x5678, 0x1234, false);
	CHECK(awscsi_decode_rw(inq, &rw) != 0);
}

static int chk(const struct awscsi_cfg *c, enum awscsi_kind k, u64 lba,
	       u16 bndry, u32 len, struct awscsi_sense *s)
{
	struct awscsi_rw rw = { .lba = lba, .nblocks = len, .boundary = bndry };

	*s = sense_junk;
	return awscsi_check_rw(c, k, &rw, s);
}

#define WA AWS_K_WRITE_ATOMIC
#define RD AWS_K_READ

static void test_check_rw(void)
{
	struct awscsi_cfg c = {
		.lbs = 512, .nblocks = 32768, .atomic = true,
		.atomic_max = 128, .atomic_align = 8, .atomic_gran = 8,
		.atomic_max_bndry_len = 256, .atomic_max_bndry = 64,
	};
	struct awscsi_sense s;

	CHECK(awscsi_cfg_check(&c) == NULL);
	CHECK_EQ(chk(&c, WA, 0, 0, 8, &s), 0);
	CHECK_EQ(chk(&c, WA, 8, 0, 128, &s), 0);
	CHECK_EQ(chk(&c, WA, 32768 - 128, 0, 128, &s), 0);
	CHECK_EQ(chk(&c, WA, 64, 64, 256, &s), 0);
	CHECK_EQ(chk(&c, WA, 64, 1, 136, &s), 0);

	CHECK_ERR(chk(&c, WA, 4, 0, 8, &s), s, 0x24, -1);	/* misaligned */
	CHECK_ERR(chk(&c, WA, 8, 0, 12, &s), s, 0x24, -1);	/* gran */
	CHECK_ERR(chk(&c, WA, 8, 0, 136, &s), s, 0x24, 12);	/* > max */
	CHECK_ERR(chk(&c, WA, 8, 65, 8, &s), s, 0x24, 12);	/* bndry */
	CHECK_ERR(chk(&c, WA, 8, 64, 264, &s), s, 0x24, 12);	/* bndry len */
	CHECK_ERR(chk(&c, WA, 32760, 0, 16, &s), s, 0x21, -1);	/* past end */
	/* the order: alignment, granularity, length, then the range */
	CHECK_ERR(chk(&c, WA, 4, 0, 512, &s), s, 0x24, -1);
	CHECK_ERR(chk(&c, WA, 8, 0, 13, &s), s, 0x24, -1);
	CHECK_ERR(chk(&c, WA, 40960, 0, 256, &s), s, 0x24, 12);
	/* lba + len wraps to a small number: still out of range */
	CHECK_ERR(chk(&c, WA, 0xfffffffffffffff8ULL, 0, 16, &s), s, 0x21, -1);

	/* no alignment or granularity configured: anything goes */
	c.atomic_align = 0;
	c.atomic_gran = 0;
	CHECK_EQ(chk(&c, WA, 3, 0, 5, &s), 0);

	CHECK_EQ(chk(&c, RD, 0, 0, 32768, &s), 0);
	CHECK_EQ(chk(&c, RD, 32767, 0, 1, &s), 0);
	CHECK_EQ(chk(&c, RD, 5, 0, 1000, &s), 0);	/* no atomic rules */
	CHECK_ERR(chk(&c, RD, 32767, 0, 2, &s), s, 0x21, -1);
	CHECK_ERR(chk(&c, RD, 0, 0, 32769, &s), s, 0x21, -1);
	CHECK_ERR(chk(&c, RD, 40000, 0, 0, &s), s, 0x21, -1);
	CHECK_ERR(chk(&c, RD, ~0ULL, 0, 2, &s), s, 0x21, -1);
}

static void test_sense(void)
{
	static const u8 want_f[18] = {
		0x70, 0, 5, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24, 0x01, 0, 0xc0,
		0x12, 0x34,
	};
	static const u8 want_nf[18] = {
		0x70, 0, 5, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x21, 0, 0, 0, 0, 0,
	};
	struct awscsi_sense s = { 5, 0x24, 0x01, 0x1234 };
	u8 buf[32];

	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(awscsi_sense_fixed(&s, buf, sizeof(buf)), 18);
	CHECK(memcmp(buf, want_f, 18) == 0);
	CHECK_EQ(buf[18], 0xee);	/* nothing past 18 bytes */
	s.field = 12;
	CHECK_EQ(awscsi_sense_fixed(&s, buf, 18), 18);
	CHECK_EQ(buf[15], 0xc0);	/* SKSV, C/D */
	CHECK_EQ(get_unaligned_be16(buf + 16), 12);

	s = (struct awscsi_sense){ 5, 0x21, 0, -1 };
	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(awscsi_sense_fixed(&s, buf, sizeof(buf)), 18);
	CHECK(memcmp(buf, want_nf, 18) == 0);
	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(awscsi_sense_fixed(&s, buf, 17), 0);
	CHECK_EQ(buf[0], 0xee);
}

static int inquiry(const struct awscsi_cfg *c, u8 evpd, u8 page, u8 *buf,
		   struct awscsi_sense *s)
{
	u8 cdb[6] = { 0x12, evpd, page, 0x02, 0x00, 0 };

	*s = sense_junk;
	memset(buf, 0xee, 512);
	return awscsi_inquiry(c, cdb, buf, 512, s);
}

static void test_inquiry(void)
{
	struct awscsi_cfg c = def_cfg(), c1 = def_cfg();
	struct awscsi_sense s;
	static const u8 pg0[] = { 0, 0, 0, 5, 0x00, 0x80, 0x83, 0xb0, 0xb1 };
	static const u32 b0[] = { 8192, 2, 2, 8192, 128 };
	u8 buf[512], buf1[512];
	int n, n1, i;

	c1.index = 1;
	CHECK_EQ(inquiry(&c, 0, 0, buf, &s), 96);
	CHECK_EQ(buf[2], 7);		/* SPC-5 */
	CHECK_EQ(buf[3] & 0x0f, 2);
	CHECK_EQ(buf[4], 91);
	CHECK(memcmp(buf + 8, "AWKIT   ", 8) == 0);
	CHECK(memcmp(buf + 16, "awscsi          ", 16) == 0);

	CHECK_EQ(inquiry(&c, 1, 0x00, buf, &s), 9);
	CHECK(memcmp(buf, pg0, 9) == 0);

	c.physblk_exp = 3;
	CHECK_EQ(inquiry(&c, 1, 0xb0, buf, &s), 64);
	CHECK_EQ(buf[1], 0xb0);
	CHECK_EQ(get_unaligned_be16(buf + 2), 0x3c);
	CHECK_EQ(get_unaligned_be16(buf + 6), 8);
	for (i = 0; i < 5; i++)
		CHECK_EQ(get_unaligned_be32(buf + 44 + 4 * i), b0[i]);
	c.atomic = false;
	CHECK_EQ(inquiry(&c, 1, 0xb0, buf, &s), 64);
	CHECK(memcmp(buf + 44, zero, 20) == 0);
	c = def_cfg();
	CHECK_EQ(inquiry(&c, 1, 0xb0, buf, &s), 64);
	CHECK_EQ(get_unaligned_be16(buf + 6), 1);

	CHECK_EQ(inquiry(&c, 1, 0xb1, buf, &s), 64);
	CHECK_EQ(buf[1], 0xb1);
	CHECK_EQ(get_unaligned_be16(buf + 4), 1);	/* non-rotating */

	n = inquiry(&c, 1, 0x80, buf, &s);
	n1 = inquiry(&c1, 1, 0x80, buf1, &s);
	CHECK_EQ(buf[1], 0x80);
	CHECK(n > 4 && n == n1);
	CHECK_EQ(get_unaligned_be16(buf + 2), n - 4);
	CHECK(n > 4 && memcmp(buf + 4, buf1 + 4, n - 4) != 0);

	n = inquiry(&c, 1, 0x83, buf, &s);
	n1 = inquiry(&c1, 1, 0x83, buf1, &s);
	CHECK_EQ(buf[1], 0x83);
	CHECK(n >= 16 && n == n1);
	CHECK_EQ(get_unaligned_be16(buf + 2), n - 4);
	/* first designator: binary, LU, NAA, 8 bytes */
	CHECK(buf[4] == 0x01 && buf[5] == 0x03 && buf[7] == 8);
	CHECK_EQ(buf[8] >> 4, 3);	/* NAA 3 */
	CHECK(memcmp(buf + 8, buf1 + 8, 8) != 0);

	CHECK_ERR(inquiry(&c, 1, 0x99, buf, &s), s, 0x24, 2);
	CHECK_ERR(inquiry(&c, 0, 0x80, buf, &s), s, 0x24, 2);
}

static void test_read_capacity(void)
{
	struct awscsi_cfg c = def_cfg();
	struct awscsi_sense s = sense_junk;
	u8 rc10[10] = { 0x25 };
	u8 rc16[16] = { 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0 };
	u8 buf[512];

	c.lbs = 4096;
	CHECK_EQ(awscsi_read_capacity(&c, rc10, buf, sizeof(buf), &s), 8);
	CHECK_EQ(get_unaligned_be32(buf), 16383);
	CHECK_EQ(get_unaligned_be32(buf + 4), 4096);

	c.nblocks = (1ULL << 32) + 5;
	CHECK_EQ(awscsi_read_capacity(&c, rc10, buf, sizeof(buf), &s), 8);
	CHECK(get_unaligned_be32(buf) == 0xffffffffu);
	c.nblocks = 1ULL << 32;
	CHECK_EQ(awscsi_read_capacity(&c, rc10, buf, sizeof(buf), &s), 8);
	CHECK(get_unaligned_be32(buf) == 0xffffffffu);

	c.nblocks = (1ULL << 40) + 7;
	c.lbs = 512;
	c.physblk_exp = 3;
	CHECK_EQ(awscsi_read_capacity(&c, rc16, buf, sizeof(buf), &s), 32);
	CHECK(get_unaligned_be64(buf) == (1ULL << 40) + 6);
	CHECK_EQ(get_unaligned_be32(buf + 8), 512);
	CHECK_EQ(buf[13], 3);
}

static int mode_sense(const struct awscsi_cfg *c, u8 op, u8 b1, u8 b2,
		      u8 *buf, struct awscsi_sense *s)
{
	u8 cdb[10] = { op, b1, b2, 0, 0xff, 0, 0, 0x02, 0x00, 0 };

	*s = sense_junk;
	memset(buf, 0xee, 512);
	return awscsi_mode_sense(c, cdb, buf, 512, s);
}

static void test_mode_sense(void)
{
	struct awscsi_cfg c = def_cfg();
	struct awscsi_sense s;
	u8 buf[512];
	int n;

	n = mode_sense(&c, 0x1a, 0, 0x08, buf, &s);
	CHECK_EQ(n, 4 + 8 + 20);
	CHECK_EQ(buf[0], n - 1);
	CHECK_EQ(buf[2] & 0x10, 0x10);	/* DPOFUA */
	CHECK_EQ(buf[3], 8);
	CHECK_EQ(get_unaligned_be32(buf + 4), 16384);
	CHECK_EQ(get_unaligned_be32(buf + 8) & 0xffffff, 512);
	CHECK_EQ(buf[12] & 0x3f, 0x08);
	CHECK_EQ(buf[14] & 0x04, 0x04);	/* WCE */

	n = mode_sense(&c, 0x1a, 0x08, 0x08, buf, &s);	/* DBD */
	CHECK_EQ(n, 4 + 20);
	CHECK_EQ(buf[3], 0);
	CHECK_EQ(buf[4] & 0x3f, 0x08);
	CHECK_EQ(buf[6] & 0x04, 0x04);

	/* saved values are not supported */
	CHECK_ERR(mode_sense(&c, 0x1a, 0, 0xc8, buf, &s), s, 0x39, -1);
	CHECK_ERR(mode_sense(&c, 0x1a, 0, 0x19, buf, &s), s, 0x24, 2);

	n = mode_sense(&c, 0x1a, 0, 0x3f, buf, &s);
	CHECK_EQ(n, 4 + 8 + 20 + 12);
	CHECK_EQ(buf[0], n - 1);
	CHECK(buf[12] == 0x08 && buf[32] == 0x0a && buf[33] == 0x0a);

	n = mode_sense(&c, 0x5a, 0, 0x08, buf, &s);
	CHECK_EQ(n, 8 + 8 + 20);
	CHECK_EQ(get_unaligned_be16(buf), n - 2);
	CHECK_EQ(buf[3] & 0x10, 0x10);	/* DPOFUA */
	CHECK_EQ(get_unaligned_be16(buf + 6), 8);
	CHECK_EQ(get_unaligned_be32(buf + 8), 16384);
	CHECK_EQ(buf[16] & 0x3f, 0x08);
	CHECK_EQ(buf[18] & 0x04, 0x04);
	c.fua = false;			/* fua=0: a disk without DPOFUA */
	n = mode_sense(&c, 0x5a, 0, 0x08, buf, &s);
	CHECK_EQ(buf[3] & 0x10, 0);
	n = mode_sense(&c, 0x1a, 0, 0x08, buf, &s);
	CHECK_EQ(buf[2] & 0x10, 0);
	c.fua = true;

	n = mode_sense(&c, 0x5a, 0x10, 0x08, buf, &s);	/* LLBAA */
	CHECK_EQ(n, 8 + 16 + 20);
	CHECK_EQ(get_unaligned_be16(buf), n - 2);
	CHECK_EQ(buf[4] & 0x01, 1);
	CHECK_EQ(get_unaligned_be16(buf + 6), 16);
	CHECK(get_unaligned_be64(buf + 8) == 16384);
	CHECK_EQ(get_unaligned_be32(buf + 20), 512);
	CHECK_EQ(buf[24] & 0x3f, 0x08);

	n = mode_sense(&c, 0x5a, 0x08, 0x3f, buf, &s);	/* DBD, all */
	CHECK_EQ(n, 8 + 20 + 12);
	CHECK_EQ(get_unaligned_be16(buf), n - 2);
	CHECK_EQ(get_unaligned_be16(buf + 6), 0);
	CHECK_EQ(buf[8] & 0x3f, 0x08);
	CHECK_EQ(buf[28] & 0x3f, 0x0a);

	c.wce = false;
	n = mode_sense(&c, 0x1a, 0, 0x08, buf, &s);
	CHECK(n == 32 && buf[12] == 0x08);
	CHECK_EQ(buf[14] & 0x04, 0);	/* WCE clear */
}

static void test_report_luns(void)
{
	u8 cdb[12] = { 0xa0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0 };
	struct awscsi_sense s = sense_junk;
	u8 buf[512];

	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(awscsi_report_luns(cdb, buf, sizeof(buf), &s), 16);
	CHECK_EQ(get_unaligned_be32(buf), 8);
	CHECK(memcmp(buf + 4, zero, 12) == 0);
	cdb[2] = 0x03;			/* reserved SELECT REPORT */
	CHECK_ERR(awscsi_report_luns(cdb, buf, sizeof(buf), &s), s, 0x24, 2);
}

static int rsoc(const struct awscsi_cfg *c, u8 b2, u8 op, u16 sa, u8 *buf,
		struct awscsi_sense *s)
{
	u8 cdb[12] = { 0xa3, 0x0c, b2, op, sa >> 8, sa, 0, 0, 0x02, 0, 0, 0 };

	*s = sense_junk;
	memset(buf, 0xee, 512);
	return awscsi_report_opcodes(c, cdb, buf, 512, s);
}

/* Look for op/sa in an all-commands list; returns its descriptor or NULL. */
static const u8 *rsoc_find(const u8 *buf, int n, u32 dlen, u8 op, u8 sa)
{
	int off;

	for (off = 4; off + (int)dlen <= n; off += dlen)
		if (buf[off] == op && get_unaligned_be16(buf + off + 2) == sa)
			return buf + off;
	return NULL;
}

static void test_report_opcodes(void)
{
	struct awscsi_cfg c = def_cfg(), off = def_cfg();
	struct awscsi_sense s;
	u8 buf[512];
	const u8 *d;
	int n, n_off, n20;
	size_t i;

	off.atomic = false;
	n = rsoc(&c, 0, 0, 0, buf, &s);
	CHECK_EQ(n, 4 + 8 * NCMDS);
	CHECK_EQ(get_unaligned_be32(buf), n - 4);
	for (i = 0; i < NCMDS; i++) {
		d = rsoc_find(buf, n, 8, cmds[i].op, cmds[i].sa);
		CHECK(d && (d[5] & 0x03) == (cmds[i].sa ? 1 : 0) &&
		      get_unaligned_be16(d + 6) == cmds[i].len);
	}
	for (i = 4; i + 8 <= (size_t)n; i += 8)
		CHECK(classify(&c, buf[i], buf[i + 3], 16, &s) != AWS_K_NONE);

	n_off = rsoc(&off, 0, 0, 0, buf, &s);
	CHECK_EQ(n_off, n - 8);
	CHECK_EQ(get_unaligned_be32(buf), n_off - 4);
	CHECK(rsoc_find(buf, n_off, 8, 0x9c, 0) == NULL);
	CHECK(rsoc_find(buf, n_off, 8, 0x8a, 0) != NULL);

	n20 = rsoc(&c, 0x80, 0, 0, buf, &s);		/* RCTD */
	CHECK_EQ(n20, 4 + 20 * NCMDS);
	CHECK_EQ(get_unaligned_be32(buf), n20 - 4);
	d = rsoc_find(buf, n20, 20, 0x9c, 0);		/* CTDP, timeouts */
	CHECK(d && (d[5] & 0x02) && get_unaligned_be16(d + 6) == 16 &&
	      get_unaligned_be16(d + 8) == 0x0a);

	/* one command: SUPPORT 3, CDB size, usage map starting with opcode */
	CHECK_EQ(rsoc(&c, 0x01, 0x9c, 0, buf, &s), 4 + 16);
	CHECK(buf[1] == 3 && get_unaligned_be16(buf + 2) == 16 &&
	      buf[4] == 0x9c);
	n = rsoc(&off, 0x01, 0x9c, 0, buf, &s);
	CHECK(n >= 4 && (buf[1] & 0x07) == 1);
	CHECK_EQ(rsoc(&c, 0x81, 0x28, 0, buf, &s), 4 + 10 + 12); /* RCTD */
	CHECK(buf[1] == 0x83 && buf[4] == 0x28 &&
	      get_unaligned_be16(buf + 14) == 10);
	CHECK_EQ(rsoc(&c, 0x02, 0x9e, 0x10, buf, &s), 4 + 16);
	CHECK(buf[1] == 3 && buf[4] == 0x9e && buf[5] == 0x10);
	n = rsoc(&c, 0x02, 0x28, 0, buf, &s);		/* READ(10) has no SA */
	CHECK(n == -1 && s.key == 5 && s.asc == 0x24);

	/* The FUA bit is usable only where DPOFUA says the disk honours it. */
	for (i = 0; i < 2; i++) {
		struct awscsi_cfg f = def_cfg();
		static const u8 ops[] = { 0x28, 0x2a, 0x88, 0x8a, 0x9c };
		size_t k;

		f.fua = i;
		for (k = 0; k < sizeof(ops); k++) {
			CHECK(rsoc(&f, 0x01, ops[k], 0, buf, &s) > 5);
			CHECK_EQ(buf[5] & 0x08, i ? 0x08 : 0);
		}
	}

	/* option 1 on an opcode with service actions: invalid field */
	CHECK_ERR(rsoc(&c, 0x01, 0x9e, 0x10, buf, &s), s, 0x24, 2);
	/* SPC-5: option 1 ignores the REQUESTED SERVICE ACTION field */
	CHECK_ERR(rsoc(&c, 0x01, 0x9e, 0, buf, &s), s, 0x24, 2);
	/* reserved reporting option */
	CHECK_ERR(rsoc(&c, 0x05, 0, 0, buf, &s), s, 0x24, 2);
}

static void test_alloc_len(void)
{
	u8 inq[6] = { 0x12, 1, 0x80, 0x01, 0x02, 0 };
	u8 ms6[6] = { 0x1a, 0, 0x3f, 0, 0xfe, 0 };
	u8 ms10[10] = { 0x5a, 0, 0x3f, 0, 0, 0, 0, 0x12, 0x34, 0 };
	u8 rc10[10] = { 0x25 };
	u8 rc16[16] = { 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 0 };
	u8 rl[12] = { 0xa0, 0, 0, 0, 0, 0, 0x0a, 0x0b, 0x0c, 0x0d, 0, 0 };
	u8 mi[12] = { 0xa3, 0x0c, 0, 0, 0, 0, 0, 0, 0x01, 0x80, 0, 0 };

	CHECK_EQ(awscsi_alloc_len(inq), 0x0102);
	CHECK_EQ(awscsi_alloc_len(ms6), 0xfe);
	CHECK_EQ(awscsi_alloc_len(ms10), 0x1234);
	CHECK_EQ(awscsi_alloc_len(rc10), 8);
	CHECK_EQ(awscsi_alloc_len(rc16), 0x01020304);
	CHECK_EQ(awscsi_alloc_len(rl), 0x0a0b0c0d);
	CHECK_EQ(awscsi_alloc_len(mi), 0x180);
}

int main(void)
{
	test_cfg_check();
	test_classify();
	test_decode_rw();
	test_check_rw();
	test_sense();
	test_inquiry();
	test_read_capacity();
	test_mode_sense();
	test_report_luns();
	test_report_opcodes();
	test_alloc_len();
	return unit_summary();
}
