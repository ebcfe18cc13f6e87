// SPDX-License-Identifier: GPL-2.0
/*
 * aw32 PATH: awkit's ioctls from a 32-bit program (built with -m32 against
 * libaw). PATH is an awblk device or a file on an awfs mount (then the
 * awfs alignment ioctl too). Prints the limits, writes one atomic unit of
 * a pattern at offset 0 and reads it back. Exit 0 only when all worked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libaw.h"
#include "awfs.h"

static int die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct aw_limits lim;
	struct awfs_align al;
	struct stat st;
	char *buf, *back;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: aw32 PATH\n");
		return 2;
	}
	printf("pointer size %zu\n", sizeof(void *));
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fstat(fd, &st))
		return die("open");
	if (aw_limits(fd, &lim))
		return die("aw_limits");
	printf("unit_min %u unit_max %u engine %s\n", lim.unit_min,
	       lim.unit_max, aw_engine_name(lim.engine));
	/* Only awkit's ioctl names the engine: statx would say "auto". */
	if (lim.engine == AW_ENGINE_AUTO) {
		printf("FAIL: AW_IOC_GET_LIMITS did not answer a 32-bit program\n");
		return 1;
	}
	if (!lim.unit_min) {
		printf("FAIL: no atomic writes on %s\n", argv[1]);
		return 1;
	}
	if (S_ISREG(st.st_mode)) {
		memset(&al, 0, sizeof(al));
		if (ioctl(fd, AWFS_IOC_GET_ALIGN, &al))
			return die("AWFS_IOC_GET_ALIGN");
		printf("awfs unit %u flags %u\n", al.unit, al.flags);
	}
	buf = malloc(lim.unit_min);
	back = malloc(lim.unit_min);
	if (!buf || !back)
		return die("malloc");
	memset(buf, 0x32, lim.unit_min);
	if (aw_pwrite_atomic(fd, buf, lim.unit_min, 0, AW_WRITE_DSYNC) !=
	    (ssize_t)lim.unit_min)
		return die("aw_pwrite_atomic");
	if (pread(fd, back, lim.unit_min, 0) != (ssize_t)lim.unit_min)
		return die("pread");
	if (memcmp(buf, back, lim.unit_min)) {
		printf("FAIL: the atomic write does not read back\n");
		return 1;
	}
	printf("ok: atomic write of %u bytes from a 32-bit program\n",
	       lim.unit_min);
	return 0;
}
