// SPDX-License-Identifier: GPL-2.0
/*
 * awfs directories: each open directory holds an open lower directory,
 * whose entries it lists.
 */
#include <linux/fs.h>
#include <linux/fs_stack.h>
#include <linux/file.h>
#include "awfs.h"

static int awfs_dir_open(struct inode *inode, struct file *file)
{
	struct file *lf;

	lf = dentry_open(awfs_lower_path(file->f_path.dentry), file->f_flags,
			 current_cred());
	if (IS_ERR(lf))
		return PTR_ERR(lf);
	file->private_data = lf;
	return 0;
}

static int awfs_dir_release(struct inode *inode, struct file *file)
{
	fput(file->private_data);
	return 0;
}

static int awfs_iterate(struct file *file, struct dir_context *ctx)
{
	struct file *lf = file->private_data;
	int ret;

	lf->f_pos = ctx->pos;
	ret = iterate_dir(lf, ctx);
	fsstack_copy_attr_atime(file_inode(file), file_inode(lf));
	return ret;
}

static loff_t awfs_dir_llseek(struct file *file, loff_t off, int whence)
{
	struct file *lf = file->private_data;
	loff_t ret = vfs_llseek(lf, off, whence);

	if (ret >= 0)
		file->f_pos = ret;
	return ret;
}

static int awfs_dir_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	return vfs_fsync_range(file->private_data, start, end, datasync);
}

const struct file_operations awfs_dir_fops = {
	.open		= awfs_dir_open,
	.release	= awfs_dir_release,
	.llseek		= awfs_dir_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= awfs_iterate,
	.fsync		= awfs_dir_fsync,
};
