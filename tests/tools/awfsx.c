// SPDX-License-Identifier: GPL-2.0
/*
 * awfsx: fsx-style exerciser for awfs files (works on any Linux
 * filesystem): random operations on one file, each checked against an
 * in-memory model of the file's contents and size.
 *
 *   awfsx FILE [--seed S] [--ops N] [--max-size BYTES] [--atomic]
 *	   [--no-mmap] [--no-falloc] [--reopen]
 *	FILE is created (or truncated), then gets N operations (--ops,
 *	10000) drawn from seed S (--seed, 1); the file never grows past
 *	--max-size (256 KiB; a K or M suffix is allowed):
 *	write     pwrite of 1..64 KiB of random bytes anywhere: holes,
 *	          extension, page-unaligned offsets
 *	read      pread of a random range, compared; short past EOF
 *	trunc     ftruncate up or down; the growth must read back as zeros
 *	mapread   mmap MAP_SHARED within the size, compared; the rest of the
 *	          last page past EOF must be zero
 *	mapwrite  random bytes stored through such a map, sometimes msync
 *	falloc    fallocate mode 0, KEEP_SIZE, PUNCH_HOLE|KEEP_SIZE and
 *	          ZERO_RANGE; a mode failing with EOPNOTSUPP is dropped
 *	          (counted as falloc_unsupported)
 *	fsync     fsync or fdatasync
 *	atomic    (--atomic) AW_IOC_ATOMIC_WRITE of one unit (unit_max of
 *	          AW_IOC_GET_LIMITS: the file's unit on a buffered descriptor)
 *	          at a unit-aligned offset, sometimes with AW_WRITE_DSYNC or
 *	          AW_WRITE_SYNC; 1 in 20 is invalid on purpose (misaligned,
 *	          half a unit, a reserved field, an unknown flag): it must
 *	          fail with EINVAL and change nothing (atomic_bad)
 *	reopen    (--reopen, now and then) close, open again, check all
 *	Every 200 operations and at the end the size and the whole file are
 *	checked. --no-mmap and --no-falloc leave those operations out.
 *
 * Prints one line of counts and exits 0 when every check held. On a
 * mismatch or an unexpected error prints the operation, the first
 * differing byte and the last 20 operations, and exits 1. Exits 2 on
 * usage errors, and with --atomic on a file without atomic writes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/falloc.h>

#include "../../include/uapi/awfs.h"

typedef unsigned long long u64;

#define MAX_IO		(64 * 1024)	/* largest write, read, map or falloc */
#define CHECK_EVERY	200		/* ops between whole-file checks */
#define LOG_LEN		20		/* ops shown on failure */
#define MAX_SIZE_LIMIT	(1ULL << 30)

enum op {
	OP_WRITE, OP_READ, OP_TRUNC, OP_MAPREAD, OP_MAPWRITE, OP_FALLOC,
	OP_FSYNC, OP_ATOMIC, OP_REOPEN, OP_NR
};

static const unsigned int op_weight[OP_NR] = { 20, 20, 6, 8, 8, 8, 3, 15, 1 };

static const struct {
	int mode;
	const char *name;
} fmodes[] = {
	{ 0, "falloc" },
	{ FALLOC_FL_KEEP_SIZE, "falloc_keep" },
	{ FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, "punch" },
	{ FALLOC_FL_ZERO_RANGE, "zero_range" },
};
#define NR_FMODES	(sizeof(fmodes) / sizeof(fmodes[0]))

static const char *path;
static int fd = -1;
static unsigned int seed = 1, rstate;
static unsigned long nops = 10000, opno;
static int use_atomic, use_mmap = 1, use_falloc = 1, use_reopen;
static int fmode_off[NR_FMODES], fmodes_left = NR_FMODES;
static u64 max_size = 256 * 1024;
static u64 amax;		/* atomic writes end below: max_size, unit-rounded */
static u64 size;		/* the model's file size */
static unsigned char *model;	/* the model's data; zero past size, always */
static unsigned char *rbuf, *wbuf;
static u64 pgsz;
static unsigned int unit;	/* atomic unit; 0 without --atomic */

static unsigned long cnt[OP_NR], falloc_unsup, atomic_bad;
static char oplog[LOG_LEN][128];
static struct {
	const char *name;
	u64 off, len;
} cur = { "setup", 0, 0 };
static sigjmp_buf bus_jmp;

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	unsigned long i;
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "awfsx: op %lu %s off 0x%llx len 0x%llx: ", opno,
		cur.name, cur.off, cur.len);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nawfsx: %s seed=%u, model size 0x%llx; last operations:\n",
		path, seed, size);
	for (i = opno >= LOG_LEN ? opno - LOG_LEN + 1 : 1; i <= opno; i++)
		fprintf(stderr, "  %s\n", oplog[i % LOG_LEN]);
	exit(1);
}

static void syserr(const char *what)
{
	fail("%s: %s", what, strerror(errno));
}

/* Remember what op @opno does, for fail() and the ring log. */
static void note(const char *name, u64 off, u64 len, const char *extra)
{
	cur.name = name;
	cur.off = off;
	cur.len = len;
	snprintf(oplog[opno % LOG_LEN], sizeof(oplog[0]),
		 "%6lu %-11s off 0x%06llx len 0x%05llx%s%s (size 0x%llx)",
		 opno, name, off, len, extra ? " " : "", extra ? extra : "",
		 size);
}

static u64 rnd(u64 n)
{
	u64 x = (u64)rand_r(&rstate) << 31 | (u64)rand_r(&rstate);

	return x % n;
}

static u64 min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

/*
 * Random bytes, not a pattern: a write that lands in the wrong place or
 * a stale page is then told apart from the right data. xorshift64*, as
 * rand_r for every byte would dominate the run time.
 */
static void fill_random(unsigned char *p, size_t n)
{
	u64 x = (u64)rand_r(&rstate) << 32 | (u64)rand_r(&rstate) | 1, v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(i & 7)) {
			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
			v = x * 2685821657736338717ULL;
		}
		p[i] = v >> (8 * (i & 7));
	}
}

/* An offset below @limit: anywhere, page-aligned, or near EOF. */
static u64 pick_off(u64 limit)
{
	u64 off = rnd(limit), near;

	switch (rnd(4)) {
	case 0:
		off &= ~(pgsz - 1);
		break;
	case 1:
		near = size > pgsz ? size - pgsz + rnd(2 * pgsz) : rnd(2 * pgsz);
		if (near < limit)
			off = near;
		break;
	}
	return off;
}

/* A length of 1..64 KiB, sometimes whole pages, ending by @limit. */
static u64 pick_len(u64 off, u64 limit)
{
	u64 len = 1 + rnd(MAX_IO);

	if (!rnd(4))
		len = (len + pgsz - 1) & ~(pgsz - 1);
	return min_u64(len, limit - off);
}

static void compare(const unsigned char *got, u64 off, u64 n, const char *what)
{
	u64 i, first = 0, last = 0, bad = 0;

	if (!memcmp(got, model + off, n))
		return;
	for (i = 0; i < n; i++) {
		if (got[i] == model[off + i])
			continue;
		if (!bad++)
			first = i;
		last = i;
	}
	fail("%s: %llu bytes differ in 0x%llx..0x%llx; first at 0x%llx: expected 0x%02x, got 0x%02x",
	     what, bad, off + first, off + last, off + first,
	     model[off + first], got[first]);
}

/*
 * Read [off, off + n) back in one pread, as fsx does: a regular file's
 * read is short only at EOF, exactly at the model's size.
 */
static void check_range(u64 off, u64 n, const char *what)
{
	u64 want = off >= size ? 0 : min_u64(n, size - off);
	ssize_t got = pread(fd, rbuf, n, off);

	if (got < 0)
		syserr("pread");
	if ((u64)got != want)
		fail("%s: pread of 0x%llx at 0x%llx returned 0x%llx bytes, expected 0x%llx",
		     what, n, off, (u64)got, want);
	compare(rbuf, off, got, what);
}

static void check_size(const char *what)
{
	struct stat st;

	if (fstat(fd, &st))
		syserr("fstat");
	if ((u64)st.st_size != size)
		fail("%s: file size 0x%llx, expected 0x%llx", what,
		     (u64)st.st_size, size);
}

static void check_all(const char *what)
{
	check_size(what);
	check_range(0, size + 1, what);
}

static void op_write(void)
{
	u64 off = pick_off(max_size), len = pick_len(off, max_size);
	ssize_t ret;

	note("write", off, len, NULL);
	fill_random(wbuf, len);
	ret = pwrite(fd, wbuf, len, off);
	if (ret < 0)
		syserr("pwrite");
	if ((u64)ret != len)
		fail("short pwrite: 0x%llx bytes", (u64)ret);
	memcpy(model + off, wbuf, len);
	if (off + len > size)
		size = off + len;
	cnt[OP_WRITE]++;
}

static void op_read(void)
{
	u64 off = pick_off(max_size), len = 1 + rnd(MAX_IO);

	note("read", off, len, NULL);
	check_range(off, len, "read");
	cnt[OP_READ]++;
}

static void op_trunc(void)
{
	u64 ns = rnd(max_size + 1);

	/* within a page of the size: the partial-page zeroing cases */
	if (!rnd(3))
		ns = min_u64(size + rnd(2 * pgsz) - min_u64(size, pgsz), max_size);
	note("trunc", ns, 0, ns < size ? "down" : "up");
	if (ftruncate(fd, ns))
		syserr("ftruncate");
	if (ns < size)
		memset(model + ns, 0, size - ns);
	size = ns;
	cnt[OP_TRUNC]++;
}

static void bus_handler(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* Map the pages of [off, off + len), which lies within the size. */
static unsigned char *map(u64 off, u64 len, int prot, u64 *pg, u64 *mlen)
{
	void *p;

	*pg = off & ~(pgsz - 1);
	*mlen = off + len - *pg;
	p = mmap(NULL, *mlen, prot, MAP_SHARED, fd, *pg);
	if (p == MAP_FAILED)
		syserr("mmap");
	return p;
}

static void op_mapread(void)
{
	u64 off = rnd(size), len = 1 + rnd(min_u64(MAX_IO, size - off));
	u64 pg, mlen, i, end;
	unsigned char *p;

	note("mapread", off, len, NULL);
	p = map(off, len, PROT_READ, &pg, &mlen);
	compare(p + (off - pg), off, len, "mapread");
	/*
	 * The map covers the whole last page; past EOF it must read zeros
	 * (fsx's check: a truncate down must zero the page's tail).
	 */
	end = (pg + mlen + pgsz - 1) & ~(pgsz - 1);
	if (end >= size) {
		for (i = size; i < end; i++)
			if (p[i - pg])
				fail("mapread: byte 0x%llx past EOF 0x%llx is 0x%02x, expected 0",
				     i, size, p[i - pg]);
	}
	if (munmap(p, mlen))
		syserr("munmap");
	cnt[OP_MAPREAD]++;
}

static void op_mapwrite(void)
{
	u64 off = rnd(size), len = 1 + rnd(min_u64(MAX_IO, size - off));
	int sync = rnd(2);
	u64 pg, mlen;
	unsigned char *p;

	note("mapwrite", off, len, sync ? "msync" : NULL);
	p = map(off, len, PROT_READ | PROT_WRITE, &pg, &mlen);
	fill_random(wbuf, len);
	memcpy(p + (off - pg), wbuf, len);
	memcpy(model + off, wbuf, len);
	if (sync && msync(p, mlen, MS_SYNC))
		syserr("msync");
	if (munmap(p, mlen))
		syserr("munmap");
	cnt[OP_MAPWRITE]++;
}

static void op_falloc(void)
{
	u64 off = pick_off(max_size), len = pick_len(off, max_size);
	unsigned int m;

	do
		m = rnd(NR_FMODES);
	while (fmode_off[m]);
	note(fmodes[m].name, off, len, NULL);
	if (fallocate(fd, fmodes[m].mode, off, len)) {
		if (errno != EOPNOTSUPP)
			syserr("fallocate");
		/* not this filesystem's: drop the mode, but it changed nothing */
		fmode_off[m] = 1;
		fmodes_left--;
		falloc_unsup++;
		check_range(off, len, "unsupported fallocate");
		return;
	}
	/* past the size the model is zero already: no clipping needed */
	if (fmodes[m].mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		memset(model + off, 0, len);
	if (!(fmodes[m].mode & FALLOC_FL_KEEP_SIZE) && off + len > size)
		size = off + len;
	cnt[OP_FALLOC]++;
}

static void op_fsync(void)
{
	int data = rnd(2);

	note(data ? "fdatasync" : "fsync", 0, 0, NULL);
	if (data ? fdatasync(fd) : fsync(fd))
		syserr(data ? "fdatasync" : "fsync");
	cnt[OP_FSYNC]++;
}

/*
 * The file's unit. A buffered descriptor has unit_min = unit_max = the
 * unit; after a reopen it must not have changed.
 */
static void get_limits(void)
{
	struct aw_limits l;
	struct awfs_align a;

	memset(&l, 0, sizeof(l));
	if (ioctl(fd, AW_IOC_GET_LIMITS, &l)) {
		if (unit)
			syserr("AW_IOC_GET_LIMITS");
		fprintf(stderr, "awfsx: %s: AW_IOC_GET_LIMITS: %s (not on awfs?)\n",
			path, strerror(errno));
		exit(2);
	}
	if (!l.unit_max && !unit) {
		memset(&a, 0, sizeof(a));
		if (ioctl(fd, AWFS_IOC_GET_ALIGN, &a))
			fprintf(stderr, "awfsx: %s: no atomic writes (unit_max 0); AWFS_IOC_GET_ALIGN: %s\n",
				path, strerror(errno));
		else
			fprintf(stderr, "awfsx: %s: no atomic writes (unit_max 0): %s, unit %u, %s\n",
				path,
				a.flags & AWFS_ALIGN_FORCE ? "forcealign" : "no forcealign",
				a.unit, a.status & AWFS_STATUS_CAPABLE ?
				"capable" : "not capable (lower device without atomic writes?)");
		exit(2);
	}
	if (l.unit_min != l.unit_max || l.unit_max < 2 ||
	    (l.unit_max & (l.unit_max - 1)) || l.max_bytes < l.unit_max)
		fail("AW_IOC_GET_LIMITS, buffered: unit_min %u unit_max %u max_bytes %u; expected unit_min = unit_max, a power of two, <= max_bytes",
		     l.unit_min, l.unit_max, l.max_bytes);
	if (unit && l.unit_max != unit)
		fail("AW_IOC_GET_LIMITS: unit_max %u, was %u", l.unit_max, unit);
	unit = l.unit_max;
}

/* Must fail with EINVAL and leave the file as it was. */
static void op_atomic_bad(u64 off)
{
	struct aw_atomic_write w;
	const char *why;

	memset(&w, 0, sizeof(w));
	fill_random(wbuf, unit);
	w.offset = off;
	w.buf = (uintptr_t)wbuf;
	w.len = unit;
	switch (rnd(4)) {
	case 0:
		/* sector-aligned too sometimes: only the unit makes it bad */
		if (unit > 512 && rnd(2))
			w.offset += 512 * (1 + rnd(unit / 512 - 1));
		else
			w.offset += 1 + rnd(unit - 1);
		why = "misaligned";
		break;
	case 1:
		w.len = unit / 2;
		why = "half-unit";
		break;
	case 2:
		if (rnd(5))
			w.reserved[rnd(4)] = 1 + rnd(1000);
		else
			w.reserved0 = 1 + rnd(1000);
		why = "reserved";
		break;
	default:
		w.flags = 0x80;
		why = "flag-0x80";
		break;
	}
	note("atomic_bad", w.offset, w.len, why);
	if (!ioctl(fd, AW_IOC_ATOMIC_WRITE, &w))
		fail("invalid atomic write (%s) succeeded", why);
	if (errno != EINVAL)
		fail("invalid atomic write (%s): %s, expected EINVAL", why,
		     strerror(errno));
	check_size("after invalid atomic write");
	check_range(off, 2 * unit, "after invalid atomic write");
	atomic_bad++;
}

static void op_atomic(void)
{
	u64 off = rnd(amax / unit) * unit;
	struct aw_atomic_write w;
	const char *how = NULL;

	if (!rnd(20)) {
		op_atomic_bad(off);
		return;
	}
	memset(&w, 0, sizeof(w));
	if (!rnd(4)) {
		w.flags = rnd(4) ? AW_WRITE_DSYNC : AW_WRITE_SYNC;
		how = w.flags == AW_WRITE_DSYNC ? "dsync" : "sync";
	}
	fill_random(wbuf, unit);
	w.offset = off;
	w.buf = (uintptr_t)wbuf;
	w.len = unit;
	note("atomic", off, unit, how);
	if (ioctl(fd, AW_IOC_ATOMIC_WRITE, &w))
		syserr("AW_IOC_ATOMIC_WRITE");
	memcpy(model + off, wbuf, unit);
	if (off + unit > size)
		size = off + unit;
	cnt[OP_ATOMIC]++;
}

static void op_reopen(void)
{
	note("reopen", 0, size, NULL);
	if (close(fd))
		syserr("close");
	fd = open(path, O_RDWR);
	if (fd < 0)
		syserr("open");
	if (use_atomic)
		get_limits();
	check_all("after reopen");
	cnt[OP_REOPEN]++;
}

static void (*const op_fn[OP_NR])(void) = {
	op_write, op_read, op_trunc, op_mapread, op_mapwrite, op_falloc,
	op_fsync, op_atomic, op_reopen
};

/* A SIGBUS while touching a map is a failure, not a crash. */
static void run_op(int op)
{
	if (sigsetjmp(bus_jmp, 1))
		fail("SIGBUS touching the map (size 0x%llx)", size);
	op_fn[op]();
}

static int enabled(int op)
{
	switch (op) {
	case OP_MAPREAD:
	case OP_MAPWRITE:
		return use_mmap && size;
	case OP_FALLOC:
		return use_falloc && fmodes_left;
	case OP_ATOMIC:
		return use_atomic;
	case OP_REOPEN:
		return use_reopen;
	}
	return 1;
}

static int pick_op(void)
{
	unsigned int total = 0, r;
	int op;

	for (op = 0; op < OP_NR; op++)
		if (enabled(op))
			total += op_weight[op];
	r = rnd(total);
	for (op = 0; op < OP_NR; op++) {
		if (!enabled(op))
			continue;
		if (r < op_weight[op])
			return op;
		r -= op_weight[op];
	}
	return OP_WRITE;	/* not reached */
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr, "usage: awfsx FILE [--seed S] [--ops N] [--max-size BYTES] [--atomic] [--no-mmap] [--no-falloc] [--reopen]\n");
	exit(2);
}

static u64 parse_num(const char *s, u64 lo, u64 hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		usage();
	return v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'n' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "atomic", no_argument, &use_atomic, 1 },
		{ "no-mmap", no_argument, &use_mmap, 0 },
		{ "no-falloc", no_argument, &use_falloc, 0 },
		{ "reopen", no_argument, &use_reopen, 1 },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = parse_num(optarg, 0, UINT32_MAX);
			break;
		case 'n':
			nops = parse_num(optarg, 0, UINT32_MAX);
			break;
		case 'm':
			max_size = parse_num(optarg, 1, MAX_SIZE_LIMIT);
			break;
		case 0:		/* a flag, set by getopt_long */
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	path = argv[optind];
}

static void *xalloc(u64 n)
{
	void *p = calloc(1, n);

	if (!p) {
		perror("awfsx");
		exit(2);
	}
	return p;
}

int main(int argc, char **argv)
{
	u64 cap;

	parse_args(argc, argv);
	rstate = seed;
	pgsz = sysconf(_SC_PAGESIZE);
	signal(SIGBUS, bus_handler);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	amax = max_size;
	if (use_atomic) {
		get_limits();
		amax = (max_size + unit - 1) / unit * unit;
	}
	/* room for the largest file, and reads past it */
	cap = amax;
	model = xalloc(cap);
	rbuf = xalloc(cap + MAX_IO + 2ULL * unit + 1);
	wbuf = xalloc(MAX_IO + unit);

	for (opno = 1; opno <= nops; opno++) {
		run_op(pick_op());
		if (opno % CHECK_EVERY == 0) {
			/* not logged: the log shows the ops themselves */
			cur.name = "check";
			cur.off = 0;
			cur.len = size;
			check_all("check");
		}
	}
	opno = nops;
	cur.name = "final check";
	cur.off = 0;
	cur.len = size;
	check_all("final check");
	if (close(fd))
		syserr("close");

	printf("awfsx: %lu ops seed=%u ok (write=%lu read=%lu trunc=%lu mapread=%lu mapwrite=%lu falloc=%lu falloc_unsupported=%lu fsync=%lu atomic=%lu atomic_bad=%lu reopen=%lu)\n",
	       nops, seed, cnt[OP_WRITE], cnt[OP_READ], cnt[OP_TRUNC],
	       cnt[OP_MAPREAD], cnt[OP_MAPWRITE], cnt[OP_FALLOC], falloc_unsup,
	       cnt[OP_FSYNC], cnt[OP_ATOMIC], atomic_bad, cnt[OP_REOPEN]);
	return 0;
}
