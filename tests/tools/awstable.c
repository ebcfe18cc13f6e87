// SPDX-License-Identifier: GPL-2.0
/*
 * awstable FILE LOWER_FILE DEVICE ROUNDS: pages must hold still while a
 * unit is written atomically. FILE is on an awfs mount (unit=16k,untorn),
 * LOWER_FILE the same file seen in the lower file system (for its place on
 * DEVICE, the awblk device under it). One thread rewrites the file's first
 * unit ROUNDS times, each time whole with a new version in every page;
 * another keeps starting its writeback; a third reads the unit straight
 * from DEVICE and checks that all its pages carry one version, which is
 * what a power cut at that moment would leave. Exit 0 when no read saw two
 * versions in one unit, 1 when one did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pagever.h"

#define UNIT	16384
#define PAGES	(UNIT / PG)

static int fd, dfd;
static off_t phys;
static long rounds;
static atomic_int done;
static atomic_long reads, torn, seen;

static void *writer(void *arg)
{
	static unsigned char buf[UNIT] __attribute__((aligned(PG)));
	long r;

	(void)arg;
	for (r = 1; r <= rounds; r++) {
		pv_fill(buf, UNIT, (uint64_t)r);
		if (pwrite(fd, buf, UNIT, 0) != UNIT) {
			perror("awstable: pwrite");
			exit(2);
		}
	}
	atomic_store(&done, 1);
	return NULL;
}

static void *flusher(void *arg)
{
	(void)arg;
	while (!atomic_load(&done))
		if (sync_file_range(fd, 0, UNIT, SYNC_FILE_RANGE_WRITE)) {
			perror("awstable: sync_file_range");
			exit(2);
		}
	return NULL;
}

static void *reader(void *arg)
{
	unsigned char *buf;
	int64_t v[PAGES], last = -2;
	int p;

	(void)arg;
	if (posix_memalign((void **)&buf, PG, UNIT))
		exit(2);
	while (!atomic_load(&done)) {
		if (pread(dfd, buf, UNIT, phys) != UNIT) {
			perror("awstable: pread");
			exit(2);
		}
		atomic_fetch_add(&reads, 1);
		for (p = 0; p < PAGES; p++)
			v[p] = pv_version(buf + p * PG);
		for (p = 1; p < PAGES; p++)
			if (v[p] != v[0] || v[p] < 0)
				break;
		if (p < PAGES || v[0] < 0) {
			if (atomic_fetch_add(&torn, 1) < 3)
				printf("torn unit on the disk: page versions %lld %lld %lld %lld\n",
				       (long long)v[0], (long long)v[1],
				       (long long)v[2], (long long)v[3]);
		} else if (v[0] != last) {
			atomic_fetch_add(&seen, 1);
			last = v[0];
		}
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	static unsigned char buf[UNIT] __attribute__((aligned(PG)));
	pthread_t t[3];
	struct stat st;
	int lfd, blk = 0, i;

	if (argc != 5) {
		fprintf(stderr, "usage: awstable FILE LOWER_FILE DEVICE ROUNDS\n");
		return 2;
	}
	rounds = atol(argv[4]);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	dfd = open(argv[3], O_RDONLY | O_DIRECT);
	if (fd < 0 || dfd < 0) {
		perror("awstable: open");
		return 2;
	}
	pv_fill(buf, UNIT, 0);
	if (pwrite(fd, buf, UNIT, 0) != UNIT || fsync(fd)) {
		perror("awstable: first write");
		return 2;
	}
	lfd = open(argv[2], O_RDONLY);
	if (lfd < 0 || fstat(lfd, &st) || ioctl(lfd, FIBMAP, &blk) || !blk) {
		perror("awstable: FIBMAP on the lower file");
		return 2;
	}
	phys = (off_t)blk * st.st_blksize;
	close(lfd);
	pthread_create(&t[0], NULL, reader, NULL);
	pthread_create(&t[1], NULL, flusher, NULL);
	pthread_create(&t[2], NULL, writer, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%ld rounds, %ld reads of the disk, %ld versions seen whole, %ld torn\n",
	       rounds, atomic_load(&reads), atomic_load(&seen),
	       atomic_load(&torn));
	if (atomic_load(&seen) < 2) {
		printf("the disk never changed: nothing was tested\n");
		return 2;
	}
	return atomic_load(&torn) ? 1 : 0;
}
