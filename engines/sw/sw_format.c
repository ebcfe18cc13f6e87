// SPDX-License-Identifier: GPL-2.0
/*
 * See sw_format.h. Everything here reads what the disk says, so every
 * field is checked before it is used, sums of offsets are compared in a
 * way that cannot wrap around, and every read of a buffer is bounded by
 * the length the caller gave.
 */
#include "sw_format.h"

/* Superblock field offsets. */
#define SB_MAGIC		0
#define SB_VERSION		8
#define SB_FLAGS		12
#define SB_UUID			16
#define SB_LBS			32
#define SB_UNIT_MAX		36
#define SB_JOURNAL_START	40
#define SB_JOURNAL_SIZE		48
#define SB_DATA_START		56
#define SB_DATA_SIZE		64
#define SB_CHECKPOINT		72
#define SB_CRC			80
#define SB_USED			84

/* Record header field offsets. */
#define REC_MAGIC		0
#define REC_VERSION		4
#define REC_FLAGS		8
#define REC_LEN			12
#define REC_SEQ			16
#define REC_TARGET		24
#define REC_POS			32
#define REC_UUID		40
#define REC_CRC			56

#ifdef AW_KERNEL_CRC32C
/*
 * In the module: the kernel's crc32c, the fastest implementation loaded
 * (a record header is a whole logical block, checksummed on every atomic
 * write). The same function as the table below, which the host tests check.
 */
u32 awsw_crc32c(u32 crc, const void *buf, size_t len)
{
	return aw_kernel_crc32c(crc, buf, len);
}
#else
/*
 * crc32c table for the reflected polynomial 0x82F63B78, entry i being the
 * crc of byte i: generated once and kept constant, so there is nothing to
 * initialise (and no race doing it) in the kernel.
 */
static const u32 crc32c_table[256] = {
	0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4,
	0xc79a971f, 0x35f1141c, 0x26a1e7e8, 0xd4ca64eb,
	0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b,
	0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24,
	0x105ec76f, 0xe235446c, 0xf165b798, 0x030e349b,
	0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
	0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54,
	0x5d1d08bf, 0xaf768bbc, 0xbc267848, 0x4e4dfb4b,
	0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a,
	0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35,
	0xaa64d611, 0x580f5512, 0x4b5fa6e6, 0xb93425e5,
	0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
	0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45,
	0xf779deae, 0x05125dad, 0x1642ae59, 0xe4292d5a,
	0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a,
	0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595,
	0x417b1dbc, 0xb3109ebf, 0xa0406d4b, 0x522bee48,
	0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
	0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687,
	0x0c38d26c, 0xfe53516f, 0xed03a29b, 0x1f682198,
	0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927,
	0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38,
	0xdbfc821c, 0x2997011f, 0x3ac7f2eb, 0xc8ac71e8,
	0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
	0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096,
	0xa65c047d, 0x5437877e, 0x4767748a, 0xb50cf789,
	0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859,
	0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46,
	0x7198540d, 0x83f3d70e, 0x90a324fa, 0x62c8a7f9,
	0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
	0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36,
	0x3cdb9bdd, 0xceb018de, 0xdde0eb2a, 0x2f8b6829,
	0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c,
	0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93,
	0x082f63b7, 0xfa44e0b4, 0xe9141340, 0x1b7f9043,
	0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
	0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3,
	0x55326b08, 0xa759e80b, 0xb4091bff, 0x466298fc,
	0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c,
	0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033,
	0xa24bb5a6, 0x502036a5, 0x4370c551, 0xb11b4652,
	0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
	0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d,
	0xef087a76, 0x1d63f975, 0x0e330a81, 0xfc588982,
	0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d,
	0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622,
	0x38cc2a06, 0xcaa7a905, 0xd9f75af1, 0x2b9cd9f2,
	0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
	0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530,
	0x0417b1db, 0xf67c32d8, 0xe52cc12c, 0x1747422f,
	0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff,
	0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0,
	0xd3d3e1ab, 0x21b862a8, 0x32e8915c, 0xc083125f,
	0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
	0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90,
	0x9e902e7b, 0x6cfbad78, 0x7fab5e8c, 0x8dc0dd8f,
	0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee,
	0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1,
	0x69e9f0d5, 0x9b8273d6, 0x88d28022, 0x7ab90321,
	0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
	0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81,
	0x34f4f86a, 0xc69f7b69, 0xd5cf889d, 0x27a40b9e,
	0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e,
	0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

u32 awsw_crc32c(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	crc = ~crc;
	while (len--)
		crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
#endif

static const u8 zero4[4];

/*
 * crc32c continued from @crc over @len bytes at @buf, as if the 4 bytes at
 * @field were zero.
 */
static u32 awsw_crc_skip_field(u32 crc, const u8 *buf, u32 len, u32 field)
{
	if (len < field + 4)
		return awsw_crc32c(crc, buf, len);
	crc = awsw_crc32c(crc, buf, field);
	crc = awsw_crc32c(crc, zero4, 4);
	return awsw_crc32c(crc, buf + field + 4, len - field - 4);
}

static bool awsw_all_zero(const u8 *p, u32 len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

/* ---- Superblock ---- */

void awsw_sb_encode(const struct awsw_sb *sb, u8 *buf)
{
	memset(buf, 0, AWSW_SB_SIZE);
	memcpy(buf + SB_MAGIC, AWSW_SB_MAGIC, AWSW_SB_MAGIC_LEN);
	aw_put_le32(buf + SB_VERSION, sb->version);
	aw_put_le32(buf + SB_FLAGS, sb->flags);
	memcpy(buf + SB_UUID, sb->uuid, AWSW_UUID_LEN);
	aw_put_le32(buf + SB_LBS, sb->lbs);
	aw_put_le32(buf + SB_UNIT_MAX, sb->unit_max);
	aw_put_le64(buf + SB_JOURNAL_START, sb->journal_start);
	aw_put_le64(buf + SB_JOURNAL_SIZE, sb->journal_size);
	aw_put_le64(buf + SB_DATA_START, sb->data_start);
	aw_put_le64(buf + SB_DATA_SIZE, sb->data_size);
	aw_put_le64(buf + SB_CHECKPOINT, sb->checkpoint_seq);
	aw_put_le32(buf + SB_CRC, awsw_crc_skip_field(0, buf, AWSW_SB_SIZE, SB_CRC));
}

static int awsw_sb_fail(struct awsw_sb *sb, const char **why, int err,
			const char *s)
{
	memset(sb, 0, sizeof(*sb));
	*why = s;
	return err;
}

/* The block size and unit rules that layout and decode share. */
static const char *awsw_check_units(u32 lbs, u32 unit_max)
{
	if (!aw_is_pow2(lbs) || lbs < AWSW_LBS_MIN || lbs > AWSW_LBS_MAX)
		return "logical block size is not a power of two from 512 to 65536";
	if (!aw_is_pow2(unit_max) || unit_max < lbs ||
	    unit_max > AWSW_UNIT_MAX_LIMIT)
		return "largest atomic write is not a power of two from the logical block size to 1 MiB";
	return NULL;
}

/*
 * The smallest journal for @unit_max: a full-size record must always find
 * room while earlier ones wait for their checkpoint.
 */
static u64 awsw_journal_min(u32 lbs, u32 unit_max)
{
	return (u64)AWSW_JOURNAL_MIN_RECORDS * awsw_rec_size(lbs, unit_max);
}

/*
 * Does the geometry make sense on a device of @dev_bytes with logical block
 * size @dev_lbs (0: unknown)? Areas in order superblock, journal, data,
 * none overlapping, all inside the device and aligned.
 */
static const char *awsw_check_geometry(const struct awsw_sb *sb, u64 dev_bytes,
				       u32 dev_lbs)
{
	const char *s = awsw_check_units(sb->lbs, sb->unit_max);
	u64 lbs_mask = sb->lbs - 1;

	if (s)
		return s;
	if (dev_lbs && dev_lbs != sb->lbs)
		return "logical block size does not match the device's";
	if (sb->journal_start < AWSW_SB_SIZE)
		return "journal overlaps the superblock";
	if ((sb->journal_start | sb->journal_size) & lbs_mask)
		return "journal is not aligned to the logical block size";
	if (sb->journal_size < awsw_journal_min(sb->lbs, sb->unit_max))
		return "journal is too small for the largest atomic write";
	if (sb->journal_start > dev_bytes ||
	    sb->journal_size > dev_bytes - sb->journal_start)
		return "journal runs past the end of the device";
	/* journal_start + journal_size cannot wrap: both are <= dev_bytes. */
	if (sb->data_start < sb->journal_start + sb->journal_size)
		return "data area overlaps the journal";
	if (sb->data_start & (sb->unit_max - 1))
		return "data area is not aligned to the largest atomic write";
	if (!sb->data_size || (sb->data_size & lbs_mask))
		return "data area size is zero or not a multiple of the logical block size";
	if (sb->data_start > dev_bytes ||
	    sb->data_size > dev_bytes - sb->data_start)
		return "data area runs past the end of the device";
	return NULL;
}

int awsw_sb_decode(const u8 *buf, u32 len, u64 dev_bytes, u32 dev_lbs,
		   struct awsw_sb *sb, const char **why)
{
	const char *unused, *s;

	if (!why)
		why = &unused;
	*why = NULL;
	memset(sb, 0, sizeof(*sb));

	if (!buf || len < AWSW_SB_SIZE)
		return awsw_sb_fail(sb, why, -EINVAL,
				    "superblock buffer is shorter than 4096 bytes");
	/*
	 * Only a missing magic means "not ours": anything that carries it
	 * but fails a check below is an awkit device in trouble, and attach
	 * must say so rather than treat it as blank.
	 */
	if (memcmp(buf + SB_MAGIC, AWSW_SB_MAGIC, AWSW_SB_MAGIC_LEN)) {
		if (!memcmp(buf + SB_MAGIC, AWSW_SB_MAGIC, AWSW_SB_MAGIC_LEN - 1))
			return awsw_sb_fail(sb, why, -EINVAL,
					    "awkit superblock of an unknown format");
		return awsw_sb_fail(sb, why, -ENODATA, "no awkit superblock");
	}
	if (aw_get_le32(buf + SB_CRC) != awsw_crc_skip_field(0, buf, AWSW_SB_SIZE, SB_CRC))
		return awsw_sb_fail(sb, why, -EINVAL, "superblock checksum mismatch");
	/* Past the crc, what fails was written so: a newer or buggy awkit. */
	if (aw_get_le32(buf + SB_VERSION) != AWSW_VERSION)
		return awsw_sb_fail(sb, why, -EINVAL,
				    "superblock version is not supported");
	if (aw_get_le32(buf + SB_FLAGS))
		return awsw_sb_fail(sb, why, -EINVAL,
				    "superblock has unknown flags");
	if (!awsw_all_zero(buf + SB_USED, AWSW_SB_SIZE - SB_USED))
		return awsw_sb_fail(sb, why, -EINVAL,
				    "superblock reserved bytes are not zero");
	if (awsw_all_zero(buf + SB_UUID, AWSW_UUID_LEN))
		return awsw_sb_fail(sb, why, -EINVAL, "superblock uuid is zero");

	sb->version = AWSW_VERSION;
	memcpy(sb->uuid, buf + SB_UUID, AWSW_UUID_LEN);
	sb->lbs = aw_get_le32(buf + SB_LBS);
	sb->unit_max = aw_get_le32(buf + SB_UNIT_MAX);
	sb->journal_start = aw_get_le64(buf + SB_JOURNAL_START);
	sb->journal_size = aw_get_le64(buf + SB_JOURNAL_SIZE);
	sb->data_start = aw_get_le64(buf + SB_DATA_START);
	sb->data_size = aw_get_le64(buf + SB_DATA_SIZE);
	sb->checkpoint_seq = aw_get_le64(buf + SB_CHECKPOINT);

	s = awsw_check_geometry(sb, dev_bytes, dev_lbs);
	if (s)
		return awsw_sb_fail(sb, why, -EINVAL, s);
	return 0;
}

/*
 * Power-of-two alignment by masks, so no 64-bit division is needed on any
 * architecture (named so as not to clash with the kernel's macros).
 */
static u64 awsw_align_up(u64 v, u64 a)
{
	return (v + a - 1) & ~(a - 1);
}

static u64 awsw_align_down(u64 v, u64 a)
{
	return v & ~(a - 1);
}

int awsw_layout(u64 dev_bytes, u32 lbs, u64 journal_bytes, u32 unit_max,
		struct awsw_sb *sb, const char **why)
{
	const char *unused, *s;
	u64 jmin, end;

	if (!why)
		why = &unused;
	*why = NULL;
	memset(sb, 0, sizeof(*sb));
	if (!unit_max)
		unit_max = AWSW_UNIT_MAX_DEFAULT;
	s = awsw_check_units(lbs, unit_max);
	if (s)
		return awsw_sb_fail(sb, why, -EINVAL, s);
	/* Sums below stay far from wrapping: no real device is this large. */
	if (dev_bytes > AWSW_DEV_MAX)
		return awsw_sb_fail(sb, why, -EINVAL, "device is too large");
	if (dev_bytes & (lbs - 1))
		return awsw_sb_fail(sb, why, -EINVAL,
				    "device size is not a multiple of the logical block size");
	jmin = awsw_journal_min(lbs, unit_max);

	if (journal_bytes) {
		if (journal_bytes & (lbs - 1))
			return awsw_sb_fail(sb, why, -EINVAL,
					    "journal is not aligned to the logical block size");
		if (journal_bytes < jmin)
			return awsw_sb_fail(sb, why, -EINVAL,
					    "journal is too small for the largest atomic write");
		/* Bounded first, so the sums below cannot wrap. */
		if (journal_bytes > dev_bytes)
			return awsw_sb_fail(sb, why, -EINVAL,
					    "device is too small for the format");
		end = awsw_align_up(AWSW_JOURNAL_START + journal_bytes,
				    AWSW_DATA_ALIGN);
	} else {
		u64 want = (u64)AWSW_JOURNAL_DEFAULT_RECORDS *
			   awsw_rec_size(lbs, unit_max);
		u64 cap = dev_bytes >> AWSW_JOURNAL_MAX_SHARE_SHIFT;

		if (want < AWSW_JOURNAL_DEFAULT_MIN)
			want = AWSW_JOURNAL_DEFAULT_MIN;
		/*
		 * The journal ends where the data area starts, on a 1 MiB
		 * boundary: the padding becomes journal rather than waste.
		 */
		end = awsw_align_up(AWSW_JOURNAL_START + want, AWSW_DATA_ALIGN);
		if (end - AWSW_JOURNAL_START > cap)
			end = awsw_align_down(AWSW_JOURNAL_START + cap,
					      AWSW_DATA_ALIGN);
		if (end < AWSW_JOURNAL_START + jmin)
			return awsw_sb_fail(sb, why, -EINVAL,
					    "device is too small for the format");
	}

	if (end > dev_bytes || dev_bytes - end < AWSW_DATA_MIN ||
	    dev_bytes - end < unit_max)
		return awsw_sb_fail(sb, why, -EINVAL,
				    "device is too small for the format");

	sb->version = AWSW_VERSION;
	sb->lbs = lbs;
	sb->unit_max = unit_max;
	sb->journal_start = AWSW_JOURNAL_START;
	sb->journal_size = journal_bytes ? journal_bytes :
			   end - AWSW_JOURNAL_START;
	sb->data_start = end;
	sb->data_size = awsw_align_down(dev_bytes - end, lbs);

	/* The same judge as attach: format never writes what attach refuses. */
	s = awsw_check_geometry(sb, dev_bytes, lbs);
	if (s)
		return awsw_sb_fail(sb, why, -EINVAL, s);
	return 0;
}

/* ---- Journal records ---- */

u32 awsw_rec_size(u32 lbs, u32 len)
{
	return lbs + len;
}

void awsw_rec_encode_header(const struct awsw_sb *sb, u8 *hdr, u64 pos,
			    u64 seq, u64 target, u32 len)
{
	memset(hdr, 0, sb->lbs);
	memcpy(hdr + REC_MAGIC, AWSW_REC_MAGIC, AWSW_REC_MAGIC_LEN);
	aw_put_le32(hdr + REC_VERSION, AWSW_VERSION);
	aw_put_le32(hdr + REC_FLAGS, 0);
	aw_put_le32(hdr + REC_LEN, len);
	aw_put_le64(hdr + REC_SEQ, seq);
	aw_put_le64(hdr + REC_TARGET, target);
	aw_put_le64(hdr + REC_POS, pos);
	memcpy(hdr + REC_UUID, sb->uuid, AWSW_UUID_LEN);
}

u32 awsw_rec_crc(u32 data_crc, const u8 *hdr, u32 hdr_len)
{
	return awsw_crc_skip_field(data_crc, hdr, hdr_len, REC_CRC);
}

void awsw_rec_set_crc(u8 *hdr, u32 crc)
{
	aw_put_le32(hdr + REC_CRC, crc);
}

void awsw_rec_encode(const struct awsw_sb *sb, u8 *hdr, u64 pos, u64 seq,
		     u64 target, u32 len, const u8 *data)
{
	u32 crc;

	awsw_rec_encode_header(sb, hdr, pos, seq, target, len);
	crc = awsw_crc32c(0, data, len);
	awsw_rec_set_crc(hdr, awsw_rec_crc(crc, hdr, sb->lbs));
}

int awsw_rec_check_header(const u8 *hdr, u32 hdr_len, u64 pos,
			  const struct awsw_sb *sb, struct awsw_rec *out)
{
	struct awsw_rec r;

	memset(out, 0, sizeof(*out));
	/* A header is one logical block: lbs >= 512 covers every field. */
	if (hdr_len != sb->lbs || hdr_len < AWSW_REC_HDR_USED)
		return -EINVAL;
	if (memcmp(hdr + REC_MAGIC, AWSW_REC_MAGIC, AWSW_REC_MAGIC_LEN) ||
	    aw_get_le32(hdr + REC_VERSION) != AWSW_VERSION ||
	    aw_get_le32(hdr + REC_FLAGS) ||
	    !awsw_all_zero(hdr + AWSW_REC_HDR_USED, hdr_len - AWSW_REC_HDR_USED))
		return -EINVAL;
	/* Written by this format, at this very place. */
	if (memcmp(hdr + REC_UUID, sb->uuid, AWSW_UUID_LEN) ||
	    aw_get_le64(hdr + REC_POS) != pos)
		return -EINVAL;

	r.seq = aw_get_le64(hdr + REC_SEQ);
	r.target = aw_get_le64(hdr + REC_TARGET);
	r.pos = pos;
	r.len = aw_get_le32(hdr + REC_LEN);
	r.crc = aw_get_le32(hdr + REC_CRC);

	if (!r.seq)
		return -EINVAL;
	/* What an atomic write may be: lbs..unit_max, a power of two. */
	if (!aw_is_pow2(r.len) || r.len < sb->lbs || r.len > sb->unit_max)
		return -EINVAL;
	if ((pos & (sb->lbs - 1)) ||
	    !awsw_journal_fits(sb, pos, awsw_rec_size(sb->lbs, r.len)))
		return -EINVAL;
	/*
	 * Naturally aligned and inside the data area, so replay writes only
	 * where the exported device could have written.
	 */
	if ((r.target & (r.len - 1)) || r.len > sb->data_size ||
	    r.target > sb->data_size - r.len)
		return -EINVAL;
	*out = r;
	return 0;
}

bool awsw_rec_check_data(const struct awsw_rec *r, u32 crc)
{
	return r->crc == crc;
}

bool awsw_journal_fits(const struct awsw_sb *sb, u64 pos, u32 rec_bytes)
{
	return pos <= sb->journal_size && rec_bytes <= sb->journal_size - pos;
}

u64 awsw_journal_place(const struct awsw_sb *sb, u64 pos, u32 rec_bytes)
{
	return awsw_journal_fits(sb, pos, rec_bytes) ? pos : 0;
}

/* ---- Recovery ---- */

/* Order by seq, then pos: a total order, as no two records share a pos. */
static bool awsw_rec_less(const struct awsw_rec *a, const struct awsw_rec *b)
{
	return a->seq < b->seq || (a->seq == b->seq && a->pos < b->pos);
}

static void awsw_rec_swap(struct awsw_rec *a, struct awsw_rec *b)
{
	struct awsw_rec t = *a;

	*a = *b;
	*b = t;
}

static void awsw_sift_down(struct awsw_rec *r, unsigned int i, unsigned int n)
{
	unsigned int c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && awsw_rec_less(&r[c], &r[c + 1]))
			c++;
		if (!awsw_rec_less(&r[i], &r[c]))
			return;
		awsw_rec_swap(&r[i], &r[c]);
		i = c;
	}
}

/*
 * Heapsort: in place, no recursion and O(n log n) whatever the order, for
 * a journal of many small records found in two runs (before and after the
 * wrap) would make an insertion sort quadratic.
 */
static void awsw_rec_sort(struct awsw_rec *r, unsigned int n)
{
	unsigned int i;

	for (i = n / 2; i-- > 0;)
		awsw_sift_down(r, i, n);
	for (i = n; i-- > 1;) {
		awsw_rec_swap(&r[0], &r[i]);
		awsw_sift_down(r, 0, i);
	}
}

/*
 * Gaps in the sequence are harmless. Each record is self-validating, so a
 * record that checks out is a whole write; a torn record was never
 * acknowledged (the write completes only after its commit is durable) and
 * was never written in place (that waits for the commit), so skipping it
 * leaves that range all-old, as a crash before completion may. Writes not
 * yet acknowledged promise no order among themselves, so a later record
 * that survived a torn earlier one may be applied; and since replay goes
 * in seq order, of two overlapping records the newer one is applied last.
 * Replay writes the same bytes to the same places, so doing it twice (a
 * crash during recovery) gives the same result.
 */
unsigned int awsw_replay_plan(struct awsw_rec *recs, unsigned int n,
			      u64 checkpoint_seq)
{
	unsigned int i, kept = 0;

	for (i = 0; i < n; i++)
		if (recs[i].seq > checkpoint_seq)
			recs[kept++] = recs[i];
	awsw_rec_sort(recs, kept);
	/*
	 * One record per seq: the engine writes a seq again only to retry
	 * the same write, so the copies agree; keep the lowest pos so the
	 * plan does not depend on the scan order.
	 */
	n = kept;
	kept = 0;
	for (i = 0; i < n; i++)
		if (!kept || recs[i].seq != recs[kept - 1].seq)
			recs[kept++] = recs[i];
	return kept;
}

/* ---- Foreign signatures ---- */

static bool awsw_sig_at(const u8 *buf, u32 len, u32 off, const void *sig, u32 n)
{
	return off <= len && n <= len - off && !memcmp(buf + off, sig, n);
}

/*
 * LVM2 puts its label in one of the first four 512-byte sectors: the
 * "LABELONE" id, then at 24 the type "LVM2 001".
 */
static bool awsw_lvm2_at(const u8 *buf, u32 len)
{
	u32 s;

	for (s = 0; s < 4; s++)
		if (awsw_sig_at(buf, len, 512 * s, "LABELONE", 8) &&
		    awsw_sig_at(buf, len, 512 * s + 24, "LVM2 001", 8))
			return true;
	return false;
}

/* A DOS partition table: the boot signature and a used entry. */
static bool awsw_mbr_at(const u8 *buf, u32 len)
{
	u32 i;

	if (!awsw_sig_at(buf, len, 510, "\x55\xaa", 2))
		return false;
	for (i = 0; i < 4; i++)
		if (buf[446 + 16 * i + 4])	/* partition type */
			return true;
	return false;
}

const char *awsw_foreign_signature(const u8 *buf, u32 len)
{
	/* md superblock 1.x magic 0xa92b4efc, little-endian. */
	static const u8 md_magic[4] = { 0xfc, 0x4e, 0x2b, 0xa9 };
	static const u8 bcache_magic[16] = {
		0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca,
		0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81,
	};

	if (!buf)
		return NULL;
	/* The most specific first: a GPT disk also has a (protective) MBR. */
	if (awsw_format_at(buf, len))
		return "awkit software-engine format";
	if (awsw_sig_at(buf, len, 0, "LUKS\xba\xbe", 6))
		return "LUKS";
	if (awsw_sig_at(buf, len, 0, "XFSB", 4))
		return "XFS";
	if (awsw_sig_at(buf, len, 65536 + 64, "_BHRfS_M", 8))
		return "btrfs";
	if (awsw_sig_at(buf, len, 1024 + 56, "\x53\xef", 2))
		return "ext2/3/4";
	if (awsw_lvm2_at(buf, len))
		return "LVM2 physical volume";
	/* md 1.1 keeps its superblock at 0, md 1.2 at 4 KiB. */
	if (awsw_sig_at(buf, len, 0, md_magic, 4) ||
	    awsw_sig_at(buf, len, 4096, md_magic, 4))
		return "Linux MD RAID member";
	if (awsw_sig_at(buf, len, 4096 + 24, bcache_magic, 16))
		return "bcache";
	/* The swap signature ends the first page (4 KiB pages). */
	if (awsw_sig_at(buf, len, 4096 - 10, "SWAPSPACE2", 10) ||
	    awsw_sig_at(buf, len, 4096 - 10, "SWAP-SPACE", 10))
		return "swap";
	/* The GPT header is at LBA 1: 512 or 4096 bytes in. */
	if (awsw_sig_at(buf, len, 512, "EFI PART", 8) ||
	    awsw_sig_at(buf, len, 4096, "EFI PART", 8))
		return "GPT partition table";
	if (awsw_sig_at(buf, len, 3, "NTFS    ", 8))
		return "NTFS";
	if (awsw_sig_at(buf, len, 510, "\x55\xaa", 2) &&
	    (awsw_sig_at(buf, len, 54, "FAT", 3) || awsw_sig_at(buf, len, 82, "FAT", 3)))
		return "FAT";
	if (awsw_sig_at(buf, len, 32768 + 1, "CD001", 5))
		return "ISO 9660";
	if (awsw_mbr_at(buf, len))
		return "MBR partition table";
	return NULL;
}
