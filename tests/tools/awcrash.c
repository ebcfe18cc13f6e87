// SPDX-License-Identifier: GPL-2.0
/*
 * awcrash: torn-write writer and checker for block devices (awblk).
 *
 *   awcrash crash DEV UNIT UNITS CUTS MODE CTLDIR SEED [WRITE]
 *	MODE atomic:   each write is one unit through AW_IOC_ATOMIC_WRITE
 *	                (some with AW_WRITE_DSYNC)
 *	MODE normal:   each write is one unit, pwrite with O_DIRECT
 *	MODE direct:   each write is WRITE bytes (several units), O_DIRECT
 *	MODE buffered: each write is WRITE bytes, buffered, then fdatasync
 *	awscsi's cut_after (CTLDIR) cuts the power at random; after each cut
 *	the power is restored and every UNIT-byte unit is checked: torn (its
 *	512-byte blocks disagree) or missing a write that was made durable.
 *
 *   awcrash race DEV UNIT SECONDS atomic|normal
 *	one thread rewrites unit 0, another reads it back with O_DIRECT;
 *	prints how many reads saw a mix of versions.
 *
 *   awcrash fiocheck DEV UNIT BYTES
 *	checks the first BYTES of DEV written by fio with verify=crc32c and
 *	verify_interval=UNIT: every UNIT must be untouched (zero) or carry
 *	valid fio header and data checksums; prints the counts.
 *
 * Prints one summary line; exit status 0 when the run completed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

#include "stamp.h"
#include "../../include/uapi/awkit.h"

#define SB 512			/* stamp granularity */

enum mode { M_ATOMIC, M_NORMAL, M_DIRECT, M_BUFFERED };

struct run {
	const char *dev;
	enum mode mode;
	unsigned int unit, units, wsize;
	uint32_t *cur, *durable, *acked;
	unsigned char *buf;
	long torn, lost, writes;
};

static void *xalloc(size_t n)
{
	void *p;

	if (posix_memalign(&p, 4096, n)) {
		perror("posix_memalign");
		exit(2);
	}
	return p;
}

static void stamp_unit(unsigned char *b, unsigned int unit, uint32_t u,
		       uint32_t v)
{
	unsigned int i;

	for (i = 0; i < unit / SB; i++)
		stamp(b + i * SB, SB, u, v, i);
}

static int atomic_write(int fd, const void *buf, uint64_t len, uint64_t off,
			unsigned int flags)
{
	struct aw_atomic_write w;

	memset(&w, 0, sizeof(w));
	w.offset = off;
	w.buf = (uintptr_t)buf;
	w.len = len;
	w.flags = flags;
	return ioctl(fd, AW_IOC_ATOMIC_WRITE, &w);
}

static int open_dev(struct run *r)
{
	int flags = O_RDWR | (r->mode == M_BUFFERED ? 0 : O_DIRECT);
	int fd = open(r->dev, flags);

	if (fd < 0) {
		perror(r->dev);
		exit(2);
	}
	return fd;
}

/* Write until the power goes (an I/O fails). */
static void writes(struct run *r, int fd)
{
	unsigned int per = r->mode >= M_DIRECT ? r->wsize / r->unit : 1;

	for (;;) {
		uint32_t first = (rand() % (r->units / per)) * per, u;
		int dsync = rand() % 8 == 0, ret;

		for (u = first; u < first + per; u++)
			stamp_unit(r->buf + (u - first) * r->unit, r->unit, u,
				   ++r->cur[u]);
		if (r->mode == M_ATOMIC)
			ret = atomic_write(fd, r->buf, r->unit,
					   (uint64_t)first * r->unit,
					   dsync ? AW_WRITE_DSYNC : 0);
		else
			ret = pwrite(fd, r->buf, per * r->unit,
				     (off_t)first * r->unit) ==
				(ssize_t)(per * r->unit) ? 0 : -1;
		if (!ret && r->mode == M_BUFFERED)
			ret = fdatasync(fd);
		if (ret)
			return;
		r->writes++;
		for (u = first; u < first + per; u++) {
			r->acked[u] = r->cur[u];
			if (dsync && r->mode == M_ATOMIC)
				r->durable[u] = r->cur[u];
			if (r->mode == M_BUFFERED)
				r->durable[u] = r->cur[u];
		}
		if (rand() % 16 == 0) {
			if (fdatasync(fd))
				return;
			for (u = 0; u < r->units; u++)
				r->durable[u] = r->acked[u];
		}
	}
}

static int64_t unit_version(const unsigned char *b, unsigned int unit,
			    uint32_t u)
{
	int64_t v0 = -2, v;
	unsigned int i;

	for (i = 0; i < unit / SB; i++) {
		v = block_version(b + i * SB, SB, u, i);
		if (v < 0 || (v0 != -2 && v != v0))
			return -1;
		v0 = v;
	}
	return v0;
}

static void check(struct run *r)
{
	int fd = open(r->dev, O_RDWR | O_DIRECT);
	unsigned int u;

	if (fd < 0) {
		perror(r->dev);
		exit(2);
	}
	for (u = 0; u < r->units; u++) {
		int64_t v;

		if (pread(fd, r->buf, r->unit, (off_t)u * r->unit) !=
		    (ssize_t)r->unit) {
			perror("read after restore");
			exit(2);
		}
		v = unit_version(r->buf, r->unit, u);
		if (v < 0) {
			r->torn++;
			/* Make the unit whole again for the next rounds. */
			stamp_unit(r->buf, r->unit, u, ++r->cur[u]);
			if (pwrite(fd, r->buf, r->unit, (off_t)u * r->unit) !=
			    (ssize_t)r->unit || fdatasync(fd)) {
				perror("rewrite");
				exit(2);
			}
			r->durable[u] = r->acked[u] = r->cur[u];
			continue;
		}
		if (v < r->durable[u] || v > r->cur[u]) {
			r->lost++;
			fprintf(stderr, "unit %u: version %lld, durable %u, newest %u\n",
				u, (long long)v, r->durable[u], r->cur[u]);
		}
		r->durable[u] = r->acked[u] = (uint32_t)v;
	}
	close(fd);
}

static void init_units(struct run *r)
{
	int fd = open(r->dev, O_RDWR | O_DIRECT);
	unsigned int u;

	for (u = 0; fd >= 0 && u < r->units; u++) {
		stamp_unit(r->buf, r->unit, u, 1);
		if (pwrite(fd, r->buf, r->unit, (off_t)u * r->unit) !=
		    (ssize_t)r->unit)
			break;
		r->cur[u] = r->durable[u] = r->acked[u] = 1;
	}
	if (fd < 0 || u < r->units || fsync(fd)) {
		perror("initial write");
		exit(2);
	}
	close(fd);
}

static const char *const mode_names[] = { "atomic", "normal", "direct",
					  "buffered" };

static int crash(int argc, char **argv)
{
	struct run r = { 0 };
	const char *ctl;
	char num[32];
	int cuts, n, fd;

	if (argc < 9)
		return 1;
	r.dev = argv[2];
	r.unit = atoi(argv[3]);
	r.units = atoi(argv[4]);
	cuts = atoi(argv[5]);
	for (n = 0; n < 4; n++)
		if (!strcmp(argv[6], mode_names[n]))
			r.mode = n;
	ctl = argv[7];
	srand(atoi(argv[8]));
	r.wsize = argc > 9 ? (unsigned int)atoi(argv[9]) : r.unit;
	if (!r.unit || r.unit % SB || !r.wsize || r.wsize % r.unit ||
	    r.units < r.wsize / r.unit)
		return 1;
	r.buf = xalloc(r.wsize);
	r.cur = calloc(r.units, 4);
	r.durable = calloc(r.units, 4);
	r.acked = calloc(r.units, 4);
	init_units(&r);
	for (n = 0; n < cuts; n++) {
		fd = open_dev(&r);
		snprintf(num, sizeof(num), "%d", rand() % 24);
		ctl_write(ctl, "cut_after", num);
		writes(&r, fd);
		close(fd);
		ctl_write(ctl, "powered", "1");
		/* Drop what the page cache kept of writes that failed. */
		fd = open(r.dev, O_RDONLY);
		if (fd >= 0) {
			ioctl(fd, BLKFLSBUF, 0);
			close(fd);
		}
		check(&r);
	}
	printf("crash mode=%s unit=%u write=%u cuts=%d writes=%ld torn=%ld lost=%ld seed=%s\n",
	       argv[6], r.unit, r.wsize, cuts, r.writes, r.torn, r.lost,
	       argv[8]);
	return 0;
}

struct race {
	const char *dev;
	unsigned int unit;
	int atomic, stop;
};

static void *race_writer(void *arg)
{
	struct race *r = arg;
	unsigned char *buf = xalloc(r->unit);
	int fd = open(r->dev, O_RDWR | O_DIRECT), ret;
	uint32_t v = 1;

	while (fd >= 0 && !__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		stamp_unit(buf, r->unit, 0, ++v);
		if (r->atomic)
			ret = atomic_write(fd, buf, r->unit, 0, 0);
		else
			ret = pwrite(fd, buf, r->unit, 0) == r->unit ? 0 : -1;
		if (ret) {
			perror("race write");
			exit(2);
		}
	}
	free(buf);
	return NULL;
}

static int race(int argc, char **argv)
{
	struct race r = { 0 };
	long reads = 0, mixed = 0;
	unsigned char *buf;
	pthread_t t;
	time_t end;
	int fd;

	if (argc != 6)
		return 1;
	r.dev = argv[2];
	r.unit = atoi(argv[3]);
	end = time(NULL) + atoi(argv[4]);
	r.atomic = !strcmp(argv[5], "atomic");
	buf = xalloc(r.unit);
	fd = open(r.dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || !r.unit || r.unit % SB) {
		perror(r.dev);
		return 2;
	}
	pthread_create(&t, NULL, race_writer, &r);
	while (time(NULL) < end && (r.atomic || mixed < 5)) {
		if (pread(fd, buf, r.unit, 0) != (ssize_t)r.unit) {
			perror("race read");
			return 2;
		}
		reads++;
		if (unit_version(buf, r.unit, 0) < 0)
			mixed++;
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	printf("race mode=%s unit=%u reads=%ld mixed=%ld\n", argv[5], r.unit,
	       reads, mixed);
	return 0;
}

/* crc32c (Castagnoli) as fio's verify=crc32c computes it: no final inversion. */
static uint32_t fio_crc32c(const unsigned char *p, size_t n)
{
	static uint32_t table[256];
	uint32_t c = 0xffffffff;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = (c >> 1) ^ (0x82f63b78 & -(c & 1));
			table[i] = c;
		}
		c = 0xffffffff;
	}
	while (n--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

/*
 * fio's verify=crc32c with verify_interval=UNIT starts every UNIT with a
 * 40-byte header (magic 0xacca, its length, ..., a crc32c of the header)
 * and a crc32c of the rest of the UNIT: a UNIT made of two writes fails it.
 */
static int fio_unit_ok(const unsigned char *b, unsigned int unit)
{
	uint32_t len, hcrc, dcrc;
	uint16_t magic;

	memcpy(&magic, b, 2);
	memcpy(&len, b + 4, 4);
	memcpy(&hcrc, b + 36, 4);
	memcpy(&dcrc, b + 40, 4);
	return magic == 0xacca && len == unit && hcrc == fio_crc32c(b, 36) &&
	       dcrc == fio_crc32c(b + 44, unit - 44);
}

static int fiocheck(int argc, char **argv)
{
	unsigned int unit, u, n;
	long written = 0, zero = 0, torn = 0;
	unsigned char *buf;
	int fd;

	if (argc != 5)
		return 1;
	unit = atoi(argv[3]);
	n = strtoull(argv[4], NULL, 0) / unit;
	buf = xalloc(unit);
	fd = open(argv[2], O_RDONLY | O_DIRECT);
	if (fd < 0 || unit < 64) {
		perror(argv[2]);
		return 2;
	}
	for (u = 0; u < n; u++) {
		unsigned int i, nz = 0;

		if (pread(fd, buf, unit, (off_t)u * unit) != (ssize_t)unit) {
			perror("fiocheck read");
			return 2;
		}
		for (i = 0; i < unit && !nz; i++)
			nz = buf[i];
		if (!nz)
			zero++;
		else if (fio_unit_ok(buf, unit))
			written++;
		else
			torn++;
	}
	printf("fiocheck unit=%u units=%u written=%ld zero=%ld torn=%ld\n", unit,
	       n, written, zero, torn);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 1;

	if (argc > 1 && !strcmp(argv[1], "crash"))
		ret = crash(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "race"))
		ret = race(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "fiocheck"))
		ret = fiocheck(argc, argv);
	if (ret == 1)
		fprintf(stderr, "usage: awcrash crash DEV UNIT UNITS CUTS atomic|normal|direct|buffered CTLDIR SEED [WRITE]\n"
			"       awcrash race DEV UNIT SECONDS atomic|normal\n"
			"       awcrash fiocheck DEV UNIT BYTES\n");
	return ret;
}
