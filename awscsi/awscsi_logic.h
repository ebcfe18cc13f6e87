/* SPDX-License-Identifier: GPL-2.0 */
/*
 * awscsi pure logic: the SCSI target side of an emulated atomic-write disk.
 * CDB decoding, device-side checks, sense data, INQUIRY/VPD, READ CAPACITY,
 * MODE SENSE and REPORT SUPPORTED OPERATION CODES encoding. No kernel-only
 * dependencies: the host unit tests link this file too.
 */
#ifndef AWSCSI_LOGIC_H
#define AWSCSI_LOGIC_H

#include "aw_pure.h"
#include <scsi/scsi_proto.h>

/*
 * Opcodes, service actions and sense keys are scsi/scsi_proto.h's; the
 * additional sense codes awscsi uses are here.
 */
#define AWS_ASC_INVALID_OPCODE	0x20
#define AWS_ASC_LBA_OUT_OF_RANGE 0x21
#define AWS_ASC_INVALID_FIELD	0x24
#define AWS_ASC_PARAM_LIST_LEN	0x1a
#define AWS_ASC_SAVING_NOT_SUP	0x39
#define AWS_ASC_POWER_ON_RESET	0x29	/* POWER ON, RESET, OR BUS DEVICE RESET */

#define AWS_SENSE_LEN		18
#define AWS_VPD_B0_LEN		0x3c	/* page length of Block Limits */

/* What one emulated disk is: the module parameters, checked. */
struct awscsi_cfg {
	u32 lbs;		/* logical block size, bytes */
	u32 physblk_exp;	/* logical blocks per physical block, log2 */
	u64 nblocks;		/* capacity in logical blocks */
	u32 max_xfer;		/* VPD max transfer length, blocks; 0 = none */
	u32 index;		/* disk number, for serial and identifiers */
	bool wce;		/* volatile write cache enabled */
	bool fua;		/* DPOFUA: the FUA bit is honoured */
	bool atomic;		/* atomic_wr */
	u32 atomic_max;		/* atomic_wr_max_length */
	u32 atomic_align;	/* atomic_wr_align */
	u32 atomic_gran;	/* atomic_wr_gran */
	u32 atomic_max_bndry_len; /* atomic_wr_max_length_bndry */
	u32 atomic_max_bndry;	/* atomic_wr_max_bndry */
};

/* A CHECK CONDITION: sense key, ASC/ASCQ and an optional CDB field pointer. */
struct awscsi_sense {
	u8 key;
	u8 asc;
	u8 ascq;
	s16 field;		/* byte of the CDB at fault, -1 when none */
};

enum awscsi_kind {
	AWS_K_NONE,		/* unsupported */
	AWS_K_TUR, AWS_K_REQUEST_SENSE, AWS_K_INQUIRY, AWS_K_MODE_SENSE,
	AWS_K_START_STOP, AWS_K_READ_CAPACITY, AWS_K_READ, AWS_K_WRITE,
	AWS_K_WRITE_ATOMIC, AWS_K_SYNC, AWS_K_REPORT_LUNS,
	AWS_K_REPORT_OPCODES,
};

/* A decoded media access command. */
struct awscsi_rw {
	u64 lba;
	u32 nblocks;
	u16 boundary;		/* WRITE ATOMIC(16) ATOMIC BOUNDARY */
	bool fua;
};

const char *awscsi_cfg_check(const struct awscsi_cfg *c);
enum awscsi_kind awscsi_classify(const struct awscsi_cfg *c, const u8 *cdb,
				 u32 cdb_len, struct awscsi_sense *s);
int awscsi_decode_rw(const u8 *cdb, struct awscsi_rw *rw);
int awscsi_check_rw(const struct awscsi_cfg *c, enum awscsi_kind k,
		    const struct awscsi_rw *rw, struct awscsi_sense *s);
u32 awscsi_sense_fixed(const struct awscsi_sense *s, u8 *buf, u32 len);

/*
 * Response builders: fill buf (len bytes, at least 512) and return the full
 * length of the response, or -1 with *s set for a CHECK CONDITION. The
 * caller copies min(return, allocation length, buffer length).
 */
int awscsi_inquiry(const struct awscsi_cfg *c, const u8 *cdb, u8 *buf,
		   u32 len, struct awscsi_sense *s);
int awscsi_read_capacity(const struct awscsi_cfg *c, const u8 *cdb, u8 *buf,
			 u32 len, struct awscsi_sense *s);
int awscsi_mode_sense(const struct awscsi_cfg *c, const u8 *cdb, u8 *buf,
		      u32 len, struct awscsi_sense *s);
int awscsi_report_luns(const u8 *cdb, u8 *buf, u32 len,
		       struct awscsi_sense *s);
int awscsi_report_opcodes(const struct awscsi_cfg *c, const u8 *cdb, u8 *buf,
			  u32 len, struct awscsi_sense *s);
u32 awscsi_alloc_len(const u8 *cdb);

#endif /* AWSCSI_LOGIC_H */
