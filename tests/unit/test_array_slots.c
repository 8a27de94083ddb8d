/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_array_slots.c — the task slots of pending job arrays
 * (sched/array_slots.h, issue 28 item 6): one budget of free GPUs dealt
 * round-robin over the arrays' users. Before, the first 64 arrays in job
 * list order took the slots and every other user's array showed the
 * policy one task per round, and memory grew with arrays x tasks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "sched/array_slots.h"

static hs_array_cand_t cand(uint32_t user, uint32_t id, uint32_t prio, int per, int want)
{
	return (hs_array_cand_t){ .owner = user, .id = id, .prio = prio, .submit = 1000 + id,
				  .idx = (int)id, .per = per, .want = want };
}

static int user_slots(const hs_array_cand_t *c, int n, uint32_t user, int gpus)
{
	int t = 0;
	for (int i = 0; i < n; i++)
		if (c[i].owner == user)
			t += gpus ? c[i].slots * c[i].per : c[i].slots;
	return t;
}

/* 70 arrays of one user ahead of (and above) the other user's one array:
 * the other user still gets half the slots. */
static void many_arrays_do_not_crowd_out(void **state)
{
	(void)state;
	enum { N = 71 };
	hs_array_cand_t c[N];
	for (int i = 0; i < 70; i++)
		c[i] = cand(1001, (uint32_t)(100 + i), 500, 1, 511);
	c[70] = cand(1002, 900, 100, 1, 511);
	assert_int_equal(hs_array_slots_deal(c, N, 20), 20);
	assert_int_equal(user_slots(c, N, 1001, 0), 10);
	assert_int_equal(user_slots(c, N, 1002, 0), 10);
	/* within a user, queue order: all of user 1001's go to its first */
	for (int i = 0; i < N; i++)
		if (c[i].owner == 1001 && c[i].id != 100)
			assert_int_equal(c[i].slots, 0);
}

/* Memory is bounded by the budget, whatever the arrays want. */
static void budget_bounds_slots(void **state)
{
	(void)state;
	enum { N = 300 };
	hs_array_cand_t *c = calloc(N, sizeof(*c));
	assert_non_null(c);
	for (int i = 0; i < N; i++)
		c[i] = cand((uint32_t)(i % 7), (uint32_t)i, (uint32_t)(i % 5), 1 + i % 3, 511);
	int dealt = hs_array_slots_deal(c, N, 64);
	int gpus = 0, slots = 0;
	for (int i = 0; i < N; i++) {
		gpus += c[i].slots * c[i].per;
		slots += c[i].slots;
		assert_true(c[i].slots <= c[i].want);
	}
	assert_int_equal(slots, dealt);
	assert_true(gpus <= 64);
	assert_true(gpus >= 62); /* the rest fits no array */
	/* each of the 7 users got slots */
	for (uint32_t u = 0; u < 7; u++)
		assert_true(user_slots(c, N, u, 0) > 0);
	free(c);
}

/* Work-conserving: what one user does not want goes to the other. */
static void unwanted_slots_go_to_others(void **state)
{
	(void)state;
	hs_array_cand_t c[3] = { cand(1, 1, 10, 1, 2), cand(2, 2, 10, 1, 50),
				 cand(2, 3, 10, 1, 50) };
	assert_int_equal(hs_array_slots_deal(c, 3, 20), 20);
	assert_int_equal(user_slots(c, 3, 1, 0), 2);
	assert_int_equal(user_slots(c, 3, 2, 0), 18);
}

/* Multi-GPU tasks: a slot costs its GPUs; one that no longer fits is
 * passed and the smaller ones behind it still get theirs. */
static void multi_gpu_tasks(void **state)
{
	(void)state;
	hs_array_cand_t c[2] = { cand(1, 1, 10, 4, 10), cand(2, 2, 10, 1, 10) };
	assert_int_equal(hs_array_slots_deal(c, 2, 10), 4);
	/* turns: u1 4 (6 left), u2 1 (5), u1 4 (1), u2 1 (0) ... */
	assert_int_equal(user_slots(c, 2, 1, 1), 8);
	assert_int_equal(user_slots(c, 2, 2, 1), 2);
}

/* Nothing to deal, and silly inputs. */
static void edges(void **state)
{
	(void)state;
	hs_array_cand_t c[2] = { cand(1, 1, 10, 0, -3), cand(2, 2, 10, -1, 0) };
	assert_int_equal(hs_array_slots_deal(c, 2, 100), 0);
	assert_int_equal(c[0].slots + c[1].slots, 0);
	assert_int_equal(hs_array_slots_deal(c, 0, 100), 0);
	hs_array_cand_t d[1] = { cand(1, 1, 10, 1, 5) };
	assert_int_equal(hs_array_slots_deal(d, 1, 0), 0);
	assert_int_equal(hs_array_slots_deal(d, 1, 3), 3);
	assert_int_equal(d[0].slots, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(many_arrays_do_not_crowd_out),
		cmocka_unit_test(budget_bounds_slots),
		cmocka_unit_test(unwanted_slots_go_to_others),
		cmocka_unit_test(multi_gpu_tasks),
		cmocka_unit_test(edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
