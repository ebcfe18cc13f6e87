/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Identify data of an NVMe namespace from user space, through the NVMe
 * driver's passthrough ioctls, as nvme-cli's `nvme id-ctrl` and `nvme id-ns`
 * fetch it. Parse the result with engines/nvme/nvme_identify.h.
 */
#ifndef AW_NVME_ID_H
#define AW_NVME_ID_H

#define AW_NVME_ID_LEN 4096	/* = AWNVME_ID_LEN */

/*
 * 1 if @fd is open on a whole NVMe namespace block device (/dev/nvmeXnY,
 * or the multipath head of one), 0 otherwise (partitions, other block
 * devices, character devices, files, or no /sys).
 */
int aw_is_nvme_ns(int fd);

/*
 * Fetch Identify Controller into @ctrl4096 and Identify Namespace into
 * @ns4096 (4096 bytes each; page-aligned buffers avoid a bounce copy) for
 * the namespace @fd is open on, and its id into *@nsid (if @nsid is not
 * NULL). Needs CAP_SYS_ADMIN on Debian 12's 6.1 kernel.
 * Returns 0 or -errno: -ENOTTY if @fd is not on an NVMe namespace, -EIO if
 * the controller completed a command with a non-zero NVMe status.
 */
int aw_nvme_identify(int fd, unsigned int *nsid, void *ctrl4096,
		     void *ns4096);

#endif /* AW_NVME_ID_H */
