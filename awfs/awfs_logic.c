// SPDX-License-Identifier: GPL-2.0
/*
 * awfs pure logic (see awfs_logic.h). Compiled into awfs.ko and into the
 * host unit tests.
 */
#include "awfs_logic.h"

int awfs_parse_size(const char *s, u64 *out)
{
	u64 v = 0;
	int digits = 0, shift = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (v > (~0ULL - 9) / 10)
			return -EINVAL;
		v = v * 10 + (u64)(*s - '0');
	}
	if (!digits)
		return -EINVAL;
	if (*s == 'k' || *s == 'K')
		shift = 10;
	else if (*s == 'm' || *s == 'M')
		shift = 20;
	if (shift)
		s++;
	if (*s || (v << shift) >> shift != v)
		return -EINVAL;
	*out = v << shift;
	return 0;
}

int awfs_unit_ok(u64 unit, u32 page_size, u32 fs_block, u32 unit_min,
		 u32 unit_max, u32 max_bytes, u32 boundary, const char **why)
{
	*why = NULL;
	if (!is_power_of_2(unit))
		*why = "is not a power of two";
	else if (unit < page_size)
		*why = "is smaller than a page";
	else if (unit < fs_block)
		*why = "is smaller than the lower file system's block";
	else if (!unit_max)
		*why = "needs atomic writes, and the device has none";
	else if (unit < unit_min || unit > unit_max || unit > max_bytes)
		*why = "is outside the device's atomic unit range";
	else if (boundary && boundary % unit)
		*why = "does not divide the device's atomic boundary";
	return *why ? -EINVAL : 0;
}

int awfs_extent_check(const u64 *blocks, u32 n, u32 blkbits, u64 unit)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (!blocks[i])
			return 0;
	for (i = 1; i < n; i++)
		if (blocks[i] != blocks[0] + i)
			return -EINVAL;
	if ((blocks[0] << blkbits) % unit)
		return -EINVAL;
	return 1;
}

u64 awfs_next_piece(u64 pos, u64 count, u64 unit, bool *whole)
{
	u64 room;

	*whole = false;
	if (!unit)
		return count;
	room = unit - pos % unit;
	if (room == unit && count >= unit) {
		*whole = true;
		return unit;
	}
	return min(count, room);
}
