/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of the kernel's <linux/unaligned.h> (<asm/unaligned.h> before
 * 6.12) for awkit's pure files: the fixed-endian accessors, byte by byte,
 * so the result is the same whatever the host's own byte order.
 */
#ifndef AW_SHIM_LINUX_UNALIGNED_H
#define AW_SHIM_LINUX_UNALIGNED_H

#include <linux/types.h>

static inline u16 get_unaligned_le16(const void *p)
{
	const u8 *b = p;

	return (u16)(b[0] | b[1] << 8);
}

static inline u32 get_unaligned_le32(const void *p)
{
	const u8 *b = p;

	return (u32)get_unaligned_le16(b + 2) << 16 | get_unaligned_le16(b);
}

static inline u64 get_unaligned_le64(const void *p)
{
	const u8 *b = p;

	return (u64)get_unaligned_le32(b + 4) << 32 | get_unaligned_le32(b);
}

static inline void put_unaligned_le16(u16 val, void *p)
{
	u8 *b = p;

	b[0] = (u8)val;
	b[1] = (u8)(val >> 8);
}

static inline void put_unaligned_le32(u32 val, void *p)
{
	u8 *b = p;

	put_unaligned_le16((u16)val, b);
	put_unaligned_le16((u16)(val >> 16), b + 2);
}

static inline void put_unaligned_le64(u64 val, void *p)
{
	u8 *b = p;

	put_unaligned_le32((u32)val, b);
	put_unaligned_le32((u32)(val >> 32), b + 4);
}

static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = p;

	return (u16)(b[0] << 8 | b[1]);
}

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = p;

	return (u32)get_unaligned_be16(b) << 16 | get_unaligned_be16(b + 2);
}

static inline u64 get_unaligned_be64(const void *p)
{
	const u8 *b = p;

	return (u64)get_unaligned_be32(b) << 32 | get_unaligned_be32(b + 4);
}

static inline void put_unaligned_be16(u16 val, void *p)
{
	u8 *b = p;

	b[0] = (u8)(val >> 8);
	b[1] = (u8)val;
}

static inline void put_unaligned_be32(u32 val, void *p)
{
	u8 *b = p;

	put_unaligned_be16((u16)(val >> 16), b);
	put_unaligned_be16((u16)val, b + 2);
}

static inline void put_unaligned_be64(u64 val, void *p)
{
	u8 *b = p;

	put_unaligned_be32((u32)(val >> 32), b);
	put_unaligned_be32((u32)val, b + 4);
}

#endif /* AW_SHIM_LINUX_UNALIGNED_H */
