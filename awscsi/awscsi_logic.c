// SPDX-License-Identifier: GPL-2.0
/*
 * awscsi pure logic: see awscsi_logic.h. Everything here works on byte
 * buffers and the disk's configuration; data movement, locking and the
 * media model live in awscsi_main.c.
 */
#include "awscsi_logic.h"

#define AWS_VENDOR	"AWKIT   "
#define AWS_PRODUCT	"awscsi          "
#define AWS_REVISION	"0001"

/* One supported command, for dispatch and for REPORT SUPPORTED OPCODES. */
struct awscsi_cmd {
	u8 op;
	u16 sa;			/* service action, when has_sa */
	bool has_sa;
	u8 cdb_len;
	enum awscsi_kind kind;
	u8 usage[16];		/* CDB usage bitmap, byte 0 is the opcode */
};

static const struct awscsi_cmd awscsi_cmds[] = {
	{ TEST_UNIT_READY, 0, false, 6, AWS_K_TUR,
	  { 0x00, 0, 0, 0, 0, 0xc7 } },
	{ REQUEST_SENSE, 0, false, 6, AWS_K_REQUEST_SENSE,
	  { 0x03, 0x01, 0, 0, 0xff, 0xc7 } },
	{ READ_6, 0, false, 6, AWS_K_READ,
	  { 0x08, 0x1f, 0xff, 0xff, 0xff, 0xc7 } },
	{ WRITE_6, 0, false, 6, AWS_K_WRITE,
	  { 0x0a, 0x1f, 0xff, 0xff, 0xff, 0xc7 } },
	{ INQUIRY, 0, false, 6, AWS_K_INQUIRY,
	  { 0x12, 0x01, 0xff, 0xff, 0xff, 0xc7 } },
	{ MODE_SENSE, 0, false, 6, AWS_K_MODE_SENSE,
	  { 0x1a, 0x08, 0xff, 0xff, 0xff, 0xc7 } },
	{ START_STOP, 0, false, 6, AWS_K_START_STOP,
	  { 0x1b, 0x01, 0, 0x0f, 0xf7, 0xc7 } },
	{ READ_CAPACITY, 0, false, 10, AWS_K_READ_CAPACITY,
	  { 0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0xc7 } },
	{ READ_10, 0, false, 10, AWS_K_READ,
	  { 0x28, 0x08, 0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xc7 } },
	{ WRITE_10, 0, false, 10, AWS_K_WRITE,
	  { 0x2a, 0x08, 0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xc7 } },
	{ SYNCHRONIZE_CACHE, 0, false, 10, AWS_K_SYNC,
	  { 0x35, 0x02, 0xff, 0xff, 0xff, 0xff, 0x3f, 0xff, 0xff, 0xc7 } },
	{ MODE_SENSE_10, 0, false, 10, AWS_K_MODE_SENSE,
	  { 0x5a, 0x18, 0xff, 0xff, 0, 0, 0, 0xff, 0xff, 0xc7 } },
	{ READ_16, 0, false, 16, AWS_K_READ,
	  { 0x88, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0, 0xc7 } },
	{ WRITE_16, 0, false, 16, AWS_K_WRITE,
	  { 0x8a, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0, 0xc7 } },
	{ SYNCHRONIZE_CACHE_16, 0, false, 16, AWS_K_SYNC,
	  { 0x91, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0x3f, 0xc7 } },
	{ WRITE_ATOMIC_16, 0, false, 16, AWS_K_WRITE_ATOMIC,
	  { 0x9c, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0, 0xc7 } },
	{ SERVICE_ACTION_IN_16, SAI_READ_CAPACITY_16, true, 16,
	  AWS_K_READ_CAPACITY,
	  { 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0,
	    0xc7 } },
	{ REPORT_LUNS, 0, false, 12, AWS_K_REPORT_LUNS,
	  { 0xa0, 0, 0xff, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0xc7 } },
	{ MAINTENANCE_IN, MI_REPORT_SUPPORTED_OPERATION_CODES, true, 12,
	  AWS_K_REPORT_OPCODES,
	  { 0xa3, 0x0c, 0x87, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0,
	    0xc7 } },
};

#define AWS_NCMDS ARRAY_SIZE(awscsi_cmds)

static void awscsi_set_sense(struct awscsi_sense *s, u8 key, u8 asc, u8 ascq,
			     int field)
{
	s->key = key;
	s->asc = asc;
	s->ascq = ascq;
	s->field = (s16)field;
}

static void awscsi_invalid_field(struct awscsi_sense *s, int field)
{
	awscsi_set_sense(s, ILLEGAL_REQUEST, AWS_ASC_INVALID_FIELD, 0, field);
}

/* Why the configuration cannot work, or NULL when it can. */
const char *awscsi_cfg_check(const struct awscsi_cfg *c)
{
	if (c->lbs != 512 && c->lbs != 1024 && c->lbs != 2048 &&
	    c->lbs != 4096)
		return "sector_size must be 512, 1024, 2048 or 4096";
	if (c->physblk_exp > 15)
		return "physblk_exp must be at most 15";
	if (c->nblocks < 64)
		return "dev_size_mb is too small";
	if (!c->atomic)
		return NULL;
	if (!c->atomic_max && !c->atomic_max_bndry_len)
		return "atomic_wr=1 needs atomic_wr_max_length or atomic_wr_max_length_bndry";
	if (c->atomic_max_bndry_len && !c->atomic_max_bndry)
		return "atomic_wr_max_length_bndry needs atomic_wr_max_bndry";
	if (c->atomic_max && c->atomic_gran > c->atomic_max)
		return "atomic_wr_gran is larger than atomic_wr_max_length";
	if (c->atomic_max_bndry_len && c->atomic_gran > c->atomic_max_bndry_len)
		return "atomic_wr_gran is larger than atomic_wr_max_length_bndry";
	if (c->atomic_align > c->nblocks)
		return "atomic_wr_align is larger than the disk";
	return NULL;
}

static const struct awscsi_cmd *awscsi_find_cmd(u8 op, u16 sa)
{
	size_t i;

	for (i = 0; i < AWS_NCMDS; i++)
		if (awscsi_cmds[i].op == op &&
		    (!awscsi_cmds[i].has_sa || awscsi_cmds[i].sa == sa))
			return &awscsi_cmds[i];
	return NULL;
}

static const struct awscsi_cmd *awscsi_find_any_sa(u8 op)
{
	size_t i;

	for (i = 0; i < AWS_NCMDS; i++)
		if (awscsi_cmds[i].op == op)
			return &awscsi_cmds[i];
	return NULL;
}

static u16 awscsi_cdb_sa(const u8 *cdb)
{
	return cdb[1] & 0x1f;
}

static bool awscsi_cmd_enabled(const struct awscsi_cfg *c,
			       const struct awscsi_cmd *m)
{
	return m && (m->kind != AWS_K_WRITE_ATOMIC || c->atomic);
}

enum awscsi_kind awscsi_classify(const struct awscsi_cfg *c, const u8 *cdb,
				 u32 cdb_len, struct awscsi_sense *s)
{
	const struct awscsi_cmd *m = awscsi_find_cmd(cdb[0], awscsi_cdb_sa(cdb));

	if (!awscsi_cmd_enabled(c, m) || cdb_len < m->cdb_len) {
		awscsi_set_sense(s, ILLEGAL_REQUEST, AWS_ASC_INVALID_OPCODE, 0,
				 -1);
		return AWS_K_NONE;
	}
	return m->kind;
}

int awscsi_decode_rw(const u8 *cdb, struct awscsi_rw *rw)
{
	memset(rw, 0, sizeof(*rw));
	switch (cdb[0]) {
	case READ_6:
	case WRITE_6:
		rw->lba = (u64)(cdb[1] & 0x1f) << 16 |
			  get_unaligned_be16(cdb + 2);
		rw->nblocks = cdb[4] ? cdb[4] : 256;
		return 0;
	case READ_10:
	case WRITE_10:
	case SYNCHRONIZE_CACHE:
		rw->lba = get_unaligned_be32(cdb + 2);
		rw->nblocks = get_unaligned_be16(cdb + 7);
		break;
	case READ_16:
	case WRITE_16:
	case SYNCHRONIZE_CACHE_16:
		rw->lba = get_unaligned_be64(cdb + 2);
		rw->nblocks = get_unaligned_be32(cdb + 10);
		break;
	case WRITE_ATOMIC_16:
		rw->lba = get_unaligned_be64(cdb + 2);
		rw->boundary = get_unaligned_be16(cdb + 10);
		rw->nblocks = get_unaligned_be16(cdb + 12);
		break;
	default:
		return -EINVAL;
	}
	rw->fua = cdb[1] & 0x08;
	return 0;
}

/*
 * The device-side rules of WRITE ATOMIC(16), in the order the reference
 * emulator applies them: alignment, granularity, then the length against the
 * maximum that applies to the boundary the command asks for.
 */
static int awscsi_check_atomic(const struct awscsi_cfg *c,
			       const struct awscsi_rw *rw,
			       struct awscsi_sense *s)
{
	if (c->atomic_align && rw->lba % c->atomic_align) {
		awscsi_invalid_field(s, -1);
		return -EINVAL;
	}
	if (c->atomic_gran && rw->nblocks % c->atomic_gran) {
		awscsi_invalid_field(s, -1);
		return -EINVAL;
	}
	if (rw->boundary) {
		if (rw->boundary > c->atomic_max_bndry ||
		    rw->nblocks > c->atomic_max_bndry_len) {
			awscsi_invalid_field(s, 12);
			return -EINVAL;
		}
	} else if (rw->nblocks > c->atomic_max) {
		awscsi_invalid_field(s, 12);
		return -EINVAL;
	}
	return 0;
}

int awscsi_check_rw(const struct awscsi_cfg *c, enum awscsi_kind k,
		    const struct awscsi_rw *rw, struct awscsi_sense *s)
{
	if (k == AWS_K_WRITE_ATOMIC && awscsi_check_atomic(c, rw, s))
		return -EINVAL;
	if (rw->lba > c->nblocks || rw->nblocks > c->nblocks - rw->lba) {
		awscsi_set_sense(s, ILLEGAL_REQUEST, AWS_ASC_LBA_OUT_OF_RANGE,
				 0, -1);
		return -ERANGE;
	}
	return 0;
}

/* Fixed-format sense data; returns its length. */
u32 awscsi_sense_fixed(const struct awscsi_sense *s, u8 *buf, u32 len)
{
	if (len < AWS_SENSE_LEN)
		return 0;
	memset(buf, 0, AWS_SENSE_LEN);
	buf[0] = 0x70;
	buf[2] = s->key;
	buf[7] = AWS_SENSE_LEN - 8;
	buf[12] = s->asc;
	buf[13] = s->ascq;
	if (s->field >= 0) {
		buf[15] = 0x80 | 0x40;	/* SKSV, C/D: the field is in the CDB */
		put_unaligned_be16((u16)s->field, buf + 16);
	}
	return AWS_SENSE_LEN;
}

u32 awscsi_alloc_len(const u8 *cdb)
{
	switch (cdb[0]) {
	case INQUIRY:
		return get_unaligned_be16(cdb + 3);
	case REQUEST_SENSE:
	case MODE_SENSE:
		return cdb[4];
	case MODE_SENSE_10:
		return get_unaligned_be16(cdb + 7);
	case READ_CAPACITY:
		return 8;
	case SERVICE_ACTION_IN_16:
		return get_unaligned_be32(cdb + 10);
	case REPORT_LUNS:
		return get_unaligned_be32(cdb + 6);
	case MAINTENANCE_IN:
		return get_unaligned_be32(cdb + 6);
	default:
		return 0;
	}
}

static int awscsi_vpd_b0(const struct awscsi_cfg *c, u8 *buf)
{
	buf[1] = 0xb0;
	put_unaligned_be16(AWS_VPD_B0_LEN, buf + 2);
	put_unaligned_be16((u16)(1u << c->physblk_exp), buf + 6);
	put_unaligned_be32(c->max_xfer, buf + 8);
	put_unaligned_be32(1024, buf + 12);	/* optimal transfer length */
	put_unaligned_be64(0xffff, buf + 36);	/* maximum write same length */
	if (c->atomic) {
		put_unaligned_be32(c->atomic_max, buf + 44);
		put_unaligned_be32(c->atomic_align, buf + 48);
		put_unaligned_be32(c->atomic_gran, buf + 52);
		put_unaligned_be32(c->atomic_max_bndry_len, buf + 56);
		put_unaligned_be32(c->atomic_max_bndry, buf + 60);
	}
	return 4 + AWS_VPD_B0_LEN;
}

static int awscsi_vpd_83(const struct awscsi_cfg *c, u8 *buf)
{
	u8 *d = buf + 4;
	/* NAA 3 (locally assigned) name, unique per disk and module build. */
	u64 naa = 0x3000000000000000ULL | 0x00a3c5100000ULL | c->index;

	buf[1] = 0x83;
	d[0] = 0x01;		/* binary code set */
	d[1] = 0x03;		/* LU association, NAA designator */
	d[3] = 8;
	put_unaligned_be64(naa, d + 4);
	d += 12;
	d[0] = 0x02;		/* ASCII */
	d[1] = 0x01;		/* T10 vendor ID designator */
	d[3] = 8 + 16 + 8;
	memcpy(d + 4, AWS_VENDOR, 8);
	memcpy(d + 12, AWS_PRODUCT, 16);
	d[28] = '0' + (c->index / 1000) % 10;
	d[29] = '0' + (c->index / 100) % 10;
	d[30] = '0' + (c->index / 10) % 10;
	d[31] = '0' + c->index % 10;
	memcpy(d + 32, "AWSC", 4);
	d += 36;
	put_unaligned_be16((u16)(d - buf - 4), buf + 2);
	return (int)(d - buf);
}

static int awscsi_vpd_page(const struct awscsi_cfg *c, u8 page, u8 *buf)
{
	static const u8 pages[] = { 0x00, 0x80, 0x83, 0xb0, 0xb1 };

	switch (page) {
	case 0x00:
		buf[3] = sizeof(pages);
		memcpy(buf + 4, pages, sizeof(pages));
		return 4 + sizeof(pages);
	case 0x80:
		buf[1] = 0x80;
		buf[3] = 10;
		memcpy(buf + 4, "AWSCSI", 6);
		buf[10] = '0' + (c->index / 1000) % 10;
		buf[11] = '0' + (c->index / 100) % 10;
		buf[12] = '0' + (c->index / 10) % 10;
		buf[13] = '0' + c->index % 10;
		return 14;
	case 0x83:
		return awscsi_vpd_83(c, buf);
	case 0xb0:
		return awscsi_vpd_b0(c, buf);
	case 0xb1:
		buf[1] = 0xb1;
		put_unaligned_be16(AWS_VPD_B0_LEN, buf + 2);
		put_unaligned_be16(1, buf + 4);	/* non-rotating medium */
		buf[7] = 5;			/* form factor: less than 1.8" */
		return 4 + AWS_VPD_B0_LEN;
	default:
		return -1;
	}
}

int awscsi_inquiry(const struct awscsi_cfg *c, const u8 *cdb, u8 *buf,
		   u32 len, struct awscsi_sense *s)
{
	int n;

	if (len < 512)
		return -1;
	memset(buf, 0, 512);
	if (cdb[1] & 0x01) {
		n = awscsi_vpd_page(c, cdb[2], buf);
		if (n < 0)
			awscsi_invalid_field(s, 2);
		return n;
	}
	if (cdb[2]) {
		awscsi_invalid_field(s, 2);
		return -1;
	}
	buf[2] = 0x07;			/* SPC-5 */
	buf[3] = 0x12;			/* HiSup, response data format 2 */
	buf[4] = 96 - 5;
	buf[7] = 0x02;			/* CmdQue */
	memcpy(buf + 8, AWS_VENDOR, 8);
	memcpy(buf + 16, AWS_PRODUCT, 16);
	memcpy(buf + 32, AWS_REVISION, 4);
	put_unaligned_be16(0x00c0, buf + 58);	/* SAM-6 */
	put_unaligned_be16(0x05c0, buf + 60);	/* SPC-5 */
	put_unaligned_be16(0x0600, buf + 62);	/* SBC-4 */
	return 96;
}

int awscsi_read_capacity(const struct awscsi_cfg *c, const u8 *cdb, u8 *buf,
			 u32 len, struct awscsi_sense *s)
{
	u64 last = c->nblocks - 1;

	(void)s;
	if (len < 32)
		return -1;
	memset(buf, 0, 32);
	if (cdb[0] == READ_CAPACITY) {
		put_unaligned_be32(min_t(u64, last, U32_MAX), buf);
		put_unaligned_be32(c->lbs, buf + 4);
		return 8;
	}
	put_unaligned_be64(last, buf);
	put_unaligned_be32(c->lbs, buf + 8);
	buf[13] = c->physblk_exp & 0x0f;
	return 32;
}

/* Mode pages: caching (0x08) and control (0x0a), current or default. */
static int awscsi_mode_page(const struct awscsi_cfg *c, u8 page, u8 pc, u8 *p)
{
	bool changeable = pc == 1;

	switch (page) {
	case 0x08:
		memset(p, 0, 20);
		p[0] = 0x08;
		p[1] = 0x12;
		if (!changeable && c->wce && pc == 0)
			p[2] = 0x04;	/* WCE */
		if (!changeable) {
			/* disable prefetch length, maximum prefetch, ceiling */
			put_unaligned_be16(0xffff, p + 4);
			put_unaligned_be16(0xffff, p + 8);
			put_unaligned_be16(0xffff, p + 10);
		}
		return 20;
	case 0x0a:
		memset(p, 0, 12);
		p[0] = 0x0a;
		p[1] = 0x0a;
		if (!changeable)	/* busy timeout period */
			put_unaligned_be16(0xffff, p + 8);
		return 12;
	default:
		return -1;
	}
}

int awscsi_mode_sense(const struct awscsi_cfg *c, const u8 *cdb, u8 *buf,
		      u32 len, struct awscsi_sense *s)
{
	bool ten = cdb[0] == MODE_SENSE_10;
	bool dbd = cdb[1] & 0x08;
	bool llba = ten && (cdb[1] & 0x10);
	u8 pc = cdb[2] >> 6, page = cdb[2] & 0x3f, subpage = cdb[3];
	u32 hdr = ten ? 8 : 4, bd = dbd ? 0 : (llba ? 16 : 8), off;
	int n;

	if (len < 512)
		return -1;
	if (pc == 3) {
		awscsi_set_sense(s, ILLEGAL_REQUEST, AWS_ASC_SAVING_NOT_SUP,
				 0, -1);
		return -1;
	}
	if (subpage != 0 && subpage != 0xff) {
		awscsi_invalid_field(s, 3);
		return -1;
	}
	memset(buf, 0, 512);
	off = hdr;
	if (bd == 8) {
		u64 nb = min_t(u64, c->nblocks, U32_MAX);

		put_unaligned_be32((u32)nb, buf + off);
		put_unaligned_be32(c->lbs & 0xffffff, buf + off + 4);
	} else if (bd == 16) {
		put_unaligned_be64(c->nblocks, buf + off);
		put_unaligned_be32(c->lbs, buf + off + 12);
	}
	off += bd;
	if (page == 0x3f) {
		off += (u32)awscsi_mode_page(c, 0x08, pc, buf + off);
		off += (u32)awscsi_mode_page(c, 0x0a, pc, buf + off);
	} else {
		n = awscsi_mode_page(c, page, pc, buf + off);
		if (n < 0) {
			awscsi_invalid_field(s, 2);
			return -1;
		}
		off += (u32)n;
	}
	if (ten) {
		put_unaligned_be16((u16)(off - 2), buf);
		buf[3] = c->fua ? 0x10 : 0;	/* DPOFUA */
		buf[4] = llba ? 1 : 0;
		put_unaligned_be16((u16)bd, buf + 6);
	} else {
		buf[0] = (u8)(off - 1);
		buf[2] = c->fua ? 0x10 : 0;	/* DPOFUA */
		buf[3] = (u8)bd;
	}
	return (int)off;
}

int awscsi_report_luns(const u8 *cdb, u8 *buf, u32 len,
		       struct awscsi_sense *s)
{
	u8 select = cdb[2];

	if (len < 16)
		return -1;
	if (select != 0 && select != 1 && select != 2 && select < 0x10) {
		awscsi_invalid_field(s, 2);
		return -1;
	}
	memset(buf, 0, 16);
	if (select == 1 || select >= 0x10)
		return 8;	/* no well-known logical units */
	put_unaligned_be32(8, buf);	/* one LUN: 0 */
	return 16;
}

/* The one-command form of REPORT SUPPORTED OPERATION CODES. */
static int awscsi_rsoc_one(const struct awscsi_cfg *c, const u8 *cdb, u8 *buf,
			   bool rctd, struct awscsi_sense *s)
{
	u8 opt = cdb[2] & 0x07, op = cdb[3];
	u16 sa = get_unaligned_be16(cdb + 4);
	const struct awscsi_cmd *m = awscsi_find_cmd(op, opt == 1 ? 0 : sa);
	int n;

	/* Option 1 names an opcode alone, option 2 an opcode and service action. */
	if (opt == 1 && !m)
		m = awscsi_find_any_sa(op);
	if (m && ((opt == 1 && m->has_sa) || (opt == 2 && !m->has_sa))) {
		awscsi_invalid_field(s, 2);
		return -1;
	}
	if (!awscsi_cmd_enabled(c, m)) {
		buf[1] = 0x01;	/* not supported */
		return 4;
	}
	buf[1] = (rctd ? 0x80 : 0) | 0x03;	/* supported as the standard says */
	put_unaligned_be16(m->cdb_len, buf + 2);
	memcpy(buf + 4, m->usage, m->cdb_len);
	/* FUA, in byte 1 of the 10- and 16-byte CDBs: as DPOFUA says. */
	if (!c->fua && m->cdb_len >= 10 && (m->kind == AWS_K_READ ||
	    m->kind == AWS_K_WRITE || m->kind == AWS_K_WRITE_ATOMIC))
		buf[5] &= ~0x08;
	n = 4 + m->cdb_len;
	if (rctd) {
		put_unaligned_be16(0x0a, buf + n);
		n += 12;
	}
	return n;
}

int awscsi_report_opcodes(const struct awscsi_cfg *c, const u8 *cdb, u8 *buf,
			  u32 len, struct awscsi_sense *s)
{
	bool rctd = cdb[2] & 0x80;
	u8 opt = cdb[2] & 0x07;
	u32 off = 4, dlen = rctd ? 20 : 8;
	size_t i;

	if (len < 4 + AWS_NCMDS * 20)
		return -1;
	memset(buf, 0, 4 + AWS_NCMDS * 20);
	if (opt >= 1 && opt <= 3)
		return awscsi_rsoc_one(c, cdb, buf, rctd, s);
	if (opt != 0) {
		awscsi_invalid_field(s, 2);
		return -1;
	}
	for (i = 0; i < AWS_NCMDS; i++) {
		const struct awscsi_cmd *m = &awscsi_cmds[i];
		u8 *d = buf + off;

		if (!awscsi_cmd_enabled(c, m))
			continue;
		d[0] = m->op;
		put_unaligned_be16(m->sa, d + 2);
		d[5] = (m->has_sa ? 0x01 : 0) | (rctd ? 0x02 : 0);
		put_unaligned_be16(m->cdb_len, d + 6);
		if (rctd)
			put_unaligned_be16(0x0a, d + 8);
		off += dlen;
	}
	put_unaligned_be32(off - 4, buf);
	return (int)off;
}
