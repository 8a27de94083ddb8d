/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_job_view.c — the per-job view (src/sched/job_view.c): the lines a
 * user sees for a pending job with every field, a running one, lines left
 * out when an older document lacks the fields, a running job outside the
 * policy, and finding by id. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sched/job_view.h"

static const char *const DOC =
	"{\"round\":5,\"policy\":\"fifo\",\"jobs\":["
	"{\"id\":7,\"state\":\"pending\",\"user_id\":1000,\"gpus\":2,\"op\":\"none\","
	"\"reason\":\"hetsched round 5: no share\",\"expected_start\":1000600,"
	"\"target\":{\"v100\":0.5},\"received_total_s\":{\"v100\":120},"
	"\"active_total_s\":3600,\"throughput\":{\"v100\":12.5,\"k80\":4},\"measured\":{\"v100\":11},"
	"\"estimates\":{\"v100\":\"measured\",\"k80\":\"inferred\"},"
	"\"estimate\":\"mixed\",\"ftf_rho\":1.5,\"remaining_s\":4000,\"bounded\":\"ratio\"},"
	"{\"id\":8,\"state\":\"running\",\"op\":\"keep\",\"type\":\"k80\",\"nodes\":[\"k80-1\"]},"
	"{\"id\":9,\"state\":\"running\",\"op\":\"none\",\"outside_policy\":true,"
	"\"reason\":\"outside the policy\",\"type\":\"v100\",\"nodes\":[\"v100-1\"]}]}";

static char *view(int64_t id)
{
	json_object *doc = json_tokener_parse(DOC);
	assert_non_null(doc);
	json_object *j = hs_job_view_find(doc, id);
	assert_non_null(j);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(hs_job_view_print(f, doc, j, 1000000), 0);
	fclose(f);
	json_object_put(doc);
	return buf;
}

static void test_pending(void **state)
{
	(void)state;
	char *t = view(7);
	assert_non_null(strstr(t, "job 7: pending, user 1000, 2 GPUs (policy fifo, round 5)\n"));
	assert_non_null(strstr(t, "  why: it waits for GPUs\n"));
	assert_non_null(strstr(t, "  scheduler says: hetsched round 5: no share\n"));
	assert_non_null(strstr(t, "(in 10 min;"));
	assert_non_null(strstr(t, "  share in the current allocation: v100 50%\n"));
	assert_non_null(strstr(t, "  has run: v100 2 min (in 1 h 00 min under hetsched)\n"));
	assert_non_null(strstr(t, "v100 12.5 (measured 11) k80 4 (inferred)"));
	assert_non_null(strstr(t, "  bounded (ratio): what the job reported"));
	assert_non_null(strstr(t, "rho 1.50 (finishes later"));
	assert_non_null(strstr(t, "about 1 h 06 min"));
	free(t);
}

static void test_running_old_document(void **state)
{
	(void)state;
	char *t = view(8);
	assert_non_null(strstr(t, "  runs on: k80 (k80-1)\n"));
	assert_non_null(strstr(t, "  share in the current allocation: none\n"));
	assert_non_null(strstr(t, "  has run: not yet\n"));
	assert_null(strstr(t, "why:"));
	assert_null(strstr(t, "expected start"));
	assert_null(strstr(t, "rho"));
	free(t);
}

/* A job outside the policy (pinned): where it runs and why, no share. */
static void test_outside_policy(void **state)
{
	(void)state;
	char *t = view(9);
	assert_non_null(strstr(t, "job 9: running"));
	assert_non_null(strstr(t, "  scheduler says: outside the policy\n"));
	assert_non_null(strstr(t, "  runs on: v100 (v100-1)\n"));
	assert_null(strstr(t, "share in the current allocation"));
	assert_null(strstr(t, "has run"));
	free(t);
}

static void test_find(void **state)
{
	(void)state;
	json_object *doc = json_tokener_parse(DOC);
	assert_null(hs_job_view_find(doc, 10));
	assert_non_null(hs_job_view_find(doc, 8));
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_running_old_document),
		cmocka_unit_test(test_outside_policy),
		cmocka_unit_test(test_find),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
