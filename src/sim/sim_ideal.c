/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_ideal.c — the fluid reference of the simulator (sim.h, ideal = 1):
 * no rounds and no engine, the policy's allocation itself run as a fluid.
 * At every arrival and completion the policy solves the live jobs'
 * problem; until the next such event each job progresses at its
 * effective throughput under the allocation X (hs_alloc_effective_thr).
 * It is what the round mechanism approximates, so the `round` experiment
 * of bench/reproduce.sh measures the mechanism against it. Jobs are the
 * simulated Slurm's (world.h) for their records and finish-time fairness;
 * nothing runs on its nodes. */
#include "sim/sim_impl.h"
#include "sim/world_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fluid {
	hs_problem_t p;            /* cluster owned; jobs rebuilt per step */
	hs_policy_ctx_t *pol;
	double *thr;               /* [cap * J] */
	double *rate;              /* [cap] */
	long cap;
} fluid_t;

static void fluid_free(fluid_t *f)
{
	hs_policy_ctx_free(f->pol);
	free(f->p.jobs);
	f->p.jobs = NULL;
	f->p.njobs = 0;
	hs_problem_free(&f->p);
	free(f->thr);
	free(f->rate);
}

static int fluid_init(fluid_t *f, const hs_sim_t *s, hs_err_t *err)
{
	memset(f, 0, sizeof(*f));
	const hs_cluster_t *c = s->c;
	if (hs_cluster_init(&f->p.cluster, c->ntypes, err) < 0)
		return -1;
	for (int j = 0; j < c->ntypes; j++) {
		if (!(f->p.cluster.names[j] = strdup(c->names[j])))
			return hs_err_set(err, "out of memory");
		f->p.cluster.count[j] = c->count[j];
		f->p.cluster.price[j] = c->price[j];
	}
	f->p.reference_type = -1;
	if (hs_policy_is_packed(s->o->conf.policy) &&
	    hs_thrtable_to_jobtypes(s->t, &f->p.cluster, &f->p.jobtypes, err) < 0)
		return -1;
	hs_policy_opts_t po;
	hs_mech_opts_t mo;
	hs_sconf_engine_opts(&s->o->conf, &po, &mo);
	f->pol = hs_policy_ctx_new(s->o->conf.policy, &po, err);
	return f->pol ? 0 : -1;
}

/* The problem of the live jobs (their policy throughputs, work left). */
static int fluid_problem(fluid_t *f, const hs_sim_t *s, hs_err_t *err)
{
	const hs_world_t *w = s->w;
	const int J = w->J;
	long n = w->nlive;
	if (n > f->cap) {
		long cap = n + 256;
		hs_job_t *nj = realloc(f->p.jobs, (size_t)cap * sizeof(*nj));
		if (nj)
			f->p.jobs = nj;
		double *t = realloc(f->thr, (size_t)cap * (size_t)J * sizeof(double));
		if (t)
			f->thr = t;
		double *r = realloc(f->rate, (size_t)cap * sizeof(double));
		if (r)
			f->rate = r;
		if (!nj || !t || !r)
			return hs_err_set(err, "out of memory");
		f->cap = cap;
	}
	for (long i = 0; i < n; i++) {
		const hs_sim_job_t *j = &s->res->jobs[w->live[i]];
		hs_job_t *pj = &f->p.jobs[i];
		memset(pj, 0, sizeof(*pj));
		pj->id = (char *)j->id; /* borrowed, as the old simulator did */
		pj->scale_factor = j->sf;
		pj->weight = j->weight;
		pj->remaining_steps = fmax(j->total_steps - j->done_steps, j->total_steps * 1e-9);
		pj->age_s = fmax(0.0, s->now - j->arrival_s);
		pj->slo_s = j->slo > 0 ? j->arrival_s + j->slo - s->now : -1.0;
		pj->thr = &f->thr[(size_t)i * (size_t)J];
		for (int t = 0; t < J; t++)
			pj->thr[t] = j->thr_policy[t];
		pj->job_type = f->p.jobtypes.n > 0 ? j->jt : -1;
		pj->entity = -1;
	}
	f->p.njobs = (int)n;
	return 0;
}

/* Advances the live jobs by dt under allocation a; returns the busy
 * GPU-seconds. */
static double fluid_step(fluid_t *f, hs_sim_t *s, const hs_alloc_t *a, double dt)
{
	const hs_world_t *w = s->w;
	const int J = w->J;
	double busy = 0.0;
	for (long k = 0; k < w->nlive; k++) {
		hs_sim_job_t *j = &s->res->jobs[w->live[k]];
		double share = 0.0;
		for (int t = 0; t < J; t++) {
			double x = a->x[(size_t)k * J + t];
			share += x;
			j->type_s[t] += x * dt;
		}
		busy += j->sf * share * dt;
		j->gpu_s += j->sf * share * dt;
		if (j->user >= 0 && j->user < s->res->cap_users) {
			s->res->user_gpu_s[j->user] += j->sf * share * dt;
		}
		if (f->rate[k] > 0 && j->first_start_s < 0)
			j->first_start_s = s->now;
		j->done_steps += f->rate[k] * dt;
	}
	for (int q = 0; q < a->npairs; q++) {
		double share = 0.0;
		for (int t = 0; t < J; t++) {
			share += a->pairs[q].x[t];
			s->res->jobs[w->live[a->pairs[q].m]].type_s[t] += a->pairs[q].x[t] * dt;
			s->res->jobs[w->live[a->pairs[q].k]].type_s[t] += a->pairs[q].x[t] * dt;
		}
		busy += f->p.jobs[a->pairs[q].m].scale_factor * share * dt;
	}
	return busy;
}

/* One fluid step from s->now: solve, advance to the next completion or
 * arrival. 1 = went on, 0 = nothing live, -1 error. */
static int fluid_next(fluid_t *f, hs_sim_t *s, hs_err_t *err)
{
	hs_world_t *w = s->w;
	double t0 = hs_sim_wall();
	if (fluid_problem(f, s, err) < 0)
		return -1;
	hs_alloc_t a;
	int rc = hs_policy_solve(f->pol, &f->p, &a, err);
	s->res->solve_s += hs_sim_wall() - t0;
	s->res->solves++;
	if (rc < 0) {
		hs_alloc_free(&a);
		return -1;
	}
	double next_arrival = hs_workload_peek(s->wl), dt = INFINITY;
	for (long k = 0; k < w->nlive; k++) {
		const hs_sim_job_t *j = &s->res->jobs[w->live[k]];
		f->rate[k] = hs_alloc_effective_thr(&a, &f->p, (int)k);
		if (f->rate[k] > 0)
			dt = fmin(dt, (j->total_steps - j->done_steps) / f->rate[k]);
	}
	if (next_arrival >= 0)
		dt = fmin(dt, next_arrival - s->now);
	if (!isfinite(dt)) {
		hs_alloc_free(&a);
		return hs_err_set(err, "%ld jobs are active at t=%.0f s but policy '%s' gives them "
				  "nothing", w->nlive, s->now, s->o->conf.policy);
	}
	dt = fmax(dt, 0.0);
	double busy = fluid_step(f, s, &a, dt);
	hs_alloc_free(&a);
	double end = s->now + dt;
	if (hs_sim_record_round(s->res, s->now, end, busy, err) < 0)
		return -1;
	s->res->rounds_run++;
	hs_world_iso_to(w, end);
	w->now = s->now = end;
	for (long i = 0; i < w->nlive; i++) {
		const hs_sim_job_t *j = &s->res->jobs[w->live[i]];
		if (j->done_steps >= j->total_steps * (1 - 1e-9))
			hs_world_retire(w, i--);
	}
	return 1;
}

int hs_sim_run_ideal(hs_sim_t *s, hs_err_t *err)
{
	fluid_t f;
	int rc = fluid_init(&f, s, err);
	while (rc == 0) {
		hs_world_iso_to(s->w, s->now);
		s->w->now = s->now;
		if (hs_sim_admit(s, s->now, err) < 0) {
			rc = -1;
			break;
		}
		if (hs_sim_all_done(s))
			break;
		if (s->o->max_time_s > 0 && s->now > s->o->max_time_s) {
			s->res->finished = 0;
			break;
		}
		if (hs_world_active(s->w) == 0) {
			double a = hs_workload_peek(s->wl);
			if (a < 0)
				break;
			s->now = fmax(s->now, a);
			continue;
		}
		if (fluid_next(&f, s, err) < 0)
			rc = -1;
		hs_sim_progress(s, 0);
	}
	fluid_free(&f);
	return rc;
}
