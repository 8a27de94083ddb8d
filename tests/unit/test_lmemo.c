/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_lmemo.c — a round's learned answers per (kind, GPU count)
 * (engine_lmemo.c): an entry is found again by its kind and count only,
 * gives back what was stored, and its ratio bounds raise a caller's
 * matrix exactly as hs_learn_max_ratios does on that matrix. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "sched/engine_impl.h"

static void entries_by_kind_and_count(void **state)
{
	(void)state;
	hs_lmemo_t *m = hs_lmemo_new(3, 2);
	assert_non_null(m);
	int found = 1;
	assert_int_equal(hs_lmemo_find(m, "s/n=A", 1, &found), 0);
	assert_int_equal(found, 0);
	double rate[2] = { 3.5, 0 }, conf[2] = { 0.5, 0 };
	unsigned char inf[2] = { 0, 1 };
	hs_lmemo_put_rates(m, 0, rate, inf, conf);
	assert_int_equal(hs_lmemo_find(m, "s/n=A", 2, &found), 1); /* other count */
	assert_int_equal(found, 0);
	assert_int_equal(hs_lmemo_find(m, "t/n=A", 1, &found), 2); /* other scope */
	assert_int_equal(found, 0);
	assert_int_equal(hs_lmemo_find(m, "s/n=B", 1, &found), -1); /* full */
	assert_int_equal(found, 0);
	double r2[2] = { 0 }, c2[2] = { 0 };
	unsigned char i2[2] = { 9, 9 };
	assert_int_equal(hs_lmemo_find(m, "s/n=A", 1, &found), 0);
	assert_int_equal(found, 1);
	hs_lmemo_get_rates(m, 0, r2, i2, c2);
	assert_memory_equal(r2, rate, sizeof(rate));
	assert_memory_equal(c2, conf, sizeof(conf));
	assert_memory_equal(i2, inf, sizeof(inf));
	hs_lmemo_free(m);
	assert_int_equal(hs_lmemo_find(NULL, "s/n=A", 1, &found), -1);
	assert_int_equal(found, 0);
}

/* The kind's learned ratios from the memo, once computed and again from
 * the entry, against hs_learn_max_ratios on the same starting matrix:
 * below, above and between the learned ratios. */
static void ratios_as_learn_gives_them(void **state)
{
	(void)state;
	hs_learn_t l;
	hs_learn_init(&l, 0);
	for (int t = 1; t <= HS_LEARN_CONFIDENT; t++) { /* confident cells */
		assert_int_equal(hs_learn_observe(&l, "s/n=A", 1, "v100", 30, t), 1);
		assert_int_equal(hs_learn_observe(&l, "s/n=A", 1, "k80", 10, t), 1);
		assert_int_equal(hs_learn_observe(&l, "s/n=B", 1, "v100", 40, t), 1);
		assert_int_equal(hs_learn_observe(&l, "s/n=B", 1, "k80", 5, t), 1);
		assert_int_equal(hs_learn_observe(&l, "s/n=B", 1, "p100", 20, t), 1);
	}
	const char *types[3] = { "k80", "p100", "v100" };
	const double starts[3] = { 0, 2.5, 100 };
	hs_lmemo_t *m = hs_lmemo_new(4, 3);
	assert_non_null(m);
	int found, ix = hs_lmemo_find(m, "s/n=A", 1, &found);
	assert_true(ix >= 0);
	for (int s = 0; s < 3; s++) {
		double want[9], got[9];
		for (int i = 0; i < 9; i++)
			want[i] = got[i] = i % 4 ? starts[s] : 0;
		hs_learn_max_ratios(&l, "s/n=A", 1, types, 3, want);
		hs_lmemo_ratios(m, ix, &l, "s/n=A", 1, types, got);
		assert_memory_equal(got, want, sizeof(want));
	}
	double seen[9] = { 0 };
	hs_lmemo_ratios(m, ix, &l, "s/n=A", 1, types, seen);
	assert_true(seen[2 * 3 + 0] > 1); /* v100 over k80: B's 8 (A's own left out) */
	hs_lmemo_free(m);
	hs_learn_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entries_by_kind_and_count),
		cmocka_unit_test(ratios_as_learn_gives_them),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
