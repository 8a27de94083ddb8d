/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_metrics.c — the OpenMetrics exposition of a status document
 * (src/sched/metrics.c): exact metric lines for a document with known
 * numbers, label escaping, families left out for fields an older
 * document lacks, the idle fallback, non-finite values, "# EOF" last,
 * and a foreign document refused. The strict parse with the Prometheus
 * client's own parser is test_metrics_parse.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sched/metrics.h"

static const char *const DOC =
	"{\"format\":\"hetsched-status\",\"version\":1,\"time\":1700000000,\"round\":42,"
	"\"rounds\":43,\"policy\":\"max_min_fairness_perf\",\"round_length\":360,"
	"\"preempt_mode\":\"requeue\",\"last_reset\":1699999000,\"objective\":0.625,"
	"\"vs_equal_share\":{\"min\":0.75,\"mean\":1.5,\"jobs\":9},"
	"\"types\":[{\"name\":\"k80\",\"gpus\":4,\"available\":4,\"busy\":3,\"idle\":1,"
	"\"shared\":0},{\"name\":\"v100\",\"gpus\":8,\"available\":6,\"busy\":6,\"idle\":0,"
	"\"shared\":2}],"
	"\"gpu_jobs\":{\"pending\":5,\"running\":7,\"suspended\":1,\"other\":0},"
	"\"round_stats\":{\"solve_ms\":1250,\"engine_ms\":1300.5,\"snapshot_lock_ms\":2.5,"
	"\"apply_lock_ms\":10,\"round_ms\":1400,\"solved\":1,\"solve_failed\":0,\"reset\":1,"
	"\"active\":9,\"pinned\":2,\"leaving\":1,\"waiting_outside\":3,\"gpus_usable\":10,"
	"\"gpus_used\":9},"
	"\"totals\":{\"started\":100,\"preempted\":12,\"migrated\":4,\"suspended\":6,"
	"\"resumed\":5,\"requeued\":13,\"checkpoints\":11,\"checkpoints_acked\":10,"
	"\"start_failed\":2,\"solve_failed\":3,\"mech_rounds\":43,\"mech_resets\":8},"
	"\"entities\":[{\"name\":\"phys\",\"parent\":-1,\"shares\":2,\"norm_shares\":0.5,"
	"\"target\":0.5,\"received\":0.375,\"jobs\":3,\"gpus\":3},"
	"{\"name\":\"ann@phys\",\"parent\":0,\"shares\":1,\"norm_shares\":0.5,"
	"\"target\":0.5,\"received\":0.375,\"jobs\":3,\"gpus\":3}],"
	"\"jobs\":[],\"ops\":[]}";

static char *expose(const char *json, hs_err_t *err)
{
	json_object *doc = json_tokener_parse(json);
	assert_non_null(doc);
	size_t len = 0;
	char *t = hs_metrics_text(doc, &len, err);
	if (t)
		assert_int_equal(strlen(t), len);
	json_object_put(doc);
	return t;
}

/* Is `line` a whole line of text? */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

static void expect(const char *text, const char *line)
{
	if (!has_line(text, line))
		fail_msg("missing line: %s\n--- exposition:\n%s", line, text);
}

static void test_known_numbers(void **state)
{
	(void)state;
	hs_err_t err;
	char *t = expose(DOC, &err);
	assert_non_null(t);
	static const char *const lines[] = {
		"# TYPE hetsched_config_info gauge",
		"hetsched_config_info{policy=\"max_min_fairness_perf\",preempt_mode=\"requeue\"} 1",
		"# TYPE hetsched_rounds counter",
		"hetsched_rounds_total 43",
		"# TYPE hetsched_entity_norm_shares gauge",
		"hetsched_entity_norm_shares{entity=\"phys\",parent=\"\"} 0.5",
		"hetsched_entity_target_share{entity=\"ann@phys\",parent=\"phys\"} 0.5",
		"hetsched_entity_received_share{entity=\"ann@phys\",parent=\"phys\"} 0.375",
		"hetsched_entity_jobs{entity=\"phys\",parent=\"\"} 3",
		"hetsched_last_round_timestamp_seconds 1700000000",
		"hetsched_last_reset_timestamp_seconds 1699999000",
		"# UNIT hetsched_round_length_seconds seconds",
		"hetsched_round_length_seconds 360",
		"hetsched_policy_objective 0.625",
		"hetsched_equal_share_ratio_min 0.75",
		"hetsched_equal_share_ratio_mean 1.5",
		"# TYPE hetsched_gpus gauge",
		"hetsched_gpus{type=\"k80\"} 4",
		"hetsched_gpus{type=\"v100\"} 8",
		"hetsched_gpus_available{type=\"v100\"} 6",
		"hetsched_gpus_allocated{type=\"k80\"} 3",
		"hetsched_gpus_idle{type=\"k80\"} 1",
		"hetsched_gpus_idle{type=\"v100\"} 0",
		"hetsched_gpus_shared{type=\"v100\"} 2",
		"hetsched_jobs{state=\"pending\"} 5",
		"hetsched_jobs{state=\"running\"} 7",
		"hetsched_jobs{state=\"suspended\"} 1",
		"hetsched_jobs{state=\"other\"} 0",
		"# TYPE hetsched_round_duration_seconds gauge",
		"# UNIT hetsched_round_duration_seconds seconds",
		"hetsched_round_duration_seconds 1.4",
		"hetsched_solve_duration_seconds 1.25",
		"hetsched_engine_duration_seconds 1.3005",
		"hetsched_lock_hold_seconds{phase=\"snapshot\"} 0.0025",
		"hetsched_lock_hold_seconds{phase=\"apply\"} 0.01",
		"hetsched_round_solved 1",
		"hetsched_round_solve_failed 0",
		"hetsched_round_gpus_usable 10",
		"hetsched_round_gpus_used 9",
		"hetsched_round_jobs{role=\"active\"} 9",
		"hetsched_round_jobs{role=\"pinned\"} 2",
		"hetsched_round_jobs{role=\"leaving\"} 1",
		"hetsched_round_jobs{role=\"outside\"} 3",
		"# TYPE hetsched_preemptions counter",
		"hetsched_preemptions_total 12",
		"hetsched_migrations_total 4",
		"hetsched_requeues_total 13",
		"hetsched_suspensions_total 6",
		"hetsched_resumptions_total 5",
		"hetsched_job_starts_total 100",
		"hetsched_job_start_failures_total 2",
		"hetsched_checkpoint_requests_total 11",
		"hetsched_checkpoints_acknowledged_total 10",
		"hetsched_allocation_resets_total 8",
		"# TYPE hetsched_solve_failures counter",
		"hetsched_solve_failures_total 3",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		expect(t, lines[i]);
	/* "# EOF" once, last */
	size_t n = strlen(t);
	assert_true(n > 6 && !strcmp(t + n - 6, "# EOF\n"));
	assert_ptr_equal(strstr(t, "# EOF"), t + n - 6);
	/* a counter's family is declared without _total */
	assert_null(strstr(t, "# TYPE hetsched_preemptions_total"));
	/* no OpenMetrics-only type: node_exporter 1.5 refuses the file */
	assert_null(strstr(t, " info\n"));
	free(t);
}

/* Label values escaped; an older document without idle / shared /
 * gpu_jobs / objective / round_stats: idle from available - busy, jobs
 * counted from the job list, the other families left out. */
static void test_escaping_and_old_documents(void **state)
{
	(void)state;
	hs_err_t err;
	char *t = expose("{\"format\":\"hetsched-status\",\"version\":1,\"policy\":\"p\\\"q\","
			 "\"preempt_mode\":\"a\\\\b\\nc\",\"types\":[{\"name\":\"x\\\"y\","
			 "\"gpus\":2,\"available\":2,\"busy\":1}],\"jobs\":[{\"state\":"
			 "\"running\"},{\"state\":\"pending\"},{\"state\":\"pending\"}],"
			 "\"totals\":{\"preempted\":1}}",
			 &err);
	assert_non_null(t);
	expect(t, "hetsched_config_info{policy=\"p\\\"q\",preempt_mode=\"a\\\\b\\nc\"} 1");
	expect(t, "hetsched_gpus_idle{type=\"x\\\"y\"} 1");
	expect(t, "hetsched_jobs{state=\"pending\"} 2");
	expect(t, "hetsched_jobs{state=\"running\"} 1");
	expect(t, "hetsched_preemptions_total 1");
	assert_null(strstr(t, "hetsched_gpus_shared"));
	assert_null(strstr(t, "hetsched_policy_objective"));
	assert_null(strstr(t, "hetsched_equal_share_ratio"));
	assert_null(strstr(t, "hetsched_round_duration_seconds"));
	assert_null(strstr(t, "hetsched_migrations"));
	assert_null(strstr(t, "hetsched_rounds"));
	free(t);
}

static void test_refused_and_stream(void **state)
{
	(void)state;
	hs_err_t err;
	assert_null(expose("{\"format\":\"hetsched-state\",\"version\":1}", &err));
	assert_non_null(strstr(err.msg, "not a hetsched status document"));
	assert_int_equal(hs_metrics_write(stdout, NULL, &err), -1);
	/* the FILE* form writes the same text */
	json_object *doc = json_tokener_parse(DOC);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(hs_metrics_write(f, doc, &err), 0);
	fclose(f);
	char *t = hs_metrics_text(doc, NULL, &err);
	assert_non_null(t);
	assert_string_equal(buf, t);
	free(buf);
	free(t);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_numbers),
		cmocka_unit_test(test_escaping_and_old_documents),
		cmocka_unit_test(test_refused_and_stream),
	};
	return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
