/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVMe side of awkit, pure logic: the atomic write limits of a namespace
 * from its Identify Controller and Identify Namespace data, derived as Linux
 * does before 7.0 (FACTS.md section 4).
 */
#ifndef AWNVME_ID_H
#define AWNVME_ID_H

#include "aw_pure.h"
#include "aw_limits.h"

/* Both Identify data structures are 4096 bytes long. */
#define AWNVME_ID_LEN 4096

/* NSFEAT bit 1: NAWUN, NAWUPF and NACWU are valid for this namespace. */
#define AWNVME_NSFEAT_ATOMICS 0x02

/* Where the atomic write unit comes from. */
enum awnvme_atomic_src {
	AWNVME_ATOMIC_NONE = 0,		/* NABO != 0: no atomic writes */
	AWNVME_ATOMIC_AWUPF = 1,	/* controller-wide AWUPF */
	AWNVME_ATOMIC_NAWUPF = 2,	/* per-namespace NAWUPF (NSFEAT bit 1) */
};

struct awnvme_id_info {
	/* Raw fields as the device reports them; counts are 0's based. */
	u64 nsze;		/* namespace size in logical blocks */
	u8 nsfeat;
	u8 nlbaf;
	u8 flbas;
	u8 lbaf_index;		/* format index taken from FLBAS */
	u8 lbads;		/* log2 of the LBA data size */
	u16 ms;			/* metadata bytes per LBA of that format */
	u16 awun, awupf;	/* Identify Controller */
	u16 nawun, nawupf, nabsn, nabo, nabspf, noiob;

	/* Derived sizes in bytes. */
	u32 lbs;		/* logical block size, 1 << lbads */
	u64 awupf_bs;		/* (1 + AWUPF) * lbs */
	/* (1 + NAWUPF) * lbs; 0 unless NSFEAT bit 1 and NAWUPF != 0 */
	u64 nawupf_bs;
	u32 atomic_bs;		/* largest write that is atomic */
	/*
	 * unit_min: lbs; unit_max: rounddown_pow_of_two(atomic_bs);
	 * max_bytes: atomic_bs; boundary: atomic writes must not cross it.
	 */
	struct aw_atomic_limits lim;
	u8 src;			/* enum awnvme_atomic_src */
};

/*
 * Parse 4096-byte Identify Controller (@ctrl) and Identify Namespace (@ns)
 * data and derive the atomic write limits. @dev_lbs is the logical block size
 * of the block device the namespace backs, or 0 to skip that comparison.
 *
 * Returns 0, or -EINVAL with *@why (if @why is not NULL) set to a short
 * static English reason. On error the derived atomic limits are zero; the raw
 * fields and lbs parsed so far stay in @out so the caller can print them.
 * NABO != 0 is not an error: it gives 0 with all atomic limits zero.
 */
int awnvme_id_parse(const u8 *ctrl, u32 ctrl_len, const u8 *ns, u32 ns_len,
		    u32 dev_lbs, struct awnvme_id_info *out, const char **why);

/*
 * Is a write of @len bytes at byte @off of the namespace atomic on it: no
 * larger than atomic_bs, whole logical blocks, within one boundary window?
 * False for a namespace without atomic writes.
 */
bool awnvme_write_ok(const struct awnvme_id_info *id, u64 off, u64 len);

#endif /* AWNVME_ID_H */
