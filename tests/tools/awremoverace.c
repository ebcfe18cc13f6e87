// SPDX-License-Identifier: GPL-2.0
/*
 * awremoverace LOWER ROUNDS: remove racing open. One thread creates an
 * awblk device over LOWER and removes it again, ROUNDS times; three threads
 * meanwhile open the newest /dev/awblkN, ask for its limits, read, write and
 * make an atomic write through the open descriptor, and close it. A remove
 * must either fail with EBUSY (someone has it open) or leave no descriptor
 * that still reaches the device: an open that lands after the remove
 * decided gets ENXIO (or ENOENT once the node is gone), never a device
 * that is deleted or freed under it, so every call on an open descriptor
 * must work. Exit 0 when every call answered as it may.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "uapi/awkit.h"

#define RACERS 3

static atomic_int cur = -1;	/* index of the device being raced, or -1 */
static atomic_int done;
static atomic_long opens, refused, used, bad;

static void complain(const char *what, int err)
{
	fprintf(stderr, "awremoverace: %s: %s\n", what, strerror(err));
	atomic_fetch_add(&bad, 1);
}

/* What an open of a device being removed, or gone, may answer. */
static int gone(int err)
{
	return err == ENXIO || err == ENODEV || err == ENOENT;
}

static void use(int fd)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct aw_atomic_write w = { .offset = 0, .len = sizeof(buf) };
	struct aw_limits l;

	w.buf = (unsigned long)buf;
	/* Open, the device cannot go: every call must work. */
	if (ioctl(fd, AW_IOC_GET_LIMITS, &l))
		complain("AW_IOC_GET_LIMITS", errno);
	if (pread(fd, buf, sizeof(buf), 0) != sizeof(buf))
		complain("pread", errno);
	if (pwrite(fd, buf, sizeof(buf), 4096) != sizeof(buf))
		complain("pwrite", errno);
	if (ioctl(fd, AW_IOC_ATOMIC_WRITE, &w))
		complain("AW_IOC_ATOMIC_WRITE", errno);
	atomic_fetch_add(&used, 1);
}

static void *racer(void *arg)
{
	char path[64];
	int i, fd;

	(void)arg;
	while (!atomic_load(&done)) {
		i = atomic_load(&cur);
		if (i < 0) {
			sched_yield();
			continue;
		}
		snprintf(path, sizeof(path), "/dev/awblk%d", i);
		fd = open(path, O_RDWR | O_DIRECT);
		if (fd < 0) {
			if (!gone(errno))
				complain("open", errno);
			atomic_fetch_add(&refused, 1);
			continue;
		}
		atomic_fetch_add(&opens, 1);
		use(fd);
		close(fd);
	}
	return NULL;
}

static int ctl_create(int ctl, dev_t lower)
{
	struct aw_create c;

	memset(&c, 0, sizeof(c));
	c.lower_major = major(lower);
	c.lower_minor = minor(lower);
	c.engine = AW_ENGINE_AUTO;
	if (ioctl(ctl, AW_IOC_CREATE, &c))
		return -1;
	return c.index;
}

/* Remove @index, waiting out openers; only EBUSY may hold it up. */
static int ctl_remove(int ctl, int index)
{
	struct aw_remove r;

	memset(&r, 0, sizeof(r));
	r.index = index;
	for (;;) {
		if (!ioctl(ctl, AW_IOC_REMOVE, &r))
			return 0;
		if (errno != EBUSY) {
			complain("AW_IOC_REMOVE", errno);
			return -1;
		}
		atomic_store(&cur, -1);
		sched_yield();
	}
}

int main(int argc, char **argv)
{
	pthread_t t[RACERS];
	long rounds, n, removed = 0;
	struct stat st;
	int ctl, i, idx;

	if (argc != 3 || stat(argv[1], &st) || !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "usage: awremoverace LOWER_BLOCK_DEVICE ROUNDS\n");
		return 2;
	}
	rounds = atol(argv[2]);
	ctl = open("/dev/" AW_CONTROL_NAME, O_RDWR);
	if (ctl < 0) {
		perror("awremoverace: /dev/" AW_CONTROL_NAME);
		return 1;
	}
	for (i = 0; i < RACERS; i++)
		pthread_create(&t[i], NULL, racer, NULL);
	for (n = 0; n < rounds && !atomic_load(&bad); n++) {
		idx = ctl_create(ctl, st.st_rdev);
		if (idx < 0) {
			complain("AW_IOC_CREATE", errno);
			break;
		}
		atomic_store(&cur, idx);
		if (n & 1)
			sched_yield();
		if (ctl_remove(ctl, idx))
			break;
		atomic_store(&cur, -1);
		removed++;
	}
	atomic_store(&done, 1);
	for (i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	printf("%ld rounds, %ld removed, %ld opens, %ld used, %ld refused\n",
	       n, removed, atomic_load(&opens), atomic_load(&used),
	       atomic_load(&refused));
	return atomic_load(&bad) || n < rounds;
}
