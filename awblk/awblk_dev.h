/* SPDX-License-Identifier: GPL-2.0 */
/*
 * awblk's own: one device, and what its parts (main: engines, create and
 * remove; io: the I/O paths; ioctl; sysfs) share.
 */
#ifndef AWBLK_DEV_H
#define AWBLK_DEV_H

#include <linux/blkdev.h>
#include <linux/workqueue.h>
#include "awblk.h"
#include "awblk_logic.h"

struct awblk_dev {
	int index;
	struct gendisk *disk;
	bool deleting;			/* under disk->open_mutex: opens refused */
	bool registered;		/* freed by ->free_disk from now on */
	struct aw_lower lower;
	struct awblk_engine *engine;
	void *engine_priv;
	struct aw_atomic_limits lim;
	u32 untorn;
	sector_t start;			/* of the exported part of lower */
	u64 size;			/* bytes */
	struct bio_set bs;
	struct bio_set flush_bs;	/* numbered flushes */
	/* Flushes numbered so far; the highest number that succeeded. */
	atomic64_t flushes_started, flushes_done;
	struct list_head list;
	spinlock_t gather_lock;		/* deferred */
	struct bio_list deferred;	/* gathered, for gather_work */
	struct work_struct gather_work;
	atomic64_t atomic_writes, atomic_bytes, untorn_units;
	atomic64_t rejects[AWB_NREASONS];
};

/* A flush numbered on its way through (awblk_io.c), from flush_bs. */
struct awblk_flush {
	s64 gen;
	struct bio clone;	/* last: the bio_set's front pad ends here */
};

extern struct workqueue_struct *awblk_wq;
extern const struct block_device_operations awblk_fops;

/* awblk_io.c */
void awblk_submit_bio(struct bio *bio);
void awblk_gather_work(struct work_struct *w);
void awblk_count_reject(struct awblk_dev *d, enum awblk_reject r);
void awblk_engine_atomic(struct awblk_dev *d, struct bio *bio);
int awblk_submit_wait(struct awblk_dev *d, struct bio *bio,
		      void (*submit)(struct awblk_dev *d, struct bio *bio));

/* awblk_ioctl.c */
void awblk_get_limits(struct awblk_dev *d, struct aw_limits *l);
int awblk_ioctl(struct block_device *bdev, blk_mode_t mode,
		unsigned int cmd, unsigned long arg);

/* awblk_sysfs.c */
extern const struct attribute_group *awblk_groups[];
int awblk_add_queue_attrs(struct awblk_dev *d);
void awblk_remove_queue_attrs(struct awblk_dev *d);

#endif /* AWBLK_DEV_H */
