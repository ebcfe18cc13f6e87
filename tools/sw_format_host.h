/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The software engine's format, the host's part: what awctl and the unit
 * tests use beside engines/sw/sw_format.c, and awsw.ko does not. Built
 * against the host shim (tools/include/), never into the module.
 */
#ifndef AWSW_FORMAT_HOST_H
#define AWSW_FORMAT_HOST_H

#include "sw_format.h"

/*
 * How much of a device awsw_foreign_signature() looks at, and what format
 * should zero before writing the superblock, so that no stale signature
 * (btrfs keeps its at 64 KiB) outlives a forced format.
 */
#define AWSW_PROBE_BYTES	(68U * 1024)

/*
 * The name of a filesystem, volume manager, partition table or other
 * format whose signature is in @buf, the first @len bytes of a device
 * (AWSW_PROBE_BYTES suffice), or NULL if none is recognised. Never reads
 * past @len. awctl's format uses it to keep off a device somebody else is
 * using.
 */
const char *awsw_foreign_signature(const u8 *buf, u32 len);

/*
 * A whole record for data in one buffer of @len bytes: the steps the
 * engine takes (awsw_rec_encode_header(), the crc of the data, then
 * awsw_rec_crc() and awsw_rec_set_crc()) in one call, for the tests.
 */
void awsw_rec_encode(const struct awsw_sb *sb, u8 *hdr, u64 pos, u64 seq,
		     u64 target, u32 len, const u8 *data);

/*
 * Where a record of @rec_bytes that would go at @pos really goes: @pos if
 * it fits there, else 0 (records never wrap; the tail is left unused).
 * Whether that space is free (its records checkpointed) is the caller's
 * business. The tests' writer round the journal; the engine checkpoints
 * and starts again at 0 instead.
 */
u64 awsw_journal_place(const struct awsw_sb *sb, u64 pos, u32 rec_bytes);

#endif /* AWSW_FORMAT_HOST_H */
