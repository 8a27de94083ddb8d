/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched_fixtures.h — helpers for the sched engine tests: build snapshots
 * by hand (nodes of GPU types in one partition "gpu", jobs with hints and
 * measured throughputs) and a tiny fake Slurm that applies a plan the way
 * slurmctld would (starts take the first free GPUs of the target nodes,
 * requeues free the GPUs at once, suspends keep them). Header-only; each
 * test program includes it once. */
#ifndef HS_TESTS_SCHED_FIXTURES_H
#define HS_TESTS_SCHED_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/record.h"
#include "sched/engine.h"
#include "sched/exec.h"
#include "sched/snapshot.h"

/* An engine on the defaults plus conf_text (hetsched.conf lines, may be
 * NULL), logging to logger; a bad configuration aborts the test. */
static inline hs_engine_t *fx_engine(const char *conf_text, hs_log_fn logger)
{
	hs_sconf_t c;
	hs_err_t err;
	hs_engine_t *e = NULL;
	/* RestartDelay=0: a migration's restart follows its requeue in the
	 * ticks fx_round runs at the same time (a test may set it again).
	 * PinnedAdmission=always: a fixture job cannot be preempted unless
	 * it checkpoints (ckpt), and the tests written before share became
	 * the default rely on every pending job entering the policy; the
	 * admission's own tests (test_sched_pinned.c) set it. */
	if (hs_sconf_defaults(&c, &err) == 0 &&
	    hs_sconf_parse_text(&c, "RestartDelay=0\nPinnedAdmission=always", &err) == 0 &&
	    (!conf_text || hs_sconf_parse_text(&c, conf_text, &err) == 0))
		e = hs_engine_new(&c, logger, NULL, &err);
	hs_sconf_free(&c);
	if (!e) {
		fprintf(stderr, "fx_engine: %s\n", err.msg);
		abort();
	}
	return e;
}

/* A fake cluster: nodes and jobs that persist across rounds. */
typedef struct fx_job {
	uint32_t id;
	hs_sjob_state_t state;
	int gpus;
	int per_node;            /* gpus_per_node (0 = any) */
	const char *type;        /* requested type or NULL */
	int ckpt, no_preempt, batch, requeue_ok;
	char model[64];
	long steps;
	char comment[1024];      /* AdminComment */
	int nheld;
	hs_sgpu_t held[16];
	unsigned restart_cnt;
	int64_t submit, start, begin;
	uint32_t time_limit_min; /* 0 = unlimited */
	uint32_t prio;
	const char *account;
	uint32_t uid;            /* owner */
	const char *name;        /* job name (learned kinds), NULL = none */
	int gone;                /* finished: left the cluster */
	int ended;               /* finished lately: in the snapshot's ended
	                          * jobs (learned table only), not its jobs */
	const char *only_node;   /* pending: Slurm lets it use only this
	                          * node (hs_sjob_t.node_ok), NULL = any */
	const char *refuse_node; /* starts on it refused: CONFIG (fx_refusal) */
	const char *busy_node;   /* starts on it refused: BUSY */
	int refuse_other;        /* every start refused: OTHER */
	int held_now;            /* held since the snapshot: the start gate
	                          * refuses it (HELD) */
	int odd_shape;           /* a GPU request shape the rounds do not
	                          * model (hs_sjob_t.shape_ok = 0) */
	uint32_t array_id;       /* its job array's id, 0 = none */
} fx_job_t;

typedef struct fx {
	int nnodes;
	char names[32][32];
	char types[32][16];
	int ngpus[32];
	int avail[32];
	unsigned char foreign[32][16]; /* GPUs held by something else */
	int njobs;
	fx_job_t jobs[256];
	int64_t now;
	int no_ticks;            /* fx_round runs the round's plan pass only,
	                          * no ticks of the ops after it */
} fx_t;

static inline void fx_init(fx_t *f, const char *spec)
{
	/* spec: "v100:2:4,k80:1:4" = type:nodes:gpus */
	memset(f, 0, sizeof(*f));
	f->now = 1000000;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		char type[16];
		int n, g;
		if (sscanf(tok, "%15[^:]:%d:%d", type, &n, &g) != 3)
			abort();
		for (int i = 0; i < n; i++) {
			int k = f->nnodes++;
			snprintf(f->names[k], sizeof(f->names[k]), "%s-%d", type, i + 1);
			snprintf(f->types[k], sizeof(f->types[k]), "%s", type);
			f->ngpus[k] = g;
			f->avail[k] = 1;
		}
	}
}

static inline fx_job_t *fx_add(fx_t *f, uint32_t id, int gpus)
{
	fx_job_t *j = &f->jobs[f->njobs++];
	memset(j, 0, sizeof(*j));
	j->id = id;
	j->gpus = gpus;
	j->batch = 1;
	j->requeue_ok = 1;
	j->submit = f->now - 10;
	j->prio = 1000;
	j->account = "acct";
	return j;
}

static inline fx_job_t *fx_find(fx_t *f, uint32_t id)
{
	for (int i = 0; i < f->njobs; i++)
		if (f->jobs[i].id == id)
			return &f->jobs[i];
	return NULL;
}

/* Sets the measured steps/s of a job on a type (AdminComment record). */
static inline void fx_measure_at(fx_job_t *j, const char *type, double sps, int64_t t)
{
	hs_record_t r;
	hs_record_init(&r);
	if (j->comment[0] && hs_record_parse(&r, j->comment, NULL) < 0)
		abort();
	if (hs_record_thr_set(&r, type, sps, 5, t) < 0)
		abort();
	if (hs_record_format(&r, j->comment, sizeof(j->comment), NULL) < 0)
		abort();
}

/* ... with its last sample at unix time 1000 (before any fixture round). */
static inline void fx_measure(fx_job_t *j, const char *type, double sps)
{
	fx_measure_at(j, type, sps, 1000);
}

static inline void fx_ckpt_ack(fx_job_t *j, uint64_t step, int64_t t)
{
	hs_record_t r;
	hs_record_init(&r);
	if (j->comment[0] && hs_record_parse(&r, j->comment, NULL) < 0)
		abort();
	r.has_ckpt = 1;
	r.ckpt_step = step;
	r.ckpt_t = t;
	if (hs_record_format(&r, j->comment, sizeof(j->comment), NULL) < 0)
		abort();
}

static inline int fx_held_by_job(const fx_t *f, int node, int gpu)
{
	for (int i = 0; i < f->njobs; i++) {
		const fx_job_t *j = &f->jobs[i];
		if (j->gone || j->ended || (j->state != HS_SJ_RUNNING && j->state != HS_SJ_SUSPENDED))
			continue;
		for (int k = 0; k < j->nheld; k++)
			if (j->held[k].node == node && j->held[k].gpu == gpu)
				return 1;
	}
	return 0;
}

static inline char *fx_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Builds the snapshot slurmctld would give. */
static inline void fx_snapshot(const fx_t *f, hs_snap_t *s)
{
	hs_snap_init(s);
	s->now = f->now;
	s->nnodes = f->nnodes;
	s->nodes = calloc((size_t)f->nnodes + 1, sizeof(*s->nodes));
	for (int n = 0; n < f->nnodes; n++) {
		hs_snode_t *nd = &s->nodes[n];
		nd->name = strdup(f->names[n]);
		nd->gpu_type = strdup(f->types[n]);
		nd->ngpus = f->ngpus[n];
		nd->avail = f->avail[n];
		nd->gpu_held = calloc((size_t)nd->ngpus + 1, 1);
		for (int g = 0; g < nd->ngpus; g++)
			nd->gpu_held[g] = (unsigned char)(f->foreign[n][g] || fx_held_by_job(f, n, g));
	}
	s->nparts = 1;
	s->parts = calloc(1, sizeof(*s->parts));
	s->parts[0].name = strdup("gpu");
	s->parts[0].managed = 1;
	s->parts[0].up = 1;
	s->parts[0].nnodes = f->nnodes;
	s->parts[0].nodes = calloc((size_t)f->nnodes + 1, sizeof(int));
	for (int n = 0; n < f->nnodes; n++)
		s->parts[0].nodes[n] = n;
	for (int i = 0; i < f->njobs; i++) {
		const fx_job_t *j = &f->jobs[i];
		if (j->gone)
			continue;
		hs_sjob_t *sj = j->ended ? hs_snap_add_ended(s) : hs_snap_add_job(s);
		sj->id = j->id;
		sj->state = j->ended ? HS_SJ_OTHER : j->state;
		sj->eligible = j->state == HS_SJ_PENDING && j->begin <= f->now;
		sj->gpus = j->gpus;
		sj->gpus_per_node = j->per_node;
		sj->nodes = 1;
		sj->shape_ok = !j->odd_shape;
		sj->gpu_type = fx_strdup(j->type);
		sj->nparts = 1;
		sj->parts = calloc(1, sizeof(int));
		sj->env = calloc(8, sizeof(char *));
		char buf[160];
		if (j->model[0]) {
			snprintf(buf, sizeof(buf), "HS_MODEL=%s", j->model);
			sj->env[sj->nenv++] = strdup(buf);
		}
		if (j->steps) {
			snprintf(buf, sizeof(buf), "HS_STEPS=%ld", j->steps);
			sj->env[sj->nenv++] = strdup(buf);
		}
		if (j->ckpt)
			sj->env[sj->nenv++] = strdup("HS_CKPT=1");
		if (j->no_preempt)
			sj->env[sj->nenv++] = strdup("HS_NO_PREEMPT=1");
		sj->admin_comment = j->comment[0] ? strdup(j->comment) : NULL;
		sj->account = fx_strdup(j->account);
		sj->user_id = j->uid;
		sj->name = fx_strdup(j->name);
		sj->qos = strdup("normal");
		sj->priority = j->prio;
		sj->submit_time = j->submit;
		sj->start_time = j->start;
		sj->begin_time = j->begin;
		sj->time_limit_min = j->time_limit_min;
		sj->batch = j->batch;
		sj->requeue_ok = j->requeue_ok;
		sj->restart_cnt = j->restart_cnt;
		sj->array_id = j->array_id;
		if (j->only_node && j->state == HS_SJ_PENDING) {
			sj->node_ok = calloc((size_t)f->nnodes + 1, 1);
			for (int n = 0; n < f->nnodes; n++)
				sj->node_ok[n] = !strcmp(f->names[n], j->only_node);
		}
		/* OTHER: a requeued job Slurm has not cleaned up keeps its old
		 * GPU list while the nodes already show those GPUs free */
		if (!j->ended && (j->state == HS_SJ_RUNNING || j->state == HS_SJ_SUSPENDED ||
				  j->state == HS_SJ_OTHER)) {
			sj->nheld = j->nheld;
			sj->held = calloc((size_t)j->nheld + 1, sizeof(*sj->held));
			memcpy(sj->held, j->held, (size_t)j->nheld * sizeof(*sj->held));
		}
	}
}

/* Node index of a name, -1 = none. */
static inline int fx_node(const fx_t *f, const char *name)
{
	for (int x = 0; x < f->nnodes; x++)
		if (!strcmp(f->names[x], name))
			return x;
	return -1;
}

/* Free GPUs of node n for job j (its own GPUs taken in this start too). */
static inline int fx_take(fx_t *f, int n, int want, hs_sgpu_t *held, int *nh)
{
	int got = 0;
	for (int g = 0; g < f->ngpus[n] && got < want; g++) {
		if (f->foreign[n][g] || fx_held_by_job(f, n, g))
			continue;
		int dup = 0;
		for (int h = 0; h < *nh; h++)
			dup |= held[h].node == n && held[h].gpu == g;
		if (dup)
			continue;
		held[(*nh)++] = (hs_sgpu_t){ .node = n, .gpu = g };
		got++;
	}
	return got;
}

static inline void fx_run(fx_t *f, fx_job_t *j, const hs_sgpu_t *held, int nh)
{
	memcpy(j->held, held, (size_t)nh * sizeof(*held));
	j->nheld = nh;
	j->state = HS_SJ_RUNNING;
	j->start = f->now;
}

/* Job j runs (since 100 s ago unless set) and holds GPU `gpu` of node
 * `node` as well: a test's running job or victim. */
static inline void fx_hold(fx_t *f, fx_job_t *j, const char *node, int gpu)
{
	j->state = HS_SJ_RUNNING;
	if (!j->start)
		j->start = f->now - 100;
	j->held[j->nheld++] = (hs_sgpu_t){ .node = fx_node(f, node), .gpu = gpu };
}

/* Slurm's refusals the fake can play, per job: a start on refuse_node is
 * refused as "requested node configuration is not available" (CONFIG:
 * e.g. more memory than the node has), or as "nodes busy" (busy_node:
 * memory held by jobs that stay); refuse_other refuses every start (a
 * QOS limit, say). */
static inline int fx_refusal(const fx_job_t *j, const fx_t *f, int n)
{
	if (j->refuse_other)
		return HS_REFUSE_OTHER;
	if (j->refuse_node && !strcmp(f->names[n], j->refuse_node))
		return HS_REFUSE_CONFIG;
	if (j->busy_node && !strcmp(f->names[n], j->busy_node))
		return HS_REFUSE_BUSY;
	return HS_REFUSE_NONE;
}

/* Starts job j on exactly the target: first free GPUs of each node. */
static inline hs_refusal_t fx_start(fx_t *f, fx_job_t *j, const hs_target_t *t)
{
	hs_sgpu_t held[16];
	int nh = 0;
	if (!t || t->nnodes <= 0)
		return HS_REFUSE_CONFIG;
	for (int k = 0; k < t->nnodes; k++) {
		int n = fx_node(f, t->nodes[k].name);
		if (n < 0 || !f->avail[n])
			return HS_REFUSE_BUSY;
		hs_refusal_t r = (hs_refusal_t)fx_refusal(j, f, n);
		if (r != HS_REFUSE_NONE)
			return r;
		if (fx_take(f, n, t->nodes[k].gpus, held, &nh) < t->nodes[k].gpus)
			return HS_REFUSE_BUSY;
	}
	fx_run(f, j, held, nh);
	return HS_REFUSE_NONE;
}

/* Is node n one of the names an act leaves out? */
static inline int fx_avoided(const fx_t *f, int n, const char *const *avoid, int navoid)
{
	for (int i = 0; i < navoid; i++)
		if (!strcmp(f->names[n], avoid[i]))
			return 1;
	return 0;
}

/* Slurm placing job j on free GPUs of nodes of `type` (NULL: any type),
 * leaving out the nodes `avoid` names: one node that holds all of it (or
 * its per-node count on nodes in turn). CONFIG when no node of that type
 * could ever hold it. */
static inline hs_refusal_t fx_place(fx_t *f, fx_job_t *j, const char *type,
				    const char *const *avoid, int navoid)
{
	int per = j->per_node > 0 ? j->per_node : j->gpus, need = j->gpus, could = 0;
	hs_sgpu_t held[16];
	int nh = 0;
	hs_refusal_t last = HS_REFUSE_BUSY;
	for (int n = 0; n < f->nnodes && need > 0; n++) {
		if ((type && strcmp(f->types[n], type)) || (j->type && strcmp(f->types[n], j->type)))
			continue;
		if (f->ngpus[n] < per || fx_refusal(j, f, n) == HS_REFUSE_CONFIG)
			continue;
		could = 1;
		/* a node the act leaves out is busy for this start */
		if (!f->avail[n] || fx_avoided(f, n, avoid, navoid) ||
		    fx_refusal(j, f, n) != HS_REFUSE_NONE) {
			last = (hs_refusal_t)(fx_refusal(j, f, n) ? fx_refusal(j, f, n) : HS_REFUSE_BUSY);
			continue;
		}
		int mark = nh;
		if (fx_take(f, n, per, held, &nh) < per) {
			nh = mark;
			continue;
		}
		need -= per;
	}
	if (need > 0)
		return could ? last : HS_REFUSE_CONFIG;
	fx_run(f, j, held, nh);
	return HS_REFUSE_NONE;
}

static inline void fx_requeue(fx_job_t *j)
{
	j->state = HS_SJ_PENDING;
	j->nheld = 0;
	j->restart_cnt++;
}

/* Counts of what a round did on the fake cluster (plan pass and the ticks
 * fx_round runs after it). */
typedef struct fx_counts {
	int start, start_fail, keep, ckpt, requeue, suspend, resume;
	int refilled, fallbacks;
} fx_counts_t;

/* The act's job, if it is still what the act expects (the plugin's
 * refind). */
static inline fx_job_t *fx_refind(fx_t *f, const hs_act_t *a)
{
	fx_job_t *j = fx_find(f, a->id);
	if (!j || j->gone || !a->check_state)
		return j && !j->gone ? j : NULL;
	if (j->restart_cnt != a->restart_cnt || j->state != a->state)
		return NULL;
	if (a->state == HS_SJ_RUNNING && j->start != a->start_time)
		return NULL;
	return j;
}

/* One start act: the gate, then where the engine said. */
static inline void fx_do_start(fx_t *f, fx_job_t *j, hs_act_t *a)
{
	if (j->state != HS_SJ_PENDING) {
		a->out = HS_OUT_GONE;
		return;
	}
	if (j->begin > f->now || j->held_now) {
		a->out = HS_OUT_REFUSED;
		a->refusal = HS_REFUSE_HELD;
		snprintf(a->msg, sizeof(a->msg), "not eligible");
		return;
	}
	hs_refusal_t r = HS_REFUSE_NONE;
	fx_job_t *pt;
	if (j->refuse_other) {
		a->out = HS_OUT_REFUSED;
		a->refusal = HS_REFUSE_OTHER;
		snprintf(a->msg, sizeof(a->msg), "fake limit");
		return;
	}
	switch (a->where) {
	case HS_WHERE_NODES:
		r = fx_start(f, j, a->target);
		break;
	case HS_WHERE_PACKED:
		pt = a->target ? fx_find(f, a->target->partner) : NULL;
		if (!pt || pt->gone || pt->state != HS_SJ_RUNNING) {
			r = HS_REFUSE_PARTNER;
			break;
		}
		fx_run(f, j, pt->held, pt->nheld); /* the partner's very GPUs */
		break;
	case HS_WHERE_TYPE:
		r = a->type ? fx_place(f, j, a->type, a->avoid, a->navoid) : HS_REFUSE_CONFIG;
		break;
	case HS_WHERE_ANY:
		r = fx_place(f, j, NULL, a->avoid, a->navoid);
		break;
	}
	a->out = r == HS_REFUSE_NONE ? HS_OUT_DONE : HS_OUT_REFUSED;
	a->refusal = r;
	if (r != HS_REFUSE_NONE)
		snprintf(a->msg, sizeof(a->msg), "fake refusal %d", (int)r);
}

/* The fake Slurm as an executor (exec.h), as the plugin is one: every
 * act of a batch done, its outcome written. A checkpoint signal is
 * acknowledged at once (the AdminComment record the engine reads).
 * Returns how many acts changed the cluster. */
static inline int fx_exec(fx_t *f, hs_acts_t *b)
{
	int changed = 0;
	for (int k = 0; k < b->n; k++) {
		hs_act_t *a = &b->a[k];
		fx_job_t *j = fx_refind(f, a);
		a->out = HS_OUT_DONE;
		if (!j) {
			a->out = HS_OUT_GONE;
			continue;
		}
		switch (a->kind) {
		case HS_DO_START:
			fx_do_start(f, j, a);
			break;
		case HS_DO_CKPT_SIGNAL:
			if (j->state != HS_SJ_RUNNING)
				a->out = HS_OUT_FAILED;
			else if (j->ckpt)
				fx_ckpt_ack(j, 0, f->now);
			break;
		case HS_DO_REQUEUE:
			/* Slurm refuses a job with requeue off, but the executor
			 * restores the flag it was admitted with for this
			 * requeue (then puts the owner's back) */
			if ((j->state == HS_SJ_RUNNING || j->state == HS_SJ_SUSPENDED) &&
			    (j->requeue_ok ||
			     (a->restore_requeue && a->restart_cnt == j->restart_cnt)))
				fx_requeue(j);
			else
				a->out = HS_OUT_FAILED;
			break;
		case HS_DO_SUSPEND:
			if (j->state == HS_SJ_RUNNING)
				j->state = HS_SJ_SUSPENDED;
			else
				a->out = HS_OUT_FAILED;
			break;
		case HS_DO_RESUME:
			if (j->state == HS_SJ_SUSPENDED)
				j->state = HS_SJ_RUNNING;
			else
				a->out = HS_OUT_FAILED;
			break;
		case HS_DO_CLEAR_BEGIN:
			j->begin = a->begin;
			break;
		}
		changed += a->out == HS_OUT_DONE && a->kind != HS_DO_CKPT_SIGNAL;
	}
	return changed;
}

static inline void fx_add_counts(fx_counts_t *c, const hs_exec_counts_t *x)
{
	c->start += x->started;
	c->start_fail += x->start_failed + x->deferred;
	c->keep += x->kept;
	c->ckpt += x->checkpointing;
	c->requeue += x->requeued;
	c->suspend += x->suspended;
	c->resume += x->resumed;
	c->refilled += x->refilled;
	c->fallbacks += x->fallbacks;
}

/* One tick of the in-flight ops on the fake (what the plugin's agent does
 * every second); returns how many acts changed the cluster. */
static inline int fx_tick(fx_t *f, hs_engine_t *e, fx_counts_t *c)
{
	uint32_t ids[256];
	hs_op_view_t v[256];
	int n = hs_exec_ops_jobs(e, ids, 256), changed = 0;
	for (int i = 0; i < n; i++) {
		fx_job_t *j = fx_find(f, ids[i]);
		v[i] = (hs_op_view_t){ .id = ids[i], .exists = j && !j->gone };
		if (!j || j->gone)
			continue;
		v[i].state = j->state;
		v[i].restart_cnt = j->restart_cnt;
		v[i].begin_time = j->begin;
		v[i].admin_comment = j->comment[0] ? j->comment : NULL;
	}
	hs_exec_t *x = hs_exec_ops(e, v, n, f->now, 0);
	if (!x)
		abort();
	hs_acts_t *b;
	while ((b = hs_exec_next(x)))
		changed += fx_exec(f, b);
	hs_exec_counts_t xc = *hs_exec_counts(x);
	xc.requeued = 0; /* a checkpoint's requeue: counted as the checkpoint */
	fx_add_counts(c, &xc);
	hs_exec_free(x);
	return changed;
}

/* Carries a plan out on the fake as the plugin does (the engine's
 * execution pass through fx_exec), then ticks the ops at the same time
 * until nothing changes: a checkpoint is acknowledged at once, so a
 * migration's requeue and restart happen within the round. */
static inline void fx_apply(fx_t *f, hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *p,
			    fx_counts_t *c)
{
	memset(c, 0, sizeof(*c));
	hs_exec_t *x = hs_exec_plan(e, s, p, f->now);
	if (!x)
		abort();
	hs_acts_t *b;
	while ((b = hs_exec_next(x)))
		(void)fx_exec(f, b);
	fx_add_counts(c, hs_exec_counts(x));
	hs_exec_free(x);
	for (int t = 0; t < 8 && !f->no_ticks && fx_tick(f, e, c) > 0; t++)
		;
}

/* Runs one round on the fake cluster and applies it. */
static inline int fx_round(fx_t *f, hs_engine_t *e, hs_plan_t *plan, fx_counts_t *c)
{
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(f, &s);
	int rc = hs_engine_round(e, &s, plan, &err);
	if (rc < 0)
		fprintf(stderr, "round failed: %s\n", err.msg);
	else
		fx_apply(f, e, &s, plan, c);
	hs_snap_free(&s);
	return rc;
}

/* Job id's target share on type in a status document
 * (hs_engine_status): 0 without one, -1 when the job is not in it. */
static inline double fx_status_target(json_object *st, uint32_t id, const char *type)
{
	json_object *jobs = json_object_object_get(st, "jobs");
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		if ((uint32_t)json_object_get_int64(json_object_object_get(j, "id")) != id)
			continue;
		json_object *t = json_object_object_get(j, "target"), *v = NULL;
		return t && json_object_object_get_ex(t, type, &v) ? json_object_get_double(v) : 0;
	}
	return -1;
}

static inline const hs_plan_job_t *plan_job(const hs_plan_t *p, uint32_t id)
{
	for (int i = 0; i < p->njobs; i++)
		if (p->jobs[i].id == id)
			return &p->jobs[i];
	return NULL;
}

static inline const char *fx_type_of(const fx_t *f, const fx_job_t *j)
{
	return j->nheld > 0 ? f->types[j->held[0].node] : NULL;
}

/* One round of f on e and its status document (the caller puts it);
 * NULL when the round or the document failed. */
static inline json_object *fx_round_status(fx_t *f, hs_engine_t *e)
{
	hs_plan_t p;
	fx_counts_t c;
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(f, &s);
	json_object *st = NULL;
	if (fx_round(f, e, &p, &c) == 0) {
		st = hs_engine_status(e, &s, &p, NULL, f->now, &err);
		hs_plan_free(&p);
	}
	hs_snap_free(&s);
	return st;
}

/* Job id's entry of a status document, NULL if none. */
static inline json_object *fx_status_job(json_object *st, int id)
{
	json_object *jobs, *v;
	if (!json_object_object_get_ex(st, "jobs", &jobs))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		if (json_object_object_get_ex(j, "id", &v) && json_object_get_int(v) == id)
			return j;
	}
	return NULL;
}

/* Its estimate on type ("throughput"), -1 if none. */
static inline double fx_status_thr(json_object *j, const char *type)
{
	json_object *e, *v;
	if (!json_object_object_get_ex(j, "throughput", &e) ||
	    !json_object_object_get_ex(e, type, &v))
		return -1;
	return json_object_get_double(v);
}

#endif /* HS_TESTS_SCHED_FIXTURES_H */
