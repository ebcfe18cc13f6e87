// SPDX-License-Identifier: GPL-2.0
/*
 * awfs regular files: open, read, write, mmap, fsync, fallocate, truncate
 * and the ioctls, over awfs's own page cache (awfs_aops.c).
 *
 * Each awfs inode has one lower file behind its page cache. Reads fill
 * folios from it; a plain write dirties folios, which writeback writes
 * through it. Under "untorn", a whole aligned unit of a write() is an
 * atomic unit instead (awfs_atomic.c). O_DIRECT goes to the lower file.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/uio.h>
#include <linux/falloc.h>
#include <linux/mount.h>
#include <linux/sched/signal.h>
#include <linux/file.h>
#include "awfs.h"
#include "awfs_logic.h"
#include "awblk.h"

/* ---- the lower file behind the page cache ---- */

static int awfs_open_lfile(struct inode *inode, struct dentry *dentry)
{
	struct awfs_inode *ai = AWFS_I(inode);
	struct path *lp = awfs_lower_path(dentry);
	struct file *f;
	int ret = 0;

	mutex_lock(&ai->lfile_lock);
	if (ai->lfile)
		goto out;
	f = dentry_open(lp, O_RDWR | O_LARGEFILE, awfs_isb(inode)->cred);
	if (IS_ERR(f))	/* a read-only lower: reads only */
		f = dentry_open(lp, O_RDONLY | O_LARGEFILE, awfs_isb(inode)->cred);
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

/*
 * Bring the lower file's write-back errors to our mapping, where each of
 * our file descriptions sees each error once, as on any file system. All
 * of ours share one lower file description, whose own cursor the first
 * fsync (or a lower O_DSYNC write) would consume: we keep our own. Not on
 * our super block: awfs_sync_fs() brings the lower one's there.
 */
static void awfs_lower_errors(struct inode *inode)
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

int awfs_lower_fsync(struct inode *inode, loff_t start, loff_t end,
		     int datasync)
{
	int ret = vfs_fsync_range(AWFS_I(inode)->lfile, start, end, datasync);

	awfs_lower_errors(inode);
	return ret;
}

/* ---- plain buffered writes ---- */

/* One folio's part of a plain write: 0 on a fault, to retry. */
static ssize_t awfs_write_one(struct inode *inode, loff_t pos, size_t bytes,
			      struct iov_iter *from)
{
	struct address_space *mapping = inode->i_mapping;
	size_t off = offset_in_page(pos), copied;
	struct folio *folio;
	int ret;

	folio = awfs_write_folio(mapping, pos >> PAGE_SHIFT);
	if (!folio)
		return -ENOMEM;
	if (!folio_test_uptodate(folio) && bytes != PAGE_SIZE) {
		ret = awfs_fill_folio(inode, folio);
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

ssize_t awfs_plain_write(struct kiocb *iocb, struct iov_iter *from,
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
		n = awfs_write_one(inode, iocb->ki_pos, bytes, from);
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

/* ---- write(2) ---- */

static ssize_t awfs_buffered_write(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	bool untorn = awfs_isb(inode)->untorn && awfs_atomic_ok(inode);
	struct awfs_bounce b = {};
	ssize_t done = 0, n = 0;
	bool whole;
	u64 piece;

	while (iov_iter_count(from)) {
		piece = awfs_next_piece(iocb->ki_pos, iov_iter_count(from),
					untorn ? AWFS_I(inode)->unit : 0, &whole);
		if (whole)
			n = awfs_untorn_unit(iocb, from, &b);
		else
			n = awfs_plain_write(iocb, from, piece);
		if (n <= 0)
			break;
		done += n;
		if (n < piece)
			break;
	}
	awfs_bounce_free(&b);
	return done ? done : n;
}

static ssize_t awfs_lower_direct(struct kiocb *iocb, struct iov_iter *iter,
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
	ret = awfs_lower_forget(inode, pos, end - pos, true);
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
	ret = awfs_lower_direct(iocb, to, false);
	if (ret > 0)
		iocb->ki_pos += ret;
	return ret;
}

static ssize_t awfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	ssize_t ret;

	if (iocb->ki_flags & IOCB_ATOMIC)
		return awfs_atomic_iter(iocb, from);
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
		ret = awfs_lower_direct(iocb, from, true);
	else
		ret = awfs_buffered_write(iocb, from);
out:
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
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
	struct awfs_sb *s = awfs_isb(inode);
	struct awfs_mark m;
	int ret, err;

	ret = file_write_and_wait_range(file, start, end);
	if (ret)
		return ret;
	awfs_flush_mark(s, &m);
	ret = awfs_lower_fsync(inode, start, end, datasync);
	/* The lower write-back errors, now on our mapping, as ours. */
	err = file_check_and_advance_wb_err(file);
	/* Our atomic writes went around the lower file system. */
	return err ?: ret ?: awfs_flush_written(s, &m);
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

static long awfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;
	struct aw_limits l;

	switch (cmd) {
	case AW_IOC_GET_LIMITS:
		awfs_file_limits(file, file->f_flags & O_DIRECT, &l);
		return copy_to_user(argp, &l, sizeof(l)) ? -EFAULT : 0;
	case AW_IOC_ATOMIC_WRITE:
		return awfs_ioctl_atomic_write(file, argp);
	case AWFS_IOC_GET_ALIGN:
		return awfs_ioctl_get_align(file_inode(file), argp);
	case AWFS_IOC_SET_ALIGN:
		return awfs_ioctl_set_align(file, argp);
	}
	return -ENOTTY;
}

/* ---- regular files ---- */

static int awfs_open(struct inode *inode, struct file *file)
{
	int ret = awfs_open_lfile(inode, file->f_path.dentry);

	if (ret)
		return ret;
	if ((file->f_mode & FMODE_WRITE) &&
	    !(AWFS_I(inode)->lfile->f_mode & FMODE_WRITE))
		return -EROFS;
	/* RWF_ATOMIC reaches awfs where the kernel has it; awfs says yes or no. */
	file->f_mode |= FMODE_CAN_ODIRECT | FMODE_CAN_ATOMIC_WRITE;
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
	.splice_read	= filemap_splice_read,
	.splice_write	= iter_file_splice_write,
};
