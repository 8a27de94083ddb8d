/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim.c — the simulator's clock around the plugin's engine (sim.h): the
 * agent thread's loop of the plugin (plugins/sched/hetsched/agent.c) on
 * simulated time. At each whole second that matters: jobs that arrived
 * are submitted, then a round if one is due (snapshot -> hs_engine_round
 * -> the plan's execution pass through the simulated Slurm), else a tick
 * of the in-flight ops; then the clock jumps to the next second at which
 * anything can happen (an arrival, a job's end, a checkpoint's
 * acknowledgement, the next round, the next tick while ops are in
 * flight). The fluid reference (ideal) is sim_ideal.c. */
#include "sim/sim.h"
#include "sim/sim_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char hs_sim_timeline_header[] =
	"job,model,type,node,gpu,start_s,end_s,event,partner\n";

int hs_sim_opts_default(hs_sim_opts_t *o, hs_err_t *err)
{
	memset(o, 0, sizeof(*o));
	if (hs_sconf_defaults(&o->conf, err) < 0)
		return -1;
	o->gpus_per_server = 1;
	o->consolidation = HS_CONS_PLACEMENT;
	o->measure = 1;
	o->window_first = o->window_last = -1;
	o->progress = 1;
	return 0;
}

void hs_sim_opts_free(hs_sim_opts_t *o)
{
	hs_sconf_free(&o->conf);
}

/* CPU time of the process: on a shared machine a fairer speed figure than
 * wall time. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void hs_sim_result_free(hs_sim_result_t *res)
{
	if (!res)
		return;
	for (long i = 0; i < res->njobs; i++) {
		hs_sim_job_t *j = &res->jobs[i];
		free(j->thr_cons);
		free(j->thr_uncons);
		free(j->thr_policy);
		free(j->type_s);
	}
	free(res->jobs);
	free(res->rounds);
	hs_sim_users_free(&res->users);
	free(res->user_gpu_s);
	free(res->user_gpu_entitled);
	memset(res, 0, sizeof(*res));
}

static void engine_log(void *arg, int level, const char *msg)
{
	hs_sim_t *s = arg;
	if (s->o->trace_acts) {
		fprintf(s->o->trace_acts, "t=%.0f engine: %s\n", s->now, msg);
		return;
	}
	if (level != HS_LOG_ERROR || !s->o->progress)
		return;
	if (s->errors++ < 10)
		fprintf(stderr, "simulate: engine: %s\n", msg);
	else if (s->errors == 11)
		fprintf(stderr, "simulate: engine: more errors not shown\n");
}

/* ---- the agent's loop ------------------------------------------------------- */

/* A round at simulated second t: the snapshot, the engine's plan, its
 * execution. */
static int do_round(hs_sim_t *s, int64_t t, hs_err_t *err)
{
	int64_t now = HS_SIM_EPOCH + t;
	hs_snap_t snap;
	hs_plan_t plan;
	if (hs_world_snapshot(s->w, now, &snap, err) < 0)
		return -1;
	int rc = hs_engine_round(s->e, &snap, &plan, err);
	if (rc < 0) {
		hs_world_snapshot_done(&snap);
		return -1;
	}
	s->res->rounds_run++;
	s->res->solves += plan.solved;
	s->res->solve_failures += plan.solve_failed;
	s->res->solve_s += plan.solve_ms / 1000.0;
	hs_world_predictions(s->w, &plan, now, s->o->conf.round_s);
	if (s->o->trace_acts)
		fprintf(s->o->trace_acts, "t=%lld round %ld: %d active, %d start, %d keep, %d "
			"checkpoint, %d requeue, %d suspend, %d resume%s\n", (long long)t, plan.round,
			plan.nactive, plan.nstart, plan.nkeep, plan.ncheckpoint, plan.nrequeue,
			plan.nsuspend, plan.nresume, plan.solved ? ", solved" : "");
	hs_exec_t *x = hs_exec_plan(s->e, &snap, &plan, now);
	if (!x)
		rc = hs_err_set(err, "out of memory");
	hs_acts_t *b;
	while (x && (b = hs_exec_next(x)))
		hs_world_exec(s->w, b, now);
	hs_exec_free(x);
	hs_plan_free(&plan);
	hs_world_snapshot_done(&snap);
	if (rc == 0)
		rc = hs_sim_record_round(s->res, s->last_round, (double)t,
					 hs_world_take_busy(s->w), err);
	s->last_round = (double)t;
	return rc;
}

/* A tick of the in-flight ops (the agent's do_tick) at second t. */
static int do_tick(hs_sim_t *s, int64_t t, hs_err_t *err)
{
	int64_t now = HS_SIM_EPOCH + t;
	int n = hs_engine_nops(s->e);
	if (n <= 0)
		return 0;
	if (n > s->cap_ops) {
		uint32_t *ids = realloc(s->op_ids, (size_t)n * sizeof(*ids));
		if (ids)
			s->op_ids = ids;
		hs_op_view_t *v = realloc(s->op_views, (size_t)n * sizeof(*v));
		if (v)
			s->op_views = v;
		if (!ids || !v)
			return hs_err_set(err, "out of memory");
		s->cap_ops = n;
	}
	n = hs_exec_ops_jobs(s->e, s->op_ids, n);
	hs_world_views(s->w, s->op_ids, n, s->op_views, now);
	hs_exec_t *x = hs_exec_ops(s->e, s->op_views, n, now, 0);
	if (!x)
		return hs_err_set(err, "out of memory");
	hs_acts_t *b;
	while ((b = hs_exec_next(x)))
		hs_world_exec(s->w, b, now);
	hs_exec_free(x);
	return 0;
}

/* The next whole second at which anything can happen after now. */
static int64_t next_time(hs_sim_t *s, int64_t now)
{
	double t = INFINITY;
	double a = hs_workload_peek(s->wl);
	if (a >= 0)
		t = fmin(t, ceil(a));
	s->next_ev = hs_world_next_event(s->w); /* the world does not change
						 * until the next advance */
	t = fmin(t, ceil(s->next_ev));
	if (hs_world_active(s->w) > 0 || s->changed) {
		int64_t r = hs_engine_next_round(s->e, s->changed);
		t = fmin(t, r > 0 ? (double)(r - HS_SIM_EPOCH) : (double)now);
	}
	if (hs_engine_nops(s->e) > 0)
		t = fmin(t, (double)(now + 1));
	if (!isfinite(t))
		return -1;
	return t > (double)now ? (int64_t)t : now + 1;
}

static int run_engine(hs_sim_t *s, hs_err_t *err)
{
	int64_t now = (int64_t)ceil(s->now);
	for (;;) {
		hs_world_advance(s->w, (double)now, s->next_ev);
		s->next_ev = NAN;
		s->now = (double)now;
		if (hs_sim_admit(s, s->now, err) < 0)
			return -1;
		if (hs_sim_all_done(s))
			return 0;
		if (s->o->max_time_s > 0 && s->now > s->o->max_time_s) {
			s->res->finished = 0;
			return 0;
		}
		s->changed |= hs_world_take_changed(s->w);
		int due = hs_engine_round_due(s->e, HS_SIM_EPOCH + now, s->changed);
		if (hs_world_active(s->w) > 0 && due) {
			s->changed = 0;
			if (do_round(s, now, err) < 0)
				return -1;
		} else if (do_tick(s, now, err) < 0) {
			return -1;
		}
		/* as the plugin's (cpujobs.c): the fill places the shapes the
		 * rounds do not model only right after a round, never between
		 * rounds ahead of the plan (a stop with nothing active stands
		 * for the round the plugin would run there) */
		if (due)
			hs_world_fill(s->w, HS_SIM_EPOCH + now);
		hs_sim_progress(s, 0);
		int64_t next = next_time(s, now);
		if (next < 0)
			return hs_err_set(err, "%ld jobs are active at t=%lld s but nothing will "
					  "ever happen (policy '%s' gives them nothing)",
					  hs_world_active(s->w), (long long)now, s->o->conf.policy);
		now = next;
	}
}

static int check_opts(const hs_sim_opts_t *o, const hs_cluster_t *c, hs_workload_t *w,
		      hs_err_t *err)
{
	if (hs_sconf_check(&o->conf, err) < 0)
		return -1;
	if (o->gpus_per_server < 1 || o->gpus_per_server > HS_MAX_GPUS_PER_SERVER)
		return hs_err_set(err, "GPUs per server must be in [1, %d]", HS_MAX_GPUS_PER_SERVER);
	if (o->window_first >= 0 && o->window_last < o->window_first)
		return hs_err_set(err, "the measurement window is empty");
	if (!isfinite(o->max_time_s) || o->max_time_s < 0)
		return hs_err_set(err, "the time limit must be >= 0");
	if (!(o->restart_s >= 0) || !(o->ckpt_s >= 0))
		return hs_err_set(err, "restart and checkpoint times must be >= 0");
	if (c->ntypes < 1 || hs_cluster_total(c) < 1)
		return hs_err_set(err, "the cluster has no GPUs");
	if (o->window_first < 0 && hs_workload_size(w) < 0)
		return hs_err_set(err, "an unbounded workload needs a measurement window "
				  "(or a number of jobs)");
	return 0;
}

/* The engine, as the plugin's agent makes it (packing available: the
 * simulated Slurm packs; no settle time: the simulation never restarts). */
static int setup(hs_sim_t *s, hs_err_t *err)
{
	hs_world_opts_t wo = { .cluster = s->c, .table = s->t,
			       .gpus_per_server = s->o->gpus_per_server,
			       .consolidation = s->o->consolidation, .restart_s = s->o->restart_s,
			       .ckpt_s = s->o->ckpt_s,
			       .pinned_preemptible = s->o->pinned_preemptible,
			       .measure = s->o->measure, .timeline = s->o->timeline,
			       .unknown_models = s->o->unknown_models,
			       .anonymous_jobs = s->o->anonymous_jobs, .seed = s->o->conf.seed,
			       .trace = s->o->trace_acts, .users = s->o->users };
	if (!(s->w = hs_world_new(&wo, s->res, err)))
		return -1;
	if (s->o->ideal)
		return 0;
	if (!(s->e = hs_engine_new(&s->o->conf, engine_log, s, err)))
		return -1;
	/* the jobs' table, unless the configuration names its own */
	if (s->o->conf.ntables == 0 && hs_engine_add_table(s->e, s->t, err) < 0)
		return -1;
	hs_engine_set_packing(s->e, 1);
	hs_engine_set_settle(s->e, 0);
	hs_engine_set_reasons(s->e, 0);
	hs_engine_set_save_failed(s->e, s->o->save_failed);
	if (s->o->learned_in) {
		json_object *l = json_object_from_file(s->o->learned_in);
		int rc = l ? hs_engine_learned_load(s->e, l, err) : -1;
		json_object_put(l);
		if (rc < 0)
			return hs_err_set(err, "%s: %s", s->o->learned_in,
					  l ? err->msg : "cannot read it as JSON");
	}
	return 0;
}

/* The learned table at the end (--learned-out), written whole or not at
 * all (a temporary file renamed). */
static int save_learned(const hs_sim_t *s, hs_err_t *err)
{
	if (!s->o->learned_out || !s->e)
		return 0;
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", s->o->learned_out) >= (int)sizeof(tmp))
		return hs_err_set(err, "%s: path too long", s->o->learned_out);
	json_object *l = hs_engine_learned_save(s->e);
	int bad = !l || json_object_to_file_ext(tmp, l, JSON_C_TO_STRING_PLAIN) < 0 ||
		  rename(tmp, s->o->learned_out) < 0;
	json_object_put(l);
	if (bad) {
		remove(tmp);
		return hs_err_set(err, "%s: cannot write the learned table", s->o->learned_out);
	}
	return 0;
}

int hs_sim_run(const hs_sim_opts_t *o, const hs_cluster_t *c, const hs_thrtable_t *t,
	       hs_workload_t *w, hs_sim_result_t *res, hs_err_t *err)
{
	memset(res, 0, sizeof(*res));
	if (check_opts(o, c, w, err) < 0)
		return -1;
	hs_sim_t s = { .o = o, .c = c, .t = t, .wl = w, .res = res, .next_ev = NAN };
	s.wall0 = s.last_progress = hs_sim_wall();
	double cpu0 = cpu_now();
	res->ntypes = c->ntypes;
	res->type_names = c->names;
	res->total_gpus = hs_cluster_total(c);
	res->finished = 1;
	int rc = setup(&s, err);
	if (rc == 0) {
		double first = hs_workload_peek(w);
		s.now = first > 0 ? first : 0.0;
		rc = o->ideal ? hs_sim_run_ideal(&s, err) : run_engine(&s, err);
	}
	if (rc == 0 && !o->ideal)
		/* the busy time after the last round */
		rc = hs_sim_record_round(res, s.last_round, s.now, hs_world_take_busy(s.w), err);
	if (rc == 0 && hs_sim_users_copy(&res->users, hs_world_users(s.w)) < 0)
		rc = hs_err_set(err, "out of memory");
	if (rc == 0)
		rc = save_learned(&s, err);
	if (rc == 0) {
		hs_world_close(s.w, s.now);
		res->end_s = s.now;
		res->wall_s = hs_sim_wall() - s.wall0;
		res->cpu_s = cpu_now() - cpu0;
		if (s.e)
			hs_engine_mech_stats(s.e, &res->mech);
		if (s.e)
			hs_engine_learn_stats(s.e, &res->learn);
		hs_sim_progress(&s, 1);
	}
	hs_engine_free(s.e);
	hs_world_free(s.w);
	free(s.op_ids);
	free(s.op_views);
	return rc;
}
