/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pinned.c — admission of jobs that cannot be preempted (core/pinned.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/pinned.h"

#define P(sf) { (sf), 1.0, 1, 0 }   /* pending pinned */
#define R(sf) { (sf), 1.0, 1, 1 }   /* running pinned */
#define F(sf) { (sf), 1.0, 0, 0 }   /* preemptible */

/* Half the jobs pinned, 4 GPUs, 8 one-GPU jobs: the pinned group's share
 * is 2 GPUs, so only two of the four pending pinned jobs are admitted
 * (before, every one of them was in the problem). */
static void test_half_pinned(void **state)
{
	(void)state;
	hs_pin_job_t j[] = { P(1), F(1), P(1), F(1), P(1), F(1), P(1), F(1) };
	unsigned char a[8];
	hs_pin_result_t r;
	assert_int_equal(hs_pin_admit(j, 8, 4, a, &r), 2);
	assert_true(r.share > 1.999 && r.share < 2.001);
	assert_int_equal(a[0], 1);
	assert_int_equal(a[2], 1);
	assert_int_equal(a[4], 0);
	assert_int_equal(a[6], 0);
	assert_int_equal(a[1] + a[3] + a[5] + a[7], 0);
	assert_int_equal(r.waiting, 2);
}

/* Running pinned jobs use up the budget. */
static void test_running_counts(void **state)
{
	(void)state;
	hs_pin_job_t j[] = { R(1), R(1), P(1), F(1), F(1), F(1), F(1), F(1) };
	unsigned char a[8];
	hs_pin_result_t r;
	/* share = 8 * 3/8 = 3, held 2: one more */
	assert_int_equal(hs_pin_admit(j, 8, 8, a, &r), 1);
	assert_int_equal(r.held, 2);
	assert_int_equal(a[2], 1);
	j[2].sf = 2; /* 2 + 2 > 3.56 (share 8 * 4/9) */
	assert_int_equal(hs_pin_admit(j, 8, 8, a, &r), 0);
	assert_int_equal(a[2], 0);
}

/* GPUs the preemptible jobs cannot use go to the pinned jobs
 * (work conserving). */
static void test_slack(void **state)
{
	(void)state;
	hs_pin_job_t j[] = { P(1), P(1), P(1), F(1) };
	unsigned char a[4];
	assert_int_equal(hs_pin_admit(j, 4, 8, a, NULL), 3);
	/* all pinned (PreemptMode=off): admitted up to the cluster's size */
	hs_pin_job_t k[] = { P(2), P(2), P(2), P(1) };
	assert_int_equal(hs_pin_admit(k, 4, 5, a, NULL), 2);
	assert_int_equal(a[2], 0);
	assert_int_equal(a[3], 0); /* no overtaking of job 2 */
}

/* A share below one job's size does not starve the group; a job larger
 * than the cluster is never admitted. */
static void test_no_starvation(void **state)
{
	(void)state;
	hs_pin_job_t j[] = { P(4), F(1), F(1), F(1), F(1), F(1), F(1), F(1), F(1) };
	unsigned char a[9];
	hs_pin_result_t r;
	assert_int_equal(hs_pin_admit(j, 9, 8, a, &r), 1); /* share 2.67 < 4 */
	j[0].sf = 9;
	assert_int_equal(hs_pin_admit(j, 9, 8, a, &r), 0);
	assert_int_equal(r.waiting, 1);
}

/* Weights: a heavier pinned job claims more. */
static void test_weights(void **state)
{
	(void)state;
	hs_pin_job_t j[] = { R(1), P(1), F(1), F(1), F(1), F(1) };
	unsigned char a[6];
	assert_int_equal(hs_pin_admit(j, 6, 4, a, NULL), 0);   /* share 1.33 */
	j[0].weight = j[1].weight = 4.0;                       /* share 2.67 */
	assert_int_equal(hs_pin_admit(j, 6, 4, a, NULL), 1);
	assert_int_equal(hs_pin_admit(NULL, -1, 4, a, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_pinned),
		cmocka_unit_test(test_running_counts),
		cmocka_unit_test(test_slack),
		cmocka_unit_test(test_no_starvation),
		cmocka_unit_test(test_weights),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
