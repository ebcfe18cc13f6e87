/* SPDX-License-Identifier: GPL-2.0 */
/*
 * awkit's one place for kernel version differences (Debian 12: 6.1 and
 * 6.12). Everything else in the modules is written once against these.
 */
#ifndef AW_COMPAT_H
#define AW_COMPAT_H

#include <linux/version.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>

/* Native block atomic writes: REQ_ATOMIC, queue limits, statx, RWF_ATOMIC. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define AW_NATIVE_ATOMIC	1
#else
#define AW_NATIVE_ATOMIC	0
#endif

/* The mode a block device is opened with, as block_device_operations see it. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
typedef blk_mode_t aw_mode_t;
#define AW_MODE_WRITE		BLK_OPEN_WRITE
#else
typedef fmode_t aw_mode_t;
#define AW_MODE_WRITE		FMODE_WRITE
#endif

/*
 * block_device_operations.open: (gendisk, blk_mode_t) since 6.5, a
 * block_device before. @fn takes the gendisk either way.
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

#ifndef BLK_STS_INVAL
#define BLK_STS_INVAL		BLK_STS_TARGET
#endif

/* An exclusively opened lower block device. */
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

/* Atomic limits in bytes, as an awblk device exposes them. */
struct aw_atomic_hw {
	unsigned int unit_min, unit_max, max_bytes, boundary;
};

/*
 * The atomic limits the kernel itself derived for @bdev's queue (6.11+ has
 * them for NVMe and SCSI); false where the kernel knows none.
 */
static inline bool aw_kernel_atomic_hw(struct block_device *bdev,
				       struct aw_atomic_hw *hw)
{
#if AW_NATIVE_ATOMIC
	struct request_queue *q = bdev_get_queue(bdev);

	hw->unit_min = queue_atomic_write_unit_min_bytes(q);
	hw->unit_max = queue_atomic_write_unit_max_bytes(q);
	hw->max_bytes = queue_atomic_write_max_bytes(q);
	hw->boundary = queue_atomic_write_boundary_bytes(q);
	return hw->unit_min && hw->unit_max;
#else
	return false;
#endif
}

/*
 * A bio-based disk whose limits are the lower device's (block sizes, bio
 * size, segments, discard, write zeroes, write cache and FUA) and whose
 * native atomic limits, where the kernel has them, are @hw. @stable: pages
 * must not change while they are written (stable writes).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
static inline struct gendisk *aw_alloc_stacked_disk(struct block_device *lower,
						    const struct aw_atomic_hw *hw,
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
						    const struct aw_atomic_hw *hw,
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

/* The page cache of a block device. */
static inline struct address_space *aw_bdev_mapping(struct block_device *bdev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return bdev->bd_mapping;
#else
	return bdev->bd_inode->i_mapping;
#endif
}

/* Mark a bio as an atomic write for the lower driver, where that exists. */
static inline void aw_bio_set_atomic(struct bio *bio)
{
#if AW_NATIVE_ATOMIC
	bio->bi_opf |= REQ_ATOMIC;
#endif
}

static inline void aw_bio_clear_atomic(struct bio *bio)
{
#if AW_NATIVE_ATOMIC
	bio->bi_opf &= ~REQ_ATOMIC;
#endif
}

static inline bool aw_bio_is_atomic(struct bio *bio)
{
#if AW_NATIVE_ATOMIC
	return bio->bi_opf & REQ_ATOMIC;
#else
	return false;
#endif
}


/* ---- file systems (awfs) ---- */

/* Mount id mappings: a user namespace until 6.2, struct mnt_idmap after. */
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
 * Before, the caller takes it.
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

/* 6.12 marks a getattr the VFS already checked; a stacked one passes it on not. */
#ifndef AT_GETATTR_NOSEC
#define AT_GETATTR_NOSEC	0
#endif

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
 * RWF_ATOMIC and statx's atomic fields on files (6.11+): the file mode that
 * lets RWF_ATOMIC through, its kiocb flag, and the statx fill (one unit).
 */
#if AW_NATIVE_ATOMIC
#define AW_FMODE_CAN_ATOMIC_WRITE	FMODE_CAN_ATOMIC_WRITE
#define AW_IOCB_ATOMIC			IOCB_ATOMIC
static inline void aw_statx_atomic(struct kstat *stat, u32 mask, u32 unit)
{
	if ((mask & STATX_WRITE_ATOMIC) && unit)
		generic_fill_statx_atomic_writes(stat, unit, unit);
}
#else
#define AW_FMODE_CAN_ATOMIC_WRITE	0
#define AW_IOCB_ATOMIC			0
static inline void aw_statx_atomic(struct kstat *stat, u32 mask, u32 unit)
{
}
#endif

/* write_cache_pages() hands its callback a page until 6.3, a folio after. */
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

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define aw_splice_read	filemap_splice_read
#else
#define aw_splice_read	generic_file_splice_read
#endif

/* A page-cache folio, NULL when there is none (6.1 said NULL, 6.12 ERR_PTR). */
static inline struct folio *aw_get_folio(struct address_space *mapping,
					 pgoff_t index, unsigned int fgp,
					 gfp_t gfp)
{
	struct folio *f = __filemap_get_folio(mapping, index, fgp, gfp);

	return IS_ERR(f) ? NULL : f;
}

#endif /* AW_COMPAT_H */
