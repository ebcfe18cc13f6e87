// SPDX-License-Identifier: GPL-2.0
/*
 * awlowerrace FILE LOWER_FILE ROUNDS: the lower file system's page cache
 * must never keep a unit's data from before its atomic write. FILE is on
 * an awfs mount with unit=8k and untorn, LOWER_FILE the same file seen in
 * the lower file system (XFS, which caches files in folios larger than a
 * page). One thread rewrites the second unit whole ROUNDS times, syncs it,
 * drops it from awfs's cache and reads it back: awfs reads it from the
 * lower page cache, and it must be the version just written. Another
 * thread keeps the first unit's first page changing with plain writes
 * through awfs, written back through the lower file, after dropping it
 * from awfs's cache (and now and then the first unit from the lower
 * cache), as reclaim may at any moment: its reads fill the lower cache
 * around the unit beside it, its writes dirty it. At the end the unit is
 * read from the lower file with O_DIRECT (after the lower cache is written
 * back): it must be the last version too. Exit 0 when every read found
 * the version written, 1 when one did not, 2 on an error or when too
 * little happened to test anything.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pagever.h"

#define UNIT	8192
#define PAGES	(UNIT / PG)

static int fd, lfd;
static long rounds;
static atomic_int done;
static atomic_long neighbour, stale, cached;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* 1 when every page of @buf holds version @want; else say what it holds. */
static int check(const char *where, const unsigned char *buf, int64_t want)
{
	int p;

	for (p = 0; p < PAGES; p++)
		if (pv_version(buf + p * PG) != want)
			break;
	if (p == PAGES)
		return 1;
	if (atomic_fetch_add(&stale, 1) < 3)
		printf("%s: want version %lld, pages hold %lld %lld\n", where,
		       (long long)want, (long long)pv_version(buf),
		       (long long)pv_version(buf + PG));
	return 0;
}

/* Is a page of the unit still in awfs's cache? */
static int unit_cached(void *map)
{
	unsigned char vec[PAGES];
	int p;

	if (mincore(map, UNIT, vec))
		die("awlowerrace: mincore");
	for (p = 0; p < PAGES; p++)
		if (vec[p] & 1)
			return 1;
	return 0;
}

static void *unit_writer(void *arg)
{
	static unsigned char buf[UNIT] __attribute__((aligned(PG)));
	void *map;
	long r;

	(void)arg;
	map = mmap(NULL, UNIT, PROT_READ, MAP_SHARED, fd, UNIT);
	if (map == MAP_FAILED)
		die("awlowerrace: mmap");
	for (r = 1; r <= rounds; r++) {
		pv_fill(buf, UNIT, (uint64_t)r);
		if (pwrite(fd, buf, UNIT, UNIT) != UNIT)
			die("awlowerrace: pwrite unit");
		if (fdatasync(fd))
			die("awlowerrace: fdatasync");
		if (posix_fadvise(fd, UNIT, UNIT, POSIX_FADV_DONTNEED))
			die("awlowerrace: fadvise");
		/* Best effort: count the reads that did not go below. */
		atomic_fetch_add(&cached, unit_cached(map));
		if (pread(fd, buf, UNIT, UNIT) != UNIT)
			die("awlowerrace: pread unit");
		check("unit read back through awfs", buf, r);
		/* Clean below too now: reclaim may drop it there. */
		if (posix_fadvise(lfd, UNIT, UNIT, POSIX_FADV_DONTNEED))
			die("awlowerrace: fadvise");
	}
	munmap(map, UNIT);
	atomic_store(&done, 1);
	return NULL;
}

static void *neighbour_writer(void *arg)
{
	static unsigned char pg[PG] __attribute__((aligned(PG)));

	(void)arg;
	while (!atomic_load(&done)) {
		/*
		 * Reclaim may drop clean pages at any time: awfs's, so that
		 * the page is read from below, and now and then the lower
		 * file's pages of the first unit (a folio reaching past it
		 * stays), so that the lower file system reads them again.
		 */
		if (posix_fadvise(fd, 0, PG, POSIX_FADV_DONTNEED) ||
		    (!(atomic_load(&neighbour) % 8) &&
		     posix_fadvise(lfd, 0, UNIT, POSIX_FADV_DONTNEED)))
			die("awlowerrace: fadvise");
		if (pread(fd, pg, PG, 0) != PG)
			die("awlowerrace: pread neighbour");
		pv_fill(pg, PG, 1000000 + atomic_fetch_add(&neighbour, 1));
		if (pwrite(fd, pg, PG, 0) != PG)
			die("awlowerrace: pwrite neighbour");
		if (sync_file_range(fd, 0, PG, SYNC_FILE_RANGE_WAIT_BEFORE |
				    SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER))
			die("awlowerrace: sync_file_range");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static unsigned char buf[2 * UNIT] __attribute__((aligned(PG)));
	pthread_t t[2];
	int dfd;

	if (argc != 4) {
		fprintf(stderr, "usage: awlowerrace FILE LOWER_FILE ROUNDS\n");
		return 2;
	}
	rounds = atol(argv[3]);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("awlowerrace: open");
	pv_fill(buf, sizeof(buf), 0);
	if (pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf) || fsync(fd))
		die("awlowerrace: first write");
	lfd = open(argv[2], O_RDONLY);
	if (lfd < 0)
		die("awlowerrace: open the lower file");
	if (pthread_create(&t[0], NULL, neighbour_writer, NULL) ||
	    pthread_create(&t[1], NULL, unit_writer, NULL)) {
		fprintf(stderr, "awlowerrace: pthread_create failed\n");
		return 2;
	}
	pthread_join(t[1], NULL);
	pthread_join(t[0], NULL);
	/* What the disk holds, once the lower cache is written back. */
	dfd = open(argv[2], O_RDONLY | O_DIRECT);
	if (dfd < 0 || fsync(fd) || syncfs(lfd))
		die("awlowerrace: sync");
	if (pread(dfd, buf, UNIT, UNIT) != UNIT)
		die("awlowerrace: pread the lower file");
	check("unit in the lower file (O_DIRECT)", buf, rounds);
	printf("%ld unit rounds (%ld read from awfs's cache), %ld neighbour writes, %ld stale reads\n",
	       rounds, atomic_load(&cached), atomic_load(&neighbour),
	       atomic_load(&stale));
	if (atomic_load(&stale))
		return 1;
	if (atomic_load(&neighbour) < rounds ||
	    atomic_load(&cached) > rounds / 2) {
		printf("too few neighbour writes or reads from below: nothing was tested\n");
		return 2;
	}
	return 0;
}
