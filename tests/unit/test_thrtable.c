/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_thrtable.c — Gavel-format throughput tables: parsing of small
 * hand-written tables (including malformed ones) and of Gavel's own
 * measured table from data/gavel (HS_GAVEL_DATA overrides). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/thrtable.h"
#include "tests/unit/testdata.h"

static const char *small =
	"{\"fast\": {\"('A (batch size 1)', 1)\": {\"null\": 4.0,"
	"    \"('B', 1)\": [3.0, 1.5], \"('A (batch size 1)', 1)\": [2.0, 2.0]},"
	"  \"('B', 1)\": {\"null\": 2.0, \"('A (batch size 1)', 1)\": [1.5, 3.0]},"
	"  \"('B', 2)\": {\"null\": 3.5}},"
	" \"fast_unconsolidated\": {\"('B', 2)\": {\"null\": 3.0}},"
	" \"slow\": {\"('A (batch size 1)', 1)\": {\"null\": 1.0}}}";

static void parse_small(void **state)
{
	(void)state;
	hs_thrtable_t t;
	hs_err_t err;
	assert_int_equal(hs_thrtable_parse(&t, small, &err), 0);
	assert_int_equal(t.ntypes, 2);
	assert_int_equal(t.njobtypes, 3);
	int a = hs_thrtable_find(&t, "A (batch size 1)", 1);
	int b = hs_thrtable_find(&t, "B", 1);
	int b2 = hs_thrtable_find(&t, "B", 2);
	assert_true(a >= 0 && b >= 0 && b2 >= 0);
	assert_int_equal(hs_thrtable_find(&t, "B", 4), -1);
	assert_true(hs_thrtable_alone(&t, a, "fast", 1) == 4.0);
	assert_true(hs_thrtable_alone(&t, a, "slow", 1) == 1.0);
	assert_true(hs_thrtable_alone(&t, b, "slow", 1) == 0.0);
	assert_true(hs_thrtable_alone(&t, a, "nosuch", 1) == 0.0);
	assert_true(hs_thrtable_alone(&t, b2, "fast", 1) == 3.5);
	assert_true(hs_thrtable_alone(&t, b2, "fast", 0) == 3.0);
	assert_true(hs_thrtable_pair(&t, a, b, "fast") == 3.0);
	assert_true(hs_thrtable_pair(&t, b, a, "fast") == 1.5);
	assert_true(hs_thrtable_pair(&t, a, b, "slow") == 0.0);

	hs_cluster_t c;
	hs_jobtypes_t jt;
	assert_int_equal(hs_cluster_parse(&c, "slow:1,fast:2,other:3", &err), 0);
	assert_int_equal(hs_thrtable_to_jobtypes(&t, &c, &jt, &err), 0);
	assert_int_equal(jt.n, 3);
	assert_true(jt.pair_thr[((size_t)a * 3 + b) * 3 + 1] == 3.0);
	assert_true(jt.pair_thr[((size_t)a * 3 + b) * 3 + 0] == 0.0);
	assert_string_equal(jt.names[b2], "('B', 2)");
	assert_int_equal(jt.scale_factor[b2], 2);
	hs_problem_t p = { .cluster = c, .jobtypes = jt };
	hs_problem_free(&p);
	hs_thrtable_free(&t);
}

/* Pair rows only for job types with pair entries: in `small`, A and B
 * (scale factor 1), not B at 2. A round's job types (jobtypes_of): the
 * distinct paired ones of its jobs, first seen first; B at 2 and unknown
 * jobs are never packed. A table of 3,000 job types without pairs keeps
 * no pair rows at all (it was 3,000^2 x types, 72 MB per type). */
static void sparse_pairs(void **state)
{
	(void)state;
	hs_thrtable_t t;
	hs_err_t err;
	assert_int_equal(hs_thrtable_parse(&t, small, &err), 0);
	assert_int_equal(t.npaired, 2);
	int a = hs_thrtable_find(&t, "A (batch size 1)", 1);
	int b = hs_thrtable_find(&t, "B", 1);
	int b2 = hs_thrtable_find(&t, "B", 2);
	assert_int_equal(t.paired[b2], -1);
	assert_true(hs_thrtable_pair(&t, b, a, "fast") == 1.5);
	assert_true(hs_thrtable_pair(&t, b2, a, "fast") == 0.0);
	hs_cluster_t c;
	assert_int_equal(hs_cluster_parse(&c, "slow:2,fast:2", &err), 0);
	int jobs[5] = { b2, b, -1, a, b }, idx[5];
	hs_jobtypes_t jt;
	assert_int_equal(hs_thrtable_jobtypes_of(&t, &c, jobs, 5, &jt, idx, &err), 0);
	assert_int_equal(jt.n, 2);
	int want[5] = { -1, 0, -1, 1, 0 };
	for (int k = 0; k < 5; k++)
		assert_int_equal(idx[k], want[k]);
	assert_string_equal(jt.names[0], "('B', 1)");
	/* (B with A) on fast, cluster type 1: 1.5; on slow nothing */
	assert_true(jt.pair_thr[(0 * 2 + 1) * 2 + 1] == 1.5);
	assert_true(jt.pair_thr[(1 * 2 + 0) * 2 + 1] == 3.0);
	assert_true(jt.pair_thr[(0 * 2 + 1) * 2 + 0] == 0.0);
	hs_problem_t p = { .jobtypes = jt };
	hs_problem_free(&p); /* frees the job types with the rest */
	hs_cluster_free(&c);
	hs_thrtable_free(&t);

	const int n = 3000;
	char *big = malloc((size_t)n * 48 + 64), *q = big;
	q += sprintf(q, "{\"t\": {");
	for (int k = 0; k < n; k++)
		q += sprintf(q, "%s\"('m%d', 1)\": {\"null\": %d}", k ? ", " : "", k, k + 1);
	sprintf(q, "}}");
	assert_int_equal(hs_thrtable_parse(&t, big, &err), 0);
	assert_int_equal(t.njobtypes, n);
	assert_int_equal(t.npaired, 0);
	assert_true(hs_thrtable_pair(&t, 1, 2, "t") == 0.0);
	hs_thrtable_free(&t);
	free(big);
}

static void parse_bad(void **state)
{
	(void)state;
	const char *bad[] = {
		"", "[]", "{", "{}", "{\"v100\": 3}",
		"{\"v100\": {\"bad key\": {\"null\": 1}}}",
		"{\"v100\": {\"('A', 0)\": {\"null\": 1}}}",
		"{\"v100\": {\"('A', 1)\": {\"null\": -1}}}",
		"{\"v100\": {\"('A', 1)\": {\"null\": \"x\"}}}",
		"{\"v100\": {\"('A', 1)\": {\"null\": 1, \"('A', 1)\": [1]}}}",
		"{\"v100\": {\"('A', 1)\": 5}}",
		"{\"v100\": {\"('A', 1x)\": {\"null\": 1}}}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hs_thrtable_t t;
		hs_err_t err = { "" };
		if (hs_thrtable_parse(&t, bad[i], &err) != -1)
			fail_msg("accepted malformed table #%zu: %s", i, bad[i]);
		assert_true(strlen(err.msg) > 0);
	}
	hs_thrtable_t t;
	hs_err_t err;
	assert_int_equal(hs_thrtable_load(&t, "/nonexistent/table.json", &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/table.json"));
}

static void gavel_table(void **state)
{
	(void)state;
	char path[4096];
	if (hs_test_gavel_path(path, sizeof(path), "simulation_throughputs.json") < 0)
		skip();
	hs_thrtable_t t;
	hs_err_t err;
	if (hs_thrtable_load(&t, path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(t.ntypes, 3); /* k80, p100, v100 (+ unconsolidated variants) */
	assert_true(hs_thrtable_type_index(&t, "v100") >= 0);
	assert_int_equal(hs_thrtable_type_index(&t, "v100_unconsolidated"), -1);
	int a = hs_thrtable_find(&t, "ResNet-18 (batch size 16)", 1);
	assert_true(a >= 0);
	/* values read straight from the file */
	assert_true(fabs(hs_thrtable_alone(&t, a, "k80", 1) - 4.795294551566172) < 1e-12);
	int b = hs_thrtable_find(&t, "ResNet-18 (batch size 32)", 1);
	assert_true(fabs(hs_thrtable_pair(&t, a, b, "k80") - 2.539979567443098) < 1e-12);
	/* every (model, scale factor) key of any GPU type is one job type */
	assert_int_equal(t.njobtypes, 83);
	hs_thrtable_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_small),
		cmocka_unit_test(sparse_pairs),
		cmocka_unit_test(parse_bad),
		cmocka_unit_test(gavel_table),
	};
	return cmocka_run_group_tests_name("thrtable", tests, NULL, NULL);
}
