/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_estimator.c — steps/s estimation (src/report/estimator.h): windows,
 * the EMA, and the exclusions that keep suspend/resume and pauses from
 * corrupting the estimate. Times are synthetic: no clock involved. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "report/estimator.h"

/* exactly representable steps: 8 and 16 steps/s */
#define D 0.125
#define H 0.0625

/* Feeds `count` reports, one step every dt seconds, from (*step, *t). */
static int feed(hs_est_t *e, uint64_t *step, double *t, int count, double dt)
{
	int samples = 0;

	for (int i = 0; i < count; i++) {
		*step += 1;
		*t += dt;
		samples += hs_est_report(e, *step, *t);
	}
	return samples;
}

static hs_est_t make(double window)
{
	hs_est_params_t p;
	hs_est_t e;

	hs_est_defaults(&p);
	p.window_s = window;
	hs_est_init(&e, &p);
	return e;
}

static void steady_rate(void **state)
{
	hs_est_t e = make(5);
	uint64_t s = 100;    /* a resumed job starts at its checkpoint step */
	double t = 1000;
	(void)state;

	assert_int_equal(hs_est_report(&e, s, t), 0);   /* base only */
	assert_int_equal(feed(&e, &s, &t, 39, D), 0);   /* 4.875 s: no window yet */
	assert_int_equal(e.n, 0);
	assert_int_equal(feed(&e, &s, &t, 1, D), 1);
	assert_int_equal(e.n, 1);
	assert_float_equal(e.ema, 8.0, 1e-9);
	assert_int_equal(feed(&e, &s, &t, 40, D), 1);
	assert_float_equal(e.ema, 8.0, 1e-9);
}

static void ema_alpha(void **state)
{
	hs_est_t e = make(1);
	uint64_t s = 0;
	double t = 0;
	(void)state;

	hs_est_report(&e, s, t);
	feed(&e, &s, &t, 8, D);                     /* 8 steps/s */
	assert_float_equal(e.ema, 8.0, 1e-9);
	feed(&e, &s, &t, 16, H);                    /* 16 steps/s */
	assert_float_equal(e.ema, 12.0, 1e-9);      /* 0.5 * 16 + 0.5 * 8 */
	feed(&e, &s, &t, 16, H);
	assert_float_equal(e.ema, 14.0, 1e-9);
	assert_int_equal(e.n, 3);
}

/* A Slurm suspend of 60 s: the stopped observation excludes it. */
static void suspend_observed(void **state)
{
	hs_est_t e = make(1);
	uint64_t s = 0;
	double t = 0;
	(void)state;

	hs_est_report(&e, s, t);
	feed(&e, &s, &t, 24, D);
	assert_float_equal(e.ema, 8.0, 1e-9);
	hs_est_stopped(&e);
	s += 1;
	t += 60.0;                                    /* resumed */
	assert_int_equal(hs_est_report(&e, s, t), 0);
	assert_int_equal(e.excluded_stop, 1);
	feed(&e, &s, &t, 24, D);
	assert_float_equal(e.ema, 8.0, 1e-9);
	/* even a stop shorter than any gap rule is excluded */
	hs_est_stopped(&e);
	s += 1;
	t += 0.5;
	hs_est_report(&e, s, t);
	assert_int_equal(e.excluded_stop, 2);
	feed(&e, &s, &t, 24, D);
	assert_float_equal(e.ema, 8.0, 1e-9);
}

/* A pause nobody observed (SIGSTOP between two polls, or an evaluation
 * phase) is excluded by the gap rule once a rate is known. */
static void unobserved_gap(void **state)
{
	hs_est_t e = make(1);
	uint64_t s = 0;
	double t = 0;
	(void)state;

	hs_est_report(&e, s, t);
	feed(&e, &s, &t, 12, D);                    /* a rate from the window */
	s += 1;
	t += 30.0;
	hs_est_report(&e, s, t);
	assert_int_equal(e.excluded_gap, 1);
	feed(&e, &s, &t, 24, D);
	assert_float_equal(e.ema, 8.0, 1e-9);
	/* slower but not a gap: 5x the predicted time is counted */
	feed(&e, &s, &t, 8, 5 * D);
	assert_int_equal(e.excluded_gap, 1);
	assert_true(e.ema < 8.0);
	/* intervals below gap_min are never gaps even if relatively long */
	{
		hs_est_t f = make(1);
		uint64_t u = 0;
		double v = 0;

		hs_est_report(&f, u, v);
		feed(&f, &u, &v, 100, 0.01);            /* 100 steps/s */
		feed(&f, &u, &v, 1, 0.9);               /* 90x slower, < 1 s */
		assert_int_equal(f.excluded_gap, 0);
	}
}

static void duplicates_and_lower(void **state)
{
	hs_est_t e = make(1);
	uint64_t s = 50;
	double t = 0;
	(void)state;

	hs_est_report(&e, s, t);
	for (int i = 0; i < 8; i++) {
		/* rank 0 at s+1, rank 1 still at s: duplicates/lower ignored */
		s += 1;
		t += D;
		hs_est_report(&e, s, t);
		hs_est_report(&e, s, t + 0.01);
		hs_est_report(&e, s - 1, t + 0.02);
	}
	assert_int_equal(e.duplicates, 8);
	assert_int_equal(e.lower, 8);
	assert_int_equal(e.resets, 0);
	assert_int_equal(e.n, 1);
	assert_float_equal(e.ema, 8.0, 1e-9);
	/* a restarted loop (a run of lower steps) moves the base back */
	s = 5;
	for (int i = 0; i < 20; i++) {
		s += 1;
		t += D;
		hs_est_report(&e, s, t);
	}
	assert_int_equal(e.resets, 1);
	assert_true(e.base_step == s);
}

static void too_fast_and_bad_input(void **state)
{
	hs_est_t e = make(1);
	hs_est_params_t p;
	(void)state;

	hs_est_report(&e, 0, 0);
	assert_int_equal(hs_est_report(&e, 10, 0), 0);          /* dt = 0 */
	assert_int_equal(e.excluded_fast, 1);
	assert_int_equal(hs_est_report(&e, 999999999999ULL, 1), 0);
	assert_int_equal(e.excluded_fast, 2);
	assert_int_equal(hs_est_report(&e, 1000000000000ULL, NAN), 0);
	assert_int_equal(e.n, 0);
	/* invalid parameters fall back to defaults */
	p.window_s = -1;
	p.alpha = 2;
	p.gap_min_s = NAN;
	p.gap_factor = 0.5;
	p.max_sps = INFINITY;
	p.reset_after = 0;
	hs_est_init(&e, &p);
	assert_float_equal(e.p.window_s, 5, 0);
	assert_float_equal(e.p.alpha, 0.5, 0);
	assert_float_equal(e.p.gap_min_s, 1, 0);
	assert_float_equal(e.p.gap_factor, 10, 0);
	assert_float_equal(e.p.max_sps, 1e6, 0);
	assert_int_equal(e.p.reset_after, 16);
}

/* Two finite times whose difference overflows (-1e308 then 1e308) made an
 * infinite interval: counted, it closed a window at 0 steps/s, an estimate
 * of 0 (found by tests/fuzz/fuzz_estimator.c). It is a gap now. */
static void infinite_interval(void **state)
{
	hs_est_t e = make(1);
	(void)state;

	hs_est_report(&e, 0, -1e308);
	assert_int_equal(hs_est_report(&e, 1, 1e308), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(e.excluded_gap, 1);
	assert_true(e.win_time == 0);
}

static void seeded(void **state)
{
	hs_est_t e = make(1);
	uint64_t s = 0;
	double t = 0;
	(void)state;

	hs_est_seed(&e, NAN, 3);
	assert_int_equal(e.n, 0);
	hs_est_seed(&e, 20.0, 4);
	assert_int_equal(e.n, 4);
	hs_est_report(&e, s, t);
	/* the seed's rate recognises a gap before any new sample */
	s += 1;
	t += 5.0;
	hs_est_report(&e, s, t);
	assert_int_equal(e.excluded_gap, 1);
	feed(&e, &s, &t, 8, D);
	assert_int_equal(e.n, 5);
	assert_int_equal(e.new_samples, 1);
	assert_float_equal(e.ema, 14.0, 1e-9);     /* 0.5 * 8 + 0.5 * 20 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(steady_rate),
		cmocka_unit_test(ema_alpha),
		cmocka_unit_test(suspend_observed),
		cmocka_unit_test(unobserved_gap),
		cmocka_unit_test(duplicates_and_lower),
		cmocka_unit_test(too_fast_and_bad_input),
		cmocka_unit_test(seeded),
		cmocka_unit_test(infinite_interval),
	};
	return cmocka_run_group_tests_name("estimator", tests, NULL, NULL);
}
