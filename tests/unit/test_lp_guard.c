/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_lp_guard.c — GLPK internal errors inside hs_lp_solve: built with
 * src/core/lp.c compiled with HS_LP_FAULT_INJECTION, which makes the
 * solve an invalid GLPK call (glp_error). The process must survive with a
 * failed solve, LPs created before the error must fail cleanly instead of
 * touching freed GLPK memory, and new LPs must work again. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/lp.h"

/* maximize 3x + 2y  s.t.  x + y <= 4, x + 3y <= 6, x <= 3: value 11. */
static hs_lp_t *textbook(void)
{
	hs_err_t err;
	hs_lp_t *lp = hs_lp_new(1, &err);
	assert_non_null(lp);
	assert_int_equal(hs_lp_add_cols(lp, 2, &err), 0);
	assert_int_equal(hs_lp_add_rows(lp, 2, &err), 0);
	assert_int_equal(hs_lp_set_obj(lp, 0, 3.0, &err), 0);
	assert_int_equal(hs_lp_set_obj(lp, 1, 2.0, &err), 0);
	assert_int_equal(hs_lp_set_col_bounds(lp, 0, 0.0, 3.0, &err), 0);
	assert_int_equal(hs_lp_set_row_bounds(lp, 0, -INFINITY, 4.0, &err), 0);
	assert_int_equal(hs_lp_set_row_bounds(lp, 1, -INFINITY, 6.0, &err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 0, 0, 1.0, &err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 0, 1, 1.0, &err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 1, 0, 1.0, &err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 1, 1, 3.0, &err), 0);
	return lp;
}

static void glpk_error_is_a_failed_solve(void **state)
{
	(void)state;
	hs_err_t err;
	hs_lp_t *older = textbook();
	assert_int_equal(hs_lp_solve(older, NULL, &err), HS_LP_OPTIMAL);
	hs_lp_t *lp = textbook();
	unsigned long gen = hs_lp_generation();
	hs_lp_inject_glpk_error(lp);
	assert_int_equal(hs_lp_solve(lp, NULL, &err), HS_LP_FAILED);
	assert_non_null(strstr(err.msg, "GLPK internal error"));
	assert_true(hs_lp_generation() != gen);
	/* both LPs died with GLPK's environment: they fail, never crash */
	assert_int_equal(hs_lp_solve(lp, NULL, &err), HS_LP_FAILED);
	assert_int_equal(hs_lp_solve(older, NULL, &err), HS_LP_FAILED);
	assert_non_null(strstr(err.msg, "GLPK internal error"));
	assert_int_equal(hs_lp_add_cols(older, 1, &err), -1);
	assert_int_equal(hs_lp_set_coef(older, 0, 0, 2.0, &err), -1);
	assert_true(hs_lp_col_value(older, 0) == 0.0);
	hs_lp_free(lp);
	hs_lp_free(older);
	/* GLPK works again with a fresh environment */
	lp = textbook();
	assert_int_equal(hs_lp_solve(lp, NULL, &err), HS_LP_OPTIMAL);
	assert_true(fabs(hs_lp_obj_value(lp) - 11.0) < 1e-7);
	hs_lp_free(lp);
}

static double stopped_clock(void *arg)
{
	return *(double *)arg;
}

/* A shared budget: a solve that starts after the deadline fails at once;
 * one before it runs. */
static void budget_deadline(void **state)
{
	(void)state;
	hs_err_t err;
	double now = 100.0;
	hs_lp_budget_t b = { .deadline = 101.0, .limit_s = 1.0, .clock = stopped_clock,
			     .clock_arg = &now };
	hs_lp_opts_t o;
	hs_lp_opts_default(&o);
	o.budget = &b;
	hs_lp_t *lp = textbook();
	assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_OPTIMAL);
	now = 101.0;
	assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_FAILED);
	assert_non_null(strstr(err.msg, "time budget"));
	o.method = HS_LP_INTERIOR;
	assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_FAILED);
	hs_lp_free(lp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(glpk_error_is_a_failed_solve),
		cmocka_unit_test(budget_deadline),
	};
	return cmocka_run_group_tests_name("lp_guard", tests, NULL, NULL);
}
