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
 *   awcrash sizes DEV CTLDIR CUTS SEED journal|atomic|plain|mixed [OPTIONS]
 *	several writers (--threads, 4) write units of every power of two
 *	from 4 KiB to the device's atomic unit_max, naturally aligned, each
 *	512-byte block stamped with (its block, write id, index in write):
 *	journal: atomic writes acknowledged durable (awblk's sw engine);
 *	atomic: atomic writes durable after DSYNC or fdatasync only;
 *	plain: pwrite O_DIRECT (some RWF_DSYNC), durable the same way;
 *	mixed: half journal, half plain writes (plain ones tear: only lost
 *	counts).
 *	The device is cut in regions (1 MiB); in one power cycle each region
 *	is written with one size only, which rotates from cut to cut, so every
 *	unit (one write's region) must be found whole: unchanged since the
 *	last check or one write of this cycle, and not older than the newest
 *	durable write. After each cut the power is restored and --reattach
 *	CMD (if given) runs with $AWCRASH_DEV set to the device; it prints
 *	the device to check and use from then on, or "refused" to end the
 *	run there (the attach was refused cleanly).
 *	--cut-max N     cut_after is random in [0, N) (default 48)
 *	--sync-cut N    no cut_after: N writes, fdatasync, the power cut, and
 *	                one more write (it fails)
 *	--bytes N       use only the first N bytes of the device
 *	--max BYTES     largest write (default: the atomic unit_max, or 64 KiB)
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
#include <getopt.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
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
		/*
		 * Drop the page cache while the power is still off, as a
		 * reboot would: nothing it kept may reach the disk after the
		 * cut (writing it back fails now).
		 */
		fd = open(r.dev, O_RDONLY);
		if (fd >= 0) {
			ioctl(fd, BLKFLSBUF, 0);
			close(fd);
		}
		ctl_write(ctl, "powered", "1");
		check(&r);
	}
	printf("crash mode=%s unit=%u write=%u cuts=%d writes=%ld torn=%ld lost=%ld seed=%s\n",
	       argv[6], r.unit, r.wsize, cuts, r.writes, r.torn, r.lost,
	       argv[8]);
	return 0;
}

/* ---- sizes: all atomic sizes, several writers, re-attach after a cut ---- */

#define REGION (1024 * 1024)	/* one size per region and power cycle */
#define HOT_UNITS 4		/* half the writes go to these: overwrites */
/* Block tags: our write ids are below FOREIGN; others' stamps above it. */
#define TAG_FOREIGN 0x80000000u
#define TAG_BAD 0xffffffffu

enum smode { S_JOURNAL, S_ATOMIC, S_PLAIN, S_MIXED };
enum wstate { W_ISSUED, W_FAILED, W_ACKED, W_DURABLE };

struct wrec {			/* one write, at index (write id - base) */
	uint32_t blk, nblk;	/* 512-byte blocks */
	uint32_t epoch;		/* the power cycle it was made in */
	uint32_t state;		/* enum wstate */
};

struct srun {
	char dev[256];
	const char *ctl, *reattach;
	enum smode mode;
	unsigned int threads, nclasses, minsz, maxsz, nregions, epoch;
	uint32_t nblk, base, nonce;
	uint32_t *pre, *cur;	/* per block: tag at the last / this check */
	uint32_t *durable;	/* per unit's first block: newest durable id */
	struct wrec *log;
	uint64_t cap, next, limit, epoch_start;
	unsigned int seed;
	unsigned char *rbuf;
	long torn, lost, writes, acked, inflight, landed, refused, shown;
};

struct sthread {
	struct srun *r;
	unsigned int id, rnd, npending;
	int err;
	uint64_t *pending;	/* acknowledged, not yet durable */
	unsigned char *buf;
	pthread_t t;
};

static unsigned int class_size(const struct srun *r, unsigned int region)
{
	return r->minsz << ((region + r->epoch) % r->nclasses);
}

static int sized_write(int atomic, int fd, const void *buf, unsigned int len,
		       uint64_t off, int dsync)
{
	struct iovec iov = { (void *)buf, len };
	ssize_t n;

	if (atomic)
		return atomic_write(fd, buf, len, off,
				    dsync ? AW_WRITE_DSYNC : 0) ? errno : 0;
	n = pwritev2(fd, &iov, 1, off, dsync ? RWF_DSYNC : 0);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? errno : EIO;
}

/* Write until an I/O fails (the power went) or the cycle's budget is spent. */
static void *swriter(void *arg)
{
	struct sthread *t = arg;
	struct srun *r = t->r;
	unsigned int owned = (r->nregions + r->threads - 1 - t->id) / r->threads;
	int fd = open(r->dev, O_RDWR | O_DIRECT);

	if (fd < 0) {
		t->err = errno;
		return NULL;
	}
	while (owned) {
		uint64_t i = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
		unsigned int reg, sz, units, u, b, hot;
		struct wrec *w;
		uint64_t off;
		int dsync, atomic;

		if (i >= r->limit)
			break;
		w = &r->log[i];
		reg = t->id + r->threads * (rand_r(&t->rnd) % owned);
		sz = class_size(r, reg);
		units = REGION / sz;
		hot = units < HOT_UNITS ? units : HOT_UNITS;
		u = rand_r(&t->rnd) % (rand_r(&t->rnd) & 1 ? units : hot);
		off = (uint64_t)reg * REGION + (uint64_t)u * sz;
		w->blk = off / SB;
		w->nblk = sz / SB;
		w->epoch = r->epoch;
		w->state = W_ISSUED;
		for (b = 0; b < w->nblk; b++)
			stamp(t->buf + b * SB, SB, w->blk + b, r->base + i,
			      r->nonce << 16 | b);
		dsync = rand_r(&t->rnd) % 8 == 0;
		atomic = r->mode == S_MIXED ? rand_r(&t->rnd) & 1 :
			 r->mode != S_PLAIN;
		t->err = sized_write(atomic, fd, t->buf, sz, off, dsync);
		if (t->err) {
			w->state = W_FAILED;
			break;
		}
		if (dsync || (atomic && r->mode != S_ATOMIC)) {
			w->state = W_DURABLE;
		} else {
			w->state = W_ACKED;
			t->pending[t->npending++] = i;
		}
		if (rand_r(&t->rnd) % 32 == 0) {
			if (fdatasync(fd)) {
				t->err = errno;
				break;
			}
			while (t->npending)
				r->log[t->pending[--t->npending]].state = W_DURABLE;
		}
	}
	close(fd);
	return NULL;
}

/* The tag of block @blk as read: 0 zero, a write id, foreign or bad. */
static uint32_t block_tag(const struct srun *r, const unsigned char *b,
			  uint32_t blk)
{
	uint32_t h[4], idx = 0;
	int ret = stamp_decode(b, SB, h);
	const struct wrec *w;

	if (ret <= 0)
		return ret ? TAG_BAD : 0;
	if (h[1] != blk)
		return TAG_BAD;
	if (h[3] >> 16 != r->nonce || h[2] >= TAG_FOREIGN)
		return (h[2] ^ h[3] * 2654435761u) | TAG_FOREIGN;
	idx = h[3] & 0xffff;
	if (h[2] < r->base || h[2] - r->base >= r->next)
		return TAG_BAD;
	w = &r->log[h[2] - r->base];
	if (w->blk + idx != blk || idx >= w->nblk)
		return TAG_BAD;
	return h[2];
}

static void sread(struct srun *r, uint32_t *tags)
{
	int fd = open(r->dev, O_RDONLY | O_DIRECT);
	uint32_t blk, i;

	if (fd < 0) {
		perror(r->dev);
		exit(2);
	}
	ioctl(fd, BLKFLSBUF, 0);
	for (blk = 0; blk < r->nblk; blk += REGION / SB) {
		if (pread(fd, r->rbuf, REGION, (off_t)blk * SB) != REGION) {
			perror("sizes: read");
			exit(2);
		}
		for (i = 0; i < REGION / SB; i++)
			tags[blk + i] = block_tag(r, r->rbuf + i * SB, blk + i);
	}
	close(fd);
}

static void sreport(struct srun *r, const char *what, uint32_t b, uint32_t n)
{
	uint32_t i;

	if (r->shown++ >= 20)
		return;
	fprintf(stderr, "cycle %u: %s: unit at block %u (%u blocks), newest durable %u, found",
		r->epoch, what, b, n, r->durable[b]);
	for (i = 0; i < n && i < 8; i++)
		fprintf(stderr, " %x(was %x)", r->cur[b + i], r->pre[b + i]);
	fprintf(stderr, "%s\n", n > 8 ? " ..." : "");
}

/*
 * Every unit of this cycle must be unchanged since the last check or one
 * whole write of this cycle to exactly that unit, and no older than the
 * unit's newest durable write.
 */
static void scheck(struct srun *r)
{
	uint64_t i;
	uint32_t reg, b, k;

	sread(r, r->cur);
	memset(r->durable, 0, r->nblk * sizeof(*r->durable));
	for (i = r->epoch_start; i < r->next; i++) {
		const struct wrec *w = &r->log[i];

		r->writes++;
		if (w->state >= W_ACKED)
			r->acked++;
		if (w->state == W_DURABLE)
			r->durable[w->blk] = r->base + i;
	}
	for (reg = 0; reg < r->nregions; reg++) {
		uint32_t n = class_size(r, reg) / SB;

		for (b = reg * (REGION / SB); b < (reg + 1) * (REGION / SB); b += n) {
			uint32_t t = r->cur[b];
			const struct wrec *w;

			if (!memcmp(r->cur + b, r->pre + b, n * sizeof(*r->cur))) {
				if (r->durable[b]) {
					r->lost++;
					sreport(r, "lost (unchanged)", b, n);
				}
				continue;
			}
			for (k = 1; k < n && r->cur[b + k] == t; k++)
				;
			w = t >= r->base && t < TAG_FOREIGN &&
			    t - r->base >= r->epoch_start &&
			    t - r->base < r->next ? &r->log[t - r->base] : NULL;
			if (k < n || !w || w->blk != b || w->nblk != n) {
				r->torn++;
				sreport(r, "torn", b, n);
				continue;
			}
			if (t < r->durable[b]) {
				r->lost++;
				sreport(r, "lost (older write)", b, n);
			}
			if (w->state < W_ACKED)
				r->landed++;
		}
	}
	for (i = r->epoch_start; i < r->next; i++)
		r->inflight += r->log[i].state < W_ACKED;
	memcpy(r->pre, r->cur, r->nblk * sizeof(*r->cur));
}

/* Run --reattach; returns 0, or 1 when the attach was refused. */
static int sreattach(struct srun *r)
{
	char line[256] = "";
	FILE *f;
	int st;

	setenv("AWCRASH_DEV", r->dev, 1);
	f = popen(r->reattach, "r");
	if (!f) {
		perror("popen");
		exit(2);
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	st = pclose(f);
	line[strcspn(line, "\n")] = 0;
	if (st == 0 && !strcmp(line, "refused"))
		return 1;
	if (st != 0 || line[0] != '/') {
		fprintf(stderr, "sizes: --reattach failed (status %d, said '%s')\n",
			st, line);
		exit(2);
	}
	snprintf(r->dev, sizeof(r->dev), "%s", line);
	return 0;
}

static void *grow(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("realloc");
		exit(2);
	}
	return p;
}

/* One power cycle: write, cut, restore, re-attach, check. */
static int scycle(struct srun *r, struct sthread *t, unsigned int cut_max,
		  unsigned int sync_cut)
{
	uint64_t budget = sync_cut ? sync_cut : cut_max + 64 + r->threads;
	char num[32];
	unsigned int k;
	int errs = 0, fd;

	if (r->next + budget > r->cap) {
		r->cap = (r->next + budget) * 2;
		r->log = grow(r->log, r->cap * sizeof(*r->log));
	}
	r->epoch_start = r->next;
	r->limit = r->next + budget;
	if (!sync_cut) {
		snprintf(num, sizeof(num), "%u", rand() % cut_max);
		ctl_write(r->ctl, "cut_after", num);
	}
	for (k = 0; k < r->threads; k++) {
		t[k].pending = grow(t[k].pending, budget * sizeof(uint64_t));
		t[k].npending = 0;
		t[k].err = 0;
		t[k].rnd = r->seed * 1000003u + r->epoch * 131u + k;
		pthread_create(&t[k].t, NULL, swriter, &t[k]);
	}
	for (k = 0; k < r->threads; k++) {
		pthread_join(t[k].t, NULL);
		if (t[k].err == EINVAL || t[k].err == EOPNOTSUPP ||
		    t[k].err == ENOTTY || t[k].err == EFAULT ||
		    t[k].err == ENOENT) {
			fprintf(stderr, "sizes: writer %u: %s\n", k,
				strerror(t[k].err));
			exit(2);
		}
		errs += !!t[k].err;
	}
	if (r->next > r->limit)
		r->next = r->limit;
	if (sync_cut && !errs) {
		uint64_t i;

		fd = open(r->dev, O_RDWR | O_DIRECT);
		if (fd < 0 || fdatasync(fd)) {
			perror("sizes: fdatasync before the cut");
			exit(2);
		}
		close(fd);
		for (i = r->epoch_start; i < r->next; i++)
			if (r->log[i].state == W_ACKED)
				r->log[i].state = W_DURABLE;
		/*
		 * One more write, into the cut: it fails, as writes do in a
		 * real crash, so the engine stops where it is rather than
		 * tidying up (checkpointing) when the device is removed.
		 */
		ctl_write(r->ctl, "powered", "0");
		r->limit = r->next + 1;
		swriter(&t[0]);
		if (r->next > r->limit)
			r->next = r->limit;
		errs = 1;
	}
	if (!errs)	/* the budget ran out before the cut: cut now */
		ctl_write(r->ctl, "powered", "0");
	ctl_write(r->ctl, "powered", "1");
	if (r->reattach && sreattach(r))
		return 1;
	scheck(r);
	return 0;
}

static int sizes(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "reattach", required_argument, NULL, 'r' },
		{ "cut-max", required_argument, NULL, 'c' },
		{ "sync-cut", required_argument, NULL, 's' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "max", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const names[] = { "journal", "atomic", "plain",
					     "mixed" };
	unsigned int cut_max = 48, sync_cut = 0, cuts, k, maxsz = 0;
	struct srun r = { .threads = 4, .mode = 4 };
	uint64_t bytes = 0, size;
	struct aw_limits lim;
	struct sthread *t;
	int o, fd;

	if (argc < 7)
		return 1;
	snprintf(r.dev, sizeof(r.dev), "%s", argv[2]);
	r.ctl = argv[3];
	cuts = atoi(argv[4]);
	r.seed = strtoul(argv[5], NULL, 0);
	for (k = 0; k < 4; k++)
		if (!strcmp(argv[6], names[k]))
			r.mode = k;
	optind = 7;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 't':
			r.threads = atoi(optarg);
			break;
		case 'r':
			r.reattach = optarg;
			break;
		case 'c':
			cut_max = atoi(optarg);
			break;
		case 's':
			sync_cut = atoi(optarg);
			break;
		case 'b':
			bytes = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			maxsz = atoi(optarg);
			break;
		default:
			return 1;
		}
	}
	if (r.mode > S_MIXED || optind != argc || !r.threads ||
	    r.threads > 64 || !cut_max)
		return 1;
	fd = open(r.dev, O_RDONLY);
	memset(&lim, 0, sizeof(lim));
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size)) {
		perror(r.dev);
		return 2;
	}
	if (ioctl(fd, AW_IOC_GET_LIMITS, &lim) && r.mode != S_PLAIN) {
		perror("AW_IOC_GET_LIMITS");
		return 2;
	}
	close(fd);
	r.minsz = lim.unit_min > 4096 ? lim.unit_min : 4096;
	r.maxsz = maxsz ? maxsz : lim.unit_max ? lim.unit_max : 65536;
	if (r.maxsz > REGION)
		r.maxsz = REGION;
	if (r.mode != S_PLAIN && r.maxsz > lim.unit_max) {
		fprintf(stderr, "sizes: the device's atomic unit_max is %u\n",
			lim.unit_max);
		return 2;
	}
	for (r.nclasses = 0; (r.minsz << r.nclasses) <= r.maxsz; r.nclasses++)
		;
	if (bytes && bytes < size)
		size = bytes;
	r.nregions = size / REGION;
	if (!r.nclasses || r.nregions < r.threads) {
		fprintf(stderr, "sizes: need %u regions of 1 MiB and sizes from %u to %u\n",
			r.threads, r.minsz, r.maxsz);
		return 2;
	}
	r.nblk = r.nregions * (REGION / SB);
	srand(r.seed);
	/* Ids and the nonce from the clock: stamps of earlier runs differ. */
	r.nonce = (time(NULL) ^ getpid() ^ r.seed) & 0xffff;
	r.base = 1 + ((unsigned int)rand() ^ (unsigned int)time(NULL)) % (1u << 29);
	r.pre = calloc(r.nblk, 4);
	r.cur = calloc(r.nblk, 4);
	r.durable = calloc(r.nblk, 4);
	r.rbuf = xalloc(REGION);
	t = calloc(r.threads, sizeof(*t));
	for (k = 0; k < r.threads; k++) {
		t[k].r = &r;
		t[k].id = k;
		t[k].buf = xalloc(r.maxsz);
	}
	sread(&r, r.pre);
	for (r.epoch = 0; r.epoch < cuts; r.epoch++) {
		if (scycle(&r, t, cut_max, sync_cut)) {
			r.refused = 1;
			r.epoch++;
			break;
		}
	}
	printf("sizes mode=%s threads=%u sizes=%u-%u cuts=%u torn=%ld lost=%ld writes=%ld seed=%u acked=%ld inflight=%ld landed=%ld refused=%ld dev=%s\n",
	       names[r.mode], r.threads, r.minsz, r.maxsz, r.epoch, r.torn,
	       r.lost, r.writes, r.seed, r.acked, r.inflight, r.landed,
	       r.refused, r.dev);
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
	else if (argc > 1 && !strcmp(argv[1], "sizes"))
		ret = sizes(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "race"))
		ret = race(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "fiocheck"))
		ret = fiocheck(argc, argv);
	if (ret == 1)
		fprintf(stderr, "usage: awcrash crash DEV UNIT UNITS CUTS atomic|normal|direct|buffered CTLDIR SEED [WRITE]\n"
			"       awcrash sizes DEV CTLDIR CUTS SEED journal|atomic|plain|mixed [--threads N]\n"
			"               [--reattach CMD] [--cut-max N] [--sync-cut N] [--bytes N] [--max BYTES]\n"
			"       awcrash race DEV UNIT SECONDS atomic|normal\n"
			"       awcrash fiocheck DEV UNIT BYTES\n");
	return ret;
}
