/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of the kernel's <scsi/scsi_proto.h> for awkit's pure files:
 * the opcodes, service actions and sense keys they use, values as there.
 */
#ifndef AW_SHIM_SCSI_PROTO_H
#define AW_SHIM_SCSI_PROTO_H

#include <linux/types.h>

#define TEST_UNIT_READY       0x00
#define REQUEST_SENSE         0x03
#define READ_6                0x08
#define WRITE_6               0x0a
#define INQUIRY               0x12
#define MODE_SENSE            0x1a
#define START_STOP            0x1b
#define READ_CAPACITY         0x25
#define READ_10               0x28
#define WRITE_10              0x2a
#define SYNCHRONIZE_CACHE     0x35
#define MODE_SENSE_10         0x5a
#define READ_16               0x88
#define WRITE_16              0x8a
#define SYNCHRONIZE_CACHE_16  0x91
#define WRITE_ATOMIC_16       0x9c
#define SERVICE_ACTION_IN_16  0x9e
#define REPORT_LUNS           0xa0
#define MAINTENANCE_IN        0xa3

/* Values for SERVICE ACTION IN(16) and MAINTENANCE IN service actions. */
#define SAI_READ_CAPACITY_16  0x10
#define MI_REPORT_SUPPORTED_OPERATION_CODES 0x0c

/* Sense keys. */
#define NO_SENSE            0x00
#define NOT_READY           0x02
#define MEDIUM_ERROR        0x03
#define ILLEGAL_REQUEST     0x05
#define UNIT_ATTENTION      0x06

#endif /* AW_SHIM_SCSI_PROTO_H */
