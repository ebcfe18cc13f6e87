/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What awblk offers other kernel modules (awfs): the limits of an awblk
 * device and atomic writes by bio, the same on every kernel (6.1 has no
 * REQ_ATOMIC; 6.12's would work too, this is the one path for both).
 */
#ifndef AWBLK_API_H
#define AWBLK_API_H

#include <linux/blkdev.h>
#include "uapi/awkit.h"

int awblk_bdev_limits(struct block_device *bdev, struct aw_limits *l);
void awblk_submit_atomic(struct bio *bio);
int awblk_submit_atomic_wait(struct bio *bio);

#endif /* AWBLK_API_H */
