/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of the kernel's <linux/types.h> for awkit's pure files (see
 * include/aw_pure.h): the uapi header of the same name, which other host
 * code needs, plus the kernel-internal names the pure files use.
 */
#ifndef AW_SHIM_LINUX_TYPES_H
#define AW_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

typedef int (*cmp_func_t)(const void *a, const void *b);
typedef void (*swap_func_t)(void *a, void *b, int size);

#endif /* AW_SHIM_LINUX_TYPES_H */
