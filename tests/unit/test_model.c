/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_model.c — the core model: cluster parsing, problem validation,
 * equal-share throughput, allocation bookkeeping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "core/model.h"

static void cluster_parse_ok(void **state)
{
	(void)state;
	hs_cluster_t c;
	hs_err_t err;
	assert_int_equal(hs_cluster_parse(&c, "a100:8,v100:36,k80:0", &err), 0);
	assert_int_equal(c.ntypes, 3);
	assert_string_equal(c.names[1], "v100");
	assert_int_equal(c.count[1], 36);
	assert_int_equal(hs_cluster_type_index(&c, "k80"), 2);
	assert_int_equal(hs_cluster_type_index(&c, "p100"), -1);
	assert_int_equal(hs_cluster_total(&c), 44);
	hs_cluster_free(&c);
}

static void cluster_parse_bad(void **state)
{
	(void)state;
	const char *bad[] = { "", "v100", "v100:", ":3", "v100:-1", "v100:3x",
			      "v100:1,v100:2", "v100:99999999999", "v100:1,,k80:1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hs_cluster_t c;
		hs_err_t err = { "" };
		assert_int_equal(hs_cluster_parse(&c, bad[i], &err), -1);
		assert_true(strlen(err.msg) > 0);
	}
}

/* Two types (fast x2, slow x2), two jobs. */
static void make_problem(hs_problem_t *p)
{
	hs_err_t err;
	memset(p, 0, sizeof(*p));
	assert_int_equal(hs_cluster_parse(&p->cluster, "fast:2,slow:2", &err), 0);
	p->reference_type = -1;
	assert_int_equal(hs_problem_alloc_jobs(p, 2, &err), 0);
	for (int m = 0; m < 2; m++) {
		p->jobs[m].id = strdup(m ? "b" : "a");
		p->jobs[m].remaining_steps = 100;
	}
	p->jobs[0].thr[0] = 4; p->jobs[0].thr[1] = 2;
	p->jobs[1].thr[0] = 1; p->jobs[1].thr[1] = 1;
}

static void problem_validate(void **state)
{
	(void)state;
	hs_problem_t p;
	hs_err_t err;
	make_problem(&p);
	assert_int_equal(hs_problem_validate(&p, &err), 0);
	assert_true(fabs(hs_job_equal_share_thr(&p, 0) - 3.0) < 1e-12);
	p.jobs[1].thr[0] = 0; p.jobs[1].thr[1] = 0;
	assert_int_equal(hs_problem_validate(&p, &err), -1);
	assert_non_null(strstr(err.msg, "'b'"));
	p.jobs[1].thr[1] = 1;
	p.jobs[1].scale_factor = 3; /* more than the 2 slow GPUs */
	assert_int_equal(hs_problem_validate(&p, &err), -1);
	p.jobs[1].scale_factor = 1;
	p.jobs[0].weight = 0;
	assert_int_equal(hs_problem_validate(&p, &err), -1);
	p.jobs[0].weight = NAN;
	assert_int_equal(hs_problem_validate(&p, &err), -1);
	hs_problem_free(&p);
}

static void alloc_totals(void **state)
{
	(void)state;
	hs_problem_t p;
	hs_alloc_t a;
	hs_err_t err;
	make_problem(&p);
	assert_int_equal(hs_alloc_init(&a, 2, 2, &err), 0);
	a.x[0 * 2 + 0] = 0.5;
	a.x[1 * 2 + 1] = 0.25;
	int i = hs_alloc_add_pair(&a, 1, 0, &err);
	assert_int_equal(i, 0);
	assert_int_equal(a.pairs[0].m, 0);
	a.pairs[0].x[1] = 0.5;
	assert_true(fabs(hs_alloc_job_type_total(&a, 0, 1) - 0.5) < 1e-12);
	assert_true(fabs(hs_alloc_job_type_total(&a, 1, 1) - 0.75) < 1e-12);
	/* no job types: the pair contributes nothing to throughput */
	assert_true(fabs(hs_alloc_effective_thr(&a, &p, 0) - 2.0) < 1e-12);
	assert_int_equal(hs_alloc_add_pair(&a, 1, 1, &err), -1);
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cluster_parse_ok),
		cmocka_unit_test(cluster_parse_bad),
		cmocka_unit_test(problem_validate),
		cmocka_unit_test(alloc_totals),
	};
	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
