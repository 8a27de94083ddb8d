/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_plan.c — the "decisions -> plan" stage of the round
 * (hs_build_plan): turns the mechanism's decisions into Slurm operations
 * (hs_plan_t), one entry per problem job by its state: how to preempt
 * (checkpoint + requeue, requeue, suspend), resume vs restart for
 * suspended jobs, and the reason text users see; then the steps across
 * entries (packed pairs, time slicing, vacating: engine_plan_share.c)
 * and the entries of jobs the problem left out. */
#include "sched/engine_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *hs_plan_op_name(hs_plan_op_t op)
{
	switch (op) {
	case HS_PLAN_NONE:
		return "none";
	case HS_PLAN_KEEP:
		return "keep";
	case HS_PLAN_START:
		return "start";
	case HS_PLAN_RESUME:
		return "resume";
	case HS_PLAN_SUSPEND:
		return "suspend";
	case HS_PLAN_CHECKPOINT:
		return "checkpoint";
	case HS_PLAN_REQUEUE:
		return "requeue";
	case HS_PLAN_SLURM:
		return "slurm";
	}
	return "?";
}

void hs_plan_free(hs_plan_t *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->njobs; i++)
		hs_target_free(&p->jobs[i].target);
	free(p->jobs);
	memset(p, 0, sizeof(*p));
}

/* Groups a decision's GPUs by node: the target's nodes with GPU counts
 * (its partner is set apart, from the decision's). */
static int set_target(hs_plan_job_t *pj, const hs_snap_t *s, const hs_round_build_t *b,
		      const hs_decision_t *d, const int *server_node)
{
	hs_target_drop_nodes(&pj->target);
	for (int g = 0; g < d->ngpus; g++) {
		int sv = d->gpus[g].server;
		if (sv < 0 || sv >= b->nservers)
			continue;
		int node = server_node[sv];
		if (hs_target_add_gpu(&pj->target, d->ngpus, node, s->nodes[node].name) < 0)
			return -1;
	}
	return 0;
}

/* The reason text of a plan entry (what users see), unless the engine's
 * caller reads none (hs_engine_set_reasons: the simulator). */
static void reason(const hs_engine_t *e, hs_plan_job_t *pj, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void reason(const hs_engine_t *e, hs_plan_job_t *pj, const char *fmt, ...)
{
	if (e->no_reasons) {
		pj->reason[0] = 0;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pj->reason, sizeof(pj->reason), fmt, ap);
	va_end(ap);
}

/* "v100-1,v100-2" of a target, for reasons. */
static void target_names(const hs_plan_job_t *pj, const hs_snap_t *s, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int k = 0; k < pj->target.nnodes && n + 1 < len; k++) {
		int w = snprintf(buf + n, len - n, "%s%s", k ? "," : "",
				 s->nodes[pj->target.nodes[k].node].name);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
}

/* The waiting reason of a pending job: its largest share, if any. */
static void waiting_reason(const hs_engine_t *e, const hs_round_build_t *b, int k, long round,
			   char *buf, size_t len)
{
	if (e->no_reasons) {
		buf[0] = 0;
		return;
	}
	const hs_problem_t *pb = &b->problem;
	const hs_jacct_t *ac = hs_acct_find(e, (uint32_t)strtoul(pb->jobs[k].id, NULL, 10));
	int best = -1;
	double bx = 0;
	for (int j = 0; j < pb->cluster.ntypes && ac; j++) {
		int t = -1;
		for (int x = 0; x < e->ntypes; x++)
			if (!strcmp(e->types[x], pb->cluster.names[j]))
				t = x;
		if (t >= 0 && ac->x[t] > bx + 1e-9) {
			bx = ac->x[t];
			best = j;
		}
	}
	if (best >= 0)
		snprintf(buf, len, HS_REASON_PREFIX "%ld: waiting for its share of %s (%.0f%% of the time)",
			 round, pb->cluster.names[best], 100.0 * bx);
	else
		snprintf(buf, len, HS_REASON_PREFIX "%ld: no share in the current allocation (%s)",
			 round, e->conf.policy);
}

/* The parts of a plan entry that come from snapshot job i: which job,
 * its state and incarnation as the apply step re-checks them. */
static void plan_entry_of(hs_plan_job_t *pj, const hs_snap_t *s, int i, hs_plan_op_t op)
{
	const hs_sjob_t *sj = &s->jobs[i];
	pj->id = sj->id;
	pj->snap = i;
	pj->op = op;
	pj->type = -1;
	pj->state = sj->state;
	pj->restart_cnt = sj->restart_cnt;
	pj->start_time = sj->start_time;
}

/* The plan entry of a job in HS_ROLE_RESUME: resumed on the GPUs it
 * holds (Slurm keeps a suspended job's allocation), never left suspended
 * because hetsched's bookkeeping no longer counts it. */
static void resume_entry(hs_plan_job_t *pj, const hs_snap_t *s, int i, long round)
{
	memset(pj, 0, sizeof(*pj));
	plan_entry_of(pj, s, i, HS_PLAN_RESUME);
	snprintf(pj->reason, sizeof(pj->reason),
		 HS_REASON_PREFIX "%ld: resumed on its GPUs (hetsched suspended it and no longer "
		 "schedules it)", round);
}

int hs_plan_resumes_only(const hs_snap_t *s, const hs_round_build_t *b, hs_plan_t *plan,
			 long round, hs_err_t *err)
{
	int n = 0;
	for (int i = 0; i < s->njobs; i++)
		n += b->role[i] == HS_ROLE_RESUME;
	if (!n)
		return 0;
	plan->jobs = calloc((size_t)n, sizeof(*plan->jobs));
	if (!plan->jobs)
		return hs_err_set(err, "out of memory");
	for (int i = 0; i < s->njobs; i++)
		if (b->role[i] == HS_ROLE_RESUME)
			resume_entry(&plan->jobs[plan->njobs++], s, i, round);
	plan->nresume = plan->njobs;
	return 0;
}

/* Maps of one plan build: server -> snapshot node, problem job -> plan
 * entry, snapshot job -> plan entry (-1 = none). */
typedef struct plan_maps {
	hs_preempt_rules_t rules;  /* the preemption stage's, this round */
	int *server_node;          /* [nservers] */
	int *pj_of;                /* [problem njobs] */
	int *snap_pj;              /* [snapshot njobs] */
} plan_maps_t;

static void plan_maps_free(plan_maps_t *m)
{
	free(m->server_node);
	free(m->pj_of);
	free(m->snap_pj);
}

static int plan_maps_init(plan_maps_t *m, const hs_snap_t *s, const hs_round_build_t *b)
{
	m->server_node = calloc((size_t)b->nservers + 1, sizeof(int));
	m->pj_of = malloc(((size_t)b->problem.njobs + 1) * sizeof(int));
	m->snap_pj = malloc(((size_t)s->njobs + 1) * sizeof(int));
	if (!m->server_node || !m->pj_of || !m->snap_pj)
		return -1;
	for (int n = 0; n < s->nnodes; n++)
		if (b->node_server[n] >= 0)
			m->server_node[b->node_server[n]] = n;
	for (int i = 0; i < s->njobs; i++)
		m->snap_pj[i] = -1;
	return 0;
}

/* Roles that get a plan entry without being in the problem. */
static int extra_role(hs_role_t r)
{
	return r == HS_ROLE_CUT || r == HS_ROLE_NOFIT || r == HS_ROLE_RESUME ||
	       r == HS_ROLE_UNMODELLED || r == HS_ROLE_PIN_WAIT || r == HS_ROLE_SHAPE;
}

/* A job whose checkpoint is in flight: the op carries the restart target
 * (or none); its entry only explains. -1 = out of memory. */
static int plan_leaving(hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			const hs_decision_t *d, const int *server_node, hs_plan_job_t *pj,
			long round)
{
	int rc = 0;
	hs_op_t *op = hs_op_find(e, pj->id);
	if (op) {
		if (d->action == HS_ACT_START) {
			if (set_target(pj, s, b, d, server_node) < 0 ||
			    hs_op_set_target(op, pj, pj->type_name) < 0)
				rc = -1;
		} else {
			hs_op_clear_target(op);
		}
	}
	pj->op = HS_PLAN_NONE;
	reason(e, pj, HS_REASON_PREFIX "%ld: checkpointing before requeue%s%s",
		 round, pj->target.nnodes ? ", then to " : "",
		 pj->target.nnodes ? pj->type_name : "");
	return rc;
}

/* A running job: kept, migrated (stopped, then started on the target) or
 * preempted; how it stops is the preemption stage's (engine_preempt.c). */
static int plan_running(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			const hs_decision_t *d, const plan_maps_t *m, hs_plan_job_t *pj,
			const hs_preempt_job_t *job, long round)
{
	char where[96];
	int moving = d->action == HS_ACT_MIGRATE;
	pj->op = d->action == HS_ACT_KEEP ? HS_PLAN_KEEP : hs_preempt_stop(&m->rules, job, moving);
	if (pj->op == HS_PLAN_KEEP && d->action != HS_ACT_KEEP) {
		reason(e, pj, HS_REASON_PREFIX "%ld: slurmctld restarted, not preempted before %lld s "
		       "have passed", round, (long long)m->rules.settle_left);
	} else if (pj->op == HS_PLAN_KEEP) {
		reason(e, pj, HS_REASON_PREFIX "%ld: running on %s (kept)", round, pj->type_name);
	} else if (moving) {
		if (set_target(pj, s, b, d, m->server_node) < 0)
			return -1;
		target_names(pj, s, where, sizeof(where));
		reason(e, pj, HS_REASON_PREFIX "%ld: migrating to %s (%s)%s", round, pj->type_name,
		       where, pj->op == HS_PLAN_CHECKPOINT ? " from a checkpoint" : "");
	} else {
		reason(e, pj, HS_REASON_PREFIX "%ld: preempted (%s)", round,
		       pj->op == HS_PLAN_SUSPEND ? "suspended"
		       : pj->op == HS_PLAN_CHECKPOINT ? "checkpoint, requeue" : "requeued");
	}
	return 0;
}

/* Does decision d place the job on exactly the GPUs it holds? */
static int same_gpus(const hs_round_build_t *b, const hs_sjob_t *sj, const hs_decision_t *d)
{
	int same = d->ngpus == sj->nheld;
	for (int g = 0; g < d->ngpus && same; g++) {
		int found = 0;
		for (int x = 0; x < sj->nheld && !found; x++)
			found = b->node_server[sj->held[x].node] == d->gpus[g].server &&
				sj->held[x].gpu == d->gpus[g].gpu;
		same = found;
	}
	return same;
}

/* A suspended job: resumed on the same GPUs, requeued to restart
 * elsewhere (unless that throws its work away), or left waiting. */
static int plan_suspended(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			  const hs_decision_t *d, const plan_maps_t *m, hs_plan_job_t *pj,
			  const hs_preempt_job_t *job, long round)
{
	const int *server_node = m->server_node;
	const hs_sjob_t *sj = &s->jobs[pj->snap];
	if (d->action != HS_ACT_START) {
		pj->op = HS_PLAN_NONE;
		reason(e, pj,
			 HS_REASON_PREFIX "%ld: suspended, waiting for its share", round);
		return 0;
	}
	if (set_target(pj, s, b, d, server_node) < 0)
		return -1;
	/* Same GPUs: resume. Elsewhere: requeue, restart there. */
	int same = same_gpus(b, sj, d);
	pj->op = same ? HS_PLAN_RESUME : HS_PLAN_REQUEUE;
	reason(e, pj, HS_REASON_PREFIX "%ld: %s on %s", round,
		 same ? "resumed" : "moving", pj->type_name);
	if (!same && hs_preempt_move_suspended(&m->rules, job) == HS_PLAN_NONE) {
		/* a requeue would throw its work away: it waits for its own
		 * GPUs instead */
		pj->op = HS_PLAN_NONE;
		reason(e, pj,
			 HS_REASON_PREFIX "%ld: suspended, waiting for its own GPUs "
			 "(moving would lose its work)", round);
	}
	return 0;
}

/* A pending (or otherwise not running) job: started on the target, or
 * told what it waits for. */
static int plan_pending(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			const hs_decision_t *d, const int *server_node, hs_plan_job_t *pj, int k,
			long round)
{
	if (d->action != HS_ACT_START) {
		pj->op = HS_PLAN_NONE;
		waiting_reason(e, b, k, round, pj->reason, sizeof(pj->reason));
		return 0;
	}
	if (set_target(pj, s, b, d, server_node) < 0)
		return -1;
	pj->op = HS_PLAN_START;
	char where[96];
	target_names(pj, s, where, sizeof(where));
	reason(e, pj, HS_REASON_PREFIX "%ld: starting on %s (%s)", round,
		 pj->type_name, where);
	return 0;
}

/* The plan entry of problem job k (the next entry of the plan); -1 = out
 * of memory (the entry is counted in plan->njobs anyway). */
static int plan_problem_job(hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			    const hs_round_out_t *out, const plan_maps_t *m, hs_plan_t *plan, int k)
{
	const hs_problem_t *pb = &b->problem;
	int i = b->pjob_snap[k];
	const hs_sjob_t *sj = &s->jobs[i];
	const hs_hints_t *h = &b->hints[i];
	const hs_decision_t *d = &out->d[k];
	hs_plan_job_t *pj = &plan->jobs[plan->njobs];
	m->pj_of[k] = plan->njobs;
	m->snap_pj[i] = plan->njobs;
	plan->njobs++;
	plan_entry_of(pj, s, i, HS_PLAN_NONE);
	pj->action = d->action;
	pj->type = d->type;
	/* engine-owned name: the problem dies with the round */
	if (d->type >= 0) {
		int t = b->tmap[d->type];
		pj->type_name = t >= 0 ? e->types[t] : NULL;
	}
	pj->target.partner = d->partner >= 0 ? (uint32_t)strtoul(pb->jobs[d->partner].id, NULL, 10) : 0;
	pj->ckpt_signal = h->ckpt_signal;
	if (b->role[i] == HS_ROLE_LEAVING)
		return plan_leaving(e, s, b, d, m->server_node, pj, out->round);
	hs_preempt_job_t job = hs_preempt_job(b, sj, i);
	switch (sj->state) {
	case HS_SJ_RUNNING:
		return plan_running(e, s, b, d, m, pj, &job, out->round);
	case HS_SJ_SUSPENDED:
		return plan_suspended(e, s, b, d, m, pj, &job, out->round);
	default:
		return plan_pending(e, s, b, d, m->server_node, pj, k, out->round);
	}
}

/* Why a job that could not be in the problem waits (role i). */
static void other_role_reason(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			      int i, long round, char *buf, size_t len)
{
	const hs_sjob_t *sj = &s->jobs[i];
	hs_preempt_rules_t rules = hs_preempt_rules(e, s->now);
	hs_preempt_job_t pjob = hs_preempt_job(b, sj, i);
	if (b->role[i] == HS_ROLE_UNMODELLED)
		snprintf(buf, len, "hetsched: left alone, it holds GPUs hetsched does not model "
			 "(slurmctld.log says which)");
	/* under time slicing a waiting unmovable job can be suspended: it
	 * was held back by engine_unmovable.c, not engine_pinned.c */
	else if (b->role[i] == HS_ROLE_PIN_WAIT && rules.slice && hs_preempt_able(&rules, &pjob))
		snprintf(buf, len, HS_REASON_PREFIX "%ld: waiting, it cannot be moved once "
			 "started and its owner's jobs like it hold their share of the GPUs' "
			 "time slices (PinnedAdmission)", round);
	/* preemptible, yet held back without time slicing: a job no single
	 * type can hold (engine_pinned.c), pinned once Slurm places it */
	else if (b->role[i] == HS_ROLE_PIN_WAIT && !sj->gpu_type && hs_preempt_able(&rules, &pjob))
		snprintf(buf, len, HS_REASON_PREFIX "%ld: waiting, no single GPU type can hold its "
			 "%d GPUs, so once started across types it cannot be preempted, and jobs "
			 "like it hold their share of the GPUs (PinnedAdmission)", round, sj->gpus);
	else if (b->role[i] == HS_ROLE_PIN_WAIT)
		snprintf(buf, len, HS_REASON_PREFIX "%ld: waiting, it cannot be preempted and jobs "
			 "like it hold their share of the GPUs (PinnedAdmission)", round);
	else if (b->role[i] == HS_ROLE_SHAPE)
		snprintf(buf, len, HS_REASON_PREFIX "%ld: GPU shape the rounds do not model (per "
			 "socket, several GPU entries): Slurm places it on GPUs a round leaves free",
			 round);
	else if (b->role[i] == HS_ROLE_CUT)
		snprintf(buf, len, "hetsched: waiting, more than MaxJobs=%d jobs are active",
			 e->conf.max_jobs);
	else if (b->busy[i])
		snprintf(buf, len, HS_REASON_PREFIX "%ld: waiting for %d free GPU%s%s%s (held by "
			 "jobs that are not preempted)", round, sj->gpus, sj->gpus > 1 ? "s" : "",
			 sj->gpu_type ? " of type " : "", sj->gpu_type ? sj->gpu_type : "");
	else
		snprintf(buf, len, "hetsched: needs %d GPU%s%s%s in one of its partitions, "
			 "which has no such type or not that many", sj->gpus, sj->gpus > 1 ? "s" : "",
			 sj->gpu_type ? " of type " : "", sj->gpu_type ? sj->gpu_type : "");
}

/* Entries of the jobs that could not be in the problem: resumed (hetsched
 * suspended them), or a reason. */
static void plan_other_roles(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			     hs_plan_t *plan, long round)
{
	for (int i = 0; i < s->njobs; i++) {
		if (b->role[i] == HS_ROLE_RESUME) {
			resume_entry(&plan->jobs[plan->njobs++], s, i, round);
			continue;
		}
		if (!extra_role(b->role[i]))
			continue;
		hs_plan_job_t *pj = &plan->jobs[plan->njobs++];
		const hs_sjob_t *sj = &s->jobs[i];
		/* No single type can hold it, ever (not busy), and it asked
		 * for none: Slurm may mix types, as backfill would, rather
		 * than the job never running (--nodes=3 where no type has
		 * three nodes). */
		if (b->role[i] == HS_ROLE_NOFIT && !b->busy[i] && !sj->gpu_type &&
		    sj->state == HS_SJ_PENDING && sj->eligible) {
			plan_entry_of(pj, s, i, HS_PLAN_SLURM);
			snprintf(pj->reason, sizeof(pj->reason),
				 HS_REASON_PREFIX "%ld: no single GPU type can hold its %d GPUs; "
				 "Slurm places it on free GPUs of any type", round, sj->gpus);
			continue;
		}
		plan_entry_of(pj, s, i, HS_PLAN_NONE);
		other_role_reason(e, s, b, i, round, pj->reason, sizeof(pj->reason));
	}
}

static void count_plan_ops(hs_plan_t *plan)
{
	for (int k = 0; k < plan->njobs; k++) {
		switch (plan->jobs[k].op) {
		case HS_PLAN_START:
			plan->nstart++;
			break;
		case HS_PLAN_KEEP:
			plan->nkeep++;
			break;
		case HS_PLAN_CHECKPOINT:
			plan->ncheckpoint++;
			break;
		case HS_PLAN_REQUEUE:
			plan->nrequeue++;
			break;
		case HS_PLAN_SUSPEND:
			plan->nsuspend++;
			break;
		case HS_PLAN_RESUME:
			plan->nresume++;
			break;
		case HS_PLAN_NONE:
		case HS_PLAN_SLURM: /* Slurm's start, not the round's */
			break;
		}
		if ((plan->jobs[k].op == HS_PLAN_CHECKPOINT || plan->jobs[k].op == HS_PLAN_REQUEUE) &&
		    plan->jobs[k].target.nnodes > 0)
			plan->nmigrate++;
	}
}

int hs_build_plan(hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
		  const hs_round_out_t *out, hs_plan_t *plan, hs_err_t *err)
{
	const hs_problem_t *pb = &b->problem;
	long round = out->round;
	int nextra = 0;
	for (int i = 0; i < s->njobs; i++)
		nextra += extra_role(b->role[i]);
	plan_maps_t m = { .rules = hs_preempt_rules(e, s->now) };
	plan->jobs = calloc((size_t)pb->njobs + (size_t)nextra + 1, sizeof(*plan->jobs));
	if (plan_maps_init(&m, s, b) < 0 || !plan->jobs) {
		plan_maps_free(&m);
		return hs_err_set(err, "out of memory");
	}
	int rc = 0;
	for (int k = 0; k < pb->njobs && rc == 0; k++)
		if (plan_problem_job(e, s, b, out, &m, plan, k) < 0)
			rc = hs_err_set(err, "out of memory");
	if (rc == 0) {
		hs_plan_resolve_pairs(e, plan, out, m.pj_of, b, round);
		hs_plan_timeslice(e, plan, s, b, out, m.pj_of, m.snap_pj, m.server_node, round);
		hs_plan_vacate(e, plan, s, b, out, m.snap_pj, round);
		plan_other_roles(e, s, b, plan, round);
	}
	count_plan_ops(plan);
	plan_maps_free(&m);
	return rc;
}
