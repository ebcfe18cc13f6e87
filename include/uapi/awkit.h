/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * awkit user ABI: ioctls of the awblk control node (/dev/awblk-control) and
 * of each awblk device (/dev/awblkN). Every struct has reserved fields that
 * must be zero; unknown flags are rejected with EINVAL.
 */
#ifndef _UAPI_AWKIT_H
#define _UAPI_AWKIT_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define AW_IOC_MAGIC		0xa7
#define AW_CONTROL_NAME		"awblk-control"

/* Engines: who makes the atomic writes of an awblk device. */
#define AW_ENGINE_AUTO		0	/* pick from the lower device */
#define AW_ENGINE_NONE		1	/* pass-through, no atomic support */
#define AW_ENGINE_SCSI		2	/* SCSI WRITE ATOMIC(16) */
#define AW_ENGINE_NVME		3	/* NVMe atomic write unit */
#define AW_ENGINE_SW		4	/* awblk's software journal */
#define AW_ENGINE_MAX		4

/*
 * A device the software engine formatted starts with these bytes (its
 * superblock's magic, less the version digit). awblk binds such a device
 * only to an engine that recognises the format there, so no other engine
 * or pass-through, even with the software engine unloadable, shows its
 * journal as data.
 */
#define AW_SW_SIGNATURE		"AWKITSW"
#define AW_SW_SIGNATURE_LEN	7

/* AW_IOC_CREATE on the control node: a new /dev/awblkN over a block device. */
struct aw_create {
	__u32 lower_major;	/* in: the lower block device, major < 4096 */
	__u32 lower_minor;	/* in: minor < 2^20 */
	__u32 engine;		/* in: AW_ENGINE_* */
	__u32 flags;		/* in: none defined yet, must be 0 */
	__u64 unit_max;		/* in: cap on atomic_write_unit_max, bytes; 0: none (< 2^32) */
	__u64 untorn;		/* in: untorn unit, bytes; 0: off (< 2^32) */
	__u32 index;		/* out: N of /dev/awblkN */
	__u32 hwinfo_len;	/* in: bytes at hwinfo; 0: none (<= AW_HWINFO_MAX) */
	__u64 hwinfo;		/* in: user address of hardware facts for the engine */
	__u32 reserved[6];	/* must be 0 */
};

#define AW_HWINFO_MAX		16384

/*
 * hwinfo: what an engine needs to know of the hardware and cannot learn in
 * the kernel. Only the NVMe engine takes any: the namespace's Identify data,
 * read by user space with the NVMe admin passthrough ioctl (as nvme-cli
 * does). The other engines, and --engine none, refuse it with EINVAL.
 */
#define AW_HWINFO_NVME_ID	1
struct aw_nvme_id {
	__u32 type;		/* AW_HWINFO_NVME_ID */
	__u32 nsid;		/* the namespace the data describes */
	__u64 reserved;		/* must be 0 */
	__u8 ctrl[4096];	/* Identify Controller (CNS 01h) */
	__u8 ns[4096];		/* Identify Namespace (CNS 00h) of nsid */
};

/* AW_IOC_REMOVE on the control node. */
struct aw_remove {
	__u32 index;		/* N of /dev/awblkN */
	__u32 flags;		/* none defined yet, must be 0 */
	__u32 reserved[6];	/* must be 0 */
};

/* AW_IOC_GET_LIMITS on /dev/awblkN: the statx vocabulary, in bytes. */
struct aw_limits {
	__u32 unit_min;		/* atomic_write_unit_min; 0: no atomic writes */
	__u32 unit_max;		/* atomic_write_unit_max */
	__u32 max_bytes;	/* atomic_write_max_bytes */
	__u32 boundary;		/* atomic_write_boundary; 0: none */
	__u32 segments_max;	/* iovecs per atomic write: 1 */
	__u32 engine;		/* AW_ENGINE_* in use; never AUTO */
	__u32 untorn;		/* untorn unit, bytes; 0: off */
	__u32 logical_block_size;
	__u64 size;		/* device size, bytes */
	__u32 reserved[8];	/* output only: zeroed by the kernel */
};

/* AW_IOC_ATOMIC_WRITE on /dev/awblkN: one atomic write, all or nothing. */
#define AW_WRITE_DSYNC		(1U << 0)	/* durable on return (FUA) */
#define AW_WRITE_SYNC		(1U << 1)	/* same as DSYNC for a block device */
#define AW_WRITE_FLAGS		(AW_WRITE_DSYNC | AW_WRITE_SYNC)

struct aw_atomic_write {
	__u64 offset;		/* bytes from the start of the device */
	__u64 buf;		/* user address of the data */
	__u64 len;		/* bytes */
	__u32 flags;		/* AW_WRITE_* */
	__u32 reserved0;	/* must be 0 */
	__u64 reserved[4];	/* must be 0 */
};

#define AW_IOC_CREATE		_IOWR(AW_IOC_MAGIC, 1, struct aw_create)
#define AW_IOC_REMOVE		_IOW(AW_IOC_MAGIC, 2, struct aw_remove)
#define AW_IOC_GET_LIMITS	_IOR(AW_IOC_MAGIC, 16, struct aw_limits)
#define AW_IOC_ATOMIC_WRITE	_IOW(AW_IOC_MAGIC, 17, struct aw_atomic_write)

#endif /* _UAPI_AWKIT_H */
