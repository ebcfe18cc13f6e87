/* SPDX-License-Identifier: GPL-2.0 */
/*
 * awblk's software engine, pure logic: the on-disk format (superblock and
 * journal records), its crc32c and recovery planning. A pure file (see
 * aw_pure.h): the host unit tests and awctl link it too, with what only
 * they use in tools/sw_format_host.[ch].
 *
 * Layout of the lower device (all integers little-endian):
 *
 *   [0, 4096)                      superblock, struct below
 *   [journal_start, +journal_size) circular journal of records
 *   [data_start, +data_size)       the data area: the exported device
 *
 * journal_start is 64 KiB; data_start is the end of the journal rounded up
 * to 1 MiB, so the data area is aligned for every unit up to 1 MiB and an
 * atomic write that is aligned on the exported device is aligned on the
 * lower one too. The exported capacity is data_size.
 *
 * Superblock (4096 bytes at byte 0):
 *
 *   0   magic[8]        "AWKITSW1"
 *   8   version u32     1
 *   12  flags u32       0
 *   16  uuid[16]        random at format, never all zero
 *   32  lbs u32         logical block size of the lower device
 *   36  unit_max u32    largest atomic write, a power of two
 *   40  journal_start u64, 48 journal_size u64 (bytes)
 *   56  data_start u64,    64 data_size u64    (bytes)
 *   72  checkpoint_seq u64  every record with seq <= it is in place and
 *                           flushed: journal space holding such records
 *                           may be reused
 *   80  crc u32         crc32c of the 4096 bytes with this field zero
 *   84  reserved, zero up to 4096
 *
 * Every field lives in the first 84 bytes and the rest is always zero, so
 * rewriting the superblock (to advance checkpoint_seq) changes only the
 * first 512-byte sector: a torn 4096-byte write still leaves either the old
 * or the new superblock, as long as a single sector is written whole.
 *
 * Journal record, at a position that is a multiple of lbs (relative to
 * journal_start): one header block of exactly lbs bytes, then len bytes of
 * data. A record never wraps around the end of the journal.
 *
 *   0   magic[4]        "AWJR"
 *   4   version u32     1
 *   8   flags u32       0
 *   12  len u32         data bytes: a power of two, lbs..unit_max
 *   16  seq u64         >= 1, increasing in commit order
 *   24  target u64      byte offset in the data area, a multiple of len
 *   32  pos u64         this header's own position in the journal
 *   40  uuid[16]        the superblock's uuid
 *   56  crc u32         crc32c of the data and then of the header block
 *                       (this field zero): the data comes first so that
 *                       writers can checksum their own data in parallel,
 *                       before the journal gives them a seq and a pos
 *   60  reserved, zero up to lbs
 *
 * uuid and pos make a record valid only where it was written and only for
 * the format that wrote it: records left by an earlier format of the same
 * device, or a record image that is part of some record's data (or of the
 * data area of a nested awkit device), are never replayed.
 */
#ifndef AWSW_FORMAT_H
#define AWSW_FORMAT_H

#include "aw_pure.h"
#include <linux/crc32c.h>

#define AWSW_SB_SIZE		4096
#define AWSW_SB_MAGIC		"AWKITSW1"
#define AWSW_SB_MAGIC_LEN	8
#define AWSW_VERSION		1
#define AWSW_UUID_LEN		16

#define AWSW_JOURNAL_START	(64ULL * 1024)
#define AWSW_DATA_ALIGN		(1024ULL * 1024)
#define AWSW_UNIT_MAX_DEFAULT	(64U * 1024)
#define AWSW_UNIT_MAX_LIMIT	(1024U * 1024)
#define AWSW_LBS_MIN		512U
#define AWSW_LBS_MAX		65536U

/*
 * The journal holds at least this many records of the largest size, so a
 * full-size write can always be committed while earlier ones wait for
 * their checkpoint.
 */
#define AWSW_JOURNAL_MIN_RECORDS	4
/* The default journal: this many full-size records, at least 4 MiB ... */
#define AWSW_JOURNAL_DEFAULT_RECORDS	64
#define AWSW_JOURNAL_DEFAULT_MIN	(4ULL * 1024 * 1024)
/* ... but no more than 1/8 of the device. */
#define AWSW_JOURNAL_MAX_SHARE_SHIFT	3
/* The largest device awsw_layout() formats: 2^62 bytes (4 EiB). */
#define AWSW_DEV_MAX			(1ULL << 62)
/* The smallest data area worth exporting. */
#define AWSW_DATA_MIN			(1024ULL * 1024)

#define AWSW_REC_MAGIC		"AWJR"
#define AWSW_REC_MAGIC_LEN	4
#define AWSW_REC_HDR_USED	60	/* header bytes in use; rest is zero */

struct awsw_sb {
	u32 version;
	u32 flags;
	u8 uuid[AWSW_UUID_LEN];
	u32 lbs;
	u32 unit_max;
	u64 journal_start;
	u64 journal_size;
	u64 data_start;
	u64 data_size;
	u64 checkpoint_seq;
};

/* A journal record whose header checked out. */
struct awsw_rec {
	u64 seq;
	u64 target;	/* byte offset in the data area */
	u64 pos;	/* header position, relative to journal_start */
	u32 len;	/* data bytes, after the lbs-byte header */
	u32 crc;	/* as stored: header (crc zero) then data */
};

/*
 * crc32c (Castagnoli, reflected polynomial 0x82F63B78, initial value and
 * final xor ~0): awsw_crc32c(0, "123456789", 9) == 0xE3069283.
 *
 * Start with @crc == 0; the result is the finished crc, and passing it back
 * as @crc continues over more bytes: crc(crc(0, A), B) == crc(0, A || B).
 * This is the zlib-style convention; the kernel's crc32c() neither inverts
 * on entry nor on exit, hence the two inversions.
 */
static inline u32 awsw_crc32c(u32 crc, const void *buf, u32 len)
{
	return ~crc32c(~crc, buf, len);
}

/* Write @sb (with its crc) into 4096 bytes at @buf; reserved bytes zero. */
void awsw_sb_encode(const struct awsw_sb *sb, u8 *buf);

/*
 * Read a superblock from the first @len bytes of a device of @dev_bytes
 * bytes whose logical block size is @dev_lbs (0: do not compare).
 *
 * Returns 0; -ENODATA if there is no awkit superblock (the magic is not
 * there: a blank or foreign device); -EINVAL if there is one but it is
 * corrupt, of an unknown version, or does not fit this device. On error
 * *@why (if @why is not NULL) is a short static English reason and @sb is
 * zeroed.
 */
int awsw_sb_decode(const u8 *buf, u32 len, u64 dev_bytes, u32 dev_lbs,
		   struct awsw_sb *sb, const char **why);

/*
 * A fresh layout for a device of @dev_bytes bytes with logical block size
 * @lbs: journal of @journal_bytes (0: the default, 64 full-size records
 * but at least 4 MiB and at most 1/8 of the device), atomic writes up to
 * @unit_max (0: 64 KiB). The uuid is left zero for the caller to fill with
 * random bytes; checkpoint_seq is 0. Returns 0, or -EINVAL with a reason
 * for bad parameters or a device too small to hold the format.
 */
int awsw_layout(u64 dev_bytes, u32 lbs, u64 journal_bytes, u32 unit_max,
		struct awsw_sb *sb, const char **why);

/* Bytes a record of @len data bytes takes in the journal. */
u32 awsw_rec_size(u32 lbs, u32 len);

/*
 * Fill the sb->lbs bytes at @hdr with a record header for journal position
 * @pos, leaving its crc zero. The caller computes the crc of the data with
 * awsw_crc32c() (from 0, chained over the pieces), finishes it over the
 * header with awsw_rec_crc() and stores it with awsw_rec_set_crc(). The
 * arguments are not checked here: awsw_rec_check_header() is the single
 * judge of what is valid.
 */
void awsw_rec_encode_header(const struct awsw_sb *sb, u8 *hdr, u64 pos,
			    u64 seq, u64 target, u32 len);

/*
 * The record crc: @data_crc (awsw_crc32c() of the data, from 0) continued
 * over the header block of @hdr_len bytes as if its crc field were zero
 * (whatever it holds).
 */
u32 awsw_rec_crc(u32 data_crc, const u8 *hdr, u32 hdr_len);

void awsw_rec_set_crc(u8 *hdr, u32 crc);

/*
 * Check the header block of @hdr_len bytes read at journal position @pos
 * against @sb: magic, version, flags, reserved bytes, uuid, pos, seq != 0,
 * len a power of two within [lbs, unit_max], the whole record inside the
 * journal, and target naturally aligned (a multiple of len, as every
 * atomic write is) with target + len inside the data area. Returns 0 and
 * fills @out, or -EINVAL. The data is checked afterwards with
 * awsw_rec_check_data().
 */
int awsw_rec_check_header(const u8 *hdr, u32 hdr_len, u64 pos,
			  const struct awsw_sb *sb, struct awsw_rec *out);

/* Is @crc (from awsw_rec_crc()) the record's crc? */
bool awsw_rec_check_data(const struct awsw_rec *r, u32 crc);

/*
 * Does a record of @rec_bytes fit at journal position @pos (relative to
 * journal_start) without running past the end of the journal?
 */
bool awsw_journal_fits(const struct awsw_sb *sb, u64 pos, u32 rec_bytes);

/*
 * Turn the records a journal scan found valid (header and data) into the
 * list to replay: drop those with seq <= @checkpoint_seq, keep one record
 * per seq (the lowest pos), sort by seq ascending. Works in place on
 * @recs; returns how many of its first entries to replay, in order.
 */
unsigned int awsw_replay_plan(struct awsw_rec *recs, unsigned int n,
			      u64 checkpoint_seq);

/*
 * Do the first @len bytes of a device, at @buf, start with this format's
 * superblock, of any version (the magic but its last digit)?
 */
static inline bool awsw_format_at(const u8 *buf, u32 len)
{
	return len >= AWSW_SB_MAGIC_LEN - 1 &&
	       !memcmp(buf, AWSW_SB_MAGIC, AWSW_SB_MAGIC_LEN - 1);
}

#endif /* AWSW_FORMAT_H */
