/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What awblk offers other kernel modules.
 *
 * To awfs: the limits of an awblk device and atomic writes by bio, the same
 * on every kernel (6.1 has no REQ_ATOMIC; 6.12's would work too, this is
 * the one path for both).
 *
 * To engines: the engine interface. An engine makes atomic writes on one
 * kind of lower device (SCSI WRITE ATOMIC(16), NVMe atomic units, awblk's
 * software journal). awblk knows no protocol: it validates every atomic
 * write against the limits the engine reported, then hands it over as one
 * bio.
 *
 * An engine module registers itself at load and unregisters at unload; each
 * awblk device using it holds a reference on the engine's module.
 */
#ifndef AWBLK_H
#define AWBLK_H

#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/module.h>
#include "compat.h"
#include "uapi/awkit.h"

int awblk_bdev_limits(struct block_device *bdev, struct aw_limits *l);
void awblk_submit_atomic(struct bio *bio);
int awblk_submit_atomic_wait(struct bio *bio);
s64 awblk_flush_mark(struct block_device *bdev);
bool awblk_flushed_since(struct block_device *bdev, s64 mark);

/* What user space told AW_IOC_CREATE about the hardware (copied in). */
struct awblk_hwinfo {
	const void *data;	/* NULL: nothing */
	u32 len;
	bool named;		/* the engine was asked for by name */
};

struct awblk_engine {
	const char *name;
	unsigned int id;		/* AW_ENGINE_* of the uapi */
	struct module *owner;
	/*
	 * Can this engine make atomic writes on @lower? Return -ENODEV when
	 * @lower is not a device for this engine, another negative errno when
	 * @info is unusable (say why in the kernel log). Otherwise fill @hw
	 * with what the device promises for the whole disk (bytes; all zero:
	 * nothing) and return 0; *@priv is handed back to submit and release.
	 * @info is only valid during the call.
	 */
	int (*probe)(struct block_device *lower, const struct awblk_hwinfo *info,
		     struct aw_atomic_limits *hw, void **priv);
	/*
	 * Write @bio (a write to the lower device, within the limits) as one
	 * atomic command: never split, never merged. Complete it with
	 * bio_endio(), from any context. May sleep.
	 */
	void (*submit)(void *priv, struct bio *bio);
	/* The device using @priv is going away. */
	void (*release)(void *priv);

	/*
	 * Optional, for engines that keep their own format on the lower
	 * device (the software engine):
	 * - geometry: the exported device is @nr sectors starting at sector
	 *   @start of the lower device (default: all of it). awblk remaps
	 *   every bio by @start before the engine sees it.
	 * - submit_plain: every bio that is not an atomic write (reads,
	 *   writes, flushes, discards), remapped, goes here instead of
	 *   straight down; the engine submits and completes it. May not sleep
	 *   long: it runs in the submitter's context.
	 * - stats: "key value" lines for /sys/block/awblkN/awblk/engine_stats.
	 * - format_at: does the lower device, whose first @len bytes are at
	 *   @head, carry this engine's format? A device that starts with the
	 *   awkit signature (AW_SW_SIGNATURE) binds only to an engine that
	 *   says yes here; asked before probe.
	 */
	void (*geometry)(void *priv, sector_t *start, sector_t *nr);
	void (*submit_plain)(void *priv, struct bio *bio);
	int (*stats)(void *priv, char *buf);
	bool (*format_at)(const u8 *head, u32 len);
	struct list_head list;		/* awblk's, not the engine's */
};

int awblk_register_engine(struct awblk_engine *e);
void awblk_unregister_engine(struct awblk_engine *e);

#endif /* AWBLK_H */
