/* policy_maxmin.c — max-min fairness (LAS) as one LP: max_min_fairness
 * (heterogeneity-agnostic) and max_min_fairness_perf (aware), with
 * priority weights and scale factors (policies.md):
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
 * baseline and for tests that check both give the same optimum.
 */
#include "core/policy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct key_ctx {
	const hs_problem_t *p;
	const double *cap;
	int aware;
	int distinct;            /* no aggregation: every job its own class */
} key_ctx_t;

static unsigned long long key_hash(const void *vctx, int m)
{
	const key_ctx_t *k = vctx;
	const hs_job_t *jb = &k->p->jobs[m];
	if (k->distinct)
		return hs_hash_mix(0, (unsigned long long)m);
	unsigned long long h = hs_hash_mix(0, (unsigned long long)jb->scale_factor);
	h = hs_hash_double(h, jb->weight);
	for (int j = 0; j < k->p->cluster.ntypes; j++)
		h = k->aware ? hs_hash_double(h, jb->thr[j])
			     : hs_hash_mix(h, (unsigned long long)hs_job_usable(k->p, k->cap, m, j));
	return h;
}

static int key_eq(const void *vctx, int m, int n)
{
	const key_ctx_t *k = vctx;
	const hs_job_t *a = &k->p->jobs[m], *b = &k->p->jobs[n];
	if (k->distinct)
		return m == n;
	if (a->scale_factor != b->scale_factor || a->weight != b->weight)
		return 0;
	for (int j = 0; j < k->p->cluster.ntypes; j++) {
		if (k->aware ? a->thr[j] != b->thr[j]
			     : hs_job_usable(k->p, k->cap, m, j) != hs_job_usable(k->p, k->cap, n, j))
			return 0;
	}
	return 1;
}

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
	key_ctx_t kc = { p, in->cap, d->aware, ctx->no_classes };
	hs_classes_t cl;
	if (hs_classes_build(&cl, M, key_hash, key_eq, &kc, err) < 0)
		return -1;
	const int C = cl.n;
	int rc = -1;
	int *col = malloc(((size_t)C * J + 1) * sizeof(*col)); /* x_cj column or -1 */
	hs_lp_t *lp = hs_lp_new(1, err);
	if (!col || !lp) {
		if (!col)
			hs_err_set(err, "out of memory");
		goto out;
	}
	/* columns: z, then x_cj for usable (c, j) */
	int ncols = 1;
	for (int c = 0; c < C; c++)
		for (int j = 0; j < J; j++)
			col[(size_t)c * J + j] = hs_maxmin_coef(d, p, in->cap, cl.rep[c], j) > 0.0 ? ncols++ : -1;
	if (hs_lp_add_cols(lp, ncols, err) < 0 || hs_lp_set_obj(lp, 0, 1.0, err) < 0)
		goto out;
	for (int k = 1; k < ncols; k++)
		if (hs_lp_set_col_bounds(lp, k, 0.0, 1.0, err) < 0)
			goto out;
	/* rows: fair_c (2c), time_c (2c+1), then cap_j (2C + j) */
	if (hs_lp_add_rows(lp, 2 * C + J, err) < 0)
		goto out;
	for (int c = 0; c < C; c++) {
		int m = cl.rep[c];
		if (hs_lp_set_row_bounds(lp, 2 * c, 0.0, INFINITY, err) < 0 ||
		    hs_lp_set_row_bounds(lp, 2 * c + 1, -INFINITY, 1.0, err) < 0 ||
		    hs_lp_add_coef(lp, 2 * c, 0, -1.0, err) < 0)
			goto out;
		for (int j = 0; j < J; j++) {
			int k = col[(size_t)c * J + j];
			if (k < 0)
				continue;
			double size_sf = (double)cl.size[c] * p->jobs[m].scale_factor;
			if (hs_lp_add_coef(lp, 2 * c, k, hs_maxmin_coef(d, p, in->cap, m, j), err) < 0 ||
			    hs_lp_add_coef(lp, 2 * c + 1, k, 1.0, err) < 0 ||
			    hs_lp_add_coef(lp, 2 * C + j, k, size_sf, err) < 0)
				goto out;
		}
	}
	for (int j = 0; j < J; j++)
		if (hs_lp_set_row_bounds(lp, 2 * C + j, -INFINITY, in->cap[j], err) < 0)
			goto out;
	hs_lp_status_t st = hs_lp_solve(lp, &ctx->lp_opts, err);
	if (st == HS_LP_INFEASIBLE || st == HS_LP_UNBOUNDED) {
		hs_err_set(err, "max-min fairness LP is %s (internal error)",
			   st == HS_LP_INFEASIBLE ? "infeasible" : "unbounded");
		goto out;
	}
	if (st != HS_LP_OPTIMAL)
		goto out;
	ctx->last_iterations = hs_lp_iterations(lp);
	for (int m = 0; m < M; m++) {
		int c = cl.class_of[m];
		for (int j = 0; j < J; j++) {
			int k = col[(size_t)c * J + j];
			out->x[(size_t)m * J + j] = k < 0 ? 0.0 : hs_lp_col_value(lp, k);
		}
	}
	if (hs_alloc_clean(out, p, in->cap, err) < 0)
		goto out;
	out->objective = hs_maxmin_value(d, p, in->cap, out);
	rc = 0;
out:
	hs_lp_free(lp);
	free(col);
	hs_classes_free(&cl);
	return rc;
}
