// SPDX-License-Identifier: GPL-2.0
/*
 * See sw_format.h. Everything here reads what the disk says, so every
 * field is checked before it is used, sums of offsets are compared in a
 * way that cannot wrap around, and every read of a buffer is bounded by
 * the length the caller gave.
 */
#include <linux/sort.h>
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

/* ---- Superblock ---- */

void awsw_sb_encode(const struct awsw_sb *sb, u8 *buf)
{
	memset(buf, 0, AWSW_SB_SIZE);
	memcpy(buf + SB_MAGIC, AWSW_SB_MAGIC, AWSW_SB_MAGIC_LEN);
	put_unaligned_le32(sb->version, buf + SB_VERSION);
	put_unaligned_le32(sb->flags, buf + SB_FLAGS);
	memcpy(buf + SB_UUID, sb->uuid, AWSW_UUID_LEN);
	put_unaligned_le32(sb->lbs, buf + SB_LBS);
	put_unaligned_le32(sb->unit_max, buf + SB_UNIT_MAX);
	put_unaligned_le64(sb->journal_start, buf + SB_JOURNAL_START);
	put_unaligned_le64(sb->journal_size, buf + SB_JOURNAL_SIZE);
	put_unaligned_le64(sb->data_start, buf + SB_DATA_START);
	put_unaligned_le64(sb->data_size, buf + SB_DATA_SIZE);
	put_unaligned_le64(sb->checkpoint_seq, buf + SB_CHECKPOINT);
	put_unaligned_le32(awsw_crc_skip_field(0, buf, AWSW_SB_SIZE, SB_CRC),
			   buf + SB_CRC);
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
	if (!is_power_of_2(lbs) || lbs < AWSW_LBS_MIN || lbs > AWSW_LBS_MAX)
		return "logical block size is not a power of two from 512 to 65536";
	if (!is_power_of_2(unit_max) || unit_max < lbs ||
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
	if (get_unaligned_le32(buf + SB_CRC) !=
	    awsw_crc_skip_field(0, buf, AWSW_SB_SIZE, SB_CRC))
		return awsw_sb_fail(sb, why, -EINVAL, "superblock checksum mismatch");
	/* Past the crc, what fails was written so: a newer or buggy awkit. */
	if (get_unaligned_le32(buf + SB_VERSION) != AWSW_VERSION)
		return awsw_sb_fail(sb, why, -EINVAL,
				    "superblock version is not supported");
	if (get_unaligned_le32(buf + SB_FLAGS))
		return awsw_sb_fail(sb, why, -EINVAL,
				    "superblock has unknown flags");
	if (memchr_inv(buf + SB_USED, 0, AWSW_SB_SIZE - SB_USED))
		return awsw_sb_fail(sb, why, -EINVAL,
				    "superblock reserved bytes are not zero");
	if (!memchr_inv(buf + SB_UUID, 0, AWSW_UUID_LEN))
		return awsw_sb_fail(sb, why, -EINVAL, "superblock uuid is zero");

	sb->version = AWSW_VERSION;
	memcpy(sb->uuid, buf + SB_UUID, AWSW_UUID_LEN);
	sb->lbs = get_unaligned_le32(buf + SB_LBS);
	sb->unit_max = get_unaligned_le32(buf + SB_UNIT_MAX);
	sb->journal_start = get_unaligned_le64(buf + SB_JOURNAL_START);
	sb->journal_size = get_unaligned_le64(buf + SB_JOURNAL_SIZE);
	sb->data_start = get_unaligned_le64(buf + SB_DATA_START);
	sb->data_size = get_unaligned_le64(buf + SB_DATA_SIZE);
	sb->checkpoint_seq = get_unaligned_le64(buf + SB_CHECKPOINT);

	s = awsw_check_geometry(sb, dev_bytes, dev_lbs);
	if (s)
		return awsw_sb_fail(sb, why, -EINVAL, s);
	return 0;
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
		end = ALIGN(AWSW_JOURNAL_START + journal_bytes,
			    AWSW_DATA_ALIGN);
	} else {
		u64 want = (u64)AWSW_JOURNAL_DEFAULT_RECORDS *
			   awsw_rec_size(lbs, unit_max);
		u64 cap = dev_bytes >> AWSW_JOURNAL_MAX_SHARE_SHIFT;

		want = max(want, AWSW_JOURNAL_DEFAULT_MIN);
		/*
		 * The journal ends where the data area starts, on a 1 MiB
		 * boundary: the padding becomes journal rather than waste.
		 */
		end = ALIGN(AWSW_JOURNAL_START + want, AWSW_DATA_ALIGN);
		if (end - AWSW_JOURNAL_START > cap)
			end = ALIGN_DOWN(AWSW_JOURNAL_START + cap,
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
	sb->data_size = ALIGN_DOWN(dev_bytes - end, lbs);

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
	put_unaligned_le32(AWSW_VERSION, hdr + REC_VERSION);
	put_unaligned_le32(0, hdr + REC_FLAGS);
	put_unaligned_le32(len, hdr + REC_LEN);
	put_unaligned_le64(seq, hdr + REC_SEQ);
	put_unaligned_le64(target, hdr + REC_TARGET);
	put_unaligned_le64(pos, hdr + REC_POS);
	memcpy(hdr + REC_UUID, sb->uuid, AWSW_UUID_LEN);
}

u32 awsw_rec_crc(u32 data_crc, const u8 *hdr, u32 hdr_len)
{
	return awsw_crc_skip_field(data_crc, hdr, hdr_len, REC_CRC);
}

void awsw_rec_set_crc(u8 *hdr, u32 crc)
{
	put_unaligned_le32(crc, hdr + REC_CRC);
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
	    get_unaligned_le32(hdr + REC_VERSION) != AWSW_VERSION ||
	    get_unaligned_le32(hdr + REC_FLAGS) ||
	    memchr_inv(hdr + AWSW_REC_HDR_USED, 0, hdr_len - AWSW_REC_HDR_USED))
		return -EINVAL;
	/* Written by this format, at this very place. */
	if (memcmp(hdr + REC_UUID, sb->uuid, AWSW_UUID_LEN) ||
	    get_unaligned_le64(hdr + REC_POS) != pos)
		return -EINVAL;

	r.seq = get_unaligned_le64(hdr + REC_SEQ);
	r.target = get_unaligned_le64(hdr + REC_TARGET);
	r.pos = pos;
	r.len = get_unaligned_le32(hdr + REC_LEN);
	r.crc = get_unaligned_le32(hdr + REC_CRC);

	if (!r.seq)
		return -EINVAL;
	/* What an atomic write may be: lbs..unit_max, a power of two. */
	if (!is_power_of_2(r.len) || r.len < sb->lbs || r.len > sb->unit_max)
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

/* ---- Recovery ---- */

/*
 * Order by seq, then pos: a total order, as no two records share a pos, so
 * sort() (a heapsort: in place, no recursion, O(n log n) whatever the
 * order) gives one result for any scan order.
 */
static int awsw_rec_cmp(const void *a, const void *b)
{
	const struct awsw_rec *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return 0;
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
	sort(recs, kept, sizeof(*recs), awsw_rec_cmp, NULL);
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
