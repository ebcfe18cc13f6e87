/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Versioned pages for the page-cache race tools: each 4 KiB page of a
 * write holds its version in its first 8 bytes and the version's low byte
 * everywhere else, so a reader can tell which write a page came from, and
 * a page mixing two writes apart.
 */
#ifndef AW_PAGEVER_H
#define AW_PAGEVER_H

#include <stdint.h>
#include <string.h>

#define PG	4096

/* Fill the @len bytes (whole pages) at @buf with version @v. */
static inline void pv_fill(unsigned char *buf, size_t len, uint64_t v)
{
	size_t p;

	for (p = 0; p < len; p += PG) {
		memset(buf + p, (int)(v & 0xff), PG);
		memcpy(buf + p, &v, sizeof(v));
	}
}

/* The version of a page, or -1 when the page is not whole itself. */
static inline int64_t pv_version(const unsigned char *pg)
{
	uint64_t v;
	int i;

	memcpy(&v, pg, sizeof(v));
	for (i = sizeof(v); i < PG; i++)
		if (pg[i] != (v & 0xff))
			return -1;
	return (int64_t)v;
}

#endif
