// SPDX-License-Identifier: GPL-2.0
/*
 * See nvme_id.h. Only libc and the kernel's <linux/nvme_ioctl.h>.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/nvme_ioctl.h>

#include "nvme_id.h"

#define NVME_ADMIN_IDENTIFY	0x06
#define NVME_ID_CNS_NS		0x00
#define NVME_ID_CNS_CTRL	0x01

/*
 * The namespace id from sysfs: every NVMe namespace disk, and the multipath
 * head disk, has /sys/dev/block/M:m/nsid; partitions and other drivers'
 * disks do not. 0 when there is none.
 */
static unsigned int sysfs_nsid(dev_t rdev)
{
	char path[64], buf[32], *end;
	unsigned long v;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/nsid",
		 major(rdev), minor(rdev));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || !v ||
	    v > 0xffffffffUL)
		return 0;
	return (unsigned int)v;
}

/*
 * A block device whose sysfs entry names a namespace id, confirmed by
 * NVME_IOCTL_ID giving the same id. sysfs goes first so that the NVMe
 * ioctl number is only ever sent to the NVMe driver, never to a driver
 * that might read it as something else.
 */
int aw_is_nvme_ns(int fd)
{
	unsigned int nsid;
	struct stat st;

	if (fstat(fd, &st) || !S_ISBLK(st.st_mode))
		return 0;
	nsid = sysfs_nsid(st.st_rdev);
	if (!nsid)
		return 0;
	return ioctl(fd, NVME_IOCTL_ID) == (int)nsid;
}

/* One Identify command; the controller writes 4096 bytes to @buf. */
static int identify(int fd, unsigned int nsid, unsigned int cns, void *buf)
{
	struct nvme_admin_cmd cmd;
	int ret;

	memset(buf, 0, AW_NVME_ID_LEN);
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_IDENTIFY;
	cmd.nsid = nsid;
	cmd.addr = (uint64_t)(uintptr_t)buf;
	cmd.data_len = AW_NVME_ID_LEN;
	cmd.cdw10 = cns;
	ret = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
	if (ret < 0)
		return -errno;
	/* > 0: the command completed with that NVMe status. */
	return ret ? -EIO : 0;
}

int aw_nvme_identify(int fd, unsigned int *nsid, void *ctrl4096,
		     void *ns4096)
{
	int id, ret;

	id = ioctl(fd, NVME_IOCTL_ID);
	if (id < 0)
		return -errno;
	if (!id)
		return -ENOTTY;
	ret = identify(fd, 0, NVME_ID_CNS_CTRL, ctrl4096);
	if (!ret)
		ret = identify(fd, (unsigned int)id, NVME_ID_CNS_NS, ns4096);
	if (!ret && nsid)
		*nsid = (unsigned int)id;
	return ret;
}
