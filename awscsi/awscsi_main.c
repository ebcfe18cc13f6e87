// SPDX-License-Identifier: GPL-2.0
/*
 * awscsi: emulated SCSI disks with WRITE ATOMIC(16), a torn-write-honest
 * media model, an optional volatile write cache and power-fail injection.
 *
 * Media model. A normal write is atomic per logical block only: blocks are
 * copied one at a time, so a racing reader or a power cut can observe it half
 * applied. WRITE ATOMIC(16) holds its range exclusively while it copies, so a
 * reader sees all of it or none of it and a power cut lands it whole or not
 * at all. Commands complete inline (like scsi_debug with delay=0), or, with
 * delay or ndelay, later from a timer: the media work is done on arrival and
 * only the completion waits, as in scsi_debug. A cut in between fails the
 * command: the host never learns whether a write in flight landed.
 *
 * Write cache. With write_cache=1 every written block keeps its last durable
 * contents in a shadow entry until SYNCHRONIZE CACHE or FUA makes it durable.
 * A power cut drops unflushed normal writes per block at random, and
 * unflushed atomic writes as a whole: the entries of one atomic write share a
 * group and are kept or lost together. A later write to a block of a pending
 * atomic write first commits that whole group, as a real cache must.
 *
 * Locking, outermost first: the range locks of the command's 64 KiB regions
 * (readers, normal writers and flushes share them; atomic writers and the
 * power-loss work take them exclusively), a per-block stripe lock (one block
 * copy), disk->cache_lock (shadow entries). Whatever walks the whole cache
 * takes every range lock: an atomic write notes its group under its own
 * range locks, not under one hold of cache_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <linux/scatterlist.h>
#include <linux/random.h>
#include <linux/workqueue.h>
#include <linux/device.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <scsi/scsi.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "compat.h"
#include "awscsi_logic.h"

#define AWSCSI_STRIPES		64
#define AWSCSI_SHARDS		16
#define AWSCSI_REGION_SHIFT	16	/* 64 KiB regions share a range lock */
#define AWSCSI_MAX_DISKS	16
#define AWSCSI_MAX_HOSTS	16
#define AWSCSI_CMD_BUF		512
/* Unflushed blocks held per disk; past this, writes go straight through. */
#define AWSCSI_MAX_DIRTY	65536

static int num_tgts = 1;
module_param(num_tgts, int, 0444);
MODULE_PARM_DESC(num_tgts, "number of emulated disks (1..16, default 1)");
static int dev_size_mb = 8;
module_param(dev_size_mb, int, 0444);
MODULE_PARM_DESC(dev_size_mb, "size of each disk in MiB (default 8)");
static int sector_size = 512;
module_param(sector_size, int, 0444);
MODULE_PARM_DESC(sector_size, "logical block size: 512, 1024, 2048 or 4096");
static int physblk_exp;
module_param(physblk_exp, int, 0444);
MODULE_PARM_DESC(physblk_exp, "log2 of logical blocks per physical block");
static bool write_cache;
module_param(write_cache, bool, 0444);
MODULE_PARM_DESC(write_cache, "volatile write cache (default 0: write-through)");
static bool fua = true;
module_param(fua, bool, 0444);
MODULE_PARM_DESC(fua, "FUA bit supported (DPOFUA; default 1; 0: not reported, ignored)");
static unsigned int block_ndelay;
module_param(block_ndelay, uint, 0444);
MODULE_PARM_DESC(block_ndelay,
		 "nanoseconds each written block takes (0..100000, default 0)");
/*
 * Latency, with scsi_debug's names: ndelay wins when non-zero. Like
 * scsi_debug's, they can change while the disks run (a command takes the
 * values it finds when it arrives); the setters keep them in range.
 */
static unsigned int awscsi_delay;
static unsigned int awscsi_ndelay;
static unsigned int awscsi_flush_ndelay;
static unsigned int awscsi_mbps;

static int awscsi_set_delay(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 10 * HZ);
}

static int awscsi_set_ns(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, NSEC_PER_SEC - 1);
}

static int awscsi_set_mbps(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 100000);
}

static const struct kernel_param_ops awscsi_mbps_ops = {
	.set = awscsi_set_mbps,
	.get = param_get_uint,
};

static const struct kernel_param_ops awscsi_delay_ops = {
	.set = awscsi_set_delay,
	.get = param_get_uint,
};

static const struct kernel_param_ops awscsi_ns_ops = {
	.set = awscsi_set_ns,
	.get = param_get_uint,
};

module_param_cb(delay, &awscsi_delay_ops, &awscsi_delay, 0644);
MODULE_PARM_DESC(delay,
		 "command latency in jiffies (0..10 s; default 0: inline)");
module_param_cb(ndelay, &awscsi_ns_ops, &awscsi_ndelay, 0644);
MODULE_PARM_DESC(ndelay,
		 "command latency in nanoseconds (below 1 s; default 0: use delay)");
module_param_cb(flush_ndelay, &awscsi_ns_ops, &awscsi_flush_ndelay, 0644);
MODULE_PARM_DESC(flush_ndelay,
		 "extra nanoseconds a cache flush or FUA write takes with write_cache=1 (below 1 s)");
module_param_cb(mbps, &awscsi_mbps_ops, &awscsi_mbps, 0644);
MODULE_PARM_DESC(mbps,
		 "media rate in MB/s, one command's data at a time per disk (0..100000; default 0: no limit)");
static int add_host = 1;
module_param(add_host, int, 0444);
MODULE_PARM_DESC(add_host, "number of hosts, each with num_tgts disks (1..16, default 1)");
static bool per_host_store;
module_param(per_host_store, bool, 0444);
MODULE_PARM_DESC(per_host_store,
		 "each host has its own stores (default 0: hosts share the disks)");
static int atomic_wr;
module_param(atomic_wr, int, 0444);
MODULE_PARM_DESC(atomic_wr, "WRITE ATOMIC(16) support (default 0)");
static unsigned int atomic_wr_max_length = 8192;
module_param(atomic_wr_max_length, uint, 0444);
MODULE_PARM_DESC(atomic_wr_max_length, "max atomic transfer length, blocks");
static unsigned int atomic_wr_align = 2;
module_param(atomic_wr_align, uint, 0444);
MODULE_PARM_DESC(atomic_wr_align, "atomic alignment, blocks");
static unsigned int atomic_wr_gran = 2;
module_param(atomic_wr_gran, uint, 0444);
MODULE_PARM_DESC(atomic_wr_gran, "atomic transfer length granularity, blocks");
static unsigned int atomic_wr_max_length_bndry = 8192;
module_param(atomic_wr_max_length_bndry, uint, 0444);
MODULE_PARM_DESC(atomic_wr_max_length_bndry,
		 "max atomic transfer length with boundary, blocks");
static unsigned int atomic_wr_max_bndry = 128;
module_param(atomic_wr_max_bndry, uint, 0444);
MODULE_PARM_DESC(atomic_wr_max_bndry, "max atomic boundary size, blocks");

/* The durable contents of a block that has unflushed data in the cache. */
struct awscsi_shadow {
	u64 group;		/* atomic write it belongs to; 0 for normal */
	u64 glba;		/* that atomic write's range */
	u32 gblocks;
	u8 old[];
};

struct awscsi_disk {
	struct awscsi_cfg cfg;
	u8 *store;
	rwlock_t lock[AWSCSI_SHARDS];	/* by 64 KiB region, see lock_range */
	u8 *stage;		/* see awscsi_stage_atomic() */
	atomic_t stage_busy;
	spinlock_t stripe[AWSCSI_STRIPES];
	spinlock_t cache_lock;
	struct xarray dirty;		/* lba -> struct awscsi_shadow */
	unsigned long ndirty;
	atomic64_t next_group;
	atomic64_t reads, writes, atomics, atomic_rejects, torn, lost, flushes;
	atomic_t unit_attention;	/* pending: the next command reports it */
	atomic64_t xfer_end;		/* ns: when the media is free, see mbps */
};

/*
 * A command's private data: its response buffer and, with a latency, the
 * timer that completes it.
 */
struct awscsi_cmd {
	struct hrtimer timer;
	struct scsi_cmnd *sc;
	int cuts;		/* power cuts seen when it arrived */
	bool flush;		/* it makes the write cache durable */
	u8 buf[AWSCSI_CMD_BUF];
};

/* The disks' stores: one per target, or per target and host. */
static struct awscsi_disk *disks;
static int ndisks;
static struct Scsi_Host *awscsi_shosts[AWSCSI_MAX_HOSTS];
static int nhosts;		/* attached */
static DEFINE_MUTEX(awscsi_host_mutex);
static struct device *awscsi_root;

/* Power state, shared by all disks: a cut takes the whole machine down. */
static atomic_t powered = ATOMIC_INIT(1);
static atomic_t cut_armed = ATOMIC_INIT(0);
static atomic_t cut_left = ATOMIC_INIT(0);
static atomic_t cuts = ATOMIC_INIT(0);
static void awscsi_power_loss(struct work_struct *work);
static DECLARE_WORK(cut_work, awscsi_power_loss);

static inline u8 *awscsi_blk_ptr(struct awscsi_disk *d, u64 lba)
{
	return d->store + lba * d->cfg.lbs;
}

static inline spinlock_t *awscsi_stripe_of(struct awscsi_disk *d, u64 lba)
{
	return &d->stripe[lba % AWSCSI_STRIPES];
}

/*
 * Range locks: region r of the disk is guarded by lock[r % SHARDS]. Reads,
 * normal writes and flushes take the locks of their range shared; atomic
 * writes take them exclusively, so only overlapping commands wait for each
 * other. Locks are always taken in ascending shard order.
 */
/*
 * One lock class per shard: shards nest, always in ascending order, which
 * lockdep can check only when it tells them apart.
 */
static struct lock_class_key awscsi_shard_keys[AWSCSI_SHARDS];

static unsigned long awscsi_shards_of(struct awscsi_disk *d, u64 lba, u32 n)
{
	u64 first = (lba * d->cfg.lbs) >> AWSCSI_REGION_SHIFT;
	u64 last = ((lba + (n ? n : 1)) * d->cfg.lbs - 1) >> AWSCSI_REGION_SHIFT;
	unsigned long mask = 0;
	u64 r;

	if (last - first + 1 >= AWSCSI_SHARDS)
		return (1UL << AWSCSI_SHARDS) - 1;
	for (r = first; r <= last; r++)
		mask |= 1UL << (r % AWSCSI_SHARDS);
	return mask;
}

static void awscsi_lock_shards(struct awscsi_disk *d, unsigned long mask,
			       bool excl)
{
	int i;

	for (i = 0; i < AWSCSI_SHARDS; i++) {
		if (!(mask & (1UL << i)))
			continue;
		if (excl)
			write_lock(&d->lock[i]);
		else
			read_lock(&d->lock[i]);
	}
}

static void awscsi_unlock_shards(struct awscsi_disk *d, unsigned long mask,
				 bool excl)
{
	int i;

	for (i = AWSCSI_SHARDS - 1; i >= 0; i--) {
		if (!(mask & (1UL << i)))
			continue;
		if (excl)
			write_unlock(&d->lock[i]);
		else
			read_unlock(&d->lock[i]);
	}
}

#define ALL_SHARDS	((1UL << AWSCSI_SHARDS) - 1)

/* ---- write cache model ---- */

static void awscsi_shadow_drop(struct awscsi_disk *d, u64 lba)
{
	struct awscsi_shadow *e = xa_erase(&d->dirty, lba);

	if (!e)
		return;
	kfree(e);
	d->ndirty--;
}

/* Make a block durable; a block of a pending atomic write takes its group. */
static void awscsi_cache_commit(struct awscsi_disk *d, u64 lba)
{
	struct awscsi_shadow *e = xa_load(&d->dirty, lba);
	u64 g, i, start;
	u32 n;

	if (!e)
		return;
	if (!e->group) {
		awscsi_shadow_drop(d, lba);
		return;
	}
	g = e->group;
	start = e->glba;
	n = e->gblocks;
	for (i = start; i < start + n; i++) {
		e = xa_load(&d->dirty, i);
		if (e && e->group == g)
			awscsi_shadow_drop(d, i);
	}
}

/*
 * Record that block lba is about to be overwritten by a write of @group
 * (0 for a normal write). Returns false when no shadow could be kept, in
 * which case the block has been made durable instead (write-through).
 */
static bool awscsi_cache_note(struct awscsi_disk *d, u64 lba, u64 group,
			      u64 glba, u32 gblocks)
{
	struct awscsi_shadow *e = xa_load(&d->dirty, lba);

	if (e && e->group && e->group != group) {
		awscsi_cache_commit(d, lba);
		e = NULL;
	}
	if (!e) {
		if (d->ndirty >= AWSCSI_MAX_DIRTY)
			return false;
		e = kmalloc(sizeof(*e) + d->cfg.lbs, GFP_ATOMIC | __GFP_NOWARN);
		if (!e)
			return false;
		memcpy(e->old, awscsi_blk_ptr(d, lba), d->cfg.lbs);
		if (xa_err(xa_store(&d->dirty, lba, e, GFP_ATOMIC | __GFP_NOWARN))) {
			kfree(e);
			return false;
		}
		d->ndirty++;
	}
	e->group = group;
	e->glba = glba;
	e->gblocks = gblocks;
	return true;
}

static void awscsi_cache_flush_all(struct awscsi_disk *d)
{
	struct awscsi_shadow *e;
	unsigned long lba;

	xa_for_each(&d->dirty, lba, e) {
		xa_erase(&d->dirty, lba);
		kfree(e);
	}
	d->ndirty = 0;
}

/* A mix of the group id and a per-cut salt decides a group's fate. */
static bool awscsi_group_survives(u64 group, u64 salt)
{
	return ((group ^ salt) * 0x9e3779b97f4a7c15ULL) >> 63;
}

/* Power is gone: each unflushed block (or atomic group) lands or is lost. */
static void awscsi_cache_power_loss(struct awscsi_disk *d)
{
	u64 salt = get_random_u64();
	struct awscsi_shadow *e;
	unsigned long lba;
	bool keep;

	xa_for_each(&d->dirty, lba, e) {
		if (e->group)
			keep = awscsi_group_survives(e->group, salt);
		else
			keep = get_random_u32() & 1;
		if (!keep) {
			memcpy(awscsi_blk_ptr(d, lba), e->old, d->cfg.lbs);
			atomic64_inc(&d->lost);
		}
		xa_erase(&d->dirty, lba);
		kfree(e);
	}
	d->ndirty = 0;
}

/* ---- power ---- */

static void awscsi_power_loss(struct work_struct *work)
{
	int i;

	for (i = 0; i < ndisks; i++) {
		struct awscsi_disk *d = &disks[i];

		awscsi_lock_shards(d, ALL_SHARDS, true);
		spin_lock(&d->cache_lock);
		awscsi_cache_power_loss(d);
		spin_unlock(&d->cache_lock);
		awscsi_unlock_shards(d, ALL_SHARDS, true);
	}
}

/* Cut power: every command fails from now on; the cache settles in a work. */
static void awscsi_cut(void)
{
	atomic_set(&cut_armed, 0);
	if (atomic_xchg(&powered, 0)) {
		atomic_inc(&cuts);
		schedule_work(&cut_work);
	}
}

static void awscsi_restore(void)
{
	int i;

	flush_work(&cut_work);
	atomic_set(&cut_armed, 0);
	/* The transfers the cut failed no longer hold the media. */
	for (i = 0; i < ndisks; i++)
		atomic64_set(&disks[i].xfer_end, 0);
	atomic_set(&powered, 1);
}

enum gate { GATE_OFF = -1, GATE_RUN = 0, GATE_VICTIM = 1 };

/*
 * Count a media command against an armed cut_after. The command that takes
 * the count to zero is the one in flight when power fails.
 */
static enum gate awscsi_power_gate(void)
{
	int left;

	if (!atomic_read(&powered))
		return GATE_OFF;
	if (!atomic_read(&cut_armed))
		return GATE_RUN;
	left = atomic_dec_return(&cut_left);
	if (left == 0)
		return GATE_VICTIM;
	return left < 0 ? GATE_OFF : GATE_RUN;
}

/* ---- data movement ---- */

/* A slow medium on request: it widens the window in which tearing shows. */
static inline void awscsi_media_delay(void)
{
	if (block_ndelay)
		ndelay(block_ndelay);
}

struct awscsi_iter {
	struct sg_mapping_iter m;
	size_t used;		/* bytes of the current chunk consumed */
};

static void awscsi_iter_start(struct awscsi_iter *it, struct scsi_cmnd *sc,
			      bool to_store)
{
	sg_miter_start(&it->m, scsi_sglist(sc), scsi_sg_count(sc),
		       SG_MITER_ATOMIC |
		       (to_store ? SG_MITER_FROM_SG : SG_MITER_TO_SG));
	it->used = 0;
}

/* Copy one block between the store and the command's buffer. */
static bool awscsi_iter_block(struct awscsi_iter *it, u8 *blk, u32 len,
			      bool to_store)
{
	size_t n;

	while (len) {
		if (it->used == it->m.length) {
			if (!sg_miter_next(&it->m))
				return false;
			it->used = 0;
		}
		n = min_t(size_t, len, it->m.length - it->used);
		if (to_store)
			memcpy(blk, it->m.addr + it->used, n);
		else
			memcpy(it->m.addr + it->used, blk, n);
		it->used += n;
		blk += n;
		len -= n;
	}
	return true;
}

static void awscsi_do_read(struct awscsi_disk *d, struct scsi_cmnd *sc,
			   const struct awscsi_rw *rw)
{
	unsigned long mask = awscsi_shards_of(d, rw->lba, rw->nblocks);
	struct awscsi_iter it;
	u32 i;

	awscsi_iter_start(&it, sc, false);
	awscsi_lock_shards(d, mask, false);
	for (i = 0; i < rw->nblocks; i++) {
		spinlock_t *l = awscsi_stripe_of(d, rw->lba + i);

		spin_lock(l);
		awscsi_iter_block(&it, awscsi_blk_ptr(d, rw->lba + i), d->cfg.lbs, false);
		spin_unlock(l);
	}
	awscsi_unlock_shards(d, mask, false);
	sg_miter_stop(&it.m);
	atomic64_inc(&d->reads);
}

/*
 * A normal write, block by block. @tear is the number of blocks that land
 * before power fails (U32_MAX: no planned cut). Returns false when torn.
 */
static bool awscsi_do_write(struct awscsi_disk *d, struct scsi_cmnd *sc,
			    const struct awscsi_rw *rw, u32 tear)
{
	unsigned long mask = awscsi_shards_of(d, rw->lba, rw->nblocks);
	bool cache = d->cfg.wce, whole = true;
	struct awscsi_iter it;
	u32 i;

	awscsi_iter_start(&it, sc, true);
	awscsi_lock_shards(d, mask, false);
	for (i = 0; i < rw->nblocks; i++) {
		u64 lba = rw->lba + i;
		spinlock_t *l = awscsi_stripe_of(d, lba);

		if (i == tear || !atomic_read(&powered)) {
			whole = false;
			break;
		}
		spin_lock(l);
		if (cache) {
			spin_lock(&d->cache_lock);
			if (rw->fua || !awscsi_cache_note(d, lba, 0, 0, 0))
				awscsi_cache_commit(d, lba);
			spin_unlock(&d->cache_lock);
		}
		awscsi_iter_block(&it, awscsi_blk_ptr(d, lba), d->cfg.lbs, true);
		spin_unlock(l);
		awscsi_media_delay();
	}
	awscsi_unlock_shards(d, mask, false);
	sg_miter_stop(&it.m);
	atomic64_inc(&d->writes);
	if (!whole && i)
		atomic64_inc(&d->torn);
	return whole;
}

/*
 * Put an atomic write in the cache as one group, or write it through. The
 * caller holds the write's range exclusively, so nothing sees the group
 * half noted: another write to its blocks needs their shards, and whatever
 * walks the whole cache (a flush, the power-loss work) takes every shard.
 * So the cache lock is taken per block, as a normal write takes it, and the
 * other CPUs' commands do not wait for all of a large write's copies.
 */
static void awscsi_cache_note_atomic(struct awscsi_disk *d,
				     const struct awscsi_rw *rw)
{
	u64 g = atomic64_inc_return(&d->next_group);
	bool noted = true;
	u32 i;

	for (i = 0; i < rw->nblocks && !rw->fua && noted; i++) {
		spin_lock(&d->cache_lock);
		noted = awscsi_cache_note(d, rw->lba + i, g, rw->lba,
					  rw->nblocks);
		spin_unlock(&d->cache_lock);
	}
	if (!rw->fua && noted)
		return;
	for (i = 0; i < rw->nblocks; i++) {
		spin_lock(&d->cache_lock);
		awscsi_cache_commit(d, rw->lba + i);
		spin_unlock(&d->cache_lock);
	}
}

/* Fetch an atomic write's blocks into the stage, at the medium's pace. */
static void awscsi_stage_fetch(struct awscsi_disk *d, struct scsi_cmnd *sc,
			       const struct awscsi_rw *rw)
{
	struct awscsi_iter it;
	u32 i;

	awscsi_iter_start(&it, sc, true);
	for (i = 0; i < rw->nblocks; i++) {
		awscsi_iter_block(&it, d->stage + (size_t)i * d->cfg.lbs, d->cfg.lbs,
				  true);
		awscsi_media_delay();
	}
	sg_miter_stop(&it.m);
}

/* Land an atomic write's blocks, from the stage or the command. */
static void awscsi_land_atomic(struct awscsi_disk *d, struct scsi_cmnd *sc,
			       const struct awscsi_rw *rw, bool staged)
{
	struct awscsi_iter it;
	u32 i;

	if (staged) {
		memcpy(awscsi_blk_ptr(d, rw->lba), d->stage,
		       (size_t)rw->nblocks * d->cfg.lbs);
		return;
	}
	awscsi_iter_start(&it, sc, true);
	for (i = 0; i < rw->nblocks; i++)
		awscsi_iter_block(&it, awscsi_blk_ptr(d, rw->lba + i), d->cfg.lbs, true);
	sg_miter_stop(&it.m);
}

/*
 * WRITE ATOMIC(16): all blocks under the exclusive lock, or none. The
 * medium's time is spent before, without the lock (see stage_atomic). One
 * atomic write at a time has a disk's stage; another one meanwhile lands
 * straight from its command, without the medium's time, rather than wait
 * for the stage here in atomic context or hold every reader back.
 */
static bool awscsi_do_write_atomic(struct awscsi_disk *d, struct scsi_cmnd *sc,
				   const struct awscsi_rw *rw, bool apply)
{
	unsigned long mask = awscsi_shards_of(d, rw->lba, rw->nblocks);
	bool staged = apply && d->stage && !atomic_xchg(&d->stage_busy, 1);

	if (staged)
		awscsi_stage_fetch(d, sc, rw);
	awscsi_lock_shards(d, mask, true);
	if (!atomic_read(&powered) && apply) {
		apply = false;
		goto out;
	}
	if (apply) {
		if (d->cfg.wce)
			awscsi_cache_note_atomic(d, rw);
		awscsi_land_atomic(d, sc, rw, staged);
		atomic64_inc(&d->atomics);
	}
out:
	awscsi_unlock_shards(d, mask, true);
	if (staged)
		atomic_set_release(&d->stage_busy, 0);
	return apply;
}

static void awscsi_do_sync(struct awscsi_disk *d)
{
	/* No atomic write may be half noted in the cache meanwhile. */
	awscsi_lock_shards(d, ALL_SHARDS, false);
	spin_lock(&d->cache_lock);
	awscsi_cache_flush_all(d);
	spin_unlock(&d->cache_lock);
	awscsi_unlock_shards(d, ALL_SHARDS, false);
	atomic64_inc(&d->flushes);
}

/* ---- command dispatch ---- */

static void awscsi_check_condition(struct scsi_cmnd *sc,
				   const struct awscsi_sense *s)
{
	memset(sc->sense_buffer, 0, SCSI_SENSE_BUFFERSIZE);
	awscsi_sense_fixed(s, sc->sense_buffer, SCSI_SENSE_BUFFERSIZE);
	sc->result = SAM_STAT_CHECK_CONDITION;
}

static void awscsi_power_off_result(struct scsi_cmnd *sc)
{
	sc->result = DID_NO_CONNECT << 16;
}

/* Data-in of a response built in the per-command buffer. */
static void awscsi_respond(struct scsi_cmnd *sc, const u8 *buf, int n)
{
	u32 len = min_t(u32, n, awscsi_alloc_len(sc->cmnd));
	u32 done = 0;

	len = min_t(u32, len, scsi_bufflen(sc));
	if (len)
		done = scsi_sg_copy_from_buffer(sc, (void *)buf, len);
	scsi_set_resid(sc, scsi_bufflen(sc) - done);
}

static void awscsi_media_cmd(struct awscsi_disk *d, struct scsi_cmnd *sc,
			     enum awscsi_kind k)
{
	struct awscsi_cmd *c = scsi_cmd_priv(sc);
	struct awscsi_sense s;
	struct awscsi_rw rw;
	u32 tear = U32_MAX;
	enum gate gate;
	bool done = true;

	awscsi_decode_rw(sc->cmnd, &rw);
	/* A disk without DPOFUA ignores the bit, as SBC allows. */
	if (!d->cfg.fua)
		rw.fua = false;
	c->flush = d->cfg.wce &&
		   (k == AWS_K_SYNC || (rw.fua && k != AWS_K_READ));
	if (awscsi_check_rw(&d->cfg, k, &rw, &s)) {
		if (k == AWS_K_WRITE_ATOMIC)
			atomic64_inc(&d->atomic_rejects);
		awscsi_check_condition(sc, &s);
		return;
	}
	if (k != AWS_K_SYNC &&
	    scsi_bufflen(sc) < (u64)rw.nblocks * d->cfg.lbs) {
		s = (struct awscsi_sense){ ILLEGAL_REQUEST,
					   AWS_ASC_INVALID_FIELD, 0, -1 };
		awscsi_check_condition(sc, &s);
		return;
	}
	gate = awscsi_power_gate();
	if (gate == GATE_VICTIM) {
		/* In flight at the cut: a write lands in part, all or none. */
		if (rw.nblocks > 1)
			tear = 1 + get_random_u32() % (rw.nblocks - 1);
		else
			tear = get_random_u32() & 1;
		if (k == AWS_K_WRITE)
			awscsi_do_write(d, sc, &rw, tear);
		else if (k == AWS_K_WRITE_ATOMIC)
			awscsi_do_write_atomic(d, sc, &rw, get_random_u32() & 1);
		awscsi_cut();
		done = false;
	} else if (gate == GATE_OFF) {
		done = false;
	} else if (k == AWS_K_READ) {
		awscsi_do_read(d, sc, &rw);
	} else if (k == AWS_K_WRITE) {
		done = awscsi_do_write(d, sc, &rw, tear);
	} else if (k == AWS_K_WRITE_ATOMIC) {
		done = awscsi_do_write_atomic(d, sc, &rw, true);
	} else {
		awscsi_do_sync(d);
	}
	if (done)
		scsi_set_resid(sc, 0);
	else
		awscsi_power_off_result(sc);
}

/* Commands that answer with data built in the per-command buffer. */
static int awscsi_build_response(struct awscsi_disk *d, enum awscsi_kind k,
				 const u8 *cdb, u8 *buf, struct awscsi_sense *s)
{
	switch (k) {
	case AWS_K_INQUIRY:
		return awscsi_inquiry(&d->cfg, cdb, buf, AWSCSI_CMD_BUF, s);
	case AWS_K_READ_CAPACITY:
		return awscsi_read_capacity(&d->cfg, cdb, buf, AWSCSI_CMD_BUF,
					    s);
	case AWS_K_MODE_SENSE:
		return awscsi_mode_sense(&d->cfg, cdb, buf, AWSCSI_CMD_BUF, s);
	case AWS_K_REPORT_LUNS:
		return awscsi_report_luns(cdb, buf, AWSCSI_CMD_BUF, s);
	case AWS_K_REPORT_OPCODES:
		return awscsi_report_opcodes(&d->cfg, cdb, buf, AWSCSI_CMD_BUF,
					     s);
	case AWS_K_REQUEST_SENSE:
		/* SPC: it returns a pending unit attention, which it clears. */
		if (atomic_xchg(&d->unit_attention, 0))
			*s = (struct awscsi_sense){ UNIT_ATTENTION,
						    AWS_ASC_POWER_ON_RESET, 0,
						    -1 };
		else
			*s = (struct awscsi_sense){ NO_SENSE, 0, 0,
						    -1 };
		return awscsi_sense_fixed(s, buf, AWSCSI_CMD_BUF);
	default:		/* TEST UNIT READY, START STOP UNIT */
		return 0;
	}
}

/* Execute @sc on @d; true when it moved data to or from the media. */
static bool awscsi_exec(struct awscsi_disk *d, struct scsi_cmnd *sc)
{
	u8 *buf = ((struct awscsi_cmd *)scsi_cmd_priv(sc))->buf;
	const u8 *cdb = sc->cmnd;
	struct awscsi_sense s;
	enum awscsi_kind k;
	int n;

	sc->result = 0;
	k = awscsi_classify(&d->cfg, cdb, sc->cmd_len, &s);
	/* SPC: INQUIRY, REPORT LUNS and REQUEST SENSE do not clear it. */
	if (k != AWS_K_INQUIRY && k != AWS_K_REPORT_LUNS &&
	    k != AWS_K_REQUEST_SENSE && atomic_xchg(&d->unit_attention, 0)) {
		s = (struct awscsi_sense){ UNIT_ATTENTION,
					   AWS_ASC_POWER_ON_RESET, 0, -1 };
		awscsi_check_condition(sc, &s);
		return false;
	}
	switch (k) {
	case AWS_K_NONE:
		awscsi_check_condition(sc, &s);
		return false;
	case AWS_K_READ:
	case AWS_K_WRITE:
	case AWS_K_WRITE_ATOMIC:
	case AWS_K_SYNC:
		awscsi_media_cmd(d, sc, k);
		return k != AWS_K_SYNC && !sc->result;
	default:
		break;
	}
	if (!atomic_read(&powered)) {
		awscsi_power_off_result(sc);
		return false;
	}
	n = awscsi_build_response(d, k, cdb, buf, &s);
	if (n < 0)
		awscsi_check_condition(sc, &s);
	else
		awscsi_respond(sc, buf, n);
	return false;
}

/* The store behind a host's target: its own, or shared by every host. */
static struct awscsi_disk *awscsi_disk_of(struct scsi_device *sdev)
{
	int host = *(int *)shost_priv(sdev->host);

	if (sdev->id >= num_tgts || sdev->lun || sdev->channel)
		return NULL;
	return &disks[(per_host_store ? host * num_tgts : 0) + sdev->id];
}

static u64 awscsi_base_ns(void)
{
	unsigned int ns = READ_ONCE(awscsi_ndelay);

	return ns ? ns : jiffies_to_nsecs(READ_ONCE(awscsi_delay));
}

static u64 awscsi_latency_ns(const struct awscsi_cmd *c)
{
	u64 ns = awscsi_base_ns();

	return c->flush ? ns + READ_ONCE(awscsi_flush_ndelay) : ns;
}

/*
 * At most this much media time waits behind a new command: a deeper queue
 * would outlast the commands' timeouts, and their retries would only add
 * to it. Further commands are sent back busy until the queue drains.
 */
#define AWSCSI_MEDIA_QUEUE_NS	NSEC_PER_SEC

static bool awscsi_media_full(struct awscsi_disk *d)
{
	return READ_ONCE(awscsi_mbps) &&
	       (s64)(atomic64_read(&d->xfer_end) - ktime_get_ns()) >
	       AWSCSI_MEDIA_QUEUE_NS;
}

/*
 * With a media rate, a disk moves one command's data at a time: a transfer
 * starts when the one before it ends. Writing a page twice then costs twice
 * the media time, as on a real disk, where latency alone (commands in
 * flight overlap) would let a second copy ride along for free. Books
 * @bytes on @d's media; returns how long after now their transfer ends.
 */
static u64 awscsi_transfer_ns(struct awscsi_disk *d, unsigned int bytes)
{
	unsigned int rate = READ_ONCE(awscsi_mbps);
	u64 now, old, end, ns;

	if (!rate || !bytes)
		return 0;
	/* 1 MB/s moves a byte in 1000 ns. */
	ns = div_u64((u64)bytes * 1000, rate);
	now = ktime_get_ns();
	do {
		old = atomic64_read(&d->xfer_end);
		end = max(now, old) + ns;
	} while (atomic64_cmpxchg(&d->xfer_end, old, end) != old);
	return end - now;
}

/*
 * The end of a delayed command. Its media work was done on arrival; a
 * power cut since then takes the answer with it.
 */
static enum hrtimer_restart awscsi_timer_done(struct hrtimer *t)
{
	struct awscsi_cmd *c = container_of(t, struct awscsi_cmd, timer);
	struct scsi_cmnd *sc = c->sc;

	if (atomic_read(&cuts) != c->cuts)
		awscsi_power_off_result(sc);
	scsi_done(sc);
	return HRTIMER_NORESTART;
}

static int awscsi_init_cmd(struct Scsi_Host *shost, struct scsi_cmnd *sc)
{
	struct awscsi_cmd *c = scsi_cmd_priv(sc);

	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	c->timer.function = awscsi_timer_done;
	c->sc = sc;
	return 0;
}

static int awscsi_queuecommand(struct Scsi_Host *shost, struct scsi_cmnd *sc)
{
	struct awscsi_disk *d = awscsi_disk_of(sc->device);
	struct awscsi_cmd *c = scsi_cmd_priv(sc);
	u64 ns;

	if (!d) {
		sc->result = DID_BAD_TARGET << 16;
		scsi_done(sc);
		return 0;
	}
	/* Before the power gate reads powered: a cut sets that first. */
	c->cuts = atomic_read_acquire(&cuts);
	c->flush = false;
	if (awscsi_media_full(d))
		return SCSI_MLQUEUE_DEVICE_BUSY;
	ns = 0;
	/* Only data that moved pays the rate: not a failed or refused command. */
	if (awscsi_exec(d, sc))
		ns = awscsi_transfer_ns(d, scsi_bufflen(sc) - scsi_get_resid(sc));
	ns += awscsi_latency_ns(c);
	if (!ns)
		scsi_done(sc);
	else
		hrtimer_start(&c->timer, ns_to_ktime(ns), HRTIMER_MODE_REL);
	return 0;
}

/*
 * A command that timed out waiting for its latency stops waiting: error
 * handling owns it now, and may finish, retry or reuse it without asking
 * us again (a retried command's second timeout skips the abort), so its
 * timer must not complete it later.
 */
static enum scsi_timeout_action awscsi_timed_out(struct scsi_cmnd *sc)
{
	struct awscsi_cmd *c = scsi_cmd_priv(sc);

	hrtimer_cancel(&c->timer);
	return SCSI_EH_NOT_HANDLED;
}

static int awscsi_eh_abort(struct scsi_cmnd *sc)
{
	struct awscsi_cmd *c = scsi_cmd_priv(sc);

	hrtimer_cancel(&c->timer);
	return SUCCESS;
}

/* A command's memory goes with its tag set: no timer may outlive it. */
static int awscsi_exit_cmd(struct Scsi_Host *shost, struct scsi_cmnd *sc)
{
	struct awscsi_cmd *c = scsi_cmd_priv(sc);

	hrtimer_cancel(&c->timer);
	return 0;
}

static int awscsi_eh_done(struct scsi_cmnd *sc)
{
	return SUCCESS;
}

/* Limits as scsi_debug's, so sd derives the same queue limits for both. */
static struct scsi_host_template awscsi_template = {
	.module			= THIS_MODULE,
	.name			= "awscsi",
	.proc_name		= "awscsi",
	.queuecommand		= awscsi_queuecommand,
	.eh_timed_out		= awscsi_timed_out,
	.eh_abort_handler	= awscsi_eh_abort,
	.eh_device_reset_handler = awscsi_eh_done,
	.eh_host_reset_handler	= awscsi_eh_done,
	.can_queue		= 192,
	.cmd_per_lun		= 192,
	.this_id		= -1,
	.sg_tablesize		= SG_MAX_SEGMENTS,
	.max_sectors		= -1U,
	.max_segment_size	= -1U,
	.dma_boundary		= PAGE_SIZE - 1,
	.cmd_size		= sizeof(struct awscsi_cmd),
	.init_cmd_priv		= awscsi_init_cmd,
	.exit_cmd_priv		= awscsi_exit_cmd,
	.track_queue_depth	= 1,
};

/* ---- host attach and detach; the disks' stores outlive the host ---- */

static struct Scsi_Host *awscsi_add_one_host(int index)
{
	struct Scsi_Host *sh;
	int ret;

	sh = scsi_host_alloc(&awscsi_template, sizeof(int));
	if (!sh)
		return ERR_PTR(-ENOMEM);
	*(int *)shost_priv(sh) = index;
	sh->max_id = num_tgts;
	sh->max_lun = 1;
	sh->max_channel = 0;
	sh->max_cmd_len = 16;
	ret = scsi_add_host(sh, awscsi_root);
	if (ret) {
		scsi_host_put(sh);
		return ERR_PTR(ret);
	}
	scsi_scan_host(sh);
	return sh;
}

/*
 * Removing a host waits for its commands, the delayed ones included, and
 * frees them. Called with awscsi_host_mutex held.
 */
static void awscsi_detach(void)
{
	while (nhosts) {
		struct Scsi_Host *sh = awscsi_shosts[nhosts - 1];

		scsi_remove_host(sh);
		scsi_host_put(sh);
		awscsi_shosts[nhosts - 1] = NULL;
		WRITE_ONCE(nhosts, nhosts - 1);
	}
}

static int awscsi_attach(void)
{
	struct Scsi_Host *sh;

	if (nhosts)
		return 0;
	while (nhosts < add_host) {
		sh = awscsi_add_one_host(nhosts);
		if (IS_ERR(sh)) {
			awscsi_detach();
			return PTR_ERR(sh);
		}
		awscsi_shosts[nhosts] = sh;
		WRITE_ONCE(nhosts, nhosts + 1);
	}
	return 0;
}

/* ---- sysfs controls in /sys/devices/awscsi ---- */

static ssize_t powered_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&powered));
}

static ssize_t powered_store(struct device *dev, struct device_attribute *a,
			   const char *buf, size_t len)
{
	if (sysfs_streq(buf, "off") || sysfs_streq(buf, "0")) {
		awscsi_cut();
		flush_work(&cut_work);
	} else if (sysfs_streq(buf, "on") || sysfs_streq(buf, "1")) {
		awscsi_restore();
	} else {
		return -EINVAL;
	}
	return len;
}
static DEVICE_ATTR_RW(powered);

static ssize_t cut_after_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	int left = atomic_read(&cut_left) - 1;

	return sysfs_emit(buf, "%d\n", atomic_read(&cut_armed) ? left : -1);
}

static ssize_t cut_after_store(struct device *dev, struct device_attribute *a,
			       const char *buf, size_t len)
{
	int n, ret = kstrtoint(buf, 0, &n);

	if (ret)
		return ret;
	if (n < -1 || n == INT_MAX)
		return -EINVAL;
	atomic_set(&cut_armed, 0);
	if (n >= 0) {
		if (!atomic_read(&powered))
			return -EIO;	/* restore power first */
		atomic_set(&cut_left, n + 1);
		atomic_set(&cut_armed, 1);
	}
	return len;
}
static DEVICE_ATTR_RW(cut_after);

/* Writing 1 makes every disk report POWER ON OCCURRED to its next command. */
static ssize_t unit_attention_store(struct device *dev,
				    struct device_attribute *a,
				    const char *buf, size_t len)
{
	bool on;
	int i, ret = kstrtobool(buf, &on);

	if (ret)
		return ret;
	for (i = 0; i < ndisks; i++)
		atomic_set(&disks[i].unit_attention, on);
	return len;
}
static DEVICE_ATTR_WO(unit_attention);

static ssize_t cuts_show(struct device *dev, struct device_attribute *a,
			 char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&cuts));
}
static DEVICE_ATTR_RO(cuts);

static ssize_t attached_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(nhosts) ? 1 : 0);
}

static ssize_t attached_store(struct device *dev, struct device_attribute *a,
			      const char *buf, size_t len)
{
	bool on;
	int ret = kstrtobool(buf, &on);

	if (ret)
		return ret;
	mutex_lock(&awscsi_host_mutex);
	if (on)
		ret = awscsi_attach();
	else
		awscsi_detach();
	mutex_unlock(&awscsi_host_mutex);
	return ret ? ret : len;
}
static DEVICE_ATTR_RW(attached);

static ssize_t stats_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	int i, n = 0;

	for (i = 0; i < ndisks; i++) {
		struct awscsi_disk *d = &disks[i];

		n += sysfs_emit_at(buf, n,
				   "disk%d reads %lld writes %lld atomic_writes %lld atomic_rejected %lld torn_writes %lld flushes %lld cache_dirty %lu cache_lost %lld\n",
				   i, atomic64_read(&d->reads),
				   atomic64_read(&d->writes),
				   atomic64_read(&d->atomics),
				   atomic64_read(&d->atomic_rejects),
				   atomic64_read(&d->torn),
				   atomic64_read(&d->flushes),
				   READ_ONCE(d->ndirty),
				   atomic64_read(&d->lost));
	}
	return n;
}
static DEVICE_ATTR_RO(stats);

static struct attribute *awscsi_attrs[] = {
	&dev_attr_powered.attr,
	&dev_attr_unit_attention.attr,
	&dev_attr_cut_after.attr,
	&dev_attr_cuts.attr,
	&dev_attr_attached.attr,
	&dev_attr_stats.attr,
	NULL,
};

static const struct attribute_group awscsi_group = {
	.attrs = awscsi_attrs,
};

/* ---- module ---- */

static void awscsi_free_disks(void)
{
	int i;

	for (i = 0; i < ndisks; i++) {
		awscsi_cache_flush_all(&disks[i]);
		xa_destroy(&disks[i].dirty);
		vfree(disks[i].store);
		vfree(disks[i].stage);
	}
	kfree(disks);
	disks = NULL;
	ndisks = 0;
}

/* Stores to allocate: every host sees the same disks unless per_host_store. */
static int awscsi_nstores(void)
{
	return per_host_store ? add_host * num_tgts : num_tgts;
}

/* The medium's pace and the hosts (the latency's setters check it). */
static int awscsi_check_timing(void)
{
	if (block_ndelay > 100000) {
		pr_err("refusing to load: block_ndelay must be at most 100000\n");
		return -EINVAL;
	}
	if (add_host < 1 || add_host > AWSCSI_MAX_HOSTS) {
		pr_err("refusing to load: add_host must be 1..%d\n",
		       AWSCSI_MAX_HOSTS);
		return -EINVAL;
	}
	return 0;
}

static int awscsi_config(struct awscsi_cfg *c)
{
	const char *why;
	int ret = awscsi_check_timing();

	if (ret)
		return ret;
	if (num_tgts < 1 || num_tgts > AWSCSI_MAX_DISKS ||
	    awscsi_nstores() > AWSCSI_MAX_DISKS) {
		pr_err("refusing to load: num_tgts must be 1..%d, and with per_host_store num_tgts * add_host too\n",
		       AWSCSI_MAX_DISKS);
		return -EINVAL;
	}
	if (dev_size_mb < 1 || dev_size_mb > 65536) {
		pr_err("refusing to load: dev_size_mb must be 1..65536\n");
		return -EINVAL;
	}
	if (((u64)dev_size_mb << 20) * awscsi_nstores() >
	    (u64)totalram_pages() << PAGE_SHIFT) {
		pr_err("refusing to load: %d disk(s) of %d MiB do not fit in memory\n",
		       awscsi_nstores(), dev_size_mb);
		return -ENOMEM;
	}
	memset(c, 0, sizeof(*c));
	c->lbs = sector_size > 0 ? sector_size : 0;
	c->physblk_exp = physblk_exp >= 0 ? physblk_exp : 99;
	c->nblocks = c->lbs ? ((u64)dev_size_mb << 20) / c->lbs : 0;
	c->max_xfer = c->nblocks > 1024 ? min_t(u64, c->nblocks, U32_MAX) :
					  1024;
	c->wce = write_cache;
	c->fua = fua;
	c->atomic = atomic_wr;
	c->atomic_max = atomic_wr_max_length;
	c->atomic_align = atomic_wr_align;
	c->atomic_gran = atomic_wr_gran;
	c->atomic_max_bndry_len = atomic_wr_max_length_bndry;
	c->atomic_max_bndry = atomic_wr_max_bndry;
	why = awscsi_cfg_check(c);
	if (why) {
		pr_err("refusing to load: %s\n", why);
		return -EINVAL;
	}
	return 0;
}

/*
 * On a slow medium an atomic write's data is fetched block by block, taking
 * the medium's time, into a staging buffer, and lands from there at once:
 * the pages are read over the whole transfer, as a device's DMA reads
 * them, while readers and other writers wait only for the landing.
 */
static bool awscsi_stage_atomic(const struct awscsi_cfg *c)
{
	return c->atomic && block_ndelay;
}

/* The longest atomic write: with or without an atomic boundary. */
static size_t awscsi_stage_bytes(const struct awscsi_cfg *c)
{
	u64 n = max(c->atomic_max, c->atomic_max_bndry_len);

	return (size_t)min(n, c->nblocks) * c->lbs;
}

static int awscsi_alloc_disks(const struct awscsi_cfg *c)
{
	int i, j;

	disks = kcalloc(awscsi_nstores(), sizeof(*disks), GFP_KERNEL);
	if (!disks)
		return -ENOMEM;
	for (i = 0; i < awscsi_nstores(); i++) {
		struct awscsi_disk *d = &disks[i];

		d->cfg = *c;
		d->cfg.index = i;
		d->store = __vmalloc(c->nblocks * c->lbs,
				     GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
		if (!d->store) {
			pr_err("cannot allocate %d MiB for disk %d\n",
			       dev_size_mb, i);
			awscsi_free_disks();
			return -ENOMEM;
		}
		if (awscsi_stage_atomic(c)) {
			d->stage = vmalloc(awscsi_stage_bytes(c));
			if (!d->stage) {
				vfree(d->store);
				awscsi_free_disks();
				return -ENOMEM;
			}
		}
		for (j = 0; j < AWSCSI_SHARDS; j++) {
			rwlock_init(&d->lock[j]);
			lockdep_set_class(&d->lock[j], &awscsi_shard_keys[j]);
		}
		for (j = 0; j < AWSCSI_STRIPES; j++)
			spin_lock_init(&d->stripe[j]);
		spin_lock_init(&d->cache_lock);
		xa_init(&d->dirty);
		ndisks = i + 1;
	}
	return 0;
}

static int __init awscsi_init(void)
{
	struct awscsi_cfg c;
	int ret;

	ret = awscsi_config(&c);
	if (ret)
		return ret;
	ret = awscsi_alloc_disks(&c);
	if (ret)
		return ret;
	awscsi_root = root_device_register("awscsi");
	if (IS_ERR(awscsi_root)) {
		ret = PTR_ERR(awscsi_root);
		goto free_disks;
	}
	ret = sysfs_create_group(&awscsi_root->kobj, &awscsi_group);
	if (ret)
		goto unregister;
	mutex_lock(&awscsi_host_mutex);
	ret = awscsi_attach();
	mutex_unlock(&awscsi_host_mutex);
	if (ret)
		goto remove_group;
	pr_info("%d host(s), %d disk(s) of %d MiB, %u-byte blocks, atomic writes %s, write cache %s\n",
		nhosts, ndisks, dev_size_mb, c.lbs, c.atomic ? "on" : "off",
		c.wce ? "on" : "off");
	if (awscsi_delay || awscsi_ndelay || awscsi_flush_ndelay)
		pr_info("latency %llu ns a command, %u ns more a flush\n",
			awscsi_base_ns(), c.wce ? awscsi_flush_ndelay : 0);
	if (awscsi_mbps)
		pr_info("media rate %u MB/s, one transfer at a time per disk\n",
			awscsi_mbps);
	return 0;

remove_group:
	/* A write to attached meanwhile may have added hosts: remove them. */
	sysfs_remove_group(&awscsi_root->kobj, &awscsi_group);
	mutex_lock(&awscsi_host_mutex);
	awscsi_detach();
	mutex_unlock(&awscsi_host_mutex);
unregister:
	root_device_unregister(awscsi_root);
free_disks:
	awscsi_free_disks();
	return ret;
}

static void __exit awscsi_exit(void)
{
	/* Controls first, so nothing can re-attach the host behind us. */
	sysfs_remove_group(&awscsi_root->kobj, &awscsi_group);
	mutex_lock(&awscsi_host_mutex);
	awscsi_detach();
	mutex_unlock(&awscsi_host_mutex);
	flush_work(&cut_work);
	root_device_unregister(awscsi_root);
	awscsi_free_disks();
}

module_init(awscsi_init);
module_exit(awscsi_exit);
MODULE_DESCRIPTION("awkit emulated SCSI disks with atomic writes and power-fail injection");
MODULE_AUTHOR("awkit developers");
MODULE_LICENSE("GPL");
