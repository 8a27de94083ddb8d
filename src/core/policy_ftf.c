/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_ftf.c — finish-time fairness (Themis): finish_time_fairness_perf
 * (aware) and finish_time_fairness (agnostic: every usable type is taken
 * to give the job its throughput on the reference type).
 *
 *   rho_m(X) = (t_m + R_m / thr_m(X)) / D_m,   D_m = t_m + R_m / T^iso_m
 *
 * with T^iso_m the job's throughput under the isolated allocation (an
 * equal 1/M share of the cluster; with entities, the job's part of the
 * entity tree: policy_shares.c); minimize max_m rho_m. Not an LP, but
 * for a fixed rho the constraints thr_m(X) >= b_m(rho) = R_m / (rho D_m -
 * t_m) are linear. Feasibility is tested with alloc_lp.c's MAXMIN form,
 * Z(rho) = max z s.t. thr_m(X) >= z b_m(rho): feasible iff Z >= 1. rho
 * only changes the z column, so the bisection keeps one LP and re-solves
 * from the previous basis (hs_alp_resolve). Bounds: rho <= 1 (the isolated
 * allocation achieves 1 for everyone) and rho >= max_m (t_m + R_m /
 * max_j T_mj) / D_m (no job can beat its best type full time). A feasible
 * step also lowers the upper bound to the rho its allocation actually
 * achieves (<= the rho tested, since Z >= 1), which shortens the search.
 * It stops at a relative gap of 1e-6.
 *
 * The objective reported is max_m rho_m(X) under the policy's
 * throughputs.
 */
#include "core/alloc_lp.h"
#include "core/policy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FTF_REL_GAP 1e-6
#define FTF_MAX_STEPS 80

/* The throughput the policy sees for job m on type j (0 if unusable). */
static double ftf_thr(const hs_policy_desc_t *d, const hs_problem_t *p, const double *cap, int m, int j)
{
	if (!hs_job_usable(p, cap, m, j))
		return 0.0;
	if (d->aware)
		return p->jobs[m].thr[j];
	int ref = p->reference_type >= 0 ? p->reference_type : 0;
	if (p->jobs[m].thr[ref] > 0.0)
		return p->jobs[m].thr[ref];
	/* it cannot run on the reference type: its first usable type stands in */
	for (int k = 0; k < p->cluster.ntypes; k++)
		if (hs_job_usable(p, cap, m, k))
			return p->jobs[m].thr[k];
	return 0.0;
}

/* T^iso_m under the policy's throughputs, with share `share` of the
 * cluster (hs_isolated_shares). Agnostic: the same rate on every usable
 * type, so T^iso is that rate times the job's time share (at most 1). */
static double ftf_iso(const hs_policy_desc_t *d, const hs_problem_t *p, const double *cap, int m,
		      double share)
{
	if (d->aware)
		return hs_isolated_thr_share(p, cap, m, share);
	double sum = 0.0, t = 0.0;
	for (int j = 0; j < p->cluster.ntypes; j++)
		if (hs_job_usable(p, cap, m, j)) {
			sum += cap[j] * share / p->jobs[m].scale_factor;
			t = ftf_thr(d, p, cap, m, j);
		}
	return t * (sum > 1.0 ? 1.0 : sum);
}

/* max_m rho_m(X) with the isolated shares share[] (NULL: equal). */
static double ftf_worst(const hs_policy_desc_t *d, const hs_problem_t *p, const double *cap,
			const hs_alloc_t *a, const double *share)
{
	const int J = p->cluster.ntypes;
	double worst = 0.0;
	for (int m = 0; m < p->njobs; m++) {
		const hs_job_t *jb = &p->jobs[m];
		double thr = 0.0;
		if (d->aware) { /* real throughputs, pairs included (packed) */
			thr = hs_alloc_effective_thr(a, p, m);
		} else {
			for (int j = 0; j < J; j++)
				thr += ftf_thr(d, p, cap, m, j) * a->x[(size_t)m * J + j];
		}
		double iso = ftf_iso(d, p, cap, m, share ? share[m] : 1.0 / p->njobs);
		double D = jb->age_s + jb->remaining_steps / iso;
		double rho = thr > 0.0 ? (jb->age_s + jb->remaining_steps / thr) / D : INFINITY;
		worst = rho > worst ? rho : worst;
	}
	return worst;
}

double hs_ftf_value(const hs_policy_desc_t *d, const hs_problem_t *p, const double *cap,
		    const hs_alloc_t *a)
{
	/* out of memory: equal shares (this value is only reported) */
	double *share = malloc(((size_t)p->njobs + 1) * sizeof(double));
	if (share && hs_isolated_shares(p, share, NULL) < 0) {
		free(share);
		share = NULL;
	}
	double worst = ftf_worst(d, p, cap, a, share);
	free(share);
	return worst;
}

double hs_ftf_evaluate(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a)
{
	return hs_ftf_value(ctx->desc, in->p, in->cap, a);
}

int hs_policy_ftf_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			hs_alloc_t *out, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs;
	const hs_policy_desc_t *d = ctx->desc;
	if (M == 0) {
		out->objective = 0.0;
		return 0;
	}
	/* jobs of different entities (or weights) have different shares */
	int keys = HS_CK_THR | HS_CK_STEPS | HS_CK_AGE |
			(p->entities.n > 0 ? HS_CK_ENTITY | HS_CK_WEIGHT : 0);
	hs_class_lp_t k;
	if (hs_class_lp_init(&k, ctx, in, keys, HS_ALP_MAXMIN, err) < 0)
		return -1;
	const int C = k.cl.n;
	hs_alp_t *alp = &k.alp;
	int rc = -1;
	double *D = malloc(((size_t)C + 1) * 2 * sizeof(double)), *best = D + C + 1;
	double *xbest = malloc(((size_t)C * J + 1) * sizeof(double));
	double *share = malloc(((size_t)M + 1) * sizeof(double));
	if (!D || !xbest || !share) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	if (hs_isolated_shares(p, share, err) < 0)
		goto out;
	double lo = 0.0;
	for (int c = 0; c < C; c++) {
		int m = k.cl.rep[c];
		const hs_job_t *jb = &p->jobs[m];
		best[c] = 0.0;
		for (int j = 0; j < J; j++) {
			double t = ftf_thr(d, p, in->cap, m, j);
			alp->a[(size_t)c * J + j] = t;
			best[c] = t > best[c] ? t : best[c];
		}
		double iso = ftf_iso(d, p, in->cap, m, share[m]);
		if (!(iso > 0.0) || !(best[c] > 0.0)) {
			hs_err_set(err, "job '%s' gets no throughput in the isolated allocation", jb->id);
			goto out;
		}
		D[c] = jb->age_s + jb->remaining_steps / iso;
		double l = (jb->age_s + jb->remaining_steps / best[c]) / D[c];
		lo = l > lo ? l : lo;
	}
	double hi = 1.0;
	int have = 0;
	for (int step = 0; step < FTF_MAX_STEPS; step++) {
		/* the first step tests rho = 1 (always feasible) */
		double rho = have ? 0.5 * (lo + hi) : (lo < 1.0 ? 1.0 : lo);
		for (int c = 0; c < C; c++) {
			const hs_job_t *jb = &p->jobs[k.cl.rep[c]];
			alp->alpha[c] = jb->remaining_steps / (rho * D[c] - jb->age_s);
		}
		hs_lp_status_t st = have ? hs_alp_resolve(alp, &ctx->lp_opts, err)
					 : hs_alp_solve(alp, &ctx->lp_opts, err);
		if (st == HS_LP_FAILED)
			goto out;
		if (st == HS_LP_OPTIMAL && alp->z >= 1.0 - 1e-9) {
			/* feasible: the rho this allocation actually achieves */
			double achieved = 0.0;
			for (int c = 0; c < C; c++) {
				const hs_job_t *jb = &p->jobs[k.cl.rep[c]];
				double thr = 0.0;
				for (int j = 0; j < J; j++)
					thr += alp->a[(size_t)c * J + j] * alp->x[(size_t)c * J + j];
				double r = thr > 0.0 ? (jb->age_s + jb->remaining_steps / thr) / D[c] : INFINITY;
				achieved = r > achieved ? r : achieved;
			}
			hi = achieved < rho ? achieved : rho;
			memcpy(xbest, alp->x, (size_t)C * J * sizeof(double));
			have = 1;
		} else if (!have) {
			hs_err_set(err, "finish-time fairness: the isolated allocation's rho is infeasible "
				   "(internal error)");
			goto out;
		} else {
			lo = rho;
		}
		if (have && hi - lo <= FTF_REL_GAP * hi)
			break;
	}
	if (hs_class_lp_finish(&k, ctx, in, HS_LP_OPTIMAL, xbest, "finish-time fairness", out, err) < 0)
		goto out;
	out->objective = ftf_worst(d, p, in->cap, out, share); /* the shares solved with */
	rc = 0;
out:
	free(D);
	free(xbest);
	free(share);
	hs_class_lp_free(&k);
	return rc;
}
