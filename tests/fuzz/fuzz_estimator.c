/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_estimator.c — libFuzzer target for the steps/s estimator
 * (src/report/estimator.h) that the report listener in slurmstepd feeds
 * with the step counts a job reports: the job chooses the counts and,
 * within its send times, the pace. Input: byte 0 selects parameters (the
 * defaults, small realistic ones, or raw doubles as hs_est_init's
 * validation sees them) and a seed; then a sequence of operations, each an
 * op byte and its operands: the job seen stopped, a report at a raw step
 * and raw time, or a report moving the step and time by 16-bit amounts
 * (forwards, backwards, or not at all). Properties, after every operation:
 *  - the parameters in use are valid whatever was asked (finite, window >
 *    0, alpha in (0, 1], gap factor >= 1, max_sps > 0, reset_after > 0);
 *  - once there is a sample, the estimate is finite, > 0 and at most
 *    max_sps (or the seed, when that was higher): every counted interval is
 *    at most max_sps, so every window and every average of them is too;
 *  - the open window holds 0 <= counted time < window_s;
 *  - n counts the seed plus the samples made, and a report returns 1
 *    exactly when it made one; otherwise the estimate does not move;
 *  - each report after the first lands in exactly one place: a duplicate,
 *    a lower report, an exclusion (stopped, gap, too fast) or the window,
 *    and the base moves to it unless it was a duplicate or a lower report
 *    that did not restart the base;
 *  - a report at a non-finite time changes nothing.
 * Run with tests/fuzz/run.sh. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/estimator.h"

#define MAX_OPS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

/* A cursor over the input; reads past the end give zeros. */
typedef struct in {
	const uint8_t *p;
	size_t left;
} in_t;

static uint64_t take(in_t *in, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && in->left; i++, in->left--)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

static double take_double(in_t *in)
{
	uint64_t bits = take(in, 8);
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static void setup(hs_est_t *e, in_t *in, unsigned mode, double *bound)
{
	hs_est_params_t p;
	double seed = 0;

	hs_est_defaults(&p);
	if (mode & 1) {                    /* raw: whatever a caller passes */
		p.window_s = take_double(in);
		p.alpha = take_double(in);
		p.gap_min_s = take_double(in);
		p.gap_factor = take_double(in);
		p.max_sps = take_double(in);
		p.reset_after = (unsigned)take(in, 4);
	} else if (mode & 2) {             /* plugstack.conf-like values */
		p.window_s = 0.1 + (double)take(in, 1) / 8;
		p.alpha = (1 + (double)take(in, 1)) / 256;
		p.gap_min_s = (double)take(in, 1) / 16;
		p.gap_factor = 1 + (double)take(in, 1) / 8;
		p.max_sps = pow(10, (double)(take(in, 1) % 13));
		p.reset_after = 1 + (unsigned)take(in, 1) % 32;
	}
	hs_est_init(e, &p);
	check(isfinite(e->p.window_s) && e->p.window_s > 0);
	check(isfinite(e->p.alpha) && e->p.alpha > 0 && e->p.alpha <= 1);
	check(isfinite(e->p.gap_min_s) && e->p.gap_min_s >= 0);
	check(isfinite(e->p.gap_factor) && e->p.gap_factor >= 1);
	check(isfinite(e->p.max_sps) && e->p.max_sps > 0);
	check(e->p.reset_after > 0);
	if (mode & 4) {
		seed = take_double(in);
		hs_est_seed(e, seed, (unsigned long)take(in, 1));
		check(e->n == 0 || (isfinite(seed) && seed > 0 && e->ema == seed));
	}
	*bound = e->n && seed > e->p.max_sps ? seed : e->p.max_sps;
}

static void check_state(const hs_est_t *e, unsigned long n0, double bound)
{
	check(e->n == n0 + e->new_samples);
	if (e->n)
		check(isfinite(e->ema) && e->ema > 0 && e->ema <= bound * (1 + 1e-9));
	check(isfinite(e->win_time) && e->win_time >= 0 && e->win_time < e->p.window_s);
	check(isfinite(e->win_steps) && e->win_steps >= 0);
	check(e->lower_run < e->p.reset_after);
}

/* One report, checked against the state before it (b). */
static void report(hs_est_t *e, uint64_t step, double t)
{
	hs_est_t b;
	unsigned long moved;
	int r;

	memcpy(&b, e, sizeof(b));
	r = hs_est_report(e, step, t);
	check(r == 0 || r == 1);
	if (!isfinite(t)) {
		check(r == 0 && !memcmp(&b, e, sizeof(b)));
		return;
	}
	if (r)
		check(e->n == b.n + 1 && e->new_samples == b.new_samples + 1 &&
		      e->win_time == 0 && e->win_steps == 0);
	else
		check(e->n == b.n && e->new_samples == b.new_samples &&
		      (e->ema == b.ema || (isnan(e->ema) && isnan(b.ema))));
	if (!b.have_base) {
		check(e->have_base && e->base_step == step && e->base_t == t && !r);
		return;
	}
	moved = (e->duplicates - b.duplicates) + (e->lower - b.lower) +
		(e->excluded_stop - b.excluded_stop) + (e->excluded_gap - b.excluded_gap) +
		(e->excluded_fast - b.excluded_fast);
	check(moved <= 1);
	if (e->duplicates != b.duplicates || (e->lower != b.lower && e->resets == b.resets)) {
		/* the base stays */
		check(!r && e->base_step == b.base_step && e->base_t == b.base_t);
		return;
	}
	check(e->base_step == step && e->base_t == t && e->lower_run == 0 &&
	      !e->stopped_seen);
	if (!moved)  /* counted: the window grew, or closed into a sample */
		check(r || e->win_time >= b.win_time);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in_t in = { data, size };
	hs_est_t e;
	uint64_t step = 0;
	double t = 0, bound;
	unsigned long n0;

	if (size < 1)
		return 0;
	setup(&e, &in, (unsigned)take(&in, 1), &bound);
	n0 = e.n;
	for (int i = 0; i < MAX_OPS && in.left; i++) {
		unsigned op = (unsigned)take(&in, 1);

		switch (op % 16) {
		case 0:
			hs_est_stopped(&e);
			break;
		case 1:                            /* anything at all */
			step = take(&in, 8);
			t = take_double(&in);
			report(&e, step, t);
			break;
		case 2:                            /* next step, raw time */
			t = take_double(&in);
			report(&e, ++step, t);
			break;
		default: {                         /* steps and 1/64 s ahead
			                            * (or back: bits 4, 5) */
			uint64_t ds = take(&in, 2);
			double dt = (double)take(&in, 2) / 64;

			step = op & 0x10 ? step - ds : step + ds;
			t = op & 0x20 ? t - dt : t + dt;
			report(&e, step, t);
			break;
		}
		}
		check_state(&e, n0, bound);
	}
	return 0;
}
