// SPDX-License-Identifier: GPL-2.0
/* awblk's ioctls on /dev/awblkN: the limits, and an atomic write. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "awblk_dev.h"

/* ---- ioctls on /dev/awblkN ---- */

void awblk_get_limits(struct awblk_dev *d, struct aw_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->unit_min = d->lim.unit_min;
	l->unit_max = d->lim.unit_max;
	l->max_bytes = d->lim.max_bytes;
	l->boundary = d->lim.boundary;
	l->segments_max = d->lim.unit_max ? 1 : 0;
	l->engine = d->engine ? d->engine->id : AW_ENGINE_NONE;
	l->untorn = d->untorn;
	l->logical_block_size = bdev_logical_block_size(d->lower.bdev);
	l->size = d->size;
}

static void awblk_free_bio_pages(struct bio *bio)
{
	struct bio_vec *bv;
	struct bvec_iter_all it;

	bio_for_each_segment_all(bv, bio, it)
		__free_page(bv->bv_page);
}

static blk_opf_t awblk_ioctl_opf(const struct aw_atomic_write *w)
{
	return REQ_OP_WRITE | REQ_SYNC | (w->flags & AW_WRITE_FLAGS ? REQ_FUA : 0);
}

/* Copy the user's data into a new bio on the lower device; nothing written. */
static struct bio *awblk_bio_copy_user(struct awblk_dev *d,
				       const struct aw_atomic_write *w)
{
	unsigned int npages = DIV_ROUND_UP(w->len, PAGE_SIZE), i;
	const char __user *ubuf = u64_to_user_ptr(w->buf);
	struct bio *bio;

	/* The limits keep unit_max within one bio of single pages. */
	if (WARN_ON_ONCE(npages > BIO_MAX_VECS))
		return ERR_PTR(-EINVAL);
	bio = bio_alloc(d->lower.bdev, npages, awblk_ioctl_opf(w), GFP_KERNEL);
	if (!bio)
		return ERR_PTR(-ENOMEM);
	bio->bi_iter.bi_sector = (w->offset >> 9) + d->start;
	for (i = 0; i < npages; i++) {
		unsigned int n = min_t(u64, PAGE_SIZE, w->len - (u64)i * PAGE_SIZE);
		struct page *page = alloc_page(GFP_KERNEL);
		int err = page ? 0 : -ENOMEM;

		if (page && copy_from_user(page_address(page),
					   ubuf + (u64)i * PAGE_SIZE, n))
			err = -EFAULT;
		if (!err && bio_add_page(bio, page, n, 0) != n)
			err = -EIO;
		if (err) {
			if (page)
				__free_page(page);
			awblk_free_bio_pages(bio);
			bio_put(bio);
			return ERR_PTR(err);
		}
	}
	return bio;
}

/*
 * Take the user's pages themselves, as direct I/O does (no copy). Only for
 * a buffer the lower device can take as it is; NULL means copy instead.
 */
static struct bio *awblk_bio_pin_user(struct awblk_dev *d,
				      const struct aw_atomic_write *w)
{
	struct block_device *lower = d->lower.bdev;
	unsigned int mask = max_t(unsigned int, bdev_dma_alignment(lower),
				  bdev_logical_block_size(lower) - 1);
	void __user *ubuf = u64_to_user_ptr(w->buf);
	/* The pages the buffer spans: one more than len's when unaligned. */
	u64 npages = DIV_ROUND_UP(offset_in_page(w->buf) + w->len, PAGE_SIZE);
	struct iov_iter it;
	struct bio *bio;

	if ((w->buf & mask) || !access_ok(ubuf, w->len) ||
	    npages > BIO_MAX_VECS)
		return NULL;
	iov_iter_ubuf(&it, ITER_SOURCE, ubuf, w->len);
	bio = bio_alloc(lower, npages, awblk_ioctl_opf(w), GFP_KERNEL);
	if (!bio)
		return NULL;
	bio->bi_iter.bi_sector = (w->offset >> 9) + d->start;
	if (bio_iov_iter_get_pages(bio, &it) || iov_iter_count(&it)) {
		bio_release_pages(bio, false);
		bio_put(bio);
		return NULL;
	}
	return bio;
}

static int awblk_ioctl_atomic_write(struct awblk_dev *d,
				    struct block_device *bdev,
				    blk_mode_t mode, void __user *argp)
{
	struct address_space *mapping;
	struct aw_atomic_write w;
	pgoff_t first, last;
	struct bio *bio, *pinned;
	enum awblk_reject r;
	int i, ret;

	if (copy_from_user(&w, argp, sizeof(w)))
		return -EFAULT;
	if (w.reserved0 || (w.flags & ~AW_WRITE_FLAGS))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(w.reserved); i++)
		if (w.reserved[i])
			return -EINVAL;
	/* The same permissions as write(2): no way around them. */
	if (!(mode & BLK_OPEN_WRITE))
		return -EBADF;
	if (bdev_read_only(bdev))
		return -EROFS;
	r = d->engine ? awblk_check_write(&d->lim, d->size, w.offset, w.len, 1)
		      : AWB_NOSUPPORT;
	if (r != AWB_OK) {
		awblk_count_reject(d, r);
		return awblk_reject_errno(r);
	}
	bio = awblk_bio_pin_user(d, &w);
	pinned = bio;
	if (!bio)
		bio = awblk_bio_copy_user(d, &w);
	if (IS_ERR(bio))
		return PTR_ERR(bio);
	/* Like a direct write: cached pages of the range go out first... */
	mapping = aw_bdev_mapping(bdev);
	first = w.offset >> PAGE_SHIFT;
	last = (w.offset + w.len - 1) >> PAGE_SHIFT;
	ret = filemap_write_and_wait_range(mapping, w.offset,
					   w.offset + w.len - 1);
	if (!ret) {
		ret = awblk_submit_wait(d, bio, awblk_engine_atomic);
		/* ...and are dropped after, so reads see what the device holds. */
		invalidate_inode_pages2_range(mapping, first, last);
	}
	if (pinned)
		bio_release_pages(bio, false);
	else
		awblk_free_bio_pages(bio);
	bio_put(bio);
	return ret;
}

int awblk_ioctl(struct block_device *bdev, blk_mode_t mode,
		unsigned int cmd, unsigned long arg)
{
	struct awblk_dev *d = bdev->bd_disk->private_data;
	void __user *argp = (void __user *)arg;
	struct aw_limits l;

	/*
	 * Offsets, sizes and limits are the whole device's: a partition
	 * answers none of it (RWF_ATOMIC works there, remapped by the block
	 * layer).
	 */
	if (bdev_is_partition(bdev))
		return -ENOTTY;
	switch (cmd) {
	case AW_IOC_GET_LIMITS:
		awblk_get_limits(d, &l);
		return copy_to_user(argp, &l, sizeof(l)) ? -EFAULT : 0;
	case AW_IOC_ATOMIC_WRITE:
		return awblk_ioctl_atomic_write(d, bdev, mode, argp);
	default:
		return -ENOTTY;
	}
}
