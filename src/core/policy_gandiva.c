/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_gandiva.c — `gandiva`, Gandiva's packing policy as Gavel models it
 * (no solver; space sharing):
 *
 *  - When the jobs' demand (sum of scale factors) fits the cluster, every
 *    job gets an equal time share (the isolated allocation).
 *  - Otherwise jobs are grouped into random pairs of equal scale factor
 *    (the context's seeded generator), which share accelerators; the
 *    pairs and the remaining single jobs ("combinations") then get equal
 *    time shares: X_cj = N_j / (C s_c) on the types the combination can
 *    use, each row scaled to sum <= 1, a pair counted once.
 *  - Pairs persist across rounds (matched by job id) until a partner
 *    leaves or introspection says the pair does not help: a pair is kept
 *    or formed only if, on some type both can use, its normalized pair
 *    throughput (sum over the two of pair throughput / throughput alone)
 *    is at least 1. The throughputs in the problem are the measured ones
 *    when the estimator has them, which is Gandiva's introspection.
 *
 * Migration is the mechanism's business (checkpoint + requeue), not the
 * policy's. The objective reported is the summed effective throughput.
 */
#include "core/policy_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct gandiva_state {
	hs_idmap_t partner;      /* job id -> entry index of its partner's id */
} gandiva_state_t;

void hs_policy_gandiva_state_free(void *v)
{
	gandiva_state_t *s = v;
	if (!s)
		return;
	hs_idmap_free(&s->partner);
	free(s);
}

static double pair_norm(const hs_problem_t *p, int m, int k, int j)
{
	const hs_job_t *a = &p->jobs[m], *b = &p->jobs[k];
	if (a->thr[j] <= 0.0 || b->thr[j] <= 0.0)
		return 0.0;
	double ta = hs_job_pair_thr(p, m, b->job_type, j), tb = hs_job_pair_thr(p, k, a->job_type, j);
	if (ta <= 0.0 || tb <= 0.0)
		return 0.0;
	return ta / a->thr[j] + tb / b->thr[j];
}

/* May jobs m and k share type j? */
static int pair_usable(const hs_problem_t *p, const double *cap, int m, int k, int j)
{
	return p->jobs[m].job_type >= 0 && p->jobs[k].job_type >= 0 &&
	       p->jobs[m].scale_factor == p->jobs[k].scale_factor &&
	       cap[j] >= p->jobs[m].scale_factor && pair_norm(p, m, k, j) > 0.0;
}

/* A pair worth keeping: normalized throughput >= 1 on some usable type. */
static int pair_helps(const hs_problem_t *p, const double *cap, int m, int k)
{
	for (int j = 0; j < p->cluster.ntypes; j++)
		if (pair_usable(p, cap, m, k, j) && pair_norm(p, m, k, j) >= 1.0)
			return 1;
	return 0;
}

int hs_policy_gandiva_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			    hs_alloc_t *out, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs;
	gandiva_state_t *st = ctx->state;
	int *partner = malloc(((size_t)M + 1) * sizeof(int));
	int *list = malloc(((size_t)M + 1) * sizeof(int));
	double *x = malloc(((size_t)J + 1) * sizeof(double));
	int rc = -1;
	if (!partner || !list || !x) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st) {
			hs_err_set(err, "out of memory");
			goto out;
		}
		ctx->state = st;
	}
	/* 1. last round's pairs that still exist and still help */
	hs_idmap_t cur = { 0 };
	for (int m = 0; m < M; m++)
		partner[m] = -1;
	{
		int *all = calloc((size_t)M + 1, sizeof(int));
		if (!all) {
			hs_err_set(err, "out of memory");
			goto out;
		}
		for (int m = 0; m < M; m++)
			all[m] = m;
		int r = hs_idmap_set(&cur, p, all, err); /* id -> job index, sorted */
		free(all);
		if (r < 0)
			goto out;
	}
	for (int m = 0; m < M; m++) {
		int e = hs_idmap_get(&st->partner, p->jobs[m].id);
		if (e < 0 || e >= st->partner.n)
			continue;
		int k = hs_idmap_get(&cur, st->partner.ids[e]);
		if (k >= 0 && k != m && pair_helps(p, in->cap, m, k))
			partner[m] = k;
	}
	for (int m = 0; m < M; m++) /* keep only mutual pairs */
		if (partner[m] >= 0 && partner[partner[m]] != m)
			partner[m] = -1;
	hs_idmap_free(&cur);
	double demand = 0.0, supply = 0.0;
	for (int m = 0; m < M; m++)
		demand += p->jobs[m].scale_factor;
	for (int j = 0; j < J; j++)
		supply += in->cap[j];
	int pack = demand > supply;
	/* 2. over-subscribed: pair the unpaired jobs at random */
	if (pack) {
		int n = 0;
		for (int m = 0; m < M; m++)
			if (partner[m] < 0 && p->jobs[m].job_type >= 0)
				list[n++] = m;
		for (int i = n - 1; i > 0; i--) {
			int r = (int)(hs_rng64_next(&ctx->rng) % (unsigned long long)(i + 1));
			int t = list[i];
			list[i] = list[r];
			list[r] = t;
		}
		for (int i = 0; i < n; i++) {
			int m = list[i];
			if (partner[m] >= 0)
				continue;
			for (int k2 = i + 1; k2 < n; k2++) {
				int k = list[k2];
				if (partner[k] < 0 && pair_helps(p, in->cap, m, k)) {
					partner[m] = k;
					partner[k] = m;
					break;
				}
			}
		}
	}
	/* 3. equal time shares among the combinations in use */
	int C = 0;
	for (int m = 0; m < M; m++)
		C += !pack || partner[m] < 0 || m < partner[m];
	for (int m = 0; m < M; m++) {
		int k = pack ? partner[m] : -1;
		if (k >= 0 && k < m)
			continue;
		double s = p->jobs[m].scale_factor, sum = 0.0;
		for (int j = 0; j < J; j++) {
			int ok = k >= 0 ? pair_usable(p, in->cap, m, k, j) : hs_job_usable(p, in->cap, m, j);
			x[j] = ok ? in->cap[j] / ((double)C * s) : 0.0;
			sum += x[j];
		}
		for (int j = 0; j < J; j++) {
			double v = sum > 1.0 ? x[j] / sum : x[j];
			if (k < 0)
				out->x[(size_t)m * J + j] = v;
			else
				x[j] = v;
		}
		if (k >= 0) {
			int i = hs_alloc_add_pair(out, m, k, err);
			if (i < 0)
				goto out;
			memcpy(out->pairs[i].x, x, (size_t)J * sizeof(double));
		}
	}
	/* 4. remember the pairs: id -> entry of the partner's id */
	{
		hs_idmap_t next = { 0 };
		if (hs_idmap_set(&next, p, partner, err) < 0)
			goto out;
		/* val holds job indices; turn them into entry indices of next */
		for (int i = 0; i < next.n; i++)
			next.val[i] = hs_idmap_find(&next, p->jobs[next.val[i]].id);
		hs_idmap_free(&st->partner);
		st->partner = next;
	}
	out->objective = hs_alloc_total_thr(out, p);
	rc = 0;
out:
	free(partner);
	free(list);
	free(x);
	return rc;
}
