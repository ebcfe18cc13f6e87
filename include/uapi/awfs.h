/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * awfs user ABI. Files of an awfs mount answer awblk's own ioctls:
 *
 * - AW_IOC_GET_LIMITS (struct aw_limits): the file's atomic limits. On a
 *   descriptor opened without O_DIRECT (buffered), unit_min = unit_max =
 *   max_bytes = the file's unit; with O_DIRECT, the device's limits capped
 *   at the unit. All zero when the file cannot do atomic writes.
 * - AW_IOC_ATOMIC_WRITE (struct aw_atomic_write, offset in the file): one
 *   atomic write, the same checks and errnos as on /dev/awblkN; buffered
 *   (reaches the disk as one atomic write at writeback) unless the
 *   descriptor has O_DIRECT.
 *
 * and two of its own, for the per-file alignment ("forcealign"):
 */
#ifndef _UAPI_AWFS_H
#define _UAPI_AWFS_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include "awkit.h"

#define AWFS_MAGIC		0x61776673	/* "awfs", statfs f_type */

/* struct awfs_align flags */
#define AWFS_ALIGN_FORCE	(1U << 0)	/* data in unit-aligned extents */
#define AWFS_ALIGN_FLAGS	AWFS_ALIGN_FORCE

/* status bits (out only) */
#define AWFS_STATUS_CAPABLE	(1U << 0)	/* atomic writes possible now */

struct awfs_align {
	__u32 flags;		/* AWFS_ALIGN_*; in for SET, out for GET */
	__u32 unit;		/* bytes; power of two; 0 on SET: the mount's */
	__u32 status;		/* out: AWFS_STATUS_* */
	__u32 reserved[5];	/* must be 0 on SET, zeroed on GET */
};

#define AWFS_IOC_GET_ALIGN	_IOR(AW_IOC_MAGIC, 32, struct awfs_align)
/* Only on an empty regular file (EBUSY otherwise), opened for writing. */
#define AWFS_IOC_SET_ALIGN	_IOW(AW_IOC_MAGIC, 33, struct awfs_align)

#endif /* _UAPI_AWFS_H */
