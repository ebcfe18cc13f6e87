/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The header of awkit's pure files: files that build both into the kernel
 * modules and into host programs (the unit tests, awctl). They are written
 * against the kernel's own headers, which this one includes; on the host
 * the same names come from a small shim, tools/include/, that implements
 * only what the pure files use. Besides this header, a pure file includes
 * only kernel headers that the shim has.
 */
#ifndef AW_PURE_H
#define AW_PURE_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/log2.h>

#ifdef __KERNEL__
#include <linux/version.h>
/* The unaligned accessors moved from asm/ to linux/ in 6.12. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
/* scsi/scsi_proto.h names WRITE ATOMIC(16) since 6.11. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
#define WRITE_ATOMIC_16		0x9c
#endif
#else
#include <linux/unaligned.h>
#endif

#endif /* AW_PURE_H */
