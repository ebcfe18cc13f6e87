// SPDX-License-Identifier: GPL-2.0
/*
 * See nvme_identify.h. The derivation follows Linux's NVMe driver before 7.0
 * (nvme_update_disk_info and nvme_update_atomic_write_disk_info), so awblk
 * over an NVMe namespace reports what the native driver would; the checks
 * beyond it reject data the block layer would refuse or could not express.
 *
 * Every read is at a fixed offset below 384, made after both lengths are
 * checked to be AWNVME_ID_LEN; nothing is divided, and products of fields
 * are taken in 64 bits: no input can read out of bounds, divide by zero or
 * overflow.
 */
#include "nvme_identify.h"

/* Identify Controller offsets (NVMe base specification). */
#define ID_CTRL_AWUN	526
#define ID_CTRL_AWUPF	528

/* Identify Namespace offsets. */
#define ID_NS_NSZE	0
#define ID_NS_NSFEAT	24
#define ID_NS_NLBAF	25
#define ID_NS_FLBAS	26
#define ID_NS_NAWUN	34
#define ID_NS_NAWUPF	36
#define ID_NS_NABSN	40
#define ID_NS_NABO	42
#define ID_NS_NABSPF	44
#define ID_NS_NOIOB	46
#define ID_NS_LBAF	128	/* 64 entries of 4 bytes */

#define LBAF_MAX	64	/* NLBAF is 0's based: at most 63 */
#define LBADS_MIN	9	/* 512 bytes: smaller is not a usable block */
#define LBADS_MAX	16	/* 64 KiB: the largest block Linux accepts */

static int awnvme_id_fail(struct awnvme_id_info *out, const char **why,
			  const char *s)
{
	out->atomic_bs = 0;
	memset(&out->lim, 0, sizeof(out->lim));
	out->src = AWNVME_ATOMIC_NONE;
	*why = s;
	return -EINVAL;
}

/*
 * FLBAS bits 3:0 are the low bits of the format index; with more than 16
 * formats (NLBAF >= 16, 0's based) bits 6:5 are its two high bits, and
 * reserved otherwise. Linux always ORs them in; for a device that keeps
 * reserved bits zero both give the same index.
 */
static u8 awnvme_id_lbaf_index(u8 flbas, u8 nlbaf)
{
	u8 idx = flbas & 0x0f;

	if (nlbaf >= 16)
		idx |= ((flbas >> 5) & 0x03) << 4;
	return idx;
}

int awnvme_id_parse(const u8 *ctrl, u32 ctrl_len, const u8 *ns, u32 ns_len,
		    u32 dev_lbs, struct awnvme_id_info *out, const char **why)
{
	const char *unused;
	const u8 *lbaf;
	u64 atomic_bs, boundary = 0;

	if (!why)
		why = &unused;
	*why = NULL;
	memset(out, 0, sizeof(*out));

	/* Lengths first: every read below is within the 4096 bytes. */
	if (!ctrl || ctrl_len != AWNVME_ID_LEN)
		return awnvme_id_fail(out, why, "identify controller data is not 4096 bytes");
	if (!ns || ns_len != AWNVME_ID_LEN)
		return awnvme_id_fail(out, why, "identify namespace data is not 4096 bytes");

	out->awun = get_unaligned_le16(ctrl + ID_CTRL_AWUN);
	out->awupf = get_unaligned_le16(ctrl + ID_CTRL_AWUPF);
	out->nsze = get_unaligned_le64(ns + ID_NS_NSZE);
	out->nsfeat = ns[ID_NS_NSFEAT];
	out->nlbaf = ns[ID_NS_NLBAF];
	out->flbas = ns[ID_NS_FLBAS];
	out->nawun = get_unaligned_le16(ns + ID_NS_NAWUN);
	out->nawupf = get_unaligned_le16(ns + ID_NS_NAWUPF);
	out->nabsn = get_unaligned_le16(ns + ID_NS_NABSN);
	out->nabo = get_unaligned_le16(ns + ID_NS_NABO);
	out->nabspf = get_unaligned_le16(ns + ID_NS_NABSPF);
	out->noiob = get_unaligned_le16(ns + ID_NS_NOIOB);

	/* An inactive namespace identifies as all zeros: nothing to bind. */
	if (!out->nsze)
		return awnvme_id_fail(out, why, "namespace size is zero");
	/* The table has room for 64 formats; more cannot be indexed. */
	if (out->nlbaf >= LBAF_MAX)
		return awnvme_id_fail(out, why, "namespace reports more than 64 LBA formats");
	/* The format in use must be one the namespace says it has. */
	out->lbaf_index = awnvme_id_lbaf_index(out->flbas, out->nlbaf);
	if (out->lbaf_index > out->nlbaf)
		return awnvme_id_fail(out, why, "namespace has no LBA format at FLBAS index");

	lbaf = ns + ID_NS_LBAF + 4 * out->lbaf_index;
	out->ms = get_unaligned_le16(lbaf);
	out->lbads = lbaf[2];
	/*
	 * The block size is a multiplier below: 2^9..2^16 keeps it a usable
	 * Linux block size, never zero, and the shift defined.
	 */
	if (out->lbads < LBADS_MIN || out->lbads > LBADS_MAX)
		return awnvme_id_fail(out, why,
				      "LBA data size is not supported (LBADS must be 9 to 16)");
	out->lbs = 1u << out->lbads;
	/*
	 * Limits in bytes are only right for the block device if it counts
	 * in the same blocks as the namespace (out->lbs and dev_lbs tell by
	 * how much they differ).
	 */
	if (dev_lbs && dev_lbs != out->lbs)
		return awnvme_id_fail(out, why,
				      "namespace LBA size does not match the device's logical block size");

	out->awupf_bs = (1 + (u64)out->awupf) * out->lbs;
	if ((out->nsfeat & AWNVME_NSFEAT_ATOMICS) && out->nawupf)
		out->nawupf_bs = (1 + (u64)out->nawupf) * out->lbs;
	/*
	 * A non-zero atomic boundary offset moves the boundaries off the
	 * multiples the block layer assumes: Linux then offers no atomic
	 * writes, and neither do we (not an error).
	 */
	if (out->nabo)
		return 0;

	/*
	 * NSFEAT bit 1 makes NAWUPF valid, but NAWUPF == 0 means "use AWUPF"
	 * (Linux's rule), and only then does NABSPF give a boundary.
	 */
	if (out->nawupf_bs) {
		atomic_bs = out->nawupf_bs;
		if (out->nabspf)
			boundary = (1 + (u64)out->nabspf) * out->lbs;
		out->src = AWNVME_ATOMIC_NAWUPF;
	} else {
		atomic_bs = out->awupf_bs;
		out->src = AWNVME_ATOMIC_AWUPF;
	}

	/*
	 * The block layer keeps limits in 32 bits: (1 + 0xffff) * 64 KiB is
	 * 2^32, which wraps to 0 in Linux's 32-bit math. Refuse instead.
	 */
	if (atomic_bs > U32_MAX)
		return awnvme_id_fail(out, why, "atomic write unit does not fit in 32 bits");
	if (boundary > U32_MAX)
		return awnvme_id_fail(out, why, "atomic boundary does not fit in 32 bits");
	/*
	 * Boundary rules: the block layer only splits and merges at power of
	 * two boundaries (blk_validate_atomic_write_limits refuses others),
	 * and a boundary smaller than unit_max would make the largest
	 * power-of-two unit straddle a boundary, so no aligned write of that
	 * size could be atomic. A boundary between unit_max and atomic_bs is
	 * kept, as Linux keeps it: max_bytes stays atomic_bs and the block
	 * layer refuses any atomic write that crosses the boundary.
	 */
	if (boundary && !is_power_of_2(boundary))
		return awnvme_id_fail(out, why, "atomic boundary is not a power of two");
	if (boundary && boundary < rounddown_pow_of_two(atomic_bs))
		return awnvme_id_fail(out, why,
				      "atomic boundary is smaller than the atomic write unit");

	out->atomic_bs = (u32)atomic_bs;
	out->lim.boundary = (u32)boundary;
	out->lim.unit_min = out->lbs;
	out->lim.unit_max = (u32)rounddown_pow_of_two(atomic_bs);
	out->lim.max_bytes = (u32)atomic_bs;
	return 0;
}

/*
 * NVMe has no atomic command: a write is atomic only when it is no larger
 * than atomic_bs and does not cross the boundary, so each one is checked
 * again right before it goes to the namespace.
 */
bool awnvme_write_ok(const struct awnvme_id_info *id, u64 off, u64 len)
{
	if (!id->atomic_bs || !len || len > id->atomic_bs)
		return false;
	if ((off | len) & (id->lbs - 1))
		return false;
	if (id->lim.boundary &&
	    (off & ~((u64)id->lim.boundary - 1)) !=
	    ((off + len - 1) & ~((u64)id->lim.boundary - 1)))
		return false;
	return true;
}
