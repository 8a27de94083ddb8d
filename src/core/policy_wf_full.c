/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_wf_full.c — water filling's full-LP method (benchmark baseline,
 * and the reference the fast method of policy_hierarchical.c is tested
 * against): one GLPK problem over every class, LP1 plus the LP2/LP3
 * certificates, round after round until every class is frozen.
 *
 * Finding the classes stuck at LP1's level z* (Gavel uses a MILP): a
 * class whose row has a nonzero dual in LP1 is one (complementary
 * slackness: its row is tight in every optimal solution). LP2 maximizes
 * sum_m n_m e_m with r_m >= z* w'_m + e_m, 0 <= e_m <= delta over the
 * unfrozen classes; one with e_m > 0 can improve (a certificate). Every
 * class with e_m = 0 is then tested alone (LP3: maximize its e_m); if even
 * that is ~0 it is a bottleneck. The convex combination argument shows at
 * least one class is frozen per round. All three LPs are one GLPK problem
 * whose bounds, objective and z column change, re-solved from the
 * previous basis. */
#include "core/policy_wf.h"

#include <math.h>
#include <stdlib.h>

#define IMPROVE_TOL 1e-6

static int build(hs_wf_t *s, hs_err_t *err)
{
	const int C = s->C, J = s->J;
	s->lp = hs_lp_new(1, err);
	if (!s->lp)
		return -1;
	int ncols = 1 + C;
	for (int c = 0; c < C; c++)
		for (int j = 0; j < J; j++)
			s->col[(size_t)c * J + j] = s->a[(size_t)c * J + j] > 0.0 ? ncols++ : -1;
	s->zcol = 0;
	s->ecol0 = 1;
	s->frow0 = 0;
	s->trow0 = C;
	s->caprow0 = 2 * C;
	if (hs_lp_add_cols(s->lp, ncols, err) < 0 || hs_lp_add_rows(s->lp, 2 * C + J, err) < 0)
		return -1;
	for (int k = 1 + C; k < ncols; k++)
		if (hs_lp_set_col_bounds(s->lp, k, 0.0, 1.0, err) < 0)
			return -1;
	for (int c = 0; c < C; c++) {
		double ns = s->cl.size[c] * (double)s->p->jobs[s->cl.rep[c]].scale_factor;
		if (hs_lp_add_coef(s->lp, s->frow0 + c, s->ecol0 + c, -1.0, err) < 0 ||
		    hs_lp_set_row_bounds(s->lp, s->trow0 + c, -INFINITY, 1.0, err) < 0)
			return -1;
		for (int j = 0; j < J; j++) {
			int k = s->col[(size_t)c * J + j];
			if (k < 0)
				continue;
			if (hs_lp_add_coef(s->lp, s->frow0 + c, k, s->a[(size_t)c * J + j] * s->rs[c], err) < 0 ||
			    hs_lp_add_coef(s->lp, s->trow0 + c, k, 1.0, err) < 0 ||
			    hs_lp_add_coef(s->lp, s->caprow0 + j, k, ns, err) < 0)
				return -1;
		}
	}
	for (int j = 0; j < J; j++)
		if (hs_lp_set_row_bounds(s->lp, s->caprow0 + j, -INFINITY, s->cap[j], err) < 0)
			return -1;
	return 0;
}

/* Sets the fair rows for this round: unfrozen r_c - w'_c z - e_c >= -q_c
 * (q_c: the class's charge, 0 without held GPUs), frozen r_c - e_c >=
 * level_c. */
static int set_round(hs_wf_t *s, hs_err_t *err)
{
	int *rows = malloc(((size_t)s->C + 1) * sizeof(int));
	double *vals = malloc(((size_t)s->C + 1) * sizeof(double));
	if (!rows || !vals) {
		free(rows);
		free(vals);
		return hs_err_set(err, "out of memory");
	}
	for (int c = 0; c < s->C; c++) {
		rows[c] = s->frow0 + c;
		vals[c] = s->frozen[c] ? 0.0 : -s->w[c] * s->rs[c];
	}
	int rc = hs_lp_set_col_coefs(s->lp, s->zcol, s->C, rows, vals, err);
	free(rows);
	free(vals);
	for (int c = 0; c < s->C && rc == 0; c++)
		rc = hs_lp_set_row_bounds(s->lp, s->frow0 + c,
					  (s->frozen[c] ? s->level[c] : -s->q[c]) * s->rs[c], INFINITY, err);
	return rc;
}

/* Objective and bounds of the three LPs. which: 1 = max z; 2 = max sum
 * n_c e_c (e_c <= delta_c); 3 = max e_only. */
static int set_phase(hs_wf_t *s, int which, double z, int only, hs_err_t *err)
{
	/* z is held a hair below z* so solver tolerances cannot make LP2/3
	 * infeasible */
	double zf = z * (1.0 - 1e-9);
	if (hs_lp_set_obj(s->lp, s->zcol, which == 1 ? 1.0 : 0.0, err) < 0 ||
	    hs_lp_set_col_bounds(s->lp, s->zcol, which == 1 ? 0.0 : zf, which == 1 ? INFINITY : zf, err) < 0)
		return -1;
	for (int c = 0; c < s->C; c++) {
		double ub = 0.0, obj = 0.0;
		if (which == 2 && !s->frozen[c] && s->w[c] > 0.0) {
			double l = hs_wf_level(s, c, z);
			ub = (l > 0.0 ? 0.05 * l : 1.0) * s->rs[c];
			obj = s->cl.size[c];
		} else if (which == 3 && c == only) {
			ub = INFINITY;
			obj = 1.0;
		}
		if (hs_lp_set_col_bounds(s->lp, s->ecol0 + c, 0.0, ub, err) < 0 ||
		    hs_lp_set_obj(s->lp, s->ecol0 + c, obj, err) < 0)
			return -1;
	}
	return 0;
}

static int solve_lp(hs_wf_t *s, hs_policy_ctx_t *ctx, hs_err_t *err)
{
	long it0 = hs_lp_iterations(s->lp);
	hs_lp_status_t st = hs_lp_solve(s->lp, &ctx->lp_opts, err);
	ctx->last_iterations += hs_lp_iterations(s->lp) - it0;
	ctx->last_lp_solves++;
	if (st == HS_LP_OPTIMAL)
		return 0;
	if (st != HS_LP_FAILED)
		hs_err_set(err, "water-filling LP is %s (internal error)",
			   st == HS_LP_INFEASIBLE ? "infeasible" : "unbounded");
	return -1;
}

/* Freezes class c at level z w'_c - q_c. */
static void freeze(hs_wf_t *s, int c, double z)
{
	s->frozen[c] = 1;
	s->level[c] = hs_wf_level(s, c, z);
}

/* Jobs whose fair row has a nonzero dual in LP1 are bottlenecks without
 * further test: by complementary slackness that row is tight in every
 * optimal solution, i.e. the job cannot rise above z* w' while everyone
 * else stays at or above theirs. Freezes them; returns how many. */
static int freeze_by_duals(hs_wf_t *s, double z)
{
	int dual_froze = 0;
	for (int c = 0; c < s->C; c++) {
		if (s->frozen[c] || s->w[c] <= 0.0)
			continue;
		if (fabs(hs_lp_row_dual(s->lp, s->frow0 + c)) > 1e-9) {
			s->frozen[c] = 2; /* frozen this round, level set below */
			dual_froze++;
		}
	}
	for (int c = 0; c < s->C; c++)
		if (s->frozen[c] == 2)
			freeze(s, c, z);
	return dual_froze;
}

/* Is gain e of class c no improvement at level z? */
static int stuck(const hs_wf_t *s, int c, double z, double e)
{
	double l = hs_wf_level(s, c, z);
	return e <= IMPROVE_TOL * (l > 1e-9 ? l : 1e-9);
}

/* The unfrozen classes LP1's duals did not settle (dual_froze of them
 * were): LP2 finds who can improve together, LP3 tests each of the
 * others alone; those that cannot improve are frozen at z w'. At least
 * one class is frozen per round. */
static int freeze_by_lp(hs_wf_t *s, hs_policy_ctx_t *ctx, double z, int dual_froze, hs_err_t *err)
{
	const int C = s->C;
	if (dual_froze > 0 && set_round(s, err) < 0)
		return -1;
	/* LP2: who can improve together */
	if (set_phase(s, 2, z, -1, err) < 0 || solve_lp(s, ctx, err) < 0)
		return -1;
	int *cand = malloc(((size_t)C + 1) * sizeof(int));
	double *gain = malloc(((size_t)C + 1) * sizeof(double));
	int rc = -1, nc = 0, froze = 0, best = -1;
	if (!cand || !gain) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	for (int c = 0; c < C; c++)
		if (!s->frozen[c] && s->w[c] > 0.0 &&
		    stuck(s, c, z, hs_lp_col_value(s->lp, s->ecol0 + c) / s->rs[c]))
			cand[nc++] = c;
	/* LP3 per candidate: can it improve alone? */
	double bestgain = INFINITY;
	for (int k = 0; k < nc; k++) {
		int c = cand[k];
		if (set_phase(s, 3, z, c, err) < 0 || solve_lp(s, ctx, err) < 0)
			goto out;
		gain[k] = hs_lp_col_value(s->lp, s->ecol0 + c) / s->rs[c];
		if (gain[k] < bestgain) {
			bestgain = gain[k];
			best = k;
		}
	}
	for (int k = 0; k < nc; k++)
		if (stuck(s, cand[k], z, gain[k])) {
			freeze(s, cand[k], z);
			froze++;
		}
	froze += dual_froze;
	if (froze == 0 && best >= 0) {
		/* numerically no one is stuck: freeze the one closest to it */
		freeze(s, cand[best], z);
		froze = 1;
	}
	if (froze == 0) {
		/* every unfrozen job can improve together: impossible at an
		 * optimal z; freeze the active ones to end safely */
		for (int c = 0; c < C; c++)
			if (!s->frozen[c] && s->w[c] > 0.0)
				freeze(s, c, z);
	}
	rc = 0;
out:
	free(cand);
	free(gain);
	return rc;
}

/* One round of the full LP: LP1 (its level in *z, its solution in
 * xbest [C * J]), then the classes it settles are frozen. 1 = no class
 * is active any more (done), -1 = error. */
static int full_round(hs_wf_t *s, hs_policy_ctx_t *ctx, double *xbest, double *z, hs_err_t *err)
{
	const int C = s->C, J = s->J;
	int active = hs_wf_set_weights(s);
	if (active < 0)
		return hs_err_set(err, "out of memory");
	if (active == 0)
		return 1;
	if (set_round(s, err) < 0 || set_phase(s, 1, 0.0, -1, err) < 0 || solve_lp(s, ctx, err) < 0)
		return -1;
	*z = hs_lp_col_value(s->lp, s->zcol);
	for (int c = 0; c < C; c++)
		for (int j = 0; j < J; j++) {
			int k = s->col[(size_t)c * J + j];
			xbest[(size_t)c * J + j] = k < 0 ? 0.0 : hs_lp_col_value(s->lp, k);
		}
	int dual_froze = freeze_by_duals(s, *z);
	/* the others may be stuck at this level too: LP2/LP3 decide */
	int left = 0;
	for (int c = 0; c < C; c++)
		left += !s->frozen[c] && s->w[c] > 0.0;
	if (left == 0)
		return 0;
	return freeze_by_lp(s, ctx, *z, dual_froze, err) < 0 ? -1 : 0;
}

/* The full LP (benchmark baseline, and the reference the fast path is
 * tested against): LP1 plus the LP2/LP3 certificates, round after round
 * until every class is frozen; the objective is the first round's z. */
int hs_wf_full(hs_wf_t *s, hs_policy_ctx_t *ctx, double *xbest, hs_alloc_t *out, hs_err_t *err)
{
	const int C = s->C;
	if (build(s, err) < 0)
		return -1;
	int first = 1, nfrozen = 0;
	for (int round = 0; nfrozen < C && round <= C + 1; round++) {
		double z = 0.0;
		int r = full_round(s, ctx, xbest, &z, err);
		if (r < 0)
			return -1;
		if (r > 0)
			break;
		if (first)
			out->objective = z;
		first = 0;
		nfrozen = 0;
		for (int c = 0; c < C; c++)
			nfrozen += s->frozen[c];
	}
	ctx->last_lp_items = C;
	return 0;
}

