/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_impl.h — what the policy families share behind policy.h: the
 * registry entry of a policy, the context layout, and small helpers every
 * family uses (usable types, isolated allocation, job-class grouping,
 * allocation checks). Not part of the public interface.
 */
#ifndef HS_CORE_POLICY_IMPL_H
#define HS_CORE_POLICY_IMPL_H

#include "core/rng.h"
#include "core/alloc_lp.h"
#include "core/lp.h"
#include "core/policy.h"

typedef struct hs_policy_desc hs_policy_desc_t;

/* One solve: the problem, the accelerators this solve may use (a double
 * per type: POP partitions get fractions of the cluster), and the output
 * allocation (already initialized to njobs x ntypes zeros). */
typedef struct hs_solve_in {
	const hs_problem_t *p;
	const double *cap;       /* [ntypes] */
} hs_solve_in_t;

typedef int (*hs_policy_solve_fn)(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
				  hs_alloc_t *out, hs_err_t *err);

struct hs_policy_desc {
	const char *name;
	hs_policy_solve_fn solve;
	int aware;               /* heterogeneity-aware: uses T_mj (the LP
	                          * families) and the mechanism visits types
	                          * fastest first (hs_policy_is_aware) */
	int no_backfill;         /* the allocation is a queue order: jobs
	                          * left out wait (hs_policy_backfills) */
	int packed;              /* uses space sharing (pairs) */
	int lp;                  /* solved as LP(s): POP partitioning applies */
	int scale_free;          /* a job's throughputs on every type times one
	                          * factor leave the allocation as it was
	                          * (hs_policy_is_scale_free) */
	int variant;             /* family-specific */
	void (*state_free)(void *state);
	/* the policy's objective for any allocation (POP re-evaluates the
	 * combined allocation with it); NULL for non-LP policies */
	double (*evaluate)(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a);
};

struct hs_policy_ctx {
	const hs_policy_desc_t *desc;
	hs_policy_opts_t opts;
	hs_lp_opts_t lp_opts;    /* solver options derived from opts */
	hs_lp_budget_t budget;   /* deadline of the current solve (lp_opts
	                          * points here when opts.time_limit_s > 0) */
	void *state;             /* family-owned state across rounds */
	unsigned long long rng;  /* splitmix64 state, from opts.seed */
	int no_classes;          /* benchmark baseline: no class aggregation */
	int no_active_set;       /* benchmark baseline: full LP, no folding */
	int active_min_items;    /* tests: fold from this many items (0: default) */
	int no_warm_start;       /* packed max-min: no start from the
	                          * unpacked solution (tests, bench) */
	int no_wf_chains;        /* water filling: no saturation chains, one
	                          * LP round per level (tests, bench) */
	int wf_check_iter_max;   /* water filling: simplex iterations per LP of
	                          * a chain's check before it is given up
	                          * (0: the default, policy_wf_chain.c; tests
	                          * set 1 to give every check up) */
	/* statistics of the last solve (bench, diagnostics) */
	long last_iterations;    /* simplex iterations */
	int last_lp_solves;      /* LPs solved */
	int last_lp_items;       /* items (jobs/classes) with rows of their own */
	int last_items;          /* items after class aggregation */
	int last_warm_start;     /* packed: the solve started from a basis
	                          * built from the unpacked solution */
	int last_wf_chained;     /* water filling: classes frozen by
	                          * saturation chains */
	int last_wf_checks;      /* water filling: the chains' check LPs */
	int last_wf_checks_given_up; /* ... of which stopped at the limit */
	int last_wf_closed;      /* water filling: chains that found closed types */
	char note[HS_ERRLEN];    /* what the last solve wants users to know */
};

struct hs_alp;
/* Adds an allocation LP's statistics to the context's. */
void hs_policy_note_lp(hs_policy_ctx_t *ctx, const struct hs_alp *alp);

/* ---- helpers (policy_common.c) ------------------------------------------ */

/* 1 if job m can run on type j within capacity cap: thr > 0 and the
 * job's scale factor fits in cap[j]. */
int hs_job_usable(const hs_problem_t *p, const double *cap, int m, int j);

/* Throughput the policy sees: T_mj for aware policies; for agnostic ones
 * 1 on every type the job can run on (T_mj > 0), else 0. */
double hs_policy_thr(const hs_policy_desc_t *d, const hs_problem_t *p, int m, int j);

/* Isolated allocation: X_mj = cap_j / (M s_m) on usable types, each row
 * scaled down to sum <= 1 (doc/policies.md). Fills out->x. */
void hs_isolated_fill(const hs_problem_t *p, const double *cap, hs_alloc_t *out);
/* Effective throughput of job m under the isolated allocation (T^iso_m). */
double hs_isolated_thr(const hs_problem_t *p, const double *cap, int m);
/* policy_shares.c: each job's share of the cluster in finish-time
 * fairness's isolated allocation ([njobs], summing to 1): 1/M without
 * entities, else its part of the entity tree. -1 = out of memory. */
int hs_isolated_shares(const hs_problem_t *p, double *share, hs_err_t *err);
/* T^iso_m with share `share` of every type (hs_isolated_thr: 1/M). */
double hs_isolated_thr_share(const hs_problem_t *p, const double *cap, int m, double share);

/* Groups interchangeable jobs: class_of[m] gets the class of job m,
 * returns the number of classes and fills rep[c] (a member) and size[c].
 * Two jobs are one class when key_eq says so; keys are hashed by key_hash.
 * (Used for exact class aggregation, see policy_maxmin.c.) */
typedef struct hs_classes {
	int n;
	int *class_of;           /* [njobs] */
	int *rep;                /* [n] */
	int *size;               /* [n] */
} hs_classes_t;
typedef unsigned long long (*hs_class_hash_fn)(const void *ctx, int m);
typedef int (*hs_class_eq_fn)(const void *ctx, int m, int k);
int hs_classes_build(hs_classes_t *cl, int njobs, hs_class_hash_fn hash,
		     hs_class_eq_fn eq, const void *ctx, hs_err_t *err);
void hs_classes_free(hs_classes_t *cl);

/* What makes jobs interchangeable for a policy (scale factor always). */
enum {
	HS_CK_THR = 1 << 0,      /* the exact throughput row */
	HS_CK_USABLE = 1 << 1,   /* only which types are usable */
	HS_CK_WEIGHT = 1 << 2,
	HS_CK_STEPS = 1 << 3,    /* remaining steps */
	HS_CK_AGE = 1 << 4,
	HS_CK_SLO = 1 << 5,
	HS_CK_JOBTYPE = 1 << 6,
	HS_CK_ENTITY = 1 << 7,
	HS_CK_DISTINCT = 1 << 8, /* no aggregation: one class per job */
};
int hs_job_classes(hs_classes_t *cl, const hs_problem_t *p, const double *cap, int flags,
		   hs_err_t *err);

/* The allocation LP over job classes (policy_classlp.c), shared by the
 * non-packed LP families. init groups the jobs by flags (HS_CK_*; every
 * job alone under ctx->no_classes) and sets up an alloc_lp with one item
 * per class: capacity, active set and seed from ctx, multiplicity = class
 * size, scale = scale factor; the family fills the coefficients and
 * solves. finish takes the solve's status: infeasible or unbounded is an
 * internal error "<what> LP is ...", a failure keeps the solver's
 * message; otherwise it notes the solver statistics and gives every job
 * its class's row of xc (alp.x or a saved solution), cleaned. */
typedef struct hs_class_lp {
	hs_classes_t cl;
	hs_alp_t alp;
} hs_class_lp_t;
/* alloc_lp items from job classes (cl over p): each class's multiplicity
 * is its size and its scale its representative's scale factor; the
 * capacities cap[ntypes], seed and active-set threshold come from ctx.
 * Coefficients and the mode's other inputs are the caller's. */
int hs_alp_init_classes(hs_alp_t *alp, const hs_classes_t *cl, const hs_problem_t *p,
			const double *cap, const hs_policy_ctx_t *ctx, hs_alp_mode_t mode,
			hs_err_t *err);
int hs_class_lp_init(hs_class_lp_t *s, hs_policy_ctx_t *ctx, const hs_solve_in_t *in, int flags,
		     hs_alp_mode_t mode, hs_err_t *err);
int hs_class_lp_finish(hs_class_lp_t *s, hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
		       hs_lp_status_t st, const double *xc, const char *what, hs_alloc_t *out,
		       hs_err_t *err);
void hs_class_lp_free(hs_class_lp_t *s);

/* Hash mixing for class keys. */
unsigned long long hs_hash_mix(unsigned long long h, unsigned long long v);
unsigned long long hs_hash_double(unsigned long long h, double v);


/* Per-job state across rounds, matched by job id (hs_policy_solve's
 * contract): a sorted copy of the ids with an int each. */
typedef struct hs_idmap {
	int n;
	char **ids;              /* [n] sorted */
	int *val;                /* [n] */
} hs_idmap_t;
/* Replaces the map's content with every job of p whose val[m] != -1. */
int hs_idmap_set(hs_idmap_t *map, const hs_problem_t *p, const int *val, hs_err_t *err);
/* The value stored for id, or -1. */
int hs_idmap_get(const hs_idmap_t *map, const char *id);
/* The entry index of id, or -1. */
int hs_idmap_find(const hs_idmap_t *map, const char *id);
void hs_idmap_free(hs_idmap_t *map);

/* What fifo and allox remember across rounds in ctx->state
 * (policy_typemem.c): the type each job was placed on. save records
 * placed[m] (a type index of p, or -1) for every job; prev returns job m's
 * type last round in p's cluster, or -1. free is their state_free. */
int hs_typemem_save(hs_policy_ctx_t *ctx, const hs_problem_t *p, const int *placed, hs_err_t *err);
int hs_typemem_prev(const hs_policy_ctx_t *ctx, const hs_problem_t *p, int m);
void hs_typemem_free(void *state);

/* Jobs in arrival order: oldest (largest age_s) first, ties by id. */
int *hs_arrival_order(const hs_problem_t *p, hs_err_t *err);

/* Summed effective throughput of an allocation (an objective for the
 * heuristics). */
double hs_alloc_total_thr(const hs_alloc_t *a, const hs_problem_t *p);

/* Clamps tiny solver noise: values within 1e-9 of 0 or 1 snap to them, and
 * rows/types that exceed their limits by rounding are scaled back, so the
 * allocation satisfies the base constraints exactly. */
int hs_alloc_clean(hs_alloc_t *a, const hs_problem_t *p, const double *cap, hs_err_t *err);

/* Max-min fairness coefficient a_mj and the max-min value of an
 * allocation (policy_maxmin.c). */
double hs_maxmin_coef(const hs_policy_desc_t *d, const hs_problem_t *p, const double *cap,
		      int m, int j);
double hs_maxmin_value(const hs_policy_desc_t *d, const hs_problem_t *p, const double *cap,
		       const hs_alloc_t *a);
double hs_maxmin_evaluate(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a);

double hs_makespan_value(const hs_problem_t *p, const hs_alloc_t *a);
double hs_makespan_evaluate(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a);
double hs_ftf_value(const hs_policy_desc_t *d, const hs_problem_t *p, const double *cap,
		    const hs_alloc_t *a);
double hs_ftf_evaluate(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a);
double hs_throughput_value(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a);

/* The policy families. */
int hs_policy_isolated_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			     hs_alloc_t *out, hs_err_t *err);
int hs_policy_maxmin_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			   hs_alloc_t *out, hs_err_t *err);
int hs_policy_makespan_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			     hs_alloc_t *out, hs_err_t *err);
int hs_policy_ftf_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			hs_alloc_t *out, hs_err_t *err);
int hs_policy_throughput_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			       hs_alloc_t *out, hs_err_t *err);
int hs_policy_waterfill_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			      hs_alloc_t *out, hs_err_t *err);
int hs_policy_fifo_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			 hs_alloc_t *out, hs_err_t *err);
int hs_policy_gandiva_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			    hs_alloc_t *out, hs_err_t *err);
void hs_policy_gandiva_state_free(void *state);
int hs_policy_allox_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			  hs_alloc_t *out, hs_err_t *err);
int hs_policy_packed_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			   hs_alloc_t *out, hs_err_t *err);
double hs_packed_evaluate(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a);

#endif /* HS_CORE_POLICY_IMPL_H */
