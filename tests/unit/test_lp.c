/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_lp.c — the GLPK wrapper: small LPs with known optima, infeasible
 * and unbounded ones, duplicate-coefficient merging, coefficient and bound
 * changes re-solved from the previous basis, every method, and argument
 * checks that must fail cleanly instead of aborting inside GLPK. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/lp.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-7)

/* maximize 3x + 2y  s.t.  x + y <= 4, x + 3y <= 6, x <= 3: optimum
 * x = 3, y = 1, value 11. */
static hs_lp_t *textbook(hs_err_t *err)
{
	hs_lp_t *lp = hs_lp_new(1, err);
	assert_non_null(lp);
	assert_int_equal(hs_lp_add_cols(lp, 2, err), 0);
	assert_int_equal(hs_lp_add_rows(lp, 2, err), 0);
	assert_int_equal(hs_lp_set_obj(lp, 0, 3.0, err), 0);
	assert_int_equal(hs_lp_set_obj(lp, 1, 2.0, err), 0);
	assert_int_equal(hs_lp_set_col_bounds(lp, 0, 0.0, 3.0, err), 0);
	assert_int_equal(hs_lp_set_row_bounds(lp, 0, -INFINITY, 4.0, err), 0);
	assert_int_equal(hs_lp_set_row_bounds(lp, 1, -INFINITY, 6.0, err), 0);
	/* x + y split into duplicate entries: the wrapper must sum them */
	assert_int_equal(hs_lp_add_coef(lp, 0, 0, 0.5, err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 0, 0, 0.5, err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 0, 1, 1.0, err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 1, 0, 1.0, err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 1, 1, 3.0, err), 0);
	return lp;
}

static void solve_textbook_all_methods(void **state)
{
	(void)state;
	hs_lp_method_t methods[] = { HS_LP_PRIMAL, HS_LP_DUAL, HS_LP_INTERIOR };
	for (int presolve = 0; presolve < 2; presolve++)
		for (size_t i = 0; i < 3; i++) {
			hs_err_t err = { "" };
			hs_lp_t *lp = textbook(&err);
			hs_lp_opts_t o;
			hs_lp_opts_default(&o);
			o.method = methods[i];
			o.presolve = presolve;
			assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_OPTIMAL);
			assert_true(NEAR(hs_lp_obj_value(lp), 11.0));
			assert_true(NEAR(hs_lp_col_value(lp, 0), 3.0));
			assert_true(NEAR(hs_lp_col_value(lp, 1), 1.0));
			hs_lp_free(lp);
		}
}

/* An iteration limit stops the simplex with HS_LP_ITLIM (no answer, the
 * same count on every machine); the same LP without it is solved, and
 * from where the limit left it. The textbook LP takes two iterations
 * from the all-slack basis. */
static void iteration_limit(void **state)
{
	(void)state;
	hs_lp_method_t methods[] = { HS_LP_PRIMAL, HS_LP_DUAL };
	for (size_t i = 0; i < 2; i++) {
		hs_err_t err = { "" };
		hs_lp_t *lp = textbook(&err);
		hs_lp_opts_t o;
		hs_lp_opts_default(&o);
		o.method = methods[i];
		o.iter_limit = 1;
		assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_ITLIM);
		assert_non_null(strstr(err.msg, "iteration limit"));
		o.iter_limit = 0;
		assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_OPTIMAL);
		assert_true(NEAR(hs_lp_obj_value(lp), 11.0));
		hs_lp_free(lp);
	}
}

static void warm_resolve_after_changes(void **state)
{
	(void)state;
	hs_err_t err = { "" };
	hs_lp_t *lp = textbook(&err);
	hs_lp_opts_t o;
	hs_lp_opts_default(&o);
	assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_OPTIMAL);
	/* x <= 2 now: optimum x = 2, y = 4/3 (x + 3y = 6 binds), value 10.667 */
	assert_int_equal(hs_lp_set_col_bounds(lp, 0, 0.0, 2.0, &err), 0);
	assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_OPTIMAL);
	assert_true(NEAR(hs_lp_obj_value(lp), 6.0 + 8.0 / 3.0));
	/* row 1 becomes x + y <= 6 (coefficient change): optimum x = 2,
	 * y = 2 (row 0 binds), value 10 */
	assert_int_equal(hs_lp_set_coef(lp, 1, 1, 1.0, &err), 0);
	assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_OPTIMAL);
	assert_true(NEAR(hs_lp_obj_value(lp), 10.0));
	/* a new row added after loading, built from coefficients: y <= 0.5 */
	assert_int_equal(hs_lp_add_rows(lp, 1, &err), 2);
	assert_int_equal(hs_lp_add_coef(lp, 2, 1, 0.25, &err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 2, 1, 0.75, &err), 0);
	assert_int_equal(hs_lp_set_row_bounds(lp, 2, -INFINITY, 0.5, &err), 0);
	assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_OPTIMAL);
	assert_true(NEAR(hs_lp_obj_value(lp), 7.0));
	/* a coefficient set to zero disappears: y's entry in row 2 */
	assert_int_equal(hs_lp_set_coef(lp, 2, 1, 0.0, &err), 0);
	assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_OPTIMAL);
	assert_true(NEAR(hs_lp_obj_value(lp), 10.0));
	assert_true(hs_lp_iterations(lp) > 0);
	hs_lp_free(lp);
}

static void infeasible_and_unbounded(void **state)
{
	(void)state;
	for (int presolve = 0; presolve < 2; presolve++) {
		hs_err_t err = { "" };
		hs_lp_t *lp = textbook(&err);
		hs_lp_opts_t o;
		hs_lp_opts_default(&o);
		o.presolve = presolve;
		/* x + 3y >= 20 with x <= 3, x + y <= 4: impossible */
		assert_int_equal(hs_lp_set_row_bounds(lp, 1, 20.0, INFINITY, &err), 0);
		assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_INFEASIBLE);
		hs_lp_free(lp);
	}
	hs_err_t err = { "" };
	hs_lp_t *lp = hs_lp_new(1, &err);
	assert_int_equal(hs_lp_add_cols(lp, 1, &err), 0);
	assert_int_equal(hs_lp_add_rows(lp, 1, &err), 0);
	assert_int_equal(hs_lp_set_obj(lp, 0, 1.0, &err), 0);
	assert_int_equal(hs_lp_add_coef(lp, 0, 0, 1.0, &err), 0);
	assert_int_equal(hs_lp_set_row_bounds(lp, 0, 1.0, INFINITY, &err), 0);
	hs_lp_opts_t o;
	hs_lp_opts_default(&o);
	o.method = HS_LP_PRIMAL;
	assert_int_equal(hs_lp_solve(lp, &o, &err), HS_LP_UNBOUNDED);
	hs_lp_free(lp);
}

static void bad_arguments_fail_cleanly(void **state)
{
	(void)state;
	hs_err_t err = { "" };
	hs_lp_t *lp = hs_lp_new(0, &err);
	assert_int_equal(hs_lp_solve(lp, NULL, &err), HS_LP_FAILED); /* no columns */
	assert_int_equal(hs_lp_add_cols(lp, 2, &err), 0);
	assert_int_equal(hs_lp_add_rows(lp, 1, &err), 0);
	assert_int_equal(hs_lp_add_cols(lp, -1, &err), -1);
	assert_int_equal(hs_lp_set_col_bounds(lp, 2, 0, 1, &err), -1);
	assert_int_equal(hs_lp_set_col_bounds(lp, 0, 2, 1, &err), -1);
	assert_int_equal(hs_lp_set_col_bounds(lp, 0, NAN, 1, &err), -1);
	assert_int_equal(hs_lp_set_row_bounds(lp, 1, 0, 1, &err), -1);
	assert_int_equal(hs_lp_set_row_bounds(lp, 0, INFINITY, INFINITY, &err), -1);
	assert_int_equal(hs_lp_add_coef(lp, 0, 5, 1.0, &err), -1);
	assert_int_equal(hs_lp_add_coef(lp, -1, 0, 1.0, &err), -1);
	assert_int_equal(hs_lp_add_coef(lp, 0, 0, INFINITY, &err), -1);
	assert_int_equal(hs_lp_set_obj(lp, 0, NAN, &err), -1);
	assert_int_equal(hs_lp_set_coef(lp, 3, 0, 1.0, &err), -1);
	assert_true(strlen(err.msg) > 0);
	/* fixed bounds (lb == ub): minimize x0 + x1 with x0 = 2, x1 >= 1 */
	assert_int_equal(hs_lp_set_col_bounds(lp, 0, 2.0, 2.0, &err), 0);
	assert_int_equal(hs_lp_set_col_bounds(lp, 1, 1.0, INFINITY, &err), 0);
	assert_int_equal(hs_lp_set_obj(lp, 0, 1.0, &err), 0);
	assert_int_equal(hs_lp_set_obj(lp, 1, 1.0, &err), 0);
	assert_int_equal(hs_lp_solve(lp, NULL, &err), HS_LP_OPTIMAL);
	assert_true(NEAR(hs_lp_obj_value(lp), 3.0));
	assert_true(hs_lp_col_value(lp, 7) == 0.0);
	hs_lp_free(lp);
	hs_lp_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(solve_textbook_all_methods),
		cmocka_unit_test(warm_resolve_after_changes),
		cmocka_unit_test(iteration_limit),
		cmocka_unit_test(infeasible_and_unbounded),
		cmocka_unit_test(bad_arguments_fail_cleanly),
	};
	return cmocka_run_group_tests_name("lp", tests, NULL, NULL);
}
