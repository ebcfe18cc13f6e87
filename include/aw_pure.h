/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types and byte-order helpers for awkit's pure logic: files that build both
 * into the kernel modules and into the host unit tests, so they may include
 * nothing but this header.
 */
#ifndef AW_PURE_H
#define AW_PURE_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/crc32c.h>
/* crc32c with awsw_crc32c()'s convention (inverted before and after). */
#define AW_KERNEL_CRC32C
static inline u32 aw_kernel_crc32c(u32 crc, const void *buf, size_t len)
{
	return ~crc32c(~crc, buf, len);
}
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int16_t s16;
typedef int32_t s32;
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static inline void aw_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void aw_put_be32(u8 *p, u32 v)
{
	aw_put_be16(p, v >> 16);
	aw_put_be16(p + 2, v);
}

static inline void aw_put_be64(u8 *p, u64 v)
{
	aw_put_be32(p, v >> 32);
	aw_put_be32(p + 4, v);
}

static inline u16 aw_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 aw_get_be32(const u8 *p)
{
	return (u32)aw_get_be16(p) << 16 | aw_get_be16(p + 2);
}

static inline u64 aw_get_be64(const u8 *p)
{
	return (u64)aw_get_be32(p) << 32 | aw_get_be32(p + 4);
}

/* NVMe data structures and awkit's own on-disk format are little-endian. */
static inline void aw_put_le16(u8 *p, u16 v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline void aw_put_le32(u8 *p, u32 v)
{
	aw_put_le16(p, v);
	aw_put_le16(p + 2, v >> 16);
}

static inline void aw_put_le64(u8 *p, u64 v)
{
	aw_put_le32(p, v);
	aw_put_le32(p + 4, v >> 32);
}

static inline u16 aw_get_le16(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}

static inline u32 aw_get_le32(const u8 *p)
{
	return (u32)aw_get_le16(p + 2) << 16 | aw_get_le16(p);
}

static inline u64 aw_get_le64(const u8 *p)
{
	return (u64)aw_get_le32(p + 4) << 32 | aw_get_le32(p);
}

static inline bool aw_is_pow2(u64 v)
{
	return v && !(v & (v - 1));
}

static inline u64 aw_rounddown_pow2(u64 v)
{
	u64 r = 1;

	if (!v)
		return 0;
	while (r <= v / 2)
		r <<= 1;
	return r;
}

#endif /* AW_PURE_H */
