/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The initiator side of SCSI atomic writes, pure logic: atomic limits from a
 * Block Limits VPD page, as the host derives them (SBC-4; FACTS.md section
 * 3), and the WRITE ATOMIC(16) CDB.
 */
#ifndef AWSCSI_VPD_H
#define AWSCSI_VPD_H

#include "aw_pure.h"
#include "aw_limits.h"
#include <scsi/scsi_proto.h>

/* What a Block Limits VPD page offers; all zero when nothing. */
struct awscsi_hw {
	struct aw_atomic_limits lim;
	bool use_boundary;	/* send ATOMIC BOUNDARY = transfer length */
};

void awscsi_vpd_atomic_hw(const u8 *b0, u32 len, u32 lbs, u32 pbs,
			  struct awscsi_hw *hw);
void awscsi_cdb_write_atomic16(u8 *cdb, u64 lba, u16 nblocks, bool fua,
			       bool use_boundary);

#endif /* AWSCSI_VPD_H */
