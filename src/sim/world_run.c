/* SPDX-License-Identifier: GPL-2.0-or-later */
/* world_run.c — the simulated Slurm's clock (world.h): running jobs
 * progress at their true throughput (the table's, alone or packed, on
 * one server or spread over several), a restarted job first loads its
 * checkpoint, a signalled job acknowledges its checkpoint, jobs end and
 * free their GPUs; GPU time, the time on each type, the run segments of
 * the timeline and the isolated-share progress of finish-time fairness
 * are counted on the way. Progress is accounted lazily: each job up to
 * the clock when something about it changes or is looked at. */
#include "sim/world_impl.h"
#include "sim/entitle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Steps within this relative distance of the total count as finished
 * (floating-point progress). */
#define HS_DONE_EPS 1e-9

/* ---- finish-time fairness ---------------------------------------------------- */

static int sf_slot(hs_world_t *w, int sf)
{
	for (int i = 0; i < w->nsf; i++)
		if (w->sfv[i] == sf)
			return i;
	if (w->nsf == (int)(sizeof(w->sfv) / sizeof(w->sfv[0])))
		return -1;
	w->sfv[w->nsf] = sf;
	w->iso_int[w->nsf] = 0;
	return w->nsf++;
}

void hs_world_iso_to(hs_world_t *w, double to)
{
	double dt = to - w->iso_t;
	if (dt > 0 && w->nlive > 0)
		for (int i = 0; i < w->nsf; i++)
			w->iso_int[i] += fmin(1.0 / ((double)w->nlive * w->sfv[i]), 1.0 / w->ngpus) * dt;
	if (to > w->iso_t)
		w->iso_t = to;
}

/* The job's steps/s under an isolated share, per unit of the integral:
 * the sum over types of its rate times the type's GPUs. */
static double iso_rate_sum(const hs_world_t *w, const hs_sim_job_t *j)
{
	double s = 0;
	for (int t = 0; t < w->J; t++)
		s += j->thr_policy[t] * w->o.cluster->count[t];
	return s;
}

void hs_world_iso_join(hs_world_t *w, long k)
{
	hs_world_iso_to(w, w->now);
	int i = sf_slot(w, w->res->jobs[k].sf);
	w->wj[k].iso_base = i >= 0 ? w->iso_int[i] : 0;
}

static void iso_leave(hs_world_t *w, long k)
{
	hs_world_iso_to(w, w->now);
	hs_sim_job_t *j = &w->res->jobs[k];
	int i = sf_slot(w, j->sf);
	if (i >= 0)
		j->iso_steps = iso_rate_sum(w, j) * (w->iso_int[i] - w->wj[k].iso_base);
}

/* ---- progress ------------------------------------------------------------------- */

void hs_world_progress(hs_world_t *w, long k)
{
	wjob_t *x = &w->wj[k];
	hs_sim_job_t *j = &w->res->jobs[k];
	double t0 = x->prog_t, t1 = w->now;
	if (t1 <= t0)
		return;
	x->prog_t = t1;
	if (x->state != HS_SJ_RUNNING || x->nheld == 0)
		return;
	double dt = t1 - t0;
	j->gpu_s += x->nheld * dt;
	if (j->type >= 0)
		j->type_s[j->type] += dt;
	if (x->partner < 0 || k < x->partner)
		w->busy += x->nheld * dt; /* a pair's GPUs count once */
	if (j->user >= 0 && j->user < w->res->cap_users) {
		w->res->user_gpu_s[j->user] += x->nheld * dt;
	}
	double from = fmax(t0, x->load_until);
	j->lost_s += fmin(dt, fmax(0.0, x->load_until - t0));
	if (t1 <= from || !(x->thr > 0))
		return;
	double run = t1 - from;
	j->done_steps = fmin(j->total_steps, j->done_steps + x->thr * run);
	if (x->partner >= 0 || !w->o.measure || j->type < 0)
		return;
	x->alone_s += run;
	if (!x->measured_now && x->alone_s >= HS_WORLD_MEASURE_S) {
		/* what the SPANK plugin reports once its EMA settled */
		x->measured_now = 1;
		/* a strategic user's job may report another rate (strategy.h):
		 * the engine sees the lie, the job still runs at x->thr */
		x->meas[j->type] = hs_sim_strategy_report(&w->users->users[j->user].strategy,
							  j->thr_policy, w->J, j->type, x->thr);
		x->meas_t[j->type] = HS_SIM_EPOCH + (int64_t)ceil(t1);
		x->comment_dirty = x->meas_dirty = 1;
	}
}

/* Distinct nodes of the job's GPUs. */
static int nodes_held(const wjob_t *x)
{
	int n = 0;
	for (int g = 0; g < x->nheld; g++) {
		int seen = 0;
		for (int h = 0; h < g && !seen; h++)
			seen = x->held[h].node == x->held[g].node;
		n += !seen;
	}
	return n;
}

void hs_world_set_thr(hs_world_t *w, long k)
{
	wjob_t *x = &w->wj[k];
	hs_sim_job_t *j = &w->res->jobs[k];
	w->thr_sets++;
	if (x->nheld == 0) {
		x->thr = 0;
		return;
	}
	int type = w->nodes[x->held[0].node].type;
	int spread = nodes_held(x) > 1 && w->o.consolidation == HS_CONS_PLACEMENT;
	if (type != j->type) {
		x->alone_s = 0;
		x->measured_now = 0;
	}
	j->type = type;
	j->nservers = nodes_held(x);
	double alone = spread ? j->thr_uncons[type] : j->thr_cons[type];
	/* a suspended partner (time slicing) is stopped: the GPU is this
	 * job's alone, as with SIGSTOPped processes on a real node */
	if (x->partner < 0 || w->wj[x->partner].state != HS_SJ_RUNNING) {
		x->thr = alone;
		return;
	}
	const hs_sim_job_t *o = &w->res->jobs[x->partner];
	double pair = hs_thrtable_pair_at(w->o.table, j->jt, o->jt, w->ttype[type]);
	/* no pair data for spread placements: scale by the alone slowdown */
	if (spread && j->thr_cons[type] > 0)
		pair *= j->thr_uncons[type] / j->thr_cons[type];
	x->thr = pair;
}

/* ---- run segments ------------------------------------------------------------- */

static void timeline_segment(const hs_world_t *w, long k, double end)
{
	const wjob_t *x = &w->wj[k];
	const hs_sim_job_t *j = &w->res->jobs[k];
	if (!w->o.timeline || !x->seg_event || end <= x->seg_start)
		return;
	const char *partner = x->partner >= 0 ? w->res->jobs[x->partner].id : "";
	for (int g = 0; g < x->nheld; g++) {
		const wnode_t *nd = &w->nodes[x->held[g].node];
		fprintf(w->o.timeline, "%s,\"%s\",%s,%s,%d,%.3f,%.3f,%s,%s\n", j->id, j->model,
			w->o.cluster->names[nd->type], nd->name, x->held[g].gpu, x->seg_start, end,
			x->seg_event, partner);
	}
}

void hs_world_run(hs_world_t *w, long k, const char *event)
{
	wjob_t *x = &w->wj[k];
	hs_sim_job_t *j = &w->res->jobs[k];
	x->state = HS_SJ_RUNNING;
	if (hs_sim_strategy_drops_requeue(&w->users->users[j->user].strategy))
		x->requeue_off = 1;
	x->prog_t = w->now;
	x->seg_start = w->now;
	x->seg_event = event;
	if (j->first_start_s < 0)
		j->first_start_s = w->now;
	hs_world_set_thr(w, k);
	if (x->partner >= 0) {
		hs_world_progress(w, x->partner);
		hs_world_set_thr(w, x->partner);
	}
}

void hs_world_stop(hs_world_t *w, long k, const char *why)
{
	(void)why;
	hs_world_progress(w, k);
	timeline_segment(w, k, w->now);
	w->wj[k].seg_event = NULL;
}

void hs_world_release(hs_world_t *w, long k)
{
	wjob_t *x = &w->wj[k];
	for (int g = 0; g < x->nheld; g++) {
		int i = hs_world_gpu(w, x->held[g].node, x->held[g].gpu);
		if (w->holder[i] == k) {
			w->holder[i] = w->holder2[i];
			w->holder2[i] = -1;
		} else if (w->holder2[i] == k) {
			w->holder2[i] = -1;
		}
	}
	x->nheld = 0;
	x->thr = 0;
	long p = x->partner;
	x->partner = -1;
	if (p >= 0) {
		/* its partner runs alone from now on */
		hs_world_progress(w, p);
		w->wj[p].partner = -1;
		hs_world_rate_changed(w, p);
	}
}

void hs_world_rate_changed(hs_world_t *w, long k)
{
	wjob_t *x = &w->wj[k];
	if (x->state == HS_SJ_RUNNING) {
		timeline_segment(w, k, w->now);
		x->seg_start = w->now;
	}
	hs_world_set_thr(w, k);
}

/* ---- the clock ---------------------------------------------------------------- */

/* When running job k ends at its current rate, from the clock on. */
static double finish_time(const hs_world_t *w, long k)
{
	const wjob_t *x = &w->wj[k];
	const hs_sim_job_t *j = &w->res->jobs[k];
	if (x->state != HS_SJ_RUNNING || !(x->thr > 0))
		return INFINITY;
	double from = fmax(x->prog_t, x->load_until);
	double done = j->done_steps + (w->now > from ? x->thr * (w->now - from) : 0);
	double left = j->total_steps - done;
	if (left <= j->total_steps * HS_DONE_EPS)
		return w->now;
	return fmax(w->now, x->load_until) + left / x->thr;
}

double hs_world_next_event(const hs_world_t *w)
{
	double t = INFINITY;
	for (long i = 0; i < w->nlive; i++) {
		long k = w->live[i];
		t = fmin(t, finish_time(w, k));
		t = fmin(t, w->wj[k].ack_at);
	}
	return t;
}

/* Room for every user's counters in the world and the result. */
static int users_room(hs_world_t *w)
{
	hs_sim_result_t *r = w->res;
	int n = w->users->nusers;
	if (n <= r->cap_users)
		return 0;
	int cap = n + 8;
	double **arr[4] = { &r->user_gpu_s, &r->user_gpu_entitled, &w->user_demand,
			    &w->user_entitled };
	for (int k = 0; k < 4; k++) {
		double *g = realloc(*arr[k], (size_t)cap * sizeof(*g));
		if (!g)
			return -1;
		*arr[k] = g;
		for (int u = r->cap_users; u < cap; u++)
			g[u] = 0.0;
	}
	r->cap_users = cap;
	return 0;
}

int hs_world_user_live(hs_world_t *w, int u, double gpus)
{
	if (users_room(w) < 0)
		return -1;
	const int U = w->users->nusers;
	const double dt = w->now - w->ent_since;
	for (int i = 0; i < U && dt > 0.0; i++)
		w->res->user_gpu_entitled[i] += w->user_entitled[i] * dt;
	w->ent_since = w->now;
	if (gpus == 0.0)
		return 0;
	w->user_demand[u] = fmax(0.0, w->user_demand[u] + gpus);
	return hs_sim_entitle(w->users, w->user_demand, (double)w->ngpus, w->user_entitled);
}

void hs_world_retire(hs_world_t *w, long i)
{
	long k = w->live[i];
	wjob_t *x = &w->wj[k];
	hs_sim_job_t *j = &w->res->jobs[k];
	j->done_steps = j->total_steps;
	j->finish_s = w->now;
	iso_leave(w, k);
	(void)hs_world_user_live(w, j->user, -(double)j->sf);
	x->state = HS_SJ_OTHER;
	x->live = 0;
	/* its last reports go to the learned table with the next snapshot
	 * (its ended list), as slurmctld's ended jobs do; then freed */
	if (!w->snapshots || !w->o.measure || !x->rec || hs_world_ended_push(w, k) < 0)
		hs_world_drop_record(x);
	free(x->held);
	x->held = NULL;
	w->live[i] = w->live[--w->nlive];
	w->changed = 1;
	w->measured_done += j->measured;
}

static void end_job(hs_world_t *w, long i)
{
	long k = w->live[i];
	hs_world_stop(w, k, "end");
	hs_world_release(w, k);
	hs_world_retire(w, i);
}

static void ack(hs_world_t *w, long k)
{
	wjob_t *x = &w->wj[k];
	hs_world_progress(w, k);
	x->ack_at = INFINITY;
	if (x->state != HS_SJ_RUNNING)
		return;
	x->has_ckpt = 1;
	x->ckpt_step = w->res->jobs[k].done_steps;
	x->ckpt_t = HS_SIM_EPOCH + (int64_t)ceil(w->now);
	x->comment_dirty = 1;
}

long hs_world_advance(hs_world_t *w, double to, double first)
{
	long ended = 0;
	double t = isnan(first) ? hs_world_next_event(w) : first;
	while (t <= to) {
		if (t > w->now) {
			hs_world_iso_to(w, t);
			w->now = t;
		}
		/* The next event is found in the same pass: each job's own
		 * after its ack or end. Only a rate changed by another job's
		 * end or ack (a packed partner left alone) can move a job
		 * already passed; then the jobs are scanned again. */
		const unsigned long sets = w->thr_sets;
		double next = INFINITY;
		for (long i = 0; i < w->nlive; i++) {
			long k = w->live[i];
			if (w->wj[k].ack_at <= w->now)
				ack(w, k);
			double f = finish_time(w, k);
			if (f <= w->now) {
				end_job(w, i--);
				ended++;
				continue;
			}
			next = fmin(next, fmin(f, w->wj[k].ack_at));
		}
		t = w->thr_sets == sets ? next : hs_world_next_event(w);
	}
	if (to > w->now) {
		hs_world_iso_to(w, to);
		w->now = to;
	}
	return ended;
}

double hs_world_take_busy(hs_world_t *w)
{
	for (long i = 0; i < w->nlive; i++)
		hs_world_progress(w, w->live[i]);
	double b = w->busy;
	w->busy = 0;
	return b;
}

void hs_world_close(hs_world_t *w, double now)
{
	if (now > w->now)
		w->now = now;
	for (long i = 0; i < w->nlive; i++)
		if (w->wj[w->live[i]].state == HS_SJ_RUNNING)
			hs_world_stop(w, w->live[i], "end of the simulation");
	(void)hs_world_user_live(w, 0, 0.0); /* entitlements up to the end */
}
