// SPDX-License-Identifier: GPL-2.0
/*
 * awblk pure logic: see awblk_logic.h.
 */
#include "awblk_logic.h"

const char *const awblk_reject_names[AWB_NREASONS] = {
	"ok", "nosupport", "segments", "pow2", "align", "size", "boundary",
	"range",
};

/* The largest bio the block layer guarantees to build without a split. */
static u64 awblk_guaranteed_bio(const struct awblk_queue *q)
{
	u64 segs = min(q->max_segments, 256U);

	if (segs < 2)
		return segs * q->lbs;
	return 2ULL * q->lbs + (segs - 2) * q->page_size;
}

static bool awblk_hw_valid(const struct aw_atomic_limits *hw)
{
	if (!is_power_of_2(hw->unit_min) || !is_power_of_2(hw->unit_max))
		return false;
	if (hw->unit_min > hw->unit_max || hw->unit_max > hw->max_bytes)
		return false;
	if (hw->boundary && (!is_power_of_2(hw->boundary) ||
			     hw->boundary < hw->max_bytes))
		return false;
	return true;
}

/*
 * Limits from the hardware values, as the block layer derives them: units
 * bounded by the largest unsplittable bio, max_bytes by max_hw_sectors; an
 * optional cap from the user rounds unit_max down to a power of two. A
 * partition must start aligned to max(unit_min, boundary).
 */
void awblk_derive_limits(const struct aw_atomic_limits *hw,
			 const struct awblk_queue *q, u64 cap_unit_max,
			 struct aw_atomic_limits *lim)
{
	u64 hw_bytes = (u64)q->max_hw_sectors << 9, unit_limit, align;
	/* Built apart, so that @lim may be @hw. */
	struct aw_atomic_limits l = { 0 };

	if (!awblk_hw_valid(hw) || !q->lbs || hw->unit_min < q->lbs)
		goto out;
	unit_limit = min(awblk_guaranteed_bio(q), hw_bytes);
	/* No bio at all (no segments or sectors): no atomic writes below. */
	if (unit_limit)
		unit_limit = rounddown_pow_of_two(unit_limit);
	l.unit_min = min_t(u64, hw->unit_min, unit_limit);
	l.unit_max = min_t(u64, hw->unit_max, unit_limit);
	l.max_bytes = min_t(u64, hw->max_bytes, hw_bytes);
	l.boundary = hw->boundary;
	if (cap_unit_max && cap_unit_max < l.unit_max)
		l.unit_max = rounddown_pow_of_two(cap_unit_max);
	align = max(l.unit_min, l.boundary);
	if (l.unit_max < l.unit_min || !l.unit_min ||
	    (align && q->start % align))
		memset(&l, 0, sizeof(l));
out:
	*lim = l;
}

/* The upstream rules for one atomic write, in the upstream order. */
enum awblk_reject awblk_check_write(const struct aw_atomic_limits *lim, u64 size,
				    u64 off, u64 len, u32 nr_segs)
{
	if (!lim->unit_max)
		return AWB_NOSUPPORT;
	if (nr_segs != 1)
		return AWB_SEGMENTS;
	if (!is_power_of_2(len))
		return AWB_POW2;
	if (off % len)
		return AWB_ALIGN;
	if (len > lim->unit_max || len < lim->unit_min || len % lim->unit_min)
		return AWB_SIZE;
	if (lim->boundary &&
	    off / lim->boundary != (off + len - 1) / lim->boundary)
		return AWB_BOUNDARY;
	if (len > lim->max_bytes)
		return AWB_SIZE;
	if (off > size || len > size - off)
		return AWB_RANGE;
	return AWB_OK;
}

int awblk_reject_errno(enum awblk_reject r)
{
	if (r == AWB_OK)
		return 0;
	return r == AWB_NOSUPPORT ? -EOPNOTSUPP : -EINVAL;
}

/* An untorn unit must be a power of two the device can write atomically. */
bool awblk_untorn_ok(const struct aw_atomic_limits *lim, u64 unit)
{
	return is_power_of_2(unit) && lim->unit_max && unit >= lim->unit_min &&
	       unit <= lim->unit_max;
}

/* Bytes from off to the next multiple of unit, at most len. */
u64 awblk_untorn_piece(u64 off, u64 len, u64 unit)
{
	return min(unit - off % unit, len);
}

/*
 * The largest run of whole units at @off (aligned to @unit, @len bytes left)
 * that one atomic write under @lim can carry: a power of two aligned to its
 * size, within unit_max, max_bytes and one boundary. Each unit of a larger
 * atomic write is untorn too, and one command costs one round trip where a
 * command per unit costs one each. @unit when nothing larger fits.
 */
u64 awblk_untorn_run(const struct aw_atomic_limits *lim, u64 off, u64 len,
		     u64 unit)
{
	u64 run = unit, max = min_t(u64, lim->unit_max, lim->max_bytes);

	if (lim->boundary)
		max = min_t(u64, max, lim->boundary);
	while (run * 2 <= max && run * 2 <= len && !(off % (run * 2)))
		run *= 2;
	return run;
}
