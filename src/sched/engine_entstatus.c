/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_entstatus.c — the accounts and users of the last round in the
 * status document (issue 29: what an admin compares with sshare):
 *
 *   "entities": [{"name": "physics", "parent": -1, "shares": 2,
 *                 "norm_shares": 0.667, "target": 0.61, "received": 0.58,
 *                 "jobs": 12, "gpus": 16, "pinned_gpus": 2}, ...]
 *
 * One element per entity of the round's problem (engine_entities.c):
 * accounts, then users as "user@account", parents before children.
 *   shares       the raw Shares (sshare's RawShares; AccountWeights for
 *                accounts when that is a list)
 *   norm_shares  Shares over the sum of its siblings' in this round,
 *                times its parent's: the share of the GPUs the tree
 *                entitles it to. sshare's NormShares also counts
 *                siblings with no job, so the two differ when some
 *                association is idle (hetsched gives idle shares to the
 *                busy ones, as Fair Tree does).
 *   target       GPUs the allocation in force gives its jobs (time
 *                fractions times GPUs per job) over the usable GPUs
 *   received     GPU-seconds its jobs ran since the last allocation reset
 *                over usable GPUs times the time since that reset
 *   pinned_gpus  GPUs its running jobs that cannot be preempted hold,
 *                charged to it (PinnedCharge; not in target/received)
 * Each entity counts its own jobs and its descendants'. */
#include "sched/engine_impl.h"

#include <stdlib.h>
#include <string.h>

void hs_ents_free(hs_entities_t *x)
{
	for (int i = 0; i < x->n; i++)
		free(x->names[i]);
	free(x->names);
	free(x->weight);
	free(x->parent);
	free(x->mode);
	free(x->held);
	memset(x, 0, sizeof(*x));
}

/* The engine keeps a copy of the round's forest: the problem (and so its
 * entities) is freed before the status is written. Out of memory leaves
 * no forest, and the status just has no "entities" that round. */
void hs_ents_keep(hs_engine_t *e, const hs_entities_t *src)
{
	hs_ents_free(&e->ents);
	const int n = src->n;
	if (n <= 0)
		return;
	hs_entities_t *x = &e->ents;
	x->names = calloc((size_t)n, sizeof(char *));
	x->weight = malloc((size_t)n * sizeof(double));
	x->parent = malloc((size_t)n * sizeof(int));
	if (!x->names || !x->weight || !x->parent) {
		hs_ents_free(x);
		return;
	}
	x->n = n;
	for (int i = 0; i < n; i++) {
		x->names[i] = strdup(src->names[i] ? src->names[i] : "");
		x->weight[i] = src->weight[i];
		x->parent[i] = src->parent ? src->parent[i] : -1;
		if (src->held && !x->held && !(x->held = calloc((size_t)n, sizeof(double)))) {
			hs_ents_free(x);
			return;
		}
		if (src->held)
			x->held[i] = src->held[i];
		if (!x->names[i] || x->parent[i] < -1 || x->parent[i] >= n) {
			hs_ents_free(x);
			return;
		}
	}
}

/* norm[i]: Shares over the sum of the siblings' times the parent's
 * norm. Parents need not come before children: each entity's norm is
 * computed from the root down along its path (depth is bounded by n:
 * the forest was validated acyclic with the problem). */
static void norm_shares(const hs_entities_t *x, double *sibsum, double *norm)
{
	const int n = x->n;
	double top = 0;
	for (int i = 0; i < n; i++)
		sibsum[i] = 0;
	for (int i = 0; i < n; i++) {
		if (x->parent[i] >= 0)
			sibsum[x->parent[i]] += x->weight[i];
		else
			top += x->weight[i];
	}
	for (int i = 0; i < n; i++) {
		double f = 1;
		int hops = 0;
		for (int a = i; a >= 0 && hops <= n; a = x->parent[a], hops++) {
			double sum = x->parent[a] >= 0 ? sibsum[x->parent[a]] : top;
			f *= sum > 0 ? x->weight[a] / sum : 0;
		}
		norm[i] = f;
	}
}

typedef struct ent_sum {
	double gpus_target;   /* GPUs the allocation gives */
	double gpu_s;         /* GPU-seconds since the reset */
	int jobs, gpus;
} ent_sum_t;

/* Adds each planned job to its entity and every ancestor. */
static void sum_jobs(const hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
		     ent_sum_t *sum)
{
	const hs_entities_t *x = &e->ents;
	for (int k = 0; plan && k < plan->njobs; k++) {
		const hs_plan_job_t *pj = &plan->jobs[k];
		const hs_jacct_t *a = hs_acct_find(e, pj->id);
		if (!a || a->entity < 0 || a->entity >= x->n || pj->snap < 0 || pj->snap >= s->njobs)
			continue;
		const int g = s->jobs[pj->snap].gpus;
		double xs = 0, rs = 0;
		for (int t = 0; t < e->ntypes; t++) {
			xs += a->x[t];
			rs += a->recv_reset[t];
		}
		int hops = 0;
		for (int i = a->entity; i >= 0 && hops <= x->n; i = x->parent[i], hops++) {
			sum[i].gpus_target += xs * g;
			sum[i].gpu_s += rs * g;
			sum[i].jobs++;
			sum[i].gpus += g;
		}
	}
}

/* GPUs held by running pinned jobs of entity i and its descendants
 * (charged to it: PinnedCharge; outside "target" and "received", whose
 * jobs are the problem's). O(n) per entity, from each entity up. */
static double pinned_gpus(const hs_entities_t *x, int i)
{
	double h = 0;
	for (int k = 0; x->held && k < x->n; k++) {
		int hops = 0, a = k;
		while (a >= 0 && a != i && hops++ <= x->n)
			a = x->parent[a];
		if (a == i)
			h += x->held[k];
	}
	return h;
}

json_object *hs_entities_status(const hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
				int64_t now)
{
	const hs_entities_t *x = &e->ents;
	if (x->n <= 0)
		return NULL;
	double *sibsum = malloc((size_t)x->n * sizeof(double));
	double *norm = malloc((size_t)x->n * sizeof(double));
	ent_sum_t *sum = calloc((size_t)x->n, sizeof(*sum));
	json_object *arr = sibsum && norm && sum ? json_object_new_array() : NULL;
	if (arr) {
		norm_shares(x, sibsum, norm);
		sum_jobs(e, s, plan, sum);
		const double gpus = plan && plan->gpus_usable > 0 ? plan->gpus_usable : 0;
		const double since = e->last_reset_t > 0 && now > e->last_reset_t
					     ? (double)(now - e->last_reset_t) : 0;
		for (int i = 0; i < x->n; i++) {
			json_object *o = json_object_new_object();
			json_object_object_add(o, "name", json_object_new_string(x->names[i]));
			json_object_object_add(o, "parent", json_object_new_int(x->parent[i]));
			json_object_object_add(o, "shares", json_object_new_double(x->weight[i]));
			json_object_object_add(o, "norm_shares", json_object_new_double(norm[i]));
			json_object_object_add(o, "target", json_object_new_double(
				gpus > 0 ? sum[i].gpus_target / gpus : 0));
			json_object_object_add(o, "received", json_object_new_double(
				gpus > 0 && since > 0 ? sum[i].gpu_s / (gpus * since) : 0));
			json_object_object_add(o, "jobs", json_object_new_int(sum[i].jobs));
			json_object_object_add(o, "gpus", json_object_new_int(sum[i].gpus));
			json_object_object_add(o, "pinned_gpus", json_object_new_double(pinned_gpus(x, i)));
			json_object_array_add(arr, o);
		}
	}
	free(sibsum);
	free(norm);
	free(sum);
	return arr;
}
