// SPDX-License-Identifier: GPL-2.0
/*
 * awsw: awblk's software engine. Atomic writes on any lower device, with a
 * journal (format: sw_format.h).
 *
 * An atomic write moves through stages, each started by the completion of
 * the one before, so no thread waits for one:
 *   1. it takes its range exclusively (reads and writes that overlap wait);
 *   2. in the submitter's context it checksums its data, gets a seq and a
 *      place in the journal, and sends its record there, with FUA where the
 *      lower device has it;
 *   3. when the record is written, it joins the commit worker's next batch:
 *      records written without FUA are made durable by one flush for the
 *      whole batch (group commit), then the worker sends each write in
 *      place;
 *   4. it is acknowledged when its in-place write completes.
 * So an acknowledged atomic write is durable (its record is), with or
 * without FUA, and a power cut at any point leaves either the old data, or
 * a record that recovery replays whole.
 *
 * The journal fills from its start; when the next record does not fit,
 * new records wait while the commit worker drains: once every record is in
 * place it flushes the lower device and records in the superblock that
 * everything up to the last seq is in place. Then the journal starts over.
 *
 * A plain write over the target of a record that is not checkpointed yet
 * would be undone by a replay after a crash, so it checkpoints first.
 *
 * On attach, recovery replays the records above the checkpoint whose
 * checksums verify, in seq order, flushes, and advances the checkpoint.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/crc32c.h>
#include <linux/interval_tree_generic.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "uapi/awkit.h"
#include "awblk.h"
#include "sw_format.h"

/* A range of the lower device, in sectors, [start, last]. */
struct awsw_range {
	struct rb_node rb;
	sector_t start, last, subtree_last;
	struct list_head wait;		/* on awsw.waiting until granted */
	bool excl;
};

#define R_START(r) ((r)->start)
#define R_LAST(r) ((r)->last)
INTERVAL_TREE_DEFINE(struct awsw_range, rb, sector_t, subtree_last,
		     R_START, R_LAST, static, rt)

struct awsw {
	struct block_device *bdev;
	struct awsw_sb sb;
	sector_t data_sect;		/* data area start on the lower device */

	/*
	 * lock: granted, waiting, live, live_lost, and the journal: head,
	 * seq, draining, ckpt_gen, committing, parked.
	 */
	spinlock_t lock;
	struct rb_root_cached granted;
	struct list_head waiting;
	struct rb_root_cached live;	/* targets of records not checkpointed */
	struct list_head live_list;
	bool live_lost;			/* a live node could not be allocated */

	u64 head;			/* next free journal byte */
	u64 seq;			/* last seq handed out */
	bool draining;			/* no new records until a checkpoint */
	u64 ckpt_gen;			/* checkpoints taken (or given up) */
	struct list_head committing;	/* records written, not yet flushed */
	struct list_head parked;	/* atomic ios waiting for the journal */
	u64 ckpt_seq;			/* in the superblock (commit worker) */
	atomic_t pending;		/* records not yet in place */
	wait_queue_head_t pending_wait;	/* pending, ckpt_gen, failed */

	atomic_t inflight;		/* bios we hold */
	wait_queue_head_t idle_wait;
	bool failed;

	struct workqueue_struct *wq;	/* waiting atomic ios, plain_work */
	struct workqueue_struct *cwq;	/* commit_work */
	struct work_struct plain_work;
	struct work_struct commit_work;
	struct mutex commit_lock;	/* one committer: a writer or the worker */
	struct list_head plain;		/* plain ios for plain_work */
	mempool_t *pool;
	mempool_t *hdr_pool;		/* record header blocks */
	struct bio_set bs;		/* clones of plain bios */
	char name[BDEVNAME_SIZE];

	/* counters for sysfs */
	atomic64_t records, commits, checkpoints, journal_full, plain_ckpt;
	u64 replayed, discarded, stale;
};

/* One bio in our hands: an atomic write, or a plain read or write. */
struct awsw_io {
	struct awsw_range range;
	struct awsw *s;
	struct bio *bio;		/* from above */
	struct work_struct work;
	struct list_head deferred;	/* on plain, committing or parked */
	u8 *hdr;			/* the record's header block */
	struct task_struct *writer;	/* may commit its own record */
	atomic_t jleft;			/* journal bios not yet completed */
	int jerr;
	bool atomic, reserved;
	bool fua;			/* the record was written with FUA */
	u32 dcrc;
	u64 seq, pos;
};

static struct kmem_cache *awsw_io_cache, *awsw_live_cache;

/* ---- errors ---- */

static void awsw_fail(struct awsw *s, const char *what, int err)
{
	if (!xchg(&s->failed, true))
		pr_err("%s: %s failed (error %d): every I/O now fails until the device is created again; the journal makes that attach repair it\n",
		       s->name, what, err);
	wake_up_all(&s->pending_wait);
	/* Parked writes fail there. */
	queue_work(s->cwq, &s->commit_work);
}

/* ---- range locks ---- */

static bool awsw_overlaps(const struct awsw_range *a,
			  const struct awsw_range *b)
{
	return a->start <= b->last && b->start <= a->last;
}

/* May @r be granted now? Call with s->lock held. */
static bool awsw_range_free(struct awsw *s, struct awsw_range *r)
{
	struct awsw_range *x;

	for (x = rt_iter_first(&s->granted, r->start, r->last); x;
	     x = rt_iter_next(x, r->start, r->last))
		if (r->excl || x->excl)
			return false;
	/* First come, first served: no overtaking a waiter. */
	list_for_each_entry(x, &s->waiting, wait) {
		if (x == r)
			break;
		if (awsw_overlaps(x, r))
			return false;
	}
	return true;
}

/* Take @r now (true) or queue it: awsw_range_grant() will run for it later. */
static bool awsw_range_lock(struct awsw *s, struct awsw_range *r)
{
	unsigned long flags;
	bool now;

	INIT_LIST_HEAD(&r->wait);
	spin_lock_irqsave(&s->lock, flags);
	now = awsw_range_free(s, r);
	if (now)
		rt_insert(r, &s->granted);
	else
		list_add_tail(&r->wait, &s->waiting);
	spin_unlock_irqrestore(&s->lock, flags);
	return now;
}

static void awsw_range_grant(struct awsw_io *io);

static void awsw_range_unlock(struct awsw *s, struct awsw_range *r)
{
	struct awsw_range *x, *n;
	unsigned long flags;
	LIST_HEAD(ready);

	spin_lock_irqsave(&s->lock, flags);
	rt_remove(r, &s->granted);
	list_for_each_entry_safe(x, n, &s->waiting, wait) {
		if (!awsw_range_free(s, x))
			continue;
		list_move_tail(&x->wait, &ready);
		rt_insert(x, &s->granted);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	list_for_each_entry_safe(x, n, &ready, wait) {
		list_del_init(&x->wait);
		awsw_range_grant(container_of(x, struct awsw_io, range));
	}
}

/* ---- live records: targets a plain write must not overtake ---- */

struct awsw_live {
	struct awsw_range r;
	struct list_head list;
};

/* Note a record's target; @l was allocated beforehand. Under s->lock. */
static void awsw_live_add(struct awsw *s, struct awsw_live *l, sector_t start,
			  sector_t last)
{
	if (l) {
		l->r.start = start;
		l->r.last = last;
		rt_insert(&l->r, &s->live);
		list_add_tail(&l->list, &s->live_list);
	} else {
		/* Without a node, assume every plain write overlaps. */
		s->live_lost = true;
	}
}

static bool awsw_live_overlaps(struct awsw *s, struct awsw_range *r)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&s->lock, flags);
	ret = s->live_lost || rt_iter_first(&s->live, r->start, r->last);
	spin_unlock_irqrestore(&s->lock, flags);
	return ret;
}

static void awsw_live_clear(struct awsw *s)
{
	struct awsw_live *l, *n;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&s->lock, flags);
	list_splice_init(&s->live_list, &gone);
	s->live = RB_ROOT_CACHED;
	s->live_lost = false;
	spin_unlock_irqrestore(&s->lock, flags);
	list_for_each_entry_safe(l, n, &gone, list)
		kmem_cache_free(awsw_live_cache, l);
}

/* ---- synchronous I/O on the lower device ---- */

/* Read or write @len bytes at byte @pos from or to @buf (kmalloc or vmalloc). */
static int awsw_sync_rw(struct awsw *s, blk_opf_t opf, u64 pos, void *buf,
			u32 len)
{
	bool vmap = is_vmalloc_addr(buf);
	void *start = buf;
	u32 total = len;
	int ret = 0;

	if (vmap && op_is_write(opf))
		flush_kernel_vmap_range(buf, len);
	while (len && !ret) {
		unsigned int n = 0;
		struct bio *bio;

		bio = bio_alloc(s->bdev, BIO_MAX_VECS, opf, GFP_NOIO);
		bio->bi_iter.bi_sector = pos >> SECTOR_SHIFT;
		while (len && bio->bi_vcnt < BIO_MAX_VECS) {
			unsigned int off = offset_in_page(buf);
			unsigned int chunk = min_t(u32, len, PAGE_SIZE - off);
			struct page *p = vmap ? vmalloc_to_page(buf) :
						virt_to_page(buf);

			if (bio_add_page(bio, p, chunk, off) != chunk)
				break;
			buf += chunk;
			len -= chunk;
			n += chunk;
		}
		ret = submit_bio_wait(bio);
		bio_put(bio);
		pos += n;
	}
	if (vmap && !op_is_write(opf))
		invalidate_kernel_vmap_range(start, total);
	return ret;
}

static int awsw_write_sb(struct awsw *s, u64 ckpt)
{
	u8 *buf = kmalloc(AWSW_SB_SIZE, GFP_NOIO);
	struct awsw_sb sb = s->sb;
	int ret;

	if (!buf)
		return -ENOMEM;
	sb.checkpoint_seq = ckpt;
	awsw_sb_encode(&sb, buf);
	ret = awsw_sync_rw(s, REQ_OP_WRITE | REQ_SYNC | REQ_FUA, 0, buf,
			   AWSW_SB_SIZE);
	kfree(buf);
	if (!ret)
		s->sb.checkpoint_seq = ckpt;
	return ret;
}

/* ---- checkpoints ---- */

/*
 * Every record is in place (nothing is reserved while draining, and the
 * last in-place write has completed): make that durable and say so in the
 * superblock; then the whole journal is free. Only the commit worker calls
 * this, and release once nothing else runs.
 */
static int awsw_checkpoint(struct awsw *s)
{
	u64 seq;
	int ret;

	spin_lock_irq(&s->lock);
	seq = s->seq;
	spin_unlock_irq(&s->lock);
	if (seq != s->ckpt_seq) {
		ret = blkdev_issue_flush(s->bdev);
		if (!ret)
			ret = awsw_write_sb(s, seq);
		if (ret) {
			awsw_fail(s, "a superblock update", ret);
			return ret;
		}
		s->ckpt_seq = seq;
		atomic64_inc(&s->checkpoints);
	}
	awsw_live_clear(s);
	spin_lock_irq(&s->lock);
	s->head = 0;
	spin_unlock_irq(&s->lock);
	return 0;
}

/*
 * Take a checkpoint now and wait for it: a plain write that a replay could
 * undo needs one. Process context.
 */
static int awsw_checkpoint_sync(struct awsw *s)
{
	u64 gen;

	spin_lock_irq(&s->lock);
	gen = s->ckpt_gen;
	s->draining = true;
	spin_unlock_irq(&s->lock);
	queue_work(s->cwq, &s->commit_work);
	wait_event(s->pending_wait,
		   READ_ONCE(s->ckpt_gen) != gen || READ_ONCE(s->failed));
	return READ_ONCE(s->failed) ? -EIO : 0;
}

/* ---- atomic writes ---- */

static struct bio_set awsw_bs;

static void awsw_unreserve(struct awsw *s, struct awsw_io *io)
{
	unsigned long flags;

	if (!io->reserved)
		return;
	io->reserved = false;
	if (!atomic_dec_and_test(&s->pending))
		return;
	wake_up_all(&s->pending_wait);
	/* The last record is in place: a drain can take its checkpoint. */
	spin_lock_irqsave(&s->lock, flags);
	if (s->draining)
		queue_work(s->cwq, &s->commit_work);
	spin_unlock_irqrestore(&s->lock, flags);
}

static void awsw_io_done(struct awsw_io *io, blk_status_t status)
{
	struct awsw *s = io->s;
	struct bio *bio = io->bio;
	unsigned long flags;

	awsw_unreserve(s, io);
	awsw_range_unlock(s, &io->range);
	mempool_free(io, s->pool);
	if (status)
		bio->bi_status = status;
	bio_endio(bio);
	/*
	 * Under the wait queue's lock: awsw_release() may free @s as soon as
	 * it sees the count at zero, and takes this lock before it does.
	 */
	spin_lock_irqsave(&s->idle_wait.lock, flags);
	if (atomic_dec_and_test(&s->inflight))
		wake_up_locked(&s->idle_wait);
	spin_unlock_irqrestore(&s->idle_wait.lock, flags);
}

/*
 * Every bio we send down is a clone of the one from above with an end_io
 * of our own: a bio from above may be part of a chain (a split write) that
 * completes only when its siblings do, and they may be waiting for what
 * this one holds (a range, the journal).
 */
static struct bio *awsw_clone_down(struct awsw_io *io, struct bio_set *bs,
				   bio_end_io_t *end_io)
{
	struct bio *c = bio_alloc_clone(io->s->bdev, io->bio, GFP_NOIO, bs);

	c->bi_end_io = end_io;
	c->bi_private = io;
	return c;
}

/*
 * A seq and a journal place for @io. -EAGAIN: the journal is full or a
 * checkpoint is due, and @io is parked until the commit worker has taken
 * it; it starts again from there.
 */
static int awsw_reserve(struct awsw *s, struct awsw_io *io)
{
	u32 need = awsw_rec_size(s->sb.lbs, io->bio->bi_iter.bi_size);
	struct awsw_live *l = kmem_cache_alloc(awsw_live_cache,
					       GFP_NOIO | __GFP_NOWARN);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&s->lock, flags);
	if (READ_ONCE(s->failed)) {
		ret = -EIO;
	} else if (!awsw_journal_fits(&s->sb, 0, need)) {
		ret = -EINVAL;	/* bigger than the journal */
	} else if (!s->draining &&
		   awsw_journal_fits(&s->sb, s->head, need)) {
		io->seq = ++s->seq;
		io->pos = s->head;
		s->head += need;
		atomic_inc(&s->pending);
		io->reserved = true;
		awsw_live_add(s, l, io->range.start, io->range.last);
		l = NULL;
	} else {
		if (!s->draining)
			atomic64_inc(&s->journal_full);
		s->draining = true;
		list_add_tail(&io->deferred, &s->parked);
		ret = -EAGAIN;
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (l)
		kmem_cache_free(awsw_live_cache, l);
	if (ret == -EAGAIN)
		queue_work(s->cwq, &s->commit_work);
	return ret;
}

static u32 awsw_data_crc(struct bio *bio)
{
	struct bvec_iter it;
	struct bio_vec bv;
	u32 crc = ~0U;

	bio_for_each_segment(bv, bio, it) {
		void *p = bvec_kmap_local(&bv);

		crc = crc32c(crc, p, bv.bv_len);
		kunmap_local(p);
	}
	return ~crc;	/* awsw_crc32c(0, data) */
}

/* The record is written: on to the commit worker. Any context. */
static void awsw_journal_endio(struct bio *bio)
{
	struct awsw_io *io = bio->bi_private;
	struct awsw *s = io->s;
	unsigned long flags;
	bool inline_done;

	if (bio->bi_status)
		WRITE_ONCE(io->jerr, blk_status_to_errno(bio->bi_status));
	bio_put(bio);
	if (!atomic_dec_and_test(&io->jleft))
		return;
	mempool_free(io->hdr, s->hdr_pool);
	io->hdr = NULL;
	if (io->jerr) {
		awsw_fail(s, "a journal write", io->jerr);
		awsw_io_done(io, BLK_STS_IOERR);
		return;
	}
	atomic64_inc(&s->records);
	/*
	 * Completed inside the writer's own submission (a RAM disk): the
	 * writer commits it when that returns. Read before the list makes
	 * @io somebody else's.
	 */
	inline_done = io->writer == current && in_task();
	spin_lock_irqsave(&s->lock, flags);
	list_add_tail(&io->deferred, &s->committing);
	spin_unlock_irqrestore(&s->lock, flags);
	if (!inline_done)
		queue_work(s->cwq, &s->commit_work);
}

/*
 * The record in one bio: the header block, then the data pages of the bio
 * from above (shared, not copied). NULL when they need more vectors than a
 * bio holds (1 MiB of separate pages).
 */
static struct bio *awsw_record_bio(struct awsw *s, struct awsw_io *io, u8 *hdr,
				   blk_opf_t opf)
{
	struct bvec_iter it;
	struct bio_vec bv;
	unsigned short n = 1;
	struct bio *b;

	bio_for_each_bvec(bv, io->bio, it)
		if (++n > BIO_MAX_VECS)
			return NULL;
	b = bio_alloc_bioset(s->bdev, n, opf, GFP_NOIO, &awsw_bs);
	/* kmalloc: a power of two is naturally aligned, in one page or more */
	__bio_add_page(b, virt_to_page(hdr), s->sb.lbs, offset_in_page(hdr));
	/* A split bio may start inside a multi-page vector: page it. */
	bio_for_each_bvec(bv, io->bio, it)
		__bio_add_page(b, nth_page(bv.bv_page, bv.bv_offset >> PAGE_SHIFT),
			       bv.bv_len, offset_in_page(bv.bv_offset));
	return b;
}

/*
 * Send @io's record: the header block and the data behind it, as one write
 * where the vectors allow (one command instead of two), else as two.
 * Nothing waits here: the completions move the write on.
 */
static void awsw_write_record(struct awsw *s, struct awsw_io *io)
{
	u64 at = s->sb.journal_start + io->pos;
	/*
	 * PREFLUSH: what completed before this write is durable before it is.
	 * Its record is what recovery would bring back, so it carries it.
	 * FUA: a device with FUA makes one record durable without a flush of
	 * its whole cache, so the record need not wait for the batch's flush.
	 */
	blk_opf_t opf = REQ_OP_WRITE | REQ_SYNC |
			(io->bio->bi_opf & REQ_PREFLUSH);
	struct bio *h, *d = NULL;
	u8 *hdr;

	io->fua = bdev_fua(s->bdev);
	if (io->fua)
		opf |= REQ_FUA;

	hdr = mempool_alloc(s->hdr_pool, GFP_NOIO);
	io->hdr = hdr;
	awsw_rec_encode_header(&s->sb, hdr, io->pos, io->seq,
			       ((u64)io->bio->bi_iter.bi_sector -
				s->data_sect) << SECTOR_SHIFT,
			       io->bio->bi_iter.bi_size);
	awsw_rec_set_crc(hdr, awsw_rec_crc(io->dcrc, hdr, s->sb.lbs));
	io->jerr = 0;
	/* Only a writer outside of submit_bio() can go on to commit. */
	io->writer = current->bio_list ? NULL : current;

	h = awsw_record_bio(s, io, hdr, opf);
	if (!h) {
		h = bio_alloc_bioset(s->bdev, 1, opf, GFP_NOIO, &awsw_bs);
		__bio_add_page(h, virt_to_page(hdr), s->sb.lbs,
			       offset_in_page(hdr));
		d = awsw_clone_down(io, &awsw_bs, awsw_journal_endio);
		d->bi_opf = opf;
		d->bi_iter.bi_sector = (at + s->sb.lbs) >> SECTOR_SHIFT;
	}
	h->bi_iter.bi_sector = at >> SECTOR_SHIFT;
	h->bi_private = io;
	h->bi_end_io = awsw_journal_endio;
	atomic_set(&io->jleft, d ? 2 : 1);

	submit_bio_noacct(h);
	if (d)
		submit_bio_noacct(d);
}

/* Reserve and write @io's record, or park it (its crc is known). */
static void awsw_atomic_record(struct awsw_io *io)
{
	int ret = awsw_reserve(io->s, io);

	if (ret == -EAGAIN)
		return;
	if (ret)
		awsw_io_done(io, errno_to_blk_status(ret));
	else
		awsw_write_record(io->s, io);
}

/* Checksum in the submitter's context, so that writers run in parallel. */
static void awsw_atomic_start(struct awsw_io *io)
{
	io->dcrc = awsw_data_crc(io->bio);
	awsw_atomic_record(io);
}

static void awsw_commit_run(struct awsw *s, bool wait);

/* An atomic write that had to wait for its range: like awsw_submit(). */
static void awsw_atomic_work(struct work_struct *work)
{
	struct awsw_io *io = container_of(work, struct awsw_io, work);
	struct awsw *s = io->s;

	awsw_atomic_start(io);
	awsw_commit_run(s, false);
}

static void awsw_inplace_endio(struct bio *c)
{
	struct awsw_io *io = c->bi_private;
	blk_status_t st = c->bi_status;

	bio_put(c);
	if (st)
		awsw_fail(io->s, "an in-place write",
			  blk_status_to_errno(st));
	awsw_io_done(io, st);
}

/* Is a record of @batch not durable yet (written without FUA)? */
static bool awsw_batch_needs_flush(struct list_head *batch)
{
	struct awsw_io *io;

	list_for_each_entry(io, batch, deferred)
		if (!io->fua)
			return true;
	return false;
}

/*
 * One flush makes every record of @batch durable (group commit), unless
 * each is already (FUA); then each is written in place, no FUA needed.
 */
static void awsw_commit_batch(struct awsw *s, struct list_head *batch)
{
	struct awsw_io *io, *n;
	struct blk_plug plug;
	int ret = -EIO;

	if (!READ_ONCE(s->failed)) {
		ret = 0;
		if (awsw_batch_needs_flush(batch)) {
			ret = blkdev_issue_flush(s->bdev);
			atomic64_inc(&s->commits);
		}
		if (ret)
			awsw_fail(s, "a journal flush", ret);
	}
	blk_start_plug(&plug);
	list_for_each_entry_safe(io, n, batch, deferred) {
		struct bio *c;

		list_del_init(&io->deferred);
		if (ret) {
			awsw_io_done(io, errno_to_blk_status(ret));
			continue;
		}
		c = awsw_clone_down(io, &awsw_bs, awsw_inplace_endio);
		c->bi_opf = REQ_OP_WRITE | REQ_SYNC;
		submit_bio_noacct(c);
	}
	blk_finish_plug(&plug);
}

/*
 * While draining, no record is reserved; once the last one is in place,
 * take the checkpoint and start the parked writes again (in-place
 * completions requeue the worker when the last one lands). After a
 * failure, parked writes fail at once.
 */
static void awsw_drain(struct awsw *s)
{
	bool failed = READ_ONCE(s->failed);
	struct awsw_io *io, *n;
	LIST_HEAD(parked);
	bool ready;
	int ret;

	spin_lock_irq(&s->lock);
	ready = s->draining && !atomic_read(&s->pending);
	spin_unlock_irq(&s->lock);
	if (!ready && !failed)
		return;
	ret = failed ? -EIO : awsw_checkpoint(s);
	spin_lock_irq(&s->lock);
	s->draining = false;
	s->ckpt_gen++;
	list_splice_init(&s->parked, &parked);
	spin_unlock_irq(&s->lock);
	wake_up_all(&s->pending_wait);
	list_for_each_entry_safe(io, n, &parked, deferred) {
		list_del_init(&io->deferred);
		if (ret)
			awsw_io_done(io, errno_to_blk_status(ret));
		else
			awsw_atomic_record(io);
	}
}

/* Group commits, then a checkpoint when draining. With commit_lock. */
static void awsw_commit_locked(struct awsw *s)
{
	LIST_HEAD(batch);

	for (;;) {
		spin_lock_irq(&s->lock);
		list_splice_init(&s->committing, &batch);
		spin_unlock_irq(&s->lock);
		if (list_empty(&batch))
			break;
		awsw_commit_batch(s, &batch);
	}
	awsw_drain(s);
}

static bool awsw_committing_waits(struct awsw *s)
{
	bool ret;

	spin_lock_irq(&s->lock);
	ret = !list_empty(&s->committing);
	spin_unlock_irq(&s->lock);
	return ret;
}

/*
 * Commit here, unless somebody else is (@wait: wait for them first).
 * Whoever holds commit_lock looks again after letting it go, so a record
 * that a writer left while it was busy is not left behind.
 */
static void awsw_commit_run(struct awsw *s, bool wait)
{
	do {
		if (wait)
			mutex_lock(&s->commit_lock);
		else if (!mutex_trylock(&s->commit_lock))
			return;
		awsw_commit_locked(s);
		mutex_unlock(&s->commit_lock);
		wait = false;
	} while (awsw_committing_waits(s));
}

static void awsw_commit_work(struct work_struct *work)
{
	awsw_commit_run(container_of(work, struct awsw, commit_work), true);
}

/* An io for @bio; NULL once the engine has failed (@bio failed too). */
static struct awsw_io *awsw_new_io(struct awsw *s, struct bio *bio, bool atomic)
{
	struct awsw_io *io;

	if (READ_ONCE(s->failed)) {
		bio_io_error(bio);
		return NULL;
	}
	io = mempool_alloc(s->pool, GFP_NOIO);
	memset(io, 0, sizeof(*io));
	io->s = s;
	io->bio = bio;
	io->atomic = atomic;
	io->range.start = bio->bi_iter.bi_sector;
	io->range.last = bio_end_sector(bio) - 1;
	io->range.excl = atomic;
	INIT_LIST_HEAD(&io->deferred);
	atomic_inc(&s->inflight);
	return io;
}

/*
 * Nothing here waits for I/O, so the submitter's own context (a
 * submit_bio() on 6.12, the ioctl) sends the record: no hand-off.
 */
static void awsw_submit(void *priv, struct bio *bio)
{
	struct awsw *s = priv;
	struct awsw_io *io;

	io = awsw_new_io(s, bio, true);
	if (!io)
		return;
	INIT_WORK(&io->work, awsw_atomic_work);
	if (!awsw_range_lock(s, &io->range))
		return;		/* awsw_range_grant() queues the work */
	awsw_atomic_start(io);
	/*
	 * The ioctl may commit what completed in its own context, ours or
	 * others': on a disk that completes at once, nothing waits for a
	 * worker. @io may be gone by now.
	 */
	if (!current->bio_list)
		awsw_commit_run(s, false);
}

/* ---- plain I/O ---- */

static void awsw_plain_endio(struct bio *c)
{
	struct awsw_io *io = c->bi_private;
	blk_status_t st = c->bi_status;

	bio_put(c);
	awsw_io_done(io, st);
}

static void awsw_plain_go(struct awsw_io *io)
{
	submit_bio_noacct(awsw_clone_down(io, &io->s->bs, awsw_plain_endio));
}

/* Plain bios that waited for their range, or that must checkpoint first. */
static void awsw_plain_work(struct work_struct *work)
{
	struct awsw *s = container_of(work, struct awsw, plain_work);
	struct awsw_io *io, *n;
	LIST_HEAD(list);

	spin_lock_irq(&s->lock);
	list_splice_init(&s->plain, &list);
	spin_unlock_irq(&s->lock);
	list_for_each_entry_safe(io, n, &list, deferred) {
		int ret = 0;

		list_del(&io->deferred);
		if (READ_ONCE(s->failed))
			ret = -EIO;
		else if (op_is_write(bio_op(io->bio)) &&
			 awsw_live_overlaps(s, &io->range)) {
			atomic64_inc(&s->plain_ckpt);
			ret = awsw_checkpoint_sync(s);
		}
		if (ret)
			awsw_io_done(io, errno_to_blk_status(ret));
		else
			awsw_plain_go(io);
	}
}

/* Hand a granted plain bio to plain_work (from any context). */
static void awsw_plain_defer(struct awsw_io *io)
{
	struct awsw *s = io->s;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	list_add_tail(&io->deferred, &s->plain);
	spin_unlock_irqrestore(&s->lock, flags);
	queue_work(s->wq, &s->plain_work);
}

static void awsw_range_grant(struct awsw_io *io)
{
	if (io->atomic)
		queue_work(io->s->wq, &io->work);
	else
		awsw_plain_defer(io);
}

static void awsw_submit_plain(void *priv, struct bio *bio)
{
	struct awsw *s = priv;
	struct awsw_io *io;

	/* A flush has no range, and every record is durable already. */
	if (!bio_sectors(bio) && !READ_ONCE(s->failed)) {
		submit_bio_noacct(bio);
		return;
	}
	io = awsw_new_io(s, bio, false);
	if (!io)
		return;
	if (!awsw_range_lock(s, &io->range))
		return;		/* awsw_range_grant() defers it */
	if (op_is_write(bio_op(bio)) && awsw_live_overlaps(s, &io->range))
		awsw_plain_defer(io);	/* checkpoints first, may sleep */
	else
		awsw_plain_go(io);
}

/* ---- recovery ---- */

struct awsw_scan {
	u8 *win;		/* a window of the journal */
	u64 win_pos;
	u32 win_len, win_max;
	struct awsw_rec *recs;
	unsigned int n, max;
	u64 max_seq;
};

/* Make [pos, pos + len) of the journal readable at sc->win. */
static int awsw_scan_window(struct awsw *s, struct awsw_scan *sc, u64 pos,
			    u32 len)
{
	u64 end = s->sb.journal_size;

	if (pos >= sc->win_pos && pos + len <= sc->win_pos + sc->win_len)
		return 0;
	sc->win_pos = pos;
	sc->win_len = min_t(u64, sc->win_max, end - pos);
	if (len > sc->win_len)
		return -EINVAL;
	return awsw_sync_rw(s, REQ_OP_READ, s->sb.journal_start + pos, sc->win,
			    sc->win_len);
}

static u32 awsw_crc_buf(const u8 *p, u32 len)
{
	return ~crc32c(~0U, p, len);
}

/* Find every record that checks out, header and data. */
static int awsw_scan_records(struct awsw *s, struct awsw_scan *sc)
{
	u32 lbs = s->sb.lbs;
	u64 pos = 0;
	int ret;

	while (pos + lbs <= s->sb.journal_size) {
		struct awsw_rec r;
		u8 *hdr;

		ret = awsw_scan_window(s, sc, pos, lbs);
		if (ret)
			return ret;
		hdr = sc->win + (pos - sc->win_pos);
		if (awsw_rec_check_header(hdr, lbs, pos, &s->sb, &r)) {
			pos += lbs;
			continue;
		}
		ret = awsw_scan_window(s, sc, pos, lbs + r.len);
		if (ret)
			return ret;
		hdr = sc->win + (pos - sc->win_pos);
		if (!awsw_rec_check_data(&r, awsw_rec_crc(awsw_crc_buf(hdr + lbs,
								       r.len),
							  hdr, lbs))) {
			s->discarded++;
			pos += lbs;
			continue;
		}
		sc->max_seq = max(sc->max_seq, r.seq);
		if (r.seq <= s->sb.checkpoint_seq) {
			/* In place already; newer records may lie inside. */
			s->stale++;
			pos += lbs;
			continue;
		}
		if (sc->n == sc->max)
			return -E2BIG;
		sc->recs[sc->n++] = r;
		pos += lbs + r.len;
	}
	return 0;
}

static int awsw_replay(struct awsw *s, struct awsw_scan *sc, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct awsw_rec *r = &sc->recs[i];

		/* Read it again: it was checked, the window has moved on. */
		ret = awsw_sync_rw(s, REQ_OP_READ,
				   s->sb.journal_start + r->pos + s->sb.lbs,
				   sc->win, r->len);
		if (!ret)
			ret = awsw_sync_rw(s, REQ_OP_WRITE | REQ_SYNC,
					   s->sb.data_start + r->target, sc->win,
					   r->len);
		if (ret)
			return ret;
		s->replayed++;
	}
	return 0;
}

static int awsw_recover(struct awsw *s)
{
	struct awsw_scan sc = { .win_max = SZ_1M + s->sb.unit_max + s->sb.lbs };
	unsigned int n;
	int ret = -ENOMEM;

	sc.max = div_u64(s->sb.journal_size, 2 * s->sb.lbs);
	sc.win = kvmalloc(sc.win_max, GFP_KERNEL);
	sc.recs = kvmalloc_array(sc.max, sizeof(*sc.recs), GFP_KERNEL);
	if (!sc.win || !sc.recs)
		goto out;
	sc.max_seq = s->sb.checkpoint_seq;
	ret = awsw_scan_records(s, &sc);
	if (ret)
		goto out;
	n = awsw_replay_plan(sc.recs, sc.n, s->sb.checkpoint_seq);
	ret = awsw_replay(s, &sc, n);
	/* Durable in place before the checkpoint moves past the records. */
	if (!ret && sc.max_seq > s->sb.checkpoint_seq) {
		ret = blkdev_issue_flush(s->bdev);
		if (!ret)
			ret = awsw_write_sb(s, sc.max_seq);
	}
	if (!ret) {
		s->seq = s->ckpt_seq = s->sb.checkpoint_seq;
		pr_info("%s: recovery: %llu replayed, %llu discarded, %llu stale, checkpoint %llu\n",
			s->name, s->replayed, s->discarded, s->stale,
			s->ckpt_seq);
	}
out:
	kvfree(sc.recs);
	kvfree(sc.win);
	return ret;
}

/* ---- attach and detach ---- */

static int awsw_read_sb(struct block_device *bdev,
			const struct awblk_hwinfo *info,
			struct awsw_sb *sb, struct awsw *tmp)
{
	u8 *buf = kmalloc(AWSW_SB_SIZE, GFP_KERNEL);
	const char *why = NULL;
	int ret;

	if (!buf)
		return -ENOMEM;
	tmp->bdev = bdev;
	ret = awsw_sync_rw(tmp, REQ_OP_READ, 0, buf, AWSW_SB_SIZE);
	if (!ret)
		ret = awsw_sb_decode(buf, AWSW_SB_SIZE, bdev_nr_bytes(bdev),
				     bdev_logical_block_size(bdev), sb, &why);
	kfree(buf);
	if (ret == -ENODATA) {
		if (info->named)
			pr_info("%pg: no awkit format (run awctl format)\n",
				bdev);
		return -ENODEV;
	}
	/* Not asked for by name: a device we cannot read is not ours. */
	if (ret && ret != -EINVAL && !info->named)
		return -ENODEV;
	if (ret == -EINVAL)
		pr_info("%pg: refusing: %s\n", bdev, why);
	else if (ret)
		pr_info("%pg: cannot read the superblock (error %d)\n", bdev,
			ret);
	return ret;
}

static void awsw_free(struct awsw *s)
{
	if (s->cwq)
		destroy_workqueue(s->cwq);
	if (s->wq)
		destroy_workqueue(s->wq);
	awsw_live_clear(s);
	mempool_destroy(s->hdr_pool);
	mempool_destroy(s->pool);
	bioset_exit(&s->bs);
	kfree(s);
}

static int awsw_probe(struct block_device *bdev,
		      const struct awblk_hwinfo *info,
		      struct aw_atomic_limits *hw, void **priv)
{
	struct awsw *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int ret;

	if (!s)
		return -ENOMEM;
	ret = awsw_read_sb(bdev, info, &s->sb, s);
	if (ret)
		goto free_early;
	if (bdev_read_only(bdev)) {
		pr_info("%pg: read-only: the journal cannot be replayed\n",
			bdev);
		ret = -EROFS;
		goto free_early;
	}
	snprintf(s->name, sizeof(s->name), "%pg", bdev);
	s->data_sect = s->sb.data_start >> SECTOR_SHIFT;
	spin_lock_init(&s->lock);
	s->granted = RB_ROOT_CACHED;
	s->live = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&s->waiting);
	INIT_LIST_HEAD(&s->live_list);
	INIT_LIST_HEAD(&s->committing);
	INIT_LIST_HEAD(&s->parked);
	init_waitqueue_head(&s->pending_wait);
	init_waitqueue_head(&s->idle_wait);
	INIT_WORK(&s->plain_work, awsw_plain_work);
	INIT_WORK(&s->commit_work, awsw_commit_work);
	mutex_init(&s->commit_lock);
	INIT_LIST_HEAD(&s->plain);
	ret = bioset_init(&s->bs, BIO_POOL_SIZE, 0, BIOSET_NEED_RESCUER);
	if (ret)
		goto free_early;
	ret = -ENOMEM;
	s->pool = mempool_create_slab_pool(64, awsw_io_cache);
	s->hdr_pool = mempool_create_kmalloc_pool(16, s->sb.lbs);
	s->wq = alloc_workqueue("awsw/%s", WQ_MEM_RECLAIM | WQ_UNBOUND, 0,
				s->name);
	/* Its own queue: plain_work waits for it. */
	s->cwq = alloc_workqueue("awsw-commit/%s", WQ_MEM_RECLAIM | WQ_UNBOUND,
				 1, s->name);
	if (!s->pool || !s->hdr_pool || !s->wq || !s->cwq)
		goto free;
	ret = awsw_recover(s);
	if (ret) {
		pr_info("%s: recovery failed (error %d)\n", s->name, ret);
		goto free;
	}
	hw->unit_min = s->sb.lbs;
	hw->unit_max = s->sb.unit_max;
	hw->max_bytes = s->sb.unit_max;
	hw->boundary = 0;
	*priv = s;
	return 0;
free:
	awsw_free(s);
	return ret;
free_early:
	/* Nothing initialised yet for awsw_free() to take apart. */
	kfree(s);
	return ret;
}

static void awsw_geometry(void *priv, sector_t *start, sector_t *nr)
{
	struct awsw *s = priv;

	*start = s->data_sect;
	*nr = s->sb.data_size >> SECTOR_SHIFT;
}

/* Nothing in flight; checkpoint so that the next attach replays nothing. */
static void awsw_release(void *priv)
{
	struct awsw *s = priv;

	wait_event(s->idle_wait, !atomic_read(&s->inflight));
	/* The last awsw_io_done() is out of the wait queue's lock after this. */
	spin_lock_irq(&s->idle_wait.lock);
	spin_unlock_irq(&s->idle_wait.lock);
	flush_workqueue(s->wq);
	flush_workqueue(s->cwq);
	if (!READ_ONCE(s->failed))
		awsw_checkpoint(s);
	awsw_free(s);
}

static int awsw_stats(void *priv, char *buf)
{
	struct awsw *s = priv;

	return sysfs_emit(buf,
		"replayed %llu\ndiscarded %llu\nstale %llu\nrecords %lld\ncommits %lld\ncheckpoints %lld\njournal_full %lld\nplain_checkpoints %lld\nfailed %d\n",
		s->replayed, s->discarded, s->stale,
		atomic64_read(&s->records), atomic64_read(&s->commits),
		atomic64_read(&s->checkpoints),
		atomic64_read(&s->journal_full),
		atomic64_read(&s->plain_ckpt), READ_ONCE(s->failed));
}

static struct awblk_engine awsw_engine = {
	.name		= "sw",
	.id		= AW_ENGINE_SW,
	.owner		= THIS_MODULE,
	.probe		= awsw_probe,
	.submit		= awsw_submit,
	.submit_plain	= awsw_submit_plain,
	.geometry	= awsw_geometry,
	.stats		= awsw_stats,
	.format_at	= awsw_format_at,
	.release	= awsw_release,
};

static int __init awsw_init(void)
{
	int ret;

	awsw_io_cache = KMEM_CACHE(awsw_io, 0);
	awsw_live_cache = KMEM_CACHE(awsw_live, 0);
	ret = -ENOMEM;
	if (!awsw_io_cache || !awsw_live_cache)
		goto cache;
	/* Records are sent from inside submit_bio() on 6.12: a rescuer. */
	ret = bioset_init(&awsw_bs, BIO_POOL_SIZE, 0,
			  BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER);
	if (ret)
		goto cache;
	ret = awblk_register_engine(&awsw_engine);
	if (ret)
		goto bs;
	return 0;
bs:
	bioset_exit(&awsw_bs);
cache:
	kmem_cache_destroy(awsw_live_cache);
	kmem_cache_destroy(awsw_io_cache);
	return ret;
}

static void __exit awsw_exit(void)
{
	awblk_unregister_engine(&awsw_engine);
	bioset_exit(&awsw_bs);
	kmem_cache_destroy(awsw_live_cache);
	kmem_cache_destroy(awsw_io_cache);
}

module_init(awsw_init);
module_exit(awsw_exit);
MODULE_DESCRIPTION("awkit software engine: atomic writes on any disk through a journal");
MODULE_AUTHOR("awkit developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("awblk-engine-sw");
