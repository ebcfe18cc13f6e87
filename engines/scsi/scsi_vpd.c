// SPDX-License-Identifier: GPL-2.0
/*
 * See scsi_vpd.h. The derivation follows what Linux's sd driver does
 * since 6.11, so awblk over a SCSI disk reports what sd would; beyond sd,
 * it keeps every transfer within WRITE ATOMIC(16)'s 16-bit length.
 */
#include "scsi_vpd.h"

/* Units must be multiples of granularity and alignment (a unit of 1 is). */
static bool awscsi_vpd_divides(u32 x, u64 unit_min, u64 unit_max)
{
	if (x <= 1)
		return true;
	return (unit_min <= 1 || !(unit_min % x)) &&
	       (unit_max <= 1 || !(unit_max % x));
}

void awscsi_vpd_atomic_hw(const u8 *b0, u32 len, u32 lbs, u32 pbs,
			  struct awscsi_hw *hw)
{
	u32 max_atomic, align, gran, max_len_bndry, max_bndry;
	u64 unit_min, unit_max, hw_max;

	memset(hw, 0, sizeof(*hw));
	if (len < 64 || !lbs || b0[1] != 0xb0)
		return;
	max_atomic = get_unaligned_be32(b0 + 44);
	align = get_unaligned_be32(b0 + 48);
	gran = get_unaligned_be32(b0 + 52);
	max_len_bndry = get_unaligned_be32(b0 + 56);
	max_bndry = get_unaligned_be32(b0 + 60);
	if (!max_atomic && !max_len_bndry)
		return;
	/* Never 0: lbs is not, and pbs / lbs is at least 1 when taken. */
	unit_min = rounddown_pow_of_two(gran ? gran :
					(pbs >= lbs ? pbs / lbs : 1));
	if (max_atomic) {
		hw_max = max_atomic;
		unit_max = rounddown_pow_of_two(max_atomic);
	} else {
		hw_max = max_len_bndry;
		unit_max = max_bndry ? rounddown_pow_of_two(max_bndry) : 0;
		hw->use_boundary = true;
	}
	/* A transfer length is 16 bits in WRITE ATOMIC(16). */
	if (unit_max > 0xffff)
		unit_max = 0x8000;
	hw_max = min_t(u64, hw_max, 0xffff);
	if (!unit_min || !unit_max || unit_min > unit_max ||
	    !awscsi_vpd_divides(gran, unit_min, unit_max) ||
	    !awscsi_vpd_divides(align, unit_min, unit_max) ||
	    hw_max * lbs > 0xffffffffULL) {
		memset(hw, 0, sizeof(*hw));
		return;
	}
	hw->lim.unit_min = (u32)(unit_min * lbs);
	hw->lim.unit_max = (u32)(unit_max * lbs);
	hw->lim.max_bytes = (u32)(hw_max * lbs);
}

void awscsi_cdb_write_atomic16(u8 *cdb, u64 lba, u16 nblocks, bool fua,
			       bool use_boundary)
{
	memset(cdb, 0, 16);
	cdb[0] = WRITE_ATOMIC_16;
	cdb[1] = fua ? 0x08 : 0;
	put_unaligned_be64(lba, cdb + 2);
	put_unaligned_be16(use_boundary ? nblocks : 0, cdb + 10);
	put_unaligned_be16(nblocks, cdb + 12);
}
