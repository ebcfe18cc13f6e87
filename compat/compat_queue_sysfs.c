// SPDX-License-Identifier: GPL-2.0
/*
 * 6.1: the queue directory's atomic_write_*_bytes files, which 6.11 shows
 * from every queue's limits and 6.1 has no limits for. Built into awblk.ko
 * on every kernel; empty where the kernel has its own (compat.h).
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "compat.h"

#if !AW_NATIVE_ATOMIC
/*
 * Files in the queue kobject are shown by the queue's own sysfs_ops
 * (queue_attr_show() in 6.1's block/blk-sysfs.c), which take the attribute
 * as the first member of 6.1's private struct queue_sysfs_entry and call
 * its show(queue, page). This is that layout. The queue's queuedata,
 * unused by a bio-based disk, holds the limits the files show.
 */
struct aw_queue_sysfs_entry {
	struct attribute attr;
	ssize_t (*show)(struct request_queue *q, char *page);
	ssize_t (*store)(struct request_queue *q, const char *page, size_t n);
};

#define AW_QUEUE_ATOMIC_ATTR(_name, _field)				\
static ssize_t aw_q_##_name##_show(struct request_queue *q, char *page) \
{									\
	const struct aw_atomic_limits *hw = q->queuedata;			\
									\
	return sysfs_emit(page, "%u\n", hw->_field);			\
}									\
static struct aw_queue_sysfs_entry aw_q_##_name = {			\
	.attr = { .name = "atomic_write_" #_name "_bytes", .mode = 0444 }, \
	.show = aw_q_##_name##_show,					\
}

AW_QUEUE_ATOMIC_ATTR(unit_min, unit_min);
AW_QUEUE_ATOMIC_ATTR(unit_max, unit_max);
AW_QUEUE_ATOMIC_ATTR(max, max_bytes);
AW_QUEUE_ATOMIC_ATTR(boundary, boundary);

static struct attribute *aw_q_atomic_attrs[] = {
	&aw_q_unit_min.attr, &aw_q_unit_max.attr, &aw_q_max.attr,
	&aw_q_boundary.attr,
	NULL,
};

static const struct attribute_group aw_q_atomic_group = {
	.attrs = aw_q_atomic_attrs,
};

int aw_queue_atomic_sysfs_add(struct gendisk *disk,
			      const struct aw_atomic_limits *hw)
{
	struct request_queue *q = disk->queue;
	int ret;

	/* A copy, so that @hw need not outlive the call. */
	q->queuedata = kmemdup(hw, sizeof(*hw), GFP_KERNEL);
	if (!q->queuedata)
		return -ENOMEM;
	ret = sysfs_create_group(&q->kobj, &aw_q_atomic_group);
	if (ret) {
		kfree(q->queuedata);
		q->queuedata = NULL;
	}
	return ret;
}

void aw_queue_atomic_sysfs_remove(struct gendisk *disk)
{
	struct request_queue *q = disk->queue;

	/* Returns once no show() runs: then the copy can go. */
	sysfs_remove_group(&q->kobj, &aw_q_atomic_group);
	kfree(q->queuedata);
	q->queuedata = NULL;
}
#endif
