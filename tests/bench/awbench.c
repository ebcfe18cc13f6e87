// SPDX-License-Identifier: GPL-2.0
/*
 * awbench: N writer threads doing BS-byte writes at random aligned offsets
 * of DEV for SECONDS; prints IOPS and p50/p99 latency in microseconds.
 *
 *   awbench DEV MODE BS THREADS SECONDS
 *	atomic:       aw_pwrite_atomic() from libaw (RWF_ATOMIC or the awblk ioctl)
 *	atomic-dsync: the same with AW_WRITE_DSYNC: durable on return (FUA)
 *	rwf:          pwritev2() with RWF_ATOMIC and O_DIRECT (Linux 6.11+)
 *	plain:        pwrite() with O_DIRECT
 *	plain-dsync:  pwritev2() with O_DIRECT and RWF_DSYNC: durable on return
 *	doublewrite:  what InnoDB does to survive torn pages, durable on return:
 *	              the page to a doublewrite slot of the thread's own (in the
 *	              last THREADS * BS bytes of DEV), fdatasync, the page in
 *	              place, fdatasync
 *	buffered-sync: a file system's buffered writes (DEV a preallocated
 *	              regular file, no O_DIRECT): each writer writes 4 pages and
 *	              fdatasyncs; IOPS counts pages, the latencies are those of
 *	              the fdatasyncs
 *
 * Besides IOPS and latency it prints cpu_us: the whole machine's busy CPU
 * time (/proc/stat) during the run divided by the writes completed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <linux/fs.h>

#include "libaw.h"

#define MAX_LAT	(1 << 20)
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))
#ifndef RWF_ATOMIC
#define RWF_ATOMIC	0x00000040
#endif

enum mode { PLAIN, PLAIN_DSYNC, ATOMIC, ATOMIC_DSYNC, RWF, DOUBLEWRITE,
	    BUFFERED_SYNC };

static const char *const mode_names[] = {
	[PLAIN] = "plain", [PLAIN_DSYNC] = "plain-dsync", [ATOMIC] = "atomic", [ATOMIC_DSYNC] = "atomic-dsync",
	[RWF] = "rwf", [DOUBLEWRITE] = "doublewrite",
	[BUFFERED_SYNC] = "buffered-sync",
};

#define SYNC_EVERY	4	/* buffered-sync: pages per fdatasync */

struct worker {
	pthread_t t;
	int fd;
	enum mode mode;
	size_t bs;
	uint64_t units;		/* in-place units: the doublewrite area excluded */
	off_t slot;		/* this thread's doublewrite slot */
	unsigned int seed;
	double end;
	long n;			/* writes */
	long nlat;
	float *lat;		/* microseconds, up to MAX_LAT samples */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static ssize_t doublewrite(struct worker *w, void *buf, off_t off)
{
	if (pwrite(w->fd, buf, w->bs, w->slot) != (ssize_t)w->bs ||
	    fdatasync(w->fd))
		return -1;
	if (pwrite(w->fd, buf, w->bs, off) != (ssize_t)w->bs)
		return -1;
	return fdatasync(w->fd) ? -1 : (ssize_t)w->bs;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	void *buf;

	if (posix_memalign(&buf, 4096, w->bs))
		return NULL;
	memset(buf, w->seed & 0xff, w->bs);
	while (now() < w->end) {
		off_t off = (off_t)(rand_r(&w->seed) % w->units) * w->bs;
		struct iovec iov = { buf, w->bs };
		double t0 = now();
		ssize_t r;

		if (w->mode == BUFFERED_SYNC) {
			r = pwrite(w->fd, buf, w->bs, off);
			if (r == (ssize_t)w->bs && ++w->n % SYNC_EVERY)
				continue;
			t0 = now();
			if (r == (ssize_t)w->bs && fdatasync(w->fd))
				r = -1;
			w->n--;
		} else if (w->mode == ATOMIC)
			r = aw_pwrite_atomic(w->fd, buf, w->bs, off, 0);
		else if (w->mode == ATOMIC_DSYNC)
			r = aw_pwrite_atomic(w->fd, buf, w->bs, off,
					     AW_WRITE_DSYNC);
		else if (w->mode == DOUBLEWRITE)
			r = doublewrite(w, buf, off);
		else if (w->mode == RWF)
			r = pwritev2(w->fd, &iov, 1, off, RWF_ATOMIC);
		else if (w->mode == PLAIN_DSYNC)
			r = pwritev2(w->fd, &iov, 1, off, RWF_DSYNC);
		else
			r = pwrite(w->fd, buf, w->bs, off);

		if (r != (ssize_t)w->bs) {
			perror("awbench: write");
			exit(2);
		}
		if (w->nlat < MAX_LAT)
			w->lat[w->nlat++] = (now() - t0) * 1e6;
		w->n++;
	}
	free(buf);
	return NULL;
}

/* A block device's size, or a regular file's. */
static int dev_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if (S_ISREG(st.st_mode)) {
		*size = st.st_size;
		return 0;
	}
	return ioctl(fd, BLKGETSIZE64, size);
}

/* Busy CPU time of the whole machine so far, in clock ticks. */
static double busy_ticks(void)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
		   &sys, &idle, &iowait, &irq, &softirq);
	fclose(f);
	return n == 7 ? user + nice + sys + irq + softirq : 0;
}

static int cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int threads, secs, i, fd;
	enum mode mode;
	size_t m;
	struct worker *w;
	uint64_t size;
	long total = 0, k = 0;
	float *all;
	size_t bs;
	double t0, t1, busy;

	if (argc != 6) {
		fprintf(stderr, "usage: awbench DEV atomic|atomic-dsync|rwf|plain|plain-dsync|doublewrite|buffered-sync BS THREADS SECONDS\n");
		return 1;
	}
	for (m = 0; m < ARRAY_LEN(mode_names); m++)
		if (!strcmp(argv[2], mode_names[m]))
			break;
	mode = m;
	if (m == ARRAY_LEN(mode_names)) {
		fprintf(stderr, "awbench: unknown mode %s\n", argv[2]);
		return 1;
	}
	bs = strtoul(argv[3], NULL, 0);
	threads = atoi(argv[4]);
	secs = atoi(argv[5]);
	fd = open(argv[1], O_RDWR | (mode == BUFFERED_SYNC ? 0 : O_DIRECT));
	if (fd < 0 || dev_size(fd, &size) || !bs || threads < 1) {
		perror(argv[1]);
		return 1;
	}
	if (size / bs <= (uint64_t)threads) {
		fprintf(stderr, "awbench: %s is too small\n", argv[1]);
		return 1;
	}
	w = calloc(threads, sizeof(*w));
	busy = busy_ticks();
	t0 = now();
	for (i = 0; i < threads; i++) {
		w[i].fd = fd;
		w[i].mode = mode;
		w[i].bs = bs;
		w[i].units = size / bs - (mode == DOUBLEWRITE ? threads : 0);
		w[i].slot = (off_t)(size / bs - threads + i) * bs;
		w[i].seed = i + 1;
		w[i].end = t0 + secs;
		w[i].lat = malloc(sizeof(float) * MAX_LAT);
		pthread_create(&w[i].t, NULL, run, &w[i]);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].t, NULL);
		total += w[i].n;
	}
	t1 = now();
	busy = busy_ticks() - busy;
	all = malloc(sizeof(float) * (total ? total : 1));
	for (i = 0; i < threads; i++) {
		long n = w[i].nlat;

		memcpy(all + k, w[i].lat, n * sizeof(float));
		k += n;
	}
	qsort(all, k, sizeof(float), cmp);
	printf("iops %.0f p50_us %.0f p99_us %.0f cpu_us %.1f\n",
	       total / (t1 - t0), k ? all[k / 2] : 0, k ? all[k * 99 / 100] : 0,
	       total ? busy * 1e6 / sysconf(_SC_CLK_TCK) / total : 0);
	return 0;
}
