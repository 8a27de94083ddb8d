/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_common.c — what both clocks of the simulator share (sim_impl.h):
 * submitting the workload's arrivals to the simulated Slurm, the end
 * condition, the record of GPU use per round, progress lines. sim.c (the
 * engine's clock) and sim_ideal.c (the fluid reference) call it; it calls
 * neither. */
#include "sim/sim_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double hs_sim_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int hs_sim_record_round(hs_sim_result_t *r, double start, double end, double busy,
			hs_err_t *err)
{
	if (r->nrounds == r->cap_rounds) {
		long cap = r->cap_rounds ? 2 * r->cap_rounds : 1024;
		hs_sim_round_t *nr = realloc(r->rounds, (size_t)cap * sizeof(*nr));
		if (!nr)
			return hs_err_set(err, "out of memory");
		r->rounds = nr;
		r->cap_rounds = cap;
	}
	r->rounds[r->nrounds++] = (hs_sim_round_t){ .start_s = start, .end_s = end,
						    .busy_gpu_s = busy };
	return 0;
}

static int in_window(const hs_sim_opts_t *o, long index)
{
	if (o->window_first < 0)
		return 1;
	return index >= o->window_first && index <= o->window_last;
}

int hs_sim_admit(hs_sim_t *s, double upto, hs_err_t *err)
{
	for (;;) {
		double a = hs_workload_peek(s->wl);
		if (a < 0 || a > upto)
			return 0;
		hs_trace_job_t tj;
		hs_workload_next(s->wl, &tj);
		long index = s->res->njobs;
		int measured = in_window(s->o, index);
		int rc = hs_world_submit(s->w, &tj, measured, err);
		if (rc < 0)
			return -1;
		s->measured_total += measured;
		s->measured_rejected += rc == 1 && measured;
	}
}

void hs_sim_progress(hs_sim_t *s, int force)
{
	if (!s->o->progress)
		return;
	double now = hs_sim_wall();
	if (!force && now - s->last_progress < 2.0)
		return;
	s->last_progress = now;
	fprintf(stderr, "simulate: %s t=%.1f h, %ld active, %ld/%ld measured jobs done, "
		"%ld rounds, %ld solves (%.1f s), %.1f s wall\n", s->o->conf.policy, s->now / 3600.0,
		hs_world_active(s->w), hs_world_measured_done(s->w), s->measured_total,
		s->res->rounds_run,
		s->res->solves, s->res->solve_s, now - s->wall0);
}

/* Done when every measured job has finished (or was rejected); without a
 * window, when the workload is exhausted and nothing is active. */
int hs_sim_all_done(const hs_sim_t *s)
{
	const hs_sim_opts_t *o = s->o;
	if (o->window_first >= 0) {
		long size = hs_workload_size(s->wl), last = o->window_last;
		if (size >= 0 && size - 1 < last)
			last = size - 1;
		if (last >= o->window_first) {
			if (s->res->njobs <= last)
				return 0;
			return hs_world_measured_done(s->w) + s->measured_rejected >=
			       last - o->window_first + 1;
		}
	}
	return hs_world_active(s->w) == 0 && hs_workload_peek(s->wl) < 0;
}

