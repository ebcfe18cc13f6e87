// SPDX-License-Identifier: GPL-2.0
/*
 * awnvme: the NVMe engine of awblk. NVMe has no atomic write command: a
 * write no larger than the namespace's atomic unit that does not cross its
 * atomic boundary is atomic. So the engine needs the unit and the boundary,
 * which come from the namespace's Identify data (read by awctl with the
 * admin passthrough ioctl and handed over at create, checked here), and it
 * must see that each atomic write reaches the namespace as one command:
 * checked again at submission, never merged with a neighbour, never split.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "awblk.h"
#include "uapi/awkit.h"
#include "nvme_identify.h"

struct nvme_eng {
	struct awnvme_id_info id;
	u64 start;		/* bytes from the namespace's LBA 0 to @lower */
	bool req_atomic;	/* the lower queue takes REQ_ATOMIC bios */
	struct bio_set bs;	/* bounce bios */
};

/*
 * Is @lower an NVMe namespace? nvme_core exports no test, but it hangs each
 * namespace's disk off its controller (class "nvme") or, for a multipath
 * head, off its subsystem (class "nvme-subsystem"), as the SCSI engine
 * knows an sd disk by its parent, the SCSI device.
 */
static bool nvme_eng_is_nvme_ns(struct block_device *lower)
{
	struct device *parent = disk_to_dev(lower->bd_disk)->parent;

	return parent && parent->class &&
	       (!strcmp(parent->class->name, "nvme") ||
		!strcmp(parent->class->name, "nvme-subsystem"));
}

/* Limits from user space's Identify data, after checking it fits @lower. */
static int nvme_eng_from_identify(struct nvme_eng *e,
				  struct block_device *lower,
				  const struct awblk_hwinfo *info)
{
	const struct aw_nvme_id *nid = info->data;
	u64 disk_bytes = get_capacity(lower->bd_disk) << SECTOR_SHIFT;
	const char *why = NULL;
	u64 ns_bytes;

	if (info->len != sizeof(*nid) || nid->type != AW_HWINFO_NVME_ID ||
	    nid->reserved) {
		pr_info("%pg: the hardware info is not NVMe Identify data (%u bytes)\n",
			lower, info->len);
		return -EINVAL;
	}
	if (awnvme_id_parse(nid->ctrl, sizeof(nid->ctrl), nid->ns,
			    sizeof(nid->ns), bdev_logical_block_size(lower),
			    &e->id, &why)) {
		pr_info("%pg: Identify data of namespace %u rejected: %s\n",
			lower, nid->nsid, why);
		return -EINVAL;
	}
	/* Data of another namespace would give another unit: refuse it. */
	if (check_mul_overflow(e->id.nsze, (u64)e->id.lbs, &ns_bytes) ||
	    ns_bytes != disk_bytes) {
		pr_info("%pg: Identify data of namespace %u describes %llu blocks of %u bytes, the disk has %llu bytes\n",
			lower, nid->nsid, e->id.nsze, e->id.lbs, disk_bytes);
		return -EINVAL;
	}
	return 0;
}

/*
 * The atomic limits the kernel itself derived for @lower's queue (6.11+
 * has them for NVMe; 6.1 none: all 0); false where it knows none.
 */
static bool nvme_eng_kernel_hw(struct block_device *lower,
			       struct aw_atomic_limits *hw)
{
	struct request_queue *q = bdev_get_queue(lower);

	hw->unit_min = queue_atomic_write_unit_min_bytes(q);
	hw->unit_max = queue_atomic_write_unit_max_bytes(q);
	hw->max_bytes = queue_atomic_write_max_bytes(q);
	hw->boundary = queue_atomic_write_boundary_bytes(q);
	return hw->unit_min && hw->unit_max;
}

/* Without Identify data: what the kernel itself derived (6.11+), or none. */
static void nvme_eng_from_kernel(struct nvme_eng *e, struct block_device *lower)
{
	struct aw_atomic_limits hw;

	memset(&e->id, 0, sizeof(e->id));
	e->id.lbs = bdev_logical_block_size(lower);
	if (!nvme_eng_kernel_hw(lower, &hw)) {
		pr_info("%pg: no Identify data given and the kernel knows no atomic limits: no atomic writes\n",
			lower);
		return;
	}
	e->id.lim = hw;
	e->id.atomic_bs = hw.max_bytes;
}

/*
 * The namespace's I/O boundary (NOIOB, as chunk_sectors) splits any write
 * that crosses it: an atomic write must not. Fold it into the atomic
 * boundary when it is a power of two no smaller than the unit; otherwise
 * nothing can be promised.
 */
static void nvme_eng_apply_chunk(struct nvme_eng *e, struct block_device *lower)
{
	u64 chunk = (u64)bdev_get_queue(lower)->limits.chunk_sectors << 9;

	if (!chunk || !e->id.atomic_bs)
		return;
	if (!is_power_of_2(chunk) || chunk < e->id.lim.max_bytes) {
		pr_info("%pg: I/O boundary %llu cannot hold atomic writes of %u bytes: no atomic writes\n",
			lower, chunk, e->id.lim.max_bytes);
		e->id.atomic_bs = 0;
		memset(&e->id.lim, 0, sizeof(e->id.lim));
		return;
	}
	if (!e->id.lim.boundary || chunk < e->id.lim.boundary)
		e->id.lim.boundary = chunk;
}

/*
 * Can atomic writes go down as REQ_ATOMIC bios (6.11+), which the block
 * layer itself never splits or merges? Only if the lower queue's own limits
 * take every write awnvme allows: a 6.12 multipath head, for one, has none
 * (its limits do not stack), and refuses them. Otherwise they go down as
 * plain writes, kept whole by awnvme: NVMe makes them atomic all the same.
 */
static bool nvme_eng_kernel_takes_atomic(struct nvme_eng *e,
					 struct block_device *lower)
{
	const struct aw_atomic_limits *l = &e->id.lim;
	struct aw_atomic_limits k;

	return l->max_bytes && nvme_eng_kernel_hw(lower, &k) &&
	       k.unit_min <= l->unit_min && k.unit_max >= l->unit_max &&
	       k.max_bytes >= l->max_bytes &&
	       (!k.boundary || (l->boundary && k.boundary >= l->boundary));
}

static int nvme_eng_probe(struct block_device *lower,
			  const struct awblk_hwinfo *info,
			  struct aw_atomic_limits *hw, void **priv)
{
	struct nvme_eng *e;
	int ret = 0;

	memset(hw, 0, sizeof(*hw));
	if (!nvme_eng_is_nvme_ns(lower))
		return -ENODEV;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	if (info && info->data)
		ret = nvme_eng_from_identify(e, lower, info);
	else
		nvme_eng_from_kernel(e, lower);
	if (!ret)
		ret = bioset_init(&e->bs, BIO_POOL_SIZE, 0,
				  BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER);
	if (ret) {
		kfree(e);
		return ret;
	}
	nvme_eng_apply_chunk(e, lower);
	e->req_atomic = nvme_eng_kernel_takes_atomic(e, lower);
	e->start = (u64)get_start_sect(lower) << SECTOR_SHIFT;
	*hw = e->id.lim;
	*priv = e;
	return 0;
}

static void nvme_eng_release(void *priv)
{
	struct nvme_eng *e = priv;

	bioset_exit(&e->bs);
	kfree(e);
}

/*
 * Would the block layer split @bio on its way to the namespace? Too many
 * bytes or segments, or a gap at the queue's virtual boundary (NVMe's PRP
 * rule). Pages are counted one segment each, which over-counts, never under.
 */
static bool nvme_eng_would_split(struct request_queue *q, struct bio *bio)
{
	unsigned long vmask = queue_virt_boundary(q);
	unsigned int segs = 0, n = 0, total = 0;
	struct bvec_iter it;
	struct bio_vec bv;

	if (bio->bi_iter.bi_size > queue_max_sectors(q) << SECTOR_SHIFT ||
	    queue_max_segment_size(q) < PAGE_SIZE)
		return true;
	bio_for_each_bvec(bv, bio, it)
		total++;
	bio_for_each_bvec(bv, bio, it) {
		n++;
		if (vmask && n > 1 && (bv.bv_offset & vmask))
			return true;
		if (vmask && n < total && ((bv.bv_offset + bv.bv_len) & vmask))
			return true;
		segs += DIV_ROUND_UP(offset_in_page(bv.bv_offset) + bv.bv_len,
				     PAGE_SIZE);
	}
	return segs > queue_max_segments(q);
}

static void nvme_eng_bounce_free(struct bio *b)
{
	struct bvec_iter_all it;
	struct bio_vec *bv;

	bio_for_each_segment_all(bv, b, it)
		__free_page(bv->bv_page);
	bio_put(b);
}

static void nvme_eng_bounce_endio(struct bio *b)
{
	struct bio *orig = b->bi_private;

	orig->bi_status = b->bi_status;
	nvme_eng_bounce_free(b);
	bio_endio(orig);
}

/* Copy @bio's data into @b's pages, which are whole and in order. */
static void nvme_eng_bounce_copy(struct bio *b, struct bio *bio)
{
	unsigned int off = 0;
	struct bvec_iter it;
	struct bio_vec bv;

	bio_for_each_segment(bv, bio, it) {
		while (bv.bv_len) {
			struct page *to = b->bi_io_vec[off >> PAGE_SHIFT].bv_page;
			struct bio_vec part = bv;

			part.bv_len = min_t(unsigned int, bv.bv_len,
					    PAGE_SIZE - offset_in_page(off));
			memcpy_from_bvec(page_address(to) + offset_in_page(off),
					 &part);
			off += part.bv_len;
			bv.bv_offset += part.bv_len;
			bv.bv_len -= part.bv_len;
		}
	}
}

/* A copy of @bio in whole, fresh pages: one segment a page, no gaps. */
static struct bio *nvme_eng_bounce(struct nvme_eng *e, struct bio *bio)
{
	unsigned int n = DIV_ROUND_UP(bio->bi_iter.bi_size, PAGE_SIZE);
	unsigned int left = bio->bi_iter.bi_size;
	struct bio *b;

	if (n > BIO_MAX_VECS)
		return NULL;
	b = bio_alloc_bioset(bio->bi_bdev, n, bio->bi_opf, GFP_NOIO, &e->bs);
	if (!b)
		return NULL;
	b->bi_iter.bi_sector = bio->bi_iter.bi_sector;
	while (left) {
		unsigned int len = min_t(unsigned int, PAGE_SIZE, left);
		struct page *page = alloc_page(GFP_NOIO);

		if (!page || bio_add_page(b, page, len, 0) != len) {
			if (page)
				__free_page(page);
			nvme_eng_bounce_free(b);
			return NULL;
		}
		left -= len;
	}
	nvme_eng_bounce_copy(b, bio);
	b->bi_private = bio;
	b->bi_end_io = nvme_eng_bounce_endio;
	return b;
}

static void nvme_eng_submit(void *priv, struct bio *bio)
{
	struct nvme_eng *e = priv;
	u64 off = ((u64)bio->bi_iter.bi_sector << SECTOR_SHIFT) + e->start;
	struct bio *b;

	if (!awnvme_write_ok(&e->id, off, bio->bi_iter.bi_size)) {
		bio->bi_status = BLK_STS_INVAL;
		bio_endio(bio);
		return;
	}
	/* One command: never merged with a neighbour... */
	bio->bi_opf |= REQ_NOMERGE;
	if (e->req_atomic)
		bio->bi_opf |= REQ_ATOMIC;
	else
		bio->bi_opf &= ~REQ_ATOMIC;
	/* ...and not split: pages the queue would split on are copied. */
	if (nvme_eng_would_split(bdev_get_queue(bio->bi_bdev), bio)) {
		b = nvme_eng_bounce(e, bio);
		if (!b) {
			bio_io_error(bio);
			return;
		}
		bio = b;
	}
	submit_bio_noacct(bio);
}

static struct awblk_engine nvme_engine = {
	.name		= "nvme",
	.id		= AW_ENGINE_NVME,
	.owner		= THIS_MODULE,
	.probe		= nvme_eng_probe,
	.submit		= nvme_eng_submit,
	.release	= nvme_eng_release,
};

static int __init nvme_eng_init(void)
{
	return awblk_register_engine(&nvme_engine);
}

static void __exit nvme_eng_exit(void)
{
	awblk_unregister_engine(&nvme_engine);
}

module_init(nvme_eng_init);
module_exit(nvme_eng_exit);
MODULE_DESCRIPTION("awblk NVMe engine: atomic writes within the namespace's atomic unit");
MODULE_AUTHOR("awkit developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("awblk-engine-nvme");
