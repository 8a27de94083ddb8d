/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wire.h — the report wire format of doc/protocol.md (b): one ASCII line
 * "hs1 step=N samples=N ckpt=N" per datagram, at most HS_WIRE_MAX bytes.
 * Formatting is used by the job-side library, parsing by the listener in
 * slurmstepd (root), so the parser treats its input as hostile: it reads
 * exactly len bytes (no NUL terminator needed), never allocates, and
 * rejects anything outside the grammar with a reason.
 */
#ifndef HS_REPORT_WIRE_H
#define HS_REPORT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define HS_WIRE_MAX 255               /* bytes per report, "\n" included */
#define HS_WIRE_VALUE_MAX 999999999999999ULL /* 15 digits, < 2^53 */

enum {
	HS_WIRE_HAS_STEP = 1,
	HS_WIRE_HAS_SAMPLES = 2,
	HS_WIRE_HAS_CKPT = 4,
};

typedef struct hs_wire_report {
	unsigned has;                 /* HS_WIRE_HAS_* bits */
	uint64_t step;                /* cumulative mini-batches completed */
	uint64_t samples;             /* cumulative samples (needs step) */
	uint64_t ckpt;                /* checkpoint saved at this step */
} hs_wire_report_t;

/* Parses one datagram of len bytes. Returns 0 and fills *r, or -1 and sets
 * *why to a static string naming the first problem. */
int hs_wire_parse(const char *buf, size_t len, hs_wire_report_t *r, const char **why);

/* Formats r into buf (size >= HS_WIRE_MAX + 1, NUL-terminated, no "\n").
 * Returns the length, or -1 when r is not a valid report (no step/ckpt,
 * samples without step, a value above HS_WIRE_VALUE_MAX). Async-signal-safe
 * and allocation-free: it is on the training loop's hot path. */
int hs_wire_format(const hs_wire_report_t *r, char *buf, size_t size);

#endif /* HS_REPORT_WIRE_H */
