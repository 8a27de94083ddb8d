/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_shares.c — each job's share of the cluster in the isolated
 * allocation that finish-time fairness measures against (Themis' T^iso).
 *
 * Gavel and Themis give every job an equal 1/M. With entities (Fairness=
 * tree or accounts: Slurm's association tree, model.h) a job's share is
 * its leaf entity's part of the tree instead, as the hierarchical
 * policies share the GPUs (fairtree.c): a top-level entity its Shares,
 * a child its parent's part times its Shares over its siblings' (only
 * entities with jobs count), a leaf's part split among its jobs by job
 * weight; a job without entity takes part at the top level with its own
 * weight. Otherwise a user who splits a job into K array tasks would get
 * K isolated shares instead of one and finish-time fairness would give
 * them K times the GPU time (issue 28: 3.8x measured, doc/strategic.md).
 * Without entities (Fairness=jobs) the shares are 1/M, Gavel's policy
 * exactly. */
#include "core/fairtree.h"
#include "core/policy_impl.h"

#include <stdlib.h>

int hs_isolated_shares(const hs_problem_t *p, double *share, hs_err_t *err)
{
	const int M = p->njobs, n = p->entities.n;
	if (n == 0) {
		for (int m = 0; m < M; m++)
			share[m] = 1.0 / M;
		return 0;
	}
	hs_ftree_t t;
	if (hs_ftree_init(&t, &p->entities, err) < 0)
		return -1;
	char *active = calloc((size_t)n + 1, 1);
	double *W = calloc((size_t)n + 1, sizeof(double));
	double *wsum = calloc((size_t)n + 1, sizeof(double));
	if (!active || !W || !wsum) {
		free(active);
		free(W);
		free(wsum);
		hs_ftree_free(&t);
		return hs_err_set(err, "out of memory");
	}
	for (int m = 0; m < M; m++) {
		int e = p->jobs[m].entity;
		if (e >= 0 && e < n) {
			active[e] = 1;
			wsum[e] += p->jobs[m].weight;
		}
	}
	hs_ftree_weights(&t, active, W);
	double total = 0.0;
	for (int m = 0; m < M; m++) {
		int e = p->jobs[m].entity;
		share[m] = e >= 0 && e < n ? W[e] * p->jobs[m].weight / wsum[e] : p->jobs[m].weight;
	}
	/* the top level is not normalized (fairtree.h): sum the jobs' parts */
	for (int m = 0; m < M; m++)
		total += share[m];
	for (int m = 0; m < M; m++)
		share[m] = total > 0.0 ? share[m] / total : 1.0 / M;
	free(active);
	free(W);
	free(wsum);
	hs_ftree_free(&t);
	return 0;
}

double hs_isolated_thr_share(const hs_problem_t *p, const double *cap, int m, double share)
{
	const int J = p->cluster.ntypes;
	double sum = 0.0, thr = 0.0;
	for (int j = 0; j < J; j++) {
		if (!hs_job_usable(p, cap, m, j))
			continue;
		double x = cap[j] * share / p->jobs[m].scale_factor;
		sum += x;
		thr += x * p->jobs[m].thr[j];
	}
	return sum > 1.0 ? thr / sum : thr;
}

/* The equal 1/M isolated allocation and throughput (Gavel, Themis),
 * next to the shares they are the Fairness=jobs case of. */
void hs_isolated_fill(const hs_problem_t *p, const double *cap, hs_alloc_t *out)
{
	const int J = p->cluster.ntypes, M = p->njobs;
	for (int m = 0; m < M; m++) {
		double *row = &out->x[(size_t)m * J];
		double sum = 0.0;
		for (int j = 0; j < J; j++) {
			row[j] = hs_job_usable(p, cap, m, j)
				 ? cap[j] / ((double)M * p->jobs[m].scale_factor) : 0.0;
			sum += row[j];
		}
		if (sum > 1.0)
			for (int j = 0; j < J; j++)
				row[j] /= sum;
	}
}

double hs_isolated_thr(const hs_problem_t *p, const double *cap, int m)
{
	return hs_isolated_thr_share(p, cap, m, 1.0 / p->njobs);
}
