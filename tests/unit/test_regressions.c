/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_regressions.c — problems captured from simulations where a policy
 * once failed (`hetsched simulate --save-failed`), replayed through the
 * policy engine. Data files are in tests/unit/data/ with job types instead
 * of throughputs, which come from Gavel's table (the test skips without it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/policy_impl.h"
#include "core/problem_json.h"
#include "tests/unit/testdata.h"

/* Loads tests/unit/data/NAME with Gavel's table; skips without the table. */
static void load(hs_problem_t *p, const char *name)
{
	char table_path[4096], path[4096];
	if (hs_test_gavel_path(table_path, sizeof(table_path), "simulation_throughputs.json") < 0)
		skip();
	const char *src = getenv("HS_SRCDIR");
	snprintf(path, sizeof(path), "%s/tests/unit/data/%s", src ? src : ".", name);
	hs_thrtable_t t;
	hs_err_t err = { "" };
	if (hs_thrtable_load(&t, table_path, &err) < 0)
		fail_msg("%s", err.msg);
	int rc = hs_problem_load_json(p, path, &t, &err);
	hs_thrtable_free(&t);
	if (rc < 0)
		fail_msg("%s: %s", path, err.msg);
}

/* Solves p under policy with the given LP options; returns the objective. */
static double solve(const hs_problem_t *p, const char *policy, const hs_lp_opts_t *lo)
{
	hs_err_t err = { "" };
	hs_policy_ctx_t *ctx = hs_policy_ctx_new(policy, NULL, &err);
	assert_non_null(ctx);
	ctx->lp_opts = *lo;
	hs_alloc_t a;
	int rc = hs_policy_solve(ctx, p, &a, &err);
	if (rc < 0)
		fail_msg("%s (method %d, scale %d): %s", policy, lo->method, lo->scale, err.msg);
	double obj = a.objective;
	hs_alloc_free(&a);
	hs_policy_ctx_free(ctx);
	return obj;
}

/* finish_time_fairness_perf, 346 multi-GPU jobs at t = 15,006,600 s of
 * `simulate --policy finish_time_fairness_perf --generate --multi-gpu
 * --rate 3 --window 4000:5000 --seed 1` on v100:36,p100:36,k80:36. With
 * GLPK's inexact automatic scaling, the dual simplex failed on its first
 * LP ("tcol[p] = 0.0", glp_simplex code 5) from any starting basis, so
 * retrying the same method from the standard basis could not help. Fixed
 * twice over: exact (power-of-two) scaling avoids the failure, and the
 * wrapper's retry switches to the primal simplex. Every combination must
 * solve, to the same optimum. */
static void ftf_glpk_efail(void **state)
{
	(void)state;
	hs_problem_t p;
	load(&p, "ftf_efail.json");
	assert_int_equal(p.njobs, 346);
	hs_lp_opts_t lo;
	hs_lp_opts_default(&lo);
	double ref = solve(&p, "finish_time_fairness_perf", &lo);
	/* the isolated allocation achieves rho = 1 for every job */
	assert_true(ref > 0.0 && ref <= 1.0 + 1e-9);
	const hs_lp_method_t methods[] = { HS_LP_AUTO, HS_LP_DUAL, HS_LP_PRIMAL };
	const hs_lp_scale_t scales[] = { HS_LP_SCALE_EXACT, HS_LP_SCALE_GLPK_AUTO,
					 HS_LP_SCALE_NONE };
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		for (size_t k = 0; k < sizeof(scales) / sizeof(scales[0]); k++) {
			lo.method = methods[i];
			lo.scale = scales[k];
			double v = solve(&p, "finish_time_fairness_perf", &lo);
			if (fabs(v - ref) > 1e-6 * ref)
				fail_msg("method %d scale %d: rho %.9g, default %.9g", lo.method,
					 lo.scale, v, ref);
		}
	hs_problem_free(&p);
}

/* max_min_fairness_water_filling, 80 multi-GPU jobs (fewer GPUs asked
 * than the cluster's 108: everyone can run full time, level 1) from
 * `simulate --policy max_min_fairness_water_filling --generate --multi-gpu
 * --rate 3 --window 100:300 --seed 1`, where 4 solves failed. With GLPK's
 * inexact automatic scaling the dual simplex declared one of the
 * water-filling LPs infeasible (it is feasible by construction: frozen
 * jobs keep levels an earlier LP achieved); the primal simplex, or no
 * scaling, or exact scaling solve it. Both variants must solve under
 * every method with exact scaling and without scaling, to one optimum. */
static void water_filling_infeasible(void **state)
{
	(void)state;
	hs_problem_t p;
	load(&p, "wf_infeasible.json");
	assert_int_equal(p.njobs, 80);
	const char *pols[] = { "max_min_fairness_water_filling",
			       "max_min_fairness_water_filling_perf" };
	const hs_lp_method_t methods[] = { HS_LP_AUTO, HS_LP_DUAL, HS_LP_PRIMAL };
	const hs_lp_scale_t scales[] = { HS_LP_SCALE_EXACT, HS_LP_SCALE_NONE };
	for (size_t q = 0; q < sizeof(pols) / sizeof(pols[0]); q++) {
		hs_lp_opts_t lo;
		hs_lp_opts_default(&lo);
		double ref = solve(&p, pols[q], &lo);
		if (q == 0)
			assert_true(fabs(ref - 1.0) < 1e-9); /* all fit: level 1 */
		for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
			for (size_t k = 0; k < sizeof(scales) / sizeof(scales[0]); k++) {
				lo.method = methods[i];
				lo.scale = scales[k];
				double v = solve(&p, pols[q], &lo);
				if (fabs(v - ref) > 1e-6 * ref)
					fail_msg("%s method %d scale %d: %.9g, default %.9g", pols[q],
						 lo.method, lo.scale, v, ref);
			}
	}
	hs_problem_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ftf_glpk_efail),
		cmocka_unit_test(water_filling_infeasible),
	};
	return cmocka_run_group_tests_name("regressions", tests, NULL, NULL);
}
