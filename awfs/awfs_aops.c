// SPDX-License-Identifier: GPL-2.0
/*
 * awfs page cache: reading folios from the lower file, and writeback.
 *
 * Writeback sends a tagged unit (awfs_atomic.c) to the awblk device at its
 * physical place as one atomic write, built from the folios themselves;
 * the rest goes through the lower file.
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
#include <linux/bio.h>
#include <linux/falloc.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/sched/signal.h>
#include "awfs.h"
#include "awblk.h"

static struct workqueue_struct *awfs_wq;

/* ---- reading: folios from the lower file ---- */

static bool awfs_lower_cached(struct address_space *lm, pgoff_t index)
{
	struct folio *folio = aw_get_folio(lm, index, 0, 0);

	if (folio)
		folio_put(folio);
	return folio != NULL;
}

/*
 * Read ahead in the lower page cache the pages [@index, @index + @nr),
 * widened to whole units: our readahead window, which the kernel sizes
 * for our file as it does for any file (from the reads' pattern and the
 * pages around them), so awfs reads from the disk what the lower file's
 * own readers would. One page per folio, on purpose. A larger folio (XFS's
 * own readahead makes them) could hold a unit and part of its neighbour:
 * a plain write of the neighbour keeps it dirty, so it could not be
 * dropped around the unit's atomic write. It would keep the unit's old
 * data, to be read later (and, where the lower file system has no
 * per-block dirty state, as on 6.1, written back over the unit).
 */
static void awfs_lower_readahead(struct file *lf, pgoff_t index,
				 unsigned long nr, u32 unit)
{
	struct address_space *lm = lf->f_mapping;
	unsigned long upu = max_t(u32, unit >> PAGE_SHIFT, 1);
	loff_t size = i_size_read(lm->host);
	pgoff_t first = round_down(index, upu), last;
	DEFINE_READAHEAD(ractl, lf, &lf->f_ra, lm, first);

	if (!size)
		return;
	last = (size - 1) >> PAGE_SHIFT;
	if (first > last)
		return;
	nr = round_up(index + nr, upu) - first;
	nr = min_t(unsigned long, nr, last - first + 1);
	nr = min_t(unsigned long, nr, AWFS_RA_MAX_PAGES);
	page_cache_ra_unbounded(&ractl, nr, 0);
}

/* A lower page cache to read from (not DAX, which has none). */
static bool awfs_lower_paged(struct file *lf)
{
	return lf->f_mapping->a_ops->read_folio && !IS_DAX(file_inode(lf));
}

/*
 * One page of the lower file from its page cache, as its own page faults
 * read it: under the lower invalidate lock, never the lower i_rwsem. We
 * hold an awfs folio lock here, perhaps inside a direct write to the same
 * lower file that holds i_rwsem (XFS) and faulted on a mapping of ours.
 */
static ssize_t awfs_lower_page(struct file *lf, loff_t pos, void *to, u32 unit)
{
	struct address_space *lm = lf->f_mapping;
	pgoff_t index = pos >> PAGE_SHIFT;
	struct folio *folio;
	loff_t size;
	void *from;
	size_t n;

	if (!awfs_lower_cached(lm, index))
		awfs_lower_readahead(lf, index, 1, unit);
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

int awfs_fill_folio(struct inode *inode, struct folio *folio)
{
	struct file *lf = AWFS_I(inode)->lfile;
	loff_t pos = folio_pos(folio);
	void *kaddr;
	ssize_t n;

	if (!lf)
		return -EIO;
	kaddr = kmap_local_folio(folio, 0);
	if (awfs_lower_paged(lf))
		n = awfs_lower_page(lf, pos, kaddr, AWFS_I(inode)->unit);
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
	int ret = awfs_fill_folio(folio->mapping->host, folio);

	if (!ret)
		folio_mark_uptodate(folio);
	folio_unlock(folio);
	return ret;
}

/*
 * Our readahead window: read ahead in the lower page cache all at once,
 * then each of our folios filled from it. Unlike a block file system's,
 * this waits for the reads (the copy needs them), with the window's
 * folios locked. After a folio fails to fill (a read error below) or a
 * fatal signal, the rest are left not uptodate, not read page by page
 * again: a read of one goes to awfs_read_folio().
 */
static void awfs_readahead(struct readahead_control *ractl)
{
	struct inode *inode = ractl->mapping->host;
	struct file *lf = AWFS_I(inode)->lfile;
	struct folio *folio;
	bool fill = true;

	if (lf && awfs_lower_paged(lf))
		awfs_lower_readahead(lf, readahead_index(ractl),
				     readahead_count(ractl),
				     AWFS_I(inode)->unit);
	while ((folio = readahead_folio(ractl))) {
		fill = fill && !fatal_signal_pending(current) &&
		       !awfs_fill_folio(inode, folio);
		if (fill)
			folio_mark_uptodate(folio);
		folio_unlock(folio);
	}
}

struct folio *awfs_write_folio(struct address_space *mapping, pgoff_t index)
{
	return aw_get_folio(mapping, index,
			    FGP_LOCK | FGP_WRITE | FGP_CREAT | FGP_STABLE,
			    mapping_gfp_mask(mapping));
}

void awfs_unlock_folios(struct folio **f, u32 n)
{
	while (n--) {
		folio_unlock(f[n]);
		folio_put(f[n]);
	}
}

/*
 * Drop the lower file's cached pages of a range we write around it. A
 * dirty page cannot be dropped. Before an atomic write (@flush) they are
 * written back first, and again if a plain write beside the range dirtied
 * a folio that holds part of it meanwhile. -EBUSY when one stays.
 */
int awfs_lower_forget(struct inode *inode, loff_t off, loff_t len,
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
int awfs_lower_forget_before(struct inode *inode, loff_t off, loff_t len)
{
	int ret = awfs_lower_forget(inode, off, len, true);

	if (ret != -EBUSY)
		return ret;
	pr_warn_ratelimited("awfs: inode %lu: the lower file's cache of bytes %lld-%lld stays dirty (written below awfs?)\n",
			    inode->i_ino, off, off + len - 1);
	return -EIO;
}

/* Copy @len bytes from @from to the lower folio cached at @pos, if any. */
static void awfs_lower_refresh_one(struct address_space *lm, loff_t pos,
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
 * awfs_lower_forget() could not drop (a folio larger than a page, which a
 * write beside the range keeps dirty) take the new data, so that they
 * serve no old data, and are written back with it.
 */
void awfs_lower_refresh(struct inode *inode, loff_t off, struct bio *bio)
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
			awfs_lower_refresh_one(lm, off, from + done, n);
		}
		kunmap_local(from);
	}
}

/* ---- writeback ---- */

struct awfs_wb {
	struct work_struct work;
	struct bio *bio;
	struct inode *inode;	/* pinned by its folios under writeback */
	loff_t off;
};

static struct super_block *awfs_lower_sb(struct inode *inode)
{
	return awfs_isb(inode)->lower.mnt->mnt_sb;
}

static void awfs_wb_done(struct work_struct *work)
{
	struct awfs_wb *wb = container_of(work, struct awfs_wb, work);
	int err = blk_status_to_errno(wb->bio->bi_status);
	struct folio_iter fi;

	/* Before the folios' writeback ends: an fsync waits for that. */
	awfs_note_written(awfs_isb(wb->inode));
	/* Taken in awfs_write_tagged(): the lower may freeze once this is done. */
	__sb_writers_acquired(awfs_lower_sb(wb->inode), SB_FREEZE_WRITE);
	sb_end_write(awfs_lower_sb(wb->inode));
	/* Before the folios may go: old data readahead put in the lower cache. */
	if (awfs_lower_forget(wb->inode, wb->off, AWFS_I(wb->inode)->unit, false) &&
	    !err)
		awfs_lower_refresh(wb->inode, wb->off, wb->bio);
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

static void awfs_wb_endio(struct bio *bio)
{
	struct awfs_wb *wb = bio->bi_private;

	queue_work(awfs_wq, &wb->work);
}

static void awfs_send_unit(struct inode *inode, struct folio **f, u32 n,
			   u64 phys, struct writeback_control *wbc,
			   struct awfs_wb *wb)
{
	struct bio *bio;
	u32 i;

	bio = bio_alloc(awfs_isb(inode)->bdev, n,
			REQ_OP_WRITE | wbc_to_write_flags(wbc), GFP_NOIO);
	bio->bi_iter.bi_sector = phys << (awfs_lower_inode(inode)->i_blkbits - 9);
	for (i = 0; i < n; i++)
		__bio_add_page(bio, &f[i]->page, PAGE_SIZE, 0);
	INIT_WORK(&wb->work, awfs_wb_done);
	wb->bio = bio;
	wb->inode = inode;
	wb->off = folio_pos(f[0]);
	bio->bi_private = wb;
	bio->bi_end_io = awfs_wb_endio;
	awblk_submit_atomic(bio);
}

/* Lock the folios of unit @u that are cached; false if one is missing. */
static bool awfs_lock_unit(struct inode *inode, unsigned long u,
			   struct folio **f, u32 n)
{
	pgoff_t first = ((loff_t)u * AWFS_I(inode)->unit) >> PAGE_SHIFT;
	u32 i;

	for (i = 0; i < n; i++) {
		f[i] = aw_get_folio(inode->i_mapping, first + i, FGP_LOCK, 0);
		if (!f[i]) {
			awfs_unlock_folios(f, i);
			return false;
		}
	}
	return true;
}

/*
 * Write tagged unit @u as one atomic write, if it is dirty: 1 when sent
 * (awfs_wb_done() finishes it), 0 when there was nothing to send, or an error.
 */
static int awfs_write_tagged_unit(struct inode *inode, unsigned long u,
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
	if (!awfs_lock_unit(inode, u, f, n)) {
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
	ret = awfs_lower_forget_before(inode, (loff_t)u * ai->unit, ai->unit);
	if (ret) {
		awfs_unlock_folios(f, n);
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
	awfs_send_unit(inode, f, n, xa_to_value(tag), wbc, wb);
	for (i = 0; i < n; i++)
		folio_put(f[i]);
	wbc->nr_to_write -= n;
	return 1;
skip:
	awfs_unlock_folios(f, n);
	kfree(wb);
	return 0;
}

static int awfs_write_tagged(struct inode *inode, struct writeback_control *wbc)
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
		 * a sync waits for the thaw. awfs_wb_done() ends the protection.
		 */
		if (wbc->sync_mode == WB_SYNC_NONE) {
			if (!sb_start_write_trylock(awfs_lower_sb(inode)))
				break;
		} else {
			sb_start_write(awfs_lower_sb(inode));
		}
		ret = awfs_write_tagged_unit(inode, u, f, wbc);
		if (ret == 1)	/* handed to awfs_wb_done() (as AIO does) */
			__sb_writers_release(awfs_lower_sb(inode), SB_FREEZE_WRITE);
		else
			sb_end_write(awfs_lower_sb(inode));
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
static int awfs_write_plain(aw_wp_arg_t *arg, struct writeback_control *wbc,
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
	ret = awfs_write_tagged(inode, wbc);
	ret2 = write_cache_pages(mapping, wbc, awfs_write_plain, NULL);
	ret = ret ?: ret2;
	/* Units tagged while the plain pass ran (it skipped their folios). */
	ret2 = awfs_write_tagged(inode, wbc);
	blk_finish_plug(&plug);
	return ret ?: ret2;
}

const struct address_space_operations awfs_aops = {
	.read_folio		= awfs_read_folio,
	.readahead		= awfs_readahead,
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
