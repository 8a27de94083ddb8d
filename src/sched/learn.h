/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn.h — throughputs learned online, per kind of job (issue 26).
 *
 * A site has no throughput table for its own models. Jobs report the
 * steps/s they measure on each GPU type (AdminComment, doc/protocol.md
 * (c)); this module keeps those reports per *kind* of job, GPU type and
 * GPU count, so that the next job of the same kind starts with an
 * estimate, and infers the types a kind has not run on from the site's
 * own speedup matrix. doc/learning.md explains the model to admins.
 *
 * Kinds (hs_learn_kind): the job's model hint when it has one; else its
 * job name unless the name is generic (sbatch --wrap, an interactive
 * shell); else its job array; else the job itself (it learns only from
 * itself). A kind is always prefixed by its scope: the user (default),
 * the account or the whole site (LearnScope=). Reports of one scope never
 * change the estimates of another, the speedup matrix included.
 *
 * A cell (kind, GPU count, type) holds a robust running mean: the mean
 * of its first HS_LEARN_WINDOW samples, then a moving average over that
 * window; once HS_LEARN_CONFIDENT samples agree, a sample more than
 * HS_LEARN_OUTLIER times off is counted as an outlier and left out, and
 * HS_LEARN_RESET outliers in a row restart the cell from the new value
 * (a real change, e.g. a new software version). Values outside the
 * bounds of estimate.c's measured values are refused.
 *
 * Inference: S[t][u], the weighted geometric mean of rate(t) / rate(u)
 * over the scope's cells measured on both t and u (weight: the lesser
 * sample count), gives rate(t) = rate(u) * S[t][u] for a kind measured on
 * u only. Across GPU counts: the scope's kinds measured on type t at two
 * counts or more fit rate(sf) ~ sf^beta_t (weighted least squares on log
 * ratios; beta over all types when t has no pair), so a kind measured
 * on t at sf' only gets rate(sf') (sf / sf')^beta_t at sf, from the
 * nearest count, at a lower confidence. A kind measured nowhere gets the
 * scope's relative type speeds (geometric mean 1) as a prior. A kind
 * measured on two types or more is also compared with the scope's kinds
 * that measured those types and the missing one, the most alike weighing
 * most (learn_near.c); that is blended with the matrix. Each estimate has
 * a confidence in [0, 1].
 *
 * Bounded: at most max_kinds entries (kind, GPU count); the least
 * recently seen is evicted. Slurm-free, no global state: everything lives
 * in an hs_learn_t the caller owns.
 */
#ifndef HS_SCHED_LEARN_H
#define HS_SCHED_LEARN_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

#define HS_LEARN_TYPES 16        /* GPU types learned (more are ignored) */
#define HS_LEARN_KIND_MAX 192    /* bytes of a kind with its scope, NUL included */
#define HS_LEARN_WINDOW 20
#define HS_LEARN_CONFIDENT 3
#define HS_LEARN_OUTLIER 10.0
#define HS_LEARN_RESET 3
#define HS_LEARN_DEFAULT_KINDS 4096
#define HS_LEARN_NEAR_MAX 64     /* kinds the nearest-kinds inference compares */

typedef enum hs_learn_scope {
	HS_LEARN_SCOPE_USER = 0,
	HS_LEARN_SCOPE_ACCOUNT,
	HS_LEARN_SCOPE_SITE,
} hs_learn_scope_t;

typedef struct hs_learn_cell {
	double rate;               /* steps/s, 0 = never measured */
	uint32_t n;                /* samples averaged in */
	uint32_t outliers;         /* samples left out (total) */
	uint32_t streak;           /* outliers in a row */
	int64_t last;              /* unix time of the newest sample (an
	                            * outlier too); never decreases */
} hs_learn_cell_t;

typedef struct hs_learn_entry {
	char kind[HS_LEARN_KIND_MAX];
	int sf;                    /* GPU count */
	int64_t seen;              /* last observed or estimated (eviction) */
	hs_learn_cell_t cell[HS_LEARN_TYPES];
} hs_learn_entry_t;

/* The speedup matrix of one scope, computed when first needed after a
 * change (hs_learn_t.gen). */
typedef struct hs_learn_speedup {
	char scope[HS_LEARN_KIND_MAX];
	long gen;
	/* the largest rate(t) / rate(u) of one entry's confident cells
	 * (max1, entry index arg1) and of any other entry (max2): the
	 * ratio bound of a kind leaves the kind itself out (bound.h) */
	double max1[HS_LEARN_TYPES][HS_LEARN_TYPES];
	double max2[HS_LEARN_TYPES][HS_LEARN_TYPES];
	int arg1[HS_LEARN_TYPES][HS_LEARN_TYPES];
	double logr[HS_LEARN_TYPES][HS_LEARN_TYPES];  /* log S[t][u] */
	double w[HS_LEARN_TYPES][HS_LEARN_TYPES];     /* its weight, 0 = unknown */
	/* scaling with the GPU count: rate(sf) ~ sf^beta, fitted per type
	 * ([t]) and over all types ([HS_LEARN_TYPES]) on the scope's kinds
	 * measured at two counts or more; bw is the fit's weight, 0 = none */
	double beta[HS_LEARN_TYPES + 1], bw[HS_LEARN_TYPES + 1];
	/* the kinds the nearest-kinds inference compares with (entry
	 * indices, learn_near.c): at most HS_LEARN_NEAR_MAX of the scope's
	 * entries measured on three types or more, the best sampled first */
	int near[HS_LEARN_NEAR_MAX], nnear;
	/* per candidate: log rate per type, the types measured (bit u),
	 * the GPU count and the samples it ranked by */
	double nlog[HS_LEARN_NEAR_MAX][HS_LEARN_TYPES];
	uint32_t nmask[HS_LEARN_NEAR_MAX], nkey[HS_LEARN_NEAR_MAX];
	int nsf[HS_LEARN_NEAR_MAX];
} hs_learn_speedup_t;

#define HS_LEARN_SPEEDUP_CACHE 32     /* scopes (about 13 KB each) */

typedef struct hs_learn {
	int max_kinds;
	int ntypes;
	char *types[HS_LEARN_TYPES];
	int n, cap;
	hs_learn_entry_t *e;       /* sorted by (kind, sf) */
	long gen;                  /* bumped by every accepted change */
	int matrix_only;           /* 1: infer from the speedup matrix alone,
	                            * not the nearest kinds (LearnInference) */
	long refused, outliers;    /* reports refused (bounds) or left out */
	/* estimate error: |ln(predicted / first measured)| summed over the
	 * jobs' first reports on a type whose estimate was [0] learned or
	 * [1] inferred (hs_learn_score); not saved */
	long err_n[2];
	double err_sum[2];
	/* the speedup cache: HS_LEARN_SPEEDUP_CACHE scopes on the heap,
	 * allocated when first needed (hs_learn_t stays small enough for a
	 * stack, e.g. hs_learn_load's), else the one below */
	int nsp, sp_next;
	hs_learn_speedup_t *sp, sp_one;
} hs_learn_t;

void hs_learn_init(hs_learn_t *l, int max_kinds);
void hs_learn_free(hs_learn_t *l);

/* What names a job's kind. Any string may be NULL. */
typedef struct hs_learn_job {
	hs_learn_scope_t scope;
	const char *user, *account;
	const char *model;         /* the job's model hint, "" = none */
	const char *name;          /* its job name */
	uint32_t array_id;         /* its array's job id, 0 = none */
	uint32_t id;               /* the job id */
} hs_learn_job_t;

/* Writes the job's kind, scope first ("u=alice/n=train-bert"), into
 * out[HS_LEARN_KIND_MAX]; characters outside [A-Za-z0-9._+@-] become '_'
 * and long names are cut (two kinds may then share). */
void hs_learn_kind(const hs_learn_job_t *j, char *out);

/* One report: kind `kind` on `sf` GPUs measured `rate` steps/s on GPU
 * type `type` at time `now`. Returns 1 averaged in, 0 left out as an
 * outlier, -1 refused (bad value, too many types, out of memory). */
int hs_learn_observe(hs_learn_t *l, const char *kind, int sf, const char *type, double rate,
		     int64_t now);

typedef enum hs_learn_src {
	HS_LEARN_NONE = 0,         /* nothing known */
	HS_LEARN_LEARNED,          /* the kind measured there */
	HS_LEARN_INFERRED,         /* from the speedup matrix */
} hs_learn_src_t;

/* Estimates of kind `kind` on `sf` GPUs on each of types[0..n-1]:
 * rate[i] (0 = none), src[i], conf[i] (any output may be NULL). Types
 * the kind has no cell on at sf are inferred across types or across GPU
 * counts (above). A kind known at no count of its own that the scope can
 * scale from gets the scope's relative speeds (src INFERRED, rates
 * with a geometric mean of 1 over the types that have one, low
 * confidence). Marks the kind seen at `now`. Returns how many types got
 * an estimate. */
int hs_learn_estimate(hs_learn_t *l, const char *kind, int sf, const char *const *types, int n,
		      int64_t now, double *rate, hs_learn_src_t *src, double *conf);

/* The largest rate(t) / rate(u) that any entry of the scope of `kind`
 * other than (kind, sf) itself has shown with confident cells (at least
 * HS_LEARN_CONFIDENT samples each) into maxr[i * n + k] for types[i],
 * types[k] (0 = none); an entry's ratio replaces a smaller value already
 * there. Entries of other scopes never count (LearnScope). */
void hs_learn_max_ratios(hs_learn_t *l, const char *kind, int sf, const char *const *types,
			 int n, double *maxr);

/* Counts how far an estimate was from the job's first report on that
 * type: inferred = 1 for an inferred estimate, 0 for a learned one. */
void hs_learn_score(hs_learn_t *l, int inferred, double predicted, double measured);

/* What learning did: kinds in the table, reports refused or left out as
 * outliers, GPU-seconds on types tried by exploration (engine.h) and in
 * all, and the mean |ln(estimate / first measurement)| of [0]
 * learned and [1] inferred estimates over err_n of them (NAN: none). */
typedef struct hs_learn_stats {
	long kinds, refused, outliers, err_n[2];
	double err_mean[2];
	double explore_gpu_s, busy_gpu_s; /* LearnExplore's GPU time, of all */
} hs_learn_stats_t;

/* The entry of (kind, sf), NULL if none. */
const hs_learn_entry_t *hs_learn_find(const hs_learn_t *l, const char *kind, int sf);

/* Save and load (JSON object {"format": "hetsched-learned", "version": 1,
 * "types": [...], "kinds": [{"kind", "sf", "seen", "cells": {type:
 * [rate, n, outliers, last]}}]}). Load validates every value, keeps at
 * most max_kinds entries (the most recently seen) and replaces l's
 * content only on success. */
json_object *hs_learn_save(const hs_learn_t *l);
int hs_learn_load(hs_learn_t *l, json_object *o, hs_err_t *err);

/* Gavel's throughput-table JSON ({"<type>": {"('<kind>', <sf>)":
 * {"null": rate}}}) of the cells with at least min_n samples: load it
 * with ThroughputTable= after review. */
json_object *hs_learn_export(const hs_learn_t *l, unsigned min_n);

#endif /* HS_SCHED_LEARN_H */
