// SPDX-License-Identifier: GPL-2.0
/*
 * awblk: a stacking block device over one lower block device that exposes
 * atomic-write limits and makes atomic writes through an engine.
 *
 * Normal I/O is remapped to the lower device without a copy. An atomic
 * write (the AW_IOC_ATOMIC_WRITE ioctl, a REQ_ATOMIC bio where the kernel
 * has them, or a whole unit in untorn mode) is validated with the upstream
 * rules and handed to the engine as exactly one bio, which the engine turns
 * into one atomic command.
 *
 * Here: the engines, creating and removing devices, the control node and
 * the module. The I/O paths are in awblk_io.c, the device's ioctls in
 * awblk_ioctl.c, its sysfs files in awblk_sysfs.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/idr.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/namei.h>
#include <linux/kmod.h>
#include <linux/workqueue.h>
#include <linux/pagemap.h>

#include "uapi/awkit.h"
#include "awblk.h"
#include "awblk_logic.h"
#include "awblk_dev.h"

#define AWBLK_MAX_DEVICES	256

static char *lower;
module_param(lower, charp, 0444);
MODULE_PARM_DESC(lower, "create /dev/awblk0 over this block device at load");

static DEFINE_MUTEX(awblk_lock);	/* devices and engines */
static LIST_HEAD(awblk_devices);
static LIST_HEAD(awblk_engines);
static DEFINE_IDA(awblk_ida);
/* Writeback's gathered units go out from here: it must run under reclaim. */
struct workqueue_struct *awblk_wq;
static int awblk_major;

static const char *const engine_names[] = {
	[AW_ENGINE_AUTO] = "auto", [AW_ENGINE_NONE] = "none",
	[AW_ENGINE_SCSI] = "scsi", [AW_ENGINE_NVME] = "nvme",
	[AW_ENGINE_SW] = "sw",
};

/* ---- engines ---- */

int awblk_register_engine(struct awblk_engine *e)
{
	struct awblk_engine *x;
	int ret = 0;

	if (!e->probe || !e->submit || e->id > AW_ENGINE_MAX)
		return -EINVAL;
	mutex_lock(&awblk_lock);
	list_for_each_entry(x, &awblk_engines, list)
		if (x->id == e->id)
			ret = -EEXIST;
	if (!ret)
		list_add_tail(&e->list, &awblk_engines);
	mutex_unlock(&awblk_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(awblk_register_engine);

void awblk_unregister_engine(struct awblk_engine *e)
{
	mutex_lock(&awblk_lock);
	list_del(&e->list);
	mutex_unlock(&awblk_lock);
}
EXPORT_SYMBOL_GPL(awblk_unregister_engine);

static struct awblk_engine *awblk_find_engine(unsigned int id)
{
	struct awblk_engine *e;

	list_for_each_entry(e, &awblk_engines, list)
		if (e->id == id)
			return e;
	return NULL;
}

/*
 * The first block of @bdev (at least a page), in pages of order *@order;
 * NULL when it cannot be read (its I/O fails later anyway).
 */
static u8 *awblk_read_head(struct block_device *bdev, u32 *len,
			   unsigned int *order)
{
	struct page *p;
	struct bio_vec bv;
	struct bio bio;
	int ret;

	*len = max_t(u32, bdev_logical_block_size(bdev), PAGE_SIZE);
	*order = get_order(*len);
	p = alloc_pages(GFP_KERNEL, *order);
	if (!p)
		return NULL;
	bio_init(&bio, bdev, &bv, 1, REQ_OP_READ);
	__bio_add_page(&bio, p, *len, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	if (ret) {
		__free_pages(p, *order);
		return NULL;
	}
	return page_address(p);
}

/*
 * May @e (NULL: none, a pass-through) have a device that starts with
 * @head? One that carries the software engine's format only goes to an
 * engine that recognises it there: any other would show the journal as
 * data, and writes there would destroy it.
 */
static bool awblk_format_ok(const struct awblk_engine *e, const u8 *head,
			    u32 len)
{
	if (!head || memcmp(head, AW_SW_SIGNATURE, AW_SW_SIGNATURE_LEN))
		return true;
	return e && e->format_at && e->format_at(head, len);
}

/* The engine @id, loaded on demand, with a reference on its module. */
static struct awblk_engine *awblk_get_engine(unsigned int id)
{
	struct awblk_engine *e;

	mutex_lock(&awblk_lock);
	e = awblk_find_engine(id);
	/*
	 * Ask modprobe each time, as get_fs_type() does: a module installed
	 * or made loadable since the last try counts.
	 */
	if (!e) {
		mutex_unlock(&awblk_lock);
		request_module("awblk-engine-%s", engine_names[id]);
		mutex_lock(&awblk_lock);
		e = awblk_find_engine(id);
	}
	if (e && !try_module_get(e->owner))
		e = NULL;
	mutex_unlock(&awblk_lock);
	return e;
}

/*
 * Probe @e (referenced; the reference goes with it, or is put) for @d: 0
 * and d->engine set when it takes the device; -ENODEV when it offers
 * nothing and was not @named; another errno when the device is its but
 * unusable.
 */
static int awblk_probe_engine(struct awblk_dev *d, struct awblk_engine *e,
			      bool named, const struct awblk_hwinfo *info,
			      struct aw_atomic_limits *hw)
{
	int ret = e->probe(d->lower.bdev, info, hw, &d->engine_priv);

	/* Asked for by name, an engine may offer nothing. */
	if (!ret && (hw->unit_max || named)) {
		d->engine = e;
		return 0;
	}
	if (!ret && e->release)
		e->release(d->engine_priv);
	d->engine_priv = NULL;
	module_put(e->owner);
	memset(hw, 0, sizeof(*hw));
	return ret ?: -ENODEV;	/* probed, but offers nothing */
}

/* Bind engine @id (or none), asked for by name, to @d starting @head. */
static int awblk_bind_named(struct awblk_dev *d, unsigned int id,
			    const struct awblk_hwinfo *info,
			    struct aw_atomic_limits *hw, const u8 *head, u32 len)
{
	struct awblk_engine *e = NULL;

	/* The signature is the software engine's: no other is even loaded. */
	if (id != AW_ENGINE_SW && !awblk_format_ok(NULL, head, len))
		goto refuse;
	if (id == AW_ENGINE_NONE)
		return 0;	/* a pass-through */
	e = awblk_get_engine(id);
	if (!e)
		return -ENODEV;
	if (awblk_format_ok(e, head, len))
		return awblk_probe_engine(d, e, true, info, hw);
	module_put(e->owner);
refuse:
	pr_info("%pg: holds the software engine's format: only --engine sw or auto may use it\n",
		d->lower.bdev);
	return -EINVAL;
}

/* Bind the first engine that claims @d, whose start is @head, or none. */
static int awblk_bind_auto(struct awblk_dev *d, const struct awblk_hwinfo *info,
			   struct aw_atomic_limits *hw, const u8 *head, u32 len)
{
	/*
	 * The software engine first: a device that carries its format must
	 * be used with it (the data sits past the journal), whatever else
	 * the hardware can do.
	 */
	static const unsigned int order[] = {
		AW_ENGINE_SW, AW_ENGINE_SCSI, AW_ENGINE_NVME
	};
	struct awblk_engine *e;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		e = awblk_get_engine(order[i]);
		if (!e)
			continue;
		if (!awblk_format_ok(e, head, len)) {
			module_put(e->owner);
			continue;
		}
		ret = awblk_probe_engine(d, e, false, info, hw);
		/* Bound, or the device is this engine's but unusable. */
		if (ret != -ENODEV)
			return ret;
	}
	/*
	 * The software engine did not take its format (not loadable, say):
	 * no other engine, and no pass-through, may expose the journal.
	 */
	if (!awblk_format_ok(NULL, head, len)) {
		pr_info("%pg: holds the software engine's format, but the software engine is not available\n",
			d->lower.bdev);
		return -ENODEV;
	}
	return 0;	/* nothing claims the device: a plain pass-through */
}

/*
 * Bind an engine to @d: the one asked for, or with AW_ENGINE_AUTO the first
 * that claims the lower device. Engines live in their own modules, loaded on
 * demand by alias. Called without awblk_lock (request_module sleeps long).
 */
static int awblk_bind_engine(struct awblk_dev *d, unsigned int id,
			     const struct awblk_hwinfo *info, struct aw_atomic_limits *hw)
{
	unsigned int horder;
	u32 len;
	u8 *head;
	int ret;

	memset(hw, 0, sizeof(*hw));
	head = awblk_read_head(d->lower.bdev, &len, &horder);
	if (id == AW_ENGINE_AUTO)
		ret = awblk_bind_auto(d, info, hw, head, len);
	else
		ret = awblk_bind_named(d, id, info, hw, head, len);
	if (head)
		free_pages((unsigned long)head, horder);
	return ret;
}

static void awblk_unbind_engine(struct awblk_dev *d)
{
	if (!d->engine)
		return;
	if (d->engine->release)
		d->engine->release(d->engine_priv);
	module_put(d->engine->owner);
	d->engine = NULL;
}

/* Called under disk->open_mutex, as awblk_remove decides. */
static int awblk_open_disk(struct gendisk *disk)
{
	struct awblk_dev *d = disk->private_data;

	return d->deleting ? -ENXIO : 0;
}

AW_DEFINE_DISK_OPEN(awblk_open, awblk_open_disk)

static void awblk_free_dev(struct awblk_dev *d);

/* The last reference to the disk is gone: no opener can reach @d now. */
static void awblk_free_disk(struct gendisk *disk)
{
	struct awblk_dev *d = disk->private_data;

	if (d && d->registered)
		awblk_free_dev(d);
}

const struct block_device_operations awblk_fops = {
	.owner		= THIS_MODULE,
	.open		= awblk_open,
	.free_disk	= awblk_free_disk,
	.submit_bio	= awblk_submit_bio,
	.ioctl		= awblk_ioctl,
	/* The uapi structs are laid out alike for 32-bit callers. */
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
};

/* ---- create and remove ---- */

static struct awblk_dev *awblk_find_dev(int index)
{
	struct awblk_dev *d;

	list_for_each_entry(d, &awblk_devices, list)
		if (d->index == index)
			return d;
	return NULL;
}

static void awblk_free_dev(struct awblk_dev *d)
{
	bool registered = d->registered;

	awblk_unbind_engine(d);
	bioset_exit(&d->bs);
	bioset_exit(&d->flush_bs);
	if (d->lower.bdev)
		aw_lower_close(&d->lower, d);
	if (d->index >= 0)
		ida_free(&awblk_ida, d->index);
	kfree(d);
	/*
	 * Taken when the device was registered: devices pin the module. Last,
	 * so that nothing of this module runs after it but the return.
	 */
	if (registered)
		module_put(THIS_MODULE);
}

static void awblk_derive(struct awblk_dev *d, const struct aw_atomic_limits *hw,
			 u64 cap)
{
	struct block_device *b = d->lower.bdev;
	struct request_queue *q = bdev_get_queue(b);
	struct awblk_queue qp = {
		.lbs = bdev_logical_block_size(b),
		.max_hw_sectors = queue_max_hw_sectors(q),
		.max_segments = queue_max_segments(q),
		.page_size = PAGE_SIZE,
		.start = (u64)(get_start_sect(b) + d->start) << 9,
	};

	awblk_derive_limits(hw, &qp, cap, &d->lim);
}

/* The part of the lower device we export: all of it, or the engine's say. */
static void awblk_set_geometry(struct awblk_dev *d)
{
	sector_t nr = bdev_nr_sectors(d->lower.bdev);

	d->start = 0;
	if (d->engine && d->engine->geometry)
		d->engine->geometry(d->engine_priv, &d->start, &nr);
	d->size = (u64)nr << SECTOR_SHIFT;
}

static int awblk_check_create(const struct aw_create *c)
{
	int i;

	if (c->flags || c->engine > AW_ENGINE_MAX)
		return -EINVAL;
	/* dev_t has 12 major and 20 minor bits: no aliasing through MKDEV. */
	if (c->lower_major >= 1U << 12 || c->lower_minor >= 1U << 20)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(c->reserved); i++)
		if (c->reserved[i])
			return -EINVAL;
	if (c->untorn && !is_power_of_2(c->untorn))
		return -EINVAL;
	if (c->unit_max > U32_MAX || c->untorn > U32_MAX)
		return -EINVAL;
	if (c->hwinfo_len > AW_HWINFO_MAX || !c->hwinfo != !c->hwinfo_len ||
	    (c->hwinfo_len && c->engine == AW_ENGINE_NONE))
		return -EINVAL;
	return 0;
}

static int awblk_setup_disk(struct awblk_dev *d)
{
	struct gendisk *disk;
	int ret;

	/* Untorn units come from page caches too: they must hold still. */
	disk = aw_alloc_stacked_disk(d->lower.bdev, &d->lim, d->untorn);
	if (IS_ERR(disk))
		return PTR_ERR(disk);
	disk->major = awblk_major;
	disk->first_minor = d->index;
	disk->minors = 1;
	disk->fops = &awblk_fops;
	disk->private_data = d;
	snprintf(disk->disk_name, DISK_NAME_LEN, "awblk%d", d->index);
	set_capacity(disk, d->size >> SECTOR_SHIFT);
	d->disk = disk;
	ret = device_add_disk(NULL, disk, awblk_groups);
	if (ret) {
		put_disk(disk);
		d->disk = NULL;
	}
	return ret;
}

/*
 * No opener may reach @d after this: opens are refused, no new bio arrives
 * after del_gendisk, and the last put_disk (ours, or that of an open that
 * lost the race) frees @d through ->free_disk.
 */
static void awblk_kill_disk(struct awblk_dev *d)
{
	struct gendisk *disk = d->disk;

	mutex_lock(&disk->open_mutex);
	d->deleting = true;
	mutex_unlock(&disk->open_mutex);
	del_gendisk(disk);
	flush_work(&d->gather_work);
	put_disk(disk);
}

/* The disk is live and may be open: from here on ->free_disk frees @d. */
static int awblk_register_disk(struct awblk_dev *d)
{
	int ret;

	__module_get(THIS_MODULE);
	d->registered = true;
	ret = bd_link_disk_holder(d->lower.bdev, d->disk);
	if (ret)
		goto kill;
	ret = awblk_add_queue_attrs(d);
	if (ret)
		goto unlink;
	return 0;
unlink:
	bd_unlink_disk_holder(d->lower.bdev, d->disk);
kill:
	awblk_kill_disk(d);
	return ret;
}

static void awblk_teardown_disk(struct awblk_dev *d)
{
	awblk_remove_queue_attrs(d);
	bd_unlink_disk_holder(d->lower.bdev, d->disk);
	awblk_kill_disk(d);
}

/* The engine's hardware facts from user space, copied in whole or not at all. */
static int awblk_copy_hwinfo(const struct aw_create *c,
			     struct awblk_hwinfo *info)
{
	void *data;

	info->data = NULL;
	info->len = 0;
	if (!c->hwinfo_len)
		return 0;
	data = memdup_user(u64_to_user_ptr(c->hwinfo), c->hwinfo_len);
	if (IS_ERR(data))
		return PTR_ERR(data);
	info->data = data;
	info->len = c->hwinfo_len;
	return 0;
}

/*
 * A device made but not yet visible: nothing can open it, so an undo is
 * awblk_free_dev(). awblk_publish() adds the disk.
 */
static struct awblk_dev *awblk_prepare(const struct aw_create *c)
{
	dev_t devt = MKDEV(c->lower_major, c->lower_minor);
	struct awblk_hwinfo info;
	struct aw_atomic_limits hw;
	struct awblk_dev *d;
	int ret = awblk_check_create(c);

	if (ret)
		return ERR_PTR(ret);
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	d->index = ida_alloc_max(&awblk_ida, AWBLK_MAX_DEVICES - 1, GFP_KERNEL);
	if (d->index < 0) {
		ret = d->index;
		goto fail;
	}
	/* Major 0 is never a block device: no open, no module autoload. */
	ret = c->lower_major ? aw_lower_open(&d->lower, devt, d) : -ENXIO;
	if (ret) {
		d->lower.bdev = NULL;
		pr_info_ratelimited("cannot open %u:%u: error %d%s\n",
				    c->lower_major, c->lower_minor, ret,
				    ret == -EBUSY ?
				    " (held exclusively by another user)" : "");
		goto fail;
	}
	spin_lock_init(&d->gather_lock);
	bio_list_init(&d->deferred);
	INIT_WORK(&d->gather_work, awblk_gather_work);
	/* Splits are made inside ->submit_bio: a rescuer keeps them moving. */
	ret = bioset_init(&d->bs, BIO_POOL_SIZE, 0, BIOSET_NEED_RESCUER);
	/*
	 * One flush clone per entry, and the only one that can wait on
	 * current->bio_list (an untorn split's remainder) never allocates
	 * again: no rescuer.
	 */
	if (!ret)
		ret = bioset_init(&d->flush_bs, BIO_POOL_SIZE,
				  offsetof(struct awblk_flush, clone), 0);
	if (ret)
		goto fail;
	ret = awblk_copy_hwinfo(c, &info);
	if (ret)
		goto fail;
	info.named = c->engine != AW_ENGINE_AUTO;
	ret = awblk_bind_engine(d, c->engine, &info, &hw);
	kfree(info.data);
	if (ret) {
		pr_info_ratelimited("engine %s cannot drive %pg: error %d\n",
				    engine_names[c->engine], d->lower.bdev,
				    ret);
		goto fail;
	}
	awblk_set_geometry(d);
	awblk_derive(d, &hw, c->unit_max);
	if (c->untorn && !awblk_untorn_ok(&d->lim, c->untorn)) {
		pr_info("untorn unit %llu is not a power of two within the atomic limits [%u, %u] of %pg\n",
			c->untorn, d->lim.unit_min, d->lim.unit_max,
			d->lower.bdev);
		ret = -EINVAL;
		goto fail;
	}
	d->untorn = c->untorn;
	return d;
fail:
	awblk_free_dev(d);
	return ERR_PTR(ret);
}

static int awblk_publish(struct awblk_dev *d)
{
	int ret = awblk_setup_disk(d);

	if (ret) {
		awblk_free_dev(d);
		return ret;
	}
	ret = awblk_register_disk(d);
	if (ret)
		return ret;	/* @d is ->free_disk's now */
	pr_info("awblk%d over %pg: engine %s, atomic unit %u..%u, max %u, boundary %u, untorn %u\n",
		d->index, d->lower.bdev, d->engine ? d->engine->name : "none",
		d->lim.unit_min, d->lim.unit_max, d->lim.max_bytes,
		d->lim.boundary, d->untorn);
	/* Last: from here on a remove may free @d. */
	mutex_lock(&awblk_lock);
	list_add_tail(&d->list, &awblk_devices);
	mutex_unlock(&awblk_lock);
	return 0;
}

/*
 * Make a device. With @argp, @c goes back to user space with the index
 * before the device appears: a caller who cannot learn the index gets no
 * device (a visible one might already be open, and could not be undone).
 */
static int awblk_create(struct aw_create *c, void __user *argp)
{
	struct awblk_dev *d = awblk_prepare(c);

	if (IS_ERR(d))
		return PTR_ERR(d);
	c->index = d->index;
	if (argp && copy_to_user(argp, c, sizeof(*c))) {
		awblk_free_dev(d);
		return -EFAULT;
	}
	return awblk_publish(d);
}

static int awblk_remove(const struct aw_remove *r)
{
	struct awblk_dev *d;
	bool busy;
	int i;

	if (r->flags)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(r->reserved); i++)
		if (r->reserved[i])
			return -EINVAL;
	mutex_lock(&awblk_lock);
	d = awblk_find_dev(r->index);
	if (!d) {
		mutex_unlock(&awblk_lock);
		return -ENXIO;
	}
	/* As loop does: decide under open_mutex, which every open takes. */
	mutex_lock(&d->disk->open_mutex);
	busy = disk_openers(d->disk);
	if (!busy)
		d->deleting = true;
	mutex_unlock(&d->disk->open_mutex);
	if (busy) {
		mutex_unlock(&awblk_lock);
		return -EBUSY;
	}
	list_del(&d->list);
	mutex_unlock(&awblk_lock);
	awblk_teardown_disk(d);
	return 0;
}

/* ---- the control node ---- */

static long awblk_ctl_ioctl(struct file *f, unsigned int cmd,
			    unsigned long arg)
{
	void __user *argp = (void __user *)arg;
	struct aw_create c;
	struct aw_remove r;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	switch (cmd) {
	case AW_IOC_CREATE:
		if (copy_from_user(&c, argp, sizeof(c)))
			return -EFAULT;
		return awblk_create(&c, argp);
	case AW_IOC_REMOVE:
		if (copy_from_user(&r, argp, sizeof(r)))
			return -EFAULT;
		return awblk_remove(&r);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations awblk_ctl_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= awblk_ctl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice awblk_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= AW_CONTROL_NAME,
	.fops	= &awblk_ctl_fops,
	.mode	= 0600,
};

static dev_t param_devt;

/*
 * lower= at load time. Engines are modules that depend on awblk, so they
 * can only load once awblk is live: the device is created from a work item
 * queued when the module notifier says awblk is live.
 */
static void awblk_create_from_param(struct work_struct *work)
{
	struct aw_create c = {
		.engine = AW_ENGINE_AUTO,
		.lower_major = MAJOR(param_devt),
		.lower_minor = MINOR(param_devt),
	};
	int ret;

	/* An rmmod may have begun meanwhile: then create nothing. */
	if (!try_module_get(THIS_MODULE))
		return;
	ret = awblk_create(&c, NULL);
	if (ret)
		pr_err("lower=%s: cannot create a device (error %d)\n", lower,
		       ret);
	module_put(THIS_MODULE);
}
static DECLARE_WORK(param_work, awblk_create_from_param);

static int awblk_module_event(struct notifier_block *nb, unsigned long state,
			      void *data)
{
	if (data == THIS_MODULE && state == MODULE_STATE_LIVE)
		schedule_work(&param_work);
	return NOTIFY_DONE;
}

static struct notifier_block awblk_module_nb = {
	.notifier_call = awblk_module_event,
};

static int __init awblk_init(void)
{
	int ret;

	awblk_wq = alloc_workqueue("awblk", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!awblk_wq)
		return -ENOMEM;
	awblk_major = register_blkdev(0, "awblk");
	if (awblk_major < 0) {
		ret = awblk_major;
		goto destroy;
	}
	ret = misc_register(&awblk_misc);
	if (ret)
		goto unregister;
	if (lower && *lower) {
		ret = lookup_bdev(lower, &param_devt);
		if (ret) {
			pr_err("lower=%s: not a block device (error %d)\n",
			       lower, ret);
			goto deregister;
		}
		ret = register_module_notifier(&awblk_module_nb);
		if (ret)
			goto deregister;
	}
	return 0;
deregister:
	misc_deregister(&awblk_misc);
unregister:
	unregister_blkdev(awblk_major, "awblk");
destroy:
	destroy_workqueue(awblk_wq);
	return ret;
}

/* Devices hold a module reference: there are none left when this runs. */
static void __exit awblk_exit(void)
{
	if (lower && *lower)
		unregister_module_notifier(&awblk_module_nb);
	cancel_work_sync(&param_work);
	misc_deregister(&awblk_misc);
	unregister_blkdev(awblk_major, "awblk");
	destroy_workqueue(awblk_wq);
	ida_destroy(&awblk_ida);
}

module_init(awblk_init);
module_exit(awblk_exit);
MODULE_DESCRIPTION("awkit stacking block device with atomic writes");
MODULE_AUTHOR("awkit developers");
MODULE_LICENSE("GPL");
