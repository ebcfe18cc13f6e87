// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for engines/sw/sw_format.c, the software engine's on-disk
 * format: crc32c against published vectors and a bitwise reference, the
 * superblock and journal records byte by byte (every single bit flip must
 * be caught), layouts, replay planning against a naive reference and over
 * a simulated journal, and the foreign signatures, each probed with
 * buffers cut exactly short so a sanitizer build sees any overread.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "sw_format_host.h"
#include "uapi/awkit.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)
#define GiB (1024ull * 1024 * 1024)

static const char *why;

/* Readers and writers of our own, so a wrong helper cannot hide. */
static u32 get_le32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

static u64 get_le64(const u8 *p)
{
	return get_le32(p) | (u64)get_le32(p + 4) << 32;
}

static void put_le32(u8 *p, u32 v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (u8)(v >> (8 * i));
}

static void put_le64(u8 *p, u64 v)
{
	put_le32(p, (u32)v);
	put_le32(p + 4, (u32)(v >> 32));
}

/* The crc32c definition itself, one bit at a time. */
static u32 ref_crc32c(const u8 *p, size_t n)
{
	u32 c = 0xffffffff;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? 0x82F63B78 : 0);
	}
	return ~c;
}

static u32 rnd_state = 12345;

static u32 rnd(void)
{
	rnd_state = rnd_state * 1103515245 + 12345;
	return rnd_state >> 8;
}

static void fill_rnd(u8 *p, size_t n)
{
	while (n--)
		*p++ = (u8)rnd();
}

static void test_crc32c(void)
{
	u8 b[256];
	int i, bad = 0;
	u32 whole;

	CHECK_EQ(awsw_crc32c(0, "123456789", 9), 0xE3069283);
	CHECK_EQ(awsw_crc32c(0, "", 0), 0);
	CHECK_EQ(awsw_crc32c(0x1234, "", 0), 0x1234);
	/* RFC 3720 (iSCSI) appendix B.4 vectors. */
	memset(b, 0, 32);
	CHECK_EQ(awsw_crc32c(0, b, 32), 0x8A9136AA);
	memset(b, 0xff, 32);
	CHECK_EQ(awsw_crc32c(0, b, 32), 0x62A8AB43);
	for (i = 0; i < 32; i++)
		b[i] = i;
	CHECK_EQ(awsw_crc32c(0, b, 32), 0x46DD794E);
	for (i = 0; i < 32; i++)
		b[i] = 31 - i;
	CHECK_EQ(awsw_crc32c(0, b, 32), 0x113FDB5C);
	CHECK_EQ(awsw_crc32c(0, "a", 1), 0xC1D04330);

	/* The shim's table agrees with the definition, at every length. */
	fill_rnd(b, sizeof(b));
	for (i = 0; i <= 256; i++)
		if (awsw_crc32c(0, b, i) != ref_crc32c(b, i))
			bad++;
	CHECK_EQ(bad, 0);

	/* Chaining: crc(crc(0, A), B) == crc(0, A || B) at every split. */
	whole = awsw_crc32c(0, b, sizeof(b));
	bad = 0;
	for (i = 0; i <= 256; i++)
		if (awsw_crc32c(awsw_crc32c(0, b, i), b + i, 256 - i) != whole)
			bad++;
	CHECK_EQ(bad, 0);
	CHECK_EQ(awsw_crc32c(awsw_crc32c(awsw_crc32c(0, "123", 3), "456", 3),
			     "789", 3), 0xE3069283);
}

/* ---- Superblock ---- */

static struct awsw_sb good;
static u8 sbbuf[AWSW_SB_SIZE];

static void set_uuid(struct awsw_sb *sb, u8 seed)
{
	int i;

	for (i = 0; i < AWSW_UUID_LEN; i++)
		sb->uuid[i] = (u8)(seed + 17 * i + 1);
}

/* Recompute the crc after a deliberate edit, as a buggy writer would. */
static void reseal(u8 *b)
{
	put_le32(b + 80, 0);
	put_le32(b + 80, ref_crc32c(b, AWSW_SB_SIZE));
}

/* Decode @b for the 1 GiB, lbs 512 device of @good. */
static int dec(const u8 *b, struct awsw_sb *out)
{
	return awsw_sb_decode(b, AWSW_SB_SIZE, GiB, 512, out, &why);
}

/* Edit one u32 or u64 of a fresh copy of the good superblock, reseal. */
static int dec_edit32(u32 off, u32 v)
{
	static u8 b[AWSW_SB_SIZE];
	struct awsw_sb out;

	memcpy(b, sbbuf, sizeof(b));
	put_le32(b + off, v);
	reseal(b);
	return dec(b, &out);
}

static int dec_edit64(u32 off, u64 v)
{
	static u8 b[AWSW_SB_SIZE];
	struct awsw_sb out;

	memcpy(b, sbbuf, sizeof(b));
	put_le64(b + off, v);
	reseal(b);
	return dec(b, &out);
}

static bool why_has(const char *word)
{
	return why && strstr(why, word);
}

static void test_sb(void)
{
	static u8 b[AWSW_SB_SIZE + 16];
	struct awsw_sb out;
	int ret, bit, missed = 0, nodata = 0, inval = 0;
	u32 i;

	CHECK_EQ(awsw_layout(GiB, 512, 0, 0, &good, &why), 0);
	set_uuid(&good, 0);
	good.checkpoint_seq = 0x0123456789abcdefULL;
	memset(sbbuf, 0xa5, sizeof(sbbuf));
	awsw_sb_encode(&good, sbbuf);

	/* The bytes, field by field, as the header documents them. */
	CHECK(!memcmp(sbbuf, "AWKITSW1", 8));
	CHECK_EQ(get_le32(sbbuf + 8), 1);
	CHECK_EQ(get_le32(sbbuf + 12), 0);
	CHECK(!memcmp(sbbuf + 16, good.uuid, 16));
	CHECK_EQ(get_le32(sbbuf + 32), 512);
	CHECK_EQ(get_le32(sbbuf + 36), 64 * KiB);
	CHECK_EQ(get_le64(sbbuf + 40), 64 * KiB);
	CHECK_EQ(get_le64(sbbuf + 48), good.journal_size);
	CHECK_EQ(get_le64(sbbuf + 56), good.data_start);
	CHECK_EQ(get_le64(sbbuf + 64), good.data_size);
	CHECK_EQ(get_le64(sbbuf + 72), 0x0123456789abcdefULL);
	memcpy(b, sbbuf, AWSW_SB_SIZE);
	put_le32(b + 80, 0);
	CHECK_EQ(get_le32(sbbuf + 80), ref_crc32c(b, AWSW_SB_SIZE));
	for (i = 84; i < AWSW_SB_SIZE && !sbbuf[i]; i++)
		;
	CHECK_EQ(i, AWSW_SB_SIZE);

	/* Round trip, and the decoder's view of the same device. */
	memset(&out, 0xee, sizeof(out));
	CHECK_EQ(dec(sbbuf, &out), 0);
	CHECK(why == NULL);
	CHECK(!memcmp(&out, &good, sizeof(out)));
	CHECK_EQ(awsw_sb_decode(sbbuf, AWSW_SB_SIZE, GiB, 0, &out, NULL), 0);
	CHECK_EQ(awsw_sb_decode(sbbuf, AWSW_SB_SIZE, 2 * GiB, 512, &out, NULL),
		 0);	/* a grown device keeps its format */
	CHECK_EQ(awsw_sb_decode(sbbuf, sizeof(b), GiB, 512, &out, NULL), 0);
	CHECK_EQ(awsw_sb_decode(sbbuf, AWSW_SB_SIZE, GiB - 512, 512, &out,
				&why), -EINVAL);
	CHECK(why_has("past the end"));
	CHECK_EQ(awsw_sb_decode(sbbuf, AWSW_SB_SIZE, GiB, 4096, &out, &why),
		 -EINVAL);
	CHECK(why_has("does not match"));

	/* Not ours: -ENODATA; ours but broken: -EINVAL with a reason. */
	memset(b, 0, sizeof(b));
	CHECK_EQ(dec(b, &out), -ENODATA);
	CHECK(why_has("no awkit superblock"));
	memcpy(b, "XFSB", 4);
	CHECK_EQ(dec(b, &out), -ENODATA);
	memcpy(b, sbbuf, AWSW_SB_SIZE);
	b[7] = '2';
	CHECK_EQ(dec(b, &out), -EINVAL);
	CHECK(why_has("unknown format"));
	CHECK_EQ(awsw_sb_decode(sbbuf, AWSW_SB_SIZE - 1, GiB, 512, &out, &why),
		 -EINVAL);
	CHECK(why_has("shorter"));
	CHECK_EQ(awsw_sb_decode(NULL, AWSW_SB_SIZE, GiB, 512, &out, &why),
		 -EINVAL);
	memset(&out, 0xee, sizeof(out));
	memcpy(b, sbbuf, AWSW_SB_SIZE);
	b[100] ^= 1;
	CHECK_EQ(dec(b, &out), -EINVAL);
	CHECK(why_has("checksum"));
	CHECK_EQ(out.lbs, 0);	/* zeroed on error */
	CHECK_EQ(out.data_size, 0);

	/* Every single bit flip anywhere in the 4096 bytes is caught. */
	for (i = 0; i < AWSW_SB_SIZE; i++) {
		for (bit = 0; bit < 8; bit++) {
			sbbuf[i] ^= 1 << bit;
			ret = dec(sbbuf, &out);
			sbbuf[i] ^= 1 << bit;
			if (ret == 0)
				missed++;
			else if (ret == -ENODATA)
				nodata++;
			else if (ret == -EINVAL)
				inval++;
		}
	}
	CHECK_EQ(missed, 0);
	CHECK_EQ(nodata, 7 * 8);	/* a flip in "AWKITSW" */
	CHECK_EQ(inval, AWSW_SB_SIZE * 8 - 7 * 8);
	CHECK_EQ(dec(sbbuf, &out), 0);

	/* Each field wrong, with a valid crc: caught by its own check. */
	CHECK_EQ(dec_edit32(8, 2), -EINVAL);
	CHECK(why_has("version"));
	CHECK_EQ(dec_edit32(8, 0), -EINVAL);
	CHECK_EQ(dec_edit32(12, 1), -EINVAL);
	CHECK(why_has("flags"));
	CHECK_EQ(dec_edit32(12, 0x80000000), -EINVAL);
	CHECK_EQ(dec_edit32(84, 1), -EINVAL);
	CHECK(why_has("reserved"));
	CHECK_EQ(dec_edit32(4092, 0x01000000), -EINVAL);
	CHECK(why_has("reserved"));
	memcpy(b, sbbuf, AWSW_SB_SIZE);
	memset(b + 16, 0, 16);
	reseal(b);
	CHECK_EQ(dec(b, &out), -EINVAL);
	CHECK(why_has("uuid"));
	/* lbs */
	CHECK_EQ(dec_edit32(32, 1024), -EINVAL);
	CHECK(why_has("does not match"));
	CHECK_EQ(dec_edit32(32, 0), -EINVAL);
	CHECK(why_has("logical block size"));
	CHECK_EQ(dec_edit32(32, 1000), -EINVAL);
	CHECK_EQ(dec_edit32(32, 256), -EINVAL);
	CHECK_EQ(dec_edit32(32, 128 * 1024), -EINVAL);
	/* unit_max */
	CHECK_EQ(dec_edit32(36, 0), -EINVAL);
	CHECK(why_has("largest atomic write"));
	CHECK_EQ(dec_edit32(36, 256), -EINVAL);
	CHECK_EQ(dec_edit32(36, 3 * 4096), -EINVAL);
	CHECK_EQ(dec_edit32(36, 2 * MiB), -EINVAL);
	CHECK_EQ(dec_edit32(36, 32 * KiB), 0);	/* smaller is fine */
	/* this journal holds four 1 MiB records, the data is 1 MiB aligned */
	CHECK_EQ(dec_edit32(36, MiB), 0);
	CHECK_EQ(dec_edit32(36, 2 * MiB), -EINVAL);
	/* journal_start */
	CHECK_EQ(dec_edit64(40, 0), -EINVAL);
	CHECK(why_has("overlaps the superblock"));
	CHECK_EQ(dec_edit64(40, 2048), -EINVAL);
	CHECK_EQ(dec_edit64(40, 64 * KiB + 100), -EINVAL);
	CHECK(why_has("aligned"));
	CHECK_EQ(dec_edit64(40, 64 * KiB + 512), -EINVAL);	/* overlap */
	CHECK(why_has("overlaps the journal"));
	CHECK_EQ(dec_edit64(40, 4096), 0);	/* a gap is fine */
	CHECK_EQ(dec_edit64(40, ~0ULL - 511), -EINVAL);
	/* journal_size */
	CHECK_EQ(dec_edit64(48, good.journal_size + 100), -EINVAL);
	CHECK(why_has("aligned"));
	CHECK_EQ(dec_edit64(48, 0), -EINVAL);
	CHECK_EQ(dec_edit64(48, 4 * (64 * KiB + 512) - 512), -EINVAL);
	CHECK(why_has("too small"));
	CHECK_EQ(dec_edit64(48, 4 * (64 * KiB + 512)), 0);	/* minimum */
	CHECK_EQ(dec_edit64(48, good.journal_size + 512), -EINVAL);
	CHECK(why_has("overlaps the journal"));
	CHECK_EQ(dec_edit64(48, GiB), -EINVAL);
	CHECK(why_has("past the end"));
	CHECK_EQ(dec_edit64(48, ~0ULL - 511), -EINVAL);
	/* data_start */
	CHECK_EQ(dec_edit64(56, good.data_start - 64 * KiB), -EINVAL);
	CHECK(why_has("overlaps the journal"));
	CHECK_EQ(dec_edit64(56, good.data_start + 512), -EINVAL);
	CHECK(why_has("not aligned to the largest"));
	CHECK_EQ(dec_edit64(56, good.data_start + 64 * KiB), -EINVAL);
	CHECK(why_has("past the end"));
	CHECK_EQ(dec_edit64(56, 2 * GiB), -EINVAL);
	CHECK_EQ(dec_edit64(56, ~0ULL - 65535), -EINVAL);
	/* data_size */
	CHECK_EQ(dec_edit64(64, 0), -EINVAL);
	CHECK(why_has("data area size"));
	CHECK_EQ(dec_edit64(64, good.data_size - 100), -EINVAL);
	CHECK_EQ(dec_edit64(64, good.data_size - 512), 0);
	CHECK_EQ(dec_edit64(64, good.data_size + 512), -EINVAL);
	CHECK(why_has("past the end"));
	CHECK_EQ(dec_edit64(64, ~0ULL - 511), -EINVAL);	/* would wrap */
	/* checkpoint_seq is any value */
	CHECK_EQ(dec_edit64(72, 0), 0);
	CHECK_EQ(dec_edit64(72, ~0ULL), 0);

	/* A 4 KiB-block format checked on 4 KiB and 512-byte devices. */
	CHECK_EQ(awsw_layout(GiB, 4096, 0, 0, &out, &why), 0);
	set_uuid(&out, 9);
	awsw_sb_encode(&out, b);
	CHECK_EQ(awsw_sb_decode(b, AWSW_SB_SIZE, GiB, 4096, &good, &why), 0);
	CHECK(!memcmp(&out, &good, sizeof(out)));
	CHECK_EQ(awsw_sb_decode(b, AWSW_SB_SIZE, GiB, 512, &good, &why),
		 -EINVAL);
	/* restore @good for the record tests */
	CHECK_EQ(dec(sbbuf, &good), 0);
}

/* ---- Layout ---- */

static bool layout_sane(const struct awsw_sb *sb, u64 dev, u32 lbs,
			bool dflt)
{
	u8 b[AWSW_SB_SIZE];
	struct awsw_sb back, copy = *sb;
	u64 jmin = 4ull * (lbs + sb->unit_max);

	if (sb->version != 1 || sb->flags || sb->lbs != lbs ||
	    sb->checkpoint_seq || sb->journal_start != 64 * KiB)
		return false;
	if (sb->journal_size < jmin || sb->journal_size % lbs)
		return false;
	if (sb->data_start % MiB ||
	    sb->data_start < sb->journal_start + sb->journal_size ||
	    sb->data_start - (sb->journal_start + sb->journal_size) >= MiB)
		return false;
	if (sb->data_size % lbs || sb->data_start + sb->data_size > dev ||
	    dev - (sb->data_start + sb->data_size) >= lbs ||
	    sb->data_size < MiB)
		return false;
	if (dflt && (sb->data_start != sb->journal_start + sb->journal_size ||
		     sb->journal_size > dev / 8))
		return false;
	/* What format writes, attach takes back unchanged. */
	set_uuid(&copy, 3);
	awsw_sb_encode(&copy, b);
	if (awsw_sb_decode(b, AWSW_SB_SIZE, dev, lbs, &back, NULL))
		return false;
	return !memcmp(&back, &copy, sizeof(back));
}

static void test_layout(void)
{
	static const u32 lbss[] = { 512, 4096 };
	static const u32 units[] = { 0, 4096, 64 * 1024, 256 * 1024, 1024 * 1024 };
	struct awsw_sb sb;
	unsigned int i, j;
	u64 dev;
	int bad = 0, ok = 0, flips = 0;

	/* 1 GiB, lbs 512, defaults: 64 * (64 KiB + 512) rounded to 5 MiB. */
	CHECK_EQ(awsw_layout(GiB, 512, 0, 0, &sb, &why), 0);
	CHECK_EQ(sb.unit_max, 64 * KiB);
	CHECK_EQ(sb.journal_start, 64 * KiB);
	CHECK_EQ(sb.journal_size, 5 * MiB - 64 * KiB);
	CHECK_EQ(sb.data_start, 5 * MiB);
	CHECK_EQ(sb.data_size, GiB - 5 * MiB);
	CHECK(layout_sane(&sb, GiB, 512, true));
	/* small units still get the 4 MiB minimum */
	CHECK_EQ(awsw_layout(GiB, 4096, 0, 4096, &sb, &why), 0);
	CHECK_EQ(sb.journal_size, 5 * MiB - 64 * KiB);
	CHECK_EQ(sb.unit_max, 4096);
	/* 1 MiB units: 64 * (1 MiB + 4 KiB) = 64.25 MiB, to 65 MiB */
	CHECK_EQ(awsw_layout(GiB, 4096, 0, MiB, &sb, &why), 0);
	CHECK_EQ(sb.data_start, 65 * MiB);
	CHECK_EQ(sb.journal_size, 65 * MiB - 64 * KiB);
	CHECK(layout_sane(&sb, GiB, 4096, true));
	/* 16 MiB: capped at 1/8 of the device */
	CHECK_EQ(awsw_layout(16 * MiB, 4096, 0, 0, &sb, &why), 0);
	CHECK_EQ(sb.data_start, 2 * MiB);
	CHECK_EQ(sb.journal_size, 2 * MiB - 64 * KiB);
	CHECK_EQ(sb.data_size, 14 * MiB);
	CHECK(layout_sane(&sb, 16 * MiB, 4096, true));
	/*
	 * 7.5 MiB is the smallest for the defaults: 1/8 of it and the 64 KiB
	 * before the journal just reach the first 1 MiB boundary.
	 */
	CHECK_EQ(awsw_layout(8 * MiB, 512, 0, 0, &sb, &why), 0);
	CHECK_EQ(sb.data_start, MiB);
	CHECK_EQ(awsw_layout(15 * MiB / 2, 512, 0, 0, &sb, &why), 0);
	CHECK_EQ(sb.data_start, MiB);
	CHECK_EQ(sb.journal_size, MiB - 64 * KiB);
	CHECK_EQ(sb.data_size, 13 * MiB / 2);
	CHECK(layout_sane(&sb, 15 * MiB / 2, 512, true));
	CHECK_EQ(awsw_layout(15 * MiB / 2 - 512, 512, 0, 0, &sb, &why),
		 -EINVAL);
	CHECK(why_has("too small"));
	CHECK_EQ(awsw_layout(4 * MiB, 512, 0, 0, &sb, &why), -EINVAL);
	CHECK_EQ(awsw_layout(0, 512, 0, 0, &sb, &why), -EINVAL);
	CHECK_EQ(sb.lbs, 0);	/* zeroed on error */
	/* 1 MiB units do not fit a 16 MiB device's 2 MiB journal */
	CHECK_EQ(awsw_layout(16 * MiB, 4096, 0, MiB, &sb, &why), -EINVAL);
	CHECK(why_has("too small"));
	/* an odd-sized device: the tail past the last block is unused */
	CHECK_EQ(awsw_layout(GiB + 3 * 512, 512, 0, 0, &sb, &why), 0);
	CHECK_EQ(sb.data_size, GiB + 3 * 512 - 5 * MiB);
	CHECK_EQ(awsw_layout(GiB + 512, 4096, 0, 0, &sb, &why), -EINVAL);

	/* An explicit journal size is taken as is. */
	CHECK_EQ(awsw_layout(GiB, 512, 8 * MiB, 0, &sb, &why), 0);
	CHECK_EQ(sb.journal_size, 8 * MiB);
	CHECK_EQ(sb.data_start, 9 * MiB);
	CHECK(layout_sane(&sb, GiB, 512, false));
	CHECK_EQ(awsw_layout(GiB, 512, 256 * MiB, 0, &sb, &why), 0);
	CHECK(layout_sane(&sb, GiB, 512, false));
	CHECK_EQ(awsw_layout(GiB, 512, 8 * MiB + 100, 0, &sb, &why), -EINVAL);
	CHECK(why_has("aligned"));
	CHECK_EQ(awsw_layout(GiB, 512, 4 * (64 * KiB + 512) - 512, 0, &sb, &why),
		 -EINVAL);
	CHECK(why_has("too small"));
	CHECK_EQ(awsw_layout(GiB, 512, 4 * (64 * KiB + 512), 0, &sb, &why), 0);
	CHECK(layout_sane(&sb, GiB, 512, false));
	CHECK_EQ(awsw_layout(GiB, 512, GiB, 0, &sb, &why), -EINVAL);
	/* the data area must keep at least 1 MiB */
	CHECK_EQ(awsw_layout(GiB, 512, GiB - 2 * MiB, 0, &sb, &why), 0);
	CHECK_EQ(sb.data_size, MiB);
	CHECK(layout_sane(&sb, GiB, 512, false));
	CHECK_EQ(awsw_layout(GiB, 512, GiB - MiB, 0, &sb, &why), -EINVAL);
	CHECK(why_has("too small"));
	CHECK_EQ(awsw_layout(GiB, 512, ~0ULL - 511, 0, &sb, &why), -EINVAL);
	CHECK_EQ(awsw_layout(4 * MiB, 512, 512 * KiB, 0, &sb, &why), 0);
	CHECK(layout_sane(&sb, 4 * MiB, 512, false));

	/* Bad parameters. */
	CHECK_EQ(awsw_layout(GiB, 1000, 0, 0, &sb, &why), -EINVAL);
	CHECK(why_has("logical block size"));
	CHECK_EQ(awsw_layout(GiB, 256, 0, 0, &sb, &why), -EINVAL);
	CHECK_EQ(awsw_layout(GiB, 0, 0, 0, &sb, &why), -EINVAL);
	CHECK_EQ(awsw_layout(GiB, 128 * 1024, 0, 0, &sb, &why), -EINVAL);
	CHECK_EQ(awsw_layout(GiB, 4096, 0, 2048, &sb, &why), -EINVAL);
	CHECK(why_has("largest atomic write"));
	CHECK_EQ(awsw_layout(GiB, 512, 0, 3 * 4096, &sb, &why), -EINVAL);
	CHECK_EQ(awsw_layout(GiB, 512, 0, 2 * MiB, &sb, &why), -EINVAL);
	CHECK_EQ(awsw_layout(1ULL << 63, 512, 0, 0, &sb, &why), -EINVAL);
	CHECK(why_has("too large"));
	CHECK_EQ(awsw_layout(1ULL << 62, 512, 0, 0, &sb, &why), 0);
	CHECK(layout_sane(&sb, 1ULL << 62, 512, true));
	CHECK_EQ(awsw_layout(GiB, 65536, 0, 0, &sb, &why), 0);
	CHECK(layout_sane(&sb, GiB, 65536, true));

	/*
	 * A sweep of sizes: every layout is sane and attachable, and once a
	 * size works, every larger one works too.
	 */
	for (i = 0; i < ARRAY_SIZE(lbss); i++) {
		for (j = 0; j < ARRAY_SIZE(units); j++) {
			bool seen_ok = false;

			for (dev = 0; dev <= 3 * GiB; dev += dev < 64 * MiB ?
			     MiB / 2 : 61 * MiB + lbss[i]) {
				int r = awsw_layout(dev, lbss[i], 0, units[j],
						    &sb, NULL);

				if (r == 0) {
					ok++;
					seen_ok = true;
					if (!layout_sane(&sb, dev, lbss[i], true))
						bad++;
				} else if (seen_ok) {
					flips++;
				}
			}
		}
	}
	CHECK(ok > 500);
	CHECK_EQ(bad, 0);
	CHECK_EQ(flips, 0);
}

/* ---- Records ---- */

#define MAXREC (1024 * 1024 + 65536)
static u8 rec[MAXREC];

static int chk(const u8 *hdr, u64 pos, const struct awsw_sb *sb,
	       struct awsw_rec *r)
{
	return awsw_rec_check_header(hdr, sb->lbs, pos, sb, r);
}

/* Header and data of a record at @pos both check out. */
static bool rec_ok(const u8 *hdr, u64 pos, const struct awsw_sb *sb)
{
	struct awsw_rec r;

	if (awsw_rec_check_header(hdr, sb->lbs, pos, sb, &r))
		return false;
	return awsw_rec_check_data(&r, awsw_rec_crc(awsw_crc32c(0, hdr + sb->lbs,
								r.len),
						    hdr, sb->lbs));
}

/* Encode a header with a forged field and a correct crc. */
static int forged(const struct awsw_sb *sb, u32 off, u32 v)
{
	struct awsw_rec r;

	awsw_rec_encode_header(sb, rec, 0, 5, 0, sb->lbs);
	put_le32(rec + off, v);
	awsw_rec_set_crc(rec, awsw_rec_crc(awsw_crc32c(0, rec + sb->lbs,
						       sb->lbs), rec, sb->lbs));
	return chk(rec, 0, sb, &r);
}

static void test_records(void)
{
	struct awsw_sb sb4k, other;
	struct awsw_rec r;
	u8 *data;
	u32 i, crc, len, lbs;
	int bit, missed;

	CHECK_EQ(awsw_rec_size(512, 4096), 4608);
	CHECK_EQ(awsw_rec_size(4096, MiB), MiB + 4096);

	/* 512-byte blocks: round trip, bytes at their documented places. */
	lbs = good.lbs;
	data = rec + lbs;
	fill_rnd(data, 8192);
	awsw_rec_encode(&good, rec, 3 * 512, 42, 8192 * 7, 8192, data);
	CHECK(!memcmp(rec, "AWJR", 4));
	CHECK_EQ(get_le32(rec + 4), 1);
	CHECK_EQ(get_le32(rec + 8), 0);
	CHECK_EQ(get_le32(rec + 12), 8192);
	CHECK_EQ(get_le64(rec + 16), 42);
	CHECK_EQ(get_le64(rec + 24), 8192 * 7);
	CHECK_EQ(get_le64(rec + 32), 3 * 512);
	CHECK(!memcmp(rec + 40, good.uuid, 16));
	for (i = 60; i < lbs && !rec[i]; i++)
		;
	CHECK_EQ(i, lbs);
	/* the crc is of the data, then the header with its crc zero */
	crc = get_le32(rec + 56);
	put_le32(rec + 56, 0);
	{
		static u8 cat[8192 + 512];

		memcpy(cat, data, 8192);
		memcpy(cat + 8192, rec, lbs);
		CHECK_EQ(crc, ref_crc32c(cat, 8192 + lbs));
	}
	awsw_rec_set_crc(rec, crc);
	CHECK_EQ(get_le32(rec + 56), crc);
	/* awsw_rec_crc ignores what the crc field holds */
	i = ref_crc32c(data, 8192);
	CHECK_EQ(awsw_crc32c(0, data, 8192), i);
	CHECK_EQ(awsw_rec_crc(i, rec, lbs), crc);
	put_le32(rec + 56, 0x12345678);
	CHECK_EQ(awsw_rec_crc(i, rec, lbs), crc);
	awsw_rec_set_crc(rec, crc);

	memset(&r, 0xee, sizeof(r));
	CHECK_EQ(chk(rec, 3 * 512, &good, &r), 0);
	CHECK_EQ(r.seq, 42);
	CHECK_EQ(r.target, 8192 * 7);
	CHECK_EQ(r.pos, 3 * 512);
	CHECK_EQ(r.len, 8192);
	CHECK_EQ(r.crc, crc);
	CHECK(rec_ok(rec, 3 * 512, &good));

	/* Data in pieces gives the same crc (the kernel's pages). */
	crc = 0;
	for (i = 0; i < 8192; i += 4096)
		crc = awsw_crc32c(crc, data + i, 4096);
	crc = awsw_rec_crc(crc, rec, lbs);
	CHECK(awsw_rec_check_data(&r, crc));
	CHECK(!awsw_rec_check_data(&r, crc ^ 1));
	/* Encoding in three steps gives the same header. */
	{
		static u8 h2[512];

		awsw_rec_encode_header(&good, h2, 3 * 512, 42, 8192 * 7, 8192);
		CHECK_EQ(get_le32(h2 + 56), 0);
		awsw_rec_set_crc(h2, awsw_rec_crc(awsw_crc32c(0, data, 8192),
						  h2, 512));
		CHECK(!memcmp(h2, rec, 512));
	}

	/* Every bit flip in the header or the data is caught. */
	missed = 0;
	for (i = 0; i < lbs + 8192; i++) {
		for (bit = 0; bit < 8; bit++) {
			rec[i] ^= 1 << bit;
			if (rec_ok(rec, 3 * 512, &good))
				missed++;
			rec[i] ^= 1 << bit;
		}
	}
	CHECK_EQ(missed, 0);
	CHECK(rec_ok(rec, 3 * 512, &good));
	/* A torn record: the tail of the data never written. */
	memset(data + 4096, 0, 4096);
	CHECK_EQ(chk(rec, 3 * 512, &good, &r), 0);
	CHECK(!rec_ok(rec, 3 * 512, &good));

	/* Found elsewhere, or for another format: not ours to replay. */
	fill_rnd(data, 8192);
	awsw_rec_encode(&good, rec, 3 * 512, 42, 8192 * 7, 8192, data);
	CHECK_EQ(chk(rec, 4 * 512, &good, &r), -EINVAL);
	CHECK_EQ(chk(rec, 0, &good, &r), -EINVAL);
	CHECK_EQ(r.len, 0);	/* zeroed on error */
	other = good;
	set_uuid(&other, 99);
	CHECK_EQ(chk(rec, 3 * 512, &other, &r), -EINVAL);
	CHECK_EQ(awsw_rec_check_header(rec, 4096, 3 * 512, &good, &r), -EINVAL);
	CHECK_EQ(awsw_rec_check_header(rec, 511, 3 * 512, &good, &r), -EINVAL);

	/* 4 KiB blocks: where the records may point. */
	CHECK_EQ(awsw_layout(GiB, 4096, 0, 0, &sb4k, &why), 0);
	set_uuid(&sb4k, 5);
	lbs = 4096;
	data = rec + lbs;
	fill_rnd(data, 64 * KiB);
#define TRY(pos, seq, target, len) \
	(awsw_rec_encode(&sb4k, rec, pos, seq, target, len, data), \
	 chk(rec, pos, &sb4k, &r))
	CHECK_EQ(TRY(0, 1, 0, 4096), 0);
	CHECK(rec_ok(rec, 0, &sb4k));
	CHECK_EQ(TRY(0, 1, 0, 64 * KiB), 0);
	CHECK(rec_ok(rec, 0, &sb4k));
	CHECK_EQ(TRY(4096, ~0ULL, 0, 4096), 0);	/* any seq but 0 */
	CHECK_EQ(TRY(0, 0, 0, 4096), -EINVAL);
	/* len */
	CHECK_EQ(TRY(0, 1, 0, 0), -EINVAL);
	CHECK_EQ(TRY(0, 1, 0, 512), -EINVAL);		/* < lbs */
	CHECK_EQ(TRY(0, 1, 0, 3 * 4096), -EINVAL);	/* not pow2 */
	CHECK_EQ(TRY(0, 1, 0, 128 * KiB), -EINVAL);	/* > unit_max */
	awsw_rec_encode_header(&sb4k, rec, 0, 1, 0, 0x80000000u);
	CHECK_EQ(chk(rec, 0, &sb4k, &r), -EINVAL);
	/* target */
	CHECK_EQ(TRY(0, 1, 4096, 8192), -EINVAL);	/* misaligned */
	CHECK_EQ(TRY(0, 1, 512, 4096), -EINVAL);
	CHECK_EQ(TRY(0, 1, 8192, 8192), 0);
	CHECK_EQ(TRY(0, 1, sb4k.data_size - 4096, 4096), 0);	/* last */
	CHECK_EQ(TRY(0, 1, sb4k.data_size - 64 * KiB, 64 * KiB), 0);
	CHECK_EQ(TRY(0, 1, sb4k.data_size, 4096), -EINVAL);	/* past */
	CHECK_EQ(TRY(0, 1, sb4k.data_size + 4096, 4096), -EINVAL);
	CHECK_EQ(TRY(0, 1, ~0ULL - 4095, 4096), -EINVAL);	/* wraps */
	CHECK_EQ(TRY(0, 1, 1ULL << 63, 4096), -EINVAL);
	/* pos */
	CHECK_EQ(TRY(512, 1, 0, 4096), -EINVAL);	/* misaligned */
	len = 64 * KiB;
	CHECK_EQ(TRY(sb4k.journal_size - 4096 - len, 1, 0, len), 0);
	CHECK_EQ(TRY(sb4k.journal_size - len, 1, 0, len), -EINVAL);
	CHECK_EQ(TRY(sb4k.journal_size, 1, 0, 4096), -EINVAL);
	CHECK_EQ(TRY(~0ULL - 4095, 1, 0, 4096), -EINVAL);
#undef TRY
	/* magic, version, flags and reserved bytes, crc made to match */
	CHECK_EQ(forged(&sb4k, 4, 1), 0);	/* the forge itself works */
	CHECK_EQ(forged(&sb4k, 0, 0x524a5742), -EINVAL);
	CHECK_EQ(forged(&sb4k, 4, 2), -EINVAL);
	CHECK_EQ(forged(&sb4k, 4, 0), -EINVAL);
	CHECK_EQ(forged(&sb4k, 8, 1), -EINVAL);
	CHECK_EQ(forged(&sb4k, 60, 1), -EINVAL);
	CHECK_EQ(forged(&sb4k, 4092, 0x01000000), -EINVAL);
}

/* ---- Journal placement ---- */

static void test_journal(void)
{
	struct awsw_sb sb;
	u64 pos = 0, js, used = 0;
	u32 sizes[] = { 4096 + 4096, 4096 + 65536, 4096 + 16384, 4096 + 32768 };
	unsigned int i, wraps = 0, bad = 0, recs = 0;
	struct awsw_rec r;

	CHECK_EQ(awsw_layout(GiB, 4096, 0, 0, &sb, &why), 0);
	set_uuid(&sb, 1);
	js = sb.journal_size;
	CHECK(awsw_journal_fits(&sb, 0, 8192));
	CHECK(awsw_journal_fits(&sb, 0, (u32)js));
	CHECK(!awsw_journal_fits(&sb, 0, (u32)js + 4096));
	CHECK(awsw_journal_fits(&sb, js - 8192, 8192));		/* exactly */
	CHECK(!awsw_journal_fits(&sb, js - 4096, 8192));
	CHECK(awsw_journal_fits(&sb, js, 0));
	CHECK(!awsw_journal_fits(&sb, js, 4096));
	CHECK(!awsw_journal_fits(&sb, js + 4096, 4096));
	CHECK(!awsw_journal_fits(&sb, ~0ULL, 4096));
	CHECK_EQ(awsw_journal_place(&sb, 8192, 8192), 8192);
	CHECK_EQ(awsw_journal_place(&sb, js - 8192, 8192), js - 8192);
	CHECK_EQ(awsw_journal_place(&sb, js - 4096, 8192), 0);
	CHECK_EQ(awsw_journal_place(&sb, js, 8192), 0);

	/*
	 * A writer going round the journal three times: no record runs past
	 * the end, and each one is valid where it was put.
	 */
	for (i = 0; wraps < 3; i++) {
		u32 sz = sizes[rnd() % ARRAY_SIZE(sizes)];
		u64 at = awsw_journal_place(&sb, pos, sz);

		if (at != pos) {
			wraps++;
			if (at != 0 || pos + sz <= js)
				bad++;
		}
		if (at + sz > js || at % 4096)
			bad++;
		awsw_rec_encode_header(&sb, rec, at, i + 1,
				       (u64)(rnd() % 1000) * 65536, sz - 4096);
		if (awsw_rec_check_header(rec, 4096, at, &sb, &r))
			bad++;
		pos = at + sz;
		used += sz;
		recs++;
	}
	CHECK_EQ(bad, 0);
	CHECK(recs > 100);
	CHECK(used > 2 * js);
}

/* ---- Replay planning ---- */

#define NREC 2000
static struct awsw_rec rs[NREC], ref[NREC];

static struct awsw_rec mkrec(u64 seq, u64 pos)
{
	struct awsw_rec r = { .seq = seq, .target = seq * 4096, .pos = pos,
			      .len = 4096, .crc = (u32)seq };
	return r;
}

/* The plan, the slow obvious way. */
static unsigned int ref_plan(const struct awsw_rec *in, unsigned int n,
			     u64 cp, struct awsw_rec *out)
{
	unsigned int i, k = 0;
	u64 last = cp;

	for (;;) {
		int best = -1;

		for (i = 0; i < n; i++)
			if (in[i].seq > last &&
			    (best < 0 || in[i].seq < in[best].seq ||
			     (in[i].seq == in[best].seq &&
			      in[i].pos < in[best].pos)))
				best = i;
		if (best < 0)
			return k;
		out[k++] = in[best];
		last = in[best].seq;
	}
}

static void test_replay(void)
{
	static struct awsw_rec in[NREC];
	unsigned int n, i, round, bad;

	CHECK_EQ(awsw_replay_plan(rs, 0, 0), 0);
	CHECK_EQ(awsw_replay_plan(NULL, 0, 7), 0);

	/* Drops checkpointed ones, sorts, keeps gaps. */
	rs[0] = mkrec(9, 0);
	rs[1] = mkrec(3, 4096);
	rs[2] = mkrec(7, 8192);
	rs[3] = mkrec(5, 12288);
	rs[4] = mkrec(12, 16384);
	n = awsw_replay_plan(rs, 5, 5);
	CHECK_EQ(n, 3);
	CHECK_EQ(rs[0].seq, 7);
	CHECK_EQ(rs[1].seq, 9);
	CHECK_EQ(rs[2].seq, 12);
	CHECK_EQ(rs[0].pos, 8192);	/* records move whole */
	CHECK_EQ(rs[2].target, 12 * 4096);
	CHECK_EQ(rs[1].crc, 9);

	/* All checkpointed: nothing to do. */
	rs[0] = mkrec(1, 0);
	rs[1] = mkrec(2, 4096);
	CHECK_EQ(awsw_replay_plan(rs, 2, 2), 0);
	CHECK_EQ(awsw_replay_plan(rs, 2, ~0ULL), 0);
	/* A single record. */
	rs[0] = mkrec(1, 0);
	CHECK_EQ(awsw_replay_plan(rs, 1, 0), 1);
	CHECK_EQ(rs[0].seq, 1);

	/* Duplicates: one kept, the lowest pos. */
	rs[0] = mkrec(4, 40960);
	rs[1] = mkrec(4, 8192);
	rs[2] = mkrec(4, 16384);
	rs[3] = mkrec(6, 0);
	rs[4] = mkrec(6, 4096);
	n = awsw_replay_plan(rs, 5, 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(rs[0].seq, 4);
	CHECK_EQ(rs[0].pos, 8192);
	CHECK_EQ(rs[1].seq, 6);
	CHECK_EQ(rs[1].pos, 0);

	/* A wrapped journal: two sorted runs, the newest at the front. */
	for (i = 0; i < 1000; i++)
		rs[i] = mkrec(i < 400 ? 601 + i : i - 399, (u64)i * 8192);
	n = awsw_replay_plan(rs, 1000, 100);
	CHECK_EQ(n, 900);
	bad = 0;
	for (i = 0; i < n; i++)
		if (rs[i].seq != 101 + i)
			bad++;
	CHECK_EQ(bad, 0);

	/* Reverse order, then random sets against the reference. */
	for (i = 0; i < NREC; i++)
		rs[i] = mkrec(NREC - i, (u64)i * 4096);
	CHECK_EQ(awsw_replay_plan(rs, NREC, 0), NREC);
	bad = 0;
	for (i = 0; i < NREC; i++)
		if (rs[i].seq != i + 1)
			bad++;
	CHECK_EQ(bad, 0);

	bad = 0;
	for (round = 0; round < 40; round++) {
		unsigned int m = 1 + rnd() % 300, k;
		u64 cp = rnd() % 200;

		for (i = 0; i < m; i++)
			in[i] = mkrec(1 + rnd() % 250, (u64)i * 4096);
		memcpy(rs, in, m * sizeof(*in));
		n = awsw_replay_plan(rs, m, cp);
		k = ref_plan(in, m, cp, ref);
		if (n != k || memcmp(rs, ref, n * sizeof(*rs)))
			bad++;
	}
	CHECK_EQ(bad, 0);
}

/*
 * Recovery end to end over a journal in memory: records written round a
 * small journal, the superblock's checkpoint, one torn record, then the
 * scan attach would do (every block position) and the plan.
 */
static void test_recovery(void)
{
	static u8 j[256 * 1024];
	static struct awsw_rec found[64];
	struct awsw_sb sb;
	u64 pos = 0, at;
	u32 sz = 4096 + 8192, i, nf = 0, n, torn_seq = 0;
	u8 data[8192];
	struct awsw_rec r;

	/* A journal that holds 21 records of 12 KiB (256 KiB / 12 KiB). */
	CHECK_EQ(awsw_layout(GiB, 4096, sizeof(j), 8192, &sb, &why), 0);
	set_uuid(&sb, 7);
	memset(j, 0, sizeof(j));
	/* seq 1..30: 9 of them overwrite the first ones after the wrap. */
	for (i = 1; i <= 30; i++) {
		at = awsw_journal_place(&sb, pos, sz);
		memset(data, (int)i, sizeof(data));
		memcpy(j + at + 4096, data, sizeof(data));
		awsw_rec_encode(&sb, j + at, at, i, (u64)(i % 5) * 8192, 8192,
				data);
		pos = at + sz;
		if (i == 27) {
			/* torn: its second data block never made it */
			memset(j + at + 4096 + 4096, 0xff, 4096);
			torn_seq = i;
		}
	}
	/* Checkpoint: everything up to 20 is in place and flushed. */
	sb.checkpoint_seq = 20;

	for (at = 0; at + 4096 <= sizeof(j); at += 4096) {
		if (awsw_rec_check_header(j + at, 4096, at, &sb, &r))
			continue;
		if (at + 4096 + r.len > sizeof(j))
			continue;
		if (!awsw_rec_check_data(&r, awsw_rec_crc(awsw_crc32c(0,
						j + at + 4096, r.len), j + at, 4096)))
			continue;
		found[nf++] = r;
	}
	/* 21 slots: seq 22..30 in slots 0..8, seq 10..21 in slots 9..20 */
	CHECK_EQ(nf, 21 - 1);
	n = awsw_replay_plan(found, nf, sb.checkpoint_seq);
	CHECK_EQ(n, 9);	/* 21..30 without the torn 27 */
	CHECK_EQ(found[0].seq, 21);
	CHECK_EQ(found[n ? n - 1 : 0].seq, 30);
	for (i = 0; i < n; i++)
		CHECK(found[i].seq != torn_seq);
	/* Twice is the same plan: replaying again writes the same bytes. */
	CHECK_EQ(awsw_replay_plan(found, n, sb.checkpoint_seq), n);
	CHECK_EQ(found[5].seq, 26);
	CHECK_EQ(found[6].seq, 28);
}

/* ---- Foreign signatures ---- */

static u8 dev[AWSW_PROBE_BYTES];

/* Probe the first @len bytes from a heap copy of exactly that size. */
static const char *probe(u32 len)
{
	u8 *p = malloc(len ? len : 1);
	const char *s;

	if (!p)
		abort();
	memcpy(p, dev, len);
	s = awsw_foreign_signature(p, len);
	free(p);
	return s;
}

static bool is(const char *got, const char *want)
{
	return got && !strcmp(got, want);
}

/*
 * @dev holds one signature whose last byte is at @end - 1: seen with the
 * full probe and exactly @end bytes, not with one byte less; no length in
 * between reads past its buffer.
 */
static void sig_case(const char *want, u32 end, int line)
{
	u32 lens[] = { 0, 1, 2, 3, 8, 100, 446, 500, 510, 511, 512, 513, 520,
		       1024, 1080, 1081, 1500, 2048, 4086, 4095, 4096, 4100,
		       4200, 32768, 32773, 65536, 65600, 65608, 65700 };
	unsigned int i;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(lens); i++)
		(void)probe(lens[i]);	/* a sanitizer build checks these */
	for (i = end > 8 ? end - 8 : 0; i <= end + 8; i++)
		(void)probe(i);
	check(is(probe(sizeof(dev)), want), line, want);
	check(is(probe(end), want), line, want);
	if (!is(probe(end), want) || is(probe(end - 1), want))
		bad++;
	check(bad == 0, line, "exact length");
}

#define SIG(want, end) sig_case(want, end, __LINE__)

static void put(u32 off, const void *s, u32 n)
{
	memcpy(dev + off, s, n);
}

static void test_signatures(void)
{
	static const u8 md[4] = { 0xfc, 0x4e, 0x2b, 0xa9 };
	static const u8 bcache[16] = {
		0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca,
		0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81,
	};
	u32 i, n;

	memset(dev, 0, sizeof(dev));
	CHECK(awsw_foreign_signature(dev, sizeof(dev)) == NULL);
	CHECK(awsw_foreign_signature(NULL, 100) == NULL);
	for (i = 0, n = 0; i < 700; i++)
		if (probe(i))
			n++;
	CHECK_EQ(n, 0);
	memset(dev, 0xff, sizeof(dev));
	CHECK(awsw_foreign_signature(dev, sizeof(dev)) == NULL);

#define FRESH() memset(dev, 0, sizeof(dev))
	FRESH(); put(1024 + 56, "\x53\xef", 2); SIG("ext2/3/4", 1082);
	FRESH(); put(1024 + 56, "\xef\x53", 2);
	CHECK(probe(sizeof(dev)) == NULL);	/* big-endian is not ext */
	FRESH(); put(0, "XFSB", 4); SIG("XFS", 4);
	FRESH(); put(65536 + 64, "_BHRfS_M", 8); SIG("btrfs", 65608);
	FRESH(); put(4086, "SWAPSPACE2", 10); SIG("swap", 4096);
	FRESH(); put(4086, "SWAP-SPACE", 10); SIG("swap", 4096);
	FRESH(); put(0, "LUKS\xba\xbe", 6); SIG("LUKS", 6);
	FRESH(); put(0, "LUKS", 4);
	CHECK(probe(sizeof(dev)) == NULL);
	FRESH(); put(510, "\x55\xaa", 2);
	CHECK(probe(sizeof(dev)) == NULL);	/* no partition in use */
	dev[446 + 16 * 3 + 4] = 0x83; SIG("MBR partition table", 512);
	FRESH(); put(510, "\x55\xaa", 2); dev[446 + 4] = 0xee;
	put(512, "EFI PART", 8); SIG("GPT partition table", 520);
	FRESH(); put(4096, "EFI PART", 8); SIG("GPT partition table", 4104);
	FRESH(); put(512, "LABELONE", 8); put(512 + 24, "LVM2 001", 8);
	SIG("LVM2 physical volume", 544);
	FRESH(); put(1536, "LABELONE", 8); put(1536 + 24, "LVM2 001", 8);
	SIG("LVM2 physical volume", 1568);
	FRESH(); put(512, "LABELONE", 8);
	CHECK(probe(sizeof(dev)) == NULL);	/* a label, but not LVM2's */
	FRESH(); put(0, md, 4); SIG("Linux MD RAID member", 4);
	FRESH(); put(4096, md, 4); SIG("Linux MD RAID member", 4100);
	FRESH(); put(4096 + 24, bcache, 16); SIG("bcache", 4136);
	FRESH(); put(3, "NTFS    ", 8); SIG("NTFS", 11);
	FRESH(); put(82, "FAT32   ", 8); put(510, "\x55\xaa", 2); SIG("FAT", 512);
	FRESH(); put(54, "FAT16   ", 8); put(510, "\x55\xaa", 2); SIG("FAT", 512);
	FRESH(); put(32769, "CD001", 5); SIG("ISO 9660", 32774);
	FRESH(); put(0, "AWKITSW1", 8);
	SIG("awkit software-engine format", 7);
	FRESH(); put(0, "AWKITSW9", 8);
	CHECK(is(probe(sizeof(dev)), "awkit software-engine format"));
	FRESH(); awsw_sb_encode(&good, dev);
	CHECK(is(probe(sizeof(dev)), "awkit software-engine format"));
	/* ext inside a partition table still has its own signature */
	FRESH(); put(510, "\x55\xaa", 2); dev[446 + 4] = 0x83;
	put(1024 + 56, "\x53\xef", 2);
	CHECK(is(probe(sizeof(dev)), "ext2/3/4"));
#undef FRESH
}

/* awblk knows the format only by the uapi signature: they must agree. */
static void test_uapi_signature(void)
{
	u8 b[AWSW_SB_SIZE] = { 0 };

	CHECK_EQ(AW_SW_SIGNATURE_LEN, AWSW_SB_MAGIC_LEN - 1);
	CHECK_EQ(sizeof(AW_SW_SIGNATURE) - 1, AW_SW_SIGNATURE_LEN);
	CHECK(!memcmp(AWSW_SB_MAGIC, AW_SW_SIGNATURE, AW_SW_SIGNATURE_LEN));
	CHECK(!awsw_format_at(b, sizeof(b)));
	memcpy(b, AW_SW_SIGNATURE "9", AWSW_SB_MAGIC_LEN);
	CHECK(awsw_format_at(b, sizeof(b)));	/* any version */
	CHECK(!awsw_format_at(b, AW_SW_SIGNATURE_LEN - 1));
	b[AW_SW_SIGNATURE_LEN - 1] ^= 1;
	CHECK(!awsw_format_at(b, sizeof(b)));
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);	/* lines out before any crash */
	test_crc32c();
	test_uapi_signature();
	test_sb();
	test_layout();
	test_records();
	test_journal();
	test_replay();
	test_recovery();
	test_signatures();
	return unit_summary();
}
