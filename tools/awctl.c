// SPDX-License-Identifier: GPL-2.0
/*
 * awctl: create, remove, list and inspect awblk devices, make (atomic)
 * test writes, and format a device for the software engine. Talks to
 * /dev/awblk-control and /dev/awblkN through libaw and the uapi header;
 * reads /sys/block/awblkN/ for the list; writes the software engine's
 * superblock with engines/sw/sw_format.c, the code the kernel reads it with.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>		/* BLKSSZGET, BLKGETSIZE64 */
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "libaw.h"
#include "nvme_id.h"
#include "sw_format_host.h"	/* ARRAY_SIZE too, from the shim */

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define EXIT_FAIL	1	/* the kernel or the system said no */
#define EXIT_USAGE	2	/* bad command line */

#define CONTROL_PATH	"/dev/" AW_CONTROL_NAME
#define MAX_LENGTH	(1ULL << 30)	/* awctl write buffers it all */

static const char usage_main[] =
"usage: awctl COMMAND [ARGS]\n"
"\n"
"  create LOWER [--engine auto|scsi|nvme|sw|none] [--unit-max BYTES]\n"
"               [--untorn BYTES]      a new /dev/awblkN over block device LOWER\n"
"  remove awblkN|/dev/awblkN|N        remove an awblk device\n"
"  list                               one line per awblk device\n"
"  info DEV                           atomic write limits of DEV\n"
"  write DEV --offset BYTES --length BYTES [--atomic] [--dsync]\n"
"        [--pattern BYTE | --from FILE]   write to DEV (destroys its data)\n"
"  format LOWER [--journal BYTES] [--unit-max BYTES] [--force]\n"
"                                     prepare LOWER for the software engine\n"
"                                     (destroys its data)\n"
"\n"
"BYTES is a number of bytes, or with a k, m or g suffix KiB, MiB or GiB.\n"
"'awctl COMMAND --help' describes COMMAND.\n"
"\n"
"Exit status: 0 success, 1 the operation failed (the kernel or the system\n"
"said no, or format refused), 2 usage error (unknown command or option, missing argument, bad\n"
"number).\n";

static const char usage_create[] =
"usage: awctl create LOWER [--engine auto|scsi|nvme|sw|none]\n"
"                          [--unit-max BYTES] [--untorn BYTES]\n"
"Creates /dev/awblkN over the block device LOWER and prints its path.\n"
"  --engine    who makes atomic writes (default auto: from LOWER)\n"
"  --unit-max  cap on atomic_write_unit_max (default 0: no cap)\n"
"  --untorn    untorn unit in bytes (default 0: off)\n"
"Over an NVMe namespace, awctl reads its Identify data (as nvme-cli does)\n"
"and hands it to the nvme engine, which derives the atomic unit from it.\n";

static const char usage_remove[] =
"usage: awctl remove awblkN|/dev/awblkN|N\n"
"Removes the awblk device N.\n";

static const char usage_list[] =
"usage: awctl list\n"
"Prints 'awblkN lower=DEV engine=NAME untorn=BYTES size=BYTES' for each\n"
"awblk device; nothing when there is none.\n";

static const char usage_info[] =
"usage: awctl info DEV\n"
"Prints the atomic write limits of DEV, an awblk device, another block\n"
"device (as the kernel reports them with statx) or a regular file.\n";

static const char usage_write[] =
"usage: awctl write DEV --offset BYTES --length BYTES [--atomic] [--dsync]\n"
"                   [--pattern BYTE | --from FILE]\n"
"Writes LENGTH bytes (1 GiB at most) at OFFSET of DEV, destroying what\n"
"was there.\n"
"  --atomic   all or nothing (awblk ioctl or RWF_ATOMIC with O_DIRECT)\n"
"  --dsync    durable on return\n"
"  --pattern  the byte to repeat, 0-255 (default 0)\n"
"  --from     take the first LENGTH bytes of FILE\n";

static const char usage_format[] =
"usage: awctl format LOWER [--journal BYTES] [--unit-max BYTES] [--force]\n"
"Writes the software engine's superblock on LOWER, a block device (opened\n"
"exclusively) or an image file, so that 'awctl create LOWER' gives a device\n"
"with atomic writes on it. Everything LOWER held is lost.\n"
"  --journal   journal size (default: 64 of the largest atomic writes, at\n"
"              least 4 MiB and at most 1/8 of LOWER)\n"
"  --unit-max  largest atomic write, a power of two from the logical block\n"
"              size to 1 MiB (default 64k)\n"
"  --force     format even over a filesystem, volume, partition table or\n"
"              earlier awkit format found on LOWER\n"
"Without --force, format refuses (exit 1) a LOWER that carries a known\n"
"signature or an awkit superblock, intact or damaged. It writes only the\n"
"first 68 KiB of LOWER: the superblock, then zeroes, so that no earlier\n"
"signature survives.\n";

/* "awctl: <what>: <strerror>" for a failed operation; returns EXIT_FAIL. */
static int fail(const char *what)
{
	fprintf(stderr, "awctl: %s: %s\n", what, strerror(errno));
	return EXIT_FAIL;
}

/* fail() for the ioctl that failed on fd, which is closed. */
static int fail_close(int fd, const char *what)
{
	int err = errno;

	close(fd);
	errno = err;
	return fail(what);
}

/* Usage error msg (one %s: arg) of command cmd (NULL: none); EXIT_USAGE. */
static int bad_usage(const char *cmd, const char *msg, const char *arg)
{
	fprintf(stderr, "awctl: ");
	fprintf(stderr, msg, arg);
	fprintf(stderr, "\nTry 'awctl %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
	return EXIT_USAGE;
}

/* Plain decimal bytes, or with a k/K, m/M, g/G suffix (powers of 1024). */
static int parse_bytes(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	}
	if (shift)
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

/*
 * getopt_long over argv (argv[0] is the command name). Returns the option,
 * or -2 after reporting a usage error.
 */
static int next_opt(int argc, char **argv, const struct option *opts)
{
	char opt[3] = "-?";
	int c = getopt_long(argc, argv, ":h", opts, NULL);

	if (c != '?' && c != ':')
		return c;
	/* optopt: the unknown short option; 0 for an unknown long one. */
	opt[1] = (char)optopt;
	if (c == ':')
		bad_usage(argv[0], "option '%s' needs an argument",
			  argv[optind - 1]);
	else
		bad_usage(argv[0], "unknown option '%s'",
			  optopt && strncmp(argv[optind - 1], "--", 2) ?
			  opt : argv[optind - 1]);
	return -2;
}

/* /dev/awblk-control open for ioctls, or -1 after saying why not. */
static int open_control(void)
{
	int fd = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	fail(CONTROL_PATH);
	if (access(CONTROL_PATH, F_OK) < 0)
		fprintf(stderr, "awctl: is awblk.ko loaded?\n");
	return -1;
}

/*
 * The NVMe engine learns the namespace's atomic unit from its Identify
 * data, read here as nvme-cli reads it. Not an NVMe namespace: nothing to
 * add. Identify failing: an error when the NVMe engine was asked for by
 * name, otherwise the kernel goes on without it.
 */
static int nvme_hwinfo(const char *path, struct aw_create *c, bool required)
{
	static struct aw_nvme_id id __attribute__((aligned(4096)));
	unsigned int nsid;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(path);
	if (!aw_is_nvme_ns(fd)) {
		close(fd);
		return 0;
	}
	memset(&id, 0, sizeof(id));
	err = aw_nvme_identify(fd, &nsid, id.ctrl, id.ns);
	close(fd);
	if (err) {
		fprintf(stderr, "awctl: %s: NVMe Identify failed: %s\n", path,
			strerror(-err));
		return required ? -1 : 0;
	}
	id.type = AW_HWINFO_NVME_ID;
	id.nsid = nsid;
	c->hwinfo = (uintptr_t)&id;
	c->hwinfo_len = sizeof(id);
	return 0;
}

/* A decimal sysfs value, 0 when there is none. */
static unsigned long sysfs_ulong(const char *path)
{
	unsigned long v = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * Does the disk under @dev (or the disk of the partition @dev) report atomic
 * writes? The kernel's own limits where it has them (6.11+), else the SCSI
 * Block Limits VPD page's MAXIMUM ATOMIC TRANSFER LENGTH (SBC-4, byte 44).
 */
static bool lower_reports_atomic(dev_t dev)
{
	static const char *const up[] = { "", "/.." };
	unsigned char b0[64];
	char p[96];
	size_t i, n;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(up); i++) {
		snprintf(p, sizeof(p),
			 "/sys/dev/block/%u:%u%s/queue/atomic_write_unit_max_bytes",
			 major(dev), minor(dev), up[i]);
		if (sysfs_ulong(p))
			return true;
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u%s/device/vpd_pgb0",
			 major(dev), minor(dev), up[i]);
		f = fopen(p, "rb");
		if (!f)
			continue;
		n = fread(b0, 1, sizeof(b0), f);
		fclose(f);
		if (n == sizeof(b0) && b0[1] == 0xb0 &&
		    (b0[44] | b0[45] | b0[46] | b0[47]))
			return true;
	}
	return false;
}

static void read_attr(const char *path, char *buf, size_t len);

/*
 * --engine auto found no engine for a disk that reports atomic writes: its
 * engine module is missing. A device without atomic writes is not what the
 * user asked for: say so and take it away again.
 */
static int engineless(int fd, const char *lower, unsigned int index)
{
	struct aw_remove r = { .index = index };
	char p[64], engine[16];

	snprintf(p, sizeof(p), "/sys/block/awblk%u/awblk/engine", index);
	read_attr(p, engine, sizeof(engine));
	if (strcmp(engine, "none"))
		return 0;
	fprintf(stderr,
		"awctl: %s reports atomic writes but no engine drives it (its engine module, awscsi_engine or awnvme, is not installed or cannot load); no device made (--engine none makes one without atomic writes)\n",
		lower);
	if (ioctl(fd, AW_IOC_REMOVE, &r) < 0)
		fprintf(stderr, "awctl: remove awblk%u: %s\n", index,
			strerror(errno));
	return EXIT_FAIL;
}

static int cmd_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "engine", required_argument, NULL, 'e' },
		{ "unit-max", required_argument, NULL, 'u' },
		{ "untorn", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const engines[] = {
		[AW_ENGINE_AUTO] = "auto", [AW_ENGINE_NONE] = "none",
		[AW_ENGINE_SCSI] = "scsi", [AW_ENGINE_NVME] = "nvme",
		[AW_ENGINE_SW] = "sw",
	};
	struct aw_create c;
	struct stat st;
	unsigned int e;
	uint64_t v;
	char what[PATH_MAX + 32];
	int fd, opt;

	memset(&c, 0, sizeof(c));
	c.engine = AW_ENGINE_AUTO;
	while ((opt = next_opt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_create, stdout);
			return 0;
		case 'e':
			for (e = 0; e <= AW_ENGINE_MAX; e++)
				if (!strcmp(optarg, engines[e]))
					break;
			if (e > AW_ENGINE_MAX)
				return bad_usage("create",
						 "unknown engine '%s'", optarg);
			c.engine = e;
			break;
		case 'u':
			if (parse_bytes(optarg, &v))
				return bad_usage("create",
						 "bad --unit-max '%s'", optarg);
			c.unit_max = v;
			break;
		case 't':
			if (parse_bytes(optarg, &v))
				return bad_usage("create",
						 "bad --untorn '%s'", optarg);
			c.untorn = v;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return bad_usage("create", "%s", "create needs one LOWER");

	if (stat(argv[optind], &st) < 0)
		return fail(argv[optind]);
	if (!S_ISBLK(st.st_mode)) {
		fprintf(stderr, "awctl: %s is not a block device\n",
			argv[optind]);
		return EXIT_FAIL;
	}
	c.lower_major = major(st.st_rdev);
	c.lower_minor = minor(st.st_rdev);
	if ((c.engine == AW_ENGINE_AUTO || c.engine == AW_ENGINE_NVME) &&
	    nvme_hwinfo(argv[optind], &c, c.engine == AW_ENGINE_NVME))
		return EXIT_FAIL;

	fd = open_control();
	if (fd < 0)
		return EXIT_FAIL;
	if (ioctl(fd, AW_IOC_CREATE, &c) < 0) {
		snprintf(what, sizeof(what), "create over %s", argv[optind]);
		return fail_close(fd, what);
	}
	if (c.engine == AW_ENGINE_AUTO && lower_reports_atomic(st.st_rdev) &&
	    engineless(fd, argv[optind], c.index)) {
		close(fd);
		return EXIT_FAIL;
	}
	close(fd);
	printf("/dev/awblk%u\n", c.index);
	return 0;
}

/* N of "awblkN", "/dev/awblkN" or "N"; -1 when s is none of them. */
static long parse_index(const char *s)
{
	unsigned long v;
	char *end;

	if (!strncmp(s, "/dev/", 5))
		s += 5;
	if (!strncmp(s, "awblk", 5))
		s += 5;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	return v;
}

static int cmd_remove(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct aw_remove r;
	char what[64];
	long idx;
	int fd, opt;

	while ((opt = next_opt(argc, argv, opts)) != -1) {
		if (opt != 'h')
			return EXIT_USAGE;
		fputs(usage_remove, stdout);
		return 0;
	}
	if (optind != argc - 1)
		return bad_usage("remove", "%s", "remove needs one device");
	idx = parse_index(argv[optind]);
	if (idx < 0)
		return bad_usage("remove", "'%s' is not an awblk device",
				 argv[optind]);

	memset(&r, 0, sizeof(r));
	r.index = idx;
	fd = open_control();
	if (fd < 0)
		return EXIT_FAIL;
	if (ioctl(fd, AW_IOC_REMOVE, &r) < 0) {
		snprintf(what, sizeof(what), "remove awblk%ld", idx);
		return fail_close(fd, what);
	}
	close(fd);
	return 0;
}

/* The first line of a sysfs file, without its newline; "?" if unreadable. */
static void read_attr(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	if (!f || !fgets(buf, len, f))
		snprintf(buf, len, "?");
	else
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

static int by_index(const struct dirent **a, const struct dirent **b)
{
	unsigned long x = strtoul((*a)->d_name + 5, NULL, 10);
	unsigned long y = strtoul((*b)->d_name + 5, NULL, 10);

	return (x > y) - (x < y);
}

static int is_awblk(const struct dirent *d)
{
	return !strncmp(d->d_name, "awblk", 5) && d->d_name[5] &&
	       strspn(d->d_name + 5, "0123456789") == strlen(d->d_name + 5);
}

static int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char path[PATH_MAX], lower[256], engine[64], untorn[64], size[64];
	struct dirent **ents;
	unsigned long long sectors;
	char *end;
	int n, i, opt;

	while ((opt = next_opt(argc, argv, opts)) != -1) {
		if (opt != 'h')
			return EXIT_USAGE;
		fputs(usage_list, stdout);
		return 0;
	}
	if (optind != argc)
		return bad_usage("list", "%s", "list takes no arguments");

	n = scandir("/sys/block", &ents, is_awblk, by_index);
	if (n < 0)
		return errno == ENOENT ? 0 : fail("/sys/block");
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		snprintf(path, sizeof(path), "/sys/block/%s/awblk/lower", name);
		read_attr(path, lower, sizeof(lower));
		snprintf(path, sizeof(path), "/sys/block/%s/awblk/engine", name);
		read_attr(path, engine, sizeof(engine));
		snprintf(path, sizeof(path), "/sys/block/%s/awblk/untorn", name);
		read_attr(path, untorn, sizeof(untorn));
		snprintf(path, sizeof(path), "/sys/block/%s/size", name);
		read_attr(path, size, sizeof(size));

		/* The engine may be a number or already a name. */
		if (isdigit((unsigned char)engine[0]))
			snprintf(engine, sizeof(engine), "%s",
				 aw_engine_name(strtoul(engine, NULL, 10)));
		sectors = strtoull(size, &end, 10);
		if (isdigit((unsigned char)size[0]) && !*end)
			snprintf(size, sizeof(size), "%llu", sectors * 512);

		printf("%s lower=%s engine=%s untorn=%s size=%s\n",
		       name, lower, engine, untorn, size);
		free(ents[i]);
	}
	free(ents);
	return 0;
}

static int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char path[PATH_MAX], lower[256];
	struct aw_limits lim;
	struct stat st;
	const char *dev, *base;
	int fd, opt;

	while ((opt = next_opt(argc, argv, opts)) != -1) {
		if (opt != 'h')
			return EXIT_USAGE;
		fputs(usage_info, stdout);
		return 0;
	}
	if (optind != argc - 1)
		return bad_usage("info", "%s", "info needs one DEV");
	dev = argv[optind];

	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(dev);
	if (aw_limits(fd, &lim) < 0 || fstat(fd, &st) < 0)
		return fail_close(fd, dev);
	close(fd);

	printf("atomic_write_unit_min: %u\n", lim.unit_min);
	printf("atomic_write_unit_max: %u\n", lim.unit_max);
	printf("atomic_write_max_bytes: %u\n", lim.max_bytes);
	printf("atomic_write_boundary: %u\n", lim.boundary);
	printf("atomic_write_segments_max: %u\n", lim.segments_max);
	/* Limits report the engine in use: "auto" there means the kernel's. */
	printf("engine: %s\n", lim.engine == AW_ENGINE_AUTO ? "native" :
	       aw_engine_name(lim.engine));
	printf("untorn: %u\n", lim.untorn);
	printf("logical_block_size: %u\n", lim.logical_block_size);
	printf("size: %llu\n", (unsigned long long)lim.size);

	if (S_ISBLK(st.st_mode)) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/awblk/lower",
			 major(st.st_rdev), minor(st.st_rdev));
	} else {
		base = strrchr(dev, '/');
		base = base ? base + 1 : dev;
		snprintf(path, sizeof(path), "/sys/block/%s/awblk/lower", base);
	}
	if (access(path, R_OK) == 0) {
		read_attr(path, lower, sizeof(lower));
		printf("lower: %s\n", lower);
	}
	return 0;
}

/* Fill buf with the first len bytes of file; -1 (errno set) if it has less. */
static int read_from(const char *file, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	if (got < len && n == 0)
		errno = ENODATA;
	close(fd);
	return got < len ? -1 : 0;
}

static int cmd_write(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "length", required_argument, NULL, 'l' },
		{ "atomic", no_argument, NULL, 'a' },
		{ "dsync", no_argument, NULL, 'd' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "from", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t off = UINT64_MAX, len = UINT64_MAX;
	const char *dev, *from = NULL;
	unsigned long pattern = 0;
	int atomic = 0, dsync = 0, have_pattern = 0;
	int fd, opt, flags, ret = EXIT_FAIL;
	char what[PATH_MAX + 64], *end;
	ssize_t n;
	void *buf;

	while ((opt = next_opt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_write, stdout);
			return 0;
		case 'o':
			if (parse_bytes(optarg, &off) || off > INT64_MAX)
				return bad_usage("write", "bad --offset '%s'",
						 optarg);
			break;
		case 'l':
			if (parse_bytes(optarg, &len) || !len ||
			    len > MAX_LENGTH)
				return bad_usage("write", "bad --length '%s'",
						 optarg);
			break;
		case 'a':
			atomic = 1;
			break;
		case 'd':
			dsync = 1;
			break;
		case 'p':
			errno = 0;
			pattern = strtoul(optarg, &end, 0);
			if (errno || !isdigit((unsigned char)*optarg) ||
			    *end || pattern > 255)
				return bad_usage("write", "bad --pattern '%s'",
						 optarg);
			have_pattern = 1;
			break;
		case 'f':
			from = optarg;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return bad_usage("write", "%s", "write needs one DEV");
	if (off == UINT64_MAX || len == UINT64_MAX)
		return bad_usage("write", "%s",
				 "write needs --offset and --length");
	if (have_pattern && from)
		return bad_usage("write", "%s",
				 "--pattern and --from exclude each other");
	dev = argv[optind];

	errno = posix_memalign(&buf, 4096, len);
	if (errno)
		return fail("buffer");
	if (from) {
		if (read_from(from, buf, len) < 0) {
			if (errno == ENODATA)
				fprintf(stderr,
					"awctl: %s: shorter than %llu bytes\n",
					from, (unsigned long long)len);
			else
				fail(from);
			goto out;
		}
	} else {
		memset(buf, (int)pattern, len);
	}

	/* RWF_ATOMIC needs O_DIRECT; the awblk ioctl does not mind it. */
	flags = O_RDWR | O_CLOEXEC;
	if (atomic)
		flags |= O_DIRECT;
	else if (dsync)
		flags |= O_DSYNC;
	fd = open(dev, flags);
	if (fd < 0) {
		fail(dev);
		goto out;
	}
	if (atomic)
		n = aw_pwrite_atomic(fd, buf, len, off,
				     dsync ? AW_WRITE_DSYNC : 0);
	else
		n = pwrite(fd, buf, len, off);
	if (n < 0) {
		snprintf(what, sizeof(what), "%s write at %llu of %s",
			 atomic ? "atomic" : "plain", (unsigned long long)off,
			 dev);
		fail(what);
	} else if ((uint64_t)n != len) {
		fprintf(stderr, "awctl: %s: short write, %zd of %llu bytes\n",
			dev, n, (unsigned long long)len);
	} else {
		printf("wrote %llu bytes at %llu\n", (unsigned long long)len,
		       (unsigned long long)off);
		ret = 0;
	}
	close(fd);
out:
	free(buf);
	return ret;
}

/* All of len bytes at off of fd, retrying short reads; -1 (errno) if not. */
static int pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = pread(fd, (char *)buf + got, len - got, off + got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = ENODATA;
			return -1;
		}
		got += n;
	}
	return 0;
}

static int pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pwrite(fd, (const char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = ENOSPC;
			return -1;
		}
		done += n;
	}
	return 0;
}

/* "N GiB", "N MiB" or "N KiB" when exact, else "N bytes". */
static const char *size_str(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = { "GiB", "MiB", "KiB" };
	unsigned int i, shift;

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		shift = 30 - 10 * i;
		if (v && !(v & ((1ULL << shift) - 1))) {
			snprintf(buf, len, "%llu %s",
				 (unsigned long long)(v >> shift), units[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu bytes", (unsigned long long)v);
	return buf;
}

/* "data D at S, journal J, atomic writes up to U bytes" for sb. */
static void layout_str(const struct awsw_sb *sb, char *buf, size_t len)
{
	char d[32], s[32], j[32];

	snprintf(buf, len, "data %s at %s, journal %s, atomic writes up to %u bytes",
		 size_str(sb->data_size, d, sizeof(d)),
		 size_str(sb->data_start, s, sizeof(s)),
		 size_str(sb->journal_size, j, sizeof(j)), sb->unit_max);
}

/* A random uuid that is not all zero (the format does not allow that). */
static int random_uuid(u8 *uuid)
{
	static const u8 zero[AWSW_UUID_LEN];
	ssize_t n;

	do {
		n = getrandom(uuid, AWSW_UUID_LEN, 0);
		if (n < 0 && errno != EINTR)
			return -1;
	} while (n != AWSW_UUID_LEN || !memcmp(uuid, zero, AWSW_UUID_LEN));
	return 0;
}

/*
 * What LOWER holds that format must not destroy without --force: its first
 * AWSW_PROBE_BYTES in buf. NULL if nothing; else a message for "awctl:
 * LOWER: <message>" in msg. *part is set when it is a partition table.
 */
static const char *format_obstacle(const u8 *buf, uint64_t size, int lbs,
				   char *msg, size_t len, bool *part)
{
	struct awsw_sb old;
	const char *why, *found;
	char l[160];

	*part = false;
	switch (awsw_sb_decode(buf, AWSW_PROBE_BYTES, size, lbs, &old, &why)) {
	case 0:
		layout_str(&old, l, sizeof(l));
		snprintf(msg, len, "already formatted for the software engine (%s)",
			 l);
		return msg;
	case -ENODATA:
		break;
	default:
		snprintf(msg, len, "holds a damaged awkit superblock (%s)", why);
		return msg;
	}
	found = awsw_foreign_signature(buf, AWSW_PROBE_BYTES);
	if (!found)
		return NULL;
	*part = strstr(found, "partition table") != NULL;
	snprintf(msg, len, "holds a signature of %s", found);
	return msg;
}

static int cmd_format(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "unit-max", required_argument, NULL, 'u' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static u8 buf[AWSW_PROBE_BYTES];
	uint64_t journal = 0, unit_max = 0, size;
	char what[256], l[160];
	const char *dev, *why, *obstacle;
	bool force = false, part;
	struct awsw_sb sb;
	struct stat st, fst;
	int fd, opt, lbs;

	while ((opt = next_opt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_format, stdout);
			return 0;
		case 'j':
			if (parse_bytes(optarg, &journal) || !journal)
				return bad_usage("format", "bad --journal '%s'",
						 optarg);
			break;
		case 'u':
			if (parse_bytes(optarg, &unit_max) || !unit_max)
				return bad_usage("format", "bad --unit-max '%s'",
						 optarg);
			break;
		case 'f':
			force = true;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return bad_usage("format", "%s", "format needs one LOWER");
	dev = argv[optind];

	if (stat(dev, &st) < 0)
		return fail(dev);
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "awctl: %s is not a block device or a regular file\n",
			dev);
		return EXIT_FAIL;
	}
	/* Exclusive: a mounted or otherwise held device is EBUSY. */
	fd = open(dev, O_RDWR | O_CLOEXEC | (S_ISBLK(st.st_mode) ? O_EXCL : 0));
	if (fd < 0)
		return fail(dev);
	if (fstat(fd, &fst) < 0)
		return fail_close(fd, dev);
	if ((fst.st_mode ^ st.st_mode) & S_IFMT) {
		close(fd);
		fprintf(stderr, "awctl: %s changed while being opened\n", dev);
		return EXIT_FAIL;
	}
	if (S_ISBLK(fst.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size) < 0 ||
		    ioctl(fd, BLKSSZGET, &lbs) < 0)
			return fail_close(fd, dev);
	} else {
		size = fst.st_size;
		lbs = 512;
	}

	/* Values above 32 bits are no power of two the format allows. */
	if (awsw_layout(size, lbs, journal,
			unit_max > UINT32_MAX ? UINT32_MAX : unit_max, &sb,
			&why)) {
		close(fd);
		fprintf(stderr, "awctl: %s: cannot format: %s (%llu bytes, logical block size %d)\n",
			dev, why, (unsigned long long)size, lbs);
		return EXIT_FAIL;
	}
	/* The layout needs more than a MiB, so all of buf is there to read. */
	if (pread_full(fd, buf, sizeof(buf), 0) < 0)
		return fail_close(fd, dev);
	obstacle = format_obstacle(buf, size, lbs, what, sizeof(what), &part);
	if (obstacle && !force) {
		close(fd);
		fprintf(stderr, "awctl: %s: %s; not formatting it without --force, which destroys what it holds\n",
			dev, obstacle);
		return EXIT_FAIL;
	}
	if (obstacle)
		fprintf(stderr, "awctl: %s: %s; formatting over it (--force)\n",
			dev, obstacle);
	if (random_uuid(sb.uuid) < 0)
		return fail_close(fd, "getrandom");

	/*
	 * Zeroes over everything a signature could be found in, then the
	 * superblock. The journal is left as it is: records bind to the uuid
	 * and their position, so old ones are never taken for new.
	 */
	memset(buf, 0, sizeof(buf));
	awsw_sb_encode(&sb, buf);
	if (pwrite_full(fd, buf, sizeof(buf), 0) < 0 || fsync(fd) < 0)
		return fail_close(fd, dev);
	if (close(fd) < 0)
		return fail(dev);

	/* Best effort: drop the partitions of the table just overwritten. */
	if (part && S_ISBLK(st.st_mode)) {
		fd = open(dev, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (ioctl(fd, BLKRRPART) < 0)
				fprintf(stderr, "awctl: %s: rereading the partition table: %s\n",
					dev, strerror(errno));
			close(fd);
		}
	}
	layout_str(&sb, l, sizeof(l));
	printf("formatted %s: %s\n", dev, l);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "create", cmd_create },
		{ "remove", cmd_remove },
		{ "list", cmd_list },
		{ "info", cmd_info },
		{ "write", cmd_write },
		{ "format", cmd_format },
	};
	unsigned int i;

	if (argc < 2) {
		fputs(usage_main, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(argv[1], cmds[i].name)) {
			opterr = 0;
			return cmds[i].fn(argc - 1, argv + 1);
		}
	}
	return bad_usage(NULL, "unknown command '%s'", argv[1]);
}
