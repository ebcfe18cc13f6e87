/* SPDX-License-Identifier: GPL-2.0 */
/*
 * awkit's one place for kernel version differences (Debian 12: 6.1 and
 * 6.12). The modules are written as 6.12 code; this file makes 6.1 look
 * like 6.12, as WireGuard's compat did for its older kernels.
 *
 * Backfilled: where 6.12 has a name and 6.1 can be given the same name
 * with the same meaning, 6.1 gets that name here and the modules use it:
 * blk_mode_t and BLK_OPEN_WRITE, filemap_splice_read, scsi_timeout_action
 * and SCSI_EH_NOT_HANDLED, AT_GETATTR_NOSEC
 * (0: nothing to clear) and BLK_STS_INVAL (6.1's nearest, TARGET: the
 * submitter sees -EREMOTEIO, not -EINVAL). 6.11's atomic writes are
 * backfilled as "never", since none of 6.1's queues, bios or files can
 * have them: REQ_ATOMIC, IOCB_ATOMIC and FMODE_CAN_ATOMIC_WRITE are 0,
 * queue_atomic_write_*_bytes() return 0 (upstream's "no atomic writes"),
 * STATX_WRITE_ATOMIC has its uapi value and
 * generic_fill_statx_atomic_writes() fills nothing (6.1's kstat has no
 * field for it).
 *
 * Wrapped (aw_, AW_): where 6.12 has no single name for it, or 6.1 has
 * the same name with another meaning, so a backfill would mislead; each
 * says why where it is defined: the lower device (aw_lower_*), the
 * stacked disk (aw_alloc_stacked_disk), the bdev's page cache
 * (aw_bdev_mapping), ->open (AW_DEFINE_DISK_OPEN), id mappings
 * (aw_idmap_t, aw_mnt_idmap, AW_RENAMEDATA_IDMAP, aw_fillattr), a
 * stacked write (aw_iocb_iter_write), write_cache_pages' callback
 * (aw_wp_arg_t, aw_wp_folio), a page cache lookup (aw_get_folio), and
 * 6.1's queue/atomic_write_* files (aw_queue_atomic_sysfs_*, in
 * compat_queue_sysfs.c).
 *
 * Tested by the modules: AW_NATIVE_ATOMIC and AW_HAVE_ACL_IOPS, where
 * the two kernels need different code, not different names.
 */
#ifndef AW_COMPAT_H
#define AW_COMPAT_H

#include <linux/version.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include "aw_limits.h"

/* Native block atomic writes: REQ_ATOMIC, queue limits, statx, RWF_ATOMIC. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define AW_NATIVE_ATOMIC	1
#else
#define AW_NATIVE_ATOMIC	0
#endif

/*
 * The mode a block device is opened with, as block_device_operations see
 * it: an fmode_t until 6.5, whose FMODE_WRITE is what BLK_OPEN_WRITE
 * became.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
typedef fmode_t blk_mode_t;
#define BLK_OPEN_WRITE		FMODE_WRITE
#endif

/*
 * block_device_operations.open: (gendisk, blk_mode_t) since 6.5, a
 * block_device before; no name covers both, so a wrapper. @fn takes the
 * gendisk either way.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define AW_DEFINE_DISK_OPEN(name, fn)					\
	static int name(struct gendisk *disk, blk_mode_t mode)		\
	{								\
		return fn(disk);					\
	}
#else
#define AW_DEFINE_DISK_OPEN(name, fn)					\
	static int name(struct block_device *bdev, fmode_t mode)	\
	{								\
		return fn(bdev->bd_disk);				\
	}
#endif

/*
 * 6.11's status for an invalid request. 6.1 has none; its nearest,
 * BLK_STS_TARGET, reaches the submitter as -EREMOTEIO, not -EINVAL.
 */
#ifndef BLK_STS_INVAL
#define BLK_STS_INVAL		BLK_STS_TARGET
#endif

/*
 * 6.11's atomic writes, on 6.1 which has none: no bio is REQ_ATOMIC, no
 * kiocb IOCB_ATOMIC, no file FMODE_CAN_ATOMIC_WRITE (0, not upstream's
 * bits: 6.1 uses 6.12's FMODE_CAN_ATOMIC_WRITE bit for FMODE_EXCL), and no
 * queue has atomic limits (0 is upstream's "none"). Code testing these is
 * then dead on 6.1, as it must be; setting or clearing them does nothing.
 */
#if !AW_NATIVE_ATOMIC
#define REQ_ATOMIC		((__force blk_opf_t)0)
#define IOCB_ATOMIC		0
#define FMODE_CAN_ATOMIC_WRITE	((__force fmode_t)0)

static inline unsigned int
queue_atomic_write_unit_min_bytes(const struct request_queue *q)
{
	return 0;
}

static inline unsigned int
queue_atomic_write_unit_max_bytes(const struct request_queue *q)
{
	return 0;
}

static inline unsigned int
queue_atomic_write_max_bytes(const struct request_queue *q)
{
	return 0;
}

static inline unsigned int
queue_atomic_write_boundary_bytes(const struct request_queue *q)
{
	return 0;
}

/*
 * statx's atomic fields: the request bit is uapi (its upstream value, free
 * on 6.1); 6.1's kstat has nowhere to put the answer, so nothing is filled
 * and the bit never comes back in result_mask.
 */
#define STATX_WRITE_ATOMIC	0x00010000U

static inline void generic_fill_statx_atomic_writes(struct kstat *stat,
						    unsigned int unit_min,
						    unsigned int unit_max)
{
}
#endif

/*
 * An exclusively opened lower block device: a struct file since 6.9, the
 * block_device before, each with its own open and release; no upstream
 * name covers both.
 */
struct aw_lower {
	struct block_device *bdev;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	struct file *file;
#endif
};

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
static inline int aw_lower_open(struct aw_lower *l, dev_t dev, void *holder)
{
	l->file = bdev_file_open_by_dev(dev, BLK_OPEN_READ | BLK_OPEN_WRITE,
					holder, NULL);
	if (IS_ERR(l->file))
		return PTR_ERR(l->file);
	l->bdev = file_bdev(l->file);
	return 0;
}

static inline void aw_lower_close(struct aw_lower *l, void *holder)
{
	fput(l->file);
}
#else
static inline int aw_lower_open(struct aw_lower *l, dev_t dev, void *holder)
{
	l->bdev = blkdev_get_by_dev(dev, FMODE_READ | FMODE_WRITE | FMODE_EXCL,
				    holder);
	return PTR_ERR_OR_ZERO(l->bdev);
}

static inline void aw_lower_close(struct aw_lower *l, void *holder)
{
	blkdev_put(l->bdev, FMODE_READ | FMODE_WRITE | FMODE_EXCL);
}
#endif

/*
 * A bio-based disk whose limits are the lower device's (block sizes, bio
 * size, segments, discard, write zeroes, write cache and FUA) and whose
 * native atomic limits, where the kernel has them, are @hw: the limits
 * awblk derived and enforces, which to the layers above are the hardware's
 * (atomic_write_hw_*; the block layer derives the same values from them).
 * @stable: pages must not change while they are written (stable writes).
 * A wrapper: 6.11
 * builds a disk's limits before allocating it (blk_alloc_disk(&lim)), 6.1
 * sets them on the allocated queue.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
static inline struct gendisk *aw_alloc_stacked_disk(struct block_device *lower,
						    const struct aw_atomic_limits *hw,
						    bool stable)
{
	struct queue_limits lim;

	blk_set_stacking_limits(&lim);
	queue_limits_stack_bdev(&lim, lower, 0, "awblk");
	lim.features &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA);
	if (bdev_write_cache(lower))
		lim.features |= BLK_FEAT_WRITE_CACHE;
	if (bdev_fua(lower))
		lim.features |= BLK_FEAT_FUA;
	if (stable)
		lim.features |= BLK_FEAT_STABLE_WRITES;
	lim.atomic_write_hw_max = hw->max_bytes;
	lim.atomic_write_hw_unit_min = hw->unit_min;
	lim.atomic_write_hw_unit_max = hw->unit_max;
	lim.atomic_write_hw_boundary = hw->boundary;
	return blk_alloc_disk(&lim, NUMA_NO_NODE);
}
#else
static inline struct gendisk *aw_alloc_stacked_disk(struct block_device *lower,
						    const struct aw_atomic_limits *hw,
						    bool stable)
{
	struct request_queue *lq = bdev_get_queue(lower);
	struct gendisk *disk = blk_alloc_disk(NUMA_NO_NODE);

	if (!disk)
		return ERR_PTR(-ENOMEM);
	blk_set_stacking_limits(&disk->queue->limits);
	blk_stack_limits(&disk->queue->limits, &lq->limits,
			 get_start_sect(lower));
	blk_queue_write_cache(disk->queue, bdev_write_cache(lower),
			      bdev_fua(lower));
	if (stable)
		blk_queue_flag_set(QUEUE_FLAG_STABLE_WRITES, disk->queue);
	return disk;
}
#endif

/*
 * The queue's atomic_write_{unit_min,unit_max,max,boundary}_bytes files,
 * showing @hw: 6.11's own, from the limits aw_alloc_stacked_disk() set, so
 * nothing to do there. 6.1 has none; compat_queue_sysfs.c adds them, so
 * user space reads the same files on both kernels. Add after
 * device_add_disk(), remove before del_gendisk().
 */
#if AW_NATIVE_ATOMIC
static inline int aw_queue_atomic_sysfs_add(struct gendisk *disk,
					    const struct aw_atomic_limits *hw)
{
	return 0;
}

static inline void aw_queue_atomic_sysfs_remove(struct gendisk *disk)
{
}
#else
int aw_queue_atomic_sysfs_add(struct gendisk *disk,
			      const struct aw_atomic_limits *hw);
void aw_queue_atomic_sysfs_remove(struct gendisk *disk);
#endif

/*
 * The page cache of a block device: a field of the block_device since
 * 6.10, its inode's before; a field cannot be backfilled.
 */
static inline struct address_space *aw_bdev_mapping(struct block_device *bdev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return bdev->bd_mapping;
#else
	return bdev->bd_inode->i_mapping;
#endif
}

/* ---- file systems (awfs) ---- */

/*
 * Mount id mappings: a user namespace until 6.2, struct mnt_idmap after.
 * Kept as a wrapper: 6.1's calls take a struct user_namespace, so naming it
 * struct mnt_idmap would take a #define of the struct tag that clashes with
 * mnt_idmap() and would tell a reader of 6.1 code something false.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
typedef struct mnt_idmap aw_idmap_t;
#define aw_mnt_idmap(mnt)	mnt_idmap(mnt)
#define AW_RENAMEDATA_IDMAP(rd, m)	\
	do { (rd)->old_mnt_idmap = (m); (rd)->new_mnt_idmap = (m); } while (0)
#else
typedef struct user_namespace aw_idmap_t;
#define aw_mnt_idmap(mnt)	mnt_user_ns(mnt)
#define AW_RENAMEDATA_IDMAP(rd, m)	\
	do { (rd)->old_mnt_userns = (m); (rd)->new_mnt_userns = (m); } while (0)
#endif

/*
 * POSIX ACLs: since 6.2 the VFS reads and writes system.posix_acl_access
 * and _default through inode_operations ->get_acl and ->set_acl (on a
 * dentry, with vfs_get_acl/vfs_set_acl/vfs_remove_acl to pass them on)
 * and never hands these names to xattr handlers, so a stacked file system
 * needs both ops to show or change its lower's ACLs. Before 6.2 they are
 * xattrs like any other, and its xattr handlers pass them on.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0) && \
	IS_ENABLED(CONFIG_FS_POSIX_ACL)
#define AW_HAVE_ACL_IOPS	1
#else
#define AW_HAVE_ACL_IOPS	0
#endif

/*
 * Since 6.7 vfs_iocb_iter_write() takes the file's freeze protection
 * itself (kiocb_start_write()); a caller holding it too would nest
 * sb_start_write() and deadlock against a freeze that starts in between.
 * Before, the caller takes it. The same name with another contract: a
 * wrapper.
 */
static inline ssize_t aw_iocb_iter_write(struct file *file, struct kiocb *k,
					 struct iov_iter *iter)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	return vfs_iocb_iter_write(file, k, iter);
#else
	ssize_t ret;

	file_start_write(file);
	ret = vfs_iocb_iter_write(file, k, iter);
	file_end_write(file);
	return ret;
#endif
}

/*
 * 6.12 marks a getattr the VFS already checked; a stacked one does not pass
 * it on. 6.1 has no such flag: clearing 0 clears nothing.
 */
#ifndef AT_GETATTR_NOSEC
#define AT_GETATTR_NOSEC	0
#endif

/*
 * generic_fillattr() takes the request mask since 6.6; 6.1's has the same
 * name and one argument less, and an idmap of another type (above).
 */
static inline void aw_fillattr(aw_idmap_t *idmap, u32 mask,
			       struct inode *inode, struct kstat *stat)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	generic_fillattr(idmap, mask, inode, stat);
#else
	generic_fillattr(idmap, inode, stat);
#endif
}

/*
 * write_cache_pages() hands its callback a page until 6.3, a folio after:
 * the callback's type (writepage_t) differs, so a wrapper.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
typedef struct folio aw_wp_arg_t;
static inline struct folio *aw_wp_folio(struct folio *f)
{
	return f;
}
#else
typedef struct page aw_wp_arg_t;
static inline struct folio *aw_wp_folio(struct page *p)
{
	return page_folio(p);
}
#endif

/*
 * 6.5 replaced generic_file_splice_read() by filemap_splice_read(), with
 * the same arguments, for files read through the page cache. 6.1's reads
 * through ->read_iter, which for a page-cache read comes to the same; an
 * O_DIRECT file goes through ->read_iter on both (6.5's vfs_splice_read()
 * sends it to copy_splice_read()).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define filemap_splice_read	generic_file_splice_read
#endif

/*
 * A page-cache folio, NULL when there is none. __filemap_get_folio() has
 * the same name on both kernels with two contracts: NULL on 6.1, an
 * ERR_PTR since 6.4. A backfill cannot rename it, so a wrapper that gives
 * the callers one answer.
 */
static inline struct folio *aw_get_folio(struct address_space *mapping,
					 pgoff_t index, unsigned int fgp,
					 gfp_t gfp)
{
	struct folio *f = __filemap_get_folio(mapping, index, fgp, gfp);

	return IS_ERR(f) ? NULL : f;
}

/*
 * 6.2 gave a SCSI host's ->eh_timed_out its own return type. 6.1's returns
 * a blk_eh_timer_return, whose BLK_EH_DONE there means what
 * SCSI_EH_NOT_HANDLED means since: go on with error handling (abort).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define scsi_timeout_action	blk_eh_timer_return
#define SCSI_EH_NOT_HANDLED	BLK_EH_DONE
#endif

#endif /* AW_COMPAT_H */
