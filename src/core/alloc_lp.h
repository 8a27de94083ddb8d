/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alloc_lp.h — the allocation LP shared by the non-packed LP policies.
 *
 * It works on "items": a job, or a class of n_i interchangeable jobs that
 * get the same row of X (see policy_maxmin.c for why that is exact). Item
 * i has a multiplicity n_i, a scale factor s_i and a coefficient row a_i
 * (a_ij > 0 where it may run). Variables x_ij in [0, 1] for allowed (i, j);
 *
 *   time       sum_j x_ij <= 1                      for every item
 *   capacity   sum_i n_i s_i x_ij <= cap_j          for every type
 *
 * and one of two objectives:
 *
 *   HS_ALP_MAXMIN  maximize z  s.t.  sum_j a_ij x_ij >= alpha_i z + beta_i
 *                  (max-min fairness: alpha 1; makespan: a = T, alpha = R;
 *                   finish-time fairness: alpha = the rho-dependent demand;
 *                   water filling: frozen items alpha 0, beta their level)
 *   HS_ALP_LINEAR  maximize sum_ij n_i c_ij x_ij  s.t.  sum_j a_ij x_ij >= beta_i
 *                  for items with beta_i > 0 (throughput, cost, SLOs)
 *
 * Large MAXMIN instances are solved by an exact active-set method
 * (alloc_lp.c): most items are fixed to the one type that is cheapest for
 * them under the capacity prices, folded into the capacity rows, and only
 * the rest keep rows of their own; the duals of the small LP then prove
 * optimality for the full one, or name the items to unfold.
 */
#ifndef HS_CORE_ALLOC_LP_H
#define HS_CORE_ALLOC_LP_H

#include "core/lp.h"

typedef enum hs_alp_mode {
	HS_ALP_MAXMIN = 0,
	HS_ALP_LINEAR = 1,
} hs_alp_mode_t;

typedef struct hs_alp_work hs_alp_work_t;

typedef struct hs_alp {
	int n, J;
	hs_alp_mode_t mode;
	/* inputs, filled by the caller (arrays allocated by hs_alp_init) */
	double *cap;      /* [J] */
	double *mult;     /* [n] n_i >= 1 */
	double *scale;    /* [n] s_i >= 1 */
	double *a;        /* [n * J] >= 0; 0 = item cannot use the type */
	double *alpha;    /* [n] >= 0 (MAXMIN) */
	double *beta;     /* [n] >= 0; MAXMIN: < 0 allowed (a demand that
	                   * starts above z = 0: water filling's charged
	                   * items), folded only where its demand is >= 0 */
	double *c;        /* [n * J] objective (LINEAR) */
	/* options */
	int active_set;   /* MAXMIN: exact active-set method for large n (default on) */
	unsigned long long seed; /* sampling for the active set's first prices */
	int active_min;   /* fold only from this many items (0: the default, 400;
	                   * tests lower it to exercise folding on small LPs) */
	int sample_items; /* items in the LP whose duals are the first prices
	                   * (0: the default, 300) */
	double zmax;      /* MAXMIN: upper bound on z (default INFINITY) */
	const double *hint; /* [n * J] or NULL. MAXMIN: a feasible allocation
	                   * (the last solve's, for one whose fixed demands
	                   * did not grow) at which items with a fixed demand
	                   * (alpha 0, beta > 0) are folded, when it is one type
	                   * or a full-time mix of two: their loads then fit
	                   * together (water filling's frozen items, which fill
	                   * some types to the last accelerator) */
	int fold_full;    /* MAXMIN: fold items whose demand at the estimated
	                   * value takes up to all their time (default 0: 3%
	                   * slack, so that z can move); for LPs whose z is
	                   * capped where such items use all their time */
	/* results of the last HS_LP_OPTIMAL solve */
	double z;         /* MAXMIN value; LINEAR objective */
	double *x;        /* [n * J] */
	double *dual;     /* [n] MAXMIN: dual value (>= 0) of each item's demand
	                   * row sum_j a_ij x_ij >= alpha_i z + beta_i; for a
	                   * folded item the one its fold implies under the
	                   * capacity prices (together with the small LP's duals
	                   * an optimal dual solution of the full LP, so a
	                   * nonzero value proves the row tight at every optimum) */
	double *price;    /* [J] the capacity rows' duals (>= 0, solver noise
	                   * cleared): what a unit of each type is worth to the
	                   * objective (water filling bounds its chains with them) */
	/* statistics of the last solve */
	int lp_solves;    /* LPs solved */
	int lp_items;     /* items with rows of their own in the final LP */
	long iterations;  /* simplex iterations */
	hs_alp_work_t *work; /* internal state reused by hs_alp_resolve */
} hs_alp_t;

int hs_alp_init(hs_alp_t *alp, int n, int J, hs_alp_mode_t mode, hs_err_t *err);
void hs_alp_free(hs_alp_t *alp);

/* Solves; HS_LP_OPTIMAL fills z and x. */
hs_lp_status_t hs_alp_solve(hs_alp_t *alp, const hs_lp_opts_t *o, hs_err_t *err);

/* Re-solves after the caller changed only alpha and/or beta (finish-time
 * fairness bisection, water filling): the previous LP is kept, only the
 * changed coefficients and bounds are updated, and the simplex restarts
 * from the previous basis. Falls back to hs_alp_solve when there is no
 * previous LP. */
hs_lp_status_t hs_alp_resolve(hs_alp_t *alp, const hs_lp_opts_t *o, hs_err_t *err);

#endif /* HS_CORE_ALLOC_LP_H */
