/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_idindex.c — the id lookup the engine's per-job tables share
 * (sched/idindex.h): found, absent with its insertion point, and right
 * after the array shifted under a hint (a stale hint is only a miss). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sched/idindex.h"

typedef struct ent {
	long pad;
	uint32_t id;
} ent_t;

static hs_idhint_t *new_hint(void)
{
	hs_idhint_t *h = malloc(sizeof(*h));
	assert_non_null(h);
	memset(h, 0xff, sizeof(*h));
	return h;
}

static int find(const ent_t *a, int n, uint32_t id, hs_idhint_t *h)
{
	return hs_idx_find(a, sizeof(*a), offsetof(ent_t, id), n, id, h);
}

static void found_and_absent(void **state)
{
	(void)state;
	ent_t a[] = { { 0, 3 }, { 0, 7 }, { 0, 9 }, { 0, 4100 } };
	hs_idhint_t *h = new_hint();
	for (int rep = 0; rep < 2; rep++) { /* the second time from the hint */
		assert_int_equal(find(a, 4, 3, h), 0);
		assert_int_equal(find(a, 4, 9, h), 2);
		assert_int_equal(find(a, 4, 4100, h), 3);
	}
	assert_int_equal(find(a, 4, 1, h), -1);   /* before everything */
	assert_int_equal(find(a, 4, 8, h), -3);   /* between 7 and 9 */
	assert_int_equal(find(a, 4, 5000, h), -5);
	/* 4 shares 4100's slot (4100 % 4096): the hint points at 4100's
	 * index, which holds another id, so 4 is searched and absent */
	assert_int_equal(find(a, 4, 4, h), -2);
	assert_int_equal(find(a, 0, 3, h), -1);   /* empty array, stale hint */
	assert_int_equal(find(NULL, 0, 3, NULL), -1);
	assert_int_equal(find(a, 4, 7, NULL), 1); /* no hint kept */
	free(h);
}

/* Entries inserted before and removed after ids were found: every answer
 * is the array's, never a hint's old index. */
static void hints_survive_shifts(void **state)
{
	(void)state;
	ent_t a[8] = { { 0, 10 }, { 0, 20 }, { 0, 30 } };
	hs_idhint_t *h = new_hint();
	int n = 3;
	assert_int_equal(find(a, n, 30, h), 2);
	memmove(&a[1], &a[0], (size_t)n * sizeof(*a)); /* insert 5 first */
	a[0].id = 5;
	n++;
	assert_int_equal(find(a, n, 30, h), 3);
	assert_int_equal(find(a, n, 20, h), 2);
	memmove(&a[0], &a[1], (size_t)(n - 1) * sizeof(*a)); /* drop 5 */
	n--;
	assert_int_equal(find(a, n, 20, h), 1);
	assert_int_equal(find(a, n, 30, h), 2);
	n--; /* drop 30: the hint's index is now past the end */
	assert_int_equal(find(a, n, 30, h), -3);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(found_and_absent),
		cmocka_unit_test(hints_survive_shifts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
