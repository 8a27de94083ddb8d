/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_gres.c — GPU type from Slurm's GRES allocation detail string
 * (src/report/gres.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "report/gres.h"

static void typed(void **state)
{
	char t[64];
	int sh = -1;
	(void)state;

	assert_int_equal(hs_gres_gpu_type("gpu:v100:1(IDX:0)", t, sizeof(t), &sh), 0);
	assert_string_equal(t, "v100");
	assert_int_equal(sh, 0);
	assert_int_equal(hs_gres_gpu_type("gpu:k80:2(IDX:0-1),gpu:v100:1(IDX:3)", t, sizeof(t), &sh), 0);
	assert_string_equal(t, "k80+v100");
	assert_int_equal(hs_gres_gpu_type("gpu:v100:1(IDX:3),gpu:k80:2(IDX:0-1)", t, sizeof(t), &sh), 0);
	assert_string_equal(t, "k80+v100");
	assert_int_equal(hs_gres_gpu_type("shard:p100:1(1/2,0/0)", t, sizeof(t), &sh), 0);
	assert_string_equal(t, "p100");
	assert_int_equal(sh, 1);
	assert_int_equal(hs_gres_gpu_type("nic:1,gpu:a100_80g:1(IDX:0),mps:100", t, sizeof(t), &sh), 0);
	assert_string_equal(t, "a100_80g");
	assert_int_equal(sh, 0);
	assert_int_equal(hs_gres_gpu_type("gpu:3090:4", t, sizeof(t), &sh), 0);
	assert_string_equal(t, "3090");
}

static void untyped_or_bad(void **state)
{
	static const char *bad[] = {
		"", "gpu:1(IDX:0)", "nic:1", "gpu", "gpu:v100", "gpu:v100:x(IDX:0)",
		"gpu:v 100:1", "gpu:v100:1(IDX:0", "gpu:v100:1)IDX(", "gpu:v100:1((IDX))",
		"gpu:$(rm -rf):1", "gpu::1",
		"gpu:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:1",
	};
	char t[64];
	int sh;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (hs_gres_gpu_type(bad[i], t, sizeof(t), &sh) == 0)
			fail_msg("accepted \"%s\" as %s", bad[i], t);
		assert_string_equal(t, "");
		assert_int_equal(sh, 0);
	}
	assert_int_equal(hs_gres_gpu_type(NULL, t, sizeof(t), &sh), -1);
	/* output buffer too small for the joined name */
	assert_int_equal(hs_gres_gpu_type("gpu:k80:1,gpu:v100:1", t, 6, &sh), -1);
}

/* The joined types fit 64 bytes (a record key, HS_RECORD_GPU_MAX) whatever
 * the buffer: with a larger one, 48 + '+' + 15 = 64 characters were
 * returned, the '+' left out of the length check (found by
 * tests/fuzz/fuzz_gres.c). */
static void joined_length(void **state)
{
	char a[49], b[16], d[256], t[256];
	int sh;
	(void)state;

	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memset(b, 'b', sizeof(b) - 1);
	b[sizeof(b) - 1] = '\0';
	snprintf(d, sizeof(d), "gpu:%s:1(IDX:0),gpu:%s:1(IDX:1)", a, b);
	assert_int_equal(hs_gres_gpu_type(d, t, sizeof(t), &sh), -1);
	assert_string_equal(t, "");
	assert_int_equal(hs_gres_gpu_type(d, t, 64, &sh), -1);
	/* one character less: 63 fit */
	b[sizeof(b) - 2] = '\0';
	snprintf(d, sizeof(d), "gpu:%s:1(IDX:0),gpu:%s:1(IDX:1)", a, b);
	assert_int_equal(hs_gres_gpu_type(d, t, sizeof(t), &sh), 0);
	assert_int_equal(strlen(t), 63);
	assert_int_equal(hs_gres_gpu_type(d, t, 64, &sh), 0);
	assert_int_equal(strlen(t), 63);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(typed),
		cmocka_unit_test(untyped_or_bad),
		cmocka_unit_test(joined_length),
	};
	return cmocka_run_group_tests_name("gres", tests, NULL, NULL);
}
