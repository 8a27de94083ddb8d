/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_policy.c — the policy registry and the policies on small instances
 * whose optimum is worked out by hand (the derivation is in each test's
 * comment), plus error handling of hs_policy_solve. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/policy_impl.h"
#include "tests/unit/policy_fixtures.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

static void registry(void **state)
{
	(void)state;
	const char *must[] = { "isolated", "max_min_fairness", "max_min_fairness_perf",
			       "finish_time_fairness", "finish_time_fairness_perf",
			       "min_total_duration", "min_total_duration_perf",
			       "max_sum_throughput_perf", "min_cost", "min_cost_slo",
			       "max_min_fairness_water_filling", "max_min_fairness_water_filling_perf",
			       "fifo", "fifo_perf", "fifo_packed", "gandiva", "allox",
			       "max_min_fairness_packed", "finish_time_fairness_packed",
			       "min_total_duration_packed" };
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		assert_true(hs_policy_exists(must[i]));
	assert_false(hs_policy_exists("no_such_policy"));
	assert_false(hs_policy_exists(NULL));
	assert_null(hs_policy_name(-1));
	assert_null(hs_policy_name(hs_policy_count()));
	for (int i = 0; i < hs_policy_count(); i++) {
		const char *n = hs_policy_name(i);
		assert_non_null(n);
		for (int k = 0; k < i; k++)
			assert_string_not_equal(n, hs_policy_name(k));
		hs_err_t err;
		hs_policy_ctx_t *ctx = hs_policy_ctx_new(n, NULL, &err);
		assert_non_null(ctx);
		assert_string_equal(hs_policy_ctx_name(ctx), n);
		hs_policy_ctx_free(ctx);
	}
	hs_err_t err = { "" };
	assert_null(hs_policy_ctx_new("bogus", NULL, &err));
	assert_non_null(strstr(err.msg, "bogus"));
	hs_policy_opts_t o;
	hs_policy_opts_default(&o);
	o.pop_partitions = 4;
	assert_null(hs_policy_ctx_new("isolated", &o, &err)); /* POP needs an LP */
	hs_policy_opts_default(&o);
	o.time_limit_s = -1;
	assert_null(hs_policy_ctx_new("max_min_fairness", &o, &err));
}

/* The registry's per-policy facts the mechanism relies on: Gavel's
 * heterogeneity-aware policies ("_Perf", "_Packing", AlloX; not Gandiva,
 * whose shares ignore the types) and the FIFO queue policies that must not
 * backfill. */
static void registry_properties(void **state)
{
	(void)state;
	const char *aware[] = { "fifo_perf", "fifo_packed", "allox",
				"max_min_fairness_perf", "max_min_fairness_packed",
				"max_min_fairness_water_filling_perf", "finish_time_fairness_perf",
				"finish_time_fairness_packed", "min_total_duration_perf",
				"min_total_duration_packed", "max_sum_throughput_perf", "min_cost",
				"min_cost_slo" };
	const char *agnostic[] = { "isolated", "fifo", "gandiva", "max_min_fairness",
				   "max_min_fairness_water_filling", "finish_time_fairness",
				   "min_total_duration" };
	size_t na = sizeof(aware) / sizeof(aware[0]), ng = sizeof(agnostic) / sizeof(agnostic[0]);
	for (size_t i = 0; i < na; i++)
		assert_true(hs_policy_is_aware(aware[i]));
	for (size_t i = 0; i < ng; i++)
		assert_false(hs_policy_is_aware(agnostic[i]));
	assert_int_equal((int)(na + ng), hs_policy_count()); /* every policy decided */
	assert_false(hs_policy_is_aware("no_such_policy"));
	assert_false(hs_policy_is_aware(NULL));
	for (int i = 0; i < hs_policy_count(); i++) {
		const char *n = hs_policy_name(i);
		assert_int_equal(hs_policy_backfills(n), strncmp(n, "fifo", 4) != 0);
	}
	assert_false(hs_policy_backfills("no_such_policy"));
	assert_false(hs_policy_backfills(NULL));
}

/* fast:1, slow:2. a: fast 4, slow 1 (T^eq = 6/3 = 2); b: fast 2, slow 1
 * (T^eq = 4/3). Slow capacity never binds, so both jobs use all their
 * time: slow = 1 - fast. With f = a's fast share, b's is 1 - f:
 * ratio_a = (1 + 3f) / 2, ratio_b = (1 + (1 - f)) * 3/4; equal at f = 4/9,
 * value 7/6. */
static const double thr2[] = { 4, 1, 2, 1 };

static void maxmin_perf_hand(void **state)
{
	(void)state;
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:2", 2, thr2, NULL, NULL, NULL);
	hs_alloc_t a;
	fx_solve("max_min_fairness_perf", &p, &a);
	assert_true(NEAR(a.objective, 7.0 / 6.0));
	assert_true(NEAR(a.x[0], 4.0 / 9.0));
	assert_true(NEAR(a.x[2], 5.0 / 9.0));
	assert_true(NEAR(hs_alloc_effective_thr(&a, &p, 0), 7.0 / 3.0));
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* Same, a with weight 2: (1 + 3f) / 4 = 3 (2 - f) / 4 gives f = 5/6,
 * value 7/8. */
static void maxmin_perf_weights(void **state)
{
	(void)state;
	hs_problem_t p;
	const double w[] = { 2.0, 1.0 };
	fx_problem(&p, "fast:1,slow:2", 2, thr2, NULL, w, NULL);
	hs_alloc_t a;
	fx_solve("max_min_fairness_perf", &p, &a);
	assert_true(NEAR(a.objective, 7.0 / 8.0));
	assert_true(NEAR(a.x[0], 5.0 / 6.0));
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* One type with 2 accelerators; a has scale factor 2, b and c 1. Ratios
 * 2 x_a, x_b, x_c under 2 x_a + x_b + x_c <= 2: all equal z, 3z = 2,
 * z = 2/3, x_a = 1/3. Agnostic and aware agree (one type). */
static void maxmin_scale_factors(void **state)
{
	(void)state;
	const double thr[] = { 5, 1, 3 };
	const int sf[] = { 2, 1, 1 };
	const char *pols[] = { "max_min_fairness", "max_min_fairness_perf" };
	for (int i = 0; i < 2; i++) {
		hs_problem_t p;
		fx_problem(&p, "t:2", 3, thr, sf, NULL, NULL);
		hs_alloc_t a;
		fx_solve(pols[i], &p, &a);
		assert_true(NEAR(a.objective, 2.0 / 3.0));
		assert_true(NEAR(a.x[0], 1.0 / 3.0));
		assert_true(NEAR(a.x[1], 2.0 / 3.0));
		assert_true(NEAR(a.x[2], 2.0 / 3.0));
		hs_alloc_free(&a);
		hs_problem_free(&p);
	}
}

/* Agnostic on the first instance: both jobs can have all their time
 * (three accelerators, two jobs), so the value is 1 and each row sums to
 * 1; its aware value is at most 7/6. */
static void maxmin_agnostic(void **state)
{
	(void)state;
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:2", 2, thr2, NULL, NULL, NULL);
	hs_alloc_t a;
	fx_solve("max_min_fairness", &p, &a);
	assert_true(NEAR(a.objective, 1.0));
	assert_true(NEAR(a.x[0] + a.x[1], 1.0));
	assert_true(NEAR(a.x[2] + a.x[3], 1.0));
	hs_policy_desc_t aware = { .name = "x", .aware = 1 };
	double cap[] = { 1, 2 };
	assert_true(hs_maxmin_value(&aware, &p, cap, &a) <= 7.0 / 6.0 + 1e-9);
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* 6 identical jobs and 2 of another kind on fast:2, slow:2 (values: the
 * class-aggregated LP must give the same optimum as one row per job). */
static void maxmin_classes_exact(void **state)
{
	(void)state;
	double thr[8 * 2];
	for (int m = 0; m < 8; m++) {
		thr[2 * m] = m < 6 ? 3.0 : 1.0;
		thr[2 * m + 1] = m < 6 ? 1.0 : 2.0;
	}
	hs_problem_t p;
	fx_problem(&p, "fast:2,slow:2", 8, thr, NULL, NULL, NULL);
	double v[2];
	for (int nc = 0; nc < 2; nc++) {
		hs_err_t err;
		hs_policy_ctx_t *ctx = hs_policy_ctx_new("max_min_fairness_perf", NULL, &err);
		ctx->no_classes = nc;
		hs_alloc_t a;
		assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), 0);
		v[nc] = a.objective;
		char why[128];
		assert_true(fx_feasible(&a, &p, why, sizeof(why)));
		hs_alloc_free(&a);
		hs_policy_ctx_free(ctx);
	}
	assert_true(NEAR(v[0], v[1]));
	/* by hand: type-A jobs (T^eq 2) prefer fast, type-B (T^eq 1.5) slow.
	 * B on slow only: 2 jobs x 1 = 2 slow, ratio 2/1.5 = 4/3. A on fast:
	 * 2/6 each, ratio 1/2 -> A needs slow time too. Let A get f fast
	 * (6f = 2) and s slow, B gets slow b: 6s + 2b = 2, ratio_A =
	 * (3/3 + s)/2, ratio_B = 2b/1.5; equal: (1 + s)/2 = 4b/3 with
	 * b = 1 - 3s -> 3 + 3s = 8 - 24s -> s = 5/27, value 16/27. */
	assert_true(NEAR(v[0], 16.0 / 27.0));
	hs_problem_free(&p);
}

/* fast:1, slow:2; a (4, 1), b (2, 0: cannot run on slow), c scale factor
 * 2 (3, 3: does not fit the single fast accelerator). M = 3:
 * a: fast 1/3, slow 2/3; b: fast 1/3; c: slow 2 / (3 * 2) = 1/3.
 * Summed throughput 4/3 + 2/3 + 2/3 + 1 = 11/3. */
static void isolated_hand(void **state)
{
	(void)state;
	const double thr[] = { 4, 1, 2, 0, 3, 3 };
	const int sf[] = { 1, 1, 2 };
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:2", 3, thr, sf, NULL, NULL);
	hs_alloc_t a;
	fx_solve("isolated", &p, &a);
	const double want[] = { 1.0 / 3, 2.0 / 3, 1.0 / 3, 0, 0, 1.0 / 3 };
	for (int i = 0; i < 6; i++)
		assert_true(NEAR(a.x[i], want[i]));
	assert_true(NEAR(a.objective, 11.0 / 3.0));
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* Makespan on fast:1, slow:2 with a (4, 1), R 300 and b (2, 1), R 100.
 * Slow capacity does not bind, so with f = a's fast share: thr_a = 1 + 3f,
 * thr_b = 2 - f (each job fills its time with slow). Both finish together
 * at the optimum: (1 + 3f) / 300 = (2 - f) / 100, f = 5/6, thr_a = 3.5:
 * makespan 300 / 3.5 = 600/7 s. One LP, no bisection: exact. */
static void makespan_hand(void **state)
{
	(void)state;
	const double steps[] = { 300, 100 };
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:2", 2, thr2, NULL, NULL, steps);
	hs_alloc_t a, g;
	fx_solve("min_total_duration_perf", &p, &a);
	assert_true(NEAR(a.objective, 600.0 / 7.0));
	assert_true(NEAR(a.x[0], 5.0 / 6.0));
	/* the agnostic variant cannot do better on real throughputs */
	fx_solve("min_total_duration", &p, &g);
	assert_true(g.objective >= a.objective - 1e-9);
	hs_alloc_free(&a);
	hs_alloc_free(&g);
	hs_problem_free(&p);
}

/* Finish-time fairness on the max-min instance. Isolated (M = 2): fast
 * 1/2 and slow 1 scaled to fast 1/3, slow 2/3: T^iso_a = 2, T^iso_b = 4/3.
 * With ages 0, rho_m = T^iso_m / thr_m, so min max rho = 1 / (7/6) = 6/7.
 * With t_a = 10 and R = 100 each: D_a = 60, D_b = 75 and equal rhos need
 * (10 + 100 / (1 + 3f)) / 60 = 4 / (3 (2 - f)), i.e. 9f^2 + 87f - 42 = 0,
 * f = (-87 + sqrt(9081)) / 18, rho = 4 / (3 (2 - f)). */
static void ftf_hand(void **state)
{
	(void)state;
	const double steps[] = { 100, 100 };
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:2", 2, thr2, NULL, NULL, steps);
	hs_alloc_t a;
	fx_solve("finish_time_fairness_perf", &p, &a);
	assert_true(fabs(a.objective - 6.0 / 7.0) < 1e-5);
	hs_alloc_free(&a);
	p.jobs[0].age_s = 10;
	fx_solve("finish_time_fairness_perf", &p, &a);
	double f = (-87.0 + sqrt(9081.0)) / 18.0;
	assert_true(fabs(a.objective - 4.0 / (3.0 * (2.0 - f))) < 1e-5);
	assert_true(fabs(a.x[0] - f) < 1e-4);
	hs_alloc_free(&a);
	/* agnostic (reference type fast: a is 4, b is 2 everywhere): the
	 * isolated allocation already uses every accelerator, so 1 is best */
	fx_solve("finish_time_fairness", &p, &a);
	assert_true(fabs(a.objective - 1.0) < 1e-5);
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* Issue 28: finish-time fairness per job paid for splitting a job into
 * array tasks (3.8x the GPU time, doc/strategic.md). t:2, every
 * throughput 1; alice (E0) has one job of 800 steps, bob (E1) the same
 * work as 8 tasks of 100. Without entities every job's isolated share is
 * 1/9: alice gets 2/9 of a GPU, bob 16/9. With the two users as entities
 * of equal Shares the isolated shares are 1/2 and 1/16 per task: each
 * user gets one GPU. */
static void ftf_split_entities(void **state)
{
	(void)state;
	double thr[9], steps[9];
	for (int m = 0; m < 9; m++) {
		thr[m] = 1.0;
		steps[m] = m == 0 ? 800 : 100;
	}
	const char *pols[] = { "finish_time_fairness_perf", "finish_time_fairness" };
	for (int k = 0; k < 2; k++) {
		hs_problem_t p;
		fx_problem(&p, "t:2", 9, thr, NULL, NULL, steps);
		hs_alloc_t a;
		fx_solve(pols[k], &p, &a);
		assert_true(NEAR(a.x[0], 2.0 / 9.0));
		hs_alloc_free(&a);
		fx_entities(&p, 2, 0);
		for (int m = 0; m < 9; m++)
			p.jobs[m].entity = m == 0 ? 0 : 1;
		fx_solve(pols[k], &p, &a);
		double bob = 0;
		for (int m = 1; m < 9; m++)
			bob += a.x[m];
		if (!NEAR(a.x[0], 1.0) || !NEAR(bob, 1.0))
			fail_msg("%s: alice %.4f, bob %.4f GPUs (want 1 and 1)", pols[k], a.x[0], bob);
		hs_alloc_free(&a);
		hs_problem_free(&p);
	}
}

/* The isolated shares on a two-level tree: account A (Shares 3) with
 * users u1 (1) and u2 (1), account B (1) with user u3 (1); u1 has two
 * jobs of weights 1 and 3, u2 one, u3 one, and one job has no entity
 * (weight 1, at the top level beside A and B): 3 + 1 + 1 = 5 at the top. */
static void isolated_shares_tree(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1, 1, 1 }, jw[] = { 1, 3, 1, 1, 1 };
	hs_problem_t p;
	fx_problem(&p, "t:1", 5, thr, NULL, jw, NULL);
	const double w[] = { 3, 1, 1, 1, 1 };
	const int parent[] = { -1, -1, 0, 0, 1 }; /* A, B, u1, u2, u3 */
	fx_entities(&p, 5, 1);
	for (int e = 0; e < 5; e++) {
		p.entities.weight[e] = w[e];
		p.entities.parent[e] = parent[e];
	}
	const int ent[] = { 2, 2, 3, 4, -1 };
	for (int m = 0; m < 5; m++)
		p.jobs[m].entity = ent[m];
	double share[5];
	hs_err_t err;
	assert_int_equal(hs_isolated_shares(&p, share, &err), 0);
	const double want[] = { 0.3 / 4, 0.3 * 3 / 4, 0.3, 0.2, 0.2 };
	for (int m = 0; m < 5; m++)
		if (!NEAR(share[m], want[m]))
			fail_msg("job %d: share %.4f, want %.4f", m, share[m], want[m]);
	/* only u1's jobs left: u1 has everything */
	p.njobs = 2;
	assert_int_equal(hs_isolated_shares(&p, share, &err), 0);
	assert_true(NEAR(share[0], 0.25) && NEAR(share[1], 0.75));
	p.njobs = 5;
	hs_problem_free(&p);
}

/* Summed throughput: a on fast (4), b on slow (1): 5. Cost with prices
 * fast 3, slow 1: a's fast is worth 4/3 vs 1 on slow, b's 2/3 vs 1: a
 * fast, b slow, 4/3 + 1 = 7/3. An SLO for b of 100 steps in 80 s needs
 * thr_b >= 1.25, i.e. 1/4 of fast for b: 1 + 1/4 + 1/6 + 3/4 = 13/6. In
 * 40 s it needs 2.5 > 2: infeasible, so the SLO is dropped (7/3). */
static void throughput_and_cost_hand(void **state)
{
	(void)state;
	const double steps[] = { 100, 100 };
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:2", 2, thr2, NULL, NULL, steps);
	p.cluster.price[0] = 3.0;
	p.cluster.price[1] = 1.0;
	hs_alloc_t a;
	fx_solve("max_sum_throughput_perf", &p, &a);
	assert_true(NEAR(a.objective, 5.0));
	hs_alloc_free(&a);
	fx_solve("min_cost", &p, &a);
	assert_true(NEAR(a.objective, 7.0 / 3.0));
	hs_alloc_free(&a);
	p.jobs[1].slo_s = 80;
	fx_solve("min_cost_slo", &p, &a);
	assert_true(NEAR(a.objective, 13.0 / 6.0));
	assert_true(hs_alloc_effective_thr(&a, &p, 1) >= 1.25 - 1e-7);
	hs_alloc_free(&a);
	p.jobs[1].slo_s = 40;
	hs_err_t err;
	hs_policy_ctx_t *ctx = hs_policy_ctx_new("min_cost_slo", NULL, &err);
	assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), 0);
	assert_true(NEAR(a.objective, 7.0 / 3.0));
	assert_non_null(strstr(hs_policy_ctx_note(ctx), "SLO"));
	hs_alloc_free(&a);
	hs_policy_ctx_free(ctx);
	/* no price for a usable type: a clear error */
	p.cluster.price[1] = 0.0;
	ctx = hs_policy_ctx_new("min_cost", NULL, &err);
	assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), -1);
	assert_non_null(strstr(err.msg, "price"));
	hs_alloc_free(&a);
	hs_policy_ctx_free(ctx);
	hs_problem_free(&p);
}

/* Water filling on fast:1, slow:2: a runs only on fast (T^eq 1/3, so
 * r_a = 3 x_a), b and c run anywhere at 1 (T^eq 1, r = their time share).
 * b and c can never exceed r = 1, so the first level is 1; plain max-min
 * may leave a at 1/3 of fast, water filling gives a all of fast (r = 3). */
static void water_filling_hand(void **state)
{
	(void)state;
	const double thr[] = { 1, 0, 1, 1, 1, 1 };
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:2", 3, thr, NULL, NULL, NULL);
	const char *pols[] = { "max_min_fairness_water_filling_perf", "max_min_fairness_water_filling" };
	for (int i = 0; i < 2; i++) {
		hs_alloc_t a;
		fx_solve(pols[i], &p, &a);
		if (i == 0)
			assert_true(NEAR(a.objective, 1.0));
		assert_true(NEAR(a.x[0], 1.0));
		assert_true(NEAR(a.x[2] + a.x[3], 1.0));
		assert_true(NEAR(a.x[4] + a.x[5], 1.0));
		hs_alloc_free(&a);
	}
	hs_problem_free(&p);
}

/* A clock that advances one second each time it is read. */
static double tick_clock(void *arg)
{
	return (double)(*(long *)arg)++;
}

/* SolverTimeLimit is a budget per policy solve, not per LP.
 * Water filling solves several LPs; with a clock that ticks 1 s per read
 * (one read at the start of the solve, one per simplex call) and a 1.5 s
 * budget, the second LP must find the budget used up. With a per-LP limit
 * every LP got 1.5 s afresh and the solve succeeded. */
static void time_budget_per_solve(void **state)
{
	(void)state;
	const double thr[] = { 1, 0, 1, 1, 1, 1 };
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:2", 3, thr, NULL, NULL, NULL);
	hs_policy_opts_t o;
	hs_policy_opts_default(&o);
	long ticks = 0;
	o.clock = tick_clock;
	o.clock_arg = &ticks;
	hs_err_t err;
	hs_alloc_t a;
	/* a budget large enough: the solve works and reads the clock once
	 * at its start plus once per LP, so it needs more than one LP */
	o.time_limit_s = 1e6;
	hs_policy_ctx_t *ctx = hs_policy_ctx_new("max_min_fairness_water_filling_perf", &o, &err);
	assert_non_null(ctx);
	assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), 0);
	hs_alloc_free(&a);
	assert_true(ticks >= 3);
	hs_policy_ctx_free(ctx);

	o.time_limit_s = 1.5;
	ticks = 0;
	ctx = hs_policy_ctx_new("max_min_fairness_water_filling_perf", &o, &err);
	assert_non_null(ctx);
	assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), -1);
	hs_alloc_free(&a);
	assert_non_null(strstr(err.msg, "time budget"));
	assert_int_equal(ticks, 3); /* start, first LP, second LP refused */
	hs_policy_ctx_free(ctx);
	hs_problem_free(&p);
}

/* Hierarchical, one type with 2 accelerators, all throughputs 1. Entity A
 * (weight 1, fairness) has a1 (weight 1) and a2 (weight 3); entity B
 * (weight 1, fifo) has b1 (age 10) and b2 (age 5). Round 1: weights
 * 1/4, 3/4 for a1, a2, 1 for b1 (oldest), 0 for b2: z/4 + 3z/4 + z <= 2
 * gives z = 1 with the cluster full, so all three freeze; b2 gets nothing.
 * A's accelerator is split 1:3, B's goes to its oldest job. */
static void hierarchical_hand(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1, 1 };
	const double w[] = { 1, 3, 1, 1 };
	hs_problem_t p;
	fx_problem(&p, "t:2", 4, thr, NULL, w, NULL);
	p.entities.n = 2;
	p.entities.names = calloc(2, sizeof(char *));
	p.entities.weight = calloc(2, sizeof(double));
	p.entities.mode = calloc(2, sizeof(hs_entity_mode_t));
	p.entities.names[0] = strdup("A");
	p.entities.names[1] = strdup("B");
	p.entities.weight[0] = p.entities.weight[1] = 1.0;
	p.entities.mode[1] = HS_ENTITY_FIFO;
	p.jobs[0].entity = p.jobs[1].entity = 0;
	p.jobs[2].entity = p.jobs[3].entity = 1;
	p.jobs[2].age_s = 10;
	p.jobs[3].age_s = 5;
	hs_alloc_t a;
	fx_solve("max_min_fairness_water_filling_perf", &p, &a);
	assert_true(NEAR(a.x[0], 0.25));
	assert_true(NEAR(a.x[1], 0.75));
	assert_true(NEAR(a.x[2], 1.0));
	assert_true(NEAR(a.x[3], 0.0));
	assert_true(NEAR(a.objective, 1.0));
	hs_alloc_free(&a);
	/* b2 older than b1: B's accelerator goes to b2 instead */
	p.jobs[3].age_s = 20;
	fx_solve("max_min_fairness_water_filling_perf", &p, &a);
	assert_true(NEAR(a.x[2], 0.0));
	assert_true(NEAR(a.x[3], 1.0));
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* fifo_perf on fast:1, slow:1; a (oldest; 4, 1), b (2, 1), c (newest):
 * a takes fast, b slow, c waits. Summed throughput 5. */
static void fifo_perf_hand(void **state)
{
	(void)state;
	const double thr[] = { 4, 1, 2, 1, 1, 1 };
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:1", 3, thr, NULL, NULL, NULL);
	p.jobs[0].age_s = 30;
	p.jobs[1].age_s = 20;
	p.jobs[2].age_s = 10;
	hs_alloc_t a;
	fx_solve("fifo_perf", &p, &a);
	const double want[] = { 1, 0, 0, 1, 0, 0 };
	for (int i = 0; i < 6; i++)
		assert_true(a.x[i] == want[i]);
	assert_true(NEAR(a.objective, 5.0));
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* Strict FIFO: t:2, a (oldest, 1 GPU) starts, b needs 2 and waits, and c
 * (1 GPU) must not jump ahead of b. */
static void fifo_strict(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1 };
	const int sf[] = { 1, 2, 1 };
	hs_problem_t p;
	fx_problem(&p, "t:2", 3, thr, sf, NULL, NULL);
	p.jobs[0].age_s = 3;
	p.jobs[1].age_s = 2;
	p.jobs[2].age_s = 1;
	const char *pols[] = { "fifo", "fifo_perf", "fifo_packed" };
	for (int i = 0; i < 3; i++) {
		hs_alloc_t a;
		fx_solve(pols[i], &p, &a);
		assert_true(a.x[0] == 1.0 && a.x[1] == 0.0 && a.x[2] == 0.0);
		hs_alloc_free(&a);
	}
	hs_problem_free(&p);
}

/* fifo is non-preemptive: a running job keeps its type in later rounds
 * (matched by id, whatever its index), and the seed makes the random type
 * choice reproducible. */
static void fifo_sticky(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	hs_problem_t p;
	fx_problem(&p, "a:2,b:2", 4, thr, NULL, NULL, NULL);
	for (int m = 0; m < 4; m++)
		p.jobs[m].age_s = 10 - m;
	hs_err_t err;
	hs_policy_ctx_t *ctx = hs_policy_ctx_new("fifo", NULL, &err), *ctx2 = hs_policy_ctx_new("fifo", NULL, &err);
	hs_alloc_t r1, r1b, r2;
	assert_int_equal(hs_policy_solve(ctx, &p, &r1, &err), 0);
	assert_int_equal(hs_policy_solve(ctx2, &p, &r1b, &err), 0);
	for (int i = 0; i < 8; i++)
		assert_true(r1.x[i] == r1b.x[i]); /* same seed, same choices */
	int j3 = r1.x[3 * 2] == 1.0 ? 0 : 1;
	/* round 2: job 0 finished, the others are listed in another order */
	hs_job_t tmp = p.jobs[0];
	p.jobs[0] = p.jobs[3];
	p.jobs[3] = tmp;
	p.njobs = 3;
	assert_int_equal(hs_policy_solve(ctx, &p, &r2, &err), 0);
	assert_true(r2.x[0 * 2 + j3] == 1.0); /* j3 kept its type */
	p.njobs = 4;
	hs_alloc_free(&r1);
	hs_alloc_free(&r1b);
	hs_alloc_free(&r2);
	hs_policy_ctx_free(ctx);
	hs_policy_ctx_free(ctx2);
	hs_problem_free(&p);
}

/* fifo_packed on t:1: a runs; b packs onto a when their normalized pair
 * throughput 0.9 + 0.8 = 1.7 exceeds the threshold 1.5, not at 2. */
static void fifo_packed_hand(void **state)
{
	(void)state;
	const double thr[] = { 1, 1 };
	const double pair[] = { 0.5, 0.9, 0.8, 0.5 };
	hs_problem_t p;
	fx_problem(&p, "t:1", 2, thr, NULL, NULL, NULL);
	fx_jobtypes(&p, 2, pair);
	p.jobs[0].job_type = 0;
	p.jobs[1].job_type = 1;
	p.jobs[0].age_s = 2;
	p.jobs[1].age_s = 1;
	hs_alloc_t a;
	fx_solve("fifo_packed", &p, &a);
	assert_int_equal(a.npairs, 1);
	assert_true(a.pairs[0].x[0] == 1.0 && a.x[0] == 0.0 && a.x[1] == 0.0);
	assert_true(NEAR(a.objective, 1.7));
	hs_alloc_free(&a);
	hs_err_t err;
	hs_policy_opts_t o;
	hs_policy_opts_default(&o);
	o.pack_threshold = 2.0;
	hs_policy_ctx_t *ctx = hs_policy_ctx_new("fifo_packed", &o, &err);
	assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), 0);
	assert_int_equal(a.npairs, 0);
	assert_true(a.x[0] == 1.0 && a.x[1] == 0.0);
	hs_alloc_free(&a);
	hs_policy_ctx_free(ctx);
	hs_problem_free(&p);
}

/* gandiva on t:2 with four 1-GPU jobs whose pairs all help (normalized
 * 0.7 + 0.7 >= 1): demand 4 > 2, so two random pairs, each with an equal
 * share 2 / (2 combinations) = 1 of the time; pairs persist across
 * rounds. With the demand fitting (t:4) it is the isolated allocation. */
static void gandiva_hand(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1, 1 };
	const double pair[] = { 0.7, 0.7, 0.7, 0.7 };
	hs_problem_t p;
	fx_problem(&p, "t:2", 4, thr, NULL, NULL, NULL);
	fx_jobtypes(&p, 2, pair);
	for (int m = 0; m < 4; m++)
		p.jobs[m].job_type = m % 2;
	hs_err_t err;
	hs_policy_ctx_t *ctx = hs_policy_ctx_new("gandiva", NULL, &err);
	hs_alloc_t a, b;
	assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), 0);
	assert_int_equal(a.npairs, 2);
	for (int i = 0; i < 2; i++)
		assert_true(NEAR(a.pairs[i].x[0], 1.0));
	assert_true(NEAR(a.objective, 4 * 0.7));
	assert_int_equal(hs_policy_solve(ctx, &p, &b, &err), 0);
	assert_int_equal(b.npairs, 2);
	for (int i = 0; i < 2; i++)
		assert_true(a.pairs[i].m == b.pairs[i].m && a.pairs[i].k == b.pairs[i].k);
	hs_alloc_free(&a);
	hs_alloc_free(&b);
	hs_policy_ctx_free(ctx);
	p.cluster.count[0] = 4;
	fx_solve("gandiva", &p, &a);
	assert_int_equal(a.npairs, 0);
	for (int m = 0; m < 4; m++)
		assert_true(NEAR(a.x[m], 1.0));
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* allox on fast:1 (throughput 2), slow:1 (0.5); a needs 100 steps, b 40.
 * Total completion time: a fast + b slow = 50 + 80; b slow... both on fast
 * with b first = 20 + 70 = 90 is best; a on slow alone costs 200. So b
 * starts on fast and a waits for it. Next round (same context) b keeps
 * running even though a shorter job c arrived; c takes the idle slow
 * accelerator ahead of a (20 s vs 200 s there). */
static void allox_hand(void **state)
{
	(void)state;
	const double thr[] = { 2, 0.5, 2, 0.5, 2, 0.5 };
	const double steps[] = { 100, 40, 10 };
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:1", 3, thr, NULL, NULL, steps);
	p.jobs[0].age_s = 2;
	p.jobs[1].age_s = 1;
	p.njobs = 2;
	hs_err_t err;
	hs_policy_ctx_t *ctx = hs_policy_ctx_new("allox", NULL, &err);
	hs_alloc_t a;
	assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), 0);
	const double want[] = { 0, 0, 1, 0 };
	for (int i = 0; i < 4; i++)
		assert_true(a.x[i] == want[i]);
	hs_alloc_free(&a);
	p.njobs = 3;
	assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), 0);
	assert_true(a.x[2] == 1.0); /* b still on fast */
	/* slow is free: c (20 s there) goes before a (200 s) */
	assert_true(a.x[5] == 1.0 && a.x[4] == 0.0 && a.x[0] == 0.0 && a.x[1] == 0.0);
	hs_alloc_free(&a);
	hs_policy_ctx_free(ctx);
	hs_problem_free(&p);
}

/* Space sharing on t:1: a (type A) and b (type B), 1 step/s alone; A
 * with B gets 0.8, B with A 0.7. Unpacked, each gets half: 0.5. Packed,
 * with p the paired time and u b's time alone: thr_a = 0.8 p, thr_b =
 * 0.7 p + u, p + u = 1; equal at u = 1/11: 8/11 each. Makespan (100 steps
 * each): 100 / (8/11) = 137.5 s (unpacked 200). FTF (ages 0): T^iso =
 * 0.5, rho = 0.5 / (8/11) = 11/16. */
static void packed_hand(void **state)
{
	(void)state;
	const double thr[] = { 1, 1 };
	const double pair[] = { 0.5, 0.8, 0.7, 0.5 };
	const double steps[] = { 100, 100 };
	hs_problem_t p;
	fx_problem(&p, "t:1", 2, thr, NULL, NULL, steps);
	fx_jobtypes(&p, 2, pair);
	p.jobs[0].job_type = 0;
	p.jobs[1].job_type = 1;
	hs_alloc_t a;
	fx_solve("max_min_fairness_packed", &p, &a);
	assert_true(NEAR(a.objective, 8.0 / 11.0));
	assert_int_equal(a.npairs, 1);
	assert_true(NEAR(a.pairs[0].x[0], 10.0 / 11.0));
	assert_true(NEAR(a.x[1], 1.0 / 11.0));
	hs_alloc_free(&a);
	fx_solve("min_total_duration_packed", &p, &a);
	assert_true(NEAR(a.objective, 137.5));
	hs_alloc_free(&a);
	fx_solve("finish_time_fairness_packed", &p, &a);
	assert_true(fabs(a.objective - 11.0 / 16.0) < 1e-5);
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* Three jobs of one type on t:1 sharing among themselves at 0.6 each:
 * the shared variable y costs 3/2 y of capacity, so y = 2/3 and thr =
 * 0.4 each (unpacked: 1/3). The pairs form a cycle, 1/3 per edge. */
static void packed_same_type(void **state)
{
	(void)state;
	const double thr[] = { 1, 1, 1 };
	const double pair[] = { 0.6 };
	hs_problem_t p;
	fx_problem(&p, "t:1", 3, thr, NULL, NULL, NULL);
	fx_jobtypes(&p, 1, pair);
	for (int m = 0; m < 3; m++)
		p.jobs[m].job_type = 0;
	hs_alloc_t a;
	fx_solve("max_min_fairness_packed", &p, &a);
	assert_true(NEAR(a.objective, 0.4));
	assert_int_equal(a.npairs, 3);
	for (int i = 0; i < 3; i++)
		assert_true(NEAR(a.pairs[i].x[0], 1.0 / 3.0));
	char why[128];
	assert_true(fx_feasible(&a, &p, why, sizeof(why)));
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

static void empty_and_invalid(void **state)
{
	(void)state;
	hs_problem_t p;
	fx_problem(&p, "fast:1,slow:2", 0, NULL, NULL, NULL, NULL);
	for (int i = 0; i < hs_policy_count(); i++) {
		hs_alloc_t a;
		fx_solve(hs_policy_name(i), &p, &a);
		assert_int_equal(a.njobs, 0);
		assert_true(a.objective == 0.0);
		hs_alloc_free(&a);
	}
	hs_problem_free(&p);
	/* a job that can run nowhere: a clear error, for every policy */
	const double thr[] = { 0, 0 };
	fx_problem(&p, "fast:1,slow:2", 1, thr, NULL, NULL, NULL);
	for (int i = 0; i < hs_policy_count(); i++) {
		hs_err_t err = { "" };
		hs_policy_ctx_t *ctx = hs_policy_ctx_new(hs_policy_name(i), NULL, &err);
		hs_alloc_t a;
		assert_int_equal(hs_policy_solve(ctx, &p, &a, &err), -1);
		assert_non_null(strstr(err.msg, "usable"));
		hs_alloc_free(&a);
		hs_policy_ctx_free(ctx);
	}
	hs_problem_free(&p);
}

/* POP with k partitions: feasible, and never better than the exact LP. */
static void pop_partitions(void **state)
{
	(void)state;
	hs_problem_t p;
	fx_random(&p, 7, 60);
	hs_alloc_t exact, pop;
	fx_solve("max_min_fairness_perf", &p, &exact);
	hs_err_t err;
	hs_policy_opts_t o;
	hs_policy_opts_default(&o);
	o.pop_partitions = 3;
	hs_policy_ctx_t *ctx = hs_policy_ctx_new("max_min_fairness_perf", &o, &err);
	assert_int_equal(hs_policy_solve(ctx, &p, &pop, &err), 0);
	char why[128];
	assert_true(fx_feasible(&pop, &p, why, sizeof(why)));
	assert_true(pop.objective <= exact.objective + 1e-7);
	hs_alloc_free(&exact);
	hs_alloc_free(&pop);
	hs_policy_ctx_free(ctx);
	hs_problem_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry),
		cmocka_unit_test(registry_properties),
		cmocka_unit_test(maxmin_perf_hand),
		cmocka_unit_test(maxmin_perf_weights),
		cmocka_unit_test(maxmin_scale_factors),
		cmocka_unit_test(maxmin_agnostic),
		cmocka_unit_test(maxmin_classes_exact),
		cmocka_unit_test(isolated_hand),
		cmocka_unit_test(makespan_hand),
		cmocka_unit_test(ftf_hand),
		cmocka_unit_test(ftf_split_entities),
		cmocka_unit_test(isolated_shares_tree),
		cmocka_unit_test(throughput_and_cost_hand),
		cmocka_unit_test(water_filling_hand),
		cmocka_unit_test(time_budget_per_solve),
		cmocka_unit_test(hierarchical_hand),
		cmocka_unit_test(fifo_perf_hand),
		cmocka_unit_test(fifo_strict),
		cmocka_unit_test(fifo_sticky),
		cmocka_unit_test(fifo_packed_hand),
		cmocka_unit_test(gandiva_hand),
		cmocka_unit_test(allox_hand),
		cmocka_unit_test(packed_hand),
		cmocka_unit_test(packed_same_type),
		cmocka_unit_test(empty_and_invalid),
		cmocka_unit_test(pop_partitions),
	};
	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
