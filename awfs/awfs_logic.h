/* SPDX-License-Identifier: GPL-2.0 */
/*
 * awfs pure logic: option parsing, unit checks and the physical-extent rule,
 * without kernel-only dependencies so the host unit tests link it too.
 */
#ifndef AWFS_LOGIC_H
#define AWFS_LOGIC_H

#include "aw_pure.h"

/* "16384", "16k", "1m": bytes in *@out; -EINVAL on anything else. */
int awfs_parse_size(const char *s, u64 *out);

/*
 * Can a file of this awfs use @unit for atomic writes, given the device's
 * atomic limits (bytes) and the lower file system's block size? 0 or a
 * negative errno, with *@why set to the reason.
 */
int awfs_unit_ok(u64 unit, u32 page_size, u32 fs_block, u32 unit_min,
		 u32 unit_max, u32 max_bytes, u32 boundary, const char **why);

/*
 * The physical blocks of one unit (@n file-system blocks of 2^@blkbits
 * bytes, as bmap reports them; 0 is a hole or unwritten): 1 when they are
 * written, contiguous and the first is aligned to the unit on the device,
 * 0 when some are not written yet, -EINVAL when written but misplaced.
 */
int awfs_extent_check(const u64 *blocks, u32 n, u32 blkbits, u64 unit);

/*
 * Next piece of a write at @pos with @count bytes for a file with @unit
 * (0: none): its length, and whether it is one whole aligned unit.
 */
u64 awfs_next_piece(u64 pos, u64 count, u64 unit, bool *whole);

#endif /* AWFS_LOGIC_H */
