/* SPDX-License-Identifier: GPL-2.0-or-later */
/* world.c — the simulated Slurm's nodes and jobs (world.h): set-up,
 * submission (the hints a job carries), the snapshot the engine reads,
 * the views of an ops pass, and the start-time predictions the plan
 * makes. Progress is world_run.c, the executor world_exec.c. */
#include "sim/world_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int build_nodes(hs_world_t *w, hs_err_t *err)
{
	const int gps = w->o.gpus_per_server;
	const hs_cluster_t *c = w->o.cluster;
	int n = 0;
	for (int j = 0; j < w->J; j++)
		n += (c->count[j] + gps - 1) / gps;
	w->nodes = calloc((size_t)n + 1, sizeof(*w->nodes));
	w->snodes = calloc((size_t)n + 1, sizeof(*w->snodes));
	w->part_nodes = calloc((size_t)n + 1, sizeof(int));
	w->max_server = calloc((size_t)w->J + 1, sizeof(int));
	if (!w->nodes || !w->snodes || !w->part_nodes || !w->max_server)
		return hs_err_set(err, "out of memory");
	for (int j = 0; j < w->J; j++)
		for (int left = c->count[j], k = 0; left > 0; left -= gps, k++) {
			wnode_t *nd = &w->nodes[w->nnodes];
			snprintf(nd->name, sizeof(nd->name), "%.80s-%d", c->names[j], k);
			nd->type = j;
			nd->ngpus = left < gps ? left : gps;
			nd->first = w->ngpus;
			w->ngpus += nd->ngpus;
			if (nd->ngpus > w->max_server[j])
				w->max_server[j] = nd->ngpus;
			w->part_nodes[w->nnodes] = w->nnodes;
			w->nnodes++;
		}
	w->holder = malloc(((size_t)w->ngpus + 1) * sizeof(long));
	w->holder2 = malloc(((size_t)w->ngpus + 1) * sizeof(long));
	w->gpu_held_all = calloc((size_t)w->ngpus + 1, 1);
	if (!w->holder || !w->holder2 || !w->gpu_held_all)
		return hs_err_set(err, "out of memory");
	for (int g = 0; g < w->ngpus; g++)
		w->holder[g] = w->holder2[g] = -1;
	for (int n2 = 0; n2 < w->nnodes; n2++) {
		hs_snode_t *sn = &w->snodes[n2];
		sn->name = w->nodes[n2].name;
		sn->gpu_type = c->names[w->nodes[n2].type];
		sn->ngpus = w->nodes[n2].ngpus;
		sn->gpu_held = w->gpu_held_all + w->nodes[n2].first;
		sn->avail = 1;
	}
	w->part = (hs_spart_t){ .name = (char *)"gpu", .managed = 1, .up = 1,
				.nnodes = w->nnodes, .nodes = w->part_nodes };
	return 0;
}

hs_world_t *hs_world_new(const hs_world_opts_t *o, hs_sim_result_t *res, hs_err_t *err)
{
	hs_world_t *w = calloc(1, sizeof(*w));
	if (!w) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	w->o = *o;
	w->res = res;
	/* the QOS of every simulated job; its users and accounts */
	snprintf(w->qos_name, sizeof(w->qos_name), "normal");
	hs_sim_users_init(&w->own_users);
	w->users = o->users ? o->users : &w->own_users;
	w->J = o->cluster->ntypes;
	w->ttype = calloc((size_t)w->J + 1, sizeof(int));
	if (!w->ttype) {
		hs_err_set(err, "out of memory");
		hs_world_free(w);
		return NULL;
	}
	for (int j = 0; j < w->J; j++)
		if ((w->ttype[j] = hs_thrtable_type_index(o->table, o->cluster->names[j])) < 0) {
			hs_err_set(err, "GPU type '%s' is not in the throughput table",
				   o->cluster->names[j]);
			hs_world_free(w);
			return NULL;
		}
	if (build_nodes(w, err) < 0) {
		hs_world_free(w);
		return NULL;
	}
	return w;
}

static void wjob_free(wjob_t *x)
{
	free(x->rec);
	free(x->held);
	free(x->meas);
	free(x->meas_t);
	for (uint32_t e = 0; e < x->nenv; e++)
		free(x->env[e]);
}

void hs_world_free(hs_world_t *w)
{
	if (!w)
		return;
	for (long k = 0; k < w->res->njobs && k < w->cap; k++)
		wjob_free(&w->wj[k]);
	free(w->wj);
	free(w->live);
	free(w->ttype);
	free(w->max_server);
	free(w->nodes);
	free(w->snodes);
	free(w->part_nodes);
	free(w->holder);
	free(w->holder2);
	free(w->gpu_held_all);
	free(w->sjobs);
	free(w->ended);
	free(w->sended);
	free(w->sassocs);
	free(w->user_demand);
	free(w->user_entitled);
	hs_sim_users_free(&w->own_users);
	free(w);
}

long hs_world_job(const hs_world_t *w, uint32_t id)
{
	long k = (long)id - 1;
	return id > 0 && k < w->res->njobs && w->wj[k].live ? k : -1;
}

static int grow(hs_world_t *w, hs_err_t *err)
{
	hs_sim_result_t *r = w->res;
	if (r->njobs < w->cap)
		return 0;
	long cap = w->cap ? 2 * w->cap : 1024;
	hs_sim_job_t *nj = realloc(r->jobs, (size_t)cap * sizeof(*nj));
	if (nj)
		r->jobs = nj;
	wjob_t *nw = realloc(w->wj, (size_t)cap * sizeof(*nw));
	if (nw)
		w->wj = nw;
	if (!nj || !nw)
		return hs_err_set(err, "out of memory");
	w->cap = cap;
	return 0;
}

static char *env_entry(const char *fmt, const char *v)
{
	size_t n = strlen(fmt) + strlen(v) + 1;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, fmt, v);
	return s;
}

/* 1 when job k is one whose model the engine is not told
 * (--unknown-models F): k is picked when floor(k F + phase) steps, so
 * the picked jobs are evenly spread by arrival, F of them in every
 * stretch, with a phase in [0, 1) drawn from the seed. */
static int unknown_model(const hs_world_t *w, long k)
{
	double f = w->o.unknown_models;
	if (!(f > 0))
		return 0;
	if (f >= 1)
		return 1;
	uint64_t h = (uint64_t)w->o.seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
	h ^= h >> 31;
	double phase = (double)(h >> 11) / 9007199254740992.0;
	return floor((double)(k + 1) * f + phase) > floor((double)k * f + phase);
}

/* The hints the job was submitted with (doc/protocol.md (a)), and its
 * job name: a job whose model the engine is not told is submitted the
 * way a user reruns a script, its model as job name and no HS_MODEL, so
 * jobs of one model share a learned kind by name (sched/learn.h); with
 * --anonymous-jobs it has no name either. */
static int job_hints(hs_world_t *w, long k, const hs_sim_job_t *j)
{
	wjob_t *x = &w->wj[k];
	char steps[32];
	int unknown = unknown_model(w, k);
	/* what a strategic user declares instead (strategy.h) */
	const hs_sim_strategy_t *st = &w->users->users[j->user].strategy;
	int djt = hs_sim_strategy_model(st, w->o.table, j->jt, w->o.cluster->names,
					w->o.cluster->ntypes);
	if (djt < 0)
		return -2;
	const char *model = w->o.table->models[djt];
	snprintf(steps, sizeof(steps), "%.0f", ceil(hs_sim_strategy_steps(st, j->total_steps)));
	x->nenv = 0;
	if (!unknown && !(x->env[x->nenv++] = env_entry("HS_MODEL=%s", model)))
		return -1;
	x->name = unknown && w->o.anonymous_jobs ? NULL : model;
	x->env[x->nenv] = env_entry("HS_STEPS=%s", steps);
	x->env[x->nenv + 1] =
		env_entry("HS_CKPT=%s", j->pinned && !w->o.pinned_preemptible ? "0" : "1");
	x->nenv += 2; /* wjob_free frees them (NULL included) */
	return x->env[x->nenv - 2] && x->env[x->nenv - 1] ? 0 : -1;
}

/* The job's throughputs per type (true, alone), as the old simulator's
 * thr_cons / thr_uncons / thr_policy: consolidated when one server holds
 * it, else the table's unconsolidated one (--consolidation placement). */
static int job_rates(hs_world_t *w, hs_sim_job_t *j)
{
	const size_t J = (size_t)w->J;
	j->thr_cons = calloc(J + 1, sizeof(double));
	j->thr_uncons = calloc(J + 1, sizeof(double));
	j->thr_policy = calloc(J + 1, sizeof(double));
	j->type_s = calloc(J + 1, sizeof(double));
	if (!j->thr_cons || !j->thr_uncons || !j->thr_policy || !j->type_s)
		return -1;
	int usable = 0;
	for (int k = 0; k < w->J; k++) {
		const char *tn = w->o.cluster->names[k];
		j->thr_cons[k] = hs_thrtable_alone(w->o.table, j->jt, tn, 1);
		j->thr_uncons[k] = w->o.consolidation == HS_CONS_ALWAYS
				   ? j->thr_cons[k] : hs_thrtable_alone(w->o.table, j->jt, tn, 0);
		j->thr_policy[k] = w->max_server[k] >= j->sf ? j->thr_cons[k] : j->thr_uncons[k];
		if (w->o.cluster->count[k] < j->sf)
			j->thr_policy[k] = 0.0;
		usable |= j->thr_policy[k] > 0.0;
	}
	return usable;
}

int hs_world_submit(hs_world_t *w, const hs_trace_job_t *tj, int measured, hs_err_t *err)
{
	hs_sim_result_t *r = w->res;
	int jt = hs_thrtable_find(w->o.table, tj->model, tj->scale_factor);
	if (jt < 0) {
		if (tj->line > 0)
			return hs_err_set(err, "trace line %d: job type ('%s', %d) is not in the "
					  "throughput table", tj->line, tj->model, tj->scale_factor);
		return hs_err_set(err, "job type ('%s', %d) is not in the throughput table",
				  tj->model, tj->scale_factor);
	}
	if (grow(w, err) < 0)
		return -1;
	long k = r->njobs++;
	hs_sim_job_t *j = &r->jobs[k];
	wjob_t *x = &w->wj[k];
	memset(j, 0, sizeof(*j));
	memset(x, 0, sizeof(*x));
	j->index = k;
	snprintf(j->id, sizeof(j->id), "%ld", k);
	j->model = tj->model;
	j->jt = jt;
	j->sf = tj->scale_factor;
	j->weight = tj->weight;
	j->slo = tj->slo;
	j->total_steps = tj->total_steps;
	j->arrival_s = tj->arrival_s;
	j->line = tj->line;
	j->pinned = tj->pinned;
	j->first_start_s = j->finish_s = -1.0;
	j->pred_first_s = j->pred_first_at = j->pred_late_s = j->pred_late_at = -1.0;
	j->type = -1;
	j->partner = -1;
	j->measured = measured;
	x->state = HS_SJ_OTHER;
	x->partner = -1;
	x->ack_at = INFINITY;
	x->comment_dirty = 1;
	x->requeued_at = -1;
	x->prog_t = tj->arrival_s;
	x->held = calloc((size_t)j->sf + 1, sizeof(*x->held));
	x->meas = calloc((size_t)w->J + 1, sizeof(double));
	x->meas_t = calloc((size_t)w->J + 1, sizeof(int64_t));
	x->rec = malloc(sizeof(*x->rec));
	if (x->rec)
		hs_record_init(x->rec);
	x->meas_dirty = 0;
	j->user = hs_sim_users_find(w->users, tj->user ? tj->user : "user", tj->account);
	if (j->user < 0)
		return hs_err_set(err, "out of memory");
	j->group = k - tj->array_task;
	j->array_tasks = tj->array_tasks;
	int usable = job_rates(w, j);
	int hints = usable < 0 ? -1 : job_hints(w, k, j);
	if (hints == -2)
		return hs_err_set(err, "--strategy fake-model=%s: no such model with scale factor "
				  "%d in the throughput table",
				  w->users->users[j->user].strategy.model, j->sf);
	if (usable < 0 || !x->held || !x->meas || !x->meas_t || !x->rec || hints < 0)
		return hs_err_set(err, "out of memory");
	if (!usable) {
		r->rejected++; /* no type can ever run it: never submitted */
		return 1;
	}
	if (w->nlive == w->cap_live) {
		long cap = w->cap_live ? 2 * w->cap_live : 256;
		long *nl = realloc(w->live, (size_t)cap * sizeof(*nl));
		if (!nl)
			return hs_err_set(err, "out of memory");
		w->live = nl;
		w->cap_live = cap;
	}
	hs_world_iso_join(w, k);
	if (hs_world_user_live(w, j->user, j->sf) < 0)
		return hs_err_set(err, "out of memory");
	w->live[w->nlive++] = k;
	x->live = 1;
	x->state = HS_SJ_PENDING;
	x->submit_time = x->begin_time = HS_SIM_EPOCH + (int64_t)ceil(tj->arrival_s);
	w->changed = 1;
	return 0;
}

long hs_world_active(const hs_world_t *w)
{
	return w->nlive;
}

const hs_sim_users_t *hs_world_users(const hs_world_t *w)
{
	return w->users;
}

long hs_world_measured_done(const hs_world_t *w)
{
	return w->measured_done;
}

int hs_world_take_changed(hs_world_t *w)
{
	int c = w->changed;
	w->changed = 0;
	return c;
}

/* The job's AdminComment record: its step, checkpoint and measured
 * throughputs, as the SPANK plugin writes them. The engine gets it
 * parsed (hs_sjob_t.record): the text in between is the plugin's
 * transport, not a decision, and formatting and parsing it for every
 * running job every round would be most of a simulation's time. */
static void job_record(hs_world_t *w, long k, int64_t now)
{
	wjob_t *x = &w->wj[k];
	const hs_sim_job_t *j = &w->res->jobs[k];
	hs_record_t *rec = x->rec;
	if (x->meas_dirty) {
		/* the measured types: only when one was added */
		hs_record_init(rec);
		for (int t = 0; t < w->J; t++)
			if (x->meas[t] > 0)
				(void)hs_record_thr_set(rec, w->o.cluster->names[t], x->meas[t], 5,
							x->meas_t[t]);
		x->meas_dirty = 0;
	}
	rec->has_step = x->state == HS_SJ_RUNNING;
	rec->step = rec->has_step ? (uint64_t)floor(j->done_steps) : 0;
	rec->t = rec->has_step ? now : 0;
	rec->has_ckpt = x->has_ckpt;
	rec->ckpt_step = x->has_ckpt ? (uint64_t)floor(x->ckpt_step) : 0;
	rec->ckpt_t = x->has_ckpt ? x->ckpt_t : 0;
	x->comment_dirty = 0;
	x->fmt_step = j->done_steps;
}

/* The association tree of the snapshot: every account under the root,
 * every user under its account (rebuilt when a trace brought new ones). */
static int snap_assocs(hs_world_t *w)
{
	const hs_sim_users_t *u = w->users;
	int n = u->naccounts + u->nusers;
	if (n == w->nsassocs)
		return 0;
	hs_sassoc_t *a = realloc(w->sassocs, ((size_t)n + 1) * sizeof(*a));
	if (!a)
		return -1;
	w->sassocs = a;
	for (int i = 0; i < u->naccounts; i++)
		a[i] = (hs_sassoc_t){ .id = (uint32_t)i + 1, .parent = -1,
				      .account = (char *)u->accounts[i].name,
				      .shares = u->accounts[i].shares };
	for (int i = 0; i < u->nusers; i++)
		a[u->naccounts + i] = (hs_sassoc_t){
			.id = (uint32_t)(u->naccounts + i) + 1, .parent = u->users[i].account,
			.account = (char *)u->accounts[u->users[i].account].name,
			.user = (char *)u->users[i].name, .shares = u->users[i].shares };
	w->nsassocs = n;
	return 0;
}

void hs_world_drop_record(wjob_t *x)
{
	free(x->rec);
	free(x->meas);
	free(x->meas_t);
	x->rec = NULL;
	x->meas = NULL;
	x->meas_t = NULL;
}

int hs_world_ended_push(hs_world_t *w, long k)
{
	if (w->nended == w->cap_ended) {
		long cap = w->cap_ended ? 2 * w->cap_ended : 64;
		long *e = realloc(w->ended, (size_t)cap * sizeof(*e));
		if (!e)
			return -1;
		w->ended = e;
		hs_sjob_t *s = realloc(w->sended, (size_t)cap * sizeof(*s));
		if (!s)
			return -1; /* the larger `ended` is kept; cap unchanged */
		w->sended = s;
		w->cap_ended = cap;
	}
	w->ended[w->nended++] = k;
	return 0;
}

/* Frees what the jobs listed as ended at the previous snapshot kept. */
static void ended_release(hs_world_t *w)
{
	if (w->nlisted == 0)
		return; /* nothing listed; `ended` may not be allocated yet */
	for (long i = 0; i < w->nlisted; i++)
		hs_world_drop_record(&w->wj[w->ended[i]]);
	memmove(w->ended, w->ended + w->nlisted, (size_t)(w->nended - w->nlisted) * sizeof(long));
	w->nended -= w->nlisted;
	w->nlisted = 0;
}

/* The snapshot's ended list: every job retired since the last one, its
 * record brought up to date (a rate measured since it was written). */
static void snap_ended(hs_world_t *w, int64_t now, hs_snap_t *s)
{
	const hs_sim_users_t *us = w->users;
	for (long i = 0; i < w->nended; i++) {
		long k = w->ended[i];
		wjob_t *x = &w->wj[k];
		const hs_sim_job_t *j = &w->res->jobs[k];
		if (x->comment_dirty)
			job_record(w, k, now);
		w->sended[i] = (hs_sjob_t){
			.id = (uint32_t)k + 1, .user_id = 1000 + (uint32_t)j->user,
			.state = HS_SJ_OTHER, .gpus = j->sf, .nenv = x->nenv, .env = x->env,
			.name = (char *)x->name, .record = x->rec,
			.account = (char *)us->accounts[us->users[j->user].account].name,
			.array_id = j->array_tasks > 1 ? (uint32_t)j->group + 1 : 0,
		};
	}
	s->ended = w->sended;
	s->nended = s->cap_ended = (int)w->nended;
	w->nlisted = w->nended;
}

static int snap_room(hs_world_t *w)
{
	if (w->nlive <= w->cap_sjobs)
		return 0;
	long cap = w->nlive + 1024;
	hs_sjob_t *n = realloc(w->sjobs, (size_t)cap * sizeof(*n));
	if (!n)
		return -1;
	w->sjobs = n;
	w->cap_sjobs = cap;
	return 0;
}

int hs_world_snapshot(hs_world_t *w, int64_t now, hs_snap_t *s, hs_err_t *err)
{
	memset(s, 0, sizeof(*s));
	w->snapshots = 1;
	ended_release(w);
	if (snap_room(w) < 0 || snap_assocs(w) < 0)
		return hs_err_set(err, "out of memory");
	s->nassocs = s->cap_assocs = w->nsassocs;
	s->assocs = w->sassocs;
	const hs_sim_users_t *us = w->users;
	for (int g = 0; g < w->ngpus; g++)
		w->gpu_held_all[g] = w->holder[g] >= 0;
	s->now = now;
	s->nnodes = w->nnodes;
	s->nodes = w->snodes;
	s->nparts = 1;
	s->parts = &w->part;
	s->jobs = w->sjobs;
	for (long i = 0; i < w->nlive; i++) {
		long k = w->live[i];
		wjob_t *x = &w->wj[k];
		const hs_sim_job_t *j = &w->res->jobs[k];
		hs_world_progress(w, k);
		/* a running job reports its step as it goes; its record is
		 * rewritten when the step moved by 1% of its work (what the
		 * engine's estimate of its remaining work needs) */
		if (x->comment_dirty ||
		    (x->state == HS_SJ_RUNNING &&
		     j->done_steps - x->fmt_step >= fmax(1.0, 0.01 * j->total_steps)))
			job_record(w, k, now);
		hs_sjob_t *sj = &w->sjobs[s->njobs++];
		*sj = (hs_sjob_t){
			.id = (uint32_t)k + 1, .user_id = 1000 + (uint32_t)j->user, .state = x->state,
			.eligible = x->state == HS_SJ_PENDING && x->begin_time <= now,
			.gpus = j->sf, .nodes = 1, .nparts = 1,
			.shape_ok = hs_sim_strategy_shape_ok(&us->users[j->user].strategy),
			.array_id = j->array_tasks > 1 ? (uint32_t)j->group + 1 : 0,
			.parts = &w->part0, .nenv = x->nenv, .env = x->env,
			.name = (char *)x->name,
			.record = x->rec,
			.account = (char *)us->accounts[us->users[j->user].account].name,
			.user = (char *)us->users[j->user].name, .assoc = us->naccounts + j->user + 1,
			.qos = w->qos_name,
			.priority = (uint32_t)lround(1000.0 * j->weight),
			.submit_time = x->submit_time, .start_time = x->start_time,
			.begin_time = x->begin_time, .batch = 1,
			.requeue_ok = hs_sim_strategy_requeue_ok(&us->users[j->user].strategy) &&
				      !x->requeue_off,
			.restart_cnt = x->restart_cnt, .nheld = x->nheld, .held = x->held,
		};
	}
	s->cap_jobs = s->njobs;
	snap_ended(w, now, s);
	return 0;
}

void hs_world_snapshot_done(hs_snap_t *s)
{
	memset(s, 0, sizeof(*s)); /* everything was the world's */
}

void hs_world_views(hs_world_t *w, const uint32_t *ids, int n, hs_op_view_t *v, int64_t now)
{
	for (int i = 0; i < n; i++) {
		long k = hs_world_job(w, ids[i]);
		v[i] = (hs_op_view_t){ .id = ids[i], .exists = k >= 0 };
		if (k < 0)
			continue;
		wjob_t *x = &w->wj[k];
		if (x->comment_dirty) /* what the job wrote since (an ack) */
			job_record(w, k, now);
		v[i].state = x->state;
		v[i].restart_cnt = x->restart_cnt;
		v[i].begin_time = x->begin_time;
		v[i].record = x->rec;
	}
}

void hs_world_predictions(hs_world_t *w, const hs_plan_t *p, int64_t now, double round_s)
{
	for (int i = 0; i < p->njobs; i++) {
		const hs_plan_job_t *pj = &p->jobs[i];
		long k = hs_world_job(w, pj->id);
		if (k < 0)
			continue;
		hs_sim_job_t *j = &w->res->jobs[k];
		if (pj->op == HS_PLAN_KEEP)
			j->keeps++;
		/* a preemption moves the job when its plan has a target */
		if (pj->op == HS_PLAN_CHECKPOINT || pj->op == HS_PLAN_REQUEUE ||
		    pj->op == HS_PLAN_SUSPEND) {
			if (pj->target.nnodes > 0)
				j->migrations++;
			else
				j->preemptions++;
		}
		if (pj->state != HS_SJ_PENDING || j->first_start_s >= 0 || pj->expected_start <= 0)
			continue;
		double at = (double)(now - HS_SIM_EPOCH);
		double when = fmax((double)(pj->expected_start - HS_SIM_EPOCH), at);
		if (j->pred_first_at < 0) {
			j->pred_first_s = when;
			j->pred_first_at = at;
		}
		if (j->pred_late_at < 0 && at >= j->arrival_s + round_s) {
			j->pred_late_s = when;
			j->pred_late_at = at;
		}
	}
}
