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
#include "sched/snapshot.h"

/* An engine on the defaults plus conf_text (hetsched.conf lines, may be
 * NULL), logging to logger; a bad configuration aborts the test. */
static inline hs_engine_t *fx_engine(const char *conf_text, hs_log_fn logger)
{
	hs_sconf_t c;
	hs_err_t err;
	hs_engine_t *e = NULL;
	if (hs_sconf_defaults(&c, &err) == 0 &&
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
	int gone;                /* finished: left the cluster */
	const char *only_node;   /* pending: Slurm lets it use only this
	                          * node (hs_sjob_t.node_ok), NULL = any */
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
static inline void fx_measure(fx_job_t *j, const char *type, double sps)
{
	hs_record_t r;
	hs_record_init(&r);
	if (j->comment[0] && hs_record_parse(&r, j->comment, NULL) < 0)
		abort();
	if (hs_record_thr_set(&r, type, sps, 5, 1000) < 0)
		abort();
	if (hs_record_format(&r, j->comment, sizeof(j->comment), NULL) < 0)
		abort();
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
		if (j->gone || (j->state != HS_SJ_RUNNING && j->state != HS_SJ_SUSPENDED))
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
		hs_sjob_t *sj = hs_snap_add_job(s);
		sj->id = j->id;
		sj->state = j->state;
		sj->eligible = j->state == HS_SJ_PENDING && j->begin <= f->now;
		sj->gpus = j->gpus;
		sj->gpus_per_node = j->per_node;
		sj->nodes = 1;
		sj->shape_ok = 1;
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
		sj->qos = strdup("normal");
		sj->priority = j->prio;
		sj->submit_time = j->submit;
		sj->start_time = j->start;
		sj->begin_time = j->begin;
		sj->time_limit_min = j->time_limit_min;
		sj->batch = j->batch;
		sj->requeue_ok = j->requeue_ok;
		sj->restart_cnt = j->restart_cnt;
		if (j->only_node && j->state == HS_SJ_PENDING) {
			sj->node_ok = calloc((size_t)f->nnodes + 1, 1);
			for (int n = 0; n < f->nnodes; n++)
				sj->node_ok[n] = !strcmp(f->names[n], j->only_node);
		}
		/* OTHER: a requeued job Slurm has not cleaned up keeps its old
		 * GPU list while the nodes already show those GPUs free */
		if (j->state == HS_SJ_RUNNING || j->state == HS_SJ_SUSPENDED ||
		    j->state == HS_SJ_OTHER) {
			sj->nheld = j->nheld;
			sj->held = calloc((size_t)j->nheld + 1, sizeof(*sj->held));
			memcpy(sj->held, j->held, (size_t)j->nheld * sizeof(*sj->held));
		}
	}
}

/* Starts job j on the plan target: first free GPUs of each node. Returns
 * 1 on success, 0 when the GPUs are not free (like ESLURM_NODES_BUSY). */
static inline int fx_start(fx_t *f, fx_job_t *j, const hs_target_t *t)
{
	const hs_target_node_t *nodes = t->nodes;
	hs_sgpu_t held[16];
	int nh = 0;
	for (int k = 0; k < t->nnodes; k++) {
		int n = -1;
		for (int x = 0; x < f->nnodes; x++)
			if (!strcmp(f->names[x], nodes[k].name))
				n = x;
		if (n < 0 || !f->avail[n])
			return 0;
		int got = 0;
		for (int g = 0; g < f->ngpus[n] && got < nodes[k].gpus; g++) {
			if (f->foreign[n][g] || fx_held_by_job(f, n, g))
				continue;
			int dup = 0;
			for (int h = 0; h < nh; h++)
				dup |= held[h].node == n && held[h].gpu == g;
			if (dup)
				continue;
			held[nh++] = (hs_sgpu_t){ .node = n, .gpu = g };
			got++;
		}
		if (got < nodes[k].gpus)
			return 0;
	}
	memcpy(j->held, held, (size_t)nh * sizeof(*held));
	j->nheld = nh;
	j->state = HS_SJ_RUNNING;
	j->start = f->now;
	return 1;
}

static inline void fx_requeue(fx_job_t *j)
{
	j->state = HS_SJ_PENDING;
	j->nheld = 0;
	j->restart_cnt++;
}

/* Counts of what fx_apply did. */
typedef struct fx_counts {
	int start, start_fail, keep, ckpt, requeue, suspend, resume;
} fx_counts_t;

/* Applies a plan like the plugin: preemptions first (checkpoints are
 * acknowledged at once and requeued), then starts and resumes, then the
 * suspends of time slicing; every outcome is reported to the engine. */
static inline void fx_apply(fx_t *f, hs_engine_t *e, const hs_plan_t *p, fx_counts_t *c)
{
	memset(c, 0, sizeof(*c));
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < p->njobs; i++) {
			const hs_plan_job_t *pj = &p->jobs[i];
			fx_job_t *j = fx_find(f, pj->id);
			if (!j || j->gone)
				continue;
			int ok = 1;
			if (pass == 2) {
				/* time slicing: suspended once the newcomer runs */
				fx_job_t *nj = pj->slice_with ? fx_find(f, pj->slice_with) : NULL;
				if (pj->op == HS_PLAN_SUSPEND && nj && nj->state == HS_SJ_RUNNING &&
				    j->state == HS_SJ_RUNNING) {
					j->state = HS_SJ_SUSPENDED;
					c->suspend++;
					hs_engine_applied(e, pj, 1, f->now, 0, NULL);
				}
				continue;
			}
			if (pass == 0) {
				switch (pj->op) {
				case HS_PLAN_CHECKPOINT:
				case HS_PLAN_REQUEUE:
					fx_requeue(j);
					if (pj->op == HS_PLAN_CHECKPOINT)
						c->ckpt++;
					else
						c->requeue++;
					/* the checkpoint is immediate in the fake */
					hs_engine_applied(e, &(hs_plan_job_t){ .id = pj->id,
						.op = HS_PLAN_REQUEUE,
						.target = { .nnodes = pj->target.nnodes,
							    .nodes = pj->target.nodes },
						.type_name = pj->type_name,
						.restart_cnt = pj->restart_cnt }, 1, f->now, 0, NULL);
					break;
				case HS_PLAN_SUSPEND:
					if (pj->slice_with)
						break; /* pass 2, like the plugin */
					j->state = HS_SJ_SUSPENDED;
					c->suspend++;
					hs_engine_applied(e, pj, 1, f->now, 0, NULL);
					break;
				case HS_PLAN_KEEP:
					c->keep++;
					break;
				default:
					break;
				}
			} else {
				if (pj->op == HS_PLAN_START || pj->op == HS_PLAN_RESUME ||
				    ((pj->op == HS_PLAN_REQUEUE || pj->op == HS_PLAN_CHECKPOINT) &&
				     pj->target.nnodes > 0)) {
					if (pj->op == HS_PLAN_RESUME) {
						j->state = HS_SJ_RUNNING;
						c->resume++;
						hs_engine_applied(e, pj, 1, f->now, 0, NULL);
						continue;
					}
					fx_job_t *pt = pj->target.partner ?
						fx_find(f, pj->target.partner) : NULL;
					if (pt && pt->state == HS_SJ_RUNNING) {
						/* packed start: the partner's very GPUs */
						memcpy(j->held, pt->held,
						       (size_t)pt->nheld * sizeof(*pt->held));
						j->nheld = pt->nheld;
						j->state = HS_SJ_RUNNING;
						j->start = f->now;
						ok = 1;
					} else {
						ok = fx_start(f, j, &pj->target);
					}
					if (ok)
						c->start++;
					else
						c->start_fail++;
					hs_engine_applied(e, &(hs_plan_job_t){ .id = pj->id,
						.op = HS_PLAN_START, .target = pj->target,
						.type_name = pj->type_name,
						.restart_cnt = pj->restart_cnt },
						ok, f->now, 0, NULL);
				}
			}
		}
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
		fx_apply(f, e, plan, c);
	hs_snap_free(&s);
	return rc;
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

#endif /* HS_TESTS_SCHED_FIXTURES_H */
