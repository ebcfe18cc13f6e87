/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of the kernel's <linux/string.h> for awkit's pure files: the
 * uapi header (the C library's string.h) and memchr_inv().
 */
#ifndef AW_SHIM_LINUX_STRING_H
#define AW_SHIM_LINUX_STRING_H

#include_next <linux/string.h>
#include <linux/types.h>

/* The first byte of @bytes at @start that is not @c, or NULL. */
static inline void *memchr_inv(const void *start, int c, size_t bytes)
{
	const u8 *p = start;

	for (; bytes; bytes--, p++)
		if (*p != (u8)c)
			return (void *)p;
	return NULL;
}

#endif /* AW_SHIM_LINUX_STRING_H */
