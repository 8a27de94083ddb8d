/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_allox.c — `allox` (AlloX, EuroSys 2020, as Gavel runs it):
 * single-GPU jobs are matched to (accelerator, position) slots by a
 * min-cost bipartite matching. A job at position k from the end of an
 * accelerator's queue delays k jobs' completion by its processing time
 * R_m / T_mj, so the cost of that slot is k R_m / T_mj; the matching
 * minimizes the sum of completion times (the classical exact method for
 * unrelated machines, Horn 1973 / Bruno-Coffman-Sethi 1974). Gavel adds
 * each job's waiting time to all its slots, which every matching pays in
 * full, so it cannot change the result and is left out.
 *
 * Accelerators of one type are identical, so the slots are (type, k) with
 * room for as many jobs as the type has free accelerators; the matching is
 * then a transportation problem, solved as an LP with GLPK (its
 * constraint matrix is totally unimodular, so the simplex vertex is
 * integral: an exact matching, no Hungarian code of our own). Only the
 * first job of each accelerator starts now: at type j, the jobs on the
 * highest occupied level of each accelerator.
 *
 * Non-preemptive across rounds: a job started earlier keeps its type until
 * it finishes (matched by job id). Jobs using more than one accelerator,
 * which AlloX does not handle, are started first-come first-served (oldest
 * first) on their fastest type with room, before the matching. The
 * matching considers the oldest waiting jobs, as many as keep the LP below
 * HS_ALLOX_MAX_COLS columns (all of them in practice). The objective
 * reported is the summed effective throughput.
 */
#include "core/lp.h"
#include "core/policy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HS_ALLOX_MAX_COLS 300000

/* Matches the waiting single-GPU jobs wait[0..n) (oldest first) to slots;
 * sets placed[m] for the jobs that start now. */
static int match(hs_policy_ctx_t *ctx, const hs_problem_t *p, const int *wait, int n,
		 const double *freecap, int *placed, hs_err_t *err)
{
	const int J = p->cluster.ntypes;
	int nfree[64], *nf = J <= 64 ? nfree : malloc((size_t)J * sizeof(int));
	if (!nf)
		return hs_err_set(err, "out of memory");
	int total = 0;
	for (int j = 0; j < J; j++) {
		nf[j] = (int)floor(freecap[j] + 1e-9);
		total += nf[j];
	}
	int rc = -1;
	hs_lp_t *lp = NULL;
	int *K = calloc((size_t)J + 1, sizeof(int)), *slot0 = calloc((size_t)J + 1, sizeof(int));
	int *cj = NULL, *ck = NULL, *ci = NULL;
	if (!K || !slot0) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	if (total == 0 || n == 0) {
		rc = 0;
		goto out;
	}
	/* levels per type and the number of jobs considered */
	long cols;
	for (;;) {
		cols = 0;
		for (int j = 0; j < J; j++) {
			K[j] = nf[j] > 0 ? (n + nf[j] - 1) / nf[j] : 0;
			for (int i = 0; i < n; i++)
				cols += nf[j] > 0 && p->jobs[wait[i]].thr[j] > 0.0 ? K[j] : 0;
		}
		if (cols <= HS_ALLOX_MAX_COLS || n <= 1)
			break;
		n = n * 3 / 4; /* keep the oldest */
	}
	int nslots = 0;
	for (int j = 0; j < J; j++) {
		slot0[j] = nslots;
		nslots += K[j];
	}
	lp = hs_lp_new(0, err);
	cj = malloc(((size_t)cols + 1) * sizeof(int));
	ck = malloc(((size_t)cols + 1) * sizeof(int));
	ci = malloc(((size_t)cols + 1) * sizeof(int));
	if (!lp || !cj || !ck || !ci) {
		if (lp)
			hs_err_set(err, "out of memory");
		goto out;
	}
	/* rows: one per job (= 1 if it can be placed at all), one per slot */
	if (hs_lp_add_rows(lp, n + nslots, err) < 0 || hs_lp_add_cols(lp, (int)cols, err) < 0)
		goto out;
	int c = 0;
	for (int i = 0; i < n; i++) {
		int m = wait[i], any = 0;
		for (int j = 0; j < J; j++) {
			if (nf[j] <= 0 || p->jobs[m].thr[j] <= 0.0)
				continue;
			double t = p->jobs[m].remaining_steps / p->jobs[m].thr[j];
			for (int k = 1; k <= K[j]; k++, c++) {
				cj[c] = j;
				ck[c] = k;
				ci[c] = i;
				if (hs_lp_set_col_bounds(lp, c, 0.0, 1.0, err) < 0 ||
				    hs_lp_set_obj(lp, c, k * t, err) < 0 ||
				    hs_lp_add_coef(lp, i, c, 1.0, err) < 0 ||
				    hs_lp_add_coef(lp, n + slot0[j] + k - 1, c, 1.0, err) < 0)
					goto out;
				any = 1;
			}
		}
		if (hs_lp_set_row_bounds(lp, i, any ? 1.0 : 0.0, any ? 1.0 : 0.0, err) < 0)
			goto out;
	}
	for (int j = 0; j < J; j++)
		for (int k = 1; k <= K[j]; k++)
			if (hs_lp_set_row_bounds(lp, n + slot0[j] + k - 1, -INFINITY, nf[j], err) < 0)
				goto out;
	hs_lp_status_t st = hs_lp_solve(lp, &ctx->lp_opts, err);
	ctx->last_iterations += hs_lp_iterations(lp);
	ctx->last_lp_solves++;
	if (st != HS_LP_OPTIMAL) {
		if (st != HS_LP_FAILED)
			hs_err_set(err, "allox matching LP is infeasible (internal error)");
		goto out;
	}
	/* the starting jobs: per type, walk the levels from the top; a level
	 * with u_k jobs starts u_k minus the accelerators already started */
	int *lvl = calloc((size_t)n + 1, sizeof(int));
	if (!lvl) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	for (int k2 = 0; k2 < c; k2++)
		if (hs_lp_col_value(lp, k2) > 0.5)
			lvl[ci[k2]] = k2 + 1; /* column + 1 */
	for (int j = 0; j < J; j++) {
		int started = 0;
		for (int k = K[j]; k >= 1 && started < nf[j]; k--) {
			int u = 0;
			for (int i = 0; i < n; i++)
				u += lvl[i] && cj[lvl[i] - 1] == j && ck[lvl[i] - 1] == k;
			/* wait[] is oldest first, so the oldest at this level start */
			for (int i = 0; i < n && u > started && started < nf[j]; i++)
				if (lvl[i] && cj[lvl[i] - 1] == j && ck[lvl[i] - 1] == k) {
					placed[wait[i]] = j;
					started++;
				}
		}
	}
	free(lvl);
	rc = 0;
out:
	if (nf != nfree)
		free(nf);
	free(K);
	free(slot0);
	free(cj);
	free(ck);
	free(ci);
	hs_lp_free(lp);
	return rc;
}

int hs_policy_allox_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			  hs_alloc_t *out, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs;
	int *order = hs_arrival_order(p, err);
	int *placed = malloc(((size_t)M + 1) * sizeof(int));
	int *wait = malloc(((size_t)M + 1) * sizeof(int));
	double *freecap = malloc(((size_t)J + 1) * sizeof(double));
	int rc = -1, nw = 0;
	if (!order || !placed || !wait || !freecap) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	memcpy(freecap, in->cap, (size_t)J * sizeof(double));
	for (int m = 0; m < M; m++)
		placed[m] = -1;
	/* running jobs keep their accelerators until they finish */
	for (int i = 0; i < M; i++) {
		int m = order[i], j = hs_typemem_prev(ctx, p, m);
		if (j >= 0 && hs_job_usable(p, in->cap, m, j) && freecap[j] >= p->jobs[m].scale_factor) {
			placed[m] = j;
			freecap[j] -= p->jobs[m].scale_factor;
		}
	}
	/* multi-GPU jobs: first come, first served, fastest type with room */
	for (int i = 0; i < M; i++) {
		int m = order[i], best = -1;
		if (placed[m] >= 0 || p->jobs[m].scale_factor == 1)
			continue;
		for (int j = 0; j < J; j++)
			if (hs_job_usable(p, in->cap, m, j) && freecap[j] >= p->jobs[m].scale_factor &&
			    (best < 0 || p->jobs[m].thr[j] > p->jobs[m].thr[best]))
				best = j;
		if (best >= 0) {
			placed[m] = best;
			freecap[best] -= p->jobs[m].scale_factor;
		}
	}
	for (int i = 0; i < M; i++)
		if (placed[order[i]] < 0 && p->jobs[order[i]].scale_factor == 1)
			wait[nw++] = order[i];
	if (match(ctx, p, wait, nw, freecap, placed, err) < 0)
		goto out;
	for (int m = 0; m < M; m++)
		if (placed[m] >= 0)
			out->x[(size_t)m * J + placed[m]] = 1.0;
	if (hs_typemem_save(ctx, p, placed, err) < 0)
		goto out;
	out->objective = hs_alloc_total_thr(out, p);
	rc = 0;
out:
	free(order);
	free(placed);
	free(wait);
	free(freecap);
	return rc;
}
