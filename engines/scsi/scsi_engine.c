// SPDX-License-Identifier: GPL-2.0
/*
 * awscsi_engine: the SCSI engine of awblk. It reads the Block Limits VPD
 * page of the lower SCSI disk, derives the atomic limits as sd does, and
 * makes each atomic write one WRITE ATOMIC(16): through sd's own REQ_ATOMIC
 * path where the kernel has it (6.11+), as a passthrough request to the sd
 * device before that. It works over awscsi disks and any SBC-4 disk.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/bio.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>
#include <scsi/scsi.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>

#include "awblk.h"
#include "uapi/awkit.h"
#include "scsi_vpd.h"

struct scsi_eng {
	struct scsi_device *sdev;
	bool use_boundary;
	unsigned int lbs;
	struct bio_set bs;	/* passthrough bios (6.1) */
};

#if AW_NATIVE_ATOMIC
/*
 * sd takes a REQ_ATOMIC bio only within the limits it derived itself (it
 * may have dropped or reduced them, as for protection information): never
 * promise more, or the writes, untorn writeback too, would fail.
 */
static void scsi_eng_fit_sd(struct block_device *lower,
			    struct aw_atomic_limits *l)
{
	struct request_queue *q = bdev_get_queue(lower);
	u32 umin = queue_atomic_write_unit_min_bytes(q);
	u32 umax = queue_atomic_write_unit_max_bytes(q);
	u32 maxb = queue_atomic_write_max_bytes(q);
	u32 bndry = queue_atomic_write_boundary_bytes(q);

	if (!umin || !umax || !l->unit_max) {
		memset(l, 0, sizeof(*l));
		return;
	}
	l->unit_min = max(l->unit_min, umin);
	l->unit_max = min(l->unit_max, umax);
	l->max_bytes = min(l->max_bytes, maxb);
	if (bndry && (!l->boundary || bndry < l->boundary))
		l->boundary = bndry;
}
#else
static void scsi_eng_fit_sd(struct block_device *lower,
			    struct aw_atomic_limits *l)
{
}
#endif

static int scsi_eng_probe(struct block_device *lower,
			  const struct awblk_hwinfo *info,
			  struct aw_atomic_limits *hw, void **priv)
{
	struct device *parent = disk_to_dev(lower->bd_disk)->parent;
	struct scsi_device *sdev;
	struct awscsi_hw h;
	struct scsi_eng *e;
	u8 *b0;

	memset(hw, 0, sizeof(*hw));
	/* An sd disk's parent is its SCSI device. */
	if (!parent || !scsi_is_sdev_device(parent))
		return -ENODEV;
	sdev = to_scsi_device(parent);
	if (sdev->type != TYPE_DISK)
		return -ENODEV;
	/* Everything comes from the disk itself: nothing else is taken. */
	if (info && info->data) {
		pr_info("%pg: the SCSI engine takes no hardware info\n", lower);
		return -EINVAL;
	}
	get_device(&sdev->sdev_gendev);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	b0 = kzalloc(64, GFP_KERNEL);
	if (!e || !b0) {
		kfree(e);
		kfree(b0);
		put_device(&sdev->sdev_gendev);
		return -ENOMEM;
	}
	if (bioset_init(&e->bs, BIO_POOL_SIZE, 0, BIOSET_NEED_BVECS)) {
		kfree(e);
		kfree(b0);
		put_device(&sdev->sdev_gendev);
		return -ENOMEM;
	}
	e->sdev = sdev;
	e->lbs = bdev_logical_block_size(lower);
	if (!scsi_get_vpd_page(sdev, 0xb0, b0, 64))
		awscsi_vpd_atomic_hw(b0, 64, e->lbs,
				     bdev_physical_block_size(lower), &h);
	else
		memset(&h, 0, sizeof(h));
	kfree(b0);
	scsi_eng_fit_sd(lower, &h.lim);
	e->use_boundary = h.use_boundary;
	*hw = h.lim;
	*priv = e;
	return 0;
}

static void scsi_eng_release(void *priv)
{
	struct scsi_eng *e = priv;

	put_device(&e->sdev->sdev_gendev);
	bioset_exit(&e->bs);
	kfree(e);
}

#if AW_NATIVE_ATOMIC
/* sd builds WRITE ATOMIC(16) from a REQ_ATOMIC bio and never splits it. */
static void scsi_eng_submit(void *priv, struct bio *bio)
{
	bio->bi_opf |= REQ_ATOMIC;
	submit_bio_noacct(bio);
}
#else
/*
 * 6.1 has no REQ_ATOMIC: WRITE ATOMIC(16) goes to the sd device as a
 * passthrough request, which bypasses the block layer's flush machinery and
 * sd's retries. So this engine does what they would: a PREFLUSH becomes a
 * SYNCHRONIZE CACHE before the write, FUA on a disk without the FUA bit a
 * SYNCHRONIZE CACHE after it, and a UNIT ATTENTION is retried.
 */
#define PT_RETRIES	3

static struct workqueue_struct *pt_wq;

struct pt_io {
	struct work_struct work;
	struct scsi_eng *e;
	struct bio *bio;
	void *buf;
	bool preflush, postflush, fua;
	bool sent;		/* the write has its final answer: status */
	blk_status_t status;
	unsigned int tries;
};

static blk_status_t scsi_eng_pt_status(struct scsi_cmnd *scmd)
{
	struct scsi_sense_hdr sshdr;

	if (!scmd->result)
		return BLK_STS_OK;
	if (host_byte(scmd->result) != DID_OK)
		return BLK_STS_TRANSPORT;
	if (!scsi_normalize_sense(scmd->sense_buffer, SCSI_SENSE_BUFFERSIZE,
				  &sshdr))
		return BLK_STS_IOERR;
	/* The device did the write, and says it had to try harder. */
	if (sshdr.sense_key == RECOVERED_ERROR)
		return BLK_STS_OK;
	if (sshdr.sense_key == ILLEGAL_REQUEST)
		return sshdr.asc == 0x20 ? BLK_STS_NOTSUPP : BLK_STS_INVAL;
	return BLK_STS_IOERR;
}

/* The request's status: the SCSI one says more when there is one. */
static blk_status_t scsi_eng_pt_result(blk_status_t err, struct scsi_cmnd *scmd)
{
	return scmd->result ? scsi_eng_pt_status(scmd) : err;
}

/* A UNIT ATTENTION (power on, reset...) says nothing about the write. */
static bool scsi_eng_pt_retry(struct pt_io *io, struct scsi_cmnd *scmd)
{
	struct scsi_sense_hdr sshdr;

	return io->tries < PT_RETRIES && scmd->result &&
	       host_byte(scmd->result) == DID_OK &&
	       scsi_normalize_sense(scmd->sense_buffer, SCSI_SENSE_BUFFERSIZE,
				    &sshdr) && sshdr.sense_key == UNIT_ATTENTION;
}

/*
 * Linearize the bio's data for the passthrough request. kvmalloc() only
 * falls back to vmalloc for GFP_KERNEL: a NOIO scope keeps reclaim from
 * recursing into I/O instead, so a large unit need not be contiguous.
 */
static void *scsi_eng_pt_bounce(struct bio *bio)
{
	unsigned int noio = memalloc_noio_save();
	void *buf = kvmalloc(bio->bi_iter.bi_size, GFP_KERNEL);
	struct bvec_iter it;
	struct bio_vec bv;
	size_t off = 0;

	memalloc_noio_restore(noio);
	if (!buf)
		return NULL;
	bio_for_each_segment(bv, bio, it) {
		memcpy_from_bvec(buf + off, &bv);
		off += bv.bv_len;
	}
	return buf;
}

/* The pages were only lent; the request's owner completes the bio. */
static void scsi_eng_pt_lend_endio(struct bio *pt)
{
	bio_put(pt);
}

/*
 * A passthrough bio over the same pages as @bio, built page by page with
 * bio_add_pc_page(), which keeps every segment within the queue's limits
 * (boundary, segment size and count) as blk_rq_map_kern() would; NULL when
 * the pages cannot go to the device as they are.
 */
static struct bio *scsi_eng_pt_lend(struct scsi_eng *e, struct request_queue *q,
				    struct bio *bio)
{
	unsigned int mask = queue_dma_alignment(q);
	struct bvec_iter it;
	struct bio_vec bv;
	struct bio *pt;

	if (bio_segments(bio) > BIO_MAX_VECS)
		return NULL;
	pt = bio_alloc_bioset(NULL, bio_segments(bio), REQ_OP_DRV_OUT,
			      GFP_NOIO, &e->bs);
	if (!pt)
		return NULL;
	bio_for_each_segment(bv, bio, it) {
		if (((bv.bv_offset | bv.bv_len) & mask) ||
		    bio_add_pc_page(q, pt, bv.bv_page, bv.bv_len,
				    bv.bv_offset) != bv.bv_len) {
			bio_put(pt);
			return NULL;
		}
	}
	pt->bi_end_io = scsi_eng_pt_lend_endio;
	return pt;
}

/* Attach the bio's data to @rq: its own pages when they fit, else a copy. */
static int scsi_eng_pt_map(struct scsi_eng *e, struct request *rq,
			   struct bio *bio, struct pt_io *io)
{
	struct request_queue *q = rq->q;
	struct bio *pt = scsi_eng_pt_lend(e, q, bio);

	if (pt) {
		if (!blk_rq_append_bio(rq, pt))
			return 0;
		bio_put(pt);
	}
	if (!io->buf)
		io->buf = scsi_eng_pt_bounce(bio);
	if (!io->buf)
		return -ENOMEM;
	return blk_rq_map_kern(q, rq, io->buf, bio->bi_iter.bi_size, GFP_NOIO);
}

/* One WRITE ATOMIC(16) request for @io's bio; an ERR_PTR when none. */
static struct request *scsi_eng_pt_request(struct pt_io *io)
{
	struct scsi_eng *e = io->e;
	struct bio *bio = io->bio;
	u64 sector = bio->bi_iter.bi_sector + get_start_sect(bio->bi_bdev);
	struct scsi_cmnd *scmd;
	struct request *rq;
	int ret;

	rq = scsi_alloc_request(e->sdev->request_queue, REQ_OP_DRV_OUT, 0);
	if (IS_ERR(rq))
		return rq;
	ret = scsi_eng_pt_map(e, rq, bio, io);
	if (ret) {
		blk_mq_free_request(rq);
		return ERR_PTR(ret);
	}
	scmd = blk_mq_rq_to_pdu(rq);
	awscsi_cdb_write_atomic16(scmd->cmnd, (sector << 9) / e->lbs,
				  bio->bi_iter.bi_size / e->lbs, io->fua,
				  e->use_boundary);
	scmd->cmd_len = 16;
	scmd->allowed = 3;
	rq->timeout = 30 * HZ;
	io->tries++;
	return rq;
}

static void scsi_eng_pt_finish(struct pt_io *io, blk_status_t status)
{
	struct bio *bio = io->bio;

	bio->bi_status = status;
	kvfree(io->buf);
	kfree(io);
	bio_endio(bio);
}

/*
 * The slow path, in process context: the flush before, the write (again,
 * after a UNIT ATTENTION), the flush after. A flush is one the block layer
 * sends to the sd disk, so it is accounted and ordered as any other.
 */
static void scsi_eng_pt_work(struct work_struct *work)
{
	struct pt_io *io = container_of(work, struct pt_io, work);
	struct block_device *bdev = io->bio->bi_bdev;
	struct request *rq;

	if (io->preflush && blkdev_issue_flush(bdev)) {
		scsi_eng_pt_finish(io, BLK_STS_IOERR);
		return;
	}
	while (!io->sent) {
		rq = scsi_eng_pt_request(io);
		if (IS_ERR(rq)) {
			scsi_eng_pt_finish(io, errno_to_blk_status(PTR_ERR(rq)));
			return;
		}
		io->status = scsi_eng_pt_result(blk_execute_rq(rq, false),
						blk_mq_rq_to_pdu(rq));
		io->sent = !scsi_eng_pt_retry(io, blk_mq_rq_to_pdu(rq));
		blk_mq_free_request(rq);
	}
	if (!io->status && io->postflush && blkdev_issue_flush(bdev))
		io->status = BLK_STS_IOERR;
	scsi_eng_pt_finish(io, io->status);
}

static enum rq_end_io_ret scsi_eng_pt_end_io(struct request *rq,
					     blk_status_t err)
{
	struct pt_io *io = rq->end_io_data;
	struct scsi_cmnd *scmd = blk_mq_rq_to_pdu(rq);

	/* Whatever comes next is done from process context. */
	io->preflush = false;
	if (scsi_eng_pt_retry(io, scmd)) {
		queue_work(pt_wq, &io->work);
		return RQ_END_IO_FREE;
	}
	io->sent = true;
	io->status = scsi_eng_pt_result(err, scmd);
	/* The flush after, or a vmalloc'd copy: vfree may not run here. */
	if ((!io->status && io->postflush) || is_vmalloc_addr(io->buf)) {
		queue_work(pt_wq, &io->work);
		return RQ_END_IO_FREE;
	}
	scsi_eng_pt_finish(io, io->status);
	return RQ_END_IO_FREE;
}

static void scsi_eng_submit(void *priv, struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;
	bool wc = bdev_write_cache(bdev);
	struct pt_io *io;
	struct request *rq;

	io = kzalloc(sizeof(*io), GFP_NOIO);
	if (!io) {
		bio_io_error(bio);
		return;
	}
	INIT_WORK(&io->work, scsi_eng_pt_work);
	io->e = priv;
	io->bio = bio;
	/* Without a volatile cache, every write is already durable. */
	io->preflush = wc && (bio->bi_opf & REQ_PREFLUSH);
	io->fua = wc && (bio->bi_opf & REQ_FUA) && bdev_fua(bdev);
	io->postflush = wc && (bio->bi_opf & REQ_FUA) && !bdev_fua(bdev);
	if (io->preflush) {
		queue_work(pt_wq, &io->work);
		return;
	}
	rq = scsi_eng_pt_request(io);
	if (IS_ERR(rq)) {
		scsi_eng_pt_finish(io, errno_to_blk_status(PTR_ERR(rq)));
		return;
	}
	rq->end_io = scsi_eng_pt_end_io;
	rq->end_io_data = io;
	blk_execute_rq_nowait(rq, false);
}
#endif

static struct awblk_engine scsi_engine = {
	.name		= "scsi",
	.id		= AW_ENGINE_SCSI,
	.owner		= THIS_MODULE,
	.probe		= scsi_eng_probe,
	.submit		= scsi_eng_submit,
	.release	= scsi_eng_release,
};

#if AW_NATIVE_ATOMIC
static int scsi_eng_wq_init(void)
{
	return 0;
}

static void scsi_eng_wq_exit(void)
{
}
#else
static int scsi_eng_wq_init(void)
{
	/* Writeback waits on it: it must make progress under reclaim. */
	pt_wq = alloc_workqueue("awscsi_eng", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return pt_wq ? 0 : -ENOMEM;
}

static void scsi_eng_wq_exit(void)
{
	destroy_workqueue(pt_wq);
}
#endif

static int __init scsi_eng_init(void)
{
	int ret = scsi_eng_wq_init();

	if (ret)
		return ret;
	ret = awblk_register_engine(&scsi_engine);
	if (ret)
		scsi_eng_wq_exit();
	return ret;
}

/* Devices hold a reference on this module: no I/O is left when this runs. */
static void __exit scsi_eng_exit(void)
{
	awblk_unregister_engine(&scsi_engine);
	scsi_eng_wq_exit();
}

module_init(scsi_eng_init);
module_exit(scsi_eng_exit);
MODULE_DESCRIPTION("awblk SCSI engine: WRITE ATOMIC(16)");
MODULE_AUTHOR("awkit developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("awblk-engine-scsi");
