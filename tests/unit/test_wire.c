/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wire.c — the report wire format (src/report/wire.h): formatting,
 * the grammar's accept/reject cases, and a replay of the fuzzing corpus
 * (tests/fuzz/corpus/wire) through the parser with the round-trip
 * property the fuzz target checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/wire.h"

static int parse_str(const char *s, hs_wire_report_t *r)
{
	const char *why = NULL;
	int rc = hs_wire_parse(s, strlen(s), r, &why);

	if (rc < 0)
		assert_non_null(why);
	return rc;
}

static void accepts(void **state)
{
	hs_wire_report_t r;
	(void)state;

	assert_int_equal(parse_str("hs1 step=42", &r), 0);
	assert_int_equal(r.has, HS_WIRE_HAS_STEP);
	assert_true(r.step == 42);
	assert_int_equal(parse_str("hs1 step=0\n", &r), 0);
	assert_true(r.step == 0);
	assert_int_equal(parse_str("hs1 step=7 samples=448 ckpt=5", &r), 0);
	assert_int_equal(r.has, HS_WIRE_HAS_STEP | HS_WIRE_HAS_SAMPLES | HS_WIRE_HAS_CKPT);
	assert_true(r.samples == 448 && r.ckpt == 5);
	assert_int_equal(parse_str("hs1 ckpt=999999999999999", &r), 0);
	assert_true(r.ckpt == HS_WIRE_VALUE_MAX);
	assert_int_equal(parse_str("hs1 samples=1 step=2", &r), 0);  /* any order */
}

static void rejects(void **state)
{
	static const char *bad[] = {
		"", "hs1", "hs1\n", "hs2 step=1", "HS1 step=1", "hs1step=1",
		"hs1  step=1", "hs1 step=1 ", " hs1 step=1", "hs1 step=", "hs1 step",
		"hs1 =1", "hs1 step=-1", "hs1 step=+1", "hs1 step=01", "hs1 step=1x",
		"hs1 step=1000000000000000", "hs1 step=1 step=2", "hs1 samples=5",
		"hs1 job=7 step=1", "hs1 step=1\n\n", "hs1 step=1\r\n", "hs1 step=1\t",
		"hs1 step=0x10", "hs1 step=1 samples=", "hs1 STEP=1",
	};
	hs_wire_report_t r;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_str(bad[i], &r) == 0)
			fail_msg("accepted \"%s\"", bad[i]);
	/* embedded NUL and over-long input, by length */
	assert_int_equal(hs_wire_parse("hs1 step=1\0", 11, &r, &(const char *){ 0 }), -1);
	{
		char big[300];

		memset(big, '1', sizeof(big));
		memcpy(big, "hs1 step=", 9);
		assert_int_equal(hs_wire_parse(big, sizeof(big), &r, &(const char *){ 0 }), -1);
	}
	assert_int_equal(hs_wire_parse(NULL, 5, &r, &(const char *){ 0 }), -1);
}

static void format_roundtrip(void **state)
{
	hs_wire_report_t in = { .has = HS_WIRE_HAS_STEP | HS_WIRE_HAS_SAMPLES | HS_WIRE_HAS_CKPT,
				.step = 123456789012345ULL, .samples = 1, .ckpt = 0 };
	hs_wire_report_t out;
	char buf[HS_WIRE_MAX + 1];
	int n;
	(void)state;

	n = hs_wire_format(&in, buf, sizeof(buf));
	assert_true(n > 0);
	assert_string_equal(buf, "hs1 step=123456789012345 samples=1 ckpt=0");
	assert_int_equal(parse_str(buf, &out), 0);
	assert_int_equal(out.has, in.has);
	assert_true(out.step == in.step && out.samples == in.samples && out.ckpt == in.ckpt);
	/* invalid reports are not formatted */
	in.has = HS_WIRE_HAS_SAMPLES;
	assert_int_equal(hs_wire_format(&in, buf, sizeof(buf)), -1);
	in.has = 0;
	assert_int_equal(hs_wire_format(&in, buf, sizeof(buf)), -1);
	in.has = HS_WIRE_HAS_STEP;
	in.step = HS_WIRE_VALUE_MAX + 1;
	assert_int_equal(hs_wire_format(&in, buf, sizeof(buf)), -1);
	in.step = 1;
	assert_int_equal(hs_wire_format(&in, buf, 10), -1);  /* buffer too small */
}

/* Every corpus file: the parser terminates; accepted reports survive
 * format -> parse unchanged. Files named ok-* must be accepted and bad-*
 * rejected (hand-written seeds); others (found by the fuzzer) may be
 * either. */
static void corpus_replay(void **state)
{
	const char *src = getenv("HS_SRCDIR");
	char dir[1024];
	struct dirent *de;
	DIR *d;
	int files = 0, ok = 0;
	(void)state;

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/wire", src ? src : ".");
	d = opendir(dir);
	if (!d)
		fail_msg("no corpus at %s", dir);
	while ((de = readdir(d))) {
		char path[2048], buf[4096], fmt[HS_WIRE_MAX + 1];
		hs_wire_report_t r, r2;
		const char *why;
		size_t n;
		FILE *f;
		int rc;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		rc = hs_wire_parse(buf, n, &r, &why);
		files++;
		if (!strncmp(de->d_name, "ok-", 3) && rc != 0)
			fail_msg("%s rejected: %s", de->d_name, why);
		if (!strncmp(de->d_name, "bad-", 4) && rc == 0)
			fail_msg("%s accepted", de->d_name);
		if (rc == 0) {
			ok++;
			assert_true(hs_wire_format(&r, fmt, sizeof(fmt)) > 0);
			assert_int_equal(hs_wire_parse(fmt, strlen(fmt), &r2, &why), 0);
			assert_int_equal(r.has, r2.has);
			assert_true(r.step == r2.step && r.samples == r2.samples && r.ckpt == r2.ckpt);
		}
	}
	closedir(d);
	assert_true(files >= 10);
	assert_true(ok >= 3);
	printf("# corpus: %d files, %d valid reports\n", files, ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepts),
		cmocka_unit_test(rejects),
		cmocka_unit_test(format_roundtrip),
		cmocka_unit_test(corpus_replay),
	};
	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
