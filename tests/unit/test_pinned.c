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

/* Time-slice places (hs_slot_admit). S(owner, sf): a pending unmovable
 * job; H(owner, sf): a resident one (holds sf places); M(owner, sf): any
 * other job (movable, or unmovable and running is H). */
#define S(u, sf) { (u), (sf), 1, 0 }
#define H(u, sf) { (u), (sf), 0, (sf) }
#define M(u, sf) { (u), (sf), 0, 0 }

/* 6 GPUs = 12 places, two busy owners: each may hold 6. Owner 1 holds 6
 * already (three pairs of its own jobs would be three whole GPUs), so
 * its next one waits; owner 0's next one gets in. Before this rule, the
 * unmovable owner took every place the other's moved jobs left. */
static void test_slots_per_owner(void **state)
{
	(void)state;
	hs_slot_job_t j[] = { H(1, 1), H(1, 1), H(1, 1), H(1, 1), H(1, 1), H(1, 1),
			      S(1, 1), S(0, 1), M(0, 1), M(0, 1), M(0, 1), M(0, 1),
			      M(0, 1), M(0, 1), M(0, 1), M(0, 1) };
	unsigned char a[16];
	assert_int_equal(hs_slot_admit(j, 16, 2, 12, a), 1);
	assert_int_equal(a[6], 0);
	assert_int_equal(a[7], 1);
	j[5] = (hs_slot_job_t)M(1, 1); /* it holds 5: one more fits */
	assert_int_equal(hs_slot_admit(j, 16, 2, 12, a), 0);
	assert_int_equal(a[6], 1);
}

/* Places the other owners cannot fill go to the one that can use them;
 * an owner's first job always gets in; a job larger than the cluster
 * never; no overtaking within an owner, but one owner's stop does not
 * stop another's. */
static void test_slots_slack_and_order(void **state)
{
	(void)state;
	/* the other owner has 2 jobs: 12 - 2 = 10 places for owner 1 */
	hs_slot_job_t j[] = { H(1, 4), H(1, 4), S(1, 2), M(0, 1), M(0, 1) };
	unsigned char a[5];
	assert_int_equal(hs_slot_admit(j, 5, 2, 12, a), 0);
	assert_int_equal(a[2], 1);
	j[2].sf = 3; /* 8 + 3 > 10 */
	assert_int_equal(hs_slot_admit(j, 5, 2, 12, a), 1);
	hs_slot_job_t k[] = { S(0, 16), M(1, 1) };
	assert_int_equal(hs_slot_admit(k, 2, 2, 12, a), 1); /* 16 > 12 places */
	k[0].sf = 8; /* over the budget of 6, but the owner holds none yet */
	assert_int_equal(hs_slot_admit(k, 2, 2, 12, a), 0);
	hs_slot_job_t o[] = { H(0, 6), S(0, 2), S(0, 1), S(1, 1), M(1, 8) };
	unsigned char b[5];
	assert_int_equal(hs_slot_admit(o, 5, 2, 12, b), 2);
	assert_int_equal(b[1] + b[2], 0); /* the 1-GPU one does not overtake */
	assert_int_equal(b[3], 1);
	assert_int_equal(hs_slot_admit(o, 5, 1, 12, b), -1); /* owner 1 of 1 */
	assert_int_equal(hs_slot_admit(NULL, 1, 1, 12, b), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_pinned),
		cmocka_unit_test(test_running_counts),
		cmocka_unit_test(test_slack),
		cmocka_unit_test(test_no_starvation),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_slots_per_owner),
		cmocka_unit_test(test_slots_slack_and_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
