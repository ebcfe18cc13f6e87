/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of the kernel's <linux/sort.h> for awkit's pure files: sort(),
 * an in-place heapsort like lib/sort.c's, so not a stable one either.
 */
#ifndef AW_SHIM_LINUX_SORT_H
#define AW_SHIM_LINUX_SORT_H

#include <linux/types.h>

static inline void __aw_sort_swap(void *a, void *b, int size)
{
	unsigned char *p = a, *q = b, t;

	while (size--) {
		t = *p;
		*p++ = *q;
		*q++ = t;
	}
}

static inline void __aw_sort_sift(char *base, size_t i, size_t n,
				  size_t size, cmp_func_t cmp_func,
				  swap_func_t swap_func)
{
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n &&
		    cmp_func(base + c * size, base + (c + 1) * size) < 0)
			c++;
		if (cmp_func(base + i * size, base + c * size) >= 0)
			return;
		swap_func(base + i * size, base + c * size, (int)size);
		i = c;
	}
}

static inline void sort(void *base, size_t num, size_t size,
			cmp_func_t cmp_func, swap_func_t swap_func)
{
	char *b = base;
	size_t i;

	if (num < 2 || !size)
		return;
	if (!swap_func)
		swap_func = __aw_sort_swap;
	for (i = num / 2; i-- > 0;)
		__aw_sort_sift(b, i, num, size, cmp_func, swap_func);
	for (i = num; i-- > 1;) {
		swap_func(b, b + i * size, (int)size);
		__aw_sort_sift(b, 0, i, size, cmp_func, swap_func);
	}
}

#endif /* AW_SHIM_LINUX_SORT_H */
