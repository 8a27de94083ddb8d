/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_policy_props.c — property tests on seeded random instances
 * (policy_fixtures.h): every policy's allocation is feasible; the
 * heterogeneity-aware variant is at least as good as the agnostic one on
 * the aware objective; LP optima are no worse than the isolated
 * allocation (which is feasible for them); exact class aggregation gives
 * the per-job optimum. HS_PROP_SEEDS overrides the number of instances. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/policy_impl.h"
#include "tests/unit/policy_fixtures.h"
#include "tests/unit/testdata.h"

#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/* 150 instances natively; 20 under valgrind, which is ~50x slower (the
 * memory checks matter there, not the number of instances). */
static int nseeds(void)
{
	const char *s = getenv("HS_PROP_SEEDS");
	int n = s ? atoi(s) : 0;
	return n > 0 ? n : RUNNING_ON_VALGRIND ? 20 : 150;
}

static void every_allocation_feasible(void **state)
{
	(void)state;
	for (int seed = 1; seed <= nseeds(); seed++) {
		hs_problem_t p;
		fx_random(&p, (unsigned long long)seed, 30);
		for (int i = 0; i < hs_policy_count(); i++) {
			hs_alloc_t a;
			fx_solve(hs_policy_name(i), &p, &a);
			char why[160];
			if (!fx_feasible(&a, &p, why, sizeof(why)))
				fail_msg("seed %d, %s: %s", seed, hs_policy_name(i), why);
			if (!isfinite(a.objective))
				fail_msg("seed %d, %s: objective %g", seed, hs_policy_name(i), a.objective);
			hs_alloc_free(&a);
		}
		hs_problem_free(&p);
	}
}

static void maxmin_aware_beats_agnostic_and_isolated(void **state)
{
	(void)state;
	hs_policy_desc_t aware = { .name = "aware", .aware = 1 };
	for (int seed = 1; seed <= nseeds(); seed++) {
		hs_problem_t p;
		fx_random(&p, (unsigned long long)seed, 30);
		double *cap = malloc(sizeof(double) * (size_t)p.cluster.ntypes);
		for (int j = 0; j < p.cluster.ntypes; j++)
			cap[j] = p.cluster.count[j];
		hs_alloc_t perf, agn, iso;
		fx_solve("max_min_fairness_perf", &p, &perf);
		fx_solve("max_min_fairness", &p, &agn);
		fx_solve("isolated", &p, &iso);
		double vp = perf.objective;
		double va = hs_maxmin_value(&aware, &p, cap, &agn);
		double vi = hs_maxmin_value(&aware, &p, cap, &iso);
		if (vp < va - 1e-6 * (1 + va))
			fail_msg("seed %d: aware %.9g < agnostic %.9g", seed, vp, va);
		if (vp < vi - 1e-6 * (1 + vi))
			fail_msg("seed %d: aware %.9g < isolated %.9g", seed, vp, vi);
		/* and the agnostic LP is optimal for its own objective */
		hs_policy_desc_t agnostic = { .name = "agnostic", .aware = 0 };
		double aa = hs_maxmin_value(&agnostic, &p, cap, &agn);
		double ai = hs_maxmin_value(&agnostic, &p, cap, &iso);
		if (aa < ai - 1e-6 * (1 + ai))
			fail_msg("seed %d: agnostic LP %.9g < isolated %.9g", seed, aa, ai);
		hs_alloc_free(&perf);
		hs_alloc_free(&agn);
		hs_alloc_free(&iso);
		free(cap);
		hs_problem_free(&p);
	}
}

static void classes_match_per_job_lp(void **state)
{
	(void)state;
	const char *pols[] = { "max_min_fairness", "max_min_fairness_perf", "min_total_duration_perf",
			       "finish_time_fairness_perf", "max_sum_throughput_perf", "min_cost_slo" };
	for (int seed = 1; seed <= nseeds(); seed++) {
		hs_problem_t p;
		fx_random(&p, (unsigned long long)seed, 40);
		for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
			double v[2];
			for (int nc = 0; nc < 2; nc++) {
				hs_err_t err;
				hs_policy_ctx_t *ctx = hs_policy_ctx_new(pols[i], NULL, &err);
				ctx->no_classes = nc;
				hs_alloc_t a;
				if (hs_policy_solve(ctx, &p, &a, &err) < 0)
					fail_msg("seed %d: %s", seed, err.msg);
				v[nc] = a.objective;
				hs_alloc_free(&a);
				hs_policy_ctx_free(ctx);
			}
			if (fabs(v[0] - v[1]) > 1e-6 * (1 + fabs(v[1])))
				fail_msg("seed %d, %s: classes %.9g vs per job %.9g", seed, pols[i], v[0], v[1]);
		}
		hs_problem_free(&p);
	}
}

/* The active-set method of alloc_lp.c (folding most jobs into the
 * capacity rows) must reach the optimum of the full LP. Instances of
 * 500-900 distinct jobs, above the size where folding starts. */
static void active_set_is_exact(void **state)
{
	(void)state;
	const char *pols[] = { "max_min_fairness_perf", "min_total_duration_perf",
			       "min_total_duration", "finish_time_fairness_perf",
			       "finish_time_fairness", "max_sum_throughput_perf", "min_cost" };
	int n = nseeds() / 30 + 2;
	for (int seed = 1; seed <= n; seed++) {
		hs_problem_t p;
		fx_random_n(&p, (unsigned long long)seed + 1000, 0, 500 + 100 * (seed % 5));
		for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
			double v[2];
			for (int full = 0; full < 2; full++) {
				hs_err_t err;
				hs_policy_ctx_t *ctx = hs_policy_ctx_new(pols[i], NULL, &err);
				ctx->no_classes = 1;
				ctx->no_active_set = full;
				hs_alloc_t a;
				if (hs_policy_solve(ctx, &p, &a, &err) < 0)
					fail_msg("seed %d, %s: %s", seed, pols[i], err.msg);
				char why[160];
				if (!fx_feasible(&a, &p, why, sizeof(why)))
					fail_msg("seed %d, %s (full %d): %s", seed, pols[i], full, why);
				v[full] = a.objective;
				if (!strcmp(pols[i], "min_total_duration")) {
					/* its LP optimum is not unique in real throughputs:
					 * compare the LP's own value, max_m R_m / time share */
					v[full] = 0.0;
					for (int m = 0; m < p.njobs; m++) {
						double sh = 0.0;
						for (int j = 0; j < p.cluster.ntypes; j++)
							sh += a.x[m * p.cluster.ntypes + j];
						double t = p.jobs[m].remaining_steps / sh;
						v[full] = t > v[full] ? t : v[full];
					}
				}
				hs_alloc_free(&a);
				hs_policy_ctx_free(ctx);
			}
			if (fabs(v[0] - v[1]) > 1e-6 * (1 + fabs(v[1])))
				fail_msg("seed %d, %s: active set %.10g vs full LP %.10g", seed, pols[i],
					 v[0], v[1]);
		}
		hs_problem_free(&p);
	}
}

/* Without entities, water filling's first level is the max-min optimum. */
static void water_filling_first_level(void **state)
{
	(void)state;
	const char *pairs[][2] = { { "max_min_fairness_perf", "max_min_fairness_water_filling_perf" },
				   { "max_min_fairness", "max_min_fairness_water_filling" } };
	for (int seed = 1; seed <= nseeds() / 3; seed++) {
		hs_problem_t p;
		fx_random(&p, (unsigned long long)seed + 500, 20);
		for (int i = 0; i < 2; i++) {
			hs_alloc_t a, b;
			fx_solve(pairs[i][0], &p, &a);
			fx_solve(pairs[i][1], &p, &b);
			if (fabs(a.objective - b.objective) > 1e-6 * (1 + a.objective))
				fail_msg("seed %d: %s %.9g vs %s %.9g", seed, pairs[i][0], a.objective,
					 pairs[i][1], b.objective);
			hs_alloc_free(&a);
			hs_alloc_free(&b);
		}
		hs_problem_free(&p);
	}
}

/* Per-job water level of an allocation: r_m = sum_j a_mj x_mj with the
 * max-min coefficients times the weight (policy_hierarchical.c's rows). */
static void wf_levels(const char *pol, const hs_problem_t *p, const hs_alloc_t *a, double *r)
{
	hs_policy_desc_t d = { .name = pol, .aware = strstr(pol, "_perf") != NULL };
	double *cap = malloc(sizeof(double) * (size_t)p->cluster.ntypes);
	for (int j = 0; j < p->cluster.ntypes; j++)
		cap[j] = p->cluster.count[j];
	for (int m = 0; m < p->njobs; m++) {
		r[m] = 0.0;
		for (int j = 0; j < p->cluster.ntypes; j++)
			r[m] += hs_maxmin_coef(&d, p, cap, m, j) * p->jobs[m].weight *
				a->x[(size_t)m * p->cluster.ntypes + j];
	}
	free(cap);
}

/* Adds two entities (one fair-share, one FIFO) owning a third of the
 * jobs each, so water filling has hierarchical weights too. */
static void add_entities(hs_problem_t *p)
{
	p->entities.n = 2;
	p->entities.names = calloc(2, sizeof(char *));
	p->entities.weight = calloc(2, sizeof(double));
	p->entities.mode = calloc(2, sizeof(hs_entity_mode_t));
	p->entities.names[0] = strdup("fair");
	p->entities.names[1] = strdup("queue");
	p->entities.weight[0] = 2.0;
	p->entities.weight[1] = 1.0;
	p->entities.mode[0] = HS_ENTITY_FAIRNESS;
	p->entities.mode[1] = HS_ENTITY_FIFO;
	for (int m = 0; m < p->njobs; m++)
		p->jobs[m].entity = m % 3 == 2 ? -1 : m % 3;
}

/* Water filling on the allocation LP (dual freezing, active set) must give
 * every job the same level as the full LP with its LP2/LP3 certificates:
 * the water-filling levels are unique. Small instances with classes and
 * entities (many levels), and distinct-job instances above the size where
 * the active set folds jobs. */
static void water_filling_fast_matches_full(void **state)
{
	(void)state;
	const char *pols[] = { "max_min_fairness_water_filling_perf", "max_min_fairness_water_filling" };
	int nbig = RUNNING_ON_VALGRIND ? 2 : 4, folded = 0;
	const int nsmall = nseeds() / 10;
	for (int seed = 1; seed <= nsmall + nbig; seed++) {
		int big = seed > nsmall;
		hs_problem_t p;
		if (big)
			fx_random_n(&p, (unsigned long long)seed + 3000, 0, 60 + 10 * (seed % 4));
		else
			fx_random(&p, (unsigned long long)seed + 2000, 40);
		/* entities (fairness and fifo): many levels, weights that
		 * change as jobs freeze */
		if (seed % 2)
			add_entities(&p);
		double *r[2];
		for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
			for (int full = 0; full < 2; full++) {
				hs_err_t err;
				hs_policy_ctx_t *ctx = hs_policy_ctx_new(pols[i], NULL, &err);
				ctx->no_classes = big;
				ctx->no_active_set = full;
				/* fold from 30 items: the active set on small LPs */
				ctx->active_min_items = big ? 30 : 0;
				hs_alloc_t a;
				if (hs_policy_solve(ctx, &p, &a, &err) < 0)
					fail_msg("seed %d, %s (full %d): %s", seed, pols[i], full, err.msg);
				folded += !full && ctx->last_lp_items < ctx->last_items;
				char why[160];
				if (!fx_feasible(&a, &p, why, sizeof(why)))
					fail_msg("seed %d, %s (full %d): %s", seed, pols[i], full, why);
				r[full] = malloc(sizeof(double) * (size_t)p.njobs);
				wf_levels(pols[i], &p, &a, r[full]);
				hs_alloc_free(&a);
				hs_policy_ctx_free(ctx);
			}
			for (int m = 0; m < p.njobs; m++)
				if (fabs(r[0][m] - r[1][m]) > 1e-5 * (1 + fabs(r[1][m])))
					fail_msg("seed %d, %s, job %d of %d: level %.9g (fast) vs %.9g (full LP)",
						 seed, pols[i], m, p.njobs, r[0][m], r[1][m]);
			free(r[0]);
			free(r[1]);
		}
		hs_problem_free(&p);
	}
	/* the comparison covered folded (active-set) solves */
	assert_true(folded > 0);
}

/* Random small degenerate instances like test_policy's hierarchical_hand
 * (one type, every throughput 1, a fair-share and a FIFO entity with
 * random weights, some jobs in neither): the jobs stuck at a level have
 * zero duals there, and freezing changes the weights. The fast path must
 * give every job the full-LP method's level. */
static void water_filling_entities_degenerate(void **state)
{
	(void)state;
	unsigned long long s = 77;
	int n = RUNNING_ON_VALGRIND ? 5 : 60;
	for (int seed = 1; seed <= n; seed++) {
		int M = 3 + (int)(fx_rand(&s) * 8);
		double thr[12], w[12];
		char cl[16];
		snprintf(cl, sizeof(cl), "t:%d", 2 + (int)(fx_rand(&s) * 4));
		for (int m = 0; m < M; m++) {
			thr[m] = 1.0;
			w[m] = 1.0 + (int)(fx_rand(&s) * 3);
		}
		hs_problem_t p;
		fx_problem(&p, cl, M, thr, NULL, w, NULL);
		p.entities.n = 2;
		p.entities.names = calloc(2, sizeof(char *));
		p.entities.weight = calloc(2, sizeof(double));
		p.entities.mode = calloc(2, sizeof(hs_entity_mode_t));
		p.entities.names[0] = strdup("A");
		p.entities.names[1] = strdup("B");
		p.entities.weight[0] = 1.0 + (int)(fx_rand(&s) * 2);
		p.entities.weight[1] = 1.0 + (int)(fx_rand(&s) * 2);
		p.entities.mode[1] = HS_ENTITY_FIFO;
		for (int m = 0; m < M; m++) {
			p.jobs[m].entity = (int)(fx_rand(&s) * 3) - 1;
			p.jobs[m].age_s = 10.0 * m + 5.0 * fx_rand(&s);
		}
		const char *pol = "max_min_fairness_water_filling_perf";
		double r[2][12];
		for (int full = 0; full < 2; full++) {
			hs_err_t err;
			hs_policy_ctx_t *ctx = hs_policy_ctx_new(pol, NULL, &err);
			ctx->no_active_set = full;
			hs_alloc_t a;
			if (hs_policy_solve(ctx, &p, &a, &err) < 0)
				fail_msg("seed %d (full %d): %s", seed, full, err.msg);
			wf_levels(pol, &p, &a, r[full]);
			hs_alloc_free(&a);
			hs_policy_ctx_free(ctx);
		}
		for (int m = 0; m < M; m++)
			if (fabs(r[0][m] - r[1][m]) > 1e-6 * (1 + fabs(r[1][m])))
				fail_msg("seed %d, %s, job %d of %d: level %.9g (fast) vs %.9g (full LP)", seed,
					 cl, m, M, r[0][m], r[1][m]);
		hs_problem_free(&p);
	}
}

/* Realistic instances from Gavel's table: every policy feasible (pairs
 * included); space sharing never worse than the same policy without it
 * (max-min value >= unpacked, makespan and FTF rho <= unpacked); column
 * generation gives the optimum of the LP with all partner columns. With
 * per-job noise (distinct jobs) and without (classes). */
static void gavel_packed_never_worse(void **state)
{
	(void)state;
	char path[4096];
	if (hs_test_gavel_path(path, sizeof(path), "simulation_throughputs.json") < 0)
		skip();
	hs_thrtable_t t;
	hs_err_t err;
	if (hs_thrtable_load(&t, path, &err) < 0)
		fail_msg("%s", err.msg);
	const char *cmp[][2] = { { "max_min_fairness_packed", "max_min_fairness_perf" },
				 { "min_total_duration_packed", "min_total_duration_perf" },
				 { "finish_time_fairness_packed", "finish_time_fairness_perf" } };
	int n = nseeds() / 10 + 2;
	for (int seed = 1; seed <= n; seed++) {
		hs_problem_t p;
		fx_gavel(&p, &t, seed % 2 ? "v100:4,p100:4,k80:4" : "v100:8,p100:2,k80:6",
			 (unsigned long long)seed, 8 + 7 * seed, seed % 3 ? 0.1 : 0.0);
		for (int i = 0; i < hs_policy_count(); i++) {
			hs_alloc_t a;
			fx_solve(hs_policy_name(i), &p, &a);
			char why[160];
			if (!fx_feasible(&a, &p, why, sizeof(why)))
				fail_msg("seed %d, %s: %s", seed, hs_policy_name(i), why);
			hs_alloc_free(&a);
		}
		for (int i = 0; i < 3; i++) {
			/* column generation reaches the LP with every partner column */
			double v[2];
			for (int full = 0; full < 2; full++) {
				hs_policy_ctx_t *ctx = hs_policy_ctx_new(cmp[i][0], NULL, &err);
				ctx->no_active_set = full;
				hs_alloc_t a;
				if (hs_policy_solve(ctx, &p, &a, &err) < 0)
					fail_msg("seed %d, %s: %s", seed, cmp[i][0], err.msg);
				v[full] = a.objective;
				hs_alloc_free(&a);
				hs_policy_ctx_free(ctx);
			}
			if (fabs(v[0] - v[1]) > 1e-6 * (1 + fabs(v[1])))
				fail_msg("seed %d, %s: column generation %.10g vs all columns %.10g", seed,
					 cmp[i][0], v[0], v[1]);
			hs_alloc_t pk, un;
			fx_solve(cmp[i][0], &p, &pk);
			fx_solve(cmp[i][1], &p, &un);
			double tol = 1e-6 * (1 + fabs(un.objective));
			int worse = i == 0 ? pk.objective < un.objective - tol : pk.objective > un.objective + tol;
			if (worse)
				fail_msg("seed %d: %s %.9g worse than %s %.9g", seed, cmp[i][0], pk.objective,
					 cmp[i][1], un.objective);
			hs_alloc_free(&pk);
			hs_alloc_free(&un);
		}
		hs_problem_free(&p);
	}
	hs_thrtable_free(&t);
}

/* Packed max-min starts from a basis built from the unpacked
 * solution (policy_packed.c, warm_start): on Gavel instances of 50-200
 * jobs, distinct (noise) and in classes, with folding forced on, the
 * objective equals the cold start's (the previous method) and the
 * allocation is feasible; the warm basis must actually have been used. */
static void packed_warm_start_matches_cold(void **state)
{
	(void)state;
	char path[4096];
	if (hs_test_gavel_path(path, sizeof(path), "simulation_throughputs.json") < 0)
		skip();
	hs_thrtable_t t;
	hs_err_t err;
	if (hs_thrtable_load(&t, path, &err) < 0)
		fail_msg("%s", err.msg);
	const char *pols[] = { "max_min_fairness_packed" };
	int n = RUNNING_ON_VALGRIND ? 2 : 8, warm = 0;
	for (int seed = 1; seed <= n; seed++) {
		hs_problem_t p;
		int M = 50 + 150 * (seed - 1) / (n > 1 ? n - 1 : 1);
		char spec[96];
		snprintf(spec, sizeof(spec), "v100:%d,p100:%d,k80:%d", M / 6, M / 8 + 1, M / 5);
		fx_gavel(&p, &t, spec, (unsigned long long)seed + 4000, M, seed % 3 ? 0.1 : 0.0);
		for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
			double v[2];
			for (int cold = 0; cold < 2; cold++) {
				hs_policy_ctx_t *ctx = hs_policy_ctx_new(pols[i], NULL, &err);
				ctx->no_warm_start = cold;
				ctx->active_min_items = 30;
				hs_alloc_t a;
				if (hs_policy_solve(ctx, &p, &a, &err) < 0)
					fail_msg("seed %d, %s (cold %d): %s", seed, pols[i], cold, err.msg);
				char why[160];
				if (!fx_feasible(&a, &p, why, sizeof(why)))
					fail_msg("seed %d, %s (cold %d): %s", seed, pols[i], cold, why);
				if (cold)
					assert_false(ctx->last_warm_start);
				else
					warm += ctx->last_warm_start;
				v[cold] = a.objective;
				hs_alloc_free(&a);
				hs_policy_ctx_free(ctx);
			}
			if (fabs(v[0] - v[1]) > 1e-6 * (1 + fabs(v[1])))
				fail_msg("seed %d, %d jobs, %s: warm start %.10g vs cold %.10g", seed, M, pols[i],
					 v[0], v[1]);
		}
		hs_problem_free(&p);
	}
	hs_thrtable_free(&t);
	/* most solves started from the built basis (a rejected one is legal) */
	assert_true(warm >= n);
}

/* Largest difference between two allocations' time fractions (alone;
 * these instances have no job types, so no pairs). */
static double alloc_diff(const hs_alloc_t *a, const hs_alloc_t *b)
{
	double d = 0.0;
	for (int i = 0; i < a->njobs * a->ntypes; i++)
		d = fmax(d, fabs(a->x[i] - b->x[i]));
	return d;
}

/* hs_policy_is_scale_free is a claim about the solver, checked here: for
 * a scale-free policy, one job's throughputs on every type doubled (with
 * every job of the same row, so that classes stay as they were) leave
 * the allocation as it was; for every other policy some instance's
 * allocation moves, so a policy wrongly marked either way fails. Doubling
 * is exact in floating point, so the normalized coefficients of a
 * scale-free policy are bit for bit the same. */
static void scale_free_claims(void **state)
{
	(void)state;
	/* 40 instances (10 under valgrind) move every other policy's
	 * allocation: AlloX's, the last, from the fifth on (two solves per
	 * policy and instance) */
	const int cap = RUNNING_ON_VALGRIND ? 10 : 40;
	const int seeds = nseeds() < cap ? nseeds() : cap;
	for (int i = 0; i < hs_policy_count(); i++) {
		const char *n = hs_policy_name(i);
		int free_ = hs_policy_is_scale_free(n), moved = 0;
		for (int seed = 1; seed <= seeds; seed++) {
			hs_problem_t p;
			fx_random(&p, (unsigned long long)seed, 30);
			hs_alloc_t a, b;
			fx_solve(n, &p, &a);
			const int J = p.cluster.ntypes;
			double *row = malloc((size_t)J * sizeof(double));
			assert_non_null(row);
			memcpy(row, p.jobs[0].thr, (size_t)J * sizeof(double));
			for (int m = 0; m < p.njobs; m++)
				if (!memcmp(p.jobs[m].thr, row, (size_t)J * sizeof(double)))
					for (int j = 0; j < J; j++)
						p.jobs[m].thr[j] *= 2.0;
			free(row);
			fx_solve(n, &p, &b);
			double d = alloc_diff(&a, &b);
			if (free_ && d > 1e-9)
				fail_msg("seed %d, %s: marked scale-free, allocation moved by %g", seed, n, d);
			moved |= d > 1e-6;
			hs_alloc_free(&a);
			hs_alloc_free(&b);
			hs_problem_free(&p);
		}
		if (!free_ && !moved)
			fail_msg("%s: not marked scale-free, no allocation moved in %d instances", n, seeds);
	}
	assert_false(hs_policy_is_scale_free("no_such_policy"));
	assert_false(hs_policy_is_scale_free(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_allocation_feasible),
		cmocka_unit_test(maxmin_aware_beats_agnostic_and_isolated),
		cmocka_unit_test(classes_match_per_job_lp),
		cmocka_unit_test(active_set_is_exact),
		cmocka_unit_test(water_filling_first_level),
		cmocka_unit_test(water_filling_fast_matches_full),
		cmocka_unit_test(water_filling_entities_degenerate),
		cmocka_unit_test(gavel_packed_never_worse),
		cmocka_unit_test(packed_warm_start_matches_cold),
		cmocka_unit_test(scale_free_claims),
	};
	return cmocka_run_group_tests_name("policy_props", tests, NULL, NULL);
}
