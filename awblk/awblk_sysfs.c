// SPDX-License-Identifier: GPL-2.0
/* awblk's sysfs files: /sys/block/awblkN/awblk/, queue/atomic_write_*. */
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

static ssize_t stats_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	struct awblk_dev *d = dev_to_awblk(dev);
	int i, n;

	n = sysfs_emit(buf, "atomic_writes %lld\natomic_bytes %lld\nuntorn_units %lld\nflushes %lld\n",
		       atomic64_read(&d->atomic_writes),
		       atomic64_read(&d->atomic_bytes),
		       atomic64_read(&d->untorn_units),
		       atomic64_read(&d->flushes_started));
	for (i = AWB_NOSUPPORT; i < AWB_NREASONS; i++)
		n += sysfs_emit_at(buf, n, "rejected_%s %lld\n",
				   awblk_reject_names[i],
				   atomic64_read(&d->rejects[i]));
	return n;
}
static DEVICE_ATTR_RO(stats);

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
	&dev_attr_stats.attr,
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

/* ---- the queue's atomic_write_*_bytes files ---- */

/*
 * The kernel's own where it has atomic limits (6.11+), compat's on 6.1:
 * the limits the disk was made with either way.
 */
int awblk_add_queue_attrs(struct awblk_dev *d)
{
	return aw_queue_atomic_sysfs_add(d->disk, &d->lim);
}

void awblk_remove_queue_attrs(struct awblk_dev *d)
{
	aw_queue_atomic_sysfs_remove(d->disk);
}
