/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_start_est.c — the start-time estimator (src/core/start_est.c) and
 * the mechanism's per-job shares it reads (hs_mech_shares): running jobs
 * start now, a share job comes back at the round its received share
 * falls to its target, jobs without a share queue behind the work ahead
 * on the GPU pool (rounded up to round boundaries), impossible jobs get
 * -1, bad input is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/mechanism.h"
#include "core/start_est.h"

static hs_start_in_t in4(void)
{
	return (hs_start_in_t){ .now = 1000, .round_s = 100, .since_reset_s = 0, .gpus = 4,
				.unknown_s = 3600 };
}

static void test_running_now_and_queue(void **state)
{
	(void)state;
	hs_start_in_t in = in4();
	/* two running jobs: 2 GPUs until +250, 2 GPUs until +450; queue:
	 * a 2-GPU job (the +250 pair: round boundary +300), then a 4-GPU
	 * job (after the first queued one ends at +300+500 = +800) */
	hs_start_job_t j[4] = {
		{ .gpus = 2, .running = 1, .remaining_s = 250 },
		{ .gpus = 2, .running = 1, .remaining_s = 450 },
		{ .gpus = 2, .remaining_s = 500 },
		{ .gpus = 4, .remaining_s = 10 },
	};
	double st[4];
	hs_err_t err;
	assert_int_equal(hs_start_estimate(&in, j, 4, st, &err), 0);
	assert_true(st[0] == 1000 && st[1] == 1000);
	assert_true(st[2] == 1300);
	assert_true(st[3] == 1800);
}

/* A packed pair's two jobs hold the same 2 GPUs: the running jobs count
 * 6 GPUs of 4. The pool is built job by job then (start_est.c
 * running_pool): the third running job takes the pair's GPUs at their
 * end (+250) and holds them to +250+950; a pool built as if all 6 were
 * distinct would free them at +950 and start the 4-GPU job at +800. */
static void test_packed_pair_counted_once(void **state)
{
	(void)state;
	hs_start_in_t in = in4();
	hs_start_job_t j[5] = {
		{ .gpus = 2, .running = 1, .remaining_s = 250 },
		{ .gpus = 2, .running = 1, .remaining_s = 250 },
		{ .gpus = 2, .running = 1, .remaining_s = 950 },
		{ .gpus = 2, .remaining_s = 500 },
		{ .gpus = 4, .remaining_s = 10 },
	};
	double st[5];
	hs_err_t err;
	assert_int_equal(hs_start_estimate(&in, j, 5, st, &err), 0);
	assert_true(st[0] == 1000 && st[1] == 1000 && st[2] == 1000);
	assert_true(st[3] == 1300);
	assert_true(st[4] == 2200);
}

static void test_idle_gpus_next_round(void **state)
{
	(void)state;
	hs_start_in_t in = in4();
	hs_start_job_t j = { .gpus = 1, .remaining_s = 50 };
	double st;
	hs_err_t err;
	assert_int_equal(hs_start_estimate(&in, &j, 1, &st, &err), 0);
	assert_true(st == 1100); /* idle GPU: the next round, never "now" */
}

static void test_share_round(void **state)
{
	(void)state;
	hs_start_in_t in = in4();
	in.since_reset_s = 400;
	/* share 0.25, ran 200 s of 400 (R = 100): behind again when
	 * (200 + 50) / (400 + n 100 + 50) <= 0.25, n >= 5.5 -> 6 */
	hs_start_job_t j[2] = {
		{ .gpus = 1, .share = 0.25, .recv_s = 200, .remaining_s = 1000 },
		/* ahead of nothing: never ran, share 0.5: next round */
		{ .gpus = 1, .share = 0.5, .recv_s = 0, .remaining_s = 1000 },
	};
	double st[2];
	hs_err_t err;
	assert_int_equal(hs_start_estimate(&in, j, 2, st, &err), 0);
	assert_true(st[0] == 1600);
	assert_true(st[1] == 1100);
}

/* A job that arrived since the reset under a sharing policy: the round
 * of the next reset; under a queue policy: behind the work ahead. */
static void test_new_job_next_reset(void **state)
{
	(void)state;
	hs_start_in_t in = in4();
	in.gpus = 1;
	in.next_reset = 1250;
	hs_start_job_t j[2] = {
		{ .gpus = 1, .running = 1, .remaining_s = 5000 },
		{ .gpus = 1, .new_job = 1, .remaining_s = 100 },
	};
	double st[2];
	hs_err_t err;
	in.sharing = 1;
	assert_int_equal(hs_start_estimate(&in, j, 2, st, &err), 0);
	assert_true(st[1] == 1300);
	in.sharing = 0;
	assert_int_equal(hs_start_estimate(&in, j, 2, st, &err), 0);
	assert_true(st[1] == 6000);
}

static void test_unknown_and_impossible(void **state)
{
	(void)state;
	hs_start_in_t in = in4();
	in.gpus = 1;
	in.unknown_s = 700;
	hs_start_job_t j[3] = {
		{ .gpus = 1, .running = 1, .remaining_s = -1 }, /* unknown: 700 s */
		{ .gpus = 2 },                                  /* more than exist */
		{ .gpus = 1, .remaining_s = 5 },
	};
	double st[3];
	hs_err_t err;
	assert_int_equal(hs_start_estimate(&in, j, 3, st, &err), 0);
	assert_true(st[1] == -1);
	assert_true(st[2] == 1700);
}

static void test_bad_input(void **state)
{
	(void)state;
	hs_start_in_t in = in4();
	hs_start_job_t j = { .gpus = 0 };
	double st;
	hs_err_t err;
	assert_int_equal(hs_start_estimate(&in, &j, 1, &st, &err), -1);
	in.round_s = 0;
	j.gpus = 1;
	assert_int_equal(hs_start_estimate(&in, &j, 1, &st, &err), -1);
	assert_non_null(strstr(err.msg, "round"));
}

/* The mechanism's shares: a 2-job problem on one type with 1 GPU and an
 * allocation of 0.75 / 0.25; after one round the first runs. */
static void test_mech_shares(void **state)
{
	(void)state;
	hs_err_t err;
	char *names[1] = { "v100" };
	int count[1] = { 1 };
	double price[1] = { 0 };
	double thr[2][1] = { { 1.0 }, { 1.0 } };
	hs_job_t jobs[2] = {
		{ .id = "a", .scale_factor = 1, .weight = 1, .remaining_steps = 100, .thr = thr[0],
		  .job_type = -1, .entity = -1 },
		{ .id = "b", .scale_factor = 1, .weight = 1, .remaining_steps = 100, .thr = thr[1],
		  .job_type = -1, .entity = -1 },
	};
	hs_problem_t p;
	memset(&p, 0, sizeof(p));
	p.cluster.ntypes = 1;
	p.cluster.names = names;
	p.cluster.count = count;
	p.cluster.price = price;
	p.njobs = 2;
	p.jobs = jobs;
	unsigned char usable[1] = { 1 };
	hs_server_t srv = { .name = "n1", .type = 0, .ngpus = 1, .usable = usable };
	hs_mech_opts_t o;
	hs_mech_opts_default(&o);
	hs_mech_t *m = hs_mech_new(&o, &err);
	assert_non_null(m);
	hs_round_in_t in = { .elapsed_s = 0, .problem = &p, .nservers = 1, .servers = &srv };
	assert_true(hs_mech_begin_round(m, &in, &err) >= 0);
	hs_alloc_t a;
	assert_int_equal(hs_alloc_init(&a, 2, 1, &err), 0);
	a.x[0] = 0.75;
	a.x[1] = 0.25;
	hs_round_out_t out;
	assert_int_equal(hs_mech_schedule(m, &in, &a, &out, &err), 0);
	double share[2], recv[2];
	unsigned char in_alloc[2];
	hs_mech_shares(m, 2, share, recv, in_alloc);
	assert_true(in_alloc[0] && in_alloc[1]);
	assert_true(share[0] > 0.749 && share[0] < 0.751);
	assert_true(share[1] > 0.249 && share[1] < 0.251);
	assert_true(recv[0] == 0 && recv[1] == 0);
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	hs_mech_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_running_now_and_queue),
		cmocka_unit_test(test_packed_pair_counted_once),
		cmocka_unit_test(test_idle_gpus_next_round),
		cmocka_unit_test(test_share_round),
		cmocka_unit_test(test_new_job_next_reset),
		cmocka_unit_test(test_unknown_and_impossible),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_mech_shares),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
