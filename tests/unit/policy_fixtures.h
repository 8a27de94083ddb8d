/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_fixtures.h — builders for policy tests: small hand-written
 * problems, seeded random instances, and the feasibility check every
 * allocation must pass (bounds, per-job time, per-type capacity with a
 * pair counted once). */
#ifndef HS_TESTS_POLICY_FIXTURES_H
#define HS_TESTS_POLICY_FIXTURES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/policy.h"
#include "core/thrtable.h"

/* A problem on cluster spec ("fast:1,slow:2") with n jobs j0..j{n-1};
 * thr is n x ntypes row-major; sf / w / steps may be NULL (defaults). */
static inline void fx_problem(hs_problem_t *p, const char *cluster, int n, const double *thr,
			      const int *sf, const double *w, const double *steps)
{
	hs_err_t err;
	memset(p, 0, sizeof(*p));
	p->reference_type = -1;
	if (hs_cluster_parse(&p->cluster, cluster, &err) < 0 || hs_problem_alloc_jobs(p, n, &err) < 0) {
		fprintf(stderr, "fixture: %s\n", err.msg);
		abort();
	}
	const int J = p->cluster.ntypes;
	for (int m = 0; m < n; m++) {
		char id[32];
		snprintf(id, sizeof(id), "j%d", m);
		p->jobs[m].id = strdup(id);
		for (int j = 0; j < J; j++)
			p->jobs[m].thr[j] = thr[m * J + j];
		if (sf)
			p->jobs[m].scale_factor = sf[m];
		if (w)
			p->jobs[m].weight = w[m];
		p->jobs[m].remaining_steps = steps ? steps[m] : 1000.0;
	}
}

/* Gives the problem n job types (scale factor 1) with pair throughputs
 * pair[a][b] on every type (same value on all types). */
static inline void fx_jobtypes(hs_problem_t *p, int n, const double *pair)
{
	const int J = p->cluster.ntypes;
	p->jobtypes.n = n;
	p->jobtypes.names = calloc((size_t)n, sizeof(char *));
	p->jobtypes.scale_factor = calloc((size_t)n, sizeof(int));
	p->jobtypes.pair_thr = calloc((size_t)n * n * J, sizeof(double));
	for (int a = 0; a < n; a++) {
		char name[16];
		snprintf(name, sizeof(name), "T%d", a);
		p->jobtypes.names[a] = strdup(name);
		p->jobtypes.scale_factor[a] = 1;
		for (int b = 0; b < n; b++)
			for (int j = 0; j < J; j++)
				p->jobtypes.pair_thr[((size_t)a * n + b) * J + j] = pair[a * n + b];
	}
}

/* Deterministic generator for the property tests (xorshift64*). */
static inline double fx_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* A random instance: 2-4 types with 0-12 accelerators (at least one type
 * non-empty), 1-maxjobs jobs with scale factors 1/2/4, weights 0.5-2,
 * throughputs 0.1-10 (about one in six zero, at least one usable type),
 * remaining steps 1e2-1e5, ages 0-1e4 s. */
static inline void fx_random_n(hs_problem_t *p, unsigned long long seed, int maxjobs, int fixed_m);

static inline void fx_random(hs_problem_t *p, unsigned long long seed, int maxjobs)
{
	fx_random_n(p, seed, maxjobs, 0);
}

/* As fx_random, with exactly fixed_m jobs when fixed_m > 0 (and
 * capacities scaled so that they are contended). */
static inline void fx_random_n(hs_problem_t *p, unsigned long long seed, int maxjobs, int fixed_m)
{
	unsigned long long s = seed * 0x9e3779b97f4a7c15ULL + 1;
	hs_err_t err;
	memset(p, 0, sizeof(*p));
	p->reference_type = -1;
	int J = 2 + (int)(fx_rand(&s) * 3);
	if (hs_cluster_init(&p->cluster, J, &err) < 0)
		abort();
	for (int j = 0; j < J; j++) {
		char name[16];
		snprintf(name, sizeof(name), "gpu%d", j);
		p->cluster.names[j] = strdup(name);
		p->cluster.count[j] = (int)(fx_rand(&s) * 13 * (fixed_m > 0 ? 1 + fixed_m / 20 : 1));
		p->cluster.price[j] = 0.5 + 3.0 * fx_rand(&s);
	}
	if (hs_cluster_total(&p->cluster) < 4)
		p->cluster.count[0] = 4;
	int M = fixed_m > 0 ? fixed_m : 1 + (int)(fx_rand(&s) * maxjobs);
	if (hs_problem_alloc_jobs(p, M, &err) < 0)
		abort();
	static const int sfs[] = { 1, 1, 1, 1, 2, 4 };
	for (int m = 0; m < M; m++) {
		hs_job_t *jb = &p->jobs[m];
		char id[32];
		snprintf(id, sizeof(id), "r%d", m);
		jb->id = strdup(id);
		jb->scale_factor = sfs[(int)(fx_rand(&s) * 6)];
		jb->weight = 0.5 + 1.5 * fx_rand(&s);
		jb->remaining_steps = pow(10.0, 2.0 + 3.0 * fx_rand(&s));
		jb->age_s = 1e4 * fx_rand(&s);
		/* some jobs repeat an earlier job's row (classes) */
		if (m > 0 && fx_rand(&s) < 0.3) {
			int k = (int)(fx_rand(&s) * m);
			memcpy(jb->thr, p->jobs[k].thr, (size_t)J * sizeof(double));
			jb->scale_factor = p->jobs[k].scale_factor;
			jb->weight = p->jobs[k].weight;
		} else {
			for (int j = 0; j < J; j++)
				jb->thr[j] = fx_rand(&s) < 1.0 / 6 ? 0.0 : 0.1 + 9.9 * fx_rand(&s);
		}
		int usable = 0;
		for (int j = 0; j < J; j++)
			usable |= jb->thr[j] > 0 && p->cluster.count[j] >= jb->scale_factor;
		if (!usable) {
			jb->scale_factor = 1;
			for (int j = 0; j < J; j++)
				if (p->cluster.count[j] > 0 && jb->thr[j] == 0.0)
					jb->thr[j] = 1.0;
		}
	}
}

/* A realistic instance from Gavel's throughput table: cluster spec, M jobs
 * of random job types (scale factors 1, 2, 4 as the table has them) with
 * the table's throughputs; noise > 0 perturbs each job's throughputs by
 * up to +-noise (measured throughputs differ per job), which makes every
 * job distinct. Job types and pair throughputs come from the table. */
static inline void fx_gavel(hs_problem_t *p, const hs_thrtable_t *t, const char *cluster,
			    unsigned long long seed, int M, double noise)
{
	unsigned long long s = seed * 0x9e3779b97f4a7c15ULL + 7;
	hs_err_t err;
	memset(p, 0, sizeof(*p));
	p->reference_type = -1;
	if (hs_cluster_parse(&p->cluster, cluster, &err) < 0 ||
	    hs_thrtable_to_jobtypes(t, &p->cluster, &p->jobtypes, &err) < 0 ||
	    hs_problem_alloc_jobs(p, M, &err) < 0) {
		fprintf(stderr, "fixture: %s\n", err.msg);
		abort();
	}
	const int J = p->cluster.ntypes;
	for (int j = 0; j < J; j++)
		p->cluster.price[j] = 0.5 + j;
	for (int m = 0; m < M; m++) {
		hs_job_t *jb = &p->jobs[m];
		char id[32];
		snprintf(id, sizeof(id), "g%d", m);
		jb->id = strdup(id);
		for (int tries = 0; tries < 1000; tries++) {
			int a = (int)(fx_rand(&s) * t->njobtypes);
			/* mostly single-GPU jobs, as in Gavel's traces */
			if (t->sf[a] > 1 && fx_rand(&s) < 0.7)
				continue;
			int usable = 0;
			for (int j = 0; j < J; j++) {
				jb->thr[j] = hs_thrtable_alone(t, a, p->cluster.names[j], 1);
				if (noise > 0.0)
					jb->thr[j] *= 1.0 + noise * (2.0 * fx_rand(&s) - 1.0);
				usable |= jb->thr[j] > 0.0 && p->cluster.count[j] >= t->sf[a];
			}
			if (!usable)
				continue;
			jb->job_type = a;
			jb->scale_factor = t->sf[a];
			break;
		}
		jb->remaining_steps = 1000.0 * (1.0 + 99.0 * fx_rand(&s));
		jb->age_s = 3600.0 * fx_rand(&s);
	}
}

/* Gives p n entities named e0..e{n-1}, weight 1, fairness, with a parent
 * array (all -1: top-level) when tree is set. */
static inline void fx_entities(hs_problem_t *p, int n, int tree)
{
	hs_entities_t *es = &p->entities;
	es->n = n;
	es->names = calloc((size_t)n + 1, sizeof(char *));
	es->weight = calloc((size_t)n + 1, sizeof(double));
	es->mode = calloc((size_t)n + 1, sizeof(hs_entity_mode_t));
	es->parent = tree ? calloc((size_t)n + 1, sizeof(int)) : NULL;
	if (!es->names || !es->weight || !es->mode || (tree && !es->parent))
		abort();
	for (int e = 0; e < n; e++) {
		char name[16];
		snprintf(name, sizeof(name), "e%d", e);
		es->names[e] = strdup(name);
		es->weight[e] = 1.0;
		if (tree)
			es->parent[e] = -1;
	}
}

/* A random association tree on p: A top-level accounts (Shares 1-3),
 * each with S sub-accounts (Shares 1-3; S = 0: none), then U users
 * (Shares 1 or 2, fifo with probability fifo) spread round robin under
 * the lowest accounts; every job goes to a random user (so some users
 * have several jobs, some none). Entities: accounts, sub-accounts, users
 * in that order. */
static inline void fx_tree(hs_problem_t *p, unsigned long long seed, int A, int S, int U, double fifo)
{
	unsigned long long s = seed * 0x2545f4914f6cdd1dULL + 3;
	const int mid = A * S, E = A + mid + U;
	fx_entities(p, E, 1);
	for (int e = 0; e < E; e++) {
		hs_entities_t *es = &p->entities;
		if (e < A) {
			es->weight[e] = 1.0 + (int)(fx_rand(&s) * 3);
		} else if (e < A + mid) {
			es->weight[e] = 1.0 + (int)(fx_rand(&s) * 3);
			es->parent[e] = (e - A) / S;
		} else {
			int u = e - A - mid;
			es->weight[e] = fx_rand(&s) < 0.3 ? 2.0 : 1.0;
			es->parent[e] = mid > 0 ? A + u % mid : u % A;
			es->mode[e] = fx_rand(&s) < fifo ? HS_ENTITY_FIFO : HS_ENTITY_FAIRNESS;
		}
	}
	for (int m = 0; m < p->njobs; m++)
		p->jobs[m].entity = A + mid + (int)(fx_rand(&s) * U);
}

/* Every allocation must satisfy the base constraints (doc/policies.md). */
static inline int fx_feasible(const hs_alloc_t *a, const hs_problem_t *p, char *why, size_t len)
{
	const int J = p->cluster.ntypes, M = p->njobs;
	const double tol = 1e-7;
	if (a->njobs != M || a->ntypes != J) {
		snprintf(why, len, "allocation has the wrong shape");
		return 0;
	}
	for (int m = 0; m < M; m++) {
		double s = 0.0;
		for (int j = 0; j < J; j++) {
			double x = a->x[m * J + j];
			if (!(x >= 0.0 && x <= 1.0)) {
				snprintf(why, len, "x[%d][%d] = %g out of [0, 1]", m, j, x);
				return 0;
			}
			if (x > tol && (p->jobs[m].thr[j] <= 0.0 || p->cluster.count[j] < p->jobs[m].scale_factor)) {
				snprintf(why, len, "job %d runs on type %d where it cannot", m, j);
				return 0;
			}
			s += hs_alloc_job_type_total(a, m, j);
		}
		if (s > 1.0 + tol) {
			snprintf(why, len, "job %d gets %g of the time", m, s);
			return 0;
		}
	}
	for (int i = 0; i < a->npairs; i++) {
		const hs_pair_alloc_t *pr = &a->pairs[i];
		if (pr->m < 0 || pr->k >= M || pr->m >= pr->k ||
		    p->jobs[pr->m].scale_factor != p->jobs[pr->k].scale_factor) {
			snprintf(why, len, "pair %d (%d, %d) is invalid", i, pr->m, pr->k);
			return 0;
		}
		for (int j = 0; j < J; j++)
			if (!(pr->x[j] >= 0.0 && pr->x[j] <= 1.0)) {
				snprintf(why, len, "pair %d on type %d: %g out of [0, 1]", i, j, pr->x[j]);
				return 0;
			}
	}
	for (int j = 0; j < J; j++) {
		double u = 0.0;
		for (int m = 0; m < M; m++)
			u += p->jobs[m].scale_factor * a->x[m * J + j];
		for (int i = 0; i < a->npairs; i++)
			u += p->jobs[a->pairs[i].m].scale_factor * a->pairs[i].x[j];
		if (u > p->cluster.count[j] + tol) {
			snprintf(why, len, "type %d used %g > %d", j, u, p->cluster.count[j]);
			return 0;
		}
	}
	return 1;
}

/* Solves with a fresh context; fails the test with the message on error. */
static inline void fx_solve(const char *policy, const hs_problem_t *p, hs_alloc_t *a)
{
	hs_err_t err = { "" };
	hs_policy_opts_t o;
	hs_policy_opts_default(&o);
	hs_policy_ctx_t *ctx = hs_policy_ctx_new(policy, &o, &err);
	if (!ctx)
		fail_msg("%s: %s", policy, err.msg);
	if (hs_policy_solve(ctx, p, a, &err) < 0)
		fail_msg("%s: %s", policy, err.msg);
	hs_policy_ctx_free(ctx);
}

#endif
