/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.h — the Slurm-free scheduling model shared by every part of hetsched:
 * the cluster (accelerator types and counts), the jobs with their
 * throughputs, a policy problem built from both, and the allocation a
 * policy returns.
 *
 * Conventions (whole core library):
 *  - No global mutable state: everything a function needs is passed in.
 *  - Functions that can fail return 0 on success and -1 on failure, filling
 *    an hs_err_t with a one-line, human-readable message.
 *  - Accelerator ("GPU") types are indices 0..ntypes-1 into hs_cluster_t;
 *    their names come from the input (GRES types, a trace, a JSON file),
 *    never from the code.
 *  - Matrices are stored row-major in flat arrays: x[m * ntypes + j].
 */
#ifndef HS_CORE_MODEL_H
#define HS_CORE_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HS_ERRLEN 256

typedef struct hs_err {
	char msg[HS_ERRLEN];
} hs_err_t;

/* Formats a message into err (if non-NULL) and returns -1, so callers can
 * write `return hs_err_set(err, "...", ...);`. */
int hs_err_set(hs_err_t *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Copies src into dst[size] (truncating, always NUL-terminated when size
 * > 0): a plain copy where snprintf("%s") cost a format parse per job per
 * round. */
static inline void hs_strlcpy(char *dst, const char *src, size_t size)
{
	if (!size)
		return;
	size_t n = strlen(src);
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* v in decimal into buf[11] (NUL-terminated). */
static inline void hs_u32_text(uint32_t v, char buf[11])
{
	char d[10];
	int n = 0;
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = d[n - 1 - i];
	buf[n] = 0;
}

/* ---- Cluster ------------------------------------------------------------ */

typedef struct hs_cluster {
	int ntypes;
	char **names;   /* [ntypes] accelerator type names, unique */
	int *count;     /* [ntypes] accelerators of each type, >= 0 */
	double *price;  /* [ntypes] price per accelerator-hour, 0 = unknown */
} hs_cluster_t;

int hs_cluster_init(hs_cluster_t *c, int ntypes, hs_err_t *err);
void hs_cluster_free(hs_cluster_t *c);
/* Index of a type name, or -1. */
int hs_cluster_type_index(const hs_cluster_t *c, const char *name);
/* Total accelerators over all types. */
int hs_cluster_total(const hs_cluster_t *c);
/* Parses "v100:36,p100:36,k80:36" (any names, counts >= 0). */
int hs_cluster_parse(hs_cluster_t *c, const char *spec, hs_err_t *err);

/* ---- Jobs --------------------------------------------------------------- */

typedef struct hs_job {
	char *id;                /* unique, caller-chosen (Slurm job id, trace id) */
	int scale_factor;        /* accelerators used at once, >= 1 */
	double weight;           /* priority weight, > 0 (default 1) */
	double remaining_steps;  /* > 0 */
	double age_s;            /* seconds since arrival, >= 0 */
	double slo_s;            /* deadline, seconds from now; < 0 = none */
	double *thr;             /* [ntypes] steps/s alone, summed over the
	                          * job's GPUs; 0 = cannot run on that type */
	int job_type;            /* index into hs_problem_t.jobtypes for space
	                          * sharing; -1 = unknown (never packed) */
	int entity;              /* index into hs_problem_t.entities; -1 = none */
} hs_job_t;

/* ---- Space sharing: pair throughputs per job type ------------------------ */

/* A "job type" is what the throughput table keys on (model and scale
 * factor, e.g. "('ResNet-50 (batch size 64)', 1)"). pair_thr holds, for job
 * types a, b and accelerator type j, the throughput of an a-job while it
 * shares its accelerators with a b-job; 0 = the pair cannot share. */
typedef struct hs_jobtypes {
	int n;
	char **names;            /* [n] */
	int *scale_factor;       /* [n] pairs only form between equal factors */
	double *pair_thr;        /* [n * n * ntypes]: (a * n + b) * ntypes + j */
} hs_jobtypes_t;

/* ---- Entities (hierarchical policies; Slurm associations) ---------------- */

typedef enum hs_entity_mode {
	HS_ENTITY_FAIRNESS = 0,  /* split the entity's share by job weight */
	HS_ENTITY_FIFO = 1,      /* give the entity's share to its oldest job */
} hs_entity_mode_t;

/* Entities form a forest (Slurm's association tree without its root:
 * accounts, sub-accounts, users). parent == NULL: every entity is
 * top-level (one level, as before parents existed). Otherwise parent[e] is
 * the index of e's parent, or -1 for a top-level entity; no cycles.
 * weight is the node's Shares, meaningful relative to its siblings (and,
 * for top-level entities, to the weights of the jobs without entity).
 * With a parent array, jobs belong to leaves only (users: entities that
 * are nobody's parent); hs_problem_validate refuses a job on an entity
 * with children. mode says how a leaf splits its share among its jobs; it
 * is not used on entities with children. See doc/policies.md
 * ("Fair tree"). */
typedef struct hs_entities {
	int n;
	char **names;            /* [n] unique */
	double *weight;          /* [n] > 0: Shares */
	hs_entity_mode_t *mode;  /* [n] */
	int *parent;             /* [n] parent index or -1; NULL = all top-level */
	double *held;            /* [n] or NULL (none): GPUs the entity's own jobs
	                          * hold outside the problem (running jobs that
	                          * cannot be preempted: their GPUs are not in
	                          * the cluster's counts). The water-filling
	                          * policies charge them to the entity and up
	                          * its parents, in average-GPU units of r
	                          * (doc/policies.md, "Pinned GPUs are charged") */
} hs_entities_t;

/* ---- Problem ------------------------------------------------------------ */

typedef struct hs_problem {
	hs_cluster_t cluster;
	int njobs;
	hs_job_t *jobs;          /* [njobs] */
	hs_jobtypes_t jobtypes;  /* may be empty (n = 0): no space sharing */
	hs_entities_t entities;  /* may be empty */
	int reference_type;      /* type index whose throughput the agnostic
	                          * FTF baseline uses; -1 = first type */
	double *thr_block;       /* every job's thr, one allocation
	                          * (hs_problem_alloc_jobs) */
	char *id_block;          /* NULL: each job id is its own allocation;
	                          * else every id points into this block (a
	                          * caller that builds a problem every round
	                          * saves a malloc per job) */
} hs_problem_t;

/* Allocates njobs jobs with thr arrays for the problem's current cluster
 * (call after the cluster is set; the arrays are one block, thr_block,
 * so a job's thr is never freed or replaced alone). Jobs start with
 * scale_factor 1, weight 1, job_type -1, entity -1, slo_s -1. */
int hs_problem_alloc_jobs(hs_problem_t *p, int njobs, hs_err_t *err);
void hs_problem_free(hs_problem_t *p);
/* Checks every invariant above; the message names the offending job/type. */
int hs_problem_validate(const hs_problem_t *p, hs_err_t *err);
/* Equal-share throughput T^eq_m = sum_j T_mj N_j / sum_j N_j. */
double hs_job_equal_share_thr(const hs_problem_t *p, int m);
/* Pair throughput of job m when sharing with a job of type b on type j
 * (0 when m has no job type or the pair cannot share). */
double hs_job_pair_thr(const hs_problem_t *p, int m, int b, int j);

/* ---- Allocation --------------------------------------------------------- */

/* Two jobs sharing accelerators for a fraction x[j] of the time on type j. */
typedef struct hs_pair_alloc {
	int m, k;                /* job indices, m < k */
	double *x;               /* [ntypes] */
} hs_pair_alloc_t;

typedef struct hs_alloc {
	int njobs, ntypes;
	double *x;               /* [njobs * ntypes] fraction of time job m runs
	                          * alone on type j */
	int npairs, cap_pairs;
	hs_pair_alloc_t *pairs;  /* packed combinations (may be empty) */
	double objective;        /* the policy's own objective value */
} hs_alloc_t;

int hs_alloc_init(hs_alloc_t *a, int njobs, int ntypes, hs_err_t *err);
void hs_alloc_free(hs_alloc_t *a);
/* Appends a pair (copies nothing; x is allocated zeroed). Returns its index
 * or -1. */
int hs_alloc_add_pair(hs_alloc_t *a, int m, int k, hs_err_t *err);
/* Total time fraction of job m on type j, alone plus in pairs. */
double hs_alloc_job_type_total(const hs_alloc_t *a, int m, int j);
/* Effective throughput of job m under the allocation (pairs use the pair
 * throughputs of the problem). */
double hs_alloc_effective_thr(const hs_alloc_t *a, const hs_problem_t *p, int m);

#endif /* HS_CORE_MODEL_H */
