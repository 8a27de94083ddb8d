/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workload.c — jobs in arrival order from a trace or from Gavel's workload
 * distributions (see workload.h). */
#include "sim/workload.h"

#include <math.h>
#include <string.h>

void hs_workload_from_trace(hs_workload_t *w, const hs_trace_t *t)
{
	memset(w, 0, sizeof(*w));
	w->trace = t;
}

void hs_workload_free(hs_workload_t *w)
{
	if (!w)
		return;
	for (int k = 0; k < 4; k++)
		free(w->cands[k]);
	free(w->user_jobs);
	memset(w, 0, sizeof(*w));
}

int hs_workload_generator(hs_workload_t *w, const hs_thrtable_t *t, const hs_gen_opts_t *g,
			  hs_err_t *err)
{
	memset(w, 0, sizeof(*w));
	if (!isfinite(g->jobs_per_hour) || g->jobs_per_hour < 0)
		return hs_err_set(err, "the arrival rate must be >= 0 jobs/hour");
	if (!g->reference_type)
		return hs_err_set(err, "the generator needs a reference GPU type");
	w->table = t;
	w->g = *g;
	w->ref = hs_thrtable_type_index(t, g->reference_type);
	if (w->ref < 0)
		return hs_err_set(err, "reference type '%s' is not in the throughput table",
				  g->reference_type);
	hs_rng_seed(&w->rng, g->seed);
	static const int sfs[4] = { 1, 2, 4, 8 };
	for (int k = 0; k < 4; k++) {
		w->sf_values[k] = sfs[k];
		w->cands[k] = malloc(((size_t)t->njobtypes + 1) * sizeof(int));
		if (!w->cands[k]) {
			hs_workload_free(w);
			return hs_err_set(err, "out of memory");
		}
		for (int jt = 0; jt < t->njobtypes; jt++)
			if (t->sf[jt] == sfs[k] && t->alone[(size_t)jt * t->ntypes + w->ref] > 0)
				w->cands[k][w->ncands[k]++] = jt;
		if (w->ncands[k] == 0 && (k == 0 || g->multi_gpu)) {
			hs_workload_free(w);
			return hs_err_set(err, "the throughput table has no job type with scale "
					  "factor %d and a throughput on '%s'", sfs[k],
					  g->reference_type);
		}
	}
	w->nsf = 4;
	return 0;
}

/* Jobs generated job n of user u becomes (split strategies). */
static int user_tasks(const hs_sim_users_t *us, int u)
{
	return u >= 0 && us ? hs_sim_strategy_tasks(&us->users[u].strategy) : 1;
}

long hs_workload_size(const hs_workload_t *w)
{
	if (w->trace)
		return w->trace->njobs;
	if (w->g.njobs < 0)
		return -1;
	const hs_sim_users_t *us = w->users;
	int split = 0;
	for (int u = 0; us && u < us->nusers; u++)
		split |= user_tasks(us, u) > 1;
	if (!split)
		return w->g.njobs;
	/* the users' spread is deterministic: replay it */
	long *cnt = calloc((size_t)us->nusers + 1, sizeof(long)), total = 0;
	if (!cnt)
		return -1;
	for (long n = 0; n < w->g.njobs; n++)
		total += user_tasks(us, hs_sim_users_next(us, n, cnt));
	free(cnt);
	return total;
}

double hs_workload_peek(const hs_workload_t *w)
{
	if (w->trace)
		return w->next < w->trace->njobs ? w->trace->jobs[w->next].arrival_s : -1.0;
	if (w->split_left > 0)
		return w->split_job.arrival_s;
	if (w->g.njobs >= 0 && w->generated >= w->g.njobs)
		return -1.0;
	return w->next_arrival;
}

/* Gavel's Philly-derived scale-factor distribution. */
static int draw_scale_factor(hs_rng_t *r)
{
	double u = hs_rng_uniform01(r);
	if (u >= 0.95)
		return 8;
	if (u >= 0.8)
		return 4;
	if (u >= 0.7)
		return 2;
	return 1;
}

static double draw_duration_s(hs_rng_t *r)
{
	if (hs_rng_uniform01(r) >= 0.8)
		return 60.0 * pow(10.0, hs_rng_range(r, 3.0, 4.0));
	return 60.0 * pow(10.0, hs_rng_range(r, 1.5, 3.0));
}

/* Job `index` is pinned by a fraction f when floor((index + 1) f) moves
 * past floor(index f): evenly spread (f = 0.5: every second job) and
 * independent of the random stream, so the same seed gives the same jobs
 * with any fraction. */
static int pinned_pick(long index, double f)
{
	if (!(f > 0))
		return 0;
	return floor((double)(index + 1) * f + 1e-9) > floor((double)index * f + 1e-9);
}

/* The next task of the array being split (strategy.h "split"). */
static int next_task(hs_workload_t *w, hs_trace_job_t *job)
{
	*job = w->split_job;
	job->array_task = job->array_tasks - w->split_left;
	w->split_left--;
	return 1;
}

/* A strategic user's job as the user submits it: pinned (no-preempt),
 * or the first of K array tasks of 1/K of its steps (split; the other
 * tasks come from next_task). */
static void user_strategy(hs_workload_t *w, hs_trace_job_t *job, int u)
{
	const hs_sim_strategy_t *s = &w->users->users[u].strategy;
	job->pinned |= hs_sim_strategy_pinned(s);
	int k = hs_sim_strategy_tasks(s);
	if (k <= 1)
		return;
	job->total_steps /= k;
	job->array_tasks = k;
	job->array_task = 0;
	w->split_job = *job;
	w->split_left = k - 1;
}

int hs_workload_next(hs_workload_t *w, hs_trace_job_t *job)
{
	memset(job, 0, sizeof(*job));
	if (w->split_left > 0)
		return next_task(w, job);
	if (w->trace) {
		if (w->next >= w->trace->njobs)
			return 0;
		*job = w->trace->jobs[w->next];
		job->pinned |= pinned_pick(w->next, w->pinned_fraction);
		w->next++;
		return 1;
	}
	if (hs_workload_peek(w) < 0)
		return 0;
	const hs_thrtable_t *t = w->table;
	int sf = draw_scale_factor(&w->rng);
	if (!w->g.multi_gpu)
		sf = 1;
	double duration = draw_duration_s(&w->rng);
	int k = sf == 1 ? 0 : sf == 2 ? 1 : sf == 4 ? 2 : 3;
	int pick = (int)(hs_rng_uniform01(&w->rng) * w->ncands[k]);
	if (pick >= w->ncands[k])
		pick = w->ncands[k] - 1;
	int jt = w->cands[k][pick];
	double weight = 1.0;
	if (w->g.multi_priority && hs_rng_uniform01(&w->rng) < 0.2)
		weight = 5.0;
	/* Generated jobs carry placeholders where a trace has commands. */
	job->model = t->models[jt];
	job->command = "-";
	job->workdir = "-";
	job->steps_arg = "-";
	job->total_steps = duration * t->alone[(size_t)jt * t->ntypes + w->ref];
	job->scale_factor = sf;
	job->weight = weight;
	job->slo = -1.0;
	job->arrival_s = w->next_arrival;
	job->line = 0;
	job->pinned = pinned_pick(w->generated, w->pinned_fraction);
	if (w->users && !w->user_jobs)
		w->user_jobs = calloc((size_t)w->users->nusers + 1, sizeof(long));
	int u = w->user_jobs ? hs_sim_users_next(w->users, w->generated, w->user_jobs) : -1;
	if (u >= 0) {
		/* borrowed from the users, which outlive the workload's jobs */
		job->user = w->users->users[u].name;
		job->account = w->users->accounts[w->users->users[u].account].name;
		user_strategy(w, job, u);
	}
	w->generated++;
	if (w->g.jobs_per_hour > 0) {
		double u = hs_rng_uniform01(&w->rng);
		w->next_arrival += -log(1.0 - u) * 3600.0 / w->g.jobs_per_hour;
	}
	return 1;
}
