// SPDX-License-Identifier: GPL-2.0
/* awblk's sysfs files: /sys/block/awblkN/awblk/, and on 6.1 the queue's. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/sysfs.h>

#include "awblk_dev.h"

/* ---- sysfs: /sys/block/awblkN/awblk/ ---- */

static struct awblk_dev *dev_to_awblk(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t engine_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	struct awblk_dev *d = dev_to_awblk(dev);

	return sysfs_emit(buf, "%s\n", d->engine ? d->engine->name : "none");
}
static DEVICE_ATTR_RO(engine);

static ssize_t lower_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	return sysfs_emit(buf, "%pg\n", dev_to_awblk(dev)->lower.bdev);
}
static DEVICE_ATTR_RO(lower);

static ssize_t untorn_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_awblk(dev)->untorn);
}
static DEVICE_ATTR_RO(untorn);

static ssize_t counters_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	struct awblk_dev *d = dev_to_awblk(dev);
	int i, n;

	n = sysfs_emit(buf, "atomic_writes %lld\natomic_bytes %lld\nuntorn_units %lld\n",
		       atomic64_read(&d->atomic_writes),
		       atomic64_read(&d->atomic_bytes),
		       atomic64_read(&d->untorn_units));
	for (i = AWB_NOSUPPORT; i < AWB_NREASONS; i++)
		n += sysfs_emit_at(buf, n, "rejected_%s %lld\n",
				   awblk_reject_names[i],
				   atomic64_read(&d->rejects[i]));
	return n;
}
static DEVICE_ATTR_RO(counters);

static ssize_t engine_stats_show(struct device *dev,
				 struct device_attribute *a, char *buf)
{
	struct awblk_dev *d = dev_to_awblk(dev);

	if (!d->engine || !d->engine->stats)
		return 0;
	return d->engine->stats(d->engine_priv, buf);
}
static DEVICE_ATTR_RO(engine_stats);

static struct attribute *awblk_attrs[] = {
	&dev_attr_engine.attr,
	&dev_attr_lower.attr,
	&dev_attr_untorn.attr,
	&dev_attr_counters.attr,
	&dev_attr_engine_stats.attr,
	NULL,
};

static const struct attribute_group awblk_group = {
	.name = "awblk",
	.attrs = awblk_attrs,
};

const struct attribute_group *awblk_groups[] = {
	&awblk_group,
	NULL,
};

/* ---- 6.1: the upstream atomic_write_* names in the queue directory ---- */

#if !AW_NATIVE_ATOMIC
/*
 * Files in the queue kobject are shown by the queue's own sysfs_ops, which
 * take an attribute laid out as 6.1's struct queue_sysfs_entry: the
 * attribute, then show(queue, page) and store(). The queue's queuedata
 * leads back to the device.
 */
struct awblk_qattr {
	struct attribute attr;
	ssize_t (*show)(struct request_queue *q, char *page);
	ssize_t (*store)(struct request_queue *q, const char *page, size_t n);
};

#define AWBLK_QATTR(_name, _field)					\
static ssize_t q_##_name##_show(struct request_queue *q, char *page)	\
{									\
	struct awblk_dev *d = q->queuedata;				\
									\
	return sysfs_emit(page, "%u\n", d->lim._field);			\
}									\
static struct awblk_qattr q_##_name = {					\
	.attr = { .name = "atomic_write_" #_name "_bytes", .mode = 0444 }, \
	.show = q_##_name##_show,					\
}

AWBLK_QATTR(unit_min, unit_min);
AWBLK_QATTR(unit_max, unit_max);
AWBLK_QATTR(max, max_bytes);
AWBLK_QATTR(boundary, boundary);

static struct attribute *awblk_qattrs[] = {
	&q_unit_min.attr, &q_unit_max.attr, &q_max.attr, &q_boundary.attr,
	NULL,
};

static const struct attribute_group awblk_qgroup = {
	.attrs = awblk_qattrs,
};

int awblk_add_queue_attrs(struct awblk_dev *d)
{
	d->disk->queue->queuedata = d;
	return sysfs_create_group(&d->disk->queue->kobj, &awblk_qgroup);
}

void awblk_remove_queue_attrs(struct awblk_dev *d)
{
	sysfs_remove_group(&d->disk->queue->kobj, &awblk_qgroup);
}
#else
int awblk_add_queue_attrs(struct awblk_dev *d)
{
	return 0;	/* the kernel's own atomic_write_* files show them */
}

void awblk_remove_queue_attrs(struct awblk_dev *d)
{
}
#endif
