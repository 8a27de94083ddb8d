/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_fifo.c — first-in first-out, no solver (Gavel's FIFO family):
 *
 *   fifo         arrival order (oldest first, ties by id), a random type
 *                among those with room (the context's seeded generator);
 *                non-preemptive: a job keeps the type it had last round
 *                (matched by job id) while it is active
 *   fifo_perf    arrival order, the fastest type with room, recomputed
 *                every round (as Gavel's reference implementation)
 *   fifo_packed  fifo_perf, then each queued job, in order, shares the
 *                accelerators of the running job it packs best with (same
 *                scale factor, both with a job type) when their normalized
 *                pair throughput, sum over the two jobs of pair throughput
 *                / throughput alone on that type, exceeds the pack
 *                threshold (Gavel: 1.5)
 *
 * All three are strict FIFO: the first job that cannot start (or pack)
 * stops the queue; nothing jumps ahead. A job placed runs full time on one
 * type (X = 1). The objective reported is the summed effective
 * throughput.
 */
#include "core/policy_impl.h"

#include <stdlib.h>
#include <string.h>

enum { FIFO_BASE = 0, FIFO_PERF = 1, FIFO_PACKED = 2 };

/* Normalized throughput of jobs m and r sharing type j (0 if they cannot). */
static double pack_value(const hs_problem_t *p, int m, int r, int j)
{
	const hs_job_t *a = &p->jobs[m], *b = &p->jobs[r];
	if (a->job_type < 0 || b->job_type < 0 || a->scale_factor != b->scale_factor ||
	    a->thr[j] <= 0.0 || b->thr[j] <= 0.0)
		return 0.0;
	double ta = hs_job_pair_thr(p, m, b->job_type, j), tb = hs_job_pair_thr(p, r, a->job_type, j);
	if (ta <= 0.0 || tb <= 0.0)
		return 0.0;
	return ta / a->thr[j] + tb / b->thr[j];
}

int hs_policy_fifo_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			 hs_alloc_t *out, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs, variant = ctx->desc->variant;
	int *order = hs_arrival_order(p, err);
	int *placed = malloc(((size_t)M + 1) * sizeof(int));
	int *paired = malloc(((size_t)M + 1) * sizeof(int));
	double *freecap = malloc(((size_t)J + 1) * sizeof(double));
	int *cand = malloc(((size_t)J + 1) * sizeof(int));
	int rc = -1;
	if (!order || !placed || !paired || !freecap || !cand) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	for (int m = 0; m < M; m++)
		placed[m] = paired[m] = -1;
	memcpy(freecap, in->cap, (size_t)J * sizeof(double));
	/* fifo: running jobs keep their type */
	if (variant == FIFO_BASE)
		for (int i = 0; i < M; i++) {
			int m = order[i], j = hs_typemem_prev(ctx, p, m);
			if (j >= 0 && hs_job_usable(p, in->cap, m, j) && freecap[j] >= p->jobs[m].scale_factor) {
				placed[m] = j;
				freecap[j] -= p->jobs[m].scale_factor;
			}
		}
	int next = 0;
	for (; next < M; next++) {
		int m = order[next];
		if (placed[m] >= 0)
			continue;
		int nc = 0, best = -1;
		for (int j = 0; j < J; j++) {
			if (!hs_job_usable(p, in->cap, m, j) || freecap[j] < p->jobs[m].scale_factor)
				continue;
			cand[nc++] = j;
			if (best < 0 || p->jobs[m].thr[j] > p->jobs[m].thr[best])
				best = j;
		}
		if (nc == 0)
			break; /* strict FIFO: the head of the queue waits */
		int j = variant == FIFO_BASE
			? cand[hs_rng64_next(&ctx->rng) % (unsigned long long)nc] : best;
		placed[m] = j;
		freecap[j] -= p->jobs[m].scale_factor;
	}
	if (variant == FIFO_PACKED) {
		for (; next < M; next++) {
			int q = order[next];
			if (placed[q] >= 0)
				continue;
			int partner = -1;
			double bestv = ctx->opts.pack_threshold;
			for (int r = 0; r < M; r++) {
				if (placed[r] < 0 || paired[r] >= 0 || r == q)
					continue;
				double v = pack_value(p, q, r, placed[r]);
				if (v > bestv) {
					bestv = v;
					partner = r;
				}
			}
			if (partner < 0)
				break; /* no jumping ahead in the queue */
			placed[q] = placed[partner];
			paired[q] = partner;
			paired[partner] = q;
		}
	}
	for (int m = 0; m < M; m++) {
		if (placed[m] < 0)
			continue;
		if (paired[m] < 0) {
			out->x[(size_t)m * J + placed[m]] = 1.0;
		} else if (m < paired[m]) {
			int i = hs_alloc_add_pair(out, m, paired[m], err);
			if (i < 0)
				goto out;
			out->pairs[i].x[placed[m]] = 1.0;
		}
	}
	if (variant == FIFO_BASE && hs_typemem_save(ctx, p, placed, err) < 0)
		goto out;
	out->objective = hs_alloc_total_thr(out, p);
	rc = 0;
out:
	free(order);
	free(placed);
	free(paired);
	free(freecap);
	free(cand);
	return rc;
}
