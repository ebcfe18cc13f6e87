// SPDX-License-Identifier: GPL-2.0
/*
 * awfs: the super block, mount options and the module.
 *
 *   mount -t awfs -o unit=16k[,untorn] LOWERDIR MOUNTPOINT
 *
 * LOWERDIR must be a directory of a file system whose device is a whole
 * awblk device, and the unit one the device can write atomically.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <linux/seq_file.h>
#include <linux/cred.h>
#include <linux/parser.h>
#include <linux/file.h>
#include "awfs.h"
#include "awfs_logic.h"
#include "awblk.h"

static struct kmem_cache *awfs_inode_cache;

static struct inode *awfs_alloc_inode(struct super_block *sb)
{
	struct awfs_inode *ai = alloc_inode_sb(sb, awfs_inode_cache, GFP_KERNEL);

	if (!ai)
		return NULL;
	ai->lower = NULL;
	ai->lfile = NULL;
	ai->unit = 0;
	ai->capable = false;
	ai->warned = false;
	ai->align_init = false;
	ai->lower_err = 0;
	xa_init(&ai->tags);
	return &ai->vfs;
}

static void awfs_free_inode(struct inode *inode)
{
	kmem_cache_free(awfs_inode_cache, AWFS_I(inode));
}

static void awfs_evict_inode(struct inode *inode)
{
	struct awfs_inode *ai = AWFS_I(inode);

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	xa_destroy(&ai->tags);
	if (ai->lfile)
		fput(ai->lfile);
	iput(ai->lower);
}

static int awfs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	int ret = vfs_statfs(&AWFS_SB(dentry->d_sb)->lower, buf);

	buf->f_type = AWFS_MAGIC;
	return ret;
}

static int awfs_show_options(struct seq_file *m, struct dentry *root)
{
	struct awfs_sb *s = AWFS_SB(root->d_sb);

	seq_printf(m, ",unit=%u", s->unit);
	if (s->untorn)
		seq_puts(m, ",untorn");
	return 0;
}

/**
 * awfs_flush_written - make the atomic writes completed so far durable
 * @s: the mount
 *
 * A write completed after the count was read is left to the next caller,
 * which finds the count moved on. The software engine's writes are
 * durable when they complete.
 *
 * Return: 0, or the flush's error.
 */
int awfs_flush_written(struct awfs_sb *s)
{
	s64 w = atomic64_read(&s->written);
	s64 f = atomic64_read(&s->flushed);
	int ret;

	if (w == f || s->dev.engine == AW_ENGINE_SW)
		return 0;
	ret = blkdev_issue_flush(s->bdev);
	if (ret)
		return ret;
	/* Concurrent flushers: the count only moves forward. */
	while (f < w && !atomic64_try_cmpxchg(&s->flushed, &f, w))
		;
	return 0;
}

/*
 * The lower file system syncs what went through it (XFS's sync_fs only
 * forces its log, which flushes nothing when the log is clean); then the
 * flush of what went around it. syncfs() reports the write-back errors
 * recorded on our super block: bring the lower one's there.
 */
static int awfs_sync_fs(struct super_block *sb, int wait)
{
	struct awfs_sb *s = AWFS_SB(sb);
	struct super_block *lsb = s->lower.mnt->mnt_sb;
	int ret, err;

	if (!wait)
		return 0;
	down_read(&lsb->s_umount);
	ret = sync_filesystem(lsb);
	up_read(&lsb->s_umount);
	spin_lock(&s->lower_err_lock);
	err = errseq_check_and_advance(&lsb->s_wb_err, &s->lower_err);
	/* Before the unlock: a racing syncfs finds it on ours. */
	if (err)
		errseq_set(&sb->s_wb_err, err);
	spin_unlock(&s->lower_err_lock);
	return ret ?: awfs_flush_written(s);
}

static const struct super_operations awfs_sops = {
	.alloc_inode	= awfs_alloc_inode,
	.free_inode	= awfs_free_inode,
	.evict_inode	= awfs_evict_inode,
	.statfs		= awfs_statfs,
	.show_options	= awfs_show_options,
	.sync_fs	= awfs_sync_fs,
};

enum { OPT_UNIT, OPT_UNTORN, OPT_ERR };

static const match_table_t awfs_tokens = {
	{ OPT_UNIT, "unit=%s" },
	{ OPT_UNTORN, "untorn" },
	{ OPT_ERR, NULL },
};

static int awfs_parse_options(struct awfs_sb *s, char *opts)
{
	substring_t args[MAX_OPT_ARGS];
	char *p, *v;
	u64 unit;
	int ret;

	while ((p = strsep(&opts, ",")) != NULL) {
		if (!*p)
			continue;
		switch (match_token(p, awfs_tokens, args)) {
		case OPT_UNIT:
			v = match_strdup(&args[0]);
			if (!v)
				return -ENOMEM;
			ret = awfs_parse_size(v, &unit);
			kfree(v);
			if (ret || unit > U32_MAX) {
				pr_err("awfs: bad unit in \"%s\"\n", p);
				return -EINVAL;
			}
			s->unit = unit;
			break;
		case OPT_UNTORN:
			s->untorn = true;
			break;
		default:
			pr_err("awfs: unknown option \"%s\"\n", p);
			return -EINVAL;
		}
	}
	return 0;
}

/* The lower directory: on a whole awblk device, with a usable unit. */
static int awfs_check_lower(struct awfs_sb *s, const char *name)
{
	struct super_block *lsb = s->lower.mnt->mnt_sb;
	const char *why;
	int ret;

	if (!lsb->s_bdev || awblk_bdev_limits(lsb->s_bdev, &s->dev)) {
		pr_err("awfs: %s is not on an awblk device (%s)\n", name,
		       lsb->s_type->name);
		return -EINVAL;
	}
	s->bdev = lsb->s_bdev;
	if (!s->unit) {
		pr_err("awfs: unit=BYTES is required\n");
		return -EINVAL;
	}
	ret = awfs_unit_ok(s->unit, PAGE_SIZE, lsb->s_blocksize,
			   s->dev.unit_min, s->dev.unit_max, s->dev.max_bytes,
			   s->dev.boundary, &why);
	if (ret)
		pr_err("awfs: unit %u %s (%pg: atomic unit %u..%u, max %u, boundary %u)\n",
		       s->unit, why, s->bdev, s->dev.unit_min, s->dev.unit_max,
		       s->dev.max_bytes, s->dev.boundary);
	if (!ret && lsb->s_stack_depth >= FILESYSTEM_MAX_STACK_DEPTH) {
		pr_err("awfs: %s is stacked too deep\n", name);
		ret = -EINVAL;
	}
	return ret;
}

struct awfs_mount {
	const char *name;
	char *opts;
};

static int awfs_fill_super(struct super_block *sb, void *data, int silent)
{
	struct awfs_mount *m = data;
	struct awfs_sb *s;
	struct inode *root;
	struct super_block *lsb;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	spin_lock_init(&s->lower_err_lock);
	sb->s_fs_info = s;
	ret = awfs_parse_options(s, m->opts);
	if (ret)
		return ret;
	ret = kern_path(m->name, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &s->lower);
	if (ret) {
		pr_err("awfs: %s: no such directory (%d)\n", m->name, ret);
		return ret;
	}
	ret = awfs_check_lower(s, m->name);
	if (ret)
		return ret;
	s->cred = prepare_creds();
	if (!s->cred)
		return -ENOMEM;
	ret = super_setup_bdi(sb);
	if (ret)
		return ret;
	lsb = s->lower.mnt->mnt_sb;
	s->lower_err = errseq_sample(&lsb->s_wb_err);
	/*
	 * A tagged unit's pages go to the disk as one atomic write: nobody may
	 * change them while it is under way (writers and page_mkwrite wait).
	 */
	sb->s_iflags |= SB_I_STABLE_WRITES;
	/*
	 * With ACLs below, the umask is the lower's to apply (or a default
	 * ACL's to replace) when it creates a file, not ours.
	 */
	sb->s_flags |= lsb->s_flags & SB_POSIXACL;
	sb->s_stack_depth = lsb->s_stack_depth + 1;
	sb->s_maxbytes = lsb->s_maxbytes;
	sb->s_blocksize = lsb->s_blocksize;
	sb->s_blocksize_bits = lsb->s_blocksize_bits;
	sb->s_time_gran = lsb->s_time_gran;
	sb->s_magic = AWFS_MAGIC;
	sb->s_op = &awfs_sops;
	sb->s_xattr = awfs_xattr_handlers;
	sb->s_d_op = &awfs_dops;
	root = awfs_iget(sb, d_inode(s->lower.dentry));
	if (IS_ERR(root))
		return PTR_ERR(root);
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	ret = awfs_dentry_init(sb->s_root, &s->lower);
	if (ret)
		return ret;
	pr_info("awfs: %s on %pg, unit %u%s\n", m->name, s->bdev, s->unit,
		s->untorn ? ", untorn" : "");
	return 0;
}

static struct dentry *awfs_mount(struct file_system_type *fs, int flags,
				 const char *dev_name, void *data)
{
	struct awfs_mount m = { .name = dev_name, .opts = data };

	if (!dev_name || !*dev_name)
		return ERR_PTR(-EINVAL);
	return mount_nodev(fs, flags, &m, awfs_fill_super);
}

static void awfs_kill_sb(struct super_block *sb)
{
	struct awfs_sb *s = AWFS_SB(sb);

	kill_anon_super(sb);
	if (!s)
		return;
	path_put(&s->lower);
	if (s->cred)
		put_cred(s->cred);
	kfree(s);
}

static struct file_system_type awfs_type = {
	.owner		= THIS_MODULE,
	.name		= "awfs",
	.mount		= awfs_mount,
	.kill_sb	= awfs_kill_sb,
};
MODULE_ALIAS_FS("awfs");

static void awfs_inode_once(void *p)
{
	struct awfs_inode *ai = p;

	inode_init_once(&ai->vfs);
	mutex_init(&ai->lfile_lock);
	spin_lock_init(&ai->lower_err_lock);
}

static int __init awfs_init(void)
{
	int ret;

	awfs_inode_cache = kmem_cache_create("awfs_inode",
					     sizeof(struct awfs_inode), 0,
					     SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					     awfs_inode_once);
	if (!awfs_inode_cache)
		return -ENOMEM;
	ret = awfs_wb_init();
	if (ret)
		goto out_cache;
	ret = register_filesystem(&awfs_type);
	if (ret)
		goto out_wb;
	return 0;
out_wb:
	awfs_wb_exit();
out_cache:
	kmem_cache_destroy(awfs_inode_cache);
	return ret;
}

static void __exit awfs_exit(void)
{
	unregister_filesystem(&awfs_type);
	awfs_wb_exit();
	rcu_barrier();	/* free_inode runs after an RCU grace period */
	kmem_cache_destroy(awfs_inode_cache);
}

module_init(awfs_init);
module_exit(awfs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("awkit stacked file system: forcealign and atomic buffered writeback");
