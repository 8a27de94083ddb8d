/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_packed.c — space sharing: max_min_fairness_packed,
 * finish_time_fairness_packed and min_total_duration_packed, with the
 * scalable job x partner-job-type x accelerator-type formulation
 * (doc/policies.md), so the LP grows with jobs x job types, not jobs^2.
 *
 * Variables, for a job (class) c of job type a on accelerator type j:
 *   x0_cj   time alone;
 *   xb_cj   time sharing with some job of type b != a (same scale factor);
 *   y_aj    time sharing with another job of its own type: one variable
 *           shared by every job of type a (Gavel's "equal variables"), and
 *           none when a has a single job.
 * Constraints:
 *   time      sum_j x0_cj + sum_{b,j} xb_cj + sum_j y_aj <= 1
 *   capacity  sum_c n_c s_c x0_cj + sum_{c,b} n_c (s_c/2) xb_cj
 *               + sum_a N_a (s_a/2) y_aj <= N_j     (a pair counts once)
 *   balance   for a < b, j: sum_{c of a} n_c xb_cj = sum_{c of b} n_c xa_cj
 *             (type-a jobs spend with type-b partners what type-b jobs
 *             spend with type-a partners)
 *   thr_c = sum_j T_cj x0_cj + sum_{b,j} P(a,b,j) xb_cj + sum_j P(a,a,j) y_aj
 * and the policy's own objective on thr_c (max-min fairness, makespan as
 * one LP with y = 1/T, FTF by bisection re-solving from the previous
 * basis), exactly as the unpacked policies.
 *
 * Column generation: the LP starts with the alone columns only; after
 * each solve every partner column not yet in it is priced with the duals
 * (reduced cost 0 - sum_i pi_i a_i), the best improving ones are added and
 * the simplex continues from the previous basis, until no column would
 * improve the objective — then the LP over all columns is solved exactly.
 * A FTF feasibility step stops as soon as z >= 1 (feasible is all it asks).
 * Primal simplex: measured 5x faster than dual on these LPs.
 *
 * Pruning (exact): a pair in which both jobs get at most half their
 * throughput alone is never needed, since time-slicing the two alone for
 * the same capacity gives each at least as much and uses half the time;
 * such partner variables are left out.
 *
 * The LP solution is turned into concrete pairs per accelerator type: for
 * a < b the two sides are matched greedily (northwest corner), which is
 * possible because of the balance rows; jobs of one type sharing among
 * themselves (equal amounts t) are paired in a cycle, t/2 per edge (t for
 * a single edge when there are two). Job classes (identical type,
 * throughputs, scale factor and the policy's other inputs) are solved as
 * one row of variables (exact by the same symmetry argument as max-min
 * fairness); the pairs are then made between individual jobs.
 */
#include "core/alloc_lp.h"
#include "core/lp.h"
#include "core/policy_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { PK_MAXMIN = 0, PK_FTF = 1, PK_MAKESPAN = 2 };

typedef struct pk {
	const hs_problem_t *p;
	const double *cap;
	hs_classes_t cl;
	int C, J, A;
	int *tcount;      /* [A] jobs per job type */
	int *col0;        /* [C * J] alone column, -1 */
	int *colb;        /* [C * A * J] partner column (b != a), -1 */
	int *coly;        /* [A * J] same-type column, -1 */
	int *trow;        /* [C] time row */
	int *frow;        /* [C] objective row */
	int zcol;
	int caprow0;
	int nrow, ncol;   /* rows; columns before any partner column */
	hs_lp_t *lp;
	double *rs;       /* [C] objective row normalization */
	double *tmin;     /* [A * J] smallest alone throughput of a type's jobs */
	double *coef;     /* [C] objective-row factor on thr_c (owned) */
	int *balrow;      /* [A * A * J] balance row of (a < b, j), -1 */
	hs_lp_opts_t lpo; /* primal simplex: measured faster on these LPs */
} pk_t;

static void pk_free(pk_t *k)
{
	hs_classes_free(&k->cl);
	free(k->tcount);
	free(k->col0);
	free(k->colb);
	free(k->coly);
	free(k->trow);
	free(k->frow);
	free(k->rs);
	free(k->tmin);
	free(k->balrow);
	free(k->coef);
	hs_lp_free(k->lp);
}

static double pthr(const pk_t *k, int a, int b, int j)
{
	return k->p->jobtypes.pair_thr[((size_t)a * k->A + b) * k->J + j];
}

/* Can a type-a job of class c share type j with a type-b job (usefully)? */
static int partner_ok(const pk_t *k, int c, int b, int j)
{
	const hs_problem_t *p = k->p;
	int m = k->cl.rep[c], a = p->jobs[m].job_type;
	int s = p->jobs[m].scale_factor;
	if (a < 0 || b < 0 || p->jobtypes.scale_factor[b] != s || k->cap[j] < s)
		return 0;
	if (k->tcount[b] == 0 || (a == b && k->tcount[a] < 2))
		return 0;
	double pa = pthr(k, a, b, j), pb = pthr(k, b, a, j);
	double ta = p->jobs[m].thr[j], tbmin = k->tmin[(size_t)b * k->J + j];
	/* both must be able to run there at all (every job of type b) */
	if (pa <= 0.0 || pb <= 0.0 || ta <= 0.0 || tbmin <= 0.0)
		return 0;
	/* dominated when both get at most half of what they get alone */
	return !(pa <= 0.5 * ta && pb <= 0.5 * tbmin);
}

/* Adds the alone part of coef * thr_c to row r (pair columns add their
 * own throughput terms when they are created). */
static int add_thr_alone(pk_t *k, int r, int c, double coef, hs_err_t *err)
{
	const hs_problem_t *p = k->p;
	int m = k->cl.rep[c];
	for (int j = 0; j < k->J; j++) {
		int col = k->col0[(size_t)c * k->J + j];
		if (col >= 0 && hs_lp_add_coef(k->lp, r, col, coef * p->jobs[m].thr[j], err) < 0)
			return -1;
	}
	return 0;
}

/* The balance row of job types a != b on type j and the sign of a-side
 * entries in it (-1 when a > b), or -1. */
static int bal_row(const pk_t *k, int a, int b, int j, double *sign)
{
	*sign = a < b ? 1.0 : -1.0;
	int lo = a < b ? a : b, hi = a < b ? b : a;
	return k->balrow[((size_t)lo * k->A + hi) * k->J + j];
}

/* Column x^b_cj: class c (type a) sharing type j with type-b jobs. */
static int add_pair_col(pk_t *k, int c, int b, int j, hs_err_t *err)
{
	const hs_problem_t *p = k->p;
	int m = k->cl.rep[c], a = p->jobs[m].job_type;
	double n = k->cl.size[c], s = p->jobs[m].scale_factor, sign;
	int col = hs_lp_add_cols(k->lp, 1, err), r = bal_row(k, a, b, j, &sign);
	if (col < 0 || r < 0)
		return col < 0 ? -1 : hs_err_set(err, "packed LP: no balance row (internal error)");
	k->colb[((size_t)c * k->A + b) * k->J + j] = col;
	if (hs_lp_set_col_bounds(k->lp, col, 0.0, 1.0, err) < 0 ||
	    hs_lp_add_coef(k->lp, k->trow[c], col, 1.0, err) < 0 ||
	    hs_lp_add_coef(k->lp, k->frow[c], col, k->coef[c] * k->rs[c] * pthr(k, a, b, j), err) < 0 ||
	    hs_lp_add_coef(k->lp, k->caprow0 + j, col, n * s / 2.0, err) < 0 ||
	    hs_lp_add_coef(k->lp, r, col, sign * n, err) < 0)
		return -1;
	return 0;
}

/* Column y_aj: every type-a job sharing type j with another type-a job. */
static int add_shared_col(pk_t *k, int a, int j, hs_err_t *err)
{
	const hs_problem_t *p = k->p;
	int col = hs_lp_add_cols(k->lp, 1, err);
	if (col < 0)
		return -1;
	k->coly[(size_t)a * k->J + j] = col;
	if (hs_lp_set_col_bounds(k->lp, col, 0.0, 1.0, err) < 0 ||
	    hs_lp_add_coef(k->lp, k->caprow0 + j, col,
			   k->tcount[a] * p->jobtypes.scale_factor[a] / 2.0, err) < 0)
		return -1;
	for (int c = 0; c < k->C; c++) {
		if (p->jobs[k->cl.rep[c]].job_type != a)
			continue;
		if (hs_lp_add_coef(k->lp, k->trow[c], col, 1.0, err) < 0 ||
		    hs_lp_add_coef(k->lp, k->frow[c], col, k->coef[c] * k->rs[c] * pthr(k, a, a, j), err) < 0)
			return -1;
	}
	return 0;
}

/* The master LP: z, every alone column and every row; the partner
 * columns enter by column generation (price_columns). */
static int build(pk_t *k, hs_err_t *err)
{
	const hs_problem_t *p = k->p;
	const int C = k->C, J = k->J, A = k->A;
	k->lp = hs_lp_new(1, err);
	if (!k->lp)
		return -1;
	int ncol = 1; /* z */
	for (int c = 0; c < C; c++) {
		int m = k->cl.rep[c];
		for (int j = 0; j < J; j++) {
			k->col0[(size_t)c * J + j] = hs_job_usable(p, k->cap, m, j) ? ncol++ : -1;
			for (int b = 0; b < A; b++)
				k->colb[((size_t)c * A + b) * J + j] = -1;
		}
	}
	for (size_t i = 0; i < (size_t)A * J; i++)
		k->coly[i] = -1;
	/* rows: time and objective per class, capacity per type, balance per
	 * (a < b, j) of present types with equal scale factors */
	int nrow = 2 * C + J;
	for (int a = 0; a < A; a++)
		for (int b = 0; b < A; b++)
			for (int j = 0; j < J; j++)
				k->balrow[((size_t)a * A + b) * J + j] =
					a < b && p->jobtypes.scale_factor[a] == p->jobtypes.scale_factor[b] &&
					k->tcount[a] > 0 && k->tcount[b] > 0 ? nrow++ : -1;
	if (hs_lp_add_cols(k->lp, ncol, err) < 0 || hs_lp_add_rows(k->lp, nrow, err) < 0)
		return -1;
	k->zcol = 0;
	if (hs_lp_set_obj(k->lp, 0, 1.0, err) < 0)
		return -1;
	for (int col = 1; col < ncol; col++)
		if (hs_lp_set_col_bounds(k->lp, col, 0.0, 1.0, err) < 0)
			return -1;
	for (int r = 2 * C + J; r < nrow; r++)
		if (hs_lp_set_row_bounds(k->lp, r, 0.0, 0.0, err) < 0)
			return -1;
	k->caprow0 = 2 * C;
	k->nrow = nrow;
	k->ncol = ncol;
	for (int c = 0; c < C; c++) {
		int m = k->cl.rep[c];
		double n = k->cl.size[c], s = p->jobs[m].scale_factor;
		k->trow[c] = 2 * c;
		k->frow[c] = 2 * c + 1;
		if (hs_lp_set_row_bounds(k->lp, k->trow[c], -INFINITY, 1.0, err) < 0 ||
		    hs_lp_set_row_bounds(k->lp, k->frow[c], 0.0, INFINITY, err) < 0 ||
		    add_thr_alone(k, k->frow[c], c, k->coef[c] * k->rs[c], err) < 0)
			return -1;
		for (int j = 0; j < J; j++) {
			int col = k->col0[(size_t)c * J + j];
			if (col >= 0 && (hs_lp_add_coef(k->lp, k->trow[c], col, 1.0, err) < 0 ||
					 hs_lp_add_coef(k->lp, k->caprow0 + j, col, n * s, err) < 0))
				return -1;
		}
	}
	for (int j = 0; j < J; j++)
		if (hs_lp_set_row_bounds(k->lp, k->caprow0 + j, -INFINITY, k->cap[j], err) < 0)
			return -1;
	return 0;
}

typedef struct cand {
	double d;
	int c, b, j;             /* c = -1: the shared column of type b */
} cand_t;

static int cmp_cand(const void *x, const void *y)
{
	double a = ((const cand_t *)x)->d, b = ((const cand_t *)y)->d;
	return a > b ? -1 : a < b;
}

/* Column generation: prices every partner column not yet in the LP with
 * the current duals (reduced cost d = 0 - sum_i pi_i a_i; GLPK's sign
 * convention, checked in test_lp) and adds those that would improve the
 * objective, the most promising first. Returns how many were added. */
static int price_columns(pk_t *k, hs_err_t *err)
{
	const hs_problem_t *p = k->p;
	const int C = k->C, J = k->J, A = k->A;
	double *pt = malloc(((size_t)C + 1) * 2 * sizeof(double)), *pf = pt + C + 1;
	double *pc = malloc(((size_t)J + 1) * sizeof(double));
	size_t capc = 1024, nc = 0;
	cand_t *cd = malloc(capc * sizeof(*cd));
	int added = -1;
	if (!pt || !pc || !cd) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	for (int c = 0; c < C; c++) {
		pt[c] = hs_lp_row_dual(k->lp, k->trow[c]);
		pf[c] = hs_lp_row_dual(k->lp, k->frow[c]);
	}
	for (int j = 0; j < J; j++)
		pc[j] = hs_lp_row_dual(k->lp, k->caprow0 + j);
	const double tol = 1e-9;
	for (int c = 0; c < C; c++) {
		int m = k->cl.rep[c], a = p->jobs[m].job_type;
		if (a < 0)
			continue;
		double n = k->cl.size[c], s = p->jobs[m].scale_factor;
		for (int b = 0; b < A; b++) {
			if (b == a)
				continue;
			for (int j = 0; j < J; j++) {
				if (k->colb[((size_t)c * A + b) * J + j] >= 0 || !partner_ok(k, c, b, j))
					continue;
				double sign;
				int r = bal_row(k, a, b, j, &sign);
				double d = -(pt[c] + pf[c] * k->coef[c] * k->rs[c] * pthr(k, a, b, j) +
					     pc[j] * n * s / 2.0 + (r >= 0 ? hs_lp_row_dual(k->lp, r) * sign * n : 0.0));
				if (d <= tol)
					continue;
				if (nc == capc) {
					cand_t *nd = realloc(cd, 2 * capc * sizeof(*cd));
					if (!nd) {
						hs_err_set(err, "out of memory");
						goto out;
					}
					cd = nd;
					capc *= 2;
				}
				cd[nc++] = (cand_t){ d, c, b, j };
			}
		}
	}
	for (int a = 0; a < A; a++) {
		int rep = -1;
		for (int c = 0; c < C && rep < 0; c++)
			if (p->jobs[k->cl.rep[c]].job_type == a)
				rep = c;
		for (int j = 0; j < J && rep >= 0; j++) {
			if (k->coly[(size_t)a * J + j] >= 0 || !partner_ok(k, rep, a, j))
				continue;
			double d = -pc[j] * k->tcount[a] * p->jobtypes.scale_factor[a] / 2.0;
			for (int c = 0; c < C; c++)
				if (p->jobs[k->cl.rep[c]].job_type == a)
					d -= pt[c] + pf[c] * k->coef[c] * k->rs[c] * pthr(k, a, a, j);
			if (d <= tol)
				continue;
			if (nc == capc) {
				cand_t *nd = realloc(cd, 2 * capc * sizeof(*cd));
				if (!nd) {
					hs_err_set(err, "out of memory");
					goto out;
				}
				cd = nd;
				capc *= 2;
			}
			cd[nc++] = (cand_t){ d, -1, a, j };
		}
	}
	/* the best columns first; a round adds at most 2C + 64 */
	qsort(cd, nc, sizeof(*cd), cmp_cand);
	size_t lim = (size_t)2 * C + 64;
	added = 0;
	for (size_t i = 0; i < nc && i < lim; i++) {
		int rc = cd[i].c < 0 ? add_shared_col(k, cd[i].b, cd[i].j, err)
				     : add_pair_col(k, cd[i].c, cd[i].b, cd[i].j, err);
		if (rc < 0) {
			added = -1;
			goto out;
		}
		added++;
	}
out:
	free(pt);
	free(pc);
	free(cd);
	return added;
}

/* Sets the z column: objective row c gets -alpha_c (normalized). */
static int set_alpha(pk_t *k, const double *alpha, hs_err_t *err)
{
	int *rows = malloc(((size_t)k->C + 1) * sizeof(int));
	double *vals = malloc(((size_t)k->C + 1) * sizeof(double));
	int rc = -1;
	if (rows && vals) {
		for (int c = 0; c < k->C; c++) {
			rows[c] = k->frow[c];
			vals[c] = -alpha[c] * k->rs[c];
		}
		rc = hs_lp_set_col_coefs(k->lp, k->zcol, k->C, rows, vals, err);
	} else {
		hs_err_set(err, "out of memory");
	}
	free(rows);
	free(vals);
	return rc;
}

/* ---- warm start (max-min) -------------------------------------------- */

/* Starting basis from alone-only solution x [C * J] with value z: at
 * their bounds the columns and rows that sit on one, basic the rest; a
 * class short of basic variables for its two rows gets its tight rows'
 * slacks (degenerate), then tight capacity rows. Returns 0 with the basis
 * set, 1 when no basis of the right size came out (cold start then). */
static int set_basis_from(pk_t *k, const double *x, double z, const double *alpha, hs_err_t *err)
{
	const int C = k->C, J = k->J;
	const double tol = 1e-9;
	hs_lp_stat_t *rs = malloc(((size_t)k->nrow + 1) * sizeof(*rs));
	hs_lp_stat_t *cs = malloc(((size_t)k->ncol + 1) * sizeof(*cs));
	double *load = calloc((size_t)J + 1, sizeof(double));
	int rc = -1, nbasic = 1; /* z */
	if (!rs || !cs || !load) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	for (int r = 0; r < k->nrow; r++)
		rs[r] = HS_LP_BASIC; /* balance rows are empty before any partner column */
	nbasic += k->nrow - 2 * C - J;
	cs[k->zcol] = HS_LP_BASIC;
	for (int c = 0; c < C; c++) {
		const hs_job_t *jb = &k->p->jobs[k->cl.rep[c]];
		double t = 0.0, thr = 0.0;
		int local = 0;
		for (int j = 0; j < J; j++) {
			int col = k->col0[(size_t)c * J + j];
			double v = x[(size_t)c * J + j];
			if (col < 0)
				continue;
			cs[col] = v >= 1.0 - tol ? HS_LP_AT_UPPER : v > tol ? HS_LP_BASIC : HS_LP_AT_LOWER;
			local += cs[col] == HS_LP_BASIC;
			t += v;
			thr += jb->thr[j] * v;
			load[j] += k->cl.size[c] * jb->scale_factor * v;
		}
		double dem = alpha[c] * z;
		int t_slack = t < 1.0 - tol, f_slack = k->coef[c] * thr - dem > tol * (dem > 1.0 ? dem : 1.0);
		rs[k->trow[c]] = t_slack || local < 1 ? HS_LP_BASIC : HS_LP_AT_UPPER;
		rs[k->frow[c]] = f_slack || local + (rs[k->trow[c]] == HS_LP_BASIC) < 2 ? HS_LP_BASIC
											   : HS_LP_AT_LOWER;
		nbasic += local + (rs[k->trow[c]] == HS_LP_BASIC) + (rs[k->frow[c]] == HS_LP_BASIC);
	}
	for (int j = 0; j < J; j++) {
		int r = k->caprow0 + j;
		rs[r] = load[j] < k->cap[j] * (1.0 - tol) ? HS_LP_BASIC : HS_LP_AT_UPPER;
		nbasic += rs[r] == HS_LP_BASIC;
	}
	/* still short (z's row block): tight capacity slacks */
	for (int j = 0; j < J && nbasic < k->nrow; j++)
		if (rs[k->caprow0 + j] != HS_LP_BASIC) {
			rs[k->caprow0 + j] = HS_LP_BASIC;
			nbasic++;
		}
	rc = 1;
	if (nbasic == k->nrow)
		rc = hs_lp_set_start_basis(k->lp, k->nrow, rs, k->ncol, cs, err);
out:
	free(rs);
	free(cs);
	free(load);
	return rc;
}

/* Warm start: before any partner column the master LP is the unpacked
 * allocation LP (alone time only), which alloc_lp.c's active-set method
 * solves far faster than the simplex does on the full LP from the slack
 * basis (4,096 distinct jobs: 0.04 s against ~60% of a 8 s packed
 * solve). Its solution becomes the master's starting basis. Only a
 * starting point: optimality is still the simplex's and column
 * generation's, and any failure here means a cold start. */
static int warm_start(pk_t *k, hs_policy_ctx_t *ctx, const double *alpha, hs_err_t *err)
{
	const int C = k->C, J = k->J;
	hs_alp_t alp;
	if (hs_alp_init_classes(&alp, &k->cl, k->p, k->cap, ctx, HS_ALP_MAXMIN, err) < 0)
		return -1;
	for (int c = 0; c < C; c++) {
		const hs_job_t *jb = &k->p->jobs[k->cl.rep[c]];
		alp.alpha[c] = alpha[c];
		for (int j = 0; j < J; j++)
			alp.a[(size_t)c * J + j] = k->col0[(size_t)c * J + j] >= 0 ? k->coef[c] * jb->thr[j] : 0.0;
	}
	hs_err_t e2;
	int rc = 1;
	if (hs_alp_solve(&alp, &ctx->lp_opts, &e2) == HS_LP_OPTIMAL)
		rc = set_basis_from(k, alp.x, alp.z, alpha, err);
	ctx->last_iterations += alp.iterations;
	ctx->last_lp_solves += alp.lp_solves;
	hs_alp_free(&alp);
	return rc;
}

/* ---- turning the LP solution into pairs ----------------------------------------- */

typedef struct pairmap {
	size_t cap;
	uint64_t *key;
	int *idx;
} pairmap_t;

static int pair_add(pairmap_t *pm, hs_alloc_t *out, int m, int k, int j, double x, hs_err_t *err)
{
	if (x <= 1e-12 || m == k)
		return 0;
	if (m > k) {
		int t = m;
		m = k;
		k = t;
	}
	uint64_t key = ((uint64_t)(uint32_t)m << 32) | (uint32_t)k;
	if ((size_t)out->npairs * 2 + 2 > pm->cap) { /* grow and rehash */
		size_t ncap = pm->cap ? pm->cap * 2 : 1024;
		uint64_t *nk = malloc(ncap * sizeof(*nk));
		int *ni = malloc(ncap * sizeof(*ni));
		if (!nk || !ni) {
			free(nk);
			free(ni);
			return hs_err_set(err, "out of memory");
		}
		for (size_t i = 0; i < ncap; i++)
			ni[i] = -1;
		for (size_t i = 0; i < pm->cap; i++) {
			if (pm->idx[i] < 0)
				continue;
			size_t h = (size_t)(hs_hash_mix(0, pm->key[i]) & (ncap - 1));
			while (ni[h] >= 0)
				h = (h + 1) & (ncap - 1);
			nk[h] = pm->key[i];
			ni[h] = pm->idx[i];
		}
		free(pm->key);
		free(pm->idx);
		pm->key = nk;
		pm->idx = ni;
		pm->cap = ncap;
	}
	size_t h = (size_t)(hs_hash_mix(0, key) & (pm->cap - 1));
	while (pm->idx[h] >= 0 && pm->key[h] != key)
		h = (h + 1) & (pm->cap - 1);
	if (pm->idx[h] < 0) {
		int i = hs_alloc_add_pair(out, m, k, err);
		if (i < 0)
			return -1;
		pm->key[h] = key;
		pm->idx[h] = i;
	}
	out->pairs[pm->idx[h]].x[j] += x;
	return 0;
}

static int decompose(pk_t *k, hs_alloc_t *out, hs_err_t *err)
{
	const hs_problem_t *p = k->p;
	const int J = k->J, A = k->A, M = p->njobs;
	pairmap_t pm = { 0, NULL, NULL };
	int *la = malloc(((size_t)M + 1) * sizeof(int)), *lb = malloc(((size_t)M + 1) * sizeof(int));
	double *ua = malloc(((size_t)M + 1) * sizeof(double)), *ub = malloc(((size_t)M + 1) * sizeof(double));
	int rc = -1;
	if (!la || !lb || !ua || !ub) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	for (int j = 0; j < J; j++) {
		for (int a = 0; a < A; a++) {
			/* same type: a cycle through the type's jobs */
			int col = k->coly[(size_t)a * J + j];
			double t = col >= 0 ? hs_lp_col_value(k->lp, col) : 0.0;
			if (t > 1e-12) {
				int n = 0;
				for (int m = 0; m < M; m++)
					if (p->jobs[m].job_type == a)
						la[n++] = m;
				if (n == 2) {
					if (pair_add(&pm, out, la[0], la[1], j, t, err) < 0)
						goto out;
				} else {
					for (int i = 0; i < n; i++)
						if (pair_add(&pm, out, la[i], la[(i + 1) % n], j, t / 2.0, err) < 0)
							goto out;
				}
			}
			for (int b = a + 1; b < A; b++) {
				int na = 0, nb = 0;
				for (int m = 0; m < M; m++) {
					int c = k->cl.class_of[m], t2 = p->jobs[m].job_type;
					if (t2 == a && k->colb[((size_t)c * A + b) * J + j] >= 0) {
						ua[na] = hs_lp_col_value(k->lp, k->colb[((size_t)c * A + b) * J + j]);
						if (ua[na] > 1e-12)
							la[na++] = m;
					} else if (t2 == b && k->colb[((size_t)c * A + a) * J + j] >= 0) {
						ub[nb] = hs_lp_col_value(k->lp, k->colb[((size_t)c * A + a) * J + j]);
						if (ub[nb] > 1e-12)
							lb[nb++] = m;
					}
				}
				/* northwest corner: match the two sides' amounts */
				for (int i = 0, i2 = 0; i < na && i2 < nb;) {
					double x = ua[i] < ub[i2] ? ua[i] : ub[i2];
					if (pair_add(&pm, out, la[i], lb[i2], j, x, err) < 0)
						goto out;
					ua[i] -= x;
					ub[i2] -= x;
					if (ua[i] <= 1e-12)
						i++;
					if (ub[i2] <= 1e-12)
						i2++;
				}
			}
		}
	}
	rc = 0;
out:
	free(pm.key);
	free(pm.idx);
	free(la);
	free(lb);
	free(ua);
	free(ub);
	return rc;
}

/* ---- the three policies ------------------------------------------------------- */

static double packed_maxmin_value(const hs_problem_t *p, const hs_alloc_t *a)
{
	double v = INFINITY;
	for (int m = 0; m < p->njobs; m++) {
		const hs_job_t *jb = &p->jobs[m];
		double teq = hs_job_equal_share_thr(p, m);
		double r = jb->scale_factor * hs_alloc_effective_thr(a, p, m) / (jb->weight * teq);
		v = r < v ? r : v;
	}
	return p->njobs ? v : 0.0;
}

double hs_packed_evaluate(hs_policy_ctx_t *ctx, const hs_solve_in_t *in, const hs_alloc_t *a)
{
	switch (ctx->desc->variant) {
	case PK_MAXMIN:
		return packed_maxmin_value(in->p, a);
	case PK_MAKESPAN:
		return hs_makespan_value(in->p, a);
	default:
		return hs_ftf_value(ctx->desc, in->p, in->cap, a);
	}
}

/* Solves the master and generates columns until none would improve it:
 * then the LP over all partner columns is optimal too. New columns start
 * nonbasic at 0, so each re-solve continues from the previous basis. */
static hs_lp_status_t solve_lp(pk_t *k, hs_policy_ctx_t *ctx, double enough, hs_err_t *err)
{
	for (;;) {
		long it0 = hs_lp_iterations(k->lp);
		hs_lp_status_t st = hs_lp_solve(k->lp, &k->lpo, err);
		ctx->last_iterations += hs_lp_iterations(k->lp) - it0;
		ctx->last_lp_solves++;
		if (st != HS_LP_OPTIMAL)
			return st;
		/* a feasibility test (FTF) can stop as soon as z is enough */
		if (hs_lp_col_value(k->lp, k->zcol) >= enough)
			return HS_LP_OPTIMAL;
		int added = price_columns(k, err);
		if (added < 0)
			return HS_LP_FAILED;
		if (added == 0)
			return HS_LP_OPTIMAL;
	}
}

/* Reads the alone part of the LP solution for class c into row x. */
static void alone_row(const pk_t *k, int c, double *x)
{
	for (int j = 0; j < k->J; j++) {
		int col = k->col0[(size_t)c * k->J + j];
		x[j] = col >= 0 ? hs_lp_col_value(k->lp, col) : 0.0;
	}
}

/* thr_c of the LP solution. */
static double lp_thr(const pk_t *k, int c)
{
	const hs_problem_t *p = k->p;
	int m = k->cl.rep[c], a = p->jobs[m].job_type;
	double t = 0.0;
	for (int j = 0; j < k->J; j++) {
		int col = k->col0[(size_t)c * k->J + j];
		if (col >= 0)
			t += p->jobs[m].thr[j] * hs_lp_col_value(k->lp, col);
		for (int b = 0; b < k->A && a >= 0; b++) {
			col = b == a ? k->coly[(size_t)a * k->J + j] : k->colb[((size_t)c * k->A + b) * k->J + j];
			if (col >= 0)
				t += pthr(k, a, b, j) * hs_lp_col_value(k->lp, col);
		}
	}
	return t;
}

/* The solver's arrays for problem in->p (classes made with `flags`),
 * the jobs per job type and their smallest alone throughputs. */
static int pk_init(pk_t *k, const hs_policy_ctx_t *ctx, const hs_solve_in_t *in, int flags,
		   hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs, A = p->jobtypes.n;
	memset(k, 0, sizeof(*k));
	k->p = p;
	k->cap = in->cap;
	k->J = J;
	k->A = A;
	if (hs_job_classes(&k->cl, p, in->cap, flags, err) < 0)
		return -1;
	const int C = k->C = k->cl.n;
	k->tcount = calloc((size_t)A + 1, sizeof(int));
	k->col0 = malloc(((size_t)C * J + 1) * sizeof(int));
	k->colb = malloc(((size_t)C * A * J + 1) * sizeof(int));
	k->coly = malloc(((size_t)A * J + 1) * sizeof(int));
	k->trow = malloc(((size_t)C + 1) * sizeof(int));
	k->frow = malloc(((size_t)C + 1) * sizeof(int));
	k->rs = malloc(((size_t)C + 1) * sizeof(double));
	k->tmin = malloc(((size_t)A * J + 1) * sizeof(double));
	k->balrow = malloc(((size_t)A * A * J + 1) * sizeof(int));
	k->coef = malloc(((size_t)C + 1) * sizeof(double));
	k->lpo = ctx->lp_opts;
	if (k->lpo.method == HS_LP_AUTO)
		k->lpo.method = HS_LP_PRIMAL;
	if (!k->tcount || !k->col0 || !k->colb || !k->coly || !k->trow || !k->frow || !k->rs ||
	    !k->tmin || !k->balrow || !k->coef)
		return hs_err_set(err, "out of memory");
	for (size_t i = 0; i < (size_t)A * J; i++)
		k->tmin[i] = INFINITY;
	for (int m = 0; m < M; m++) {
		int a = p->jobs[m].job_type;
		if (a < 0)
			continue;
		k->tcount[a]++;
		for (int j = 0; j < J; j++)
			if (p->jobs[m].thr[j] < k->tmin[(size_t)a * J + j])
				k->tmin[(size_t)a * J + j] = p->jobs[m].thr[j];
	}
	return 0;
}

/* The objective rows' factors: coef_c thr_c - alpha_c z >= 0, normalized
 * by the largest throughput coefficient of the row (k->coef, k->rs);
 * alpha [C] is 1, or for makespan the remaining work in units of the
 * longest best-case job. */
static void objective_rows(pk_t *k, const hs_solve_in_t *in, int variant, double *alpha)
{
	const hs_problem_t *p = k->p;
	const int J = k->J, A = k->A;
	double unit = 0.0; /* makespan: y in units of the longest best-case job */
	for (int c = 0; c < k->C; c++) {
		int m = k->cl.rep[c];
		const hs_job_t *jb = &p->jobs[m];
		double mx = 0.0;
		for (int j = 0; j < J; j++)
			mx = jb->thr[j] > mx ? jb->thr[j] : mx;
		for (int j = 0; j < J && jb->job_type >= 0; j++)
			for (int b = 0; b < A; b++)
				mx = pthr(k, jb->job_type, b, j) > mx ? pthr(k, jb->job_type, b, j) : mx;
		k->coef[c] = variant == PK_MAXMIN ? jb->scale_factor / (jb->weight * hs_job_equal_share_thr(p, m)) : 1.0;
		k->rs[c] = mx > 0.0 ? 1.0 / (k->coef[c] * mx) : 1.0;
		alpha[c] = 1.0;
		double best1 = 0.0;
		for (int j = 0; j < J; j++)
			if (hs_job_usable(p, in->cap, m, j) && jb->thr[j] > best1)
				best1 = jb->thr[j];
		if (best1 > 0.0 && jb->remaining_steps / best1 > unit)
			unit = jb->remaining_steps / best1;
	}
	if (!(unit > 0.0))
		unit = 1.0;
	if (variant == PK_MAKESPAN)
		for (int c = 0; c < k->C; c++)
			alpha[c] = p->jobs[k->cl.rep[c]].remaining_steps / unit;
}

/* The baseline without column generation: every useful partner column
 * from the start. */
static int add_all_partner_cols(pk_t *k, hs_err_t *err)
{
	const hs_problem_t *p = k->p;
	const int C = k->C, J = k->J, A = k->A;
	for (int c = 0; c < C; c++) {
		int a = p->jobs[k->cl.rep[c]].job_type;
		for (int b = 0; b < A && a >= 0; b++)
			for (int j = 0; j < J; j++)
				if (b != a && partner_ok(k, c, b, j) && add_pair_col(k, c, b, j, err) < 0)
					return -1;
	}
	for (int a = 0; a < A; a++) {
		int rep = -1;
		for (int c = 0; c < C && rep < 0; c++)
			if (p->jobs[k->cl.rep[c]].job_type == a)
				rep = c;
		for (int j = 0; j < J && rep >= 0; j++)
			if (partner_ok(k, rep, a, j) && add_shared_col(k, a, j, err) < 0)
				return -1;
	}
	return 0;
}

/* Max-min fairness and makespan: one LP with the given alpha. */
static int solve_once(pk_t *k, hs_policy_ctx_t *ctx, int variant, const double *alpha,
		      hs_err_t *err)
{
	if (set_alpha(k, alpha, err) < 0)
		return -1;
	int cold = 1;
	/* max-min only: on makespan LPs the built basis was rejected
	 * (wrong count) and the extra solve made it 0.7x (bench/solve.sh) */
	if (variant == PK_MAXMIN && !ctx->no_active_set && !ctx->no_warm_start &&
	    (cold = warm_start(k, ctx, alpha, err)) < 0)
		return -1;
	ctx->last_warm_start = !cold;
	hs_lp_status_t st = solve_lp(k, ctx, INFINITY, err);
	if (st != HS_LP_OPTIMAL) {
		if (st != HS_LP_FAILED)
			hs_err_set(err, "packed LP is %s (internal error)",
				   st == HS_LP_INFEASIBLE ? "infeasible" : "unbounded");
		return -1;
	}
	return 0;
}

/* FTF's bisection range: each class's isolated finish time D [C], and
 * the largest rho any class could reach at its best throughput (*lo). */
static int ftf_bounds(const pk_t *k, const hs_solve_in_t *in, double *D, double *lo,
		      hs_err_t *err)
{
	const hs_problem_t *p = k->p;
	const int J = k->J, A = k->A;
	*lo = 0.0;
	/* T^iso (aware, alone) with each job's share (policy_shares.c) */
	double *share = malloc(((size_t)p->njobs + 1) * sizeof(double));
	if (!share)
		return hs_err_set(err, "out of memory");
	if (hs_isolated_shares(p, share, err) < 0) {
		free(share);
		return -1;
	}
	for (int c = 0; c < k->C; c++) {
		int m = k->cl.rep[c];
		const hs_job_t *jb = &p->jobs[m];
		double iso = hs_isolated_thr_share(p, in->cap, m, share[m]), bestt = 0.0;
		for (int j = 0; j < J; j++)
			bestt = jb->thr[j] > bestt ? jb->thr[j] : bestt;
		for (int j = 0; j < J && jb->job_type >= 0; j++)
			for (int b = 0; b < A; b++) /* a pair can never beat alone + partner time */
				bestt = pthr(k, jb->job_type, b, j) > bestt ? pthr(k, jb->job_type, b, j) : bestt;
		if (!(iso > 0.0)) {
			hs_err_set(err, "job '%s' gets no throughput in the isolated allocation", jb->id);
			free(share);
			return -1;
		}
		D[c] = jb->age_s + jb->remaining_steps / iso;
		double l = (jb->age_s + jb->remaining_steps / bestt) / D[c];
		*lo = l > *lo ? l : *lo;
	}
	free(share);
	return 0;
}

/* The worst rho of the LP's current solution (D: isolated finish times). */
static double ftf_achieved(const pk_t *k, const double *D)
{
	double achieved = 0.0;
	for (int c = 0; c < k->C; c++) {
		const hs_job_t *jb = &k->p->jobs[k->cl.rep[c]];
		double t = lp_thr(k, c);
		double r = t > 0.0 ? (jb->age_s + jb->remaining_steps / t) / D[c] : INFINITY;
		achieved = r > achieved ? r : achieved;
	}
	return achieved;
}

/* Finish-time fairness: bisection on rho, as policy_ftf.c; the best
 * feasible solution, decomposed, in *best. */
static int solve_ftf(pk_t *k, hs_policy_ctx_t *ctx, const hs_solve_in_t *in, double *alpha,
		     double *D, hs_alloc_t *best, hs_err_t *err)
{
	const int C = k->C, M = k->p->njobs, J = k->J;
	double lo, hi = 1.0;
	if (ftf_bounds(k, in, D, &lo, err) < 0)
		return -1;
	int have = 0;
	for (int step = 0; step < 80; step++) {
		double rho = have ? 0.5 * (lo + hi) : 1.0;
		for (int c = 0; c < C; c++) {
			const hs_job_t *jb = &k->p->jobs[k->cl.rep[c]];
			alpha[c] = jb->remaining_steps / (rho * D[c] - jb->age_s);
		}
		if (set_alpha(k, alpha, err) < 0)
			return -1;
		hs_lp_status_t st = solve_lp(k, ctx, 1.0, err);
		if (st == HS_LP_FAILED)
			return -1;
		if (st == HS_LP_OPTIMAL && hs_lp_col_value(k->lp, k->zcol) >= 1.0 - 1e-9) {
			double achieved = ftf_achieved(k, D);
			hi = achieved < rho ? achieved : rho;
			/* keep this solution: decompose it now (the LP moves on) */
			hs_alloc_free(best);
			if (hs_alloc_init(best, M, J, err) < 0)
				return -1;
			for (int m = 0; m < M; m++)
				alone_row(k, k->cl.class_of[m], &best->x[(size_t)m * J]);
			if (decompose(k, best, err) < 0)
				return -1;
			have = 1;
		} else if (!have) {
			return hs_err_set(err, "finish-time fairness: the isolated allocation's rho is "
					  "infeasible (internal error)");
		} else {
			lo = rho;
		}
		if (have && hi - lo <= 1e-6 * hi)
			break;
	}
	return 0;
}

/* Copies FTF's kept solution into out (alone shares and pairs). */
static int copy_kept(const hs_alloc_t *best, int M, int J, hs_alloc_t *out, hs_err_t *err)
{
	memcpy(out->x, best->x, (size_t)M * J * sizeof(double));
	for (int i = 0; i < best->npairs; i++) {
		int idx = hs_alloc_add_pair(out, best->pairs[i].m, best->pairs[i].k, err);
		if (idx < 0)
			return -1;
		memcpy(out->pairs[idx].x, best->pairs[i].x, (size_t)J * sizeof(double));
	}
	return 0;
}

int hs_policy_packed_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			   hs_alloc_t *out, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs;
	const int variant = ctx->desc->variant;
	if (M == 0) {
		out->objective = 0.0;
		return 0;
	}
	int flags = ctx->no_classes ? HS_CK_DISTINCT
		    : HS_CK_THR | HS_CK_JOBTYPE |
		      (variant == PK_MAXMIN ? HS_CK_WEIGHT : HS_CK_STEPS) |
		      (variant == PK_FTF ? HS_CK_AGE : 0) |
		      /* FTF: jobs of different entities have different shares */
		      (variant == PK_FTF && p->entities.n > 0 ? HS_CK_ENTITY | HS_CK_WEIGHT : 0);
	int rc = -1;
	double *alpha = NULL, *D = NULL;
	hs_alloc_t best;
	memset(&best, 0, sizeof(best));
	pk_t k;
	if (pk_init(&k, ctx, in, flags, err) < 0)
		goto out;
	const int C = k.C;
	alpha = malloc(((size_t)C + 1) * sizeof(double));
	D = malloc(((size_t)C + 1) * sizeof(double));
	if (!alpha || !D) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	objective_rows(&k, in, variant, alpha);
	if (build(&k, err) < 0 || (ctx->no_active_set && add_all_partner_cols(&k, err) < 0))
		goto out;
	if (variant != PK_FTF) {
		if (solve_once(&k, ctx, variant, alpha, err) < 0)
			goto out;
		for (int m = 0; m < M; m++)
			alone_row(&k, k.cl.class_of[m], &out->x[(size_t)m * J]);
		if (decompose(&k, out, err) < 0)
			goto out;
	} else if (solve_ftf(&k, ctx, in, alpha, D, &best, err) < 0 ||
		   copy_kept(&best, M, J, out, err) < 0) {
		goto out;
	}
	ctx->last_items = C;
	ctx->last_lp_items = C;
	if (hs_alloc_clean(out, p, in->cap, err) < 0)
		goto out;
	out->objective = hs_packed_evaluate(ctx, in, out);
	rc = 0;
out:
	free(alpha);
	free(D);
	hs_alloc_free(&best);
	pk_free(&k);
	return rc;
}
