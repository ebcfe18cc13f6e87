/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libaw: atomic (untorn) writes on Linux block devices, through awblk's
 * ioctls on /dev/awblkN or the kernel's own RWF_ATOMIC everywhere else.
 *
 * Every function returns -1 and sets errno on failure.
 */
#ifndef _LIBAW_H
#define _LIBAW_H

#include <sys/types.h>
#include "awkit.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define AW_API __attribute__((visibility("default")))
#else
#define AW_API
#endif

/*
 * aw_limits - the atomic write limits of the file or device open on fd.
 *
 * An awblk device answers AW_IOC_GET_LIMITS. Anything else is asked with
 * statx(STATX_WRITE_ATOMIC); then engine is AW_ENGINE_AUTO when the kernel
 * reports native atomic writes and AW_ENGINE_NONE when it does not (unit_min
 * and unit_max are 0: no support is not an error). Only block devices and
 * regular files have limits: anything else fails with ENOTBLK.
 */
AW_API int aw_limits(int fd, struct aw_limits *lim);

/*
 * aw_pwrite_atomic - write len bytes of buf at off, all or nothing.
 *
 * flags: AW_WRITE_DSYNC, AW_WRITE_SYNC; anything else fails with EINVAL.
 * Returns len on success. This is pwritev2(RWF_ATOMIC) where the kernel
 * takes it (6.11 and later, on an fd opened with O_DIRECT, with len a power
 * of two within [unit_min, unit_max], off aligned to len and buf aligned for
 * direct I/O); on an awblk device that refuses it with EOPNOTSUPP (older
 * kernels, no O_DIRECT) it is AW_IOC_ATOMIC_WRITE, which has the same rules
 * but no O_DIRECT or buffer alignment requirement. A durable write
 * (AW_WRITE_DSYNC or AW_WRITE_SYNC) to an awblk device is always the ioctl:
 * one FUA write, without the cache flush that pwritev2() adds after it. It
 * makes this write durable; writes made earlier without DSYNC need
 * fdatasync() to be (pwritev2 on a block device would flush them too).
 * awkit's ioctls are sent only to awblk devices themselves (not to their
 * partitions or to a device-mapper volume over part of one) and to regular
 * files.
 */
AW_API ssize_t aw_pwrite_atomic(int fd, const void *buf, size_t len, off_t off,
				unsigned int flags);

/*
 * aw_engine_name - a printable name of an AW_ENGINE_* value. AW_ENGINE_AUTO
 * is "auto" on input to AW_IOC_CREATE and "native" in aw_limits' answer for
 * a non-awblk device; this returns "auto" for it.
 */
AW_API const char *aw_engine_name(unsigned int engine);

#ifdef __cplusplus
}
#endif

#endif /* _LIBAW_H */
