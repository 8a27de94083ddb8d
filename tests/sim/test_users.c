/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_users.c — the simulator's users and accounts (users.h): --users and
 * --accounts parsing, every malformed item refused with a message, and the
 * deterministic spread of generated jobs over users by fraction. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/entitle.h"
#include "sim/users.h"

static void parse_good(void **state)
{
	(void)state;
	hs_sim_users_t u;
	hs_err_t err = { "" };
	hs_sim_users_init(&u);
	if (hs_sim_users_parse(&u, "alice@phys:0.6:2,bob@phys:0.3,carol:0.1", "phys:3,cs:1",
			       &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(u.naccounts, 3); /* phys, cs, and sim for carol */
	assert_int_equal(u.nusers, 3);
	assert_string_equal(u.accounts[u.users[0].account].name, "phys");
	assert_true(u.accounts[u.users[0].account].shares == 3);
	assert_true(u.users[0].shares == 2);
	assert_true(u.users[1].shares == 1);
	assert_true(u.users[0].fraction == 0.6);
	assert_string_equal(u.accounts[u.users[2].account].name, "sim");
	/* find: an existing user, then a new one in a new account */
	assert_int_equal(hs_sim_users_find(&u, "bob", "phys"), 1);
	assert_int_equal(hs_sim_users_find(&u, "bob", "cs"), 3);
	assert_int_equal(hs_sim_users_find(&u, "dave", "bio"), 4);
	assert_int_equal(u.naccounts, 4);
	assert_true(u.users[4].shares == 1 && u.users[4].fraction == 0);
	hs_sim_users_t c;
	assert_int_equal(hs_sim_users_copy(&c, &u), 0);
	assert_int_equal(c.nusers, 5);
	assert_string_equal(c.users[4].name, "dave");
	hs_sim_users_free(&c);
	hs_sim_users_free(&u);
}

static void parse_bad(void **state)
{
	(void)state;
	static const struct { const char *users, *accounts, *expect; } cases[] = {
		{ "alice:0.5,bob:0.4", NULL, "add up to 0.9" },
		{ "alice", NULL, "NAME[@ACCOUNT]:FRACTION" },
		{ "al ice:1", NULL, "NAME[@ACCOUNT]:FRACTION" },
		{ "alice@:1", NULL, "NAME[@ACCOUNT]:FRACTION" },
		{ "alice:0", NULL, "NAME[@ACCOUNT]:FRACTION" },
		{ "alice:1.5", NULL, "NAME[@ACCOUNT]:FRACTION" },
		{ "alice:nan", NULL, "NAME[@ACCOUNT]:FRACTION" },
		{ "alice:1:-2", NULL, "NAME[@ACCOUNT]:FRACTION" },
		{ "alice:0.5,alice:0.5", NULL, "given twice" },
		{ NULL, "phys", "not NAME:SHARES" },
		{ NULL, "phys:0", "Shares > 0" },
		{ NULL, "phys:1,phys:2", "given twice" },
		{ NULL, "p/hys:1", "Shares > 0" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hs_sim_users_t u;
		hs_err_t err = { "" };
		hs_sim_users_init(&u);
		assert_int_equal(hs_sim_users_parse(&u, cases[i].users, cases[i].accounts, &err), -1);
		if (!strstr(err.msg, cases[i].expect))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].expect);
		hs_sim_users_free(&u);
	}
	char big[5000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	hs_sim_users_t u;
	hs_err_t err;
	hs_sim_users_init(&u);
	assert_int_equal(hs_sim_users_parse(&u, big, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	hs_sim_users_free(&u);
}

/* Jobs go to users in proportion to their fractions at every prefix
 * (within one job), not only in total. */
static void spread(void **state)
{
	(void)state;
	hs_sim_users_t u;
	hs_err_t err;
	hs_sim_users_init(&u);
	assert_int_equal(hs_sim_users_parse(&u, "a:0.9,b:0.1", NULL, &err), 0);
	long jobs[2] = { 0, 0 };
	for (long n = 0; n < 1000; n++) {
		int x = hs_sim_users_next(&u, n, jobs);
		assert_true(x == 0 || x == 1);
		for (int i = 0; i < 2; i++) {
			double want = u.users[i].fraction * (double)(n + 1);
			assert_true(jobs[i] > want - 1.0 - 1e-9 && jobs[i] < want + 1.0 + 1e-9);
		}
	}
	assert_int_equal(jobs[0], 900);
	assert_int_equal(jobs[1], 100);
	hs_sim_users_free(&u);
	/* nobody with a fraction: -1 */
	hs_sim_users_init(&u);
	assert_int_equal(hs_sim_users_next(&u, 0, jobs), -1);
	hs_sim_users_free(&u);
}

/* Entitlements: accounts by Shares, users by Shares inside them, each
 * capped by its demand, what a cap leaves going to the others. */
static void entitle(void **state)
{
	(void)state;
	hs_sim_users_t u;
	hs_err_t err;
	hs_sim_users_init(&u);
	/* phys:3 {alice:2, bob:1}, cs:1 {carol:1} */
	assert_int_equal(hs_sim_users_parse(&u, "alice@phys:0.5:2,bob@phys:0.25,carol@cs:0.25",
					    "phys:3,cs:1", &err), 0);
	double out[3];
	/* everyone wants a lot: 12 GPUs -> phys 9 (alice 6, bob 3), cs 3 */
	double d1[3] = { 100, 100, 100 };
	assert_int_equal(hs_sim_entitle(&u, d1, 12, out), 0);
	assert_true(fabs(out[0] - 6) < 1e-9 && fabs(out[1] - 3) < 1e-9 && fabs(out[2] - 3) < 1e-9);
	/* carol wants 1: cs gets 1, phys the other 11 (alice 22/3, bob 11/3) */
	double d2[3] = { 100, 100, 1 };
	assert_int_equal(hs_sim_entitle(&u, d2, 12, out), 0);
	assert_true(fabs(out[2] - 1) < 1e-9);
	assert_true(fabs(out[0] - 22.0 / 3) < 1e-9 && fabs(out[1] - 11.0 / 3) < 1e-9);
	/* bob wants 1 inside phys: alice gets the rest of phys' 9 */
	double d3[3] = { 100, 1, 100 };
	assert_int_equal(hs_sim_entitle(&u, d3, 12, out), 0);
	assert_true(fabs(out[0] - 8) < 1e-9 && fabs(out[1] - 1) < 1e-9 && fabs(out[2] - 3) < 1e-9);
	/* nobody idle is entitled to anything; demand below supply is met */
	double d4[3] = { 2, 0, 1 };
	assert_int_equal(hs_sim_entitle(&u, d4, 12, out), 0);
	assert_true(out[0] == 2 && out[1] == 0 && out[2] == 1);
	hs_sim_users_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_good),
		cmocka_unit_test(parse_bad),
		cmocka_unit_test(spread),
		cmocka_unit_test(entitle),
	};
	return cmocka_run_group_tests_name("users", tests, NULL, NULL);
}
