/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Atomic write limits, in bytes, in the block layer's vocabulary (6.11's
 * queue_limits, sysfs atomic_write_*_bytes, statx stx_atomic_write_*).
 * One shape for what a device offers (an engine's probe, a Block Limits
 * VPD page, NVMe Identify data: the kernel's atomic_write_hw_*) and for
 * what awblk derives from it and enforces (atomic_write_*). All zero: no
 * atomic writes. The ioctl ABI (struct aw_limits) carries the same four.
 */
#ifndef AW_LIMITS_H
#define AW_LIMITS_H

#include "aw_pure.h"

struct aw_atomic_limits {
	u32 unit_min;		/* atomic_write_[hw_]unit_min */
	u32 unit_max;		/* atomic_write_[hw_]unit_max */
	u32 max_bytes;		/* atomic_write_[hw_]max */
	u32 boundary;		/* atomic_write_[hw_]boundary; 0: none */
};

#endif /* AW_LIMITS_H */
