// SPDX-License-Identifier: GPL-2.0
/*
 * awfs file data: awfs's own page cache over the lower file.
 *
 * Reads fill folios from the lower file. A plain write dirties folios and
 * writeback writes them through the lower file. An atomic unit (the atomic
 * ioctl, or a whole aligned unit of write() under "untorn") is first made
 * allocated, written and unit-aligned in the lower file system ("prepared":
 * a hole or unwritten extent is filled with zeros, which it reads as anyway,
 * and synced), then copied into its folios with all of them locked and
 * tagged. Writeback sends a tagged unit to the awblk device at its physical
 * place as one atomic write, built from the folios themselves. A plain
 * change to part of a unit (write, mmap) drops the tag first.
 *
 * The lower file's own page cache may hold pages of a unit we write around
 * it: they are written back and dropped before the atomic write and dropped
 * again after it completes (readahead may have brought old data in); one
 * that cannot be dropped then takes the new data.
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
#include <linux/file.h>
#include "awfs.h"
#include "awfs_logic.h"
#include "awblk_logic.h"
#include "awblk.h"

#define AWFS_XATTR	"trusted.awfs.align"

struct awfs_align_disk {
	__le32 flags;
	__le32 unit;
};

static struct workqueue_struct *awfs_wq;

static struct awfs_sb *isb(struct inode *inode)
{
	return AWFS_SB(inode->i_sb);
}

/* ---- the lower file behind the page cache ---- */

static int open_lfile(struct inode *inode, struct dentry *dentry)
{
	struct awfs_inode *ai = AWFS_I(inode);
	struct path *lp = awfs_lower_path(dentry);
	struct file *f;
	int ret = 0;

	mutex_lock(&ai->lfile_lock);
	if (ai->lfile)
		goto out;
	f = dentry_open(lp, O_RDWR | O_LARGEFILE, isb(inode)->cred);
	if (IS_ERR(f))	/* a read-only lower: reads only */
		f = dentry_open(lp, O_RDONLY | O_LARGEFILE, isb(inode)->cred);
	if (IS_ERR(f)) {
		ret = PTR_ERR(f);
		goto out;
	}
	ai->lower_err = errseq_sample(&f->f_mapping->wb_err);
	ai->lfile = f;
out:
	mutex_unlock(&ai->lfile_lock);
	return ret;
}

/* ---- the per-file unit ("forcealign"), kept in a lower xattr ---- */

static bool unit_usable(struct inode *inode, u32 unit)
{
	struct awfs_sb *s = isb(inode);
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
	ai->unit = isb(inode)->unit;
	n = __vfs_getxattr(lower, d_inode(lower), AWFS_XATTR, &d, sizeof(d));
	if (n == sizeof(d))
		ai->unit = le32_to_cpu(d.flags) & AWFS_ALIGN_FORCE ?
			   le32_to_cpu(d.unit) : 0;
	ai->capable = ai->unit && unit_usable(inode, ai->unit);
out:
	mutex_unlock(&ai->lfile_lock);
}

static bool atomic_ok(struct inode *inode)
{
	return AWFS_I(inode)->unit && AWFS_I(inode)->capable;
}

static void not_capable(struct inode *inode, const char *why)
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
static int range_phys(struct inode *inode, loff_t off, u32 len, u64 *phys)
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

/*
 * Bring the lower file's write-back errors to our mapping, where each of
 * our file descriptions sees each error once, as on any file system. All
 * of ours share one lower file description, whose own cursor the first
 * fsync (or a lower O_DSYNC write) would consume: we keep our own. Not on
 * our super block: awfs_sync_fs() brings the lower one's there.
 */
static void lower_errors(struct inode *inode)
{
	struct awfs_inode *ai = AWFS_I(inode);
	struct address_space *lm = ai->lfile->f_mapping;
	int err;

	spin_lock(&ai->lower_err_lock);
	err = errseq_check_and_advance(&lm->wb_err, &ai->lower_err);
	/* Before the unlock: a racing fsync finds it on ours. */
	filemap_set_wb_err(inode->i_mapping, err);
	spin_unlock(&ai->lower_err_lock);
}

static int lower_fsync(struct inode *inode, loff_t start, loff_t end,
		       int datasync)
{
	int ret = vfs_fsync_range(AWFS_I(inode)->lfile, start, end, datasync);

	lower_errors(inode);
	return ret;
}

/* Fill what is not written in [@off, @off + @len) with zeros and sync it. */
static int make_written(struct inode *inode, loff_t off, u32 len)
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
	return lower_fsync(inode, off, end - 1, 1);
}

/*
 * The lower file must cover what we write around it: past its size the
 * lower file system owns the bytes (it zeroes its last block's tail when
 * it writes that block back), so a unit past it would be lost.
 */
static int cover_lower(struct inode *inode, loff_t end)
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
static int prepare(struct inode *inode, loff_t off, u32 len, u64 *phys)
{
	int ret, tries;

	if (!AWFS_I(inode)->lfile || !(AWFS_I(inode)->lfile->f_mode & FMODE_WRITE))
		return -EBADF;
	for (tries = 0; tries < 2; tries++) {
		ret = range_phys(inode, off, len, phys);
		if (ret == 1)
			return cover_lower(inode, off + len);
		if (ret == -EINVAL) {
			not_capable(inode, "the lower file system placed a unit unaligned or in pieces");
			return -EOPNOTSUPP;
		}
		if (ret < 0)
			return ret;
		if (!tries) {
			ret = make_written(inode, off, len);
			if (ret)
				return ret;
		}
	}
	pr_warn("awfs: inode %lu: %lld+%u stays unwritten in the lower file\n",
		inode->i_ino, off, len);
	return -EIO;
}

/* ---- reading: folios from the lower file ---- */

static bool lower_cached(struct address_space *lm, pgoff_t index)
{
	struct folio *folio = aw_get_folio(lm, index, 0, 0);

	if (folio)
		folio_put(folio);
	return folio != NULL;
}

/*
 * Read ahead in the lower page cache from @index to the end of its unit,
 * or a readahead window when reads go forward; one page per folio. A
 * larger folio (XFS's own readahead makes them) could hold a unit and part
 * of its neighbour: a plain write of the neighbour keeps it dirty, so it
 * could not be dropped around the unit's atomic write and would keep the
 * unit's old data, to be read later (and, where the lower file system has
 * no per-block dirty state, as on 6.1, written back over the unit).
 */
static void lower_readahead(struct file *lf, pgoff_t index, u32 unit)
{
	struct address_space *lm = lf->f_mapping;
	unsigned long upu = max_t(u32, unit >> PAGE_SHIFT, 1);
	unsigned long nr = upu - (index & (upu - 1));
	loff_t size = i_size_read(lm->host);
	DEFINE_READAHEAD(ractl, lf, &lf->f_ra, lm, index);
	pgoff_t last;

	if (!size)
		return;
	last = (size - 1) >> PAGE_SHIFT;
	if (index > last)
		return;
	if (!index || lower_cached(lm, index - 1))
		nr = max_t(unsigned long, nr, lf->f_ra.ra_pages);
	nr = min_t(unsigned long, nr, last - index + 1);
	nr = min_t(unsigned long, nr, SZ_2M >> PAGE_SHIFT);
	page_cache_ra_unbounded(&ractl, nr, 0);
}

/*
 * One page of the lower file from its page cache, as its own page faults
 * read it: under the lower invalidate lock, never the lower i_rwsem. We
 * hold an awfs folio lock here, perhaps inside a direct write to the same
 * lower file that holds i_rwsem (XFS) and faulted on a mapping of ours.
 */
static ssize_t lower_page(struct file *lf, loff_t pos, void *to, u32 unit)
{
	struct address_space *lm = lf->f_mapping;
	pgoff_t index = pos >> PAGE_SHIFT;
	struct folio *folio;
	loff_t size;
	void *from;
	size_t n;

	if (!lower_cached(lm, index))
		lower_readahead(lf, index, unit);
	/* Held over the copy: no truncate or hole punch below meanwhile. */
	filemap_invalidate_lock_shared(lm);
	size = i_size_read(lm->host);
	if (pos >= size) {
		filemap_invalidate_unlock_shared(lm);
		return 0;
	}
	/* One page per folio too, when readahead could not place it. */
	folio = read_mapping_folio(lm, index, lf);
	if (IS_ERR(folio)) {
		filemap_invalidate_unlock_shared(lm);
		return PTR_ERR(folio);
	}
	n = min_t(loff_t, PAGE_SIZE, size - pos);
	from = kmap_local_folio(folio, offset_in_folio(folio, pos));
	memcpy(to, from, n);
	kunmap_local(from);
	filemap_invalidate_unlock_shared(lm);
	folio_put(folio);
	return n;
}

static int fill_folio(struct inode *inode, struct folio *folio)
{
	struct file *lf = AWFS_I(inode)->lfile;
	loff_t pos = folio_pos(folio);
	void *kaddr;
	ssize_t n;

	if (!lf)
		return -EIO;
	kaddr = kmap_local_folio(folio, 0);
	if (lf->f_mapping->a_ops->read_folio && !IS_DAX(file_inode(lf)))
		n = lower_page(lf, pos, kaddr, AWFS_I(inode)->unit);
	else	/* no page cache to read from */
		n = kernel_read(lf, kaddr, PAGE_SIZE, &pos);
	if (n >= 0 && n < PAGE_SIZE)
		memset(kaddr + n, 0, PAGE_SIZE - n);
	kunmap_local(kaddr);
	flush_dcache_folio(folio);
	return n < 0 ? n : 0;
}

static int awfs_read_folio(struct file *file, struct folio *folio)
{
	int ret = fill_folio(folio->mapping->host, folio);

	if (!ret)
		folio_mark_uptodate(folio);
	folio_unlock(folio);
	return ret;
}

/* ---- plain buffered writes ---- */

static struct folio *write_folio(struct address_space *mapping, pgoff_t index)
{
	return aw_get_folio(mapping, index,
			    FGP_LOCK | FGP_WRITE | FGP_CREAT | FGP_STABLE,
			    mapping_gfp_mask(mapping));
}

/* One folio's part of a plain write: 0 on a fault, to retry. */
static ssize_t write_one(struct inode *inode, loff_t pos, size_t bytes,
			 struct iov_iter *from)
{
	struct address_space *mapping = inode->i_mapping;
	size_t off = offset_in_page(pos), copied;
	struct folio *folio;
	int ret;

	folio = write_folio(mapping, pos >> PAGE_SHIFT);
	if (!folio)
		return -ENOMEM;
	if (!folio_test_uptodate(folio) && bytes != PAGE_SIZE) {
		ret = fill_folio(inode, folio);
		if (ret)
			goto out;
		folio_mark_uptodate(folio);
	}
	/* Under the folio lock, so a unit's writeback sees tag and data agree. */
	awfs_drop_tags(inode, pos, pos + bytes);
	if (mapping_writably_mapped(mapping))
		flush_dcache_folio(folio);
	copied = copy_page_from_iter_atomic(&folio->page, off, bytes, from);
	flush_dcache_folio(folio);
	if (!folio_test_uptodate(folio)) {
		if (copied < bytes) {
			iov_iter_revert(from, copied);
			copied = 0;
		} else {
			folio_mark_uptodate(folio);
		}
	}
	if (copied) {
		folio_mark_dirty(folio);
		if (pos + copied > i_size_read(inode))
			i_size_write(inode, pos + copied);
	}
	ret = copied;
out:
	folio_unlock(folio);
	folio_put(folio);
	return ret;
}

static ssize_t plain_write(struct kiocb *iocb, struct iov_iter *from,
			   size_t len)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		size_t bytes = min_t(size_t, PAGE_SIZE -
				     offset_in_page(iocb->ki_pos), len - done);

		if (fault_in_iov_iter_readable(from, bytes) == bytes) {
			n = -EFAULT;
			break;
		}
		n = write_one(inode, iocb->ki_pos, bytes, from);
		if (n < 0)
			break;
		iocb->ki_pos += n;
		done += n;
		balance_dirty_pages_ratelimited(inode->i_mapping);
		if (fatal_signal_pending(current)) {
			n = -EINTR;
			break;
		}
	}
	return done ? done : n;
}

/* ---- atomic units ---- */

struct awfs_bounce {
	struct page **pages;
	u32 n;
};

static void bounce_free(struct awfs_bounce *b)
{
	u32 i;

	for (i = 0; b->pages && i < b->n; i++)
		if (b->pages[i])
			__free_page(b->pages[i]);
	kfree(b->pages);
	b->pages = NULL;
}

static int bounce_alloc(struct awfs_bounce *b, u32 len)
{
	u32 i;

	b->n = DIV_ROUND_UP(len, PAGE_SIZE);
	b->pages = kcalloc(b->n, sizeof(*b->pages), GFP_KERNEL);
	if (!b->pages)
		return -ENOMEM;
	for (i = 0; i < b->n; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL);
		if (!b->pages[i]) {
			bounce_free(b);
			return -ENOMEM;
		}
	}
	return 0;
}

static int bounce_from_user(struct awfs_bounce *b, const char __user *buf,
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

static int bounce_from_iter(struct awfs_bounce *b, struct iov_iter *from,
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

static void unlock_folios(struct folio **f, u32 n)
{
	while (n--) {
		folio_unlock(f[n]);
		folio_put(f[n]);
	}
}

/*
 * Put one prepared unit at @pos into the page cache: all its folios locked
 * (in index order, as everyone here locks them), tagged with its physical
 * block, filled, dirtied; nothing changes unless all of it does.
 */
static int cache_unit(struct inode *inode, loff_t pos, struct awfs_bounce *b,
		      u64 phys)
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
		f[i] = write_folio(mapping, (pos >> PAGE_SHIFT) + i);
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
	unlock_folios(f, i);
	kfree(f);
	return ret;
}

/*
 * Drop the lower file's cached pages of a range we write around it. A
 * dirty page cannot be dropped. Before an atomic write (@flush) they are
 * written back first, and again if a plain write beside the range dirtied
 * a folio that holds part of it meanwhile. -EBUSY when one stays.
 */
static int lower_forget(struct inode *inode, loff_t off, loff_t len,
			bool flush)
{
	struct address_space *lm = awfs_lower_inode(inode)->i_mapping;
	int tries = flush ? 3 : 1, ret;

	do {
		if (flush) {
			ret = filemap_write_and_wait_range(lm, off,
							   off + len - 1);
			if (ret)
				return ret;
		}
		ret = invalidate_inode_pages2_range(lm, off >> PAGE_SHIFT,
						    (off + len - 1) >> PAGE_SHIFT);
	} while (ret == -EBUSY && --tries);
	return ret;
}

/*
 * Before an atomic write of a range: a lower folio that stays would keep
 * the range's old data, so the write must not go ahead.
 */
static int lower_forget_before(struct inode *inode, loff_t off, loff_t len)
{
	int ret = lower_forget(inode, off, len, true);

	if (ret != -EBUSY)
		return ret;
	pr_warn_ratelimited("awfs: inode %lu: the lower file's cache of bytes %lld-%lld stays dirty (written below awfs?)\n",
			    inode->i_ino, off, off + len - 1);
	return -EIO;
}

/* Copy @len bytes from @from to the lower folio cached at @pos, if any. */
static void lower_refresh_one(struct address_space *lm, loff_t pos,
			      const void *from, size_t len)
{
	struct folio *folio;
	void *to;

	folio = aw_get_folio(lm, pos >> PAGE_SHIFT, FGP_LOCK, 0);
	if (!folio)
		return;
	folio_wait_writeback(folio);
	to = kmap_local_folio(folio, offset_in_folio(folio, pos));
	memcpy(to, from, len);
	kunmap_local(to);
	flush_dcache_folio(folio);
	/*
	 * Written back meanwhile, it may have put old data over the unit
	 * (6.1's iomap writes every block of a folio): again, with the new.
	 */
	if (folio_test_uptodate(folio))
		folio_mark_dirty(folio);
	folio_unlock(folio);
	folio_put(folio);
}

/*
 * After an atomic write of @bio's data at @off: the lower folios that
 * lower_forget() could not drop (a folio larger than a page, which a
 * write beside the range keeps dirty) take the new data, so that they
 * serve no old data, and are written back with it.
 */
static void lower_refresh(struct inode *inode, loff_t off, struct bio *bio)
{
	struct address_space *lm = awfs_lower_inode(inode)->i_mapping;
	struct folio_iter fi;
	size_t done, n;
	void *from;

	/* Folios of a page each: awfs's own, or direct_unit()'s bounce. */
	bio_for_each_folio_all(fi, bio) {
		from = kmap_local_folio(fi.folio, fi.offset);
		for (done = 0; done < fi.length; done += n, off += n) {
			n = min_t(size_t, fi.length - done,
				  PAGE_SIZE - offset_in_page(off));
			lower_refresh_one(lm, off, from + done, n);
		}
		kunmap_local(from);
	}
}

/* An O_DIRECT atomic write: straight to the device, waited for. */
static int direct_unit(struct inode *inode, loff_t off, struct awfs_bounce *b,
		       u32 len, u64 phys)
{
	struct bio *bio;
	u32 i;
	int ret;

	ret = filemap_write_and_wait_range(inode->i_mapping, off, off + len - 1);
	if (ret)
		return ret;
	awfs_drop_tags(inode, off, off + len);
	ret = lower_forget_before(inode, off, len);
	if (ret)
		return ret;
	bio = bio_alloc(isb(inode)->bdev, b->n, REQ_OP_WRITE | REQ_SYNC,
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
		awfs_note_written(isb(inode));
		awfs_drop_write(inode->i_sb);
	}
	if (lower_forget(inode, off, len, false) && !ret)
		lower_refresh(inode, off, bio);
	bio_put(bio);
	invalidate_inode_pages2_range(inode->i_mapping, off >> PAGE_SHIFT,
				      (off + len - 1) >> PAGE_SHIFT);
	return ret;
}

/* The limits of @file: the unit when buffered, the device's when @direct. */
static void file_limits(struct file *file, bool direct, struct aw_limits *l)
{
	struct inode *inode = file_inode(file);
	struct awfs_sb *s = isb(inode);
	u32 unit = AWFS_I(inode)->unit;

	memset(l, 0, sizeof(*l));
	l->engine = s->dev.engine;
	l->logical_block_size = s->dev.logical_block_size;
	l->size = i_size_read(inode);
	l->untorn = s->untorn ? unit : 0;
	if (!atomic_ok(inode))
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
	return atomic_ok(inode) ? AWFS_I(inode)->unit : 0;
}

/* What write(2) would refuse for [@off, @off + @len): append-only, limits. */
static int write_allowed(struct file *file, loff_t off, u64 len)
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

/* The checks of one atomic write: the upstream rules in order, then write(2)'s. */
static int atomic_check(struct file *file, bool direct, loff_t off, u64 len,
			unsigned long nsegs)
{
	struct inode *inode = file_inode(file);
	struct awblk_limits lim;
	struct aw_limits l;
	enum awblk_reject r;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	file_limits(file, direct, &l);
	lim.unit_min = l.unit_min;
	lim.unit_max = l.unit_max;
	lim.max_bytes = l.max_bytes;
	lim.boundary = 0;
	r = awblk_check_write(&lim, inode->i_sb->s_maxbytes, off, len, nsegs);
	if (r != AWB_OK)
		return awblk_reject_errno(r);
	return write_allowed(file, off, len);
}

/* Write a checked atomic unit from @b: into the cache, or @direct to the disk. */
static int atomic_do(struct file *file, bool direct, loff_t off, u32 len,
		     struct awfs_bounce *b)
{
	struct inode *inode = file_inode(file);
	u64 phys;
	int ret;

	inode_lock(inode);
	ret = file_remove_privs(file);
	if (!ret)
		ret = prepare(inode, off, len, &phys);
	if (!ret) {
		file_update_time(file);
		if (direct)
			ret = direct_unit(inode, off, b, len, phys);
		else
			ret = cache_unit(inode, off, b, phys);
		if (!ret && direct && off + len > i_size_read(inode))
			i_size_write(inode, off + len);
	}
	inode_unlock(inode);
	return ret;
}

static int ioctl_atomic_write(struct file *file, void __user *argp)
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
	ret = atomic_check(file, direct, w.offset, w.len, 1);
	if (ret)
		return ret;
	ret = bounce_alloc(&b, w.len);
	if (ret)
		return ret;
	ret = bounce_from_user(&b, u64_to_user_ptr(w.buf), w.len);
	/* write(2) has this from the VFS (file_start_write); an ioctl not. */
	if (!ret)
		ret = mnt_want_write_file(file);
	if (!ret) {
		ret = atomic_do(file, direct, w.offset, w.len, &b);
		mnt_drop_write_file(file);
	}
	if (!ret && w.flags)
		ret = vfs_fsync_range(file, w.offset, w.offset + w.len - 1, 1);
	bounce_free(&b);
	return ret;
}

/* pwritev2(RWF_ATOMIC), where the kernel has it: the ioctl's rules. */
static ssize_t atomic_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	bool direct = iocb->ki_flags & IOCB_DIRECT;
	size_t len = iov_iter_count(from);
	struct awfs_bounce b = {};
	int ret;

	if (iocb->ki_flags & IOCB_APPEND)
		return -EINVAL;		/* an atomic write goes where it is told */
	ret = atomic_check(file, direct, iocb->ki_pos, len, from->nr_segs);
	if (ret)
		return ret;
	ret = bounce_alloc(&b, len);
	if (!ret)
		ret = bounce_from_iter(&b, from, len);
	if (!ret)
		ret = atomic_do(file, direct, iocb->ki_pos, len, &b);
	bounce_free(&b);
	if (ret)
		return ret;
	iocb->ki_pos += len;
	return generic_write_sync(iocb, len);
}

/* ---- write(2) ---- */

/* One whole aligned unit of a write() under untorn: atomic. */
static ssize_t untorn_unit(struct kiocb *iocb, struct iov_iter *from,
			   struct awfs_bounce *b)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	u32 unit = AWFS_I(inode)->unit;
	u64 phys;
	int ret;

	if (!b->pages) {
		ret = bounce_alloc(b, unit);
		if (ret)
			return ret;
	}
	ret = prepare(inode, iocb->ki_pos, unit, &phys);
	if (ret == -EOPNOTSUPP)		/* said why in the log */
		return plain_write(iocb, from, unit);
	if (ret)
		return ret;
	ret = bounce_from_iter(b, from, unit);
	if (ret)
		return ret;
	ret = cache_unit(inode, iocb->ki_pos, b, phys);
	if (ret) {
		iov_iter_revert(from, unit);
		return ret;
	}
	iocb->ki_pos += unit;
	balance_dirty_pages_ratelimited(inode->i_mapping);
	return unit;
}

static ssize_t buffered_write(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	bool untorn = isb(inode)->untorn && atomic_ok(inode);
	struct awfs_bounce b = {};
	ssize_t done = 0, n = 0;
	bool whole;
	u64 piece;

	while (iov_iter_count(from)) {
		piece = awfs_next_piece(iocb->ki_pos, iov_iter_count(from),
					untorn ? AWFS_I(inode)->unit : 0, &whole);
		if (whole)
			n = untorn_unit(iocb, from, &b);
		else
			n = plain_write(iocb, from, piece);
		if (n <= 0)
			break;
		done += n;
		if (n < piece)
			break;
	}
	bounce_free(&b);
	return done ? done : n;
}

static ssize_t lower_direct(struct kiocb *iocb, struct iov_iter *iter,
			    bool write)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct file *lf = AWFS_I(inode)->lfile;
	loff_t pos = iocb->ki_pos, end = pos + iov_iter_count(iter);
	struct kiocb k;
	ssize_t ret;

	if (!iov_iter_count(iter))
		return 0;
	ret = filemap_write_and_wait_range(inode->i_mapping, pos, end - 1);
	if (ret)
		return ret;
	init_sync_kiocb(&k, lf);
	k.ki_pos = pos;
	k.ki_flags |= IOCB_DIRECT | (iocb->ki_flags & (IOCB_DSYNC | IOCB_SYNC));
	if (!write)
		return vfs_iocb_iter_read(lf, &k, iter);
	ret = invalidate_inode_pages2_range(inode->i_mapping, pos >> PAGE_SHIFT,
					    (end - 1) >> PAGE_SHIFT);
	if (ret)
		return ret;
	/*
	 * A lower file system that cannot drop its cached pages of the range
	 * writes through its page cache instead (XFS, ext4), in folios as
	 * large as the write on 6.12, which could hold a unit and its
	 * neighbour: drop them first (a folio still busy is written anyway).
	 */
	ret = lower_forget(inode, pos, end - pos, true);
	if (ret && ret != -EBUSY)
		return ret;
	awfs_drop_tags(inode, pos, end);
	ret = aw_iocb_iter_write(lf, &k, iter);
	if (ret > 0) {
		iocb->ki_pos = k.ki_pos;
		if (k.ki_pos > i_size_read(inode))
			i_size_write(inode, k.ki_pos);
	}
	invalidate_inode_pages2_range(inode->i_mapping, pos >> PAGE_SHIFT,
				      (end - 1) >> PAGE_SHIFT);
	return ret;
}

static ssize_t awfs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	ssize_t ret;

	if (!(iocb->ki_flags & IOCB_DIRECT))
		return generic_file_read_iter(iocb, to);
	ret = lower_direct(iocb, to, false);
	if (ret > 0)
		iocb->ki_pos += ret;
	return ret;
}

static ssize_t awfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	ssize_t ret;

	if (iocb->ki_flags & AW_IOCB_ATOMIC)
		return atomic_iter(iocb, from);
	inode_lock(inode);
	ret = generic_write_checks(iocb, from);
	if (ret <= 0)
		goto out;
	ret = file_remove_privs(file);
	if (ret)
		goto out;
	ret = file_update_time(file);
	if (ret)
		goto out;
	if (iocb->ki_flags & IOCB_DIRECT)
		ret = lower_direct(iocb, from, true);
	else
		ret = buffered_write(iocb, from);
out:
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

/* ---- writeback ---- */

struct awfs_wb {
	struct work_struct work;
	struct bio *bio;
	struct inode *inode;	/* pinned by its folios under writeback */
	loff_t off;
};

static struct super_block *lower_sb(struct inode *inode)
{
	return isb(inode)->lower.mnt->mnt_sb;
}

static void wb_done(struct work_struct *work)
{
	struct awfs_wb *wb = container_of(work, struct awfs_wb, work);
	int err = blk_status_to_errno(wb->bio->bi_status);
	struct folio_iter fi;

	/* Before the folios' writeback ends: an fsync waits for that. */
	awfs_note_written(isb(wb->inode));
	/* Taken in write_tagged(): the lower may freeze once this is done. */
	__sb_writers_acquired(lower_sb(wb->inode), SB_FREEZE_WRITE);
	sb_end_write(lower_sb(wb->inode));
	/* Before the folios may go: old data readahead put in the lower cache. */
	if (lower_forget(wb->inode, wb->off, AWFS_I(wb->inode)->unit, false) &&
	    !err)
		lower_refresh(wb->inode, wb->off, wb->bio);
	/* The last folio_end_writeback() may let the inode be evicted. */
	if (err)
		pr_err_ratelimited("awfs: inode %lu: atomic write of %lld failed: %d\n",
				   wb->inode->i_ino, wb->off, err);
	bio_for_each_folio_all(fi, wb->bio) {
		if (err)
			mapping_set_error(fi.folio->mapping, err);
		folio_end_writeback(fi.folio);
	}
	bio_put(wb->bio);
	kfree(wb);
}

static void wb_endio(struct bio *bio)
{
	struct awfs_wb *wb = bio->bi_private;

	queue_work(awfs_wq, &wb->work);
}

static void send_unit(struct inode *inode, struct folio **f, u32 n, u64 phys,
		      struct writeback_control *wbc, struct awfs_wb *wb)
{
	struct bio *bio;
	u32 i;

	bio = bio_alloc(isb(inode)->bdev, n, REQ_OP_WRITE | wbc_to_write_flags(wbc),
			GFP_NOIO);
	bio->bi_iter.bi_sector = phys << (awfs_lower_inode(inode)->i_blkbits - 9);
	for (i = 0; i < n; i++)
		__bio_add_page(bio, &f[i]->page, PAGE_SIZE, 0);
	INIT_WORK(&wb->work, wb_done);
	wb->bio = bio;
	wb->inode = inode;
	wb->off = folio_pos(f[0]);
	bio->bi_private = wb;
	bio->bi_end_io = wb_endio;
	awblk_submit_atomic(bio);
}

/* Lock the folios of unit @u that are cached; false if one is missing. */
static bool lock_unit(struct inode *inode, unsigned long u, struct folio **f,
		      u32 n)
{
	pgoff_t first = ((loff_t)u * AWFS_I(inode)->unit) >> PAGE_SHIFT;
	u32 i;

	for (i = 0; i < n; i++) {
		f[i] = aw_get_folio(inode->i_mapping, first + i, FGP_LOCK, 0);
		if (!f[i]) {
			unlock_folios(f, i);
			return false;
		}
	}
	return true;
}

/*
 * Write tagged unit @u as one atomic write, if it is dirty: 1 when sent
 * (wb_done() finishes it), 0 when there was nothing to send, or an error.
 */
static int write_tagged_unit(struct inode *inode, unsigned long u,
			     struct folio **f, struct writeback_control *wbc)
{
	struct awfs_inode *ai = AWFS_I(inode);
	u32 n = ai->unit >> PAGE_SHIFT, i, dirty = 0;
	struct awfs_wb *wb;
	void *tag;
	int ret;

	wb = kmalloc(sizeof(*wb), GFP_NOIO);
	if (!wb)
		return -ENOMEM;
	if (!lock_unit(inode, u, f, n)) {
		/* Evicted, so clean: nothing of it is left to write. */
		xa_erase(&ai->tags, u);
		kfree(wb);
		return 0;
	}
	tag = xa_load(&ai->tags, u);
	for (i = 0; i < n; i++)
		dirty += folio_test_dirty(f[i]);
	if (!tag || !dirty) {
		if (tag)
			xa_erase(&ai->tags, u);
		goto skip;
	}
	for (i = 0; i < n; i++) {
		if (!folio_test_writeback(f[i]))
			continue;
		if (wbc->sync_mode == WB_SYNC_NONE)
			goto skip;
		folio_wait_writeback(f[i]);
	}
	ret = lower_forget_before(inode, (loff_t)u * ai->unit, ai->unit);
	if (ret) {
		unlock_folios(f, n);
		kfree(wb);
		return ret;
	}
	for (i = 0; i < n; i++) {
		folio_clear_dirty_for_io(f[i]);
		folio_start_writeback(f[i]);
	}
	xa_erase(&ai->tags, u);
	for (i = 0; i < n; i++)
		folio_unlock(f[i]);
	send_unit(inode, f, n, xa_to_value(tag), wbc, wb);
	for (i = 0; i < n; i++)
		folio_put(f[i]);
	wbc->nr_to_write -= n;
	return 1;
skip:
	unlock_folios(f, n);
	kfree(wb);
	return 0;
}

static int write_tagged(struct inode *inode, struct writeback_control *wbc)
{
	struct awfs_inode *ai = AWFS_I(inode);
	unsigned long u, first = 0, last = ULONG_MAX;
	struct folio **f;
	int ret, err = 0;
	void *e;

	if (!ai->unit || xa_empty(&ai->tags))
		return 0;
	if (!wbc->range_cyclic) {
		first = wbc->range_start / ai->unit;
		if (wbc->range_end != LLONG_MAX)
			last = wbc->range_end / ai->unit;
	}
	f = kmalloc_array(ai->unit >> PAGE_SHIFT, sizeof(*f), GFP_NOIO);
	if (!f)
		return -ENOMEM;
	xa_for_each_range(&ai->tags, u, e, first, last) {
		/*
		 * The unit goes to blocks of the lower file system: not while
		 * it is frozen. Background writeback leaves it for later;
		 * a sync waits for the thaw. wb_done() ends the protection.
		 */
		if (wbc->sync_mode == WB_SYNC_NONE) {
			if (!sb_start_write_trylock(lower_sb(inode)))
				break;
		} else {
			sb_start_write(lower_sb(inode));
		}
		ret = write_tagged_unit(inode, u, f, wbc);
		if (ret == 1)	/* handed to wb_done() (as AIO does) */
			__sb_writers_release(lower_sb(inode), SB_FREEZE_WRITE);
		else
			sb_end_write(lower_sb(inode));
		/* It stays dirty and tagged, for the next writeback. */
		if (ret < 0 && !err && wbc->sync_mode != WB_SYNC_NONE) {
			err = ret;
			/* For syncfs too, which writeback's result skips. */
			mapping_set_error(inode->i_mapping, err);
		}
	}
	kfree(f);
	return err;
}

/* A plain folio: through the lower file (tagged units are not ours here). */
static int write_plain(aw_wp_arg_t *arg, struct writeback_control *wbc,
		       void *data)
{
	struct folio *folio = aw_wp_folio(arg);
	struct inode *inode = folio->mapping->host;
	struct awfs_inode *ai = AWFS_I(inode);
	loff_t pos = folio_pos(folio), size = i_size_read(inode);
	void *kaddr;
	ssize_t n;
	size_t len;

	if (pos >= size) {		/* truncated meanwhile */
		folio_unlock(folio);
		return 0;
	}
	if (ai->unit && xa_load(&ai->tags, pos / ai->unit)) {
		folio_redirty_for_writepage(wbc, folio);
		folio_unlock(folio);
		return 0;
	}
	len = min_t(loff_t, PAGE_SIZE, size - pos);
	folio_start_writeback(folio);
	folio_unlock(folio);
	/* Forcealign: a file grows by whole units, allocated at once. */
	if (ai->unit && pos >= i_size_read(ai->lower))
		vfs_fallocate(ai->lfile, FALLOC_FL_KEEP_SIZE,
			      round_down(pos, ai->unit), ai->unit);
	kaddr = kmap_local_folio(folio, 0);
	n = kernel_write(ai->lfile, kaddr, len, &pos);
	kunmap_local(kaddr);
	if (n != len)
		mapping_set_error(folio->mapping, n < 0 ? n : -EIO);
	folio_end_writeback(folio);
	return 0;
}

static int awfs_writepages(struct address_space *mapping,
			   struct writeback_control *wbc)
{
	struct inode *inode = mapping->host;
	struct blk_plug plug;
	int ret, ret2;

	if (!AWFS_I(inode)->lfile || !(AWFS_I(inode)->lfile->f_mode & FMODE_WRITE))
		return -EIO;
	blk_start_plug(&plug);
	ret = write_tagged(inode, wbc);
	ret2 = write_cache_pages(mapping, wbc, write_plain, NULL);
	ret = ret ?: ret2;
	/* Units tagged while the plain pass ran (it skipped their folios). */
	ret2 = write_tagged(inode, wbc);
	blk_finish_plug(&plug);
	return ret ?: ret2;
}

const struct address_space_operations awfs_aops = {
	.read_folio		= awfs_read_folio,
	.writepages		= awfs_writepages,
	.dirty_folio		= filemap_dirty_folio,
	.direct_IO		= noop_direct_IO,
	.migrate_folio		= filemap_migrate_folio,
};

int awfs_wb_init(void)
{
	awfs_wq = alloc_workqueue("awfs-wb", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return awfs_wq ? 0 : -ENOMEM;
}

void awfs_wb_exit(void)
{
	destroy_workqueue(awfs_wq);
}

/* ---- mmap ---- */

static vm_fault_t awfs_page_mkwrite(struct vm_fault *vmf)
{
	struct file *file = vmf->vma->vm_file;
	struct inode *inode = file_inode(file);
	struct folio *folio = page_folio(vmf->page);
	vm_fault_t ret = VM_FAULT_LOCKED;

	sb_start_pagefault(inode->i_sb);
	file_update_time(file);
	folio_lock(folio);
	if (folio->mapping != inode->i_mapping ||
	    folio_pos(folio) >= i_size_read(inode)) {
		folio_unlock(folio);
		ret = VM_FAULT_NOPAGE;
		goto out;
	}
	/* A store through a mapping is a plain write of part of a unit. */
	awfs_drop_tags(inode, folio_pos(folio), folio_pos(folio) + PAGE_SIZE);
	folio_mark_dirty(folio);
	folio_wait_stable(folio);
out:
	sb_end_pagefault(inode->i_sb);
	return ret;
}

static const struct vm_operations_struct awfs_vm_ops = {
	.fault		= filemap_fault,
	.map_pages	= filemap_map_pages,
	.page_mkwrite	= awfs_page_mkwrite,
};

static int awfs_mmap(struct file *file, struct vm_area_struct *vma)
{
	file_accessed(file);
	vma->vm_ops = &awfs_vm_ops;
	return 0;
}

/* ---- fsync, fallocate, truncate ---- */

static int awfs_fsync(struct file *file, loff_t start, loff_t end,
		      int datasync)
{
	struct inode *inode = file_inode(file);
	struct awfs_sb *s = isb(inode);
	int ret, err;

	ret = file_write_and_wait_range(file, start, end);
	if (ret)
		return ret;
	ret = lower_fsync(inode, start, end, datasync);
	/* The lower write-back errors, now on our mapping, as ours. */
	err = file_check_and_advance_wb_err(file);
	/* Our atomic writes went around the lower file system. */
	return err ?: ret ?: awfs_flush_written(s);
}

static long awfs_fallocate(struct file *file, int mode, loff_t off,
			   loff_t len)
{
	struct inode *inode = file_inode(file);
	struct awfs_inode *ai = AWFS_I(inode);
	loff_t lsize;
	int ret;

	inode_lock(inode);
	if (mode & ~FALLOC_FL_KEEP_SIZE) {
		/* Data moves or goes: write ours first, then forget it. */
		ret = filemap_write_and_wait(inode->i_mapping);
		if (ret)
			goto out;
		awfs_drop_tags(inode, off, LLONG_MAX);
	} else if (ai->unit) {
		/* Forcealign: whole units. */
		vfs_fallocate(ai->lfile, FALLOC_FL_KEEP_SIZE,
			      round_down(off, ai->unit),
			      round_up(off + len, ai->unit) -
			      round_down(off, ai->unit));
	}
	ret = vfs_fallocate(ai->lfile, mode, off, len);
	lsize = i_size_read(ai->lower);
	if (mode & ~FALLOC_FL_KEEP_SIZE) {
		/* Clean now: drop (not zero) our copy, read the lower's again. */
		invalidate_inode_pages2_range(inode->i_mapping, off >> PAGE_SHIFT,
					      ULONG_MAX);
		if (!ret)
			i_size_write(inode, lsize);
	} else if (!ret && lsize > i_size_read(inode)) {
		i_size_write(inode, lsize);
	}
	awfs_copy_attr(inode);
out:
	inode_unlock(inode);
	return ret;
}

/* setattr(ATTR_SIZE), with the inode locked. */
int awfs_truncate(struct inode *inode, loff_t size)
{
	struct awfs_inode *ai = AWFS_I(inode);
	struct dentry *ld = ai->lfile ? ai->lfile->f_path.dentry : NULL;
	struct iattr la = { .ia_valid = ATTR_SIZE, .ia_size = size };
	loff_t old = i_size_read(inode);
	int ret;

	if (!ld)
		return -EIO;
	/* What will be cut goes down first, so the lower file never grows back. */
	if (size < old) {
		ret = filemap_write_and_wait_range(inode->i_mapping, size,
						   LLONG_MAX);
		if (ret)
			return ret;
	}
	ret = awfs_want_write(inode->i_sb);
	if (ret)
		return ret;
	inode_lock(d_inode(ld));
	ret = notify_change(aw_mnt_idmap(ai->lfile->f_path.mnt), ld, &la, NULL);
	inode_unlock(d_inode(ld));
	awfs_drop_write(inode->i_sb);
	if (ret)
		return ret;
	if (size < old && ai->unit)
		awfs_drop_tags(inode, round_down(size, ai->unit), LLONG_MAX);
	truncate_setsize(inode, size);
	return 0;
}

/* ---- the per-file unit ioctls ---- */

static int ioctl_get_align(struct inode *inode, void __user *argp)
{
	struct awfs_align a = {};

	a.unit = AWFS_I(inode)->unit;
	a.flags = a.unit ? AWFS_ALIGN_FORCE : 0;
	a.status = atomic_ok(inode) ? AWFS_STATUS_CAPABLE : 0;
	return copy_to_user(argp, &a, sizeof(a)) ? -EFAULT : 0;
}

static int store_align(struct file *file, u32 flags, u32 unit)
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
	old = override_creds(isb(inode)->cred);
	ret = vfs_setxattr(aw_mnt_idmap(AWFS_I(inode)->lfile->f_path.mnt), ld,
			   AWFS_XATTR, &d, sizeof(d), 0);
	revert_creds(old);
	awfs_drop_write(inode->i_sb);
	return ret;
}

static int ioctl_set_align(struct file *file, void __user *argp)
{
	struct inode *inode = file_inode(file);
	struct awfs_inode *ai = AWFS_I(inode);
	struct awfs_sb *s = isb(inode);
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
	ret = store_align(file, a.flags, a.unit);
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

static long awfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;
	struct aw_limits l;

	switch (cmd) {
	case AW_IOC_GET_LIMITS:
		file_limits(file, file->f_flags & O_DIRECT, &l);
		return copy_to_user(argp, &l, sizeof(l)) ? -EFAULT : 0;
	case AW_IOC_ATOMIC_WRITE:
		return ioctl_atomic_write(file, argp);
	case AWFS_IOC_GET_ALIGN:
		return ioctl_get_align(file_inode(file), argp);
	case AWFS_IOC_SET_ALIGN:
		return ioctl_set_align(file, argp);
	}
	return -ENOTTY;
}

/* ---- regular files ---- */

static int awfs_open(struct inode *inode, struct file *file)
{
	int ret = open_lfile(inode, file->f_path.dentry);

	if (ret)
		return ret;
	if ((file->f_mode & FMODE_WRITE) &&
	    !(AWFS_I(inode)->lfile->f_mode & FMODE_WRITE))
		return -EROFS;
	/* RWF_ATOMIC reaches awfs where the kernel has it; awfs says yes or no. */
	file->f_mode |= FMODE_CAN_ODIRECT | AW_FMODE_CAN_ATOMIC_WRITE;
	return 0;
}

const struct file_operations awfs_file_fops = {
	.open		= awfs_open,
	.llseek		= generic_file_llseek,
	.read_iter	= awfs_read_iter,
	.write_iter	= awfs_write_iter,
	.mmap		= awfs_mmap,
	.fsync		= awfs_fsync,
	.fallocate	= awfs_fallocate,
	.unlocked_ioctl	= awfs_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,	/* the same layouts */
	.splice_read	= aw_splice_read,
	.splice_write	= iter_file_splice_write,
};
