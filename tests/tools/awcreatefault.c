// SPDX-License-Identifier: GPL-2.0
/*
 * awcreatefault LOWER ROUNDS: AW_IOC_CREATE whose answer cannot be copied
 * back. The struct sits in a read-only page: the kernel can read it but
 * cannot write the index back, so the call must fail with EFAULT and leave
 * no device behind, and no device may even appear meanwhile (one that
 * appears can be opened at once, by udev or anyone, and then cannot be
 * undone). A watcher thread looks for /sys/block/awblk0 all along and, when
 * it sees it, opens the device, as udev would.
 * Exit 0 when every round failed with EFAULT and no device was ever seen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "uapi/awkit.h"

static atomic_int done;
static atomic_long seen, held;

/* Open the device by its sysfs dev numbers: devtmpfs may lag behind. */
static void open_seen(void)
{
	unsigned int ma, mi;
	FILE *f = fopen("/sys/block/awblk0/dev", "r");
	int fd;

	if (!f)
		return;
	if (fscanf(f, "%u:%u", &ma, &mi) != 2) {
		fclose(f);
		return;
	}
	fclose(f);
	unlink("/tmp/awcreatefault-node");
	if (mknod("/tmp/awcreatefault-node", S_IFBLK | 0600, makedev(ma, mi)))
		return;
	fd = open("/tmp/awcreatefault-node", O_RDONLY);
	if (fd >= 0) {
		atomic_fetch_add(&held, 1);
		usleep(1000);
		close(fd);
	}
}

static void *watcher(void *arg)
{
	struct stat st;

	(void)arg;
	while (!atomic_load(&done)) {
		if (stat("/sys/block/awblk0", &st))
			continue;
		atomic_fetch_add(&seen, 1);
		open_seen();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds, n, efault = 0;
	struct aw_create *c;
	struct stat st, sb;
	pthread_t t;
	int ctl;

	if (argc != 3 || stat(argv[1], &st) || !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "usage: awcreatefault LOWER_BLOCK_DEVICE ROUNDS\n");
		return 2;
	}
	if (!stat("/sys/block/awblk0", &sb)) {
		fprintf(stderr, "awcreatefault: awblk0 exists already\n");
		return 2;
	}
	rounds = atol(argv[2]);
	ctl = open("/dev/" AW_CONTROL_NAME, O_RDWR);
	c = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ctl < 0 || c == MAP_FAILED) {
		perror("awcreatefault: /dev/" AW_CONTROL_NAME);
		return 1;
	}
	memset(c, 0, sizeof(*c));
	c->lower_major = major(st.st_rdev);
	c->lower_minor = minor(st.st_rdev);
	c->engine = AW_ENGINE_AUTO;
	if (mprotect(c, 4096, PROT_READ)) {
		perror("awcreatefault: mprotect");
		return 1;
	}
	pthread_create(&t, NULL, watcher, NULL);
	for (n = 0; n < rounds; n++) {
		if (!ioctl(ctl, AW_IOC_CREATE, c)) {
			fprintf(stderr, "awcreatefault: AW_IOC_CREATE on a read-only struct succeeded\n");
			break;
		}
		if (errno != EFAULT) {
			fprintf(stderr, "awcreatefault: round %ld: AW_IOC_CREATE: %s, not EFAULT\n",
				n, strerror(errno));
			break;
		}
		efault++;
	}
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	unlink("/tmp/awcreatefault-node");
	printf("%ld rounds, %ld EFAULT, device seen %ld times, opened %ld times\n",
	       n, efault, atomic_load(&seen), atomic_load(&held));
	return efault != rounds || atomic_load(&seen) ||
	       !stat("/sys/block/awblk0", &sb);
}
