/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_makespan.c — makespan: min_total_duration_perf (aware) and
 * min_total_duration (agnostic: every usable throughput taken as 1).
 *
 * minimize T  s.t.  thr_m(X) >= R_m / T  plus the base constraints.
 * Gavel bisects on T (about 20 feasibility LPs, 5% tolerance). With
 * y = 1/T the constraint is linear, thr_m(X) >= R_m y, so one exact LP
 * does it: maximize y — alloc_lp.c's MAXMIN form with a = T_m and
 * alpha = R_m. Jobs with the same throughput row, scale factor and
 * remaining steps are interchangeable (same argument as max-min fairness)
 * and solved as one class.
 *
 * The objective reported is the makespan in seconds of the allocation
 * under the jobs' real throughputs, max_m R_m / thr_m(X) (for the aware
 * policy that is exactly 1/y).
 */
#include "core/alloc_lp.h"
#include "core/policy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double hs_makespan_value(const hs_problem_t *p, const hs_alloc_t *a)
{
	double t = 0.0;
	for (int m = 0; m < p->njobs; m++) {
		double thr = hs_alloc_effective_thr(a, p, m);
		double tm = thr > 0.0 ? p->jobs[m].remaining_steps / thr : INFINITY;
		t = tm > t ? tm : t;
	}
	return t;
}

double hs_makespan_evaluate(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a)
{
	(void)ctx;
	return hs_makespan_value(in->p, a);
}

/* When the exact LP starves a job, every job is given at least this
 * fraction of the longest job's best-case duration. */
#define HS_MAKESPAN_DURATION_FLOOR 1e-4

/* When one job's remaining work dwarfs the others' (--hs-steps near its
 * 1e15 limit against jobs of thousands of steps), the other jobs' rows
 * ask for throughputs below GLPK's feasibility tolerance: the optimum
 * gives them nothing, the makespan is infinite and the solve failed every
 * round, freezing the allocation. alpha_c / best_c is class c's
 * best-case duration in units of the longest (<= 1, see the unit below);
 * raising it to a floor keeps every row's demand well above the
 * tolerance relative to its own coefficients, and costs the makespan at
 * most that fraction per job. Only used when the exact LP starved a job,
 * so every problem it solved keeps its exact answer. Returns 1 if a
 * demand changed. */
static int normalise_demands(hs_class_lp_t *k, int J)
{
	int changed = 0;
	for (int c = 0; c < k->cl.n; c++) {
		double best = 0.0;
		for (int j = 0; j < J; j++)
			best = k->alp.a[(size_t)c * J + j] > best ? k->alp.a[(size_t)c * J + j] : best;
		if (k->alp.alpha[c] < HS_MAKESPAN_DURATION_FLOOR * best) {
			k->alp.alpha[c] = HS_MAKESPAN_DURATION_FLOOR * best;
			changed = 1;
		}
	}
	return changed;
}

int hs_policy_makespan_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
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
	if (hs_class_lp_init(&k, ctx, in, HS_CK_STEPS | (d->aware ? HS_CK_THR : HS_CK_USABLE),
			     HS_ALP_MAXMIN, err) < 0)
		return -1;
	int rc = -1;
	/* y = 1/T is ~1e-5 per second; measure it in units of the longest
	 * job's best-case duration instead, so y is O(1) for the solver */
	double unit = 0.0;
	for (int c = 0; c < k.cl.n; c++) {
		int m = k.cl.rep[c];
		double best = 0.0;
		for (int j = 0; j < J; j++)
			if (hs_job_usable(p, in->cap, m, j)) {
				double t = hs_policy_thr(d, p, m, j);
				best = t > best ? t : best;
			}
		if (best > 0.0 && p->jobs[m].remaining_steps / best > unit)
			unit = p->jobs[m].remaining_steps / best;
	}
	if (!(unit > 0.0))
		unit = 1.0;
	for (int c = 0; c < k.cl.n; c++) {
		int m = k.cl.rep[c];
		k.alp.alpha[c] = p->jobs[m].remaining_steps / unit;
		for (int j = 0; j < J; j++)
			k.alp.a[(size_t)c * J + j] = hs_job_usable(p, in->cap, m, j) ? hs_policy_thr(d, p, m, j) : 0.0;
	}
	if (hs_class_lp_finish(&k, ctx, in, hs_alp_solve(&k.alp, &ctx->lp_opts, err), k.alp.x,
			       "makespan", out, err) < 0)
		goto out;
	out->objective = hs_makespan_value(p, out);
	if (!isfinite(out->objective) && normalise_demands(&k, J) &&
	    hs_class_lp_finish(&k, ctx, in, hs_alp_resolve(&k.alp, &ctx->lp_opts, err), k.alp.x,
			       "makespan", out, err) < 0)
		goto out;
	out->objective = hs_makespan_value(p, out);
	if (!isfinite(out->objective)) {
		hs_err_set(err, "makespan: some job gets no throughput (the cluster is too small "
			   "for the queue)");
		goto out;
	}
	rc = 0;
out:
	hs_class_lp_free(&k);
	return rc;
}
