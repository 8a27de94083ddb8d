/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_trace.c — the Gavel trace reader: well-formed input (CRLF, blank
 * lines, Gavel's own traces), every kind of malformed field rejected with
 * its line number, and the writer round-tripping through the reader. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace.h"
#include "tests/unit/testdata.h"

#define GOOD "ResNet-50 (batch size 64)\tpython3 main.py\timagenet\t--steps\t1\t2931\t1\t1\t-1.000000\t0"

static int read_str(hs_trace_t *t, const char *text, size_t len, hs_err_t *err)
{
	FILE *f = fmemopen((void *)text, len, "r");
	assert_non_null(f);
	int rc = hs_trace_read(t, f, "t.trace", err);
	fclose(f);
	return rc;
}

static void good(void **state)
{
	(void)state;
	const char *text = GOOD "\r\n\n  \nLM (batch size 5)\tpython x\tlm\t-s\t0\t10.5\t8\t5\t3600\t12.5"
			   "\t1\talice\tphysics\nM\tc\td\t-s\t0\t1\t1\t1\t-1\t13\t0\tbob\n";
	hs_trace_t t;
	hs_err_t err;
	if (read_str(&t, text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(t.njobs, 3);
	assert_null(t.jobs[0].user);
	assert_null(t.jobs[0].account);
	assert_string_equal(t.jobs[1].user, "alice");
	assert_string_equal(t.jobs[1].account, "physics");
	assert_int_equal(t.jobs[1].pinned, 0);
	assert_string_equal(t.jobs[2].user, "bob");
	assert_null(t.jobs[2].account);
	assert_int_equal(t.jobs[2].pinned, 1);
	assert_string_equal(t.jobs[0].model, "ResNet-50 (batch size 64)");
	assert_string_equal(t.jobs[0].workdir, "imagenet");
	assert_int_equal(t.jobs[0].needs_data_dir, 1);
	assert_true(t.jobs[0].total_steps == 2931);
	assert_true(t.jobs[0].slo == -1);
	assert_int_equal(t.jobs[0].line, 1);
	assert_int_equal(t.jobs[1].line, 4);
	assert_int_equal(t.jobs[1].scale_factor, 8);
	assert_true(t.jobs[1].weight == 5);
	assert_true(t.jobs[1].slo == 3600);
	assert_true(t.jobs[1].arrival_s == 12.5);

	/* writer -> reader gives the same jobs */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (int i = 0; i < t.njobs; i++)
		assert_int_equal(hs_trace_write_job(f, &t.jobs[i]), 0);
	fclose(f);
	hs_trace_t t2;
	assert_int_equal(read_str(&t2, buf, len, &err), 0);
	assert_int_equal(t2.njobs, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(t2.jobs[i].pinned, t.jobs[i].pinned);
		assert_true(!t2.jobs[i].user == !t.jobs[i].user);
		assert_true(!t2.jobs[i].account == !t.jobs[i].account);
		if (t.jobs[i].user)
			assert_string_equal(t2.jobs[i].user, t.jobs[i].user);
		if (t.jobs[i].account)
			assert_string_equal(t2.jobs[i].account, t.jobs[i].account);
		assert_string_equal(t2.jobs[i].model, t.jobs[i].model);
		assert_true(t2.jobs[i].total_steps == t.jobs[i].total_steps);
		assert_true(t2.jobs[i].arrival_s == t.jobs[i].arrival_s);
		assert_int_equal(t2.jobs[i].scale_factor, t.jobs[i].scale_factor);
	}
	hs_trace_free(&t2);
	free(buf);
	hs_trace_free(&t);
}

/* Each bad line (after one good line) must fail, naming line 2 and the
 * field. */
static void malformed(void **state)
{
	(void)state;
	static const struct { const char *line, *expect; } cases[] = {
		{ "a\tb\tc", "3 tab-separated fields" },
		{ GOOD "\textra", "preemptible must be 0 or 1" },
		{ GOOD "\t1\tu\ta\textra", "more than 13" },
		{ GOOD "\t1\tal ice", "user must be" },
		{ GOOD "\t1\talice\tph/ys", "account must be" },
		{ GOOD "\t1\t", "user must be" },
		{ "\tcmd\tdir\t-s\t1\t10\t1\t1\t-1\t0", "job type is empty" },
		{ "M\t\tdir\t-s\t1\t10\t1\t1\t-1\t0", "command is empty" },
		{ "M\tcmd\tdir\t-s\t2\t10\t1\t1\t-1\t0", "needs data dir" },
		{ "M\tcmd\tdir\t-s\t1\t-10\t1\t1\t-1\t0", "total steps" },
		{ "M\tcmd\tdir\t-s\t1\tabc\t1\t1\t-1\t0", "total steps" },
		{ "M\tcmd\tdir\t-s\t1\tnan\t1\t1\t-1\t0", "total steps" },
		{ "M\tcmd\tdir\t-s\t1\t10\t0\t1\t-1\t0", "scale factor" },
		{ "M\tcmd\tdir\t-s\t1\t10\t1.5\t1\t-1\t0", "scale factor" },
		{ "M\tcmd\tdir\t-s\t1\t10\t1\t0\t-1\t0", "priority weight" },
		{ "M\tcmd\tdir\t-s\t1\t10\t1\t1\t-2\t0", "SLO" },
		{ "M\tcmd\tdir\t-s\t1\t10\t1\t1\t-1\t-5", "arrival time" },
		{ "M\tcmd\tdir\t-s\t1\t10\t1\t1\t-1\t1e999", "arrival time" },
		{ "M\tcmd\tdir\t-s\t1\t10\t1\t1\t-1\t", "arrival time" },
	};
	char text[512];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* the good line arrives at 0, so no ordering error masks these */
		snprintf(text, sizeof(text), "%s\n%s\n", GOOD, cases[i].line);
		hs_trace_t t;
		hs_err_t err = { "" };
		assert_int_equal(read_str(&t, text, strlen(text), &err), -1);
		if (!strstr(err.msg, "t.trace:2:") || !strstr(err.msg, cases[i].expect))
			fail_msg("case %zu: message '%s' lacks 't.trace:2:' or '%s'", i, err.msg,
				 cases[i].expect);
		hs_trace_free(&t);
	}
	/* arrivals out of order */
	snprintf(text, sizeof(text), "%s\n%s", "M\tc\td\t-s\t1\t10\t1\t1\t-1\t50",
		 "M\tc\td\t-s\t1\t10\t1\t1\t-1\t40\n");
	hs_trace_t t;
	hs_err_t err;
	assert_int_equal(read_str(&t, text, strlen(text), &err), -1);
	assert_non_null(strstr(err.msg, "t.trace:2: arrival time 40 is earlier"));
	hs_trace_free(&t);
	/* empty file, NUL byte, overlong line */
	assert_int_equal(read_str(&t, "\n\n", 2, &err), -1);
	assert_non_null(strstr(err.msg, "no jobs"));
	hs_trace_free(&t);
	const char nul[] = "M\tc\td\t-s\t1\t10\0\t1\t1\t-1\t0\n";
	assert_int_equal(read_str(&t, nul, sizeof(nul) - 1, &err), -1);
	assert_non_null(strstr(err.msg, "t.trace:1: line contains a NUL byte"));
	hs_trace_free(&t);
	size_t big = HS_TRACE_MAX_LINE + 10;
	char *longline = malloc(big + 1);
	memset(longline, 'x', big);
	longline[big] = '\0';
	assert_int_equal(read_str(&t, longline, big, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	hs_trace_free(&t);
	free(longline);
	/* a missing file */
	assert_int_equal(hs_trace_load(&t, "/nonexistent/x.trace", &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/x.trace"));
	hs_trace_free(&t);
}

/* Gavel's own physical-cluster traces all parse. */
static void gavel_traces(void **state)
{
	(void)state;
	static const char *files[] = { "artifact_evaluation", "debug", "debug_v2",
		"highmem_test", "max_min_fairness", "medium_test", "minimize_makespan",
		"small_test" };
	static const int njobs[] = { 15, 14, 14, 8, 96, 20, 100, 20 };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char rel[128], path[4096];
		snprintf(rel, sizeof(rel), "traces/physical_cluster/%s.trace", files[i]);
		if (hs_test_gavel_path(path, sizeof(path), rel) < 0)
			skip();
		hs_trace_t t;
		hs_err_t err;
		if (hs_trace_load(&t, path, &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(t.njobs, njobs[i]);
		hs_trace_free(&t);
	}
}

/* Random byte damage to a valid trace: the reader either accepts it or
 * refuses it naming the file (and line), never crashes. */
static void damaged_traces(void **state)
{
	(void)state;
	const char *good = GOOD "\n" "LM (batch size 5)\tpython x\tlm\t-s\t0\t10.5\t8\t5\t3600\t12.5\n"
			   "A\tc\td\t-s\t1\t7\t2\t1\t-1\t100\n";
	static const char alphabet[] = "\t\n\r0123456789-.eEx ab\0";
	size_t len = strlen(good);
	char *buf = malloc(len + 1);
	unsigned short rng[3] = { 4, 5, 6 };
	int accepted = 0, refused = 0;
	for (int it = 0; it < 5000; it++) {
		memcpy(buf, good, len + 1);
		int nmut = 1 + (int)(erand48(rng) * 4);
		for (int k = 0; k < nmut; k++)
			buf[(size_t)(erand48(rng) * len)] = alphabet[(int)(erand48(rng) *
							       (sizeof(alphabet) - 1))];
		hs_trace_t t;
		hs_err_t err = { "" };
		if (read_str(&t, buf, len, &err) == 0) {
			accepted++;
			for (int i = 0; i < t.njobs; i++) {
				assert_true(t.jobs[i].total_steps > 0);
				assert_true(t.jobs[i].scale_factor >= 1);
				assert_true(t.jobs[i].arrival_s >= 0);
				assert_true(i == 0 || t.jobs[i].arrival_s >= t.jobs[i - 1].arrival_s);
			}
		} else {
			refused++;
			assert_non_null(strstr(err.msg, "t.trace"));
		}
		hs_trace_free(&t);
	}
	assert_true(accepted > 10);
	assert_true(refused > 10);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good),
		cmocka_unit_test(malformed),
		cmocka_unit_test(gavel_traces),
		cmocka_unit_test(damaged_traces),
	};
	return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
