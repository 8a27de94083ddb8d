/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_wf.h — what the files of water filling share (not a public
 * interface): the state of one solve over job classes, the hierarchical
 * weights, the full-LP method (policy_wf_full.c, the reference) and the
 * saturation chains of the fast method (policy_wf_chain.c). The method
 * itself is described in policy_hierarchical.c. */
#ifndef HS_CORE_POLICY_WF_H
#define HS_CORE_POLICY_WF_H

#include "core/fairtree.h"
#include "core/lp.h"
#include "core/policy_impl.h"

typedef struct hs_wf {
	const hs_problem_t *p;
	const double *cap;
	hs_classes_t cl;
	int C, J;
	double *a;        /* [C * J] normalized-throughput coefficients (no weight) */
	double *rs;       /* [C] row normalization */
	double *w;        /* [C] current w' per job of the class */
	double *q;        /* [C] current charge per job of the class: its part
	                   * of its entity's Q (held GPUs, fairtree.h); an
	                   * unfrozen class's demand is r >= z w' - q */
	double *level;    /* [C] frozen level (r units), valid when frozen */
	int *frozen;      /* [C] 0, 1 = frozen, 2 = being frozen this round */
	double *rmax;     /* [C] the most r a job of the class can get: its
	                   * whole time on its best types, within capacity */
	double *rmaxo;    /* [C] the same on the types still open to it
	                   * (policy_wf_closed.c); = rmax when none is closed */
	char *open;       /* [J] */
	/* the entity forest and its scratch (E = entities) */
	hs_ftree_t tree;
	double *W;        /* [E] effective weight of each entity */
	double *wsum;     /* [E] sum of job weights of a leaf's unfrozen jobs */
	int *oldest;      /* [E] a fifo leaf's oldest unfrozen class, or -1 */
	char *active;     /* [E] */
	double *Q;        /* [E] entity charges (hs_ftree_charges) */
	int charged;      /* some entity holds GPUs (p->entities.held) */
	/* the full-LP method's LP (policy_wf_full.c) */
	int *col;         /* [C * J] x columns, -1 if unusable */
	hs_lp_t *lp;
	int zcol, ecol0, frow0, trow0, caprow0;
} hs_wf_t;

/* Sets w' and q of every unfrozen class from the entity forest (frozen
 * ones get 0); returns how many have w' > 0. */
int hs_wf_set_weights(hs_wf_t *s);

/* The level class c is frozen at when LP1 stops at z: z w' - q, not
 * below 0. */
double hs_wf_level(const hs_wf_t *s, int c, double z);

/* rmax of class c on the types with open[j] != 0 (open NULL: all). */
double hs_wf_rmax(const hs_wf_t *s, int c, const char *open);

/* Finds, among the types with a positive price (the last LP's capacity
 * duals), those the frozen classes fill in every allocation meeting
 * their levels, so that no unfrozen class can use them; sets s->open and
 * s->rmaxo. Returns how many are closed, -1 on error. */
int hs_wf_closed_types(hs_wf_t *s, const double *price, hs_err_t *err);

/* Is job m older than job n (larger age, ties by id): the order in which
 * a fifo leaf serves its jobs. */
int hs_wf_older(const hs_problem_t *p, int m, int n);

/* The full-LP method (benchmark baseline, and the reference the fast
 * path is tested against). Fills xbest [C * J] and out->objective. */
int hs_wf_full(hs_wf_t *s, hs_policy_ctx_t *ctx, double *xbest, hs_alloc_t *out, hs_err_t *err);

/* Solves alp after its alpha/beta changed and adds the solver's
 * statistics to ctx: fresh != 0 a new solve (new folds: after many
 * demands changed), else from the previous LP and basis
 * (hs_alp_resolve: a few demands changed); a warm solve that finds the
 * LP infeasible is tried again fresh. */
hs_lp_status_t hs_wf_alp_run(hs_alp_t *alp, hs_policy_ctx_t *ctx, int fresh, long *it_seen,
			     int *solves_seen, hs_err_t *err);

/* Saturation chains (policy_wf_chain.c): from the current state (w' just
 * set by hs_wf_set_weights), freezes at once the classes that water
 * filling would freeze one LP round each because they reach rmax, as far
 * as check LPs on alp prove it. Returns how many classes it froze (>= 0);
 * when it froze some, *z0 is the level of the first of those rounds and
 * xbest [C * J] an allocation giving every frozen class its level. -1 on
 * error. */
typedef struct hs_wf_chain_stats {
	int chains;       /* calls that froze something */
	int frozen;       /* classes frozen by them */
	int checks;       /* check LPs solved */
	int checks_given_up; /* of those, stopped at their iteration limit */
} hs_wf_chain_stats_t;
int hs_wf_chain(hs_wf_t *s, hs_alp_t *alp, hs_policy_ctx_t *ctx, long *it_seen, int *solves_seen,
		hs_wf_chain_stats_t *st, double *xbest, double *z0, hs_err_t *err);

#endif /* HS_CORE_POLICY_WF_H */
