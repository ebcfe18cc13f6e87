// SPDX-License-Identifier: GPL-2.0
/*
 * awblk's I/O: plain bios remapped to the lower device, atomic ones to the
 * engine, untorn mode's whole units gathered, and atomic writes by bio for
 * in-kernel users (awfs).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#include "awblk_dev.h"

/* ---- I/O ---- */

void awblk_count_reject(struct awblk_dev *d, enum awblk_reject r)
{
	atomic64_inc(&d->rejects[r]);
}

/* One checked atomic write, already on the lower device, to the engine. */
void awblk_engine_atomic(struct awblk_dev *d, struct bio *bio)
{
	atomic64_inc(&d->atomic_writes);
	atomic64_add(bio->bi_iter.bi_size, &d->atomic_bytes);
	bio->bi_opf |= REQ_ATOMIC;
	d->engine->submit(d->engine_priv, bio);
}

/*
 * Hand one whole atomic write to the engine, remapped to the lower device
 * like any other bio (no clone): the engine completes it.
 */
static void awblk_remap_atomic(struct awblk_dev *d, struct bio *bio)
{
	bio_set_dev(bio, d->lower.bdev);
	bio->bi_iter.bi_sector += d->start;
	awblk_engine_atomic(d, bio);
}

/* A REQ_ATOMIC bio from above (pwritev2 with RWF_ATOMIC, where it exists). */
static void awblk_submit_native_atomic(struct awblk_dev *d, struct bio *bio)
{
	enum awblk_reject r = AWB_NOSUPPORT;

	if (d->engine && bio_op(bio) == REQ_OP_WRITE)
		r = awblk_check_write(&d->lim, d->size,
				      (u64)bio->bi_iter.bi_sector << 9,
				      bio->bi_iter.bi_size, 1);
	if (r != AWB_OK) {
		awblk_count_reject(d, r);
		bio->bi_status = errno_to_blk_status(awblk_reject_errno(r));
		bio_endio(bio);
		return;
	}
	awblk_remap_atomic(d, bio);
}

static void awblk_remap(struct awblk_dev *d, struct bio *bio)
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

static void awblk_gather_endio(struct bio *bio)
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
static bool awblk_submit_gathered(struct awblk_dev *d, struct bio **parts,
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
	bio->bi_end_io = awblk_gather_endio;
	bio->bi_opf |= REQ_ATOMIC;
	atomic64_inc(&d->untorn_units);
	atomic64_inc(&d->atomic_writes);
	atomic64_add(bio->bi_iter.bi_size, &d->atomic_bytes);
	d->engine->submit(d->engine_priv, bio);
	return true;
}

static int awblk_cmp_sector(const void *a, const void *b)
{
	sector_t x = (*(struct bio * const *)a)->bi_iter.bi_sector;
	sector_t y = (*(struct bio * const *)b)->bi_iter.bi_sector;

	return x < y ? -1 : x > y;
}

/* Pieces from j that exactly fill the unit starting at parts[j]. */
static unsigned int awblk_unit_run(struct awblk_dev *d, struct bio **parts,
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

static void awblk_submit_pieces(struct awblk_dev *d, struct bio_list *list)
{
	unsigned int n = bio_list_size(list), i = 0, run;
	struct bio **parts = kmalloc_array(n, sizeof(*parts), GFP_NOIO);
	struct bio *bio;

	if (!parts) {
		while ((bio = bio_list_pop(list)))
			awblk_remap(d, bio);
		return;
	}
	while ((bio = bio_list_pop(list)))
		parts[i++] = bio;
	sort(parts, n, sizeof(*parts), awblk_cmp_sector, NULL);
	for (i = 0; i < n; i += run ? run : 1) {
		run = awblk_unit_run(d, parts, n, i);
		if (run && awblk_submit_gathered(d, parts + i, run))
			continue;
		run = 0;
		awblk_remap(d, parts[i]);
	}
	kfree(parts);
}

void awblk_gather_work(struct work_struct *w)
{
	struct awblk_dev *d = container_of(w, struct awblk_dev, gather_work);
	struct bio_list list;

	spin_lock_irq(&d->gather_lock);
	list = d->deferred;
	bio_list_init(&d->deferred);
	spin_unlock_irq(&d->gather_lock);
	awblk_submit_pieces(d, &list);
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
		awblk_submit_pieces(d, &p->pieces);
	}
	kfree(p);
}

static void awblk_submit_piece(struct awblk_dev *d, struct bio *bio)
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
	awblk_remap(d, bio);
}

/*
 * A run of several units must still go down as one bio that the lower
 * device never splits: within its max_sectors (which a plain write to it
 * obeys), and with whole pages between the two ends, as the limits assume; a
 * bio from above may be built of smaller pieces (O_DIRECT iovecs). Such a
 * run goes as one unit at a time.
 */
static u64 awblk_untorn_fit(struct awblk_dev *d, struct bio *bio, u64 run)
{
	struct request_queue *q = bdev_get_queue(d->lower.bdev);
	struct bvec_iter it;
	struct bio_vec bv;
	unsigned int segs = 0;
	u64 bytes = 0;

	/* An engine without REQ_ATOMIC below gets split at max_sectors. */
	run = min_t(u64, run, rounddown_pow_of_two((u64)queue_max_sectors(q) <<
						   SECTOR_SHIFT));
	if (run <= d->untorn)
		return d->untorn;
	bio_for_each_segment(bv, bio, it) {
		if ((segs && bv.bv_offset) ||
		    bv.bv_len > queue_max_segment_size(q) ||
		    ++segs > queue_max_segments(q))
			return d->untorn;
		bytes += bv.bv_len;
		if (bytes >= run)
			break;
		if (bv.bv_offset + bv.bv_len != PAGE_SIZE)
			return d->untorn;
	}
	return run;
}

/*
 * Untorn mode: split the write exactly at unit boundaries; each whole,
 * aligned unit goes to the engine as one atomic write, partial units go down
 * as normal writes. One split per call, the rest resubmitted (it comes back
 * here once this call returns), as the block layer splits: the split before
 * it is on its way down by then (or in the plug, which a wait in the pool
 * flushes), so the pool's reserve is enough under memory pressure.
 */
static void awblk_submit_untorn(struct awblk_dev *d, struct bio *bio)
{
	u64 unit = d->untorn;
	u64 off = (u64)bio->bi_iter.bi_sector << 9;
	u64 piece = awblk_untorn_piece(off, bio->bi_iter.bi_size, unit);

	if (piece == unit && !(off % unit))
		piece = awblk_untorn_fit(d, bio,
					 awblk_untorn_run(&d->lim, off,
							  bio->bi_iter.bi_size,
							  unit));

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
	if (piece >= unit && !(off % unit)) {
		atomic64_add(div64_u64(piece, unit), &d->untorn_units);
		awblk_remap_atomic(d, bio);
	} else {
		awblk_submit_piece(d, bio);
	}
}

/*
 * Flushes are numbered as they enter, and the highest number among those
 * that succeeded is kept: a flush numbered after an in-kernel user saw its
 * writes complete made them durable when it succeeded (awfs counts on that
 * to spare a second flush after the lower file system's fsync). Only the
 * flushes are cloned, from a bio_set of their own.
 */
static void awblk_flush_endio(struct bio *clone)
{
	struct awblk_flush *f = container_of(clone, struct awblk_flush, clone);
	struct bio *bio = clone->bi_private;
	struct awblk_dev *d = bio->bi_bdev->bd_disk->private_data;
	s64 done;

	/* Before the flush's own end: its waiter may ask at once. */
	if (!clone->bi_status) {
		done = atomic64_read(&d->flushes_done);
		while (done < f->gen &&
		       !atomic64_try_cmpxchg(&d->flushes_done, &done, f->gen))
			;
	}
	/* An error already on @bio (a chained child's) stays. */
	if (clone->bi_status)
		bio->bi_status = clone->bi_status;
	bio_put(clone);
	bio_endio(bio);
}

static struct bio *awblk_number_flush(struct awblk_dev *d, struct bio *bio)
{
	struct bio *clone = bio_alloc_clone(bio->bi_bdev, bio, GFP_NOIO,
					    &d->flush_bs);
	struct awblk_flush *f;

	if (!clone)
		return bio;	/* unnumbered: nobody counts on it */
	f = container_of(clone, struct awblk_flush, clone);
	/*
	 * Fully ordered: after every completion its user saw before (pairs
	 * with the barrier in awblk_flush_mark()).
	 */
	f->gen = atomic64_inc_return(&d->flushes_started);
	clone->bi_private = bio;
	clone->bi_end_io = awblk_flush_endio;
	return clone;
}

static void awblk_queued_atomic_endio(struct bio *clone);

void awblk_submit_bio(struct bio *bio)
{
	struct awblk_dev *d = bio->bi_bdev->bd_disk->private_data;
	/* Before the flush clone: on 6.1 only the end_io says "atomic". */
	bool atomic = (bio->bi_opf & REQ_ATOMIC) ||
		      bio->bi_end_io == awblk_queued_atomic_endio;

	/*
	 * A split's remainder comes back already numbered; another awblk
	 * device's numbered flush (one stacked on this) is numbered here too.
	 */
	if ((bio->bi_opf & REQ_PREFLUSH) && bio->bi_pool != &d->flush_bs)
		bio = awblk_number_flush(d, bio);
	if (atomic)
		awblk_submit_native_atomic(d, bio);
	else if (d->untorn && bio_op(bio) == REQ_OP_WRITE &&
		 bio->bi_iter.bi_size)
		awblk_submit_untorn(d, bio);
	else
		awblk_remap(d, bio);
}

/* A bio waited for: the ioctl's atomic writes and awfs's direct ones. */
struct awblk_wait {
	struct completion done;
	blk_status_t status;
};

static void awblk_wait_endio(struct bio *bio)
{
	struct awblk_wait *w = bio->bi_private;

	w->status = bio->bi_status;
	complete(&w->done);
}

/* Send @bio with @submit and wait for it: its status as an errno. */
int awblk_submit_wait(struct awblk_dev *d, struct bio *bio,
		      void (*submit)(struct awblk_dev *d, struct bio *bio))
{
	struct awblk_wait w;

	init_completion(&w.done);
	bio->bi_private = &w;
	bio->bi_end_io = awblk_wait_endio;
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
	awblk_get_limits(d, l);
	return 0;
}
EXPORT_SYMBOL_GPL(awblk_bdev_limits);

/**
 * awblk_flush_mark - a mark for awblk_flushed_since()
 * @bdev: a whole awblk device
 *
 * Return: a mark after every write its caller has seen complete; S64_MAX
 * when @bdev is not a whole awblk device (no flush is ever after it).
 */
s64 awblk_flush_mark(struct block_device *bdev)
{
	struct awblk_dev *d = bdev_awblk(bdev);

	/*
	 * The completions seen so far, before the number is read (pairs with
	 * the fully ordered increment in awblk_number_flush()).
	 */
	smp_mb();
	return d ? atomic64_read(&d->flushes_started) : S64_MAX;
}
EXPORT_SYMBOL_GPL(awblk_flush_mark);

/**
 * awblk_flushed_since - did a flush numbered after @mark succeed?
 * @bdev: the device awblk_flush_mark() was given
 * @mark: its answer
 *
 * Return: true when the writes complete at the mark are durable; false
 * when @bdev is not a whole awblk device.
 */
bool awblk_flushed_since(struct block_device *bdev, s64 mark)
{
	struct awblk_dev *d = bdev_awblk(bdev);

	return d && atomic64_read(&d->flushes_done) > mark;
}
EXPORT_SYMBOL_GPL(awblk_flushed_since);

/* The clone's end is the mark by which awblk_submit_bio() knows it. */
static void awblk_queued_atomic_endio(struct bio *clone)
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
static void awblk_queue_atomic(struct awblk_dev *d, struct bio *bio)
{
	struct bio *clone = bio_alloc_clone(bio->bi_bdev, bio, GFP_NOIO,
					    &d->bs);

	if (!clone) {
		bio_io_error(bio);
		return;
	}
	clone->bi_private = bio;
	clone->bi_end_io = awblk_queued_atomic_endio;
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
	awblk_queue_atomic(d, bio);
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
	return awblk_submit_wait(d, bio, awblk_queue_atomic);
}
EXPORT_SYMBOL_GPL(awblk_submit_atomic_wait);
