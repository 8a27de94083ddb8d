/* SPDX-License-Identifier: GPL-2.0-or-later */
/* estimator.c — steps/s estimation from cumulative step reports; see
 * estimator.h for the rules. */
#include "report/estimator.h"

#include <math.h>
#include <string.h>

void hs_est_defaults(hs_est_params_t *p)
{
	p->window_s = 5;
	p->alpha = 0.5;
	p->gap_min_s = 1;
	p->gap_factor = 10;
	p->max_sps = 1e6;
	p->reset_after = 16;
}

static int pos(double v)
{
	return isfinite(v) && v > 0;
}

void hs_est_init(hs_est_t *e, const hs_est_params_t *p)
{
	hs_est_params_t d;

	hs_est_defaults(&d);
	memset(e, 0, sizeof(*e));
	e->p = d;
	if (!p)
		return;
	if (pos(p->window_s))
		e->p.window_s = p->window_s;
	if (pos(p->alpha) && p->alpha <= 1)
		e->p.alpha = p->alpha;
	if (isfinite(p->gap_min_s) && p->gap_min_s >= 0)
		e->p.gap_min_s = p->gap_min_s;
	if (isfinite(p->gap_factor) && p->gap_factor >= 1)
		e->p.gap_factor = p->gap_factor;
	if (pos(p->max_sps))
		e->p.max_sps = p->max_sps;
	if (p->reset_after > 0)
		e->p.reset_after = p->reset_after;
}

void hs_est_seed(hs_est_t *e, double sps, unsigned long n)
{
	if (!pos(sps))
		return;
	e->ema = sps;
	e->n = n ? n : 1;
}

void hs_est_stopped(hs_est_t *e)
{
	e->stopped_seen = 1;
}

/* The current rate used to recognise gaps: the EMA, else the open window. */
static double current_rate(const hs_est_t *e)
{
	if (e->n > 0)
		return e->ema;
	if (e->win_time > 0 && e->win_steps > 0)
		return e->win_steps / e->win_time;
	return 0;
}

static void rebase(hs_est_t *e, uint64_t step, double t)
{
	e->have_base = 1;
	e->base_step = step;
	e->base_t = t;
	e->stopped_seen = 0;
	e->lower_run = 0;
}

int hs_est_report(hs_est_t *e, uint64_t step, double t)
{
	double ds, dt, rate;

	if (!isfinite(t))
		return 0;
	if (!e->have_base) {
		rebase(e, step, t);
		return 0;
	}
	if (step == e->base_step) {
		/* another rank at the same step, or a repeated report */
		e->duplicates++;
		return 0;
	}
	if (step < e->base_step || t < e->base_t) {
		/* A lagging rank (harmless) or a restarted training loop: only
		 * a run of lower reports moves the base back. */
		e->lower++;
		if (++e->lower_run >= e->p.reset_after) {
			e->resets++;
			rebase(e, step, t);
		}
		return 0;
	}
	ds = (double)(step - e->base_step);
	dt = t - e->base_t;
	if (e->stopped_seen) {
		e->excluded_stop++;
		rebase(e, step, t);
		return 0;
	}
	if (dt <= 0 || ds / dt > e->p.max_sps) {
		e->excluded_fast++;
		rebase(e, step, t);
		return 0;
	}
	rate = current_rate(e);
	/* an interval too long to measure (t - base_t overflowed) is a gap
	 * even before there is a rate: counted, it made a 0 steps/s sample */
	if (isinf(dt) || (rate > 0 && dt > e->p.gap_min_s && dt > e->p.gap_factor * ds / rate)) {
		e->excluded_gap++;
		rebase(e, step, t);
		return 0;
	}
	rebase(e, step, t);
	e->win_steps += ds;
	e->win_time += dt;
	if (e->win_time < e->p.window_s)
		return 0;
	rate = e->win_steps / e->win_time;
	e->ema = e->n ? e->p.alpha * rate + (1 - e->p.alpha) * e->ema : rate;
	e->n++;
	e->new_samples++;
	e->win_steps = e->win_time = 0;
	return 1;
}
