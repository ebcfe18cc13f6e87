/* SPDX-License-Identifier: GPL-2.0 */
/*
 * awblk pure logic: atomic-write limit derivation and write validation, the
 * upstream rules (FACTS.md sections 1 and 2) in code with no kernel-only
 * dependencies, so the host unit tests link this file too.
 */
#ifndef AWBLK_LOGIC_H
#define AWBLK_LOGIC_H

#include "aw_pure.h"
#include "aw_limits.h"

/* The queue limits that bound a single bio. */
struct awblk_queue {
	u32 lbs;		/* logical block size */
	u32 max_hw_sectors;	/* 512-byte sectors */
	u32 max_segments;
	u32 page_size;
	u64 start;		/* partition start on the disk, bytes */
};

/* Why a write was rejected, for the counters. */
enum awblk_reject {
	AWB_OK,
	AWB_NOSUPPORT,		/* EOPNOTSUPP */
	AWB_SEGMENTS,		/* EINVAL from here on */
	AWB_POW2,
	AWB_ALIGN,
	AWB_SIZE,
	AWB_BOUNDARY,
	AWB_RANGE,
	AWB_NREASONS
};

extern const char *const awblk_reject_names[AWB_NREASONS];

void awblk_derive_limits(const struct aw_atomic_limits *hw,
			 const struct awblk_queue *q, u64 cap_unit_max,
			 struct aw_atomic_limits *lim);
enum awblk_reject awblk_check_write(const struct aw_atomic_limits *lim, u64 size,
				    u64 off, u64 len, u32 nr_segs);
int awblk_reject_errno(enum awblk_reject r);
bool awblk_untorn_ok(const struct aw_atomic_limits *lim, u64 unit);
u64 awblk_untorn_piece(u64 off, u64 len, u64 unit);
u64 awblk_untorn_run(const struct aw_atomic_limits *lim, u64 off, u64 len,
		     u64 unit);

#endif /* AWBLK_LOGIC_H */
