// SPDX-License-Identifier: GPL-2.0
/*
 * awfuzz: seeded ioctl fuzzer of awblk's control node and devices.
 *
 *   awfuzz SEED CALLS PATH...
 *	makes CALLS ioctls on the PATHs (/dev/awblk-control, /dev/awblkN),
 *	chosen by a xorshift64* PRNG seeded with SEED, then prints
 *	"awfuzz seed=S calls=N ok=K errors: EINVAL=.. EFAULT=.. ..." and exits 0.
 *
 * Commands: 1/2 the real AW_IOC_*, 1/4 type AW_IOC_MAGIC with random number,
 * size and direction, 1/4 random commands of types 0xa0-0xaf, which no block,
 * tty or generic file code handles (not 0xab, nbd's, nor 0xae, kvm's).
 * Arguments: NULL, small integers, an unmapped page, a read-only page, a
 * struct running into the unmapped page, random bytes, or a well-formed
 * struct for the real commands.
 *
 * Only for scratch machines: AW_IOC_ATOMIC_WRITE from readable memory writes
 * into the first 64 MiB of the PATHs, and AW_IOC_CREATE may succeed over any
 * block device (awfuzz removes what it creates at once). The awblkN present
 * at the start are never the target of a well-formed AW_IOC_REMOVE.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "awkit.h"

#define PAGE		4096UL
#define BUF_PAGES	4		/* room for any _IOC_SIZE (< 16 KiB) */
#define DATA_SIZE	(1UL << 20)	/* source of well-formed writes */
#define WRITE_WINDOW	(64ULL << 20)	/* writes stay in the first 64 MiB */
#define MAX_ERRNO	4096
#define MAX_PROTECT	1024

static uint64_t state;
static unsigned char *buf;	/* BUF_PAGES read-write pages */
static unsigned char *unmapped;	/* the page after them, unmapped */
static unsigned char *ro;	/* a read-only page */
static unsigned char *data;	/* DATA_SIZE + PAGE read-write bytes */
static unsigned char protect[MAX_PROTECT];	/* awblkN that existed */

static uint64_t rnd(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* 1 in n. */
static int one_in(unsigned int n)
{
	return below(n) == 0;
}

static void fill_random(void *p, size_t len)
{
	unsigned char *c = p;

	while (len--)
		*c++ = rnd();
}

/* A user pointer the kernel cannot read: NULL, unmapped or kernel space. */
static uint64_t bad_pointer(void)
{
	static const uint64_t kernel[] = {
		0xffff888000000000ULL, 0xffffffff81000000ULL,
		0x0000800000000000ULL, 0xfffffffffffff000ULL,
	};

	if (one_in(3))
		return 0;
	return one_in(2) ? (uintptr_t)unmapped + below(PAGE) : kernel[below(4)];
}

/*
 * Device numbers of SCSI disks and awblk devices that exist (from
 * /sys/class/block). Numbers in range that do not exist are not used:
 * opening one makes the kernel's legacy block autoload run modprobe, seconds
 * a call under emulation; nor are floppies and CD-ROMs, whose opens probe
 * slow emulated hardware.
 */
static uint32_t devs[256][2];
static unsigned int ndevs;

static void load_devs(void)
{
	DIR *dir = opendir("/sys/class/block");
	struct dirent *e;
	char path[300];
	FILE *f;

	while (dir && (e = readdir(dir)) && ndevs < 256) {
		if (strncmp(e->d_name, "sd", 2) && strncmp(e->d_name, "awblk", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &devs[ndevs][0], &devs[ndevs][1]) == 2)
			ndevs++;
		fclose(f);
	}
	if (dir)
		closedir(dir);
}

/* A lower device number: one that exists, or one out of dev_t's range. */
static void pick_dev(struct aw_create *c)
{
	static const uint32_t big_major[] = { 0x1000, 0x7fffffff, 0xffffffff };
	static const uint32_t big_minor[] = { 0x100000, 0x7fffffff, 0xffffffff };

	if (ndevs && one_in(8)) {
		unsigned int i = below(ndevs);

		c->lower_major = devs[i][0];
		c->lower_minor = devs[i][1];
	} else if (one_in(2)) {
		c->lower_major = big_major[below(3)] + (one_in(2) ? 0 : rnd() % 7);
		c->lower_minor = rnd();
	} else {
		c->lower_major = ndevs ? devs[below(ndevs)][0] : 8;
		c->lower_minor = big_minor[below(3)];
	}
}

/* Bytes for unit_max or untorn: 0, a power of two, or anything. */
static uint64_t pick_bytes(void)
{
	if (one_in(3))
		return 0;
	if (one_in(2))
		return 512ULL << below(16);
	return one_in(2) ? rnd() : below(1 << 20);
}

static void make_write(struct aw_atomic_write *w)
{
	uint64_t len, misalign = one_in(4) ? below(PAGE) : 0;

	switch (below(4)) {
	case 0:
		len = 512ULL << below(12);		/* up to 1 MiB */
		break;
	case 1:
		len = 512 * (1 + below(DATA_SIZE / 512));
		break;
	case 2:
		len = below(8193);
		break;
	default:
		len = one_in(2) ? rnd() : DATA_SIZE + 512;
	}
	w->len = len;
	w->flags = one_in(3) ? (uint32_t)rnd() : below(AW_WRITE_FLAGS + 1);
	if (one_in(5)) {
		w->reserved0 = one_in(2) ? rnd() : 0;
		w->reserved[below(4)] = rnd();
	}
	if (len <= DATA_SIZE && !one_in(4)) {
		/* A readable source: keep the write in the first 64 MiB. */
		w->buf = one_in(8) && len <= PAGE ? (uintptr_t)ro :
			 (uintptr_t)data + misalign;
		w->offset = below(WRITE_WINDOW - len + 1);
		if (len && !(len & (len - 1)) && !one_in(4))
			w->offset &= ~(len - 1);	/* naturally aligned */
	} else {
		/* Nothing readable: any offset at all. */
		w->buf = bad_pointer();
		w->offset = one_in(2) ? rnd() : below(WRITE_WINDOW) & ~511ULL;
	}
}

/* Fill buf with a well-formed struct for the real command cmd. */
static void make_struct(unsigned long cmd)
{
	struct aw_create *c = (void *)buf;
	struct aw_remove *r = (void *)buf;

	memset(buf, 0, BUF_PAGES * PAGE);
	if (cmd == AW_IOC_CREATE) {
		pick_dev(c);
		c->engine = one_in(4) ? (uint32_t)rnd() : below(AW_ENGINE_MAX + 3);
		c->flags = one_in(5) ? (uint32_t)rnd() : 0;
		c->unit_max = pick_bytes();
		c->untorn = pick_bytes();
		c->index = one_in(4) ? rnd() : 0;
		if (one_in(6))
			c->reserved[below(6)] = rnd();
		if (one_in(5)) {
			/* Hardware info: any length, a wild or a real pointer. */
			c->hwinfo_len = one_in(3) ? (uint32_t)rnd() :
				below(AW_HWINFO_MAX + 2);
			c->hwinfo = one_in(3) ? rnd() : (uintptr_t)(buf + PAGE);
			if (one_in(2))
				((uint32_t *)(buf + PAGE))[0] = below(3);
		}
	} else if (cmd == AW_IOC_REMOVE) {
		r->index = one_in(2) ? below(16) : (uint32_t)rnd();
		if (r->index < MAX_PROTECT && protect[r->index])
			r->index = 0xffffffffU - below(256);
		r->flags = one_in(5) ? (uint32_t)rnd() : 0;
		if (one_in(6))
			r->reserved[below(6)] = rnd();
	} else if (cmd == AW_IOC_ATOMIC_WRITE) {
		make_write((void *)buf);
	} else {
		fill_random(buf, BUF_PAGES * PAGE);
	}
}

static unsigned long pick_cmd(void)
{
	static const unsigned long real[] = {
		AW_IOC_CREATE, AW_IOC_REMOVE, AW_IOC_GET_LIMITS,
		AW_IOC_ATOMIC_WRITE,
	};
	unsigned int type;

	switch (below(4)) {
	case 0:
	case 1:
		return real[below(4)];
	case 2:
		return _IOC(below(4), AW_IOC_MAGIC, below(256), below(1 << 14));
	default:
		do
			type = 0xa0 + below(16);
		while (type == AW_IOC_MAGIC || type == 0xab || type == 0xae);
		return _IOC(below(4), type, below(256), below(1 << 14));
	}
}

static unsigned long pick_arg(unsigned long cmd)
{
	unsigned long arg;

	switch (below(8)) {
	case 0:
		return 0;
	case 1:
		return below(4097);
	case 2:
		return (uintptr_t)unmapped + (one_in(2) ? 0 : below(PAGE));
	case 3:
		return (uintptr_t)ro;
	case 4:		/* the struct runs into the unmapped page */
		make_struct(cmd);
		arg = 8 * (1 + below(8));
		memmove(unmapped - arg, buf, arg);
		return (uintptr_t)unmapped - arg;
	case 5:
		fill_random(buf, BUF_PAGES * PAGE);
		return (uintptr_t)buf;
	default:
		make_struct(cmd);
		return (uintptr_t)buf;
	}
}

/* Mark the awblkN that exist now, so that no well-formed remove hits them. */
static void protect_existing(void)
{
	char path[64];
	unsigned int i;

	for (i = 0; i < MAX_PROTECT; i++) {
		snprintf(path, sizeof(path), "/sys/block/awblk%u", i);
		protect[i] = access(path, F_OK) == 0;
	}
}

static int parse_num(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !*s || *end || errno;
}

int main(int argc, char **argv)
{
	static unsigned long counts[MAX_ERRNO];
	unsigned long long seed, calls, n, ok = 0;
	struct aw_remove rm;
	int *fds, nfds, i, e;
	unsigned char *map;
	unsigned long cmd, arg;
	uint32_t index;

	if (argc < 4 || parse_num(argv[1], &seed) ||
	    parse_num(argv[2], &calls)) {
		fprintf(stderr, "usage: awfuzz SEED CALLS PATH...\n");
		return 2;
	}
	state = seed ^ 0x9e3779b97f4a7c15ULL;
	if (!state)
		state = 1;
	load_devs();

	nfds = argc - 3;
	fds = calloc(nfds, sizeof(*fds));
	for (i = 0; fds && i < nfds; i++) {
		fds[i] = open(argv[i + 3], O_RDWR | O_CLOEXEC);
		if (fds[i] < 0)
			fds[i] = open(argv[i + 3], O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			perror(argv[i + 3]);
			return 2;
		}
	}

	/* buf, then an unmapped page, then a read-only one. */
	map = mmap(NULL, (BUF_PAGES + 2) * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	data = mmap(NULL, DATA_SIZE + PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	buf = map;
	unmapped = map + BUF_PAGES * PAGE;
	ro = unmapped + PAGE;
	if (!fds || map == MAP_FAILED || data == MAP_FAILED ||
	    munmap(unmapped, PAGE) || mprotect(ro, PAGE, PROT_READ)) {
		perror("awfuzz: memory");
		return 2;
	}
	fill_random(data, DATA_SIZE + PAGE);
	protect_existing();

	for (n = 0; n < calls; n++) {
		cmd = pick_cmd();
		arg = pick_arg(cmd);
		i = below(nfds);
		if (ioctl(fds[i], cmd, arg) < 0) {
			e = errno < MAX_ERRNO ? errno : 0;
			counts[e]++;
			continue;
		}
		ok++;
		/* A create that worked (by any number): remove what it made. */
		if (_IOC_TYPE(cmd) != AW_IOC_MAGIC || _IOC_NR(cmd) != 1 ||
		    arg != (uintptr_t)buf)
			continue;
		memcpy(&index, buf + offsetof(struct aw_create, index),
		       sizeof(index));
		memset(&rm, 0, sizeof(rm));
		rm.index = index;
		if (ioctl(fds[i], AW_IOC_REMOVE, &rm) < 0)
			fprintf(stderr, "awfuzz: created awblk%u, remove: %s\n",
				index, strerror(errno));
	}

	printf("awfuzz seed=%llu calls=%llu ok=%llu errors:", seed, calls, ok);
	for (e = 0; e < MAX_ERRNO; e++) {
		if (counts[e] && e && strerrorname_np(e))
			printf(" %s=%lu", strerrorname_np(e), counts[e]);
		else if (counts[e])
			printf(" E%d=%lu", e, counts[e]);
	}
	printf("\n");
	return 0;
}
