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
#include <linux/sort.h>
#include <linux/workqueue.h>
#include <linux/pagemap.h>

#include "uapi/awkit.h"
#include "awblk.h"
#include "awblk_logic.h"
#include "sw_format.h"

#define AWBLK_MAX_DEVICES	256

static char *lower;
module_param(lower, charp, 0444);
MODULE_PARM_DESC(lower, "create /dev/awblk0 over this block device at load");

static const struct block_device_operations awblk_fops;

struct awblk_dev {
	int index;
	struct gendisk *disk;
	bool deleting;			/* under disk->open_mutex: opens refused */
	bool registered;		/* freed by ->free_disk from now on */
	struct aw_lower lower;
	struct awblk_engine *engine;
	void *engine_priv;
	struct awblk_limits lim;
	u32 untorn;
	sector_t start;			/* of the exported part of lower */
	u64 size;			/* bytes */
	struct bio_set bs;
	struct list_head list;
	spinlock_t gather_lock;		/* deferred */
	struct bio_list deferred;	/* gathered, for gather_work */
	struct work_struct gather_work;
	atomic64_t atomic_writes, atomic_bytes, untorn_units;
	atomic64_t rejects[AWB_NREASONS];
};

static DEFINE_MUTEX(awblk_lock);	/* devices and engines */
static LIST_HEAD(awblk_devices);
static LIST_HEAD(awblk_engines);
static DEFINE_IDA(awblk_ida);
/* Writeback's gathered units go out from here: it must run under reclaim. */
static struct workqueue_struct *awblk_wq;
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

static struct awblk_engine *find_engine(unsigned int id)
{
	struct awblk_engine *e;

	list_for_each_entry(e, &awblk_engines, list)
		if (e->id == id)
			return e;
	return NULL;
}

/*
 * Does @bdev start with the software engine's superblock? Then no other
 * engine may have it: it would show the journal as data, and writes there
 * would destroy the journal.
 */
static int has_sw_format(struct block_device *bdev)
{
	unsigned int len = max_t(unsigned int, bdev_logical_block_size(bdev),
				 PAGE_SIZE);
	struct page *p = alloc_pages(GFP_KERNEL, get_order(len));
	struct bio_vec bv;
	struct bio bio;
	int ret;

	if (!p)
		return -ENOMEM;
	bio_init(&bio, bdev, &bv, 1, REQ_OP_READ);
	__bio_add_page(&bio, p, len, 0);
	ret = submit_bio_wait(&bio);
	if (!ret)
		ret = awsw_format_at(page_address(p), len);
	bio_uninit(&bio);
	__free_pages(p, get_order(len));
	return ret;
}

/*
 * Bind an engine to @d: the one asked for, or with AW_ENGINE_AUTO the first
 * that claims the lower device. Engines live in their own modules, loaded on
 * demand by alias. Called without awblk_lock (request_module sleeps long).
 */
static int bind_engine(struct awblk_dev *d, unsigned int id,
		       const struct awblk_hwinfo *info, struct aw_atomic_hw *hw)
{
	/*
	 * The software engine first: a device that carries its format must
	 * be used with it (the data sits past the journal), whatever else
	 * the hardware can do.
	 */
	static const unsigned int order[] = {
		AW_ENGINE_SW, AW_ENGINE_SCSI, AW_ENGINE_NVME
	};
	bool sw_format = false;
	unsigned int i;
	int ret = -ENODEV;

	memset(hw, 0, sizeof(*hw));
	/* A disk that cannot be read here fails its I/O later. */
	if (id != AW_ENGINE_SW)
		sw_format = has_sw_format(d->lower.bdev) > 0;
	if (sw_format && id != AW_ENGINE_AUTO) {
		pr_info("%pg: holds the software engine's format: only --engine sw or auto may use it\n",
			d->lower.bdev);
		return -EINVAL;
	}
	if (id == AW_ENGINE_NONE)
		return 0;
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		unsigned int want = id == AW_ENGINE_AUTO ? order[i] : id;
		struct awblk_engine *e;

		/*
		 * Auto, and the software engine did not take its format (not
		 * loadable, say): no other engine, and no pass-through, may
		 * expose the journal as data.
		 */
		if (sw_format && want != AW_ENGINE_SW) {
			pr_info("%pg: holds the software engine's format, but the software engine is not available\n",
				d->lower.bdev);
			return -ENODEV;
		}

		mutex_lock(&awblk_lock);
		e = find_engine(want);
		/*
		 * Ask modprobe each time, as get_fs_type() does: a module
		 * installed or made loadable since the last try counts.
		 */
		if (!e) {
			mutex_unlock(&awblk_lock);
			request_module("awblk-engine-%s", engine_names[want]);
			mutex_lock(&awblk_lock);
			e = find_engine(want);
		}
		if (e && !try_module_get(e->owner))
			e = NULL;
		mutex_unlock(&awblk_lock);
		if (e) {
			ret = e->probe(d->lower.bdev, info, hw,
				       &d->engine_priv);
			/* Asked for by name, an engine may offer nothing. */
			if (!ret && (hw->unit_max || id != AW_ENGINE_AUTO)) {
				d->engine = e;
				return 0;
			}
			if (!ret && e->release)
				e->release(d->engine_priv);
			module_put(e->owner);
			if (!ret)
				ret = -ENODEV;	/* probed, but offers nothing */
		}
		/* The device is this engine's, but what it was told is wrong. */
		if (id != AW_ENGINE_AUTO || (ret && ret != -ENODEV))
			break;
	}
	if (id == AW_ENGINE_AUTO && (!ret || ret == -ENODEV)) {
		/* Nothing claims the device: a plain pass-through. */
		memset(hw, 0, sizeof(*hw));
		return 0;
	}
	return ret;
}

static void unbind_engine(struct awblk_dev *d)
{
	if (!d->engine)
		return;
	if (d->engine->release)
		d->engine->release(d->engine_priv);
	module_put(d->engine->owner);
	d->engine = NULL;
}

/* ---- I/O ---- */

static void count_reject(struct awblk_dev *d, enum awblk_reject r)
{
	atomic64_inc(&d->rejects[r]);
}

/* One checked atomic write, already on the lower device, to the engine. */
static void engine_atomic(struct awblk_dev *d, struct bio *bio)
{
	atomic64_inc(&d->atomic_writes);
	atomic64_add(bio->bi_iter.bi_size, &d->atomic_bytes);
	aw_bio_set_atomic(bio);
	d->engine->submit(d->engine_priv, bio);
}

/*
 * Hand one whole atomic write to the engine, remapped to the lower device
 * like any other bio (no clone): the engine completes it.
 */
static void submit_atomic(struct awblk_dev *d, struct bio *bio)
{
	bio_set_dev(bio, d->lower.bdev);
	bio->bi_iter.bi_sector += d->start;
	engine_atomic(d, bio);
}

/* A REQ_ATOMIC bio from above (pwritev2 with RWF_ATOMIC, where it exists). */
static void submit_native_atomic(struct awblk_dev *d, struct bio *bio)
{
	enum awblk_reject r = AWB_NOSUPPORT;

	if (d->engine && bio_op(bio) == REQ_OP_WRITE)
		r = awblk_check_write(&d->lim, d->size,
				      (u64)bio->bi_iter.bi_sector << 9,
				      bio->bi_iter.bi_size, 1);
	if (r != AWB_OK) {
		count_reject(d, r);
		bio->bi_status = errno_to_blk_status(awblk_reject_errno(r));
		bio_endio(bio);
		return;
	}
	submit_atomic(d, bio);
}

static void remap(struct awblk_dev *d, struct bio *bio)
{
	bio_set_dev(bio, d->lower.bdev);
	bio->bi_iter.bi_sector += d->start;
	if (d->engine && d->engine->submit_plain)
		d->engine->submit_plain(d->engine_priv, bio);
	else
		submit_bio_noacct(bio);
}

/*
 * Untorn mode gathers the partial-unit pieces a task submits under one plug
 * (page-cache writeback sends a unit as several small bios): at unplug, a
 * run of contiguous pieces that fills a whole unit goes to the engine as one
 * atomic write; the other pieces go down as normal writes.
 */
struct awblk_plug {
	struct blk_plug_cb cb;
	struct bio_list pieces;
};

struct awblk_gather {
	unsigned int n;
	struct bio *parts[];
};

static void gather_endio(struct bio *bio)
{
	struct awblk_gather *g = bio->bi_private;
	unsigned int i;

	for (i = 0; i < g->n; i++) {
		g->parts[i]->bi_status = bio->bi_status;
		bio_endio(g->parts[i]);
	}
	kfree(g);
	bio_put(bio);
}

/* One atomic write made of @n contiguous pieces that fill a unit. */
static bool submit_gathered(struct awblk_dev *d, struct bio **parts,
			    unsigned int n)
{
	unsigned int i, vecs = 0;
	struct awblk_gather *g;
	struct bvec_iter it;
	struct bio_vec bv;
	struct bio *bio;
	blk_opf_t opf = REQ_OP_WRITE;

	for (i = 0; i < n; i++) {
		vecs += bio_segments(parts[i]);
		opf |= parts[i]->bi_opf & (REQ_FUA | REQ_SYNC | REQ_META |
					   REQ_PRIO);
	}
	if (vecs > BIO_MAX_VECS)
		return false;
	g = kmalloc(struct_size(g, parts, n), GFP_NOIO);
	bio = g ? bio_alloc(d->lower.bdev, vecs, opf, GFP_NOIO) : NULL;
	if (!bio) {
		kfree(g);
		return false;
	}
	bio->bi_iter.bi_sector = parts[0]->bi_iter.bi_sector + d->start;
	bio->bi_ioprio = parts[0]->bi_ioprio;
	/* Made in a work item: charge it to the writer's cgroup, not root. */
	bio_clone_blkg_association(bio, parts[0]);
	for (i = 0; i < n; i++) {
		bio_for_each_segment(bv, parts[i], it) {
			if (bio_add_page(bio, bv.bv_page, bv.bv_len,
					 bv.bv_offset) != bv.bv_len) {
				bio_put(bio);
				kfree(g);
				return false;
			}
		}
	}
	g->n = n;
	memcpy(g->parts, parts, n * sizeof(*parts));
	bio->bi_private = g;
	bio->bi_end_io = gather_endio;
	aw_bio_set_atomic(bio);
	atomic64_inc(&d->untorn_units);
	atomic64_inc(&d->atomic_writes);
	atomic64_add(bio->bi_iter.bi_size, &d->atomic_bytes);
	d->engine->submit(d->engine_priv, bio);
	return true;
}

static int cmp_sector(const void *a, const void *b)
{
	sector_t x = (*(struct bio * const *)a)->bi_iter.bi_sector;
	sector_t y = (*(struct bio * const *)b)->bi_iter.bi_sector;

	return x < y ? -1 : x > y;
}

/* Pieces from j that exactly fill the unit starting at parts[j]. */
static unsigned int unit_run(struct awblk_dev *d, struct bio **parts,
			     unsigned int n, unsigned int j)
{
	u64 start = (u64)parts[j]->bi_iter.bi_sector << 9, end = start;
	unsigned int k = j;

	if (start % d->untorn)
		return 0;
	while (k < n && end < start + d->untorn &&
	       (u64)parts[k]->bi_iter.bi_sector << 9 == end) {
		end += parts[k]->bi_iter.bi_size;
		k++;
	}
	return end == start + d->untorn ? k - j : 0;
}

static void submit_pieces(struct awblk_dev *d, struct bio_list *list)
{
	unsigned int n = bio_list_size(list), i = 0, run;
	struct bio **parts = kmalloc_array(n, sizeof(*parts), GFP_NOIO);
	struct bio *bio;

	if (!parts) {
		while ((bio = bio_list_pop(list)))
			remap(d, bio);
		return;
	}
	while ((bio = bio_list_pop(list)))
		parts[i++] = bio;
	sort(parts, n, sizeof(*parts), cmp_sector, NULL);
	for (i = 0; i < n; i += run ? run : 1) {
		run = unit_run(d, parts, n, i);
		if (run && submit_gathered(d, parts + i, run))
			continue;
		run = 0;
		remap(d, parts[i]);
	}
	kfree(parts);
}

static void gather_work(struct work_struct *w)
{
	struct awblk_dev *d = container_of(w, struct awblk_dev, gather_work);
	struct bio_list list;

	spin_lock_irq(&d->gather_lock);
	list = d->deferred;
	bio_list_init(&d->deferred);
	spin_unlock_irq(&d->gather_lock);
	submit_pieces(d, &list);
}

static void awblk_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct awblk_plug *p = container_of(cb, struct awblk_plug, cb);
	struct awblk_dev *d = cb->data;

	if (from_schedule) {
		/* Not from inside schedule(): submitting may sleep. */
		spin_lock_irq(&d->gather_lock);
		bio_list_merge(&d->deferred, &p->pieces);
		spin_unlock_irq(&d->gather_lock);
		queue_work(awblk_wq, &d->gather_work);
	} else {
		submit_pieces(d, &p->pieces);
	}
	kfree(p);
}

static void submit_piece(struct awblk_dev *d, struct bio *bio)
{
	struct blk_plug_cb *cb;

	if (bio->bi_opf & REQ_PREFLUSH)
		goto direct;
	cb = blk_check_plugged(awblk_unplug, d, sizeof(struct awblk_plug));
	if (!cb)
		goto direct;
	bio_list_add(&container_of(cb, struct awblk_plug, cb)->pieces, bio);
	return;
direct:
	remap(d, bio);
}

/*
 * Untorn mode: split the write exactly at unit boundaries; each whole,
 * aligned unit goes to the engine as one atomic write, partial units go down
 * as normal writes. One split per call, the rest resubmitted (it comes back
 * here once this call returns), as the block layer splits: the split before
 * it is on its way down by then (or in the plug, which a wait in the pool
 * flushes), so the pool's reserve is enough under memory pressure.
 */
static void submit_untorn(struct awblk_dev *d, struct bio *bio)
{
	u64 unit = d->untorn;
	u64 off = (u64)bio->bi_iter.bi_sector << 9;
	u64 piece = awblk_untorn_piece(off, bio->bi_iter.bi_size, unit);

	if (piece < bio->bi_iter.bi_size) {
		struct bio *split = bio_split(bio, piece >> 9, GFP_NOIO, &d->bs);

		if (IS_ERR_OR_NULL(split)) {
			bio_io_error(bio);
			return;
		}
		bio_chain(split, bio);
		submit_bio_noacct(bio);
		bio = split;
	}
	if (piece == unit && !(off % unit)) {
		atomic64_inc(&d->untorn_units);
		submit_atomic(d, bio);
	} else {
		submit_piece(d, bio);
	}
}

static void queued_atomic_endio(struct bio *clone);

static void awblk_submit_bio(struct bio *bio)
{
	struct awblk_dev *d = bio->bi_bdev->bd_disk->private_data;

	if (aw_bio_is_atomic(bio) || bio->bi_end_io == queued_atomic_endio)
		submit_native_atomic(d, bio);
	else if (d->untorn && bio_op(bio) == REQ_OP_WRITE &&
		 bio->bi_iter.bi_size)
		submit_untorn(d, bio);
	else
		remap(d, bio);
}

/* A bio waited for: the ioctl's atomic writes and awfs's direct ones. */
struct awblk_wait {
	struct completion done;
	blk_status_t status;
};

static void wait_endio(struct bio *bio)
{
	struct awblk_wait *w = bio->bi_private;

	w->status = bio->bi_status;
	complete(&w->done);
}

/* Send @bio with @submit and wait for it: its status as an errno. */
static int submit_wait(struct awblk_dev *d, struct bio *bio,
		       void (*submit)(struct awblk_dev *d, struct bio *bio))
{
	struct awblk_wait w;

	init_completion(&w.done);
	bio->bi_private = &w;
	bio->bi_end_io = wait_endio;
	submit(d, bio);
	wait_for_completion_io(&w.done);
	return blk_status_to_errno(w.status);
}

/* ---- in-kernel users (awfs): limits and atomic writes by bio ---- */

static struct awblk_dev *bdev_awblk(struct block_device *bdev)
{
	if (bdev->bd_disk->fops != &awblk_fops || bdev_is_partition(bdev))
		return NULL;
	return bdev->bd_disk->private_data;
}

static void get_limits(struct awblk_dev *d, struct aw_limits *l);

/**
 * awblk_bdev_limits - the atomic limits of an awblk device
 * @bdev: a block device (a file system's s_bdev, say)
 * @l: filled as AW_IOC_GET_LIMITS fills it
 *
 * Return: 0, or -ENODEV when @bdev is not a whole awblk device.
 */
int awblk_bdev_limits(struct block_device *bdev, struct aw_limits *l)
{
	struct awblk_dev *d = bdev_awblk(bdev);

	if (!d)
		return -ENODEV;
	get_limits(d, l);
	return 0;
}
EXPORT_SYMBOL_GPL(awblk_bdev_limits);

/* The clone's end is the mark by which awblk_submit_bio() knows it. */
static void queued_atomic_endio(struct bio *clone)
{
	struct bio *bio = clone->bi_private;

	bio->bi_status = clone->bi_status;
	bio_put(clone);
	bio_endio(bio);
}

/*
 * An atomic write from the kernel goes through submit_bio() as any other
 * bio does: it enters the queue (so a dying disk fails it), and is
 * throttled and counted for the cgroup it is associated with. Kernels
 * without REQ_ATOMIC have no flag to carry "atomic" there, so a clone
 * marked by its end_io carries the write and ends @bio.
 */
static void queue_atomic(struct awblk_dev *d, struct bio *bio)
{
	struct bio *clone = bio_alloc_clone(bio->bi_bdev, bio, GFP_NOIO,
					    &d->bs);

	if (!clone) {
		bio_io_error(bio);
		return;
	}
	clone->bi_private = bio;
	clone->bi_end_io = queued_atomic_endio;
	submit_bio(clone);
}

/**
 * awblk_submit_atomic - submit @bio to its awblk device as one atomic write
 * @bio: a write whose bi_bdev is an awblk device (awblk_bdev_limits() said so)
 *
 * The same checks as a REQ_ATOMIC bio or the ioctl; a write that breaks the
 * limits completes with an error and writes nothing. This is the one way to
 * make an atomic write from the kernel on 6.1, which has no REQ_ATOMIC.
 */
void awblk_submit_atomic(struct bio *bio)
{
	struct awblk_dev *d = bdev_awblk(bio->bi_bdev);

	if (WARN_ON_ONCE(!d)) {
		bio_io_error(bio);
		return;
	}
	queue_atomic(d, bio);
}
EXPORT_SYMBOL_GPL(awblk_submit_atomic);

/**
 * awblk_submit_atomic_wait - awblk_submit_atomic() and wait for the write
 * @bio: as for awblk_submit_atomic(); its bi_end_io and bi_private are ours
 *
 * Return: 0 or the write's error as an errno (-ENODEV: not an awblk
 * device, nothing sent).
 */
int awblk_submit_atomic_wait(struct bio *bio)
{
	struct awblk_dev *d = bdev_awblk(bio->bi_bdev);

	if (WARN_ON_ONCE(!d))
		return -ENODEV;
	return submit_wait(d, bio, queue_atomic);
}
EXPORT_SYMBOL_GPL(awblk_submit_atomic_wait);

/* ---- ioctls on /dev/awblkN ---- */

static void get_limits(struct awblk_dev *d, struct aw_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->unit_min = d->lim.unit_min;
	l->unit_max = d->lim.unit_max;
	l->max_bytes = d->lim.max_bytes;
	l->boundary = d->lim.boundary;
	l->segments_max = d->lim.unit_max ? 1 : 0;
	l->engine = d->engine ? d->engine->id : AW_ENGINE_NONE;
	l->untorn = d->untorn;
	l->logical_block_size = bdev_logical_block_size(d->lower.bdev);
	l->size = d->size;
}

static void free_bio_pages(struct bio *bio)
{
	struct bio_vec *bv;
	struct bvec_iter_all it;

	bio_for_each_segment_all(bv, bio, it)
		__free_page(bv->bv_page);
}

static blk_opf_t ioctl_opf(const struct aw_atomic_write *w)
{
	return REQ_OP_WRITE | REQ_SYNC | (w->flags & AW_WRITE_FLAGS ? REQ_FUA : 0);
}

/* Copy the user's data into a new bio on the lower device; nothing written. */
static struct bio *bio_copy_user(struct awblk_dev *d,
				 const struct aw_atomic_write *w)
{
	unsigned int npages = DIV_ROUND_UP(w->len, PAGE_SIZE), i;
	const char __user *ubuf = u64_to_user_ptr(w->buf);
	struct bio *bio;

	/* The limits keep unit_max within one bio of single pages. */
	if (WARN_ON_ONCE(npages > BIO_MAX_VECS))
		return ERR_PTR(-EINVAL);
	bio = bio_alloc(d->lower.bdev, npages, ioctl_opf(w), GFP_KERNEL);
	if (!bio)
		return ERR_PTR(-ENOMEM);
	bio->bi_iter.bi_sector = (w->offset >> 9) + d->start;
	for (i = 0; i < npages; i++) {
		unsigned int n = min_t(u64, PAGE_SIZE, w->len - (u64)i * PAGE_SIZE);
		struct page *page = alloc_page(GFP_KERNEL);
		int err = page ? 0 : -ENOMEM;

		if (page && copy_from_user(page_address(page),
					   ubuf + (u64)i * PAGE_SIZE, n))
			err = -EFAULT;
		if (!err && bio_add_page(bio, page, n, 0) != n)
			err = -EIO;
		if (err) {
			if (page)
				__free_page(page);
			free_bio_pages(bio);
			bio_put(bio);
			return ERR_PTR(err);
		}
	}
	return bio;
}

/*
 * Take the user's pages themselves, as direct I/O does (no copy). Only for
 * a buffer the lower device can take as it is; NULL means copy instead.
 */
static struct bio *bio_pin_user(struct awblk_dev *d,
				const struct aw_atomic_write *w)
{
	struct block_device *lower = d->lower.bdev;
	unsigned int mask = max_t(unsigned int, bdev_dma_alignment(lower),
				  bdev_logical_block_size(lower) - 1);
	void __user *ubuf = u64_to_user_ptr(w->buf);
	/* The pages the buffer spans: one more than len's when unaligned. */
	u64 npages = DIV_ROUND_UP(offset_in_page(w->buf) + w->len, PAGE_SIZE);
	struct iov_iter it;
	struct bio *bio;

	if ((w->buf & mask) || !access_ok(ubuf, w->len) ||
	    npages > BIO_MAX_VECS)
		return NULL;
	iov_iter_ubuf(&it, ITER_SOURCE, ubuf, w->len);
	bio = bio_alloc(lower, npages, ioctl_opf(w), GFP_KERNEL);
	if (!bio)
		return NULL;
	bio->bi_iter.bi_sector = (w->offset >> 9) + d->start;
	if (bio_iov_iter_get_pages(bio, &it) || iov_iter_count(&it)) {
		bio_release_pages(bio, false);
		bio_put(bio);
		return NULL;
	}
	return bio;
}

static int ioctl_atomic_write(struct awblk_dev *d, struct block_device *bdev,
			      aw_mode_t mode, void __user *argp)
{
	struct address_space *mapping;
	struct aw_atomic_write w;
	pgoff_t first, last;
	struct bio *bio, *pinned;
	enum awblk_reject r;
	int i, ret;

	if (copy_from_user(&w, argp, sizeof(w)))
		return -EFAULT;
	if (w.reserved0 || (w.flags & ~AW_WRITE_FLAGS))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(w.reserved); i++)
		if (w.reserved[i])
			return -EINVAL;
	/* The same permissions as write(2): no way around them. */
	if (!(mode & AW_MODE_WRITE))
		return -EBADF;
	if (bdev_read_only(bdev))
		return -EROFS;
	r = d->engine ? awblk_check_write(&d->lim, d->size, w.offset, w.len, 1)
		      : AWB_NOSUPPORT;
	if (r != AWB_OK) {
		count_reject(d, r);
		return awblk_reject_errno(r);
	}
	bio = bio_pin_user(d, &w);
	pinned = bio;
	if (!bio)
		bio = bio_copy_user(d, &w);
	if (IS_ERR(bio))
		return PTR_ERR(bio);
	/* Like a direct write: cached pages of the range go out first... */
	mapping = aw_bdev_mapping(bdev);
	first = w.offset >> PAGE_SHIFT;
	last = (w.offset + w.len - 1) >> PAGE_SHIFT;
	ret = filemap_write_and_wait_range(mapping, w.offset,
					   w.offset + w.len - 1);
	if (!ret) {
		ret = submit_wait(d, bio, engine_atomic);
		/* ...and are dropped after, so reads see what the device holds. */
		invalidate_inode_pages2_range(mapping, first, last);
	}
	if (pinned)
		bio_release_pages(bio, false);
	else
		free_bio_pages(bio);
	bio_put(bio);
	return ret;
}

static int awblk_ioctl(struct block_device *bdev, aw_mode_t mode,
		       unsigned int cmd, unsigned long arg)
{
	struct awblk_dev *d = bdev->bd_disk->private_data;
	void __user *argp = (void __user *)arg;
	struct aw_limits l;

	switch (cmd) {
	case AW_IOC_GET_LIMITS:
		get_limits(d, &l);
		return copy_to_user(argp, &l, sizeof(l)) ? -EFAULT : 0;
	case AW_IOC_ATOMIC_WRITE:
		return ioctl_atomic_write(d, bdev, mode, argp);
	default:
		return -ENOTTY;
	}
}

/* Called under disk->open_mutex, as awblk_remove decides. */
static int awblk_open_disk(struct gendisk *disk)
{
	struct awblk_dev *d = disk->private_data;

	return d->deleting ? -ENXIO : 0;
}

AW_DEFINE_DISK_OPEN(awblk_open, awblk_open_disk)

static void free_dev(struct awblk_dev *d);

/* The last reference to the disk is gone: no opener can reach @d now. */
static void awblk_free_disk(struct gendisk *disk)
{
	struct awblk_dev *d = disk->private_data;

	if (d && d->registered)
		free_dev(d);
}

static const struct block_device_operations awblk_fops = {
	.owner		= THIS_MODULE,
	.open		= awblk_open,
	.free_disk	= awblk_free_disk,
	.submit_bio	= awblk_submit_bio,
	.ioctl		= awblk_ioctl,
	/* The uapi structs are laid out alike for 32-bit callers. */
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
};

/* ---- sysfs: /sys/block/awblkN/awblk/ ---- */

static struct awblk_dev *dev_to_awblk(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t engine_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	struct awblk_dev *d = dev_to_awblk(dev);

	return sysfs_emit(buf, "%s\n", d->engine ? d->engine->name : "none");
}
static DEVICE_ATTR_RO(engine);

static ssize_t lower_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	return sysfs_emit(buf, "%pg\n", dev_to_awblk(dev)->lower.bdev);
}
static DEVICE_ATTR_RO(lower);

static ssize_t untorn_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_awblk(dev)->untorn);
}
static DEVICE_ATTR_RO(untorn);

static ssize_t counters_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	struct awblk_dev *d = dev_to_awblk(dev);
	int i, n;

	n = sysfs_emit(buf, "atomic_writes %lld\natomic_bytes %lld\nuntorn_units %lld\n",
		       atomic64_read(&d->atomic_writes),
		       atomic64_read(&d->atomic_bytes),
		       atomic64_read(&d->untorn_units));
	for (i = AWB_NOSUPPORT; i < AWB_NREASONS; i++)
		n += sysfs_emit_at(buf, n, "rejected_%s %lld\n",
				   awblk_reject_names[i],
				   atomic64_read(&d->rejects[i]));
	return n;
}
static DEVICE_ATTR_RO(counters);

static ssize_t engine_stats_show(struct device *dev,
				 struct device_attribute *a, char *buf)
{
	struct awblk_dev *d = dev_to_awblk(dev);

	if (!d->engine || !d->engine->stats)
		return 0;
	return d->engine->stats(d->engine_priv, buf);
}
static DEVICE_ATTR_RO(engine_stats);

static struct attribute *awblk_attrs[] = {
	&dev_attr_engine.attr,
	&dev_attr_lower.attr,
	&dev_attr_untorn.attr,
	&dev_attr_counters.attr,
	&dev_attr_engine_stats.attr,
	NULL,
};

static const struct attribute_group awblk_group = {
	.name = "awblk",
	.attrs = awblk_attrs,
};

static const struct attribute_group *awblk_groups[] = {
	&awblk_group,
	NULL,
};

/* ---- 6.1: the upstream atomic_write_* names in the queue directory ---- */

#if !AW_NATIVE_ATOMIC
/*
 * Files in the queue kobject are shown by the queue's own sysfs_ops, which
 * take an attribute laid out as 6.1's struct queue_sysfs_entry: the
 * attribute, then show(queue, page) and store(). The queue's queuedata
 * leads back to the device.
 */
struct awblk_qattr {
	struct attribute attr;
	ssize_t (*show)(struct request_queue *q, char *page);
	ssize_t (*store)(struct request_queue *q, const char *page, size_t n);
};

#define AWBLK_QATTR(_name, _field)					\
static ssize_t q_##_name##_show(struct request_queue *q, char *page)	\
{									\
	struct awblk_dev *d = q->queuedata;				\
									\
	return sysfs_emit(page, "%u\n", d->lim._field);			\
}									\
static struct awblk_qattr q_##_name = {					\
	.attr = { .name = "atomic_write_" #_name "_bytes", .mode = 0444 }, \
	.show = q_##_name##_show,					\
}

AWBLK_QATTR(unit_min, unit_min);
AWBLK_QATTR(unit_max, unit_max);
AWBLK_QATTR(max, max_bytes);
AWBLK_QATTR(boundary, boundary);

static struct attribute *awblk_qattrs[] = {
	&q_unit_min.attr, &q_unit_max.attr, &q_max.attr, &q_boundary.attr,
	NULL,
};

static const struct attribute_group awblk_qgroup = {
	.attrs = awblk_qattrs,
};

static int add_queue_attrs(struct awblk_dev *d)
{
	d->disk->queue->queuedata = d;
	return sysfs_create_group(&d->disk->queue->kobj, &awblk_qgroup);
}

static void remove_queue_attrs(struct awblk_dev *d)
{
	sysfs_remove_group(&d->disk->queue->kobj, &awblk_qgroup);
}
#else
static int add_queue_attrs(struct awblk_dev *d)
{
	return 0;	/* the kernel's own atomic_write_* files show them */
}

static void remove_queue_attrs(struct awblk_dev *d)
{
}
#endif

/* ---- create and remove ---- */

static struct awblk_dev *find_dev(int index)
{
	struct awblk_dev *d;

	list_for_each_entry(d, &awblk_devices, list)
		if (d->index == index)
			return d;
	return NULL;
}

static void free_dev(struct awblk_dev *d)
{
	bool registered = d->registered;

	unbind_engine(d);
	bioset_exit(&d->bs);
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

static void derive(struct awblk_dev *d, const struct aw_atomic_hw *hw,
		   u64 cap)
{
	struct block_device *b = d->lower.bdev;
	struct request_queue *q = bdev_get_queue(b);
	struct awblk_hw h = { hw->unit_min, hw->unit_max, hw->max_bytes,
			      hw->boundary };
	struct awblk_queue qp = {
		.lbs = bdev_logical_block_size(b),
		.max_hw_sectors = queue_max_hw_sectors(q),
		.max_segments = queue_max_segments(q),
		.page_size = PAGE_SIZE,
		.start = (u64)(get_start_sect(b) + d->start) << 9,
	};

	awblk_derive_limits(&h, &qp, cap, &d->lim);
}

/* The part of the lower device we export: all of it, or the engine's say. */
static void set_geometry(struct awblk_dev *d)
{
	sector_t nr = bdev_nr_sectors(d->lower.bdev);

	d->start = 0;
	if (d->engine && d->engine->geometry)
		d->engine->geometry(d->engine_priv, &d->start, &nr);
	d->size = (u64)nr << SECTOR_SHIFT;
}

static int check_create(const struct aw_create *c)
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
	if (c->untorn && !aw_is_pow2(c->untorn))
		return -EINVAL;
	if (c->unit_max > U32_MAX || c->untorn > U32_MAX)
		return -EINVAL;
	if (c->hwinfo_len > AW_HWINFO_MAX || !c->hwinfo != !c->hwinfo_len ||
	    (c->hwinfo_len && c->engine == AW_ENGINE_NONE))
		return -EINVAL;
	return 0;
}

static int setup_disk(struct awblk_dev *d)
{
	struct aw_atomic_hw hw = {
		d->lim.unit_min, d->lim.unit_max, d->lim.max_bytes,
		d->lim.boundary,
	};
	struct gendisk *disk;
	int ret;

	/* Untorn units come from page caches too: they must hold still. */
	disk = aw_alloc_stacked_disk(d->lower.bdev, &hw, d->untorn);
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
static void kill_disk(struct awblk_dev *d)
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
static int register_disk(struct awblk_dev *d)
{
	int ret;

	__module_get(THIS_MODULE);
	d->registered = true;
	ret = bd_link_disk_holder(d->lower.bdev, d->disk);
	if (ret)
		goto kill;
	ret = add_queue_attrs(d);
	if (ret)
		goto unlink;
	return 0;
unlink:
	bd_unlink_disk_holder(d->lower.bdev, d->disk);
kill:
	kill_disk(d);
	return ret;
}

static void teardown_disk(struct awblk_dev *d)
{
	remove_queue_attrs(d);
	bd_unlink_disk_holder(d->lower.bdev, d->disk);
	kill_disk(d);
}

/* The engine's hardware facts from user space, copied in whole or not at all. */
static int copy_hwinfo(const struct aw_create *c, struct awblk_hwinfo *info)
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
 * free_dev(). awblk_publish() adds the disk.
 */
static struct awblk_dev *awblk_prepare(const struct aw_create *c)
{
	dev_t devt = MKDEV(c->lower_major, c->lower_minor);
	struct awblk_hwinfo info;
	struct aw_atomic_hw hw;
	struct awblk_dev *d;
	int ret = check_create(c);

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
	INIT_WORK(&d->gather_work, gather_work);
	/* Splits are made inside ->submit_bio: a rescuer keeps them moving. */
	ret = bioset_init(&d->bs, BIO_POOL_SIZE, 0, BIOSET_NEED_RESCUER);
	if (ret)
		goto fail;
	ret = copy_hwinfo(c, &info);
	if (ret)
		goto fail;
	info.named = c->engine != AW_ENGINE_AUTO;
	ret = bind_engine(d, c->engine, &info, &hw);
	kfree(info.data);
	if (ret) {
		pr_info_ratelimited("engine %s cannot drive %pg: error %d\n",
				    engine_names[c->engine], d->lower.bdev,
				    ret);
		goto fail;
	}
	set_geometry(d);
	derive(d, &hw, c->unit_max);
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
	free_dev(d);
	return ERR_PTR(ret);
}

static int awblk_publish(struct awblk_dev *d)
{
	int ret = setup_disk(d);

	if (ret) {
		free_dev(d);
		return ret;
	}
	ret = register_disk(d);
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
		free_dev(d);
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
	d = find_dev(r->index);
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
	teardown_disk(d);
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
static void create_from_param(struct work_struct *work)
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
static DECLARE_WORK(param_work, create_from_param);

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
