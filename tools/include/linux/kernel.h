/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of the kernel's <linux/kernel.h> (with what it takes from
 * linux/array_size.h, align.h, limits.h and minmax.h) for awkit's pure
 * files: only what they use. The uapi header of the same name comes first.
 */
#ifndef AW_SHIM_LINUX_KERNEL_H
#define AW_SHIM_LINUX_KERNEL_H

#include_next <linux/kernel.h>
#include <linux/const.h>
#include <linux/types.h>

/* A compile error when @a is a pointer rather than an array. */
#define __aw_must_be_array(a)						\
	(sizeof(char[1 - 2 * __builtin_types_compatible_p(		\
		__typeof__(a), __typeof__(&(a)[0]))]) - 1)

#define ARRAY_SIZE(arr)							\
	(sizeof(arr) / sizeof((arr)[0]) + __aw_must_be_array(arr))

#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

/* Power-of-two @a; __ALIGN_KERNEL is uapi linux/const.h's, as in-kernel. */
#define ALIGN(x, a)		__ALIGN_KERNEL((x), (a))
#define ALIGN_DOWN(x, a)	__ALIGN_KERNEL((x) - ((a) - 1), (a))

/*
 * min() and max() refuse operands of different types, as 6.1's did
 * before its minmax.h was relaxed: what builds here builds on any 6.x.
 */
#define __aw_cmp(x, y, op) ({						\
	__typeof__(x) __aw_x = (x);					\
	__typeof__(y) __aw_y = (y);					\
	(void)(&__aw_x == &__aw_y);					\
	__aw_x op __aw_y ? __aw_x : __aw_y; })

#define min(x, y)	__aw_cmp(x, y, <)
#define max(x, y)	__aw_cmp(x, y, >)

#define min_t(type, x, y) ({						\
	type __aw_tx = (x);						\
	type __aw_ty = (y);						\
	__aw_tx < __aw_ty ? __aw_tx : __aw_ty; })

#define max_t(type, x, y) ({						\
	type __aw_tx = (x);						\
	type __aw_ty = (y);						\
	__aw_tx > __aw_ty ? __aw_tx : __aw_ty; })

#endif /* AW_SHIM_LINUX_KERNEL_H */
