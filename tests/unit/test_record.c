/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_record.c — the AdminComment measurement record (src/report/record.h):
 * round trips, strict validation of hostile or foreign text, editing, and
 * the 1000-byte bound. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/record.h"

static const char *example =
	"{\"hs\":1,\"thr\":{\"v100\":{\"sps\":12.5,\"n\":42,\"t\":1700000000},"
	"\"k80:shared\":{\"sps\":3.1,\"n\":9,\"t\":1699990000}},"
	"\"hist\":[{\"gpu\":\"k80\",\"rc\":0,\"t\":1699980000},"
	"{\"gpu\":\"v100\",\"rc\":1,\"t\":1699995000}],"
	"\"step\":12345,\"samples\":790080,\"t\":1700000100,"
	"\"ckpt\":{\"step\":12000,\"t\":1700000050}}";

static void parse_example(void **state)
{
	hs_record_t r;
	hs_err_t err;
	const hs_record_thr_t *e;
	(void)state;

	assert_int_equal(hs_record_parse(&r, example, &err), 0);
	assert_int_equal(r.nthr, 2);
	e = hs_record_thr_find(&r, "v100");
	assert_non_null(e);
	assert_float_equal(e->sps, 12.5, 0);
	assert_int_equal(e->n, 42);
	assert_non_null(hs_record_thr_find(&r, "k80:shared"));
	assert_null(hs_record_thr_find(&r, "p100"));
	assert_int_equal(r.nhist, 2);
	assert_string_equal(r.hist[1].gpu, "v100");
	assert_int_equal(r.hist[1].rc, 1);
	assert_true(r.has_step && r.step == 12345 && r.has_samples && r.samples == 790080);
	assert_true(r.has_ckpt && r.ckpt_step == 12000 && r.ckpt_t == 1700000050);
}

static void roundtrip(void **state)
{
	hs_record_t r, r2;
	hs_err_t err;
	char buf[2048];
	(void)state;

	assert_int_equal(hs_record_parse(&r, example, &err), 0);
	assert_true(hs_record_format(&r, buf, sizeof(buf), &err) > 0);
	assert_string_equal(buf, example);
	assert_int_equal(hs_record_parse(&r2, buf, &err), 0);
	assert_memory_equal(&r, &r2, sizeof(r));
	/* empty record */
	hs_record_init(&r);
	assert_true(hs_record_format(&r, buf, sizeof(buf), &err) > 0);
	assert_string_equal(buf, "{\"hs\":1}");
	assert_int_equal(hs_record_parse(&r, "", &err), 0);
	assert_int_equal(hs_record_parse(&r, NULL, &err), 0);
	/* the job's model (--hs-model) round-trips */
	const char *m = "{\"hs\":1,\"model\":\"my-bert (batch size 32)\"}";
	assert_int_equal(hs_record_parse(&r, m, &err), 0);
	assert_string_equal(r.model, "my-bert (batch size 32)");
	assert_true(hs_record_format(&r, buf, sizeof(buf), &err) > 0);
	assert_string_equal(buf, m);
}

static void rejects(void **state)
{
	static const char *bad[] = {
		"x", "[]", "{}", "{\"hs\":2}", "{\"hs\":\"1\"}", "{\"hs\":1} trailing",
		"{\"hs\":1,\"thr\":[]}",
		"{\"hs\":1,\"thr\":{\"v100\":{\"sps\":-1,\"n\":1,\"t\":0}}}",
		"{\"hs\":1,\"thr\":{\"v100\":{\"sps\":0,\"n\":1,\"t\":0}}}",
		"{\"hs\":1,\"thr\":{\"v100\":{\"sps\":1e400,\"n\":1,\"t\":0}}}",
		"{\"hs\":1,\"thr\":{\"v100\":{\"sps\":1,\"n\":0,\"t\":0}}}",
		"{\"hs\":1,\"thr\":{\"v100\":{\"sps\":1,\"n\":1}}}",
		"{\"hs\":1,\"thr\":{\"v 100\":{\"sps\":1,\"n\":1,\"t\":0}}}",
		"{\"hs\":1,\"thr\":{\"\\\"x\":{\"sps\":1,\"n\":1,\"t\":0}}}",
		"{\"hs\":1,\"thr\":{\"v100\":{\"sps\":\"1\",\"n\":1,\"t\":0}}}",
		"{\"hs\":1,\"hist\":{}}",
		"{\"hs\":1,\"hist\":[{\"gpu\":\"k80\",\"rc\":-1,\"t\":0}]}",
		"{\"hs\":1,\"hist\":[{\"gpu\":7,\"rc\":0,\"t\":0}]}",
		"{\"hs\":1,\"hist\":[1]}",
		"{\"hs\":1,\"step\":1}",
		"{\"hs\":1,\"step\":-1,\"t\":0}",
		"{\"hs\":1,\"step\":1.5,\"t\":0}",
		"{\"hs\":1,\"samples\":5}",
		"{\"hs\":1,\"ckpt\":{\"step\":1}}",
		"{\"hs\":1,\"ckpt\":3}",
		"{\"hs\":1,\"step\":99999999999999999999,\"t\":0}",
		"{\"hs\":1,\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
		/* the model obeys the --hs-model rule */
		"{\"hs\":1,\"model\":7}",
		"{\"hs\":1,\"model\":\"\"}",
		"{\"hs\":1,\"model\":\"a\\\"b\"}",
		"{\"hs\":1,\"model\":\"tab\\there\"}",
	};
	hs_record_t r;
	hs_err_t err;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		if (hs_record_parse(&r, bad[i], &err) == 0)
			fail_msg("accepted %s", bad[i]);
		assert_true(err.msg[0] != '\0');
		assert_int_equal(r.nthr, 0);   /* nothing partially trusted */
	}
	/* nine types: one too many */
	{
		char buf[2048];
		int pos = snprintf(buf, sizeof(buf), "{\"hs\":1,\"thr\":{");

		for (int i = 0; i < 9; i++)
			pos += snprintf(buf + pos, sizeof(buf) - (size_t)pos,
					"%s\"t%d\":{\"sps\":1,\"n\":1,\"t\":0}", i ? "," : "", i);
		snprintf(buf + pos, sizeof(buf) - (size_t)pos, "}}");
		assert_int_equal(hs_record_parse(&r, buf, &err), -1);
	}
}

static void ours(void **state)
{
	(void)state;
	assert_true(hs_record_is_ours(NULL));
	assert_true(hs_record_is_ours(""));
	assert_true(hs_record_is_ours(example));
	assert_true(hs_record_is_ours("{\"hs\":2}"));
	assert_false(hs_record_is_ours("reserved for the hardware team"));
	assert_false(hs_record_is_ours("{\"owner\":\"admin\"}"));
	assert_false(hs_record_is_ours("[1]"));
}

static void editing(void **state)
{
	hs_record_t r;
	(void)state;

	hs_record_init(&r);
	assert_int_equal(hs_record_thr_set(&r, "bad type", 1, 1, 0), -1);
	assert_int_equal(hs_record_thr_set(&r, "v100", 0, 1, 0), -1);
	for (int i = 0; i < 10; i++) {
		char g[16];

		snprintf(g, sizeof(g), "g%d", i);
		assert_int_equal(hs_record_thr_set(&r, g, 1.0 + i, 1, 100 + i), 0);
	}
	/* capacity 8: the two least recently updated (g0, g1) were evicted */
	assert_int_equal(r.nthr, HS_RECORD_MAX_TYPES);
	assert_null(hs_record_thr_find(&r, "g0"));
	assert_null(hs_record_thr_find(&r, "g1"));
	assert_non_null(hs_record_thr_find(&r, "g9"));
	assert_int_equal(hs_record_thr_set(&r, "g5", 7, 3, 200), 0);
	assert_int_equal(r.nthr, HS_RECORD_MAX_TYPES);
	assert_float_equal(hs_record_thr_find(&r, "g5")->sps, 7, 0);

	assert_int_equal(hs_record_hist_add(&r, "k80", 0, 10), 0);
	assert_int_equal(hs_record_hist_add(&r, "k80", 0, 11), 0);  /* same: no-op */
	assert_int_equal(r.nhist, 1);
	assert_int_equal(hs_record_hist_add(&r, "v100", 1, 20), 0);
	for (unsigned rc = 2; rc < 12; rc++)
		assert_int_equal(hs_record_hist_add(&r, "k80", rc, 20 + rc), 0);
	assert_int_equal(r.nhist, HS_RECORD_MAX_HIST);
	assert_int_equal(r.hist[HS_RECORD_MAX_HIST - 1].rc, 11);
	assert_int_equal(r.hist[0].rc, 4);
	assert_int_equal(hs_record_hist_add(&r, "", 1, 0), -1);
}

/* Long GPU names force trimming: the output always fits in 1000 bytes and
 * stays a valid record. */
static void size_bound(void **state)
{
	hs_record_t r, back;
	hs_err_t err;
	char buf[4096], g[HS_RECORD_GPU_MAX];
	int n;
	(void)state;

	hs_record_init(&r);
	for (int i = 0; i < HS_RECORD_MAX_TYPES; i++) {
		memset(g, 'a' + i, sizeof(g) - 1);
		g[sizeof(g) - 1] = '\0';
		assert_int_equal(hs_record_thr_set(&r, g, 123.456789 * (i + 1), 99999, 1700000000 + i), 0);
		assert_int_equal(hs_record_hist_add(&r, g, (unsigned)i, 1700000000 + i), 0);
	}
	r.has_step = 1;
	r.step = 999999999999999ULL;
	memset(r.model, 'm', HS_RECORD_MODEL_MAX - 1); /* the longest model */
	n = hs_record_format(&r, buf, sizeof(buf), &err);
	assert_true(n > 0 && n <= HS_RECORD_MAX_BYTES);
	assert_int_equal((int)strlen(buf), n);
	assert_int_equal(hs_record_parse(&back, buf, &err), 0);
	assert_true(back.nthr >= 1 && back.nhist >= 1);
	/* the newest entries survive trimming */
	assert_int_equal(back.hist[back.nhist - 1].rc, HS_RECORD_MAX_TYPES - 1);
	assert_non_null(hs_record_thr_find(&back, g));
	assert_string_equal(back.model, r.model);
	/* a small caller buffer is respected */
	n = hs_record_format(&r, buf, 400, &err);
	assert_true(n > 0 && n < 400);
	assert_int_equal(hs_record_format(&r, buf, 8, &err), -1);
}

/* The fuzzing corpus (tests/fuzz/corpus/record): every file parses or is
 * refused without harm; ok-* seeds parse, bad-* seeds are refused;
 * accepted records format within the bound and parse back. */
static void corpus_replay(void **state)
{
	const char *src = getenv("HS_SRCDIR");
	char dir[1024];
	struct dirent *de;
	DIR *d;
	int files = 0, ok = 0;
	(void)state;

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/record", src ? src : ".");
	d = opendir(dir);
	if (!d)
		fail_msg("no corpus at %s", dir);
	while ((de = readdir(d))) {
		char path[2048], text[8193], out[HS_RECORD_MAX_BYTES + 1];
		hs_record_t r, r2;
		hs_err_t err;
		size_t n;
		FILE *f;
		int rc;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		rc = hs_record_parse(&r, text, &err);
		files++;
		if (!strncmp(de->d_name, "ok-", 3) && rc != 0)
			fail_msg("%s refused: %s", de->d_name, err.msg);
		if (!strncmp(de->d_name, "bad-", 4) && rc == 0)
			fail_msg("%s accepted", de->d_name);
		if (rc == 0) {
			ok++;
			assert_true(hs_record_format(&r, out, sizeof(out), &err) > 0);
			assert_int_equal(hs_record_parse(&r2, out, &err), 0);
		}
	}
	closedir(d);
	assert_true(files >= 6 && ok >= 3);
	printf("# corpus: %d files, %d valid records\n", files, ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_example),
		cmocka_unit_test(roundtrip),
		cmocka_unit_test(rejects),
		cmocka_unit_test(ours),
		cmocka_unit_test(editing),
		cmocka_unit_test(size_bound),
		cmocka_unit_test(corpus_replay),
	};
	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
