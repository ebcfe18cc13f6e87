// SPDX-License-Identifier: GPL-2.0
/*
 * See sw_format_host.h: the software engine's format code that only host
 * programs use, awctl (foreign signatures) and the unit tests (records
 * in one call, journal placement).
 */
#include "sw_format_host.h"

/* ---- Records, for the tests ---- */

void awsw_rec_encode(const struct awsw_sb *sb, u8 *hdr, u64 pos, u64 seq,
		     u64 target, u32 len, const u8 *data)
{
	u32 crc;

	awsw_rec_encode_header(sb, hdr, pos, seq, target, len);
	crc = awsw_crc32c(0, data, len);
	awsw_rec_set_crc(hdr, awsw_rec_crc(crc, hdr, sb->lbs));
}

u64 awsw_journal_place(const struct awsw_sb *sb, u64 pos, u32 rec_bytes)
{
	return awsw_journal_fits(sb, pos, rec_bytes) ? pos : 0;
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
	    (awsw_sig_at(buf, len, 54, "FAT", 3) ||
	     awsw_sig_at(buf, len, 82, "FAT", 3)))
		return "FAT";
	if (awsw_sig_at(buf, len, 32768 + 1, "CD001", 5))
		return "ISO 9660";
	if (awsw_mbr_at(buf, len))
		return "MBR partition table";
	return NULL;
}
