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
	int flags = ctx->no_classes ? HS_CK_DISTINCT
				    : HS_CK_THR | (slo ? HS_CK_STEPS | HS_CK_SLO : 0);
	hs_classes_t cl;
	if (hs_job_classes(&cl, p, in->cap, flags, err) < 0)
		return -1;
	hs_alp_t alp;
	int rc = -1;
	if (hs_alp_init(&alp, cl.n, J, HS_ALP_LINEAR, err) < 0)
		goto out;
	memcpy(alp.cap, in->cap, (size_t)J * sizeof(double));
	alp.active_set = !ctx->no_active_set;
	alp.seed = ctx->opts.seed;
	int any_slo = 0;
	for (int c = 0; c < cl.n; c++) {
		int m = cl.rep[c];
		const hs_job_t *jb = &p->jobs[m];
		alp.mult[c] = cl.size[c];
		alp.scale[c] = jb->scale_factor;
		for (int j = 0; j < J; j++) {
			double t = hs_job_usable(p, in->cap, m, j) ? jb->thr[j] : 0.0;
			alp.a[(size_t)c * J + j] = t;
			alp.c[(size_t)c * J + j] = variant == THR_SUM ? t : t / price_of(p, j);
		}
		if (slo && jb->slo_s > 0.0) {
			alp.beta[c] = jb->remaining_steps / jb->slo_s;
			any_slo = 1;
		}
	}
	hs_lp_status_t st = hs_alp_solve(&alp, &ctx->lp_opts, err);
	if (st == HS_LP_INFEASIBLE && any_slo) {
		/* the deadlines cannot all be met: solve without them */
		for (int c = 0; c < cl.n; c++)
			alp.beta[c] = 0.0;
		snprintf(ctx->note, sizeof(ctx->note),
			 "the SLOs cannot all be met; solved without SLO constraints");
		st = hs_alp_solve(&alp, &ctx->lp_opts, err);
	}
	if (st == HS_LP_INFEASIBLE || st == HS_LP_UNBOUNDED) {
		hs_err_set(err, "%s LP is %s (internal error)", ctx->desc->name,
			   st == HS_LP_INFEASIBLE ? "infeasible" : "unbounded");
		goto out;
	}
	if (st != HS_LP_OPTIMAL)
		goto out;
	hs_policy_note_lp(ctx, &alp);
	for (int m = 0; m < M; m++)
		memcpy(&out->x[(size_t)m * J], &alp.x[(size_t)cl.class_of[m] * J],
		       (size_t)J * sizeof(double));
	if (hs_alloc_clean(out, p, in->cap, err) < 0)
		goto out;
	out->objective = hs_throughput_value(ctx, in, out);
	rc = 0;
out:
	hs_alp_free(&alp);
	hs_classes_free(&cl);
	return rc;
}
