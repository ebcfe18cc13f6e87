// SPDX-License-Identifier: GPL-2.0
/*
 * awpgcrash: a PostgreSQL-like power-cut writer and checker for files.
 *
 *   awpgcrash DIR CTLDIR CUTS SEED untorn|plain [--threads N] [--files N]
 *             [--file-size BYTES] [--cut-max N] [--reattach CMD]
 *
 *	DIR is a directory on the filesystem under test (awfs mounted with
 *	-o unit=16k,untorn for mode untorn; ext4 or any other for plain).
 *	The files DIR/pg0 .. DIR/pg{N-1} (--files, 4) are made anew, of
 *	--file-size bytes (1 MiB, a multiple of 16 KiB): even ones in 8 KiB
 *	pages, odd ones in 16 KiB pages. In mode untorn each file, still
 *	empty, gets its page size as atomic unit (AWFS_IOC_SET_ALIGN with
 *	AWFS_ALIGN_FORCE), which AW_IOC_GET_LIMITS must then report as
 *	unit_min and unit_max. Every page is written with version 0 and
 *	fsync'ed before the first cut (preallocated files).
 *
 *	Every 512-byte block of a page is stamped (stamp.h) with the page's
 *	id (file << 20 | page), its version and the block's index (with a
 *	nonce of this run), so a checker tells whole pages from torn ones,
 *	and stale or foreign data from ours.
 *
 *	One power cycle: a random cut_after in [0, --cut-max) (400) goes to
 *	awscsi's CTLDIR/cut_after, then --threads (4) writers start. Page p
 *	of file f belongs to writer (f + p) % threads. A writer rewrites
 *	random pages of its own whole (pwrite, buffered), each with the
 *	page's next version, and after every 1 to 8 writes fdatasyncs the
 *	files it wrote; a successful fdatasync makes every version it wrote
 *	to that file before durable. Each writer has its own descriptors, so
 *	a writeback error is reported to each of them. All stop at the first
 *	error (the power went), or after WRITE_CAP writes in all, and then
 *	the power is cut through CTLDIR/powered. Then --reattach CMD (if
 *	given) runs under sh -c with $AWPG_DIR set to the current DIR, the
 *	files all closed and the power still off, as after a real power loss:
 *	it should tear down everything above the disk (so that nothing the
 *	kernel held reaches it), restore the power, attach the disk again,
 *	mount and print (last line of its stdout) the DIR to check and use
 *	from then on, or "refused" to end the run there. Without it the power
 *	is restored and the checker reads what the page cache holds
 *	(debugging only).
 *
 *	The check reads every page: its blocks must be valid stamps of that
 *	page and of one version (torn otherwise); that version must be no
 *	older than the newest durable one and no newer than the newest one
 *	written (lost otherwise; a page of zeros counts as lost too). What
 *	is found becomes the page's durable version; a torn or zeroed page is
 *	rewritten whole with a new version and fdatasync'ed. Versions only
 *	grow, from cycle to cycle. The first MAX_SHOWN torn or lost pages are
 *	described on stderr.
 *
 *	With AWPG_VERBOSE set in the environment, one line per cut on stderr.
 *
 * Prints one summary line
 *   pgcrash mode=M files=N threads=N cuts=N writes=N syncs=N torn=N lost=N
 *	seed=S dir=DIR
 * (and " refused=1" at its end when --reattach refused). Exit status 0 when
 * the run completed (torn and lost are the caller's to judge), 2 on a usage
 * or setup error, 1 when --reattach failed or the check could not read (or
 * repair) the files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "stamp.h"
#include "../../include/uapi/awfs.h"

#define SB		512	/* stamp granularity */
#define MAX_PAGE	16384
#define WRITE_CAP	4000	/* writes per power cycle when no cut comes */
#define MAX_SHOWN	20	/* torn and lost pages described per run */
#define FILE_SHIFT	20	/* page id: file << FILE_SHIFT | page */
#define MAX_FILES	4096
#define MAX_THREADS	256
#define BATCH_MAX	8	/* writes between two fdatasyncs */

/* What a block holds, when it is not a version of its page */
#define V_ZERO		(-1)	/* zeros */
#define V_BAD		(-2)	/* no valid stamp: garbage or torn inside */
#define V_OTHER		(-3)	/* a valid stamp of another page or run */

struct page {
	uint32_t last;		/* newest version written (or tried) */
	uint32_t durable;	/* newest version known durable */
};

struct run {
	char dir[PATH_MAX];
	const char *ctl, *reattach;
	int untorn, verbose, stop;
	unsigned int nfiles, threads, cut_max, seed, nonce, cycle;
	unsigned long long fsize;
	struct page **pages;	/* [file][page] */
	unsigned char *buf;
	long issued;		/* writes started in this cycle */
	long writes, syncs, torn, lost, shown;
};

struct pend {
	uint32_t file, page, ver;
};

struct wthread {
	struct run *r;
	unsigned int id, rnd, nown, npend;
	uint32_t *own;		/* its pages: file << FILE_SHIFT | page */
	int *fd;		/* per file; -1: not open */
	struct pend pend[BATCH_MAX];	/* written since its last fdatasync */
	long writes, syncs;
	int err;
	const char *what;	/* the call that failed */
	unsigned char *buf;
	pthread_t t;
};

static void *xalloc(size_t n)
{
	void *p;

	if (posix_memalign(&p, 4096, n)) {
		perror("posix_memalign");
		exit(2);
	}
	memset(p, 0, n);
	return p;
}

static unsigned int page_size(unsigned int file)
{
	return file & 1 ? 16384 : 8192;
}

static unsigned int npages(const struct run *r, unsigned int file)
{
	return r->fsize / page_size(file);
}

static void file_path(const struct run *r, unsigned int file, char *path,
		      size_t n)
{
	snprintf(path, n, "%s/pg%u", r->dir, file);
}

static void stamp_page(const struct run *r, unsigned char *b,
		       unsigned int file, unsigned int page, uint32_t ver)
{
	unsigned int i;

	for (i = 0; i < page_size(file) / SB; i++)
		stamp(b + i * SB, SB, file << FILE_SHIFT | page, ver,
		      r->nonce << 16 | i);
}

/* ---- setup ---- */

static void set_unit(int fd, const char *path, unsigned int unit)
{
	struct awfs_align a;
	struct aw_limits lim;

	memset(&a, 0, sizeof(a));
	a.flags = AWFS_ALIGN_FORCE;
	a.unit = unit;
	if (ioctl(fd, AWFS_IOC_SET_ALIGN, &a)) {
		fprintf(stderr, "awpgcrash: %s: AWFS_IOC_SET_ALIGN unit %u: %s\n",
			path, unit, strerror(errno));
		exit(2);
	}
	memset(&lim, 0, sizeof(lim));
	if (ioctl(fd, AW_IOC_GET_LIMITS, &lim)) {
		fprintf(stderr, "awpgcrash: %s: AW_IOC_GET_LIMITS: %s\n", path,
			strerror(errno));
		exit(2);
	}
	if (lim.unit_min != unit || lim.unit_max != unit) {
		fprintf(stderr, "awpgcrash: %s: after AWFS_IOC_SET_ALIGN unit %u, AW_IOC_GET_LIMITS says unit_min %u unit_max %u\n",
			path, unit, lim.unit_min, lim.unit_max);
		exit(2);
	}
}

/* Make DIR/pgF anew: its unit (untorn), every page at version 0, fsync. */
static void create_file(struct run *r, unsigned int f)
{
	unsigned int psz = page_size(f), p;
	char path[PATH_MAX + 16];
	int fd;

	file_path(r, f, path, sizeof(path));
	if (unlink(path) && errno != ENOENT) {
		perror(path);
		exit(2);
	}
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	if (r->untorn)
		set_unit(fd, path, psz);
	for (p = 0; p < npages(r, f); p++) {
		stamp_page(r, r->buf, f, p, 0);
		if (pwrite(fd, r->buf, psz, (off_t)p * psz) != (ssize_t)psz) {
			fprintf(stderr, "awpgcrash: %s: preallocating: %s\n",
				path, strerror(errno));
			exit(2);
		}
	}
	if (fsync(fd) || close(fd)) {
		fprintf(stderr, "awpgcrash: %s: fsync: %s\n", path,
			strerror(errno));
		exit(2);
	}
}

static void create_files(struct run *r)
{
	unsigned int f;
	int fd;

	for (f = 0; f < r->nfiles; f++)
		create_file(r, f);
	/* The files' names must survive the cuts too. */
	fd = open(r->dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fsync(fd) || close(fd)) {
		fprintf(stderr, "awpgcrash: %s: fsync: %s\n", r->dir,
			strerror(errno));
		exit(2);
	}
}

/* ---- writers ---- */

static int wfail(struct wthread *t, int err, const char *what)
{
	t->err = err ? err : EIO;
	t->what = what;
	__atomic_store_n(&t->r->stop, 1, __ATOMIC_RELAXED);
	return -1;
}

static int stopped(struct run *r)
{
	return __atomic_load_n(&r->stop, __ATOMIC_RELAXED);
}

/* Write one of its pages whole, with the page's next version. */
static int wpage(struct wthread *t)
{
	struct run *r = t->r;
	uint32_t o = t->own[rand_r(&t->rnd) % t->nown];
	unsigned int f = o >> FILE_SHIFT, p = o & ((1u << FILE_SHIFT) - 1);
	unsigned int psz = page_size(f);
	struct page *pg = &r->pages[f][p];
	ssize_t n;

	if (stopped(r) ||
	    __atomic_fetch_add(&r->issued, 1, __ATOMIC_RELAXED) >= WRITE_CAP)
		return -1;
	stamp_page(r, t->buf, f, p, ++pg->last);
	n = pwrite(t->fd[f], t->buf, psz, (off_t)p * psz);
	if (n != (ssize_t)psz)
		return wfail(t, n < 0 ? errno : EIO, "pwrite");
	t->writes++;
	t->pend[t->npend].file = f;
	t->pend[t->npend].page = p;
	t->pend[t->npend].ver = pg->last;
	t->npend++;
	return 0;
}

/* fdatasync each file written since the last sync: those writes are durable. */
static int wsync(struct wthread *t)
{
	struct run *r = t->r;
	unsigned int i, j;

	for (i = 0; i < t->npend; i++) {
		unsigned int f = t->pend[i].file;

		for (j = 0; j < i && t->pend[j].file != f; j++)
			;
		if (j < i)
			continue;	/* synced already */
		if (stopped(r))
			return -1;
		if (fdatasync(t->fd[f]))
			return wfail(t, errno, "fdatasync");
		t->syncs++;
		for (j = i; j < t->npend; j++) {
			struct page *pg = &r->pages[f][t->pend[j].page];

			if (t->pend[j].file == f && pg->durable < t->pend[j].ver)
				pg->durable = t->pend[j].ver;
		}
	}
	t->npend = 0;
	return 0;
}

static void *writer(void *arg)
{
	struct wthread *t = arg;
	struct run *r = t->r;
	char path[PATH_MAX + 16];
	unsigned int f, k, n;

	for (k = 0; k < t->nown; k++) {
		f = t->own[k] >> FILE_SHIFT;
		if (t->fd[f] >= 0)
			continue;
		file_path(r, f, path, sizeof(path));
		t->fd[f] = open(path, O_RDWR);
		if (t->fd[f] < 0) {
			wfail(t, errno, "open");
			goto out;
		}
	}
	while (t->nown) {
		n = 1 + rand_r(&t->rnd) % BATCH_MAX;
		for (k = 0; k < n; k++)
			if (wpage(t))
				goto out;
		if (wsync(t))
			goto out;
	}
out:
	for (f = 0; f < r->nfiles; f++) {
		if (t->fd[f] >= 0)
			close(t->fd[f]);
		t->fd[f] = -1;
	}
	return NULL;
}

/* ---- check ---- */

/* Block @i of page @id: its version, or V_ZERO, V_BAD, V_OTHER. */
static int64_t block_ver(const struct run *r, const unsigned char *b,
			 uint32_t id, unsigned int i)
{
	uint32_t h[4];
	int ret = stamp_decode(b, SB, h);

	if (ret < 0)
		return V_BAD;
	if (!ret)
		return V_ZERO;
	if (h[1] != id || h[3] != (r->nonce << 16 | i))
		return V_OTHER;
	return h[2];
}

/* Describe a page on stderr: what runs of its blocks hold. */
static void show(struct run *r, const char *what, unsigned int f,
		 unsigned int p, const unsigned char *b, const int64_t *v)
{
	unsigned int nb = page_size(f) / SB, i, k;
	const struct page *pg = &r->pages[f][p];

	if (r->shown++ >= MAX_SHOWN)
		return;
	fprintf(stderr, "cut %u: %s: pg%u page %u (%u KiB), durable %u, newest written %u, blocks:",
		r->cycle + 1, what, f, p, page_size(f) / 1024, pg->durable,
		pg->last);
	for (i = 0; i < nb; i = k) {
		for (k = i + 1; k < nb && v[k] == v[i]; k++)
			;
		if (v[i] >= 0) {
			fprintf(stderr, " v%lld", (long long)v[i]);
		} else if (v[i] == V_OTHER) {
			uint32_t h[4];

			stamp_decode(b + i * SB, SB, h);
			fprintf(stderr, " other(pg%u page %u v%u blk %u%s)",
				h[1] >> FILE_SHIFT,
				h[1] & ((1u << FILE_SHIFT) - 1), h[2],
				h[3] & 0xffff,
				h[3] >> 16 == r->nonce ? "" : " old run");
		} else {
			fprintf(stderr, " %s", v[i] == V_ZERO ? "zero" : "bad");
		}
		fprintf(stderr, "*%u", k - i);
	}
	fprintf(stderr, "\n");
}

/* Rewrite a page whole with a new version, durably. */
static void repair(struct run *r, unsigned int f, unsigned int p)
{
	unsigned int psz = page_size(f);
	struct page *pg = &r->pages[f][p];
	char path[PATH_MAX + 16];
	int fd;

	file_path(r, f, path, sizeof(path));
	stamp_page(r, r->buf, f, p, ++pg->last);
	fd = open(path, O_RDWR);
	if (fd < 0 || pwrite(fd, r->buf, psz, (off_t)p * psz) != (ssize_t)psz ||
	    fdatasync(fd) || close(fd)) {
		fprintf(stderr, "awpgcrash: %s: rewriting page %u: %s\n", path,
			p, strerror(errno));
		exit(1);
	}
	pg->durable = pg->last;
}

static void judge(struct run *r, unsigned int f, unsigned int p,
		  const unsigned char *b)
{
	unsigned int nb = page_size(f) / SB, i, zero = 0;
	struct page *pg = &r->pages[f][p];
	int64_t v[MAX_PAGE / SB];
	int whole = 1;

	for (i = 0; i < nb; i++) {
		v[i] = block_ver(r, b + i * SB, f << FILE_SHIFT | p, i);
		zero += v[i] == V_ZERO;
		if (v[i] < 0 || v[i] != v[0])
			whole = 0;
	}
	if (whole) {
		if (v[0] < pg->durable) {
			r->lost++;
			show(r, "lost (older than durable)", f, p, b, v);
		} else if (v[0] > pg->last) {
			r->lost++;
			show(r, "garbage (newer than written)", f, p, b, v);
			pg->last = v[0];
		}
		pg->durable = v[0];
		return;
	}
	if (zero == nb) {
		r->lost++;
		show(r, "lost (zeros)", f, p, b, v);
	} else {
		r->torn++;
		show(r, "torn", f, p, b, v);
	}
	repair(r, f, p);
}

static void check(struct run *r)
{
	char path[PATH_MAX + 16];
	unsigned int f, p, psz;
	struct aw_limits lim;
	ssize_t n;
	int fd;

	for (f = 0; f < r->nfiles; f++) {
		psz = page_size(f);
		file_path(r, f, path, sizeof(path));
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "awpgcrash: cut %u: %s: %s\n",
				r->cycle + 1, path, strerror(errno));
			exit(1);
		}
		memset(&lim, 0, sizeof(lim));
		if (r->untorn && (ioctl(fd, AW_IOC_GET_LIMITS, &lim) ||
				  lim.unit_min != psz || lim.unit_max != psz))
			fprintf(stderr, "awpgcrash: cut %u: %s: atomic unit_min %u unit_max %u, not %u (%s)\n",
				r->cycle + 1, path, lim.unit_min, lim.unit_max,
				psz, strerror(errno));
		for (p = 0; p < npages(r, f); p++) {
			n = pread(fd, r->buf, psz, (off_t)p * psz);
			if (n < 0) {
				fprintf(stderr, "awpgcrash: cut %u: %s: reading page %u: %s\n",
					r->cycle + 1, path, p, strerror(errno));
				exit(1);
			}
			/* Past the end (a file cut short): zeros. */
			memset(r->buf + n, 0, psz - n);
			judge(r, f, p, r->buf);
		}
		close(fd);
	}
}

/* ---- power cycles ---- */

/* Run --reattach; 0, or 1 when the attach was refused. */
static int reattach(struct run *r)
{
	char line[PATH_MAX], last[PATH_MAX] = "";
	FILE *f;
	int st;

	setenv("AWPG_DIR", r->dir, 1);
	fflush(stdout);
	fflush(stderr);
	f = popen(r->reattach, "r");
	if (!f) {
		perror("popen");
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			memcpy(last, line, sizeof(last));
	}
	st = pclose(f);
	if (st == 0 && !strcmp(last, "refused"))
		return 1;
	if (st != 0 || !last[0]) {
		fprintf(stderr, "awpgcrash: cut %u: --reattach failed (%s %d, said '%s')\n",
			r->cycle + 1, WIFEXITED(st) ? "exit status" : "wait status",
			WIFEXITED(st) ? WEXITSTATUS(st) : st, last);
		exit(1);
	}
	memcpy(r->dir, last, sizeof(r->dir));
	return 0;
}

/* Errors that say the setup is wrong, not that the power went. */
static int setup_error(int err)
{
	return err == EINVAL || err == EOPNOTSUPP || err == ENOTTY ||
	       err == EFAULT || err == ENOENT || err == EBADF ||
	       err == EACCES || err == EISDIR;
}

/* One power cycle: write, cut, restore, re-attach, check. 1: refused. */
static int cycle(struct run *r, struct wthread *t)
{
	unsigned int cut = rand() % r->cut_max, k;
	long writes = 0, syncs = 0, torn = r->torn, lost = r->lost;
	const struct wthread *failed = NULL;
	char num[32];

	snprintf(num, sizeof(num), "%u", cut);
	ctl_write(r->ctl, "cut_after", num);
	r->issued = 0;
	r->stop = 0;
	for (k = 0; k < r->threads; k++) {
		t[k].rnd = r->seed * 1000003u + r->cycle * 131u + k;
		t[k].npend = 0;
		t[k].writes = t[k].syncs = 0;
		t[k].err = 0;
		t[k].what = NULL;
		if (pthread_create(&t[k].t, NULL, writer, &t[k])) {
			perror("pthread_create");
			exit(2);
		}
	}
	for (k = 0; k < r->threads; k++) {
		pthread_join(t[k].t, NULL);
		writes += t[k].writes;
		syncs += t[k].syncs;
		if (!t[k].err)
			continue;
		if (setup_error(t[k].err)) {
			fprintf(stderr, "awpgcrash: cut %u: writer %u: %s: %s\n",
				r->cycle + 1, k, t[k].what,
				strerror(t[k].err));
			exit(2);
		}
		if (!failed)
			failed = &t[k];
	}
	r->writes += writes;
	r->syncs += syncs;
	if (!failed)	/* the cap came before the cut: cut now */
		ctl_write(r->ctl, "powered", "0");
	if (!r->reattach)
		ctl_write(r->ctl, "powered", "1");
	else if (reattach(r))	/* it restores the power */
		return 1;
	check(r);
	if (r->verbose)
		fprintf(stderr, "pgcrash: cut %u: cut_after=%u writes=%ld syncs=%ld stop=%s%s%s torn=%ld lost=%ld dir=%s\n",
			r->cycle + 1, cut, writes, syncs,
			failed ? failed->what : "cap", failed ? ":" : "",
			failed ? strerror(failed->err) : "", r->torn - torn,
			r->lost - lost, r->dir);
	return 0;
}

static int number(const char *s, unsigned long long max,
		  unsigned long long *val)
{
	char *end;

	errno = 0;
	*val = strtoull(s, &end, 0);
	return !errno && end != s && !*end && *s != '-' && *val <= max;
}

static int usage(void)
{
	fprintf(stderr, "usage: awpgcrash DIR CTLDIR CUTS SEED untorn|plain [--threads N] [--files N]\n"
		"                 [--file-size BYTES] [--cut-max N] [--reattach CMD]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "files", required_argument, NULL, 'f' },
		{ "file-size", required_argument, NULL, 's' },
		{ "cut-max", required_argument, NULL, 'c' },
		{ "reattach", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	struct run r = { .threads = 4, .nfiles = 4, .fsize = 1 << 20,
			 .cut_max = 400 };
	unsigned long long val, cuts, seed;
	unsigned int k, f, p;
	struct wthread *t;
	int o, refused = 0;

	if (argc < 6 || strlen(argv[1]) >= sizeof(r.dir) ||
	    !number(argv[3], UINT_MAX, &cuts) ||
	    !number(argv[4], UINT_MAX, &seed) ||
	    (strcmp(argv[5], "untorn") && strcmp(argv[5], "plain")))
		return usage();
	memcpy(r.dir, argv[1], strlen(argv[1]) + 1);
	r.ctl = argv[2];
	r.seed = seed;
	r.untorn = !strcmp(argv[5], "untorn");
	r.verbose = !!getenv("AWPG_VERBOSE");
	optind = 6;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 't':
			if (!number(optarg, MAX_THREADS, &val) || !val)
				return usage();
			r.threads = val;
			break;
		case 'f':
			if (!number(optarg, MAX_FILES, &val) || !val)
				return usage();
			r.nfiles = val;
			break;
		case 's':
			if (!number(optarg, (8192ULL << FILE_SHIFT), &val))
				return usage();
			r.fsize = val;
			break;
		case 'c':
			if (!number(optarg, UINT_MAX, &val) || !val)
				return usage();
			r.cut_max = val;
			break;
		case 'r':
			r.reattach = optarg;
			break;
		default:
			return usage();
		}
	}
	if (optind != argc)
		return usage();
	if (!r.fsize || r.fsize % MAX_PAGE) {
		fprintf(stderr, "awpgcrash: --file-size must be a multiple of %u\n",
			MAX_PAGE);
		return 2;
	}
	srand(r.seed);
	/* A nonce: stamps of earlier runs are not taken for ours. */
	r.nonce = (time(NULL) ^ getpid() ^ r.seed * 40503u) & 0xffff;
	r.buf = xalloc(MAX_PAGE);
	r.pages = calloc(r.nfiles, sizeof(*r.pages));
	t = calloc(r.threads, sizeof(*t));
	if (!r.pages || !t) {
		perror("calloc");
		return 2;
	}
	for (f = 0; f < r.nfiles; f++)
		r.pages[f] = xalloc(npages(&r, f) * sizeof(struct page));
	for (k = 0; k < r.threads; k++) {
		t[k].r = &r;
		t[k].id = k;
		t[k].buf = xalloc(MAX_PAGE);
		t[k].fd = xalloc(r.nfiles * sizeof(int));
		t[k].own = xalloc(r.nfiles * (npages(&r, 0) / r.threads + 1) *
				  sizeof(uint32_t));
		for (f = 0; f < r.nfiles; f++)
			t[k].fd[f] = -1;
	}
	for (f = 0; f < r.nfiles; f++)
		for (p = 0; p < npages(&r, f); p++) {
			struct wthread *w = &t[(f + p) % r.threads];

			w->own[w->nown++] = f << FILE_SHIFT | p;
		}
	create_files(&r);
	for (r.cycle = 0; r.cycle < cuts; r.cycle++) {
		if (cycle(&r, t)) {
			fprintf(stderr, "awpgcrash: cut %u: --reattach refused\n",
				r.cycle + 1);
			refused = 1;
			r.cycle++;
			break;
		}
	}
	printf("pgcrash mode=%s files=%u threads=%u cuts=%u writes=%ld syncs=%ld torn=%ld lost=%ld seed=%u dir=%s%s\n",
	       argv[5], r.nfiles, r.threads, r.cycle, r.writes, r.syncs,
	       r.torn, r.lost, r.seed, r.dir, refused ? " refused=1" : "");
	return 0;
}
