// SPDX-License-Identifier: GPL-2.0
/*
 * awfs names and attributes: every operation is the lower file system's,
 * made through the VFS on the lower dentries (overlay style). An awfs inode
 * mirrors one lower inode; regular files keep their own size and times
 * while they are cached, because their data may be newer than the lower
 * file's until writeback.
 */
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <linux/slab.h>
#include <linux/xattr.h>
#include <linux/fs_stack.h>
#include "awfs.h"

static int awfs_inode_test(struct inode *inode, void *lower)
{
	return AWFS_I(inode)->lower == lower;
}

static int awfs_inode_set(struct inode *inode, void *lower)
{
	AWFS_I(inode)->lower = igrab(lower);
	return AWFS_I(inode)->lower ? 0 : -ESTALE;
}

static const struct inode_operations awfs_dir_iops, awfs_file_iops,
	awfs_link_iops, awfs_special_iops;

void awfs_copy_attr(struct inode *inode)
{
	struct inode *lower = awfs_lower_inode(inode);

	if (S_ISREG(inode->i_mode)) {
		/* Not size or times: ours may be newer. */
		inode->i_mode = lower->i_mode;
		inode->i_uid = lower->i_uid;
		inode->i_gid = lower->i_gid;
		set_nlink(inode, lower->i_nlink);
		inode->i_blocks = lower->i_blocks;
		inode->i_flags = (inode->i_flags & ~(S_APPEND | S_IMMUTABLE)) |
				 (lower->i_flags & (S_APPEND | S_IMMUTABLE));
		return;
	}
	fsstack_copy_attr_all(inode, lower);
	fsstack_copy_inode_size(inode, lower);
}

struct inode *awfs_iget(struct super_block *sb, struct inode *lower)
{
	struct inode *inode;

	inode = iget5_locked(sb, lower->i_ino, awfs_inode_test, awfs_inode_set,
			     lower);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;
	inode->i_ino = lower->i_ino;
	inode->i_mode = lower->i_mode;
#if AW_HAVE_ACL_IOPS
	/*
	 * The ACLs are the lower inode's, which can change them behind our
	 * back: the VFS must ask ->get_acl and ->get_inode_acl every time,
	 * never keep a copy. Symlinks have no ACLs (and no such ops).
	 */
	if (!S_ISLNK(lower->i_mode)) {
		inode->i_acl = ACL_DONT_CACHE;
		inode->i_default_acl = ACL_DONT_CACHE;
	}
#endif
	fsstack_copy_attr_all(inode, lower);
	fsstack_copy_inode_size(inode, lower);
	switch (lower->i_mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &awfs_file_iops;
		inode->i_fop = &awfs_file_fops;
		inode->i_mapping->a_ops = &awfs_aops;
		break;
	case S_IFDIR:
		inode->i_op = &awfs_dir_iops;
		inode->i_fop = &awfs_dir_fops;
		break;
	case S_IFLNK:
		inode->i_op = &awfs_link_iops;
		break;
	default:
		inode->i_op = &awfs_special_iops;
		init_special_inode(inode, lower->i_mode, lower->i_rdev);
		break;
	}
	unlock_new_inode(inode);
	return inode;
}

/* ---- dentries ---- */

int awfs_dentry_init(struct dentry *dentry, const struct path *lower)
{
	struct awfs_dentry *ad = kmalloc(sizeof(*ad), GFP_KERNEL);

	if (!ad)
		return -ENOMEM;
	ad->lower = *lower;
	path_get(&ad->lower);
	dentry->d_fsdata = ad;
	return 0;
}

static void awfs_d_release(struct dentry *dentry)
{
	struct awfs_dentry *ad = dentry->d_fsdata;

	if (ad) {
		path_put(&ad->lower);
		kfree(ad);
	}
}

const struct dentry_operations awfs_dops = {
	.d_release	= awfs_d_release,
};

static struct dentry *awfs_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	struct path *lparent = awfs_lower_path(dentry->d_parent);
	struct path lower;
	struct inode *inode = NULL;
	struct dentry *ld;
	int ret;

	ld = lookup_one_len_unlocked(dentry->d_name.name, lparent->dentry,
				     dentry->d_name.len);
	if (IS_ERR(ld))
		return ERR_CAST(ld);
	lower.mnt = lparent->mnt;
	lower.dentry = ld;
	ret = awfs_dentry_init(dentry, &lower);
	dput(ld);
	if (ret)
		return ERR_PTR(ret);
	if (d_really_is_positive(ld)) {
		inode = awfs_iget(dir->i_sb, d_inode(ld));
		if (IS_ERR(inode))
			return ERR_CAST(inode);
		if (S_ISREG(inode->i_mode))
			awfs_init_align(inode, ld);
	}
	return d_splice_alias(inode, dentry);
}

/* A new lower object at @dentry's lower dentry: make ours for it. */
static int awfs_instantiate(struct inode *dir, struct dentry *dentry)
{
	struct dentry *ld = awfs_lower_path(dentry)->dentry;
	struct inode *inode;

	if (d_really_is_negative(ld))
		return -ENOENT;	/* the lower made a different dentry */
	inode = awfs_iget(dir->i_sb, d_inode(ld));
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	if (S_ISREG(inode->i_mode))
		awfs_init_align(inode, ld);
	d_instantiate(dentry, inode);
	awfs_copy_attr(dir);
	return 0;
}

/* Lock the lower parent of @dentry; NULL when the names no longer match. */
static struct dentry *awfs_lock_lower_parent(struct dentry *dentry)
{
	struct dentry *ld = awfs_lower_path(dentry)->dentry;
	struct dentry *lp = awfs_lower_path(dentry->d_parent)->dentry;

	inode_lock_nested(d_inode(lp), I_MUTEX_PARENT);
	if (ld->d_parent != lp || d_unhashed(ld)) {
		inode_unlock(d_inode(lp));
		return NULL;
	}
	return lp;
}

enum awfs_mk { MK_CREATE, MK_DIR, MK_NOD, MK_SYMLINK };

static int awfs_make(struct inode *dir, struct dentry *dentry, umode_t mode,
		     dev_t rdev, const char *target, enum awfs_mk what)
{
	struct dentry *ld = awfs_lower_path(dentry)->dentry;
	aw_idmap_t *idmap = awfs_idmap(dentry);
	struct dentry *lp;
	struct inode *ldir;
	int ret;

	ret = awfs_want_write(dir->i_sb);
	if (ret)
		return ret;
	lp = awfs_lock_lower_parent(dentry);
	if (!lp) {
		awfs_drop_write(dir->i_sb);
		return -ESTALE;
	}
	ldir = d_inode(lp);
	switch (what) {
	case MK_CREATE:
		ret = vfs_create(idmap, ldir, ld, mode, true);
		break;
	case MK_DIR:
		ret = vfs_mkdir(idmap, ldir, ld, mode);
		break;
	case MK_NOD:
		ret = vfs_mknod(idmap, ldir, ld, mode, rdev);
		break;
	default:
		ret = vfs_symlink(idmap, ldir, ld, target);
		break;
	}
	if (!ret)
		ret = awfs_instantiate(dir, dentry);
	inode_unlock(ldir);
	awfs_drop_write(dir->i_sb);
	return ret;
}

static int awfs_create(aw_idmap_t *idmap, struct inode *dir,
		       struct dentry *dentry, umode_t mode, bool excl)
{
	return awfs_make(dir, dentry, mode, 0, NULL, MK_CREATE);
}

static int awfs_mkdir(aw_idmap_t *idmap, struct inode *dir,
		      struct dentry *dentry, umode_t mode)
{
	return awfs_make(dir, dentry, mode, 0, NULL, MK_DIR);
}

static int awfs_mknod(aw_idmap_t *idmap, struct inode *dir,
		      struct dentry *dentry, umode_t mode, dev_t rdev)
{
	return awfs_make(dir, dentry, mode, rdev, NULL, MK_NOD);
}

static int awfs_symlink(aw_idmap_t *idmap, struct inode *dir,
			struct dentry *dentry, const char *target)
{
	return awfs_make(dir, dentry, S_IFLNK | 0777, 0, target, MK_SYMLINK);
}

static int awfs_link(struct dentry *old, struct inode *dir, struct dentry *new)
{
	struct dentry *lold = awfs_lower_path(old)->dentry;
	struct dentry *lnew = awfs_lower_path(new)->dentry;
	struct inode *inode = d_inode(old);
	struct dentry *lp;
	int ret;

	ret = awfs_want_write(dir->i_sb);
	if (ret)
		return ret;
	lp = awfs_lock_lower_parent(new);
	if (lp) {
		ret = vfs_link(lold, awfs_idmap(new), d_inode(lp), lnew, NULL);
		inode_unlock(d_inode(lp));
	} else {
		ret = -ESTALE;
	}
	awfs_drop_write(dir->i_sb);
	if (ret)
		return ret;
	ihold(inode);
	d_instantiate(new, inode);
	awfs_copy_attr(inode);
	awfs_copy_attr(dir);
	return 0;
}

static int awfs_remove(struct inode *dir, struct dentry *dentry, bool isdir)
{
	struct dentry *ld, *lp;
	int ret;

	ret = awfs_want_write(dir->i_sb);
	if (ret)
		return ret;
	ld = dget(awfs_lower_path(dentry)->dentry);
	lp = awfs_lock_lower_parent(dentry);
	if (!lp) {
		ret = -ESTALE;
	} else {
		if (isdir)
			ret = vfs_rmdir(awfs_idmap(dentry), d_inode(lp), ld);
		else
			ret = vfs_unlink(awfs_idmap(dentry), d_inode(lp), ld,
					 NULL);
		inode_unlock(d_inode(lp));
	}
	dput(ld);
	awfs_drop_write(dir->i_sb);
	if (ret)
		return ret;
	awfs_copy_attr(dir);
	if (isdir)
		clear_nlink(d_inode(dentry));
	else
		set_nlink(d_inode(dentry), awfs_lower_inode(d_inode(dentry))->i_nlink);
	/* Our dentry keeps the old lower one: look the name up again. */
	d_drop(dentry);
	return 0;
}

static int awfs_unlink(struct inode *dir, struct dentry *dentry)
{
	return awfs_remove(dir, dentry, false);
}

static int awfs_rmdir(struct inode *dir, struct dentry *dentry)
{
	return awfs_remove(dir, dentry, true);
}

static int awfs_rename(aw_idmap_t *idmap, struct inode *odir,
		       struct dentry *old, struct inode *ndir,
		       struct dentry *new, unsigned int flags)
{
	struct dentry *lold = awfs_lower_path(old)->dentry;
	struct dentry *lnew = awfs_lower_path(new)->dentry;
	struct dentry *lodir = awfs_lower_path(old->d_parent)->dentry;
	struct dentry *lndir = awfs_lower_path(new->d_parent)->dentry;
	struct renamedata rd = {};
	struct dentry *trap;
	int ret;

	ret = awfs_want_write(odir->i_sb);
	if (ret)
		return ret;
	trap = lock_rename(lodir, lndir);
	if (IS_ERR(trap)) {
		awfs_drop_write(odir->i_sb);
		return PTR_ERR(trap);
	}
	ret = -ESTALE;
	if (lold->d_parent != lodir || lnew->d_parent != lndir ||
	    d_unhashed(lold) || d_unhashed(lnew))
		goto out;
	ret = -EINVAL;
	if (trap == lold)
		goto out;
	ret = -ENOTEMPTY;
	if (trap == lnew)
		goto out;
	AW_RENAMEDATA_IDMAP(&rd, awfs_idmap(old));
	rd.old_dir = d_inode(lodir);
	rd.old_dentry = lold;
	rd.new_dir = d_inode(lndir);
	rd.new_dentry = lnew;
	rd.flags = flags;
	ret = vfs_rename(&rd);
out:
	unlock_rename(lodir, lndir);
	awfs_drop_write(odir->i_sb);
	if (ret)
		return ret;
	awfs_copy_attr(odir);
	if (ndir != odir)
		awfs_copy_attr(ndir);
	if (d_really_is_positive(new) && !(flags & RENAME_EXCHANGE))
		set_nlink(d_inode(new),
			  awfs_lower_inode(d_inode(new))->i_nlink);
	return 0;
}

static int awfs_getattr(aw_idmap_t *idmap, const struct path *path,
			struct kstat *stat, u32 mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);
	struct kstat ls;
	u32 unit;
	int ret;

	ret = vfs_getattr(awfs_lower_path(path->dentry), &ls, mask,
			  flags & ~AT_GETATTR_NOSEC);
	if (ret)
		return ret;
	awfs_copy_attr(inode);
	aw_fillattr(idmap, mask, inode, stat);
	stat->blocks = ls.blocks;
	stat->blksize = ls.blksize;
	if (!S_ISREG(inode->i_mode)) {
		stat->size = ls.size;
	} else if (mask & STATX_WRITE_ATOMIC) {
		/* statx: the file's unit, as both the least and the most. */
		unit = awfs_atomic_unit(inode);
		if (unit)
			generic_fill_statx_atomic_writes(stat, unit, unit);
	}
	return 0;
}

static int awfs_setattr(aw_idmap_t *idmap, struct dentry *dentry,
			struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);
	struct dentry *ld = awfs_lower_path(dentry)->dentry;
	struct iattr la = *attr;
	int ret;

	ret = setattr_prepare(idmap, dentry, attr);
	if (ret)
		return ret;
	if (attr->ia_valid & ATTR_SIZE) {
		ret = awfs_truncate(inode, attr->ia_size);
		if (ret)
			return ret;
	}
	/* The lower takes the mode change itself, from the kill flags. */
	if (la.ia_valid & (ATTR_KILL_SUID | ATTR_KILL_SGID))
		la.ia_valid &= ~ATTR_MODE;
	la.ia_valid &= ~(ATTR_FILE | ATTR_SIZE);
	if (la.ia_valid & ~(ATTR_FORCE)) {
		ret = awfs_want_write(inode->i_sb);
		if (ret)
			return ret;
		inode_lock(d_inode(ld));
		ret = notify_change(awfs_idmap(dentry), ld, &la, NULL);
		inode_unlock(d_inode(ld));
		awfs_drop_write(inode->i_sb);
		if (ret)
			return ret;
	}
	if (attr->ia_valid & (ATTR_MTIME | ATTR_ATIME | ATTR_CTIME))
		fsstack_copy_attr_times(inode, awfs_lower_inode(inode));
	awfs_copy_attr(inode);
	return 0;
}

static const char *awfs_get_link(struct dentry *dentry, struct inode *inode,
				 struct delayed_call *done)
{
	if (!dentry)
		return ERR_PTR(-ECHILD);
	return vfs_get_link(awfs_lower_path(dentry)->dentry, done);
}

static ssize_t awfs_listxattr(struct dentry *dentry, char *list, size_t size)
{
	return vfs_listxattr(awfs_lower_path(dentry)->dentry, list, size);
}

/*
 * Access is the lower inode's, checked with the caller's credentials (as
 * ecryptfs does): its mode, owner and POSIX ACLs, so what the lower file
 * system denies a user, awfs denies too. Lower files are opened with the
 * mounter's credentials after this check.
 */
static int awfs_permission(aw_idmap_t *idmap, struct inode *inode, int mask)
{
	struct vfsmount *mnt = AWFS_SB(inode->i_sb)->lower.mnt;

	return inode_permission(aw_mnt_idmap(mnt), awfs_lower_inode(inode),
				mask);
}

#if AW_HAVE_ACL_IOPS
/*
 * The lower inode's ACL of @type. Its ids are as the lower file system
 * keeps them, as our inodes' owners are (awfs_copy_attr). A lower that has
 * none or cannot have one (ENODATA, EOPNOTSUPP) is no ACL here: the VFS
 * takes NULL for that, and answers ENODATA itself.
 */
static struct posix_acl *awfs_get_acl(aw_idmap_t *idmap, struct dentry *dentry,
				      int type)
{
	struct posix_acl *acl;

	acl = vfs_get_acl(awfs_idmap(dentry), awfs_lower_path(dentry)->dentry,
			  posix_acl_xattr_name(type));
	if (acl == ERR_PTR(-ENODATA) || acl == ERR_PTR(-EOPNOTSUPP))
		return NULL;
	return acl;
}

/*
 * Set the lower inode's ACL of @type, or remove it (@acl NULL). The lower
 * file system checks it and may change the mode to match its owner, group
 * (mask) and other entries: take the mode back from it.
 */
static int awfs_set_acl(aw_idmap_t *idmap, struct dentry *dentry,
			struct posix_acl *acl, int type)
{
	struct dentry *ld = awfs_lower_path(dentry)->dentry;
	const char *name = posix_acl_xattr_name(type);
	struct inode *inode = d_inode(dentry);
	int ret;

	ret = awfs_want_write(inode->i_sb);
	if (ret)
		return ret;
	if (acl)
		ret = vfs_set_acl(awfs_idmap(dentry), ld, name, acl);
	else
		ret = vfs_remove_acl(awfs_idmap(dentry), ld, name);
	awfs_drop_write(inode->i_sb);
	if (!ret)
		awfs_copy_attr(inode);
	return ret;
}
/*
 * For permission checks by someone else than our ->permission (a file
 * system stacked on awfs, nfsd): the lower inode's ACL. Not in RCU walk,
 * where the lower file system may have to read it.
 */
static struct posix_acl *awfs_get_inode_acl(struct inode *inode, int type,
					    bool rcu)
{
	if (rcu)
		return ERR_PTR(-ECHILD);
	return get_inode_acl(awfs_lower_inode(inode), type);
}

#define AWFS_ACL_IOPS					\
	.get_acl	= awfs_get_acl,			\
	.get_inode_acl	= awfs_get_inode_acl,		\
	.set_acl	= awfs_set_acl,
#else
/* The VFS hands ACLs to the xattr handler below, which passes them on. */
#define AWFS_ACL_IOPS
#endif

static const struct inode_operations awfs_dir_iops = {
	.lookup		= awfs_lookup,
	.permission	= awfs_permission,
	.create		= awfs_create,
	.mkdir		= awfs_mkdir,
	.mknod		= awfs_mknod,
	.symlink	= awfs_symlink,
	.link		= awfs_link,
	.unlink		= awfs_unlink,
	.rmdir		= awfs_rmdir,
	.rename		= awfs_rename,
	.getattr	= awfs_getattr,
	.setattr	= awfs_setattr,
	.listxattr	= awfs_listxattr,
	AWFS_ACL_IOPS
};

static const struct inode_operations awfs_file_iops = {
	.permission	= awfs_permission,
	.getattr	= awfs_getattr,
	.setattr	= awfs_setattr,
	.listxattr	= awfs_listxattr,
	AWFS_ACL_IOPS
};

static const struct inode_operations awfs_link_iops = {
	.get_link	= awfs_get_link,
	.permission	= awfs_permission,
	.getattr	= awfs_getattr,
	.setattr	= awfs_setattr,
	.listxattr	= awfs_listxattr,
};

static const struct inode_operations awfs_special_iops = {
	.permission	= awfs_permission,
	.getattr	= awfs_getattr,
	.setattr	= awfs_setattr,
	.listxattr	= awfs_listxattr,
	AWFS_ACL_IOPS
};

/* ---- extended attributes: all of them the lower file's ---- */

static int awfs_xattr_get(const struct xattr_handler *h, struct dentry *dentry,
			  struct inode *inode, const char *name, void *value,
			  size_t size)
{
	return vfs_getxattr(awfs_idmap(dentry), awfs_lower_path(dentry)->dentry,
			    name, value, size);
}

static int awfs_xattr_set(const struct xattr_handler *h, aw_idmap_t *idmap,
			  struct dentry *dentry, struct inode *inode,
			  const char *name, const void *value, size_t size,
			  int flags)
{
	struct dentry *ld = awfs_lower_path(dentry)->dentry;
	int ret;

	ret = awfs_want_write(dentry->d_sb);
	if (ret)
		return ret;
	if (value)
		ret = vfs_setxattr(awfs_idmap(dentry), ld, name, value, size,
				   flags);
	else
		ret = vfs_removexattr(awfs_idmap(dentry), ld, name);
	awfs_drop_write(dentry->d_sb);
	if (!ret)
		awfs_copy_attr(inode);
	return ret;
}

static const struct xattr_handler awfs_xattr_all = {
	.prefix	= "",
	.get	= awfs_xattr_get,
	.set	= awfs_xattr_set,
};

const struct xattr_handler *awfs_xattr_handlers[] = {
	&awfs_xattr_all,
	NULL,
};
