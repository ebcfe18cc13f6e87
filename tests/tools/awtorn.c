// SPDX-License-Identifier: GPL-2.0
/*
 * awtorn: torn-write writer and checker for SCSI disks, over SG_IO.
 *
 *   awtorn race  SG LBS BLOCKS SECONDS normal|atomic
 *	one thread rewrites BLOCKS blocks at LBA 0 with a new version stamp,
 *	another reads them back; prints how many reads saw a mix of versions.
 *
 *   awtorn crash SG LBS UNIT_BLOCKS UNITS CUTS normal|atomic CTLDIR SEED
 *	writes stamped units (WRITE(16) or WRITE ATOMIC(16), some with FUA,
 *	some followed by SYNCHRONIZE CACHE) while awscsi's cut_after cuts the
 *	power; after each cut restores power and checks every unit: torn
 *	(blocks of different versions or bad checksums) or missing a write that
 *	was made durable (FUA or flushed).
 *
 * Exit status 0 when the run completed; the caller judges the counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <scsi/sg.h>
#include <sys/ioctl.h>

#include "stamp.h"

struct sgres {
	int ok;			/* GOOD status, no host/driver error */
	int host;		/* host status (1 = no connect: power off) */
	int status;
	unsigned char sense[32];
};

static struct sgres sg_cmd(int fd, const unsigned char *cdb, int cdb_len,
			   void *buf, unsigned int len, int dir)
{
	struct sg_io_hdr h;
	struct sgres r;

	memset(&h, 0, sizeof(h));
	memset(&r, 0, sizeof(r));
	h.interface_id = 'S';
	h.dxfer_direction = dir;
	h.cmd_len = cdb_len;
	h.cmdp = (unsigned char *)cdb;
	h.dxferp = buf;
	h.dxfer_len = len;
	h.mx_sb_len = sizeof(r.sense);
	h.sbp = r.sense;
	h.timeout = 30000;
	if (ioctl(fd, SG_IO, &h) < 0) {
		perror("SG_IO");
		exit(2);
	}
	r.host = h.host_status;
	r.status = h.status;
	r.ok = !h.host_status && !h.driver_status && !h.status;
	return r;
}

static void put_be(unsigned char *p, uint64_t v, int n)
{
	while (n--) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

/* READ(16), WRITE(16) or WRITE ATOMIC(16) of nblk blocks at lba. */
static struct sgres rw16(int fd, int op, uint64_t lba, uint32_t nblk,
			 void *buf, unsigned int lbs, int fua)
{
	unsigned char cdb[16] = { 0 };

	cdb[0] = op;
	cdb[1] = fua ? 0x08 : 0;
	put_be(cdb + 2, lba, 8);
	if (op == 0x9c)
		put_be(cdb + 12, nblk, 2);
	else
		put_be(cdb + 10, nblk, 4);
	return sg_cmd(fd, cdb, 16, buf, nblk * lbs,
		      op == 0x88 ? SG_DXFER_FROM_DEV : SG_DXFER_TO_DEV);
}

static struct sgres sync_cache(int fd)
{
	unsigned char cdb[10] = { 0x35 };

	return sg_cmd(fd, cdb, 10, NULL, 0, SG_DXFER_NONE);
}

/* ---- race ---- */

struct race {
	const char *sg;
	unsigned int lbs, blocks;
	int atomic;
	int stop;		/* set by the reader, read with __atomic */
	long writes, reads, mixed;
};

static void *race_writer(void *arg)
{
	struct race *r = arg;
	unsigned int sz = r->lbs * r->blocks, i;
	unsigned char *buf = malloc(sz);
	int fd = open(r->sg, O_RDWR);
	uint32_t v = 1;

	if (fd < 0 || !buf) {
		perror(r->sg);
		exit(2);
	}
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		v++;
		for (i = 0; i < r->blocks; i++)
			stamp(buf + i * r->lbs, r->lbs, 0, v, i);
		if (!rw16(fd, r->atomic ? 0x9c : 0x8a, 0, r->blocks, buf,
			  r->lbs, 0).ok) {
			fprintf(stderr, "%s: write failed\n", __func__);
			exit(2);
		}
		r->writes++;
	}
	close(fd);
	free(buf);
	return NULL;
}

static int race(int argc, char **argv)
{
	struct race r = { 0 };
	unsigned char *buf;
	pthread_t t;
	time_t end;
	int fd;

	if (argc != 7)
		return 1;
	r.sg = argv[2];
	r.lbs = atoi(argv[3]);
	r.blocks = atoi(argv[4]);
	end = time(NULL) + atoi(argv[5]);
	r.atomic = !strcmp(argv[6], "atomic");
	buf = malloc(r.lbs * r.blocks);
	fd = open(r.sg, O_RDWR);
	if (fd < 0 || !buf) {
		perror(r.sg);
		return 2;
	}
	pthread_create(&t, NULL, race_writer, &r);
	while (time(NULL) < end && (r.atomic || r.mixed < 3)) {
		int64_t v0 = -2, v;
		unsigned int i;

		if (!rw16(fd, 0x88, 0, r.blocks, buf, r.lbs, 0).ok) {
			fprintf(stderr, "%s: read failed\n", __func__);
			return 2;
		}
		for (i = 0; i < r.blocks; i++) {
			v = block_version(buf + i * r.lbs, r.lbs, 0, i);
			if (v < 0 || (v0 != -2 && v != v0)) {
				r.mixed++;
				break;
			}
			v0 = v;
		}
		r.reads++;
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	printf("race mode=%s blocks=%u writes=%ld reads=%ld mixed=%ld\n",
	       argv[6], r.blocks, r.writes, r.reads, r.mixed);
	return 0;
}

/* ---- crash ---- */

struct crash {
	int fd, atomic;
	unsigned int lbs, ublk, units;
	uint32_t *cur;		/* latest version written or attempted */
	uint32_t *durable;	/* a version that must survive */
	uint32_t *acked;	/* latest acknowledged version */
	unsigned char *buf;
	long torn, lost, writes;
};

/* Write until a command fails because the power went. */
static void crash_writes(struct crash *c)
{
	for (;;) {
		uint32_t u = rand() % c->units, v = ++c->cur[u], i;
		int fua = rand() % 8 == 0;
		struct sgres r;

		for (i = 0; i < c->ublk; i++)
			stamp(c->buf + i * c->lbs, c->lbs, u, v, i);
		r = rw16(c->fd, c->atomic ? 0x9c : 0x8a, (uint64_t)u * c->ublk,
			 c->ublk, c->buf, c->lbs, fua);
		if (!r.ok) {
			if (r.host != 1) {
				fprintf(stderr, "%s: write failed: status %d host %d sense %02x/%02x\n",
					__func__,
					r.status, r.host, r.sense[2],
					r.sense[12]);
				exit(2);
			}
			return;
		}
		c->writes++;
		c->acked[u] = v;
		if (fua)
			c->durable[u] = v;
		if (rand() % 16 == 0) {
			if (!sync_cache(c->fd).ok)
				return;
			for (i = 0; i < c->units; i++)
				c->durable[i] = c->acked[i];
		}
	}
}

static void crash_check(struct crash *c)
{
	unsigned int u, i;

	for (u = 0; u < c->units; u++) {
		int64_t v0 = -2, v;
		int torn = 0;

		if (!rw16(c->fd, 0x88, (uint64_t)u * c->ublk, c->ublk, c->buf,
			  c->lbs, 0).ok) {
			fprintf(stderr, "%s: read failed after restore\n", __func__);
			exit(2);
		}
		for (i = 0; i < c->ublk; i++) {
			v = block_version(c->buf + i * c->lbs, c->lbs, u, i);
			if (v < 0 || (v0 != -2 && v != v0))
				torn = 1;
			v0 = v;
		}
		if (torn) {
			c->torn++;
			fprintf(stderr, "torn unit %u (durable %u newest %u):", u,
				c->durable[u], c->cur[u]);
			for (i = 0; i < c->ublk; i++)
				fprintf(stderr, " %lld", (long long)block_version(
					c->buf + i * c->lbs, c->lbs, u, i));
			fprintf(stderr, "\n");
			/* Rewrite the unit whole so later checks start clean. */
			c->cur[u]++;
			for (i = 0; i < c->ublk; i++)
				stamp(c->buf + i * c->lbs, c->lbs, u, c->cur[u],
				      i);
			rw16(c->fd, 0x8a, (uint64_t)u * c->ublk, c->ublk,
			     c->buf, c->lbs, 1);
			c->durable[u] = c->acked[u] = c->cur[u];
			continue;
		}
		if (v0 < c->durable[u] || v0 > c->cur[u]) {
			c->lost++;
			fprintf(stderr, "unit %u: version %lld, durable %u, newest %u\n",
				u, (long long)v0, c->durable[u], c->cur[u]);
		}
		c->durable[u] = c->acked[u] = v0;
	}
}

static int crash(int argc, char **argv)
{
	struct crash c = { 0 };
	const char *ctl;
	char num[32];
	int cuts, n;

	if (argc != 10)
		return 1;
	c.lbs = atoi(argv[3]);
	c.ublk = atoi(argv[4]);
	c.units = atoi(argv[5]);
	cuts = atoi(argv[6]);
	c.atomic = !strcmp(argv[7], "atomic");
	ctl = argv[8];
	srand(atoi(argv[9]));
	c.fd = open(argv[2], O_RDWR);
	c.buf = malloc(c.lbs * c.ublk);
	c.cur = calloc(c.units, 4);
	c.durable = calloc(c.units, 4);
	c.acked = calloc(c.units, 4);
	if (c.fd < 0 || !c.buf || !c.cur || !c.durable || !c.acked) {
		perror(argv[2]);
		return 2;
	}
	/* Start from a known state: every unit whole, version 1, durable. */
	for (n = 0; n < (int)c.units; n++) {
		unsigned int i;

		for (i = 0; i < c.ublk; i++)
			stamp(c.buf + i * c.lbs, c.lbs, n, 1, i);
		if (!rw16(c.fd, 0x8a, (uint64_t)n * c.ublk, c.ublk, c.buf,
			  c.lbs, 1).ok) {
			fprintf(stderr, "%s: initial write failed\n", __func__);
			return 2;
		}
		c.cur[n] = c.durable[n] = c.acked[n] = 1;
	}
	for (n = 0; n < cuts; n++) {
		snprintf(num, sizeof(num), "%d", rand() % 24);
		ctl_write(ctl, "cut_after", num);
		crash_writes(&c);
		ctl_write(ctl, "powered", "1");
		crash_check(&c);
	}
	printf("crash mode=%s cuts=%d writes=%ld torn=%ld lost=%ld seed=%s\n",
	       argv[7], cuts, c.writes, c.torn, c.lost, argv[9]);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 1;

	if (argc > 1 && !strcmp(argv[1], "race"))
		ret = race(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "crash"))
		ret = crash(argc, argv);
	if (ret == 1)
		fprintf(stderr, "usage: awtorn race SG LBS BLOCKS SECONDS normal|atomic\n"
			"       awtorn crash SG LBS UNIT_BLOCKS UNITS CUTS normal|atomic CTLDIR SEED\n");
	return ret;
}
