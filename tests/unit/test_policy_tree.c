/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_policy_tree.c — water filling over an entity forest (Slurm's
 * association tree: accounts, sub-accounts, users; model.h,
 * doc/policies.md "Fair tree"): hand-solved trees, the forest's
 * validation, a flat forest and single-child chains giving exactly the
 * one-level results, and on seeded random trees: the fast method (dual
 * freezing, saturation chains, closed types) gives every job the full-LP
 * method's level, also on trees built to close a type; no capacity is left idle that a job could still use;
 * with nothing saturated, siblings' totals are in the ratio of their
 * Shares; a user's total does not change when it splits a job into
 * copies. HS_PROP_SEEDS overrides the number of random instances. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/policy_impl.h"
#include "tests/unit/policy_fixtures.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6 * (1.0 + fabs(b)))

static const char *const WF[] = { "max_min_fairness_water_filling_perf",
				  "max_min_fairness_water_filling" };

/* chains that found closed types, over the tests' solves */
static int closed_seen;

static int nseeds(void)
{
	const char *s = getenv("HS_PROP_SEEDS");
	int n = s ? atoi(s) : 0;
	return n > 0 ? n : RUNNING_ON_VALGRIND ? 12 : 100;
}

/* Per-job water level r_m = sum_j a_mj x_mj (the max-min coefficients
 * times the weight: policy_hierarchical.c's rows). */
static void levels(const char *pol, const hs_problem_t *p, const hs_alloc_t *a, double *r)
{
	hs_policy_desc_t d = { .name = pol, .aware = strstr(pol, "_perf") != NULL };
	const int J = p->cluster.ntypes;
	double *cap = malloc(sizeof(double) * (size_t)J);
	for (int j = 0; j < J; j++)
		cap[j] = p->cluster.count[j];
	for (int m = 0; m < p->njobs; m++) {
		r[m] = 0.0;
		for (int j = 0; j < J; j++)
			r[m] += hs_maxmin_coef(&d, p, cap, m, j) * p->jobs[m].weight * a->x[(size_t)m * J + j];
	}
	free(cap);
}

/* Simplex iterations per check LP (0: the default): 1 gives every check
 * up, so the chains' rounds go to the LP method (fast_matches_full). */
static int check_iter_max;
static int checks_given_up;

/* Solves with the fast method (chains unless no_chains) or the full-LP
 * one; big: every job its own class and folding from 30 items. Returns
 * the levels (malloc'd) and adds the classes frozen by chains to
 * *chained. */
static double *solve_levels(const char *pol, const hs_problem_t *p, int full, int no_chains, int big,
			    int *chained, hs_alloc_t *keep)
{
	hs_err_t err;
	hs_policy_ctx_t *ctx = hs_policy_ctx_new(pol, NULL, &err);
	if (!ctx)
		fail_msg("%s", err.msg);
	ctx->no_active_set = full;
	ctx->no_wf_chains = no_chains;
	ctx->wf_check_iter_max = check_iter_max;
	ctx->no_classes = big;
	ctx->active_min_items = big ? 30 : 0;
	hs_alloc_t a;
	if (hs_policy_solve(ctx, p, &a, &err) < 0)
		fail_msg("%s (full %d, chains %d): %s", pol, full, !no_chains, err.msg);
	char why[160];
	if (!fx_feasible(&a, p, why, sizeof(why)))
		fail_msg("%s (full %d, chains %d): %s", pol, full, !no_chains, why);
	if (chained) {
		*chained += ctx->last_wf_chained;
		closed_seen += ctx->last_wf_closed;
	}
	checks_given_up += ctx->last_wf_checks_given_up;
	double *r = malloc(sizeof(double) * ((size_t)p->njobs + 1));
	levels(pol, p, &a, r);
	if (keep)
		*keep = a;
	else
		hs_alloc_free(&a);
	hs_policy_ctx_free(ctx);
	return r;
}

static void same_levels(const char *what, int seed, const hs_problem_t *p, const double *r,
			const double *ref, double tol)
{
	for (int m = 0; m < p->njobs; m++)
		if (fabs(r[m] - ref[m]) > tol * (1.0 + fabs(ref[m])))
			fail_msg("seed %d, %s, job %d of %d: level %.9g vs %.9g", seed, what, m, p->njobs,
				 r[m], ref[m]);
}

/* One type with 4 accelerators, every throughput 1 (r = time share).
 * Accounts A (Shares 2) and B (1); A's users a1 (1 job) and a2 (3 jobs)
 * with equal Shares, B's user b1 (2 jobs). Round 1: w' = 1 for a1, 1/3
 * for each a2 job, 1/2 for each b1 job: a1 reaches all its time at z = 1
 * while 3 of the 4 accelerators are used, so it freezes there. Round 2:
 * A's weight goes to a2 alone (2/3 a job), b1 keeps 1/2: 2z + z = 3 at
 * z = 1 fills the cluster. a1 1, a2's jobs 2/3, b1's 1/2 (levels start
 * again from 0 each round: the 4th accelerator, a1's unused part of A's
 * share, goes to a2, as in Gavel's hierarchical water filling). The same
 * with a sub-account between A and its users (one child: it passes A's
 * weight on). */
static void tree_hand(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1, 1, 1, 1 };
	for (int sub = 0; sub < 2; sub++) {
		hs_problem_t p;
		fx_problem(&p, "t:4", 6, thr, NULL, NULL, NULL);
		fx_entities(&p, 5 + sub, 1);
		/* e0 = A, e1 = B, e2 = a1, e3 = a2, e4 = b1, e5 = A's sub-account */
		p.entities.weight[0] = 2.0;
		p.entities.parent[2] = p.entities.parent[3] = sub ? 5 : 0;
		p.entities.parent[4] = 1;
		if (sub)
			p.entities.parent[5] = 0;
		p.jobs[0].entity = 2;
		p.jobs[1].entity = p.jobs[2].entity = p.jobs[3].entity = 3;
		p.jobs[4].entity = p.jobs[5].entity = 4;
		for (int full = 0; full < 2; full++) {
			hs_alloc_t a;
			double *r = solve_levels(WF[0], &p, full, 0, 0, NULL, &a);
			const double want[] = { 1, 2.0 / 3, 2.0 / 3, 2.0 / 3, 0.5, 0.5 };
			for (int m = 0; m < 6; m++)
				if (!NEAR(a.x[m], want[m]))
					fail_msg("sub %d, full %d: job %d gets %g, not %g", sub, full, m, a.x[m],
						 want[m]);
			assert_true(NEAR(a.objective, 1.0));
			free(r);
			hs_alloc_free(&a);
		}
		hs_problem_free(&p);
	}
}

/* Two users of one account, Shares 2 and 1, with 3 and 4 jobs on 3
 * accelerators: both have more demand than they get, so 2:1 (2 and 1
 * accelerators), whatever their job counts: each user's jobs split its
 * share (2/3 and 1/4 each). A third user without jobs takes nothing. */
static void tree_shares_ratio(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1, 1, 1, 1, 1 };
	hs_problem_t p;
	fx_problem(&p, "t:3", 7, thr, NULL, NULL, NULL);
	fx_entities(&p, 4, 1);
	p.entities.weight[1] = 2.0;
	p.entities.parent[1] = p.entities.parent[2] = p.entities.parent[3] = 0;
	for (int m = 0; m < 7; m++)
		p.jobs[m].entity = m < 3 ? 1 : 2;
	hs_alloc_t a;
	fx_solve(WF[0], &p, &a);
	double u = 0.0, v = 0.0;
	for (int m = 0; m < 7; m++)
		*(m < 3 ? &u : &v) += a.x[m];
	assert_true(NEAR(u, 2.0));
	assert_true(NEAR(v, 1.0));
	assert_true(NEAR(a.x[0], 2.0 / 3) && NEAR(a.x[3], 0.25));
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* hs_problem_validate on forests: parents in range, no cycles, jobs on
 * leaves only; a valid tree and no parent array pass. */
static void tree_validate(void **state)
{
	(void)state;
	const double thr[] = { 1, 1 };
	hs_problem_t p;
	hs_err_t err;
	fx_problem(&p, "t:1", 2, thr, NULL, NULL, NULL);
	fx_entities(&p, 3, 1);
	p.entities.parent[2] = 0;
	p.jobs[0].entity = 2;
	p.jobs[1].entity = 1;
	assert_int_equal(hs_problem_validate(&p, &err), 0);
	p.entities.parent[1] = 3;
	assert_int_equal(hs_problem_validate(&p, &err), -1);
	assert_non_null(strstr(err.msg, "parent index out of range"));
	p.entities.parent[1] = -2;
	assert_int_equal(hs_problem_validate(&p, &err), -1);
	p.entities.parent[1] = 1; /* itself */
	assert_int_equal(hs_problem_validate(&p, &err), -1);
	assert_non_null(strstr(err.msg, "cycle"));
	p.entities.parent[1] = 2; /* 1 -> 2 -> 0, both jobs on the leaf 1 */
	p.jobs[0].entity = 1;
	assert_int_equal(hs_problem_validate(&p, &err), 0);
	p.entities.parent[0] = 1; /* 0 -> 1 -> 2 -> 0 */
	assert_int_equal(hs_problem_validate(&p, &err), -1);
	assert_non_null(strstr(err.msg, "cycle"));
	p.entities.parent[0] = -1;
	p.jobs[1].entity = 0; /* 0 has a child */
	assert_int_equal(hs_problem_validate(&p, &err), -1);
	assert_non_null(strstr(err.msg, "leaves"));
	free(p.entities.parent);
	p.entities.parent = NULL; /* flat: jobs anywhere */
	assert_int_equal(hs_problem_validate(&p, &err), 0);
	hs_problem_free(&p);
}

/* Random one-level entities (fairness and fifo, some jobs without): no
 * parent array, a parent array of -1s, and every entity put under an
 * account of its own with its weight (a single child gets all of its
 * parent's) give the same level to every job. */
static void tree_flat_is_one_level(void **state)
{
	(void)state;
	for (int seed = 1; seed <= nseeds() / 4; seed++) {
		hs_problem_t p;
		fx_random(&p, (unsigned long long)seed + 7000, 30);
		unsigned long long s = (unsigned long long)seed * 31 + 5;
		const int E = 1 + (int)(fx_rand(&s) * 4);
		fx_entities(&p, 2 * E, 0);
		p.entities.n = E; /* the wrappers come later */
		for (int e = 0; e < E; e++) {
			p.entities.weight[e] = 0.5 + 2.0 * fx_rand(&s);
			p.entities.mode[e] = fx_rand(&s) < 0.3 ? HS_ENTITY_FIFO : HS_ENTITY_FAIRNESS;
		}
		for (int m = 0; m < p.njobs; m++)
			p.jobs[m].entity = (int)(fx_rand(&s) * (E + 1)) - 1;
		for (size_t i = 0; i < 2; i++) {
			double *ref = solve_levels(WF[i], &p, 0, 0, 0, NULL, NULL);
			p.entities.parent = malloc(sizeof(int) * 2 * (size_t)E);
			for (int e = 0; e < 2 * E; e++)
				p.entities.parent[e] = -1;
			double *r = solve_levels(WF[i], &p, 0, 0, 0, NULL, NULL);
			same_levels("parents all -1", seed, &p, r, ref, 1e-9);
			free(r);
			p.entities.n = 2 * E;
			for (int e = 0; e < E; e++) {
				p.entities.parent[e] = E + e;
				p.entities.weight[E + e] = p.entities.weight[e];
			}
			r = solve_levels(WF[i], &p, 0, 0, 0, NULL, NULL);
			same_levels("single-child accounts", seed, &p, r, ref, 1e-7);
			free(r);
			free(ref);
			free(p.entities.parent);
			p.entities.parent = NULL;
			p.entities.n = E;
		}
		p.entities.n = 2 * E;
		hs_problem_free(&p);
	}
}

/* A random tree on a random instance: 1-3 accounts, 0-2 sub-accounts,
 * 2-8 users, fifo users with probability fifo. */
static void random_tree(hs_problem_t *p, int seed, int big, double fifo)
{
	if (big)
		fx_random_n(p, (unsigned long long)seed + 8000, 0, 60 + 10 * (seed % 4));
	else
		fx_random(p, (unsigned long long)seed + 9000, 40);
	unsigned long long s = (unsigned long long)seed * 17 + 1;
	int A = 1 + (int)(fx_rand(&s) * 3), S = (int)(fx_rand(&s) * 3), U = 2 + (int)(fx_rand(&s) * 7);
	fx_tree(p, (unsigned long long)seed, A, S, U, fifo);
}

/* Both variants: the fast method with and without chains gives every
 * job of p the full-LP method's level (to 1e-5), and so does the fast
 * method when every check of its chains is given up at its iteration
 * limit (the LP method then takes the chains' rounds). */
static void fast_matches_full(const hs_problem_t *p, int seed, int big, int *chained)
{
	for (size_t i = 0; i < 2; i++) {
		double *full = solve_levels(WF[i], p, 1, 0, big, NULL, NULL);
		double *fast = solve_levels(WF[i], p, 0, 0, big, chained, NULL);
		double *nochain = solve_levels(WF[i], p, 0, 1, big, NULL, NULL);
		check_iter_max = 1;
		double *givenup = solve_levels(WF[i], p, 0, 0, big, NULL, NULL);
		check_iter_max = 0;
		same_levels(WF[i], seed, p, fast, full, 1e-5);
		same_levels("no chains", seed, p, nochain, full, 1e-5);
		same_levels("checks given up", seed, p, givenup, full, 1e-5);
		free(full);
		free(fast);
		free(nochain);
		free(givenup);
	}
}

/* The fast method gives every job the full-LP method's level on random
 * trees (levels are unique), with saturation chains on and off; chains
 * must have been used. Small instances (classes, many levels) and
 * distinct-job ones above the size where alloc_lp folds. */
static void tree_fast_matches_full(void **state)
{
	(void)state;
	const int nbig = RUNNING_ON_VALGRIND ? 2 : 6, nsmall = nseeds() / 4;
	int chained = 0;
	for (int seed = 1; seed <= nsmall + nbig; seed++) {
		int big = seed > nsmall;
		hs_problem_t p;
		random_tree(&p, seed, big, seed % 3 ? 0.0 : 0.3);
		fast_matches_full(&p, seed, big, &chained);
		hs_problem_free(&p);
	}
	assert_true(chained > 0);
	assert_true(checks_given_up > 0);
	printf("# %d classes frozen by chains, %d chains with closed types, %d checks given up\n",
	       chained, closed_seen, checks_given_up);
}

/* Instances built to close a type: a big account (Shares 4-8) whose few
 * jobs run 5-10x faster on 'fast' than on 'slow' takes all of 'fast'
 * (each job all its time there: saturated), then the other accounts'
 * users (several jobs each, 1.5-3x faster on 'fast') are left 'slow'
 * alone, and their rounds are saturation rounds on it. The fast method
 * (which proves 'fast' closed and chains them) gives the full-LP
 * method's levels, and it did close types. */
static void tree_closed_types(void **state)
{
	(void)state;
	const int n = RUNNING_ON_VALGRIND ? 4 : 30;
	const int before = closed_seen;
	for (int seed = 1; seed <= n; seed++) {
		unsigned long long s = (unsigned long long)seed * 13 + 7;
		const int nbig = 1 + (int)(fx_rand(&s) * 3), nsmall = 4 + (int)(fx_rand(&s) * 10);
		const int M = nbig + nsmall;
		double *thr = malloc(sizeof(double) * 2 * (size_t)M);
		for (int m = 0; m < M; m++) {
			double f = m < nbig ? 5.0 + 5.0 * fx_rand(&s) : 1.5 + 1.5 * fx_rand(&s);
			thr[2 * m] = f;
			thr[2 * m + 1] = 1.0;
		}
		char spec[64];
		snprintf(spec, sizeof(spec), "fast:%d,slow:%d", nbig, 2 + (int)(fx_rand(&s) * 5));
		hs_problem_t p;
		fx_problem(&p, spec, M, thr, NULL, NULL, NULL);
		/* e0 big account, e1 e2 small ones, e3.. users */
		const int U = nbig + 3;
		fx_entities(&p, 3 + U, 1);
		p.entities.weight[0] = 4.0 + (int)(fx_rand(&s) * 5);
		p.entities.weight[2] = 1.0 + (int)(fx_rand(&s) * 2);
		for (int u = 0; u < U; u++) {
			p.entities.parent[3 + u] = u < nbig ? 0 : 1 + (u - nbig) % 2;
			p.entities.weight[3 + u] = 1.0 + (int)(fx_rand(&s) * 2);
		}
		for (int m = 0; m < M; m++)
			p.jobs[m].entity = m < nbig ? 3 + m : 3 + nbig + (int)(fx_rand(&s) * 3);
		for (size_t i = 0; i < 2; i++) {
			double *full = solve_levels(WF[i], &p, 1, 0, 0, NULL, NULL);
			double *fast = solve_levels(WF[i], &p, 0, 0, 0, &(int){ 0 }, NULL);
			same_levels(WF[i], seed, &p, fast, full, 1e-5);
			free(full);
			free(fast);
		}
		free(thr);
		hs_problem_free(&p);
	}
	assert_true(closed_seen > before);
}

/* Exact ties between classes of different subtrees (identical jobs,
 * each its own class): water filling freezes every class stuck in a
 * round before the weights change, and a saturation chain must too.
 * Freezing one tied class, then recomputing the weights, took another
 * path (seed 151: a job got 4 instead of 0.75). The fast method gives the
 * full-LP method's levels. */
static void tree_ties_one_round(void **state)
{
	(void)state;
	const int seeds[] = { 151, 17, 42, 99 };
	const int n = RUNNING_ON_VALGRIND ? 1 : 4;
	for (int i = 0; i < n; i++) {
		int seed = seeds[i];
		hs_problem_t p;
		fx_random_n(&p, (unsigned long long)seed * 7 + 100000, 0, 120);
		unsigned long long s = (unsigned long long)seed * 17 + 1;
		int A = 1 + (int)(fx_rand(&s) * 5), S = (int)(fx_rand(&s) * 3), U = 2 + (int)(fx_rand(&s) * 30);
		fx_tree(&p, (unsigned long long)seed, A, S, U, 0.0);
		for (size_t k = 0; k < 2; k++) {
			double *full = solve_levels(WF[k], &p, 1, 0, 1, NULL, NULL);
			double *fast = solve_levels(WF[k], &p, 0, 0, 1, NULL, NULL);
			same_levels(WF[k], seed, &p, fast, full, 1e-5);
			free(full);
			free(fast);
		}
		hs_problem_free(&p);
	}
}

/* Work conservation: a type with idle accelerators leaves no job that
 * can run there with time to spare (a frozen or saturated user's unused
 * share went to the others). */
static void tree_work_conserving(void **state)
{
	(void)state;
	for (int seed = 1; seed <= nseeds() / 2; seed++) {
		hs_problem_t p;
		random_tree(&p, seed + 500, 0, 0.2);
		const int J = p.cluster.ntypes;
		for (size_t i = 0; i < 2; i++) {
			hs_alloc_t a;
			fx_solve(WF[i], &p, &a);
			for (int j = 0; j < J; j++) {
				double used = 0.0;
				for (int m = 0; m < p.njobs; m++)
					used += p.jobs[m].scale_factor * a.x[(size_t)m * J + j];
				if (used >= p.cluster.count[j] - 1e-5 * (1.0 + p.cluster.count[j]))
					continue;
				for (int m = 0; m < p.njobs; m++) {
					if (p.jobs[m].thr[j] <= 0.0 || p.cluster.count[j] < p.jobs[m].scale_factor)
						continue;
					double t = 0.0;
					for (int h = 0; h < J; h++)
						t += a.x[(size_t)m * J + h];
					if (t < 1.0 - 1e-5)
						fail_msg("seed %d, %s: type %d has %g of %d idle, job %d has time %g left",
							 seed, WF[i], j, p.cluster.count[j] - used, p.cluster.count[j],
							 m, 1.0 - t);
				}
			}
			hs_alloc_free(&a);
		}
		hs_problem_free(&p);
	}
}

/* Sum of the levels of the jobs below entity e (or of jobs without
 * entity when e = -1 and top set). */
static double subtree_total(const hs_problem_t *p, const double *r, int e)
{
	double t = 0.0;
	for (int m = 0; m < p->njobs; m++)
		for (int a = p->jobs[m].entity; a >= 0; a = p->entities.parent[a])
			if (a == e) {
				t += r[m];
				break;
			}
	return t;
}

/* Identical jobs (one throughput row, several types), random job
 * weights, at least 6 jobs per user on 5 accelerators: no job can use
 * all its time, so every job freezes in the first round and every node's
 * total is its part of its parent's: siblings with jobs below them have
 * totals in the ratio of their Shares. */
static void tree_shares_when_backlogged(void **state)
{
	(void)state;
	for (int seed = 1; seed <= nseeds() / 4; seed++) {
		unsigned long long s = (unsigned long long)seed * 101 + 9;
		const int U = 2 + (int)(fx_rand(&s) * 5), M = 6 * U + (int)(fx_rand(&s) * 10);
		double *thr = malloc(sizeof(double) * 2 * (size_t)M), *w = malloc(sizeof(double) * (size_t)M);
		for (int m = 0; m < M; m++) {
			thr[2 * m] = 3.0;
			thr[2 * m + 1] = 1.0;
			w[m] = 0.5 + 2.0 * fx_rand(&s);
		}
		hs_problem_t p;
		fx_problem(&p, "fast:2,slow:3", M, thr, NULL, w, NULL);
		fx_tree(&p, (unsigned long long)seed + 50, 1 + (int)(fx_rand(&s) * 3), (int)(fx_rand(&s) * 3), U,
			0.0);
		const int E = p.entities.n;
		for (int m = 0; m < M; m++) /* 6 jobs per user first, the rest at random */
			if (m < 6 * U)
				p.jobs[m].entity = E - U + m % U;
		for (size_t i = 0; i < 2; i++) {
			hs_alloc_t a;
			double *r = solve_levels(WF[i], &p, 0, 0, 0, NULL, &a);
			for (int e = 0; e < E; e++)
				for (int f = e + 1; f < E; f++) {
					if (p.entities.parent[e] != p.entities.parent[f])
						continue;
					double te = subtree_total(&p, r, e), tf = subtree_total(&p, r, f);
					if (te <= 0.0 || tf <= 0.0)
						continue; /* no jobs below one of them */
					double want = p.entities.weight[e] / p.entities.weight[f];
					if (fabs(te / tf - want) > 1e-6 * want)
						fail_msg("seed %d, %s: entities %d and %d (Shares %g, %g) get %g and %g",
							 seed, WF[i], e, f, p.entities.weight[e],
							 p.entities.weight[f], te, tf);
				}
			free(r);
			hs_alloc_free(&a);
		}
		free(thr);
		free(w);
		hs_problem_free(&p);
	}
}

/* A user who splits a job into 2 or 3 copies (the same work as an
 * array) gets the same total as before, as long as none of its jobs used
 * all its time (copies can run side by side: more work, not a larger
 * share of a contended cluster). Instances where every job has the same
 * throughput row (random per instance, several types), random job
 * weights and trees: the user's weight does not depend on its job count,
 * its jobs freeze in the same round whatever their number, and the
 * rounds of the others do not change. (With jobs that differ, moving
 * weight inside a user between jobs of different normalized throughput
 * also moves everyone's level; doc/policies.md.) */
static void tree_split_keeps_share(void **state)
{
	(void)state;
	int compared = 0;
	for (int seed = 1; seed <= nseeds() / 2; seed++) {
		unsigned long long s = (unsigned long long)seed * 7 + 3;
		const int M = 4 + (int)(fx_rand(&s) * 30), k = 2 + (int)(fx_rand(&s) * 2), m0 = (int)(fx_rand(&s) * M);
		const int N = M + k - 1;
		double row[3], *thr = malloc(sizeof(double) * 3 * (size_t)N), *w = malloc(sizeof(double) * (size_t)N);
		for (int j = 0; j < 3; j++)
			row[j] = 0.2 + 5.0 * fx_rand(&s);
		for (int m = 0; m < N; m++) {
			memcpy(&thr[3 * m], row, sizeof(row));
			w[m] = m < M ? 0.5 + 1.5 * fx_rand(&s) : w[m0];
		}
		char spec[64];
		snprintf(spec, sizeof(spec), "a:%d,b:%d,c:%d", 1 + (int)(fx_rand(&s) * 4), (int)(fx_rand(&s) * 4),
			 1 + (int)(fx_rand(&s) * 4));
		hs_problem_t p, q;
		fx_problem(&p, spec, M, thr, NULL, w, NULL);
		fx_problem(&q, spec, N, thr, NULL, w, NULL);
		const int A = 1 + (int)(fx_rand(&s) * 3), S = (int)(fx_rand(&s) * 2), U = 2 + (int)(fx_rand(&s) * 5);
		fx_tree(&p, (unsigned long long)seed + 77, A, S, U, 0.0);
		fx_tree(&q, (unsigned long long)seed + 77, A, S, U, 0.0); /* the same tree and users */
		for (int m = M; m < N; m++)
			q.jobs[m].entity = p.jobs[m0].entity;
		const int u = p.jobs[m0].entity, J = p.cluster.ntypes;
		for (size_t i = 0; i < 2; i++) {
			hs_alloc_t a;
			double *r1 = solve_levels(WF[i], &p, 0, 0, 0, NULL, &a);
			double *r2 = solve_levels(WF[i], &q, 0, 0, 0, NULL, NULL);
			double alone = 0.0, split = 0.0, tmax = 0.0;
			for (int m = 0; m < N; m++) {
				if (q.jobs[m].entity != u)
					continue;
				split += r2[m];
				if (m >= M)
					continue;
				alone += r1[m];
				double t = 0.0;
				for (int j = 0; j < J; j++)
					t += a.x[(size_t)m * J + j];
				tmax = t > tmax ? t : tmax;
			}
			if (tmax < 1.0 - 1e-6) {
				compared++;
				if (fabs(split - alone) > 1e-6 * (1.0 + alone))
					fail_msg("seed %d, %s: user %d with job %d split in %d gets %.9g, %.9g before "
						 "(its jobs' most time %g)", seed, WF[i], u, m0, k, split, alone, tmax);
			}
			free(r1);
			free(r2);
			hs_alloc_free(&a);
		}
		free(thr);
		free(w);
		hs_problem_free(&p);
		hs_problem_free(&q);
	}
	assert_true(compared > 0);
}

/* Running pinned jobs' GPUs charged to their entity (model.h's held;
 * doc/policies.md "Pinned GPUs are charged"). 4 GPUs of one type, 2 held
 * by user A's running pinned job, so the problem's cluster has the 2
 * free ones. A has 2 pending jobs, B 2, equal Shares: each is entitled
 * to 2, A holds its 2 already, so B's jobs get the 2 free GPUs (x = 1
 * each) and A's none. Uncharged (held NULL), each job would get 1/2.
 * Both variants, fast and full-LP methods; flat entities and a tree. */
static void tree_pinned_charge_users(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1, 1 };
	for (int tree = 0; tree < 2; tree++) {
		hs_problem_t p;
		fx_problem(&p, "t:2", 4, thr, NULL, NULL, NULL);
		fx_entities(&p, tree ? 3 : 2, tree);
		if (tree) /* e2 = an account over both users */
			p.entities.parent[0] = p.entities.parent[1] = 2;
		p.jobs[0].entity = p.jobs[1].entity = 0;
		p.jobs[2].entity = p.jobs[3].entity = 1;
		for (size_t i = 0; i < 2; i++)
			for (int full = 0; full < 2; full++) {
				hs_alloc_t a;
				double *r = solve_levels(WF[i], &p, full, 0, 0, NULL, &a);
				for (int m = 0; m < 4; m++)
					if (!NEAR(r[m], 0.5))
						fail_msg("uncharged, %s, full %d: job %d gets %g", WF[i], full, m, r[m]);
				free(r);
				hs_alloc_free(&a);
			}
		p.entities.held = calloc((size_t)p.entities.n, sizeof(double));
		p.entities.held[0] = 2.0;
		for (size_t i = 0; i < 2; i++)
			for (int full = 0; full < 2; full++) {
				hs_alloc_t a;
				double *r = solve_levels(WF[i], &p, full, 0, 0, NULL, &a);
				const double want[] = { 0, 0, 1, 1 };
				for (int m = 0; m < 4; m++)
					if (!NEAR(r[m], want[m]))
						fail_msg("tree %d, %s, full %d: job %d gets %g, not %g", tree, WF[i],
							 full, m, r[m], want[m]);
				free(r);
				hs_alloc_free(&a);
			}
		/* held 1 of 5 (4 free), B with 3 jobs: each entitled to 2.5,
		 * A's 2 jobs get 1.5 (0.75 each), B's 3 jobs 2.5 */
		hs_problem_free(&p);
		const double thr5[] = { 1, 1, 1, 1, 1 };
		fx_problem(&p, "t:4", 5, thr5, NULL, NULL, NULL);
		fx_entities(&p, tree ? 3 : 2, tree);
		if (tree)
			p.entities.parent[0] = p.entities.parent[1] = 2;
		p.jobs[0].entity = p.jobs[1].entity = 0;
		p.jobs[2].entity = p.jobs[3].entity = p.jobs[4].entity = 1;
		p.entities.held = calloc((size_t)p.entities.n, sizeof(double));
		p.entities.held[0] = 1.0;
		for (size_t i = 0; i < 2; i++)
			for (int full = 0; full < 2; full++) {
				double *r = solve_levels(WF[i], &p, full, 0, 0, NULL, NULL);
				const double want[] = { 0.75, 0.75, 2.5 / 3, 2.5 / 3, 2.5 / 3 };
				for (int m = 0; m < 5; m++)
					if (!NEAR(r[m], want[m]))
						fail_msg("held 1, tree %d, %s, full %d: job %d gets %g, not %g", tree,
							 WF[i], full, m, r[m], want[m]);
				free(r);
			}
		hs_problem_free(&p);
	}
}

/* The charge goes up the tree. Accounts X and Y (equal Shares); X's
 * user x1 has only a running pinned job on 2 GPUs (no job in the
 * problem), x2 has 2 pending jobs; Y's user y1 has 2. The 2 free GPUs:
 * X is entitled to 2 and holds them through x1, so y1 gets both and x2
 * none. With the pinned job on a user of Y instead, x2 gets both. And
 * held GPUs are never work lost: when y1 has only 1 job (it can use 1
 * GPU), x2's jobs get the other GPU although X is over its share. */
static void tree_pinned_charge_accounts(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1, 1 };
	for (int where = 0; where < 3; where++) {
		const int M = where == 2 ? 3 : 4;
		hs_problem_t p;
		fx_problem(&p, "t:2", M, thr, NULL, NULL, NULL);
		/* e0 = X, e1 = Y, e2 = x1, e3 = x2, e4 = y1, e5 = y2 */
		fx_entities(&p, 6, 1);
		p.entities.parent[2] = p.entities.parent[3] = 0;
		p.entities.parent[4] = p.entities.parent[5] = 1;
		p.jobs[0].entity = p.jobs[1].entity = 3;
		for (int m = 2; m < M; m++)
			p.jobs[m].entity = 4;
		p.entities.held = calloc(6, sizeof(double));
		p.entities.held[where == 1 ? 5 : 2] = 2.0;
		for (size_t i = 0; i < 2; i++)
			for (int full = 0; full < 2; full++) {
				double *r = solve_levels(WF[i], &p, full, 0, 0, NULL, NULL);
				double want_x = where == 0 ? 0.0 : where == 1 ? 1.0 : 0.5, want_y = where == 1 ? 0.0 : 1.0;
				for (int m = 0; m < M; m++)
					if (!NEAR(r[m], m < 2 ? want_x : want_y))
						fail_msg("case %d, %s, full %d: job %d gets %g, not %g", where, WF[i],
							 full, m, r[m], m < 2 ? want_x : want_y);
				free(r);
			}
		hs_problem_free(&p);
	}
}

/* With random held GPUs on random trees (on users and accounts, some of
 * them without jobs), the fast method still gives every job the full-LP
 * method's level, with and without chains (which ran), on small
 * instances (classes) and on ones alloc_lp folds (charged items stay
 * unfolded). */
static void tree_pinned_fast_matches_full(void **state)
{
	(void)state;
	const int nbig = RUNNING_ON_VALGRIND ? 1 : 4, nsmall = nseeds() / 4;
	int charged = 0, chained = 0;
	for (int seed = 1; seed <= nsmall + nbig; seed++) {
		int big = seed > nsmall;
		hs_problem_t p;
		random_tree(&p, seed + 300, big, seed % 3 ? 0.0 : 0.3);
		unsigned long long s = (unsigned long long)seed * 13 + 7;
		const int E = p.entities.n;
		p.entities.held = calloc((size_t)E + 1, sizeof(double));
		for (int e = 0; e < E; e++)
			if (fx_rand(&s) < 0.4) {
				p.entities.held[e] = (double)(1 + (int)(fx_rand(&s) * 3));
				charged++;
			}
		fast_matches_full(&p, seed, big, &chained);
		hs_problem_free(&p);
	}
	assert_true(charged > 0);
	assert_true(chained > 0); /* the chains ran with charges */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tree_hand),
		cmocka_unit_test(tree_shares_ratio),
		cmocka_unit_test(tree_validate),
		cmocka_unit_test(tree_flat_is_one_level),
		cmocka_unit_test(tree_fast_matches_full),
		cmocka_unit_test(tree_closed_types),
		cmocka_unit_test(tree_ties_one_round),
		cmocka_unit_test(tree_work_conserving),
		cmocka_unit_test(tree_shares_when_backlogged),
		cmocka_unit_test(tree_split_keeps_share),
		cmocka_unit_test(tree_pinned_charge_users),
		cmocka_unit_test(tree_pinned_charge_accounts),
		cmocka_unit_test(tree_pinned_fast_matches_full),
	};
	return cmocka_run_group_tests_name("policy_tree", tests, NULL, NULL);
}
