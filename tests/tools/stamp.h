/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checksum-stamped blocks for the torn-write tools: every 512-byte (or
 * logical) block of a unit carries the unit, its version, its index and a
 * crc, so a checker can tell all-old, all-new and torn apart.
 */
#ifndef AW_STAMP_H
#define AW_STAMP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0x61777472u	/* "awtr" */

static inline uint32_t crc32(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffff;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320 & -(c & 1));
	}
	return ~c;
}

/* Block header: magic, unit, version, block-in-unit, crc of the rest. */
static inline void stamp(unsigned char *b, unsigned int lbs, uint32_t unit,
		  uint32_t ver, uint32_t blk)
{
	uint32_t h[4] = { MAGIC, unit, ver, blk }, x = unit * 2654435761u ^ ver;
	unsigned int i;

	for (i = 20; i < lbs; i++) {
		x = x * 1103515245u + 12345u;
		b[i] = x >> 24;
	}
	memcpy(b, h, sizeof(h));
	h[0] = crc32(b + 20, lbs - 20) ^ crc32(b, 16);
	memcpy(b + 16, h, 4);
}

/*
 * Read a block's header whatever it claims: 1 and @h (magic, unit, version,
 * block-in-unit) for a stamped block whose crc holds, 0 for a never-written
 * (zero) block, -1 for anything else.
 */
static inline int stamp_decode(const unsigned char *b, unsigned int lbs,
			       uint32_t h[4])
{
	uint32_t crc;
	unsigned int i;

	memcpy(h, b, 16);
	memcpy(&crc, b + 16, 4);
	if (h[0] != MAGIC) {
		for (i = 0; i < lbs; i++)
			if (b[i])
				return -1;
		return 0;
	}
	return crc == (crc32(b + 20, lbs - 20) ^ crc32(b, 16)) ? 1 : -1;
}

/* The version of a stamped block; 0 for a never-written (zero) block. */
static inline int64_t block_version(const unsigned char *b, unsigned int lbs,
			     uint32_t unit, uint32_t blk)
{
	uint32_t h[4];
	int ret = stamp_decode(b, lbs, h);

	if (ret <= 0)
		return ret;
	if (h[1] != unit || h[3] != blk)
		return -1;
	return h[2];
}

static inline void ctl_write(const char *dir, const char *name, const char *val)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(val, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

#endif /* AW_STAMP_H */
