/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.h — the job's measurement record kept in its AdminComment
 * (doc/protocol.md (c)): per GPU type steps/s EMA, the GPU type history of
 * its incarnations, the last reported step and the last checkpoint.
 * Written by spank_hetsched in slurmstepd, read by the sched plugin and by
 * tests; this is the one parser and formatter of that format (json-c).
 * Parsing validates every field: a malformed record is an error with a
 * message, never a crash or a partial trust.
 */
#ifndef HS_REPORT_RECORD_H
#define HS_REPORT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h" /* hs_err_t */

#define HS_RECORD_VERSION 1
#define HS_RECORD_MAX_BYTES 1000   /* formatted size limit, NUL excluded */
#define HS_RECORD_MAX_TYPES 8
#define HS_RECORD_MAX_HIST 8
#define HS_RECORD_GPU_MAX 64       /* GPU type key length, NUL included */
#define HS_RECORD_MODEL_MAX 128    /* the job's --hs-model, NUL included
                                    * (HS_HINT_MODEL_MAX + 1) */

typedef struct hs_record_thr {
	char gpu[HS_RECORD_GPU_MAX];   /* "v100", "v100:shared" */
	double sps;                    /* EMA of steps/s, > 0 */
	unsigned long n;               /* samples behind sps */
	int64_t t;                     /* unix time of the last sample */
} hs_record_thr_t;

typedef struct hs_record_hist {
	char gpu[HS_RECORD_GPU_MAX];
	unsigned rc;                   /* Slurm restart count */
	int64_t t;                     /* start time */
} hs_record_hist_t;

typedef struct hs_record {  /* (struct tag: snapshot.h refers to it) */
	int nthr;
	hs_record_thr_t thr[HS_RECORD_MAX_TYPES];
	int nhist;
	hs_record_hist_t hist[HS_RECORD_MAX_HIST];  /* oldest first */
	int has_step, has_samples;
	uint64_t step, samples;
	int64_t t;                     /* unix time of the last report */
	int has_ckpt;
	uint64_t ckpt_step;
	int64_t ckpt_t;
	/* the job's --hs-model as its steps saw it ("" = none): Slurm keeps
	 * no spank_job_env in accounting, so this is how `hetsched learned
	 * --from-sacct` finds the kind the plugin named by model */
	char model[HS_RECORD_MODEL_MAX];
} hs_record_t;

void hs_record_init(hs_record_t *r);

/* Is text an hetsched record at all (a JSON object with "hs")? An empty
 * or NULL text counts as "no record yet" and returns 1: the plugin may
 * write. Anything else (an administrator's comment) returns 0. */
int hs_record_is_ours(const char *text);

/* Parses text (NULL or "" gives an empty record). Returns -1 with a
 * message on anything that is not a valid version-1 record. */
int hs_record_parse(hs_record_t *r, const char *text, hs_err_t *err);

/* Formats r as compact JSON into buf; drops the oldest history entries
 * and then the least recently updated types until the text fits in
 * HS_RECORD_MAX_BYTES (and size). Returns the length or -1. */
int hs_record_format(const hs_record_t *r, char *buf, size_t size, hs_err_t *err);

/* A valid GPU type key: 1..63 bytes of [A-Za-z0-9_.+:-]. */
int hs_record_gpu_valid(const char *gpu);

/* The entry of a GPU type, or NULL. */
const hs_record_thr_t *hs_record_thr_find(const hs_record_t *r, const char *gpu);
/* Sets the entry of a GPU type, evicting the least recently updated type
 * when full. Returns -1 on an invalid gpu or sps. */
int hs_record_thr_set(hs_record_t *r, const char *gpu, double sps,
		      unsigned long n, int64_t t);
/* Appends an incarnation unless the last entry already has this rc and
 * gpu; drops the oldest when full. Returns -1 on an invalid gpu. */
int hs_record_hist_add(hs_record_t *r, const char *gpu, unsigned rc, int64_t t);

#endif /* HS_REPORT_RECORD_H */
