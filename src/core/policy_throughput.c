/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_throughput.c — the linear-objective policies (alloc_lp.c's
 * LINEAR form):
 *
 *   max_sum_throughput_perf  maximize sum_m thr_m(X)
 *   min_cost                 maximize sum_mj T_mj X_mj / c_j, c_j the price
 *                            per accelerator-hour of type j (Gavel's
 *                            throughput-normalized-by-cost objective)
 *   min_cost_slo             the same, plus thr_m(X) >= R_m / slo_m for
 *                            jobs with a deadline slo_m seconds away; when
 *                            those cannot all be met, the SLO constraints
 *                            are dropped (the context's note says so)
 *
 * Jobs with the same throughput row and scale factor (and, with SLOs, the
 * same remaining steps and deadline) are interchangeable: the objective is
 * linear, so averaging an optimal X over a class keeps it optimal; each
 * class is one row of variables. The objective reported is the LP's:
 * summed throughput (steps/s), or summed throughput per unit price.
 */
#include "core/alloc_lp.h"
#include "core/policy_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THR_SUM = 0, THR_COST = 1, THR_COST_SLO = 2 };

static double price_of(const hs_problem_t *p, int j)
{
	return p->cluster.price[j];
}

double hs_throughput_value(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes;
	if (ctx->desc->variant == THR_SUM)
		return hs_alloc_total_thr(a, p);
	double v = 0.0;
	for (int m = 0; m < p->njobs; m++)
		for (int j = 0; j < J; j++)
			if (price_of(p, j) > 0.0)
				v += p->jobs[m].thr[j] * a->x[(size_t)m * J + j] / price_of(p, j);
	return v;
}

int hs_policy_throughput_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			       hs_alloc_t *out, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs;
	const int variant = ctx->desc->variant;
	if (M == 0) {
		out->objective = 0.0;
		return 0;
	}
	if (variant != THR_SUM)
		for (int j = 0; j < J; j++)
			for (int m = 0; m < M; m++)
				if (hs_job_usable(p, in->cap, m, j) && !(price_of(p, j) > 0.0))
					return hs_err_set(err, "%s needs a price > 0 for every usable "
							  "accelerator type; '%s' has none", ctx->desc->name,
							  p->cluster.names[j]);
	int slo = variant == THR_COST_SLO;
	hs_class_lp_t k;
	if (hs_class_lp_init(&k, ctx, in, HS_CK_THR | (slo ? HS_CK_STEPS | HS_CK_SLO : 0),
			     HS_ALP_LINEAR, err) < 0)
		return -1;
	int rc = -1;
	int any_slo = 0;
	for (int c = 0; c < k.cl.n; c++) {
		const hs_job_t *jb = &p->jobs[k.cl.rep[c]];
		for (int j = 0; j < J; j++) {
			double t = hs_job_usable(p, in->cap, k.cl.rep[c], j) ? jb->thr[j] : 0.0;
			k.alp.a[(size_t)c * J + j] = t;
			k.alp.c[(size_t)c * J + j] = variant == THR_SUM ? t : t / price_of(p, j);
		}
		if (slo && jb->slo_s > 0.0) {
			k.alp.beta[c] = jb->remaining_steps / jb->slo_s;
			any_slo = 1;
		}
	}
	hs_lp_status_t st = hs_alp_solve(&k.alp, &ctx->lp_opts, err);
	if (st == HS_LP_INFEASIBLE && any_slo) {
		/* the deadlines cannot all be met: solve without them */
		for (int c = 0; c < k.cl.n; c++)
			k.alp.beta[c] = 0.0;
		snprintf(ctx->note, sizeof(ctx->note),
			 "the SLOs cannot all be met; solved without SLO constraints");
		st = hs_alp_solve(&k.alp, &ctx->lp_opts, err);
	}
	if (hs_class_lp_finish(&k, ctx, in, st, k.alp.x, ctx->desc->name, out, err) < 0)
		goto out;
	out->objective = hs_throughput_value(ctx, in, out);
	rc = 0;
out:
	hs_class_lp_free(&k);
	return rc;
}
