// SPDX-License-Identifier: GPL-2.0
/*
 * libaw: atomic write limits and atomic writes, through awblk's ioctls on an
 * awblk device and through statx()/pwritev2(RWF_ATOMIC) everywhere else.
 * Built with -fvisibility=hidden: only the AW_API functions are exported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>		/* BLKSSZGET, BLKGETSIZE64 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include "libaw.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Linux 6.11 additions that Debian 12's glibc 2.36 headers do not have. */
#ifndef RWF_ATOMIC
#define RWF_ATOMIC		0x00000040
#endif
#define AW_STATX_WRITE_ATOMIC	0x00010000U	/* STATX_WRITE_ATOMIC */
#define AW_STATX_BASIC_STATS	0x000007ffU	/* STATX_BASIC_STATS */
#define AW_STATX_ATTR_ATOMIC	0x00400000ULL	/* STATX_ATTR_WRITE_ATOMIC */

/* Offsets in the kernel's struct statx (256 bytes), read raw. */
#define STX_MASK		0x00	/* u32 */
#define STX_ATTRIBUTES		0x08	/* u64 */
#define STX_SIZE		0x28	/* u64 */
#define STX_AW_UNIT_MIN		0xa8	/* u32 */
#define STX_AW_UNIT_MAX		0xac	/* u32 */
#define STX_AW_SEGMENTS_MAX	0xb0	/* u32 */
#define STX_BUF_SIZE		256

static uint32_t stx_u32(const unsigned char *stx, size_t off)
{
	uint32_t v;

	memcpy(&v, stx + off, sizeof(v));
	return v;
}

static uint64_t stx_u64(const unsigned char *stx, size_t off)
{
	uint64_t v;

	memcpy(&v, stx + off, sizeof(v));
	return v;
}

/* Does errno after AW_IOC_GET_LIMITS mean "this is not an awblk device"? */
static int not_awblk(int err)
{
	return err == ENOTTY || err == EINVAL;
}

/*
 * AW_IOC_GET_LIMITS into lim, from an awblk device itself or an awfs file:
 * 0, or -1 with errno (ENOTTY: neither). Only regular files and block
 * devices are asked. A block device must be the size awblk says: device-
 * mapper hands ioctls it does not know to the device below, so a volume on
 * part of an awblk device would answer for all of it, at its offsets.
 */
static int get_limits(int fd, struct aw_limits *lim)
{
	uint64_t size;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		errno = ENOTTY;
		return -1;
	}
	if (ioctl(fd, AW_IOC_GET_LIMITS, lim) < 0)
		return -1;
	if (S_ISBLK(st.st_mode) &&
	    (ioctl(fd, BLKGETSIZE64, &size) < 0 || size != lim->size)) {
		memset(lim, 0, sizeof(*lim));
		errno = ENOTTY;
		return -1;
	}
	return 0;
}

/*
 * Read a number from the queue directory of block device dev in sysfs; a
 * partition has none of its own and uses its disk's. Returns 0 when absent.
 */
static uint64_t queue_attr(dev_t dev, const char *attr)
{
	static const char *const fmt[] = {
		"/sys/dev/block/%u:%u/queue/%s",
		"/sys/dev/block/%u:%u/../queue/%s",
	};
	unsigned long long v;
	char path[128];
	unsigned int i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(fmt); i++) {
		snprintf(path, sizeof(path), fmt[i], major(dev), minor(dev),
			 attr);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
		return v;
	}
	return 0;
}

/* The statx() path, for anything that is not an awblk device. */
static int limits_native(int fd, const struct stat *st, struct aw_limits *lim)
{
	union {
		unsigned char b[STX_BUF_SIZE];
		uint64_t align;
	} stx;
	unsigned int req = AW_STATX_BASIC_STATS | AW_STATX_WRITE_ATOMIC;
	uint64_t size;
	int lbs;

	memset(lim, 0, sizeof(*lim));
	lim->engine = AW_ENGINE_NONE;
	memset(&stx, 0, sizeof(stx));
	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, req, stx.b) < 0)
		return -1;

	if ((stx_u32(stx.b, STX_MASK) & AW_STATX_WRITE_ATOMIC) &&
	    (stx_u64(stx.b, STX_ATTRIBUTES) & AW_STATX_ATTR_ATOMIC)) {
		lim->unit_min = stx_u32(stx.b, STX_AW_UNIT_MIN);
		lim->unit_max = stx_u32(stx.b, STX_AW_UNIT_MAX);
		lim->segments_max = stx_u32(stx.b, STX_AW_SEGMENTS_MAX);
		lim->max_bytes = lim->unit_max;
		if (lim->unit_min)
			lim->engine = AW_ENGINE_AUTO;	/* native */
	}

	if (S_ISBLK(st->st_mode)) {
		if (ioctl(fd, BLKSSZGET, &lbs) == 0)
			lim->logical_block_size = lbs;
		if (ioctl(fd, BLKGETSIZE64, &size) == 0)
			lim->size = size;
		/* statx has no words for these two; the queue has. */
		if (lim->unit_min) {
			size = queue_attr(st->st_rdev, "atomic_write_max_bytes");
			if (size && size <= UINT32_MAX)
				lim->max_bytes = size;
			size = queue_attr(st->st_rdev,
					  "atomic_write_boundary_bytes");
			if (size <= UINT32_MAX)
				lim->boundary = size;
		}
	} else if (stx_u32(stx.b, STX_MASK) & 0x200U) {	/* STATX_SIZE */
		lim->size = stx_u64(stx.b, STX_SIZE);
	}
	return 0;
}

AW_API int aw_limits(int fd, struct aw_limits *lim)
{
	struct stat st;
	int saved = errno;

	if (!lim) {
		errno = EINVAL;
		return -1;
	}
	memset(lim, 0, sizeof(*lim));
	if (get_limits(fd, lim) == 0)
		return 0;
	if (!not_awblk(errno))
		return -1;

	if (fstat(fd, &st) < 0)
		return -1;
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		errno = ENOTBLK;
		return -1;
	}
	errno = saved;
	return limits_native(fd, &st, lim);
}

/* The awblk ioctl; -1 with errno EOPNOTSUPP when fd is not an awblk device. */
static ssize_t pwrite_ioctl(int fd, const void *buf, size_t len, off_t off,
			    unsigned int flags)
{
	struct aw_atomic_write w;
	struct aw_limits lim;

	if (get_limits(fd, &lim) < 0) {
		if (not_awblk(errno))
			errno = EOPNOTSUPP;
		return -1;
	}
	memset(&w, 0, sizeof(w));
	w.offset = off;
	w.buf = (uintptr_t)buf;
	w.len = len;
	w.flags = flags;
	if (ioctl(fd, AW_IOC_ATOMIC_WRITE, &w) < 0)
		return -1;
	return len;
}

/*
 * A durable write to a block device through pwritev2() is a FUA write and
 * then a cache flush of the whole device (the fsync that O_DSYNC implies).
 * The ioctl's FUA write alone makes this write as durable (what RWF_DSYNC
 * promises; earlier writes need fdatasync): on an awblk device, a durable
 * atomic write goes that way and skips the flush. -1 with EOPNOTSUPP when
 * that does not apply.
 */
static ssize_t pwrite_durable(int fd, const void *buf, size_t len, off_t off,
			      unsigned int flags)
{
	struct stat st;

	if (!(flags & (AW_WRITE_DSYNC | AW_WRITE_SYNC)) ||
	    fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return pwrite_ioctl(fd, buf, len, off, flags);
}

/*
 * A durable write to an awblk device is its ioctl (above). Otherwise
 * RWF_ATOMIC first: it is the kernel's own path (6.11+) and the cheapest.
 * The kernel refuses it with EOPNOTSUPP when it has no such flag (6.1) or
 * the file cannot take it (no O_DIRECT, no atomic support): then an awblk
 * device still takes the write through its ioctl, with the same checks.
 */
AW_API ssize_t aw_pwrite_atomic(int fd, const void *buf, size_t len, off_t off,
				unsigned int flags)
{
	struct iovec iov;
	int rwf = RWF_ATOMIC;
	int saved = errno;
	ssize_t r;

	if ((flags & ~AW_WRITE_FLAGS) || off < 0 || len > SSIZE_MAX) {
		errno = EINVAL;
		return -1;
	}
	r = pwrite_durable(fd, buf, len, off, flags);
	if (r >= 0 || errno != EOPNOTSUPP)
		return r;
	errno = saved;
	if (flags & AW_WRITE_DSYNC)
		rwf |= RWF_DSYNC;
	if (flags & AW_WRITE_SYNC)
		rwf |= RWF_SYNC;
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	r = pwritev2(fd, &iov, 1, off, rwf);
	if (r >= 0 || errno != EOPNOTSUPP)
		return r;
	errno = saved;
	return pwrite_ioctl(fd, buf, len, off, flags);
}

AW_API const char *aw_engine_name(unsigned int engine)
{
	switch (engine) {
	case AW_ENGINE_AUTO:
		return "auto";
	case AW_ENGINE_NONE:
		return "none";
	case AW_ENGINE_SCSI:
		return "scsi";
	case AW_ENGINE_NVME:
		return "nvme";
	case AW_ENGINE_SW:
		return "sw";
	default:
		return "unknown";
	}
}
