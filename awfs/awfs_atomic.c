// SPDX-License-Identifier: GPL-2.0
/*
 * awfs atomic units: the per-file unit ("forcealign", kept in a lower
 * xattr), and the atomic writes of a unit (the atomic ioctl, RWF_ATOMIC,
 * or a whole aligned unit of write() under "untorn").
 *
 * A unit is first made allocated, written and unit-aligned in the lower
 * file system ("prepared": a hole or unwritten extent is filled with
 * zeros, which it reads as anyway, and synced), then copied into its
 * folios with all of them locked and tagged with its physical place;
 * writeback (awfs_aops.c) sends it from there. An O_DIRECT atomic write
 * goes to the awblk device at once. A plain change to part of a unit
 * (write, mmap) drops the tag first.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/uio.h>
#include <linux/bio.h>
#include <linux/falloc.h>
#include <linux/slab.h>
#include <linux/xattr.h>
#include <linux/cred.h>
#include <linux/mount.h>
#include <linux/rmap.h>
#include <linux/uaccess.h>
#include <linux/sched/signal.h>
#include "awfs.h"
#include "awfs_logic.h"
#include "awblk_logic.h"
#include "awblk.h"

#define AWFS_XATTR	"trusted.awfs.align"

struct awfs_align_disk {
	__le32 flags;
	__le32 unit;
};

/* ---- the per-file unit ("forcealign"), kept in a lower xattr ---- */

static bool awfs_unit_usable(struct inode *inode, u32 unit)
{
	struct awfs_sb *s = awfs_isb(inode);
	const char *why;

	return !awfs_unit_ok(unit, PAGE_SIZE, i_blocksize(awfs_lower_inode(inode)),
			     s->dev.unit_min, s->dev.unit_max, s->dev.max_bytes,
			     s->dev.boundary, &why);
}

void awfs_init_align(struct inode *inode, struct dentry *lower)
{
	struct awfs_inode *ai = AWFS_I(inode);
	struct awfs_align_disk d;
	ssize_t n;

	mutex_lock(&ai->lfile_lock);
	if (ai->align_init)
		goto out;
	ai->align_init = true;
	ai->unit = awfs_isb(inode)->unit;
	n = __vfs_getxattr(lower, d_inode(lower), AWFS_XATTR, &d, sizeof(d));
	if (n == sizeof(d))
		ai->unit = le32_to_cpu(d.flags) & AWFS_ALIGN_FORCE ?
			   le32_to_cpu(d.unit) : 0;
	ai->capable = ai->unit && awfs_unit_usable(inode, ai->unit);
out:
	mutex_unlock(&ai->lfile_lock);
}

bool awfs_atomic_ok(struct inode *inode)
{
	return AWFS_I(inode)->unit && AWFS_I(inode)->capable;
}

static void awfs_not_capable(struct inode *inode, const char *why)
{
	struct awfs_inode *ai = AWFS_I(inode);

	ai->capable = false;
	if (!ai->warned)
		pr_warn("awfs: inode %lu: %s: no atomic writes for this file\n",
			inode->i_ino, why);
	ai->warned = true;
}

/* ---- unit tags ---- */

void awfs_drop_tags(struct inode *inode, loff_t from, loff_t to)
{
	struct awfs_inode *ai = AWFS_I(inode);
	unsigned long u;
	void *e;

	if (!ai->unit || to <= from)
		return;
	xa_for_each_range(&ai->tags, u, e, from / ai->unit,
			  (to - 1) / ai->unit)
		xa_erase(&ai->tags, u);
}

/* ---- preparing a range for atomic writes: allocated, written, aligned ---- */

/*
 * Physical block of @off when [@off, @off + @len) is written, contiguous
 * and aligned to @len on the device: 1; 0 when some block is not written
 * yet (bmap says 0 for holes and unwritten extents); -EINVAL when misplaced.
 */
static int awfs_range_phys(struct inode *inode, loff_t off, u32 len, u64 *phys)
{
	struct inode *lower = awfs_lower_inode(inode);
	u32 bits = lower->i_blkbits, n = max(len >> bits, 1U), i;
	u64 *blocks;
	int ret;

	blocks = kmalloc_array(n, sizeof(*blocks), GFP_NOFS);
	if (!blocks)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		sector_t b = (off >> bits) + i;

		ret = bmap(lower, &b);
		if (ret)
			goto out;
		blocks[i] = b;
	}
	ret = awfs_extent_check(blocks, n, bits, len);
	if (ret == 1)
		*phys = blocks[0];
out:
	kfree(blocks);
	return ret;
}

/* Fill what is not written in [@off, @off + @len) with zeros and sync it. */
static int awfs_make_written(struct inode *inode, loff_t off, u32 len)
{
	struct awfs_inode *ai = AWFS_I(inode);
	struct inode *lower = awfs_lower_inode(inode);
	u32 bs = i_blocksize(lower);
	loff_t pos, end = round_up(off + len, bs);
	int ret;

	off = round_down(off, bs);	/* whole blocks: a direct write may be less */
	ret = vfs_fallocate(ai->lfile, FALLOC_FL_KEEP_SIZE, off, end - off);
	if (ret && ret != -EOPNOTSUPP)
		return ret;
	for (pos = off; pos < end; pos += bs) {
		sector_t b = pos >> lower->i_blkbits;
		loff_t p = pos;
		ssize_t n;

		ret = bmap(lower, &b);
		if (ret)
			return ret;
		if (b)
			continue;
		n = kernel_write(ai->lfile, page_address(ZERO_PAGE(0)),
				 min_t(u32, bs, PAGE_SIZE), &p);
		if (n < 0)
			return n;
	}
	return awfs_lower_fsync(inode, off, end - 1, 1);
}

/*
 * The lower file must cover what we write around it: past its size the
 * lower file system owns the bytes (it zeroes its last block's tail when
 * it writes that block back), so a unit past it would be lost.
 */
static int awfs_cover_lower(struct inode *inode, loff_t end)
{
	struct file *lf = AWFS_I(inode)->lfile;
	struct dentry *ld = lf->f_path.dentry;
	struct iattr la = { .ia_valid = ATTR_SIZE, .ia_size = end };
	int ret;

	ret = awfs_want_write(inode->i_sb);
	if (ret)
		return ret;
	inode_lock(d_inode(ld));
	if (i_size_read(d_inode(ld)) < end)
		ret = notify_change(aw_mnt_idmap(lf->f_path.mnt), ld, &la, NULL);
	inode_unlock(d_inode(ld));
	awfs_drop_write(inode->i_sb);
	return ret;
}

/*
 * Make [@off, @off + @len) ready for an atomic write at its physical place
 * (*@phys, a block of the lower file system). -EOPNOTSUPP when the lower
 * file system put it where no atomic write can go.
 */
static int awfs_prepare(struct inode *inode, loff_t off, u32 len, u64 *phys)
{
	int ret, tries;

	if (!AWFS_I(inode)->lfile || !(AWFS_I(inode)->lfile->f_mode & FMODE_WRITE))
		return -EBADF;
	for (tries = 0; tries < 2; tries++) {
		ret = awfs_range_phys(inode, off, len, phys);
		if (ret == 1)
			return awfs_cover_lower(inode, off + len);
		if (ret == -EINVAL) {
			awfs_not_capable(inode, "the lower file system placed a unit unaligned or in pieces");
			return -EOPNOTSUPP;
		}
		if (ret < 0)
			return ret;
		if (!tries) {
			ret = awfs_make_written(inode, off, len);
			if (ret)
				return ret;
		}
	}
	pr_warn("awfs: inode %lu: %lld+%u stays unwritten in the lower file\n",
		inode->i_ino, off, len);
	return -EIO;
}

/* ---- atomic units ---- */

void awfs_bounce_free(struct awfs_bounce *b)
{
	u32 i;

	for (i = 0; b->pages && i < b->n; i++)
		if (b->pages[i])
			__free_page(b->pages[i]);
	kfree(b->pages);
	b->pages = NULL;
}

static int awfs_bounce_alloc(struct awfs_bounce *b, u32 len)
{
	u32 i;

	b->n = DIV_ROUND_UP(len, PAGE_SIZE);
	b->pages = kcalloc(b->n, sizeof(*b->pages), GFP_KERNEL);
	if (!b->pages)
		return -ENOMEM;
	for (i = 0; i < b->n; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL);
		if (!b->pages[i]) {
			awfs_bounce_free(b);
			return -ENOMEM;
		}
	}
	return 0;
}

static int awfs_bounce_from_user(struct awfs_bounce *b, const char __user *buf,
				 u32 len)
{
	u32 i;

	for (i = 0; i < b->n; i++)
		if (copy_from_user(page_address(b->pages[i]),
				   buf + i * PAGE_SIZE,
				   min_t(u32, PAGE_SIZE, len - i * PAGE_SIZE)))
			return -EFAULT;
	return 0;
}

static int awfs_bounce_from_iter(struct awfs_bounce *b, struct iov_iter *from,
				 size_t len)
{
	size_t got = 0, n, want;
	u32 i;

	for (i = 0; i < b->n; i++) {
		want = min_t(size_t, PAGE_SIZE, len - got);
		n = copy_page_from_iter(b->pages[i], 0, want, from);
		got += n;
		if (n < want) {
			iov_iter_revert(from, got);
			return -EFAULT;
		}
	}
	return 0;
}

/*
 * Put one prepared unit at @pos into the page cache: all its folios locked
 * (in index order, as everyone here locks them), tagged with its physical
 * block, filled, dirtied; nothing changes unless all of it does.
 */
static int awfs_cache_unit(struct inode *inode, loff_t pos,
			   struct awfs_bounce *b, u64 phys)
{
	struct awfs_inode *ai = AWFS_I(inode);
	struct address_space *mapping = inode->i_mapping;
	struct folio **f;
	u32 i, n = ai->unit >> PAGE_SHIFT;
	int ret = -ENOMEM;

	f = kmalloc_array(n, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		f[i] = awfs_write_folio(mapping, (pos >> PAGE_SHIFT) + i);
		if (!f[i])
			goto out;
	}
	ret = xa_err(xa_store(&ai->tags, pos / ai->unit, xa_mk_value(phys),
			      GFP_NOFS));
	if (ret)
		goto out;
	for (i = 0; i < n; i++) {
		/* A writable mapping must fault (and drop the tag) to change it. */
		if (folio_mapped(f[i]))
			folio_mkclean(f[i]);
		memcpy_to_page(&f[i]->page, 0, page_address(b->pages[i]),
			       PAGE_SIZE);
		folio_mark_uptodate(f[i]);
		folio_mark_dirty(f[i]);
	}
	if (pos + ai->unit > i_size_read(inode))
		i_size_write(inode, pos + ai->unit);
out:
	awfs_unlock_folios(f, i);
	kfree(f);
	return ret;
}

/* An O_DIRECT atomic write: straight to the device, waited for. */
static int awfs_direct_unit(struct inode *inode, loff_t off,
			    struct awfs_bounce *b, u32 len, u64 phys)
{
	struct bio *bio;
	u32 i;
	int ret;

	ret = filemap_write_and_wait_range(inode->i_mapping, off, off + len - 1);
	if (ret)
		return ret;
	awfs_drop_tags(inode, off, off + len);
	ret = awfs_lower_forget_before(inode, off, len);
	if (ret)
		return ret;
	bio = bio_alloc(awfs_isb(inode)->bdev, b->n, REQ_OP_WRITE | REQ_SYNC,
			GFP_KERNEL);
	/* phys is the block that holds off; a direct write may start inside it. */
	bio->bi_iter.bi_sector = (phys << (awfs_lower_inode(inode)->i_blkbits - 9)) +
		((off & (i_blocksize(awfs_lower_inode(inode)) - 1)) >> 9);
	for (i = 0; i < b->n; i++)
		__bio_add_page(bio, b->pages[i],
			       min_t(u32, PAGE_SIZE, len - i * PAGE_SIZE), 0);
	/* Blocks of the lower file system: not while it is frozen. */
	ret = awfs_want_write(inode->i_sb);
	if (!ret) {
		ret = awblk_submit_atomic_wait(bio);
		awfs_note_written(awfs_isb(inode));
		awfs_drop_write(inode->i_sb);
	}
	if (awfs_lower_forget(inode, off, len, false) && !ret)
		awfs_lower_refresh(inode, off, bio);
	bio_put(bio);
	invalidate_inode_pages2_range(inode->i_mapping, off >> PAGE_SHIFT,
				      (off + len - 1) >> PAGE_SHIFT);
	return ret;
}

/* The limits of @file: the unit when buffered, the device's when @direct. */
void awfs_file_limits(struct file *file, bool direct, struct aw_limits *l)
{
	struct inode *inode = file_inode(file);
	struct awfs_sb *s = awfs_isb(inode);
	u32 unit = AWFS_I(inode)->unit;

	memset(l, 0, sizeof(*l));
	l->engine = s->dev.engine;
	l->logical_block_size = s->dev.logical_block_size;
	l->size = i_size_read(inode);
	l->untorn = s->untorn ? unit : 0;
	if (!awfs_atomic_ok(inode))
		return;
	l->unit_min = unit;
	l->unit_max = unit;
	if (direct) {
		l->unit_min = s->dev.unit_min;
		l->unit_max = min(s->dev.unit_max, unit);
	}
	l->max_bytes = l->unit_max;
	l->segments_max = 1;
}

/* The unit of @inode's atomic writes; 0: none (for statx). */
u32 awfs_atomic_unit(struct inode *inode)
{
	return awfs_atomic_ok(inode) ? AWFS_I(inode)->unit : 0;
}

/* What write(2) would refuse for [@off, @off + @len): append-only, limits. */
static int awfs_write_allowed(struct file *file, loff_t off, u64 len)
{
	struct inode *inode = file_inode(file);
	unsigned long limit = rlimit(RLIMIT_FSIZE);

	if (IS_APPEND(inode) || IS_IMMUTABLE(inode))
		return -EPERM;
	if (IS_SWAPFILE(inode))
		return -ETXTBSY;
	if (limit != RLIM_INFINITY && off + len > limit) {
		send_sig(SIGXFSZ, current, 0);
		return -EFBIG;
	}
	if (off + len > inode->i_sb->s_maxbytes)
		return -EFBIG;
	return 0;
}

/* One atomic write's checks: the upstream rules in order, then write(2)'s. */
static int awfs_atomic_check(struct file *file, bool direct, loff_t off,
			     u64 len, unsigned long nsegs)
{
	struct inode *inode = file_inode(file);
	struct aw_atomic_limits lim;
	struct aw_limits l;
	enum awblk_reject r;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	awfs_file_limits(file, direct, &l);
	lim.unit_min = l.unit_min;
	lim.unit_max = l.unit_max;
	lim.max_bytes = l.max_bytes;
	lim.boundary = 0;
	r = awblk_check_write(&lim, inode->i_sb->s_maxbytes, off, len, nsegs);
	if (r != AWB_OK)
		return awblk_reject_errno(r);
	return awfs_write_allowed(file, off, len);
}

/* Write a checked unit from @b: into the cache, or @direct to the disk. */
static int awfs_atomic_do(struct file *file, bool direct, loff_t off, u32 len,
			  struct awfs_bounce *b)
{
	struct inode *inode = file_inode(file);
	u64 phys;
	int ret;

	inode_lock(inode);
	ret = file_remove_privs(file);
	if (!ret)
		ret = awfs_prepare(inode, off, len, &phys);
	if (!ret) {
		file_update_time(file);
		if (direct)
			ret = awfs_direct_unit(inode, off, b, len, phys);
		else
			ret = awfs_cache_unit(inode, off, b, phys);
		if (!ret && direct && off + len > i_size_read(inode))
			i_size_write(inode, off + len);
	}
	inode_unlock(inode);
	return ret;
}

int awfs_ioctl_atomic_write(struct file *file, void __user *argp)
{
	bool direct = file->f_flags & O_DIRECT;
	struct awfs_bounce b = {};
	struct aw_atomic_write w;
	int ret;

	if (copy_from_user(&w, argp, sizeof(w)))
		return -EFAULT;
	if (w.reserved0 || memchr_inv(w.reserved, 0, sizeof(w.reserved)) ||
	    (w.flags & ~AW_WRITE_FLAGS))
		return -EINVAL;
	ret = awfs_atomic_check(file, direct, w.offset, w.len, 1);
	if (ret)
		return ret;
	ret = awfs_bounce_alloc(&b, w.len);
	if (ret)
		return ret;
	ret = awfs_bounce_from_user(&b, u64_to_user_ptr(w.buf), w.len);
	/* write(2) has this from the VFS (file_start_write); an ioctl not. */
	if (!ret)
		ret = mnt_want_write_file(file);
	if (!ret) {
		ret = awfs_atomic_do(file, direct, w.offset, w.len, &b);
		mnt_drop_write_file(file);
	}
	if (!ret && w.flags)
		ret = vfs_fsync_range(file, w.offset, w.offset + w.len - 1, 1);
	awfs_bounce_free(&b);
	return ret;
}

/* pwritev2(RWF_ATOMIC), where the kernel has it: the ioctl's rules. */
ssize_t awfs_atomic_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	bool direct = iocb->ki_flags & IOCB_DIRECT;
	size_t len = iov_iter_count(from);
	struct awfs_bounce b = {};
	int ret;

	if (iocb->ki_flags & IOCB_APPEND)
		return -EINVAL;		/* an atomic write goes where it is told */
	ret = awfs_atomic_check(file, direct, iocb->ki_pos, len, from->nr_segs);
	if (ret)
		return ret;
	ret = awfs_bounce_alloc(&b, len);
	if (!ret)
		ret = awfs_bounce_from_iter(&b, from, len);
	if (!ret)
		ret = awfs_atomic_do(file, direct, iocb->ki_pos, len, &b);
	awfs_bounce_free(&b);
	if (ret)
		return ret;
	iocb->ki_pos += len;
	return generic_write_sync(iocb, len);
}

/* One whole aligned unit of a write() under untorn: atomic. */
ssize_t awfs_untorn_unit(struct kiocb *iocb, struct iov_iter *from,
			 struct awfs_bounce *b)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	u32 unit = AWFS_I(inode)->unit;
	u64 phys;
	int ret;

	if (!b->pages) {
		ret = awfs_bounce_alloc(b, unit);
		if (ret)
			return ret;
	}
	ret = awfs_prepare(inode, iocb->ki_pos, unit, &phys);
	if (ret == -EOPNOTSUPP)		/* said why in the log */
		return awfs_plain_write(iocb, from, unit);
	if (ret)
		return ret;
	ret = awfs_bounce_from_iter(b, from, unit);
	if (ret)
		return ret;
	ret = awfs_cache_unit(inode, iocb->ki_pos, b, phys);
	if (ret) {
		iov_iter_revert(from, unit);
		return ret;
	}
	iocb->ki_pos += unit;
	balance_dirty_pages_ratelimited(inode->i_mapping);
	return unit;
}

/* ---- the per-file unit ioctls ---- */

int awfs_ioctl_get_align(struct inode *inode, void __user *argp)
{
	struct awfs_align a = {};

	a.unit = AWFS_I(inode)->unit;
	a.flags = a.unit ? AWFS_ALIGN_FORCE : 0;
	a.status = awfs_atomic_ok(inode) ? AWFS_STATUS_CAPABLE : 0;
	return copy_to_user(argp, &a, sizeof(a)) ? -EFAULT : 0;
}

static int awfs_store_align(struct file *file, u32 flags, u32 unit)
{
	struct inode *inode = file_inode(file);
	struct dentry *ld = AWFS_I(inode)->lfile->f_path.dentry;
	struct awfs_align_disk d = {
		.flags = cpu_to_le32(flags), .unit = cpu_to_le32(unit),
	};
	const struct cred *old;
	int ret;

	ret = awfs_want_write(inode->i_sb);
	if (ret)
		return ret;
	old = override_creds(awfs_isb(inode)->cred);
	ret = vfs_setxattr(aw_mnt_idmap(AWFS_I(inode)->lfile->f_path.mnt), ld,
			   AWFS_XATTR, &d, sizeof(d), 0);
	revert_creds(old);
	awfs_drop_write(inode->i_sb);
	return ret;
}

int awfs_ioctl_set_align(struct file *file, void __user *argp)
{
	struct inode *inode = file_inode(file);
	struct awfs_inode *ai = AWFS_I(inode);
	struct awfs_sb *s = awfs_isb(inode);
	struct awfs_align a;
	const char *why = NULL;
	int ret;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	if (a.status || memchr_inv(a.reserved, 0, sizeof(a.reserved)) ||
	    (a.flags & ~AWFS_ALIGN_FLAGS))
		return -EINVAL;
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!inode_owner_or_capable(aw_mnt_idmap(file->f_path.mnt), inode))
		return -EPERM;
	if (!(a.flags & AWFS_ALIGN_FORCE)) {
		if (a.unit)
			return -EINVAL;
	} else {
		a.unit = a.unit ?: s->unit;
		if (awfs_unit_ok(a.unit, PAGE_SIZE, i_blocksize(ai->lower),
				 s->dev.unit_min, s->dev.unit_max,
				 s->dev.max_bytes, s->dev.boundary, &why)) {
			pr_info("awfs: inode %lu: unit %u %s\n", inode->i_ino,
				a.unit, why);
			return -EINVAL;
		}
	}
	ret = mnt_want_write_file(file);
	if (ret)
		return ret;
	inode_lock(inode);
	ret = -EBUSY;	/* the unit says where data goes: only before any */
	if (i_size_read(inode) || i_size_read(ai->lower) || ai->lower->i_blocks)
		goto out;
	ret = awfs_store_align(file, a.flags, a.unit);
	if (ret)
		goto out;
	ai->unit = a.unit;
	ai->capable = !!a.unit;
	ai->warned = false;
out:
	inode_unlock(inode);
	mnt_drop_write_file(file);
	return ret;
}
