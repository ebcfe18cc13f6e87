/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of the kernel's <linux/log2.h> for awkit's pure files:
 * is_power_of_2() and rounddown_pow_of_two(), on unsigned long as there.
 */
#ifndef AW_SHIM_LINUX_LOG2_H
#define AW_SHIM_LINUX_LOG2_H

#include <assert.h>
#include <linux/types.h>

static inline __attribute__((const)) bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/*
 * The kernel's is 1UL << (fls_long(n) - 1), undefined for 0: a host test
 * that reaches it with 0 has found a bug in the module, so it stops here.
 */
static inline unsigned long __rounddown_pow_of_two(unsigned long n)
{
	assert(n != 0);
	return 1UL << (8 * sizeof(n) - 1 - __builtin_clzl(n));
}

#define rounddown_pow_of_two(n) __rounddown_pow_of_two(n)

#endif /* AW_SHIM_LINUX_LOG2_H */
