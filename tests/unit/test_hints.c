/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_hints.c — validation of user hints and plugstack.conf arguments
 * (src/report/hints.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <string.h>

#include "report/hints.h"

static void models(void **state)
{
	char long_name[200];
	(void)state;

	assert_true(hs_hint_model_ok("ResNet-50 (batch size 64)"));
	assert_true(hs_hint_model_ok("A3C"));
	assert_false(hs_hint_model_ok(""));
	assert_false(hs_hint_model_ok(NULL));
	assert_false(hs_hint_model_ok("a\"b"));
	assert_false(hs_hint_model_ok("a\\b"));
	assert_false(hs_hint_model_ok("tab\there"));
	assert_false(hs_hint_model_ok("new\nline"));
	assert_false(hs_hint_model_ok("\xc3\xa9"));
	memset(long_name, 'x', sizeof(long_name));
	long_name[127] = '\0';
	assert_true(hs_hint_model_ok(long_name));
	long_name[127] = 'x';
	long_name[128] = '\0';
	assert_false(hs_hint_model_ok(long_name));
}

static void steps(void **state)
{
	uint64_t v;
	(void)state;

	assert_int_equal(hs_hint_steps_parse("1", &v), 0);
	assert_true(v == 1);
	assert_int_equal(hs_hint_steps_parse("1000000000000000", &v), 0);
	assert_int_equal(hs_hint_steps_parse("1000000000000001", &v), -1);
	assert_int_equal(hs_hint_steps_parse("0", &v), -1);
	assert_int_equal(hs_hint_steps_parse("-1", &v), -1);
	assert_int_equal(hs_hint_steps_parse(" 5", &v), -1);
	assert_int_equal(hs_hint_steps_parse("5k", &v), -1);
	assert_int_equal(hs_hint_steps_parse("", &v), -1);
	assert_int_equal(hs_hint_steps_parse("99999999999999999999999", &v), -1);
}

static void dirs(void **state)
{
	char out[64];
	(void)state;

	assert_true(hs_hint_dir_ok("/scratch/ckpt/%u/%j"));
	assert_false(hs_hint_dir_ok("relative/dir"));
	assert_false(hs_hint_dir_ok("/a\nb"));
	assert_false(hs_hint_dir_ok(""));
	assert_int_equal(hs_hint_dir_expand("/s/%u/%j/100%%/%x", 42, "ann", out, sizeof(out)), 0);
	assert_string_equal(out, "/s/ann/42/100%/%x");
	assert_int_equal(hs_hint_dir_expand("/%j%j%j%j%j%j%j%j%j%j", 4294967295u, "u", out, 32), -1);
	assert_string_equal(out, "");
	assert_int_equal(hs_hint_dir_expand("/trailing%", 1, "u", out, sizeof(out)), 0);
	assert_string_equal(out, "/trailing%");
}

static void signals(void **state)
{
	(void)state;
	assert_int_equal(hs_hint_ckpt_signal("URG"), SIGURG);
	assert_int_equal(hs_hint_ckpt_signal("sigusr1"), SIGUSR1);
	assert_int_equal(hs_hint_ckpt_signal("SIGWINCH"), SIGWINCH);
	assert_int_equal(hs_hint_ckpt_signal("12"), SIGUSR2);
	assert_int_equal(hs_hint_ckpt_signal("TERM"), -1);
	assert_int_equal(hs_hint_ckpt_signal("9"), -1);
	assert_int_equal(hs_hint_ckpt_signal("STOP"), -1);
	assert_int_equal(hs_hint_ckpt_signal(""), -1);
	assert_int_equal(hs_hint_ckpt_signal(NULL), -1);
	assert_true(hs_hint_ckpt_signal_ok(SIGURG));
	assert_false(hs_hint_ckpt_signal_ok(SIGTSTP));
}

static void conf(void **state)
{
	hs_spank_conf_t c;
	char err[256];
	char *good[] = { "publish_interval=2", "window=0.5", "max_rate=50", "max_sps=1000",
			 "ckpt_signal=USR2", "ckpt_hold=30", "min_interval_us=0", "ckpt_base=/ckpt" };
	char *bad[] = { "publish_interval=0", "window=abc", "max_rate=1.5", "ckpt_signal=KILL",
			"ckpt_base=relative", "nokey", "unknown=1", "ckpt_hold=-1" };
	(void)state;

	hs_spank_conf_defaults(&c);
	assert_int_equal(hs_spank_conf_parse(&c, 8, good, err, sizeof(err)), 0);
	assert_float_equal(c.publish_interval, 2, 0);
	assert_float_equal(c.window, 0.5, 0);
	assert_int_equal(c.max_rate, 50);
	assert_float_equal(c.max_sps, 1000, 0);
	assert_int_equal(c.ckpt_signal, SIGUSR2);
	assert_int_equal(c.ckpt_hold, 30);
	assert_int_equal(c.min_interval_us, 0);
	assert_string_equal(c.ckpt_base, "/ckpt");
	hs_spank_conf_defaults(&c);
	assert_int_equal(hs_spank_conf_parse(&c, 8, bad, err, sizeof(err)), 8);
	assert_non_null(strstr(err, "publish_interval=0"));
	/* every bad argument kept its default */
	assert_float_equal(c.publish_interval, 60, 0);
	assert_float_equal(c.window, 5, 0);
	assert_int_equal(c.max_rate, 1000);
	assert_int_equal(c.ckpt_signal, SIGURG);
	assert_int_equal(c.ckpt_hold, 120);
	assert_string_equal(c.ckpt_base, "");
	/* the socket directory: absolute, short enough for sun_path, not / */
	{
		char *dirs_good[] = { "socket_dir=/var/run/hs" };
		char *dirs_bad[] = { "socket_dir=run/hs", "socket_dir=/",
				     "socket_dir=/0123456789012345678901234567890123456789" };

		hs_spank_conf_defaults(&c);
		assert_string_equal(c.socket_dir, "/run/hetsched");
		assert_int_equal(hs_spank_conf_parse(&c, 1, dirs_good, err, sizeof(err)), 0);
		assert_string_equal(c.socket_dir, "/var/run/hs");
		hs_spank_conf_defaults(&c);
		assert_int_equal(hs_spank_conf_parse(&c, 3, dirs_bad, err, sizeof(err)), 3);
		assert_string_equal(c.socket_dir, "/run/hetsched");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(models),
		cmocka_unit_test(steps),
		cmocka_unit_test(dirs),
		cmocka_unit_test(signals),
		cmocka_unit_test(conf),
	};
	return cmocka_run_group_tests_name("hints", tests, NULL, NULL);
}
