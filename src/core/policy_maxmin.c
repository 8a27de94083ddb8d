/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_maxmin.c — max-min fairness (LAS) as one LP: max_min_fairness
 * (heterogeneity-agnostic) and max_min_fairness_perf (aware), with
 * priority weights and scale factors (doc/policies.md):
 *
 *   maximize z  s.t.  a_mj = s_m T_mj / (w_m T^eq_m)   (aware)
 *                     a_mj = s_m / w_m on usable types  (agnostic)
 *                     sum_j a_mj X_mj >= z            for every job m
 *                     sum_j X_mj <= 1                 for every job m
 *                     sum_m s_m X_mj <= N_j           for every type j
 *
 * Exact class aggregation. Jobs with the same (throughput row, scale
 * factor, weight) — for the agnostic variant the same (usable types, scale
 * factor, weight) — are interchangeable: permuting their rows of X maps
 * feasible solutions to feasible solutions with the same objective. The
 * feasible set is convex and the objective min_m a_m.X_m is concave, so
 * averaging an optimal X over the members of each class is feasible (the
 * per-type sums are unchanged, each averaged row still sums to <= 1) and
 * no worse (the average of values >= z is >= z). Hence an optimal solution
 * with identical rows within each class exists, and the LP with one row of
 * variables per class c, its capacity term weighted by the class size n_c,
 * has the same optimum:
 *
 *   maximize z  s.t.  sum_j a_cj x_cj >= z,  sum_j x_cj <= 1,
 *                     sum_c n_c s_c x_cj <= N_j.
 *
 * Real queues have few distinct classes (a few dozen models and scale
 * factors), so 10,000 jobs become an LP of a few hundred variables.
 * ctx->no_classes turns this off (one class per job) for the benchmark's
 * baseline and for tests that check both give the same optimum. The LP
 * itself is alloc_lp.c's MAXMIN form (alpha 1), which solves large
 * instances with its exact active-set method.
 */
#include "core/alloc_lp.h"
#include "core/policy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The max-min objective coefficient a_mj (0 where the job cannot run). */
double hs_maxmin_coef(const hs_policy_desc_t *d, const hs_problem_t *p, const double *cap,
		      int m, int j)
{
	const hs_job_t *jb = &p->jobs[m];
	if (!hs_job_usable(p, cap, m, j))
		return 0.0;
	if (!d->aware)
		return jb->scale_factor / jb->weight;
	double teq = hs_job_equal_share_thr(p, m);
	return teq > 0.0 ? jb->scale_factor * jb->thr[j] / (jb->weight * teq) : 0.0;
}

/* The max-min value of an allocation: min_m sum_j a_mj X_mj, alone time
 * only (the packed variant computes its own). */
double hs_maxmin_value(const hs_policy_desc_t *d, const hs_problem_t *p, const double *cap,
		       const hs_alloc_t *a)
{
	const int J = p->cluster.ntypes;
	double v = INFINITY;
	for (int m = 0; m < p->njobs; m++) {
		double s = 0.0;
		for (int j = 0; j < J; j++)
			s += hs_maxmin_coef(d, p, cap, m, j) * a->x[(size_t)m * J + j];
		if (s < v)
			v = s;
	}
	return p->njobs > 0 ? v : 0.0;
}

double hs_maxmin_evaluate(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a)
{
	return hs_maxmin_value(ctx->desc, in->p, in->cap, a);
}

int hs_policy_maxmin_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			   hs_alloc_t *out, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs;
	const hs_policy_desc_t *d = ctx->desc;
	if (M == 0) {
		out->objective = 0.0;
		return 0;
	}
	hs_class_lp_t k;
	if (hs_class_lp_init(&k, ctx, in, HS_CK_WEIGHT | (d->aware ? HS_CK_THR : HS_CK_USABLE),
			     HS_ALP_MAXMIN, err) < 0)
		return -1;
	int rc = -1;
	for (int c = 0; c < k.cl.n; c++) {
		int m = k.cl.rep[c];
		k.alp.alpha[c] = 1.0;
		for (int j = 0; j < J; j++)
			k.alp.a[(size_t)c * J + j] = hs_maxmin_coef(d, p, in->cap, m, j);
	}
	if (hs_class_lp_finish(&k, ctx, in, hs_alp_solve(&k.alp, &ctx->lp_opts, err), k.alp.x,
			       "max-min fairness", out, err) < 0)
		goto out;
	out->objective = hs_maxmin_value(d, p, in->cap, out);
	rc = 0;
out:
	hs_class_lp_free(&k);
	return rc;
}
