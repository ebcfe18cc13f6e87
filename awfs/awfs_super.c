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
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/security.h>
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
 * awfs_flush_mark - note what a flush sent by the lower sync would cover
 * @s: the mount
 * @m: filled: the atomic writes completed so far, and awblk's flush mark
 */
void awfs_flush_mark(struct awfs_sb *s, struct awfs_mark *m)
{
	/*
	 * After the caller saw its writes' writeback end (a plain load when
	 * it had nothing to wait for): awfs_wb_done() counts before that.
	 */
	smp_rmb();
	m->written = atomic64_read(&s->written);
	m->gen = awblk_flush_mark(s->bdev);
}

/**
 * awfs_flush_written - make the atomic writes completed at @m durable
 * @s: the mount
 * @m: taken after the caller's writes completed, before the lower sync
 *
 * The lower file system's sync usually ends with a cache flush of the
 * device (ext4's and XFS's fsync do, even with nothing of theirs to
 * write): a flush awblk numbered after the mark covered these writes, and
 * a second one would only cost another trip to the disk. Otherwise, a
 * flush of our own; a write completed after it was sent is left to the
 * next caller, which finds the count moved on. The software engine's
 * writes are durable when they complete.
 *
 * Return: 0, or the flush's error.
 */
int awfs_flush_written(struct awfs_sb *s, const struct awfs_mark *m)
{
	s64 f = atomic64_read(&s->flushed);
	s64 w = m->written;
	int ret;

	if (f >= w || s->dev.engine == AW_ENGINE_SW)
		return 0;
	if (!awblk_flushed_since(s->bdev, m->gen)) {
		w = atomic64_read(&s->written);
		ret = blkdev_issue_flush(s->bdev);
		if (ret)
			return ret;
	}
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
	struct awfs_mark m;
	int ret, err;

	if (!wait)
		return 0;
	awfs_flush_mark(s, &m);
	down_read(&lsb->s_umount);
	ret = sync_filesystem(lsb);
	up_read(&lsb->s_umount);
	spin_lock(&s->lower_err_lock);
	err = errseq_check_and_advance(&lsb->s_wb_err, &s->lower_err);
	/* Before the unlock: a racing syncfs finds it on ours. */
	if (err)
		errseq_set(&sb->s_wb_err, err);
	spin_unlock(&s->lower_err_lock);
	return ret ?: awfs_flush_written(s, &m);
}

static const struct super_operations awfs_sops = {
	.alloc_inode	= awfs_alloc_inode,
	.free_inode	= awfs_free_inode,
	.evict_inode	= awfs_evict_inode,
	.statfs		= awfs_statfs,
	.show_options	= awfs_show_options,
	.sync_fs	= awfs_sync_fs,
};

/* The options of one mount, parsed before its super block exists. */
struct awfs_fs_context {
	u32 unit;
	bool untorn;
};

enum { OPT_UNIT, OPT_UNTORN };

/*
 * An option awfs does not know, named as the user wrote it ("key" or
 * "key=value"), as the kernel log has always shown it.
 */
static int awfs_param_unknown(const struct fs_parameter *param)
{
	if (param->type == fs_value_is_string)
		pr_err("awfs: unknown option \"%s=%s\"\n", param->key,
		       param->string);
	else
		pr_err("awfs: unknown option \"%s\"\n", param->key);
	return -EINVAL;
}

/*
 * The options check their own values: fs_parse()'s stock types would log
 * words of their own ("Bad value for ...") where awfs says "unknown option"
 * or "bad unit", and the tests and users grep for those.
 */
static int awfs_param_unit(struct p_log *log, const struct fs_parameter_spec *p,
			   struct fs_parameter *param,
			   struct fs_parse_result *result)
{
	u64 unit;

	/* A bare "unit" or "unit=" has never been the unit option. */
	if (param->type != fs_value_is_string || !*param->string)
		return awfs_param_unknown(param);
	if (awfs_parse_size(param->string, &unit) || unit > U32_MAX) {
		pr_err("awfs: bad unit in \"%s=%s\"\n", param->key,
		       param->string);
		return -EINVAL;
	}
	result->uint_32 = unit;
	return 0;
}

/* A flag with a value ("untorn=1") is a different, unknown option. */
static int awfs_param_flag(struct p_log *log, const struct fs_parameter_spec *p,
			   struct fs_parameter *param,
			   struct fs_parse_result *result)
{
	if (param->type != fs_value_is_flag)
		return awfs_param_unknown(param);
	result->boolean = true;
	return 0;
}

static const struct fs_parameter_spec awfs_fs_parameters[] = {
	__fsparam(awfs_param_unit, "unit", OPT_UNIT, 0, NULL),
	__fsparam(awfs_param_flag, "untorn", OPT_UNTORN, 0, NULL),
	{}
};

/* One option of a new mount; a repeated one replaces the earlier value. */
static int awfs_parse_opt(struct fs_context *fc, struct fs_parameter *param)
{
	struct awfs_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, awfs_fs_parameters, param, &result);
	if (opt == -ENOPARAM)
		return awfs_param_unknown(param);
	if (opt < 0)
		return opt;
	switch (opt) {
	case OPT_UNIT:
		ctx->unit = result.uint_32;
		break;
	case OPT_UNTORN:
		ctx->untorn = true;
		break;
	}
	return 0;
}

/* An option from fsconfig(2), or mount(2)'s source. */
static int awfs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	/* Remount has never read the options: see awfs_reconfigure(). */
	if (fc->purpose == FS_CONTEXT_FOR_RECONFIGURE)
		return 0;
	/* The lower directory: the VFS keeps it in fc->source. */
	if (!strcmp(param->key, "source"))
		return -ENOPARAM;
	return awfs_parse_opt(fc, param);
}

/* "key" or "key=value", split at the first '=' as "unit=%s" matched it. */
static int awfs_parse_item(struct fs_context *fc, char *item)
{
	struct fs_parameter param = {
		.key	= item,
		.type	= fs_value_is_flag,
	};
	char *eq = strchr(item, '=');

	if (eq) {
		*eq = '\0';
		param.type = fs_value_is_string;
		param.string = eq + 1;
		param.size = strlen(param.string);
	}
	return awfs_parse_opt(fc, &param);
}

/*
 * mount(2)'s option string. awfs splits it itself rather than leave it to
 * generic_parse_monolithic(), which would take "ro", "sync", "source=..."
 * and the like out of the string and skip "=x": awfs has always refused
 * all of those as unknown options.
 */
static int awfs_parse_monolithic(struct fs_context *fc, void *data)
{
	char *opts = data, *item;
	int ret;

	if (opts) {
		ret = security_sb_eat_lsm_opts(opts, &fc->security);
		if (ret)
			return ret;
	}
	if (fc->purpose == FS_CONTEXT_FOR_RECONFIGURE)
		return 0;
	/*
	 * Without a lower directory, mount(2) has always failed (silently)
	 * before awfs read an option: keep that order.
	 */
	if (!fc->source || !*fc->source)
		return -EINVAL;
	while ((item = strsep(&opts, ",")) != NULL) {
		if (!*item)
			continue;
		ret = awfs_parse_item(fc, item);
		if (ret)
			return ret;
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

static int awfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct awfs_fs_context *ctx = fc->fs_private;
	const char *name = fc->source;
	struct awfs_sb *s;
	struct inode *root;
	struct super_block *lsb;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	spin_lock_init(&s->lower_err_lock);
	sb->s_fs_info = s;
	s->unit = ctx->unit;
	s->untorn = ctx->untorn;
	ret = kern_path(name, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &s->lower);
	if (ret) {
		pr_err("awfs: %s: no such directory (%d)\n", name, ret);
		return ret;
	}
	ret = awfs_check_lower(s, name);
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
	 * Our readahead windows become the lower file's reads: as large as
	 * the lower file system's own (taken at mount; later changes below
	 * are not followed), so a scan through awfs takes the disk commands
	 * a scan of the lower file takes; at most what awfs_lower_readahead()
	 * reads at once (a disk's optimal transfer can make the lower's
	 * window many MiB, all allocated and filled in one go).
	 */
	sb->s_bdi->ra_pages = min_t(unsigned long, READ_ONCE(lsb->s_bdi->ra_pages),
				    AWFS_RA_MAX_PAGES);
	sb->s_bdi->io_pages = min_t(unsigned long, READ_ONCE(lsb->s_bdi->io_pages),
				    AWFS_RA_MAX_PAGES);
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
	pr_info("awfs: %s on %pg, unit %u%s\n", name, s->bdev, s->unit,
		s->untorn ? ", untorn" : "");
	return 0;
}

static int awfs_get_tree(struct fs_context *fc)
{
	if (!fc->source || !*fc->source)
		return -EINVAL;
	/* Every mount its own super block, even of one lower directory. */
	return get_tree_nodev(fc, awfs_fill_super);
}

/*
 * Remount keeps the unit and untorn and refuses no option, as awfs did
 * before fs_context (it had no ->remount_fs): the option string is not
 * even read. Only the VFS's own flags (ro, ...) change.
 */
static int awfs_reconfigure(struct fs_context *fc)
{
	return 0;
}

static void awfs_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations awfs_context_ops = {
	.parse_monolithic	= awfs_parse_monolithic,
	.parse_param		= awfs_parse_param,
	.get_tree		= awfs_get_tree,
	.reconfigure		= awfs_reconfigure,
	.free			= awfs_free_fc,
};

/* For a new mount and for a remount alike. */
static int awfs_init_fs_context(struct fs_context *fc)
{
	struct awfs_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	fc->fs_private = ctx;
	fc->ops = &awfs_context_ops;
	return 0;
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
	.init_fs_context = awfs_init_fs_context,
	.parameters	= awfs_fs_parameters,
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
