/* SPDX-License-Identifier: GPL-2.0 */
/*
 * awfs: a stacked file system over a directory of a file system that sits
 * on an awblk device. Names, attributes and metadata are the lower file
 * system's (overlay style); file data has awfs's own page cache, so awfs
 * decides how it reaches the disk: a unit written atomically (the ioctl,
 * or a whole aligned unit under "untorn") is tagged, and writeback sends
 * it to the awblk device at its physical place as one atomic write; the
 * rest goes through the lower file.
 */
#ifndef AWFS_H
#define AWFS_H

#include <linux/fs.h>
#include <linux/xarray.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include "compat.h"
#include "uapi/awfs.h"

/* The most awfs reads ahead at once: its window and the lower reads. */
#define AWFS_RA_MAX_PAGES	(SZ_2M >> PAGE_SHIFT)

struct awfs_sb {
	struct path lower;		/* the lower directory */
	struct block_device *bdev;	/* the awblk device under it */
	struct aw_limits dev;		/* its atomic limits */
	const struct cred *cred;	/* the mounter's: opens lower files */
	u32 unit;			/* the mount's unit, bytes */
	bool untorn;			/* whole aligned units of write() are atomic */
	/*
	 * Atomic writes go around the lower file system, so their cache flush
	 * is ours: @written counts those completed, @flushed how many of them
	 * the last cache flush covered.
	 */
	atomic64_t written, flushed;
	/* The lower super block's write-back errors we have passed on. */
	errseq_t lower_err;
	spinlock_t lower_err_lock;
};

struct awfs_inode {
	struct inode vfs;
	struct inode *lower;
	struct file *lfile;		/* the lower file behind the page cache */
	struct mutex lfile_lock;	/* opening lfile */
	u32 unit;			/* forcealign unit, bytes; 0: off */
	bool capable;			/* atomic writes possible */
	bool warned;			/* said once why not */
	bool align_init;		/* unit read from the lower file */
	struct xarray tags;		/* unit index -> physical block + 1 */
	/* Our cursor on the lower file's write-back errors. */
	errseq_t lower_err;
	spinlock_t lower_err_lock;
};

struct awfs_dentry {
	struct path lower;
};

static inline struct awfs_sb *AWFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct awfs_inode *AWFS_I(struct inode *inode)
{
	return container_of(inode, struct awfs_inode, vfs);
}

static inline struct awfs_sb *awfs_isb(struct inode *inode)
{
	return AWFS_SB(inode->i_sb);
}

static inline struct inode *awfs_lower_inode(struct inode *inode)
{
	return AWFS_I(inode)->lower;
}

static inline struct path *awfs_lower_path(struct dentry *dentry)
{
	return &((struct awfs_dentry *)dentry->d_fsdata)->lower;
}

/*
 * Changing the lower file system takes write access to its mount, as the
 * VFS does for our own: a read-only mount refuses (EROFS), a frozen file
 * system is waited out. Never held around a call that takes it itself
 * (kernel_write, vfs_fallocate): freeze protection does not nest.
 */
static inline int awfs_want_write(struct super_block *sb)
{
	return mnt_want_write(AWFS_SB(sb)->lower.mnt);
}

static inline void awfs_drop_write(struct super_block *sb)
{
	mnt_drop_write(AWFS_SB(sb)->lower.mnt);
}

static inline aw_idmap_t *awfs_idmap(struct dentry *dentry)
{
	return aw_mnt_idmap(awfs_lower_path(dentry)->mnt);
}

/* awfs_inode.c */
extern const struct dentry_operations awfs_dops;
extern const struct xattr_handler *awfs_xattr_handlers[];
struct inode *awfs_iget(struct super_block *sb, struct inode *lower);
int awfs_dentry_init(struct dentry *dentry, const struct path *lower);
void awfs_copy_attr(struct inode *inode);

/* awfs_super.c */
/* What a cache flush must cover (awfs_flush_mark()). */
struct awfs_mark {
	s64 written;	/* atomic writes completed */
	s64 gen;	/* awblk's flush mark */
};

void awfs_flush_mark(struct awfs_sb *s, struct awfs_mark *m);
int awfs_flush_written(struct awfs_sb *s, const struct awfs_mark *m);

/* An atomic write has completed (its cache flush is still due). */
static inline void awfs_note_written(struct awfs_sb *s)
{
	atomic64_inc(&s->written);
}

/* awfs_dir.c */
extern const struct file_operations awfs_dir_fops;

/* awfs_file.c */
extern const struct file_operations awfs_file_fops;
int awfs_truncate(struct inode *inode, loff_t size);
int awfs_lower_fsync(struct inode *inode, loff_t start, loff_t end,
		     int datasync);
ssize_t awfs_plain_write(struct kiocb *iocb, struct iov_iter *from,
			 size_t len);

/* awfs_atomic.c */
struct awfs_bounce {		/* an atomic unit's data, a page at a time */
	struct page **pages;
	u32 n;
};

void awfs_init_align(struct inode *inode, struct dentry *lower);
bool awfs_atomic_ok(struct inode *inode);
u32 awfs_atomic_unit(struct inode *inode);
void awfs_drop_tags(struct inode *inode, loff_t from, loff_t to);
void awfs_file_limits(struct file *file, bool direct, struct aw_limits *l);
void awfs_bounce_free(struct awfs_bounce *b);
ssize_t awfs_untorn_unit(struct kiocb *iocb, struct iov_iter *from,
			 struct awfs_bounce *b);
ssize_t awfs_atomic_iter(struct kiocb *iocb, struct iov_iter *from);
int awfs_ioctl_atomic_write(struct file *file, void __user *argp);
int awfs_ioctl_get_align(struct inode *inode, void __user *argp);
int awfs_ioctl_set_align(struct file *file, void __user *argp);

/* awfs_aops.c */
extern const struct address_space_operations awfs_aops;
int awfs_fill_folio(struct inode *inode, struct folio *folio);
struct folio *awfs_write_folio(struct address_space *mapping, pgoff_t index);
void awfs_unlock_folios(struct folio **f, u32 n);
int awfs_lower_forget(struct inode *inode, loff_t off, loff_t len,
		      bool flush);
int awfs_lower_forget_before(struct inode *inode, loff_t off, loff_t len);
void awfs_lower_refresh(struct inode *inode, loff_t off, struct bio *bio);
int awfs_wb_init(void);
void awfs_wb_exit(void);

#endif /* AWFS_H */
