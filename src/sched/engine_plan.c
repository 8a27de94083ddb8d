/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_plan.c — turns the mechanism's decisions into Slurm operations
 * (hs_plan_t): how to preempt (checkpoint + requeue, requeue, suspend),
 * resume vs restart for suspended jobs, vacating GPUs held by suspended
 * jobs, what to do with packed pairs while no packing interface exists,
 * and the reason text users see. */
#include "sched/engine_impl.h"

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
	}
	return "?";
}

void hs_plan_free(hs_plan_t *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->njobs; i++)
		free(p->jobs[i].nodes);
	free(p->jobs);
	memset(p, 0, sizeof(*p));
}

/* Groups a decision's GPUs by node: nodes[] with GPU counts. */
static int set_target(hs_plan_job_t *pj, const hs_snap_t *s, const hs_round_build_t *b,
		      const hs_decision_t *d, const int *server_node)
{
	free(pj->nodes);
	pj->nodes = NULL;
	pj->nnodes = 0;
	if (d->ngpus <= 0)
		return 0;
	pj->nodes = calloc((size_t)d->ngpus, sizeof(*pj->nodes));
	if (!pj->nodes)
		return -1;
	for (int g = 0; g < d->ngpus; g++) {
		int sv = d->gpus[g].server;
		if (sv < 0 || sv >= b->nservers)
			continue;
		int node = server_node[sv], k;
		for (k = 0; k < pj->nnodes; k++)
			if (pj->nodes[k].node == node)
				break;
		if (k == pj->nnodes)
			pj->nodes[pj->nnodes++] = (hs_plan_node_t){ .node = node,
								     .name = s->nodes[node].name };
		pj->nodes[k].gpus++;
	}
	return 0;
}

/* "v100-1,v100-2" of a target, for reasons. */
static void target_names(const hs_plan_job_t *pj, const hs_snap_t *s, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int k = 0; k < pj->nnodes && n + 1 < len; k++) {
		int w = snprintf(buf + n, len - n, "%s%s", k ? "," : "",
				 s->nodes[pj->nodes[k].node].name);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
}

/* The waiting reason of a pending job: its largest share, if any. */
static void waiting_reason(const hs_engine_t *e, const hs_round_build_t *b, int k, long round,
			   char *buf, size_t len)
{
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
		snprintf(buf, len, "hetsched round %ld: waiting for its share of %s (%.0f%% of the time)",
			 round, pb->cluster.names[best], 100.0 * bx);
	else
		snprintf(buf, len, "hetsched round %ld: no share in the current allocation (%s)",
			 round, e->conf.policy);
}

/* Packed pairs. With the select plugin's packing interface
 * (doc/packing.md) both members run: the plugin starts the second onto the
 * first's GPUs (pj->partner). Without it one member runs alone: a member
 * that keeps running wins, otherwise the lower problem index. */
static void resolve_pairs(const hs_engine_t *e, hs_plan_t *plan, const hs_round_out_t *out,
			  const int *pj_of, const hs_round_build_t *b, long round)
{
	if (e->packing) {
		for (int k = 0; k < out->njobs; k++) {
			if (pj_of[k] < 0 || out->d[k].partner < 0)
				continue;
			hs_plan_job_t *pj = &plan->jobs[pj_of[k]];
			if (pj->op == HS_PLAN_START || pj->op == HS_PLAN_CHECKPOINT ||
			    pj->op == HS_PLAN_REQUEUE)
				snprintf(pj->reason + strlen(pj->reason),
					 sizeof(pj->reason) - strlen(pj->reason),
					 ", packed with job %u", pj->partner);
		}
		return;
	}
	for (int k = 0; k < out->njobs; k++) {
		const hs_decision_t *d = &out->d[k];
		int q = d->partner;
		if (q < 0 || pj_of[k] < 0)
			continue;
		const hs_decision_t *dq = &out->d[q];
		int loser;
		if (d->action == HS_ACT_KEEP)
			loser = q;
		else if (dq->action == HS_ACT_KEEP)
			loser = k;
		else
			loser = k < q ? q : k;
		if (loser != k)
			continue;
		hs_plan_job_t *pj = &plan->jobs[pj_of[k]];
		char why[96];
		snprintf(why, sizeof(why), "would share GPUs with job %s: packing not available",
			 b->problem.jobs[q].id);
		if (pj->op == HS_PLAN_START || pj->op == HS_PLAN_RESUME) {
			pj->op = HS_PLAN_NONE;
		} else if (pj->op == HS_PLAN_CHECKPOINT || pj->op == HS_PLAN_REQUEUE) {
			/* a migration into the pair becomes a plain preemption */
			free(pj->nodes);
			pj->nodes = NULL;
			pj->nnodes = 0;
		}
		pj->partner = 0;
		snprintf(pj->reason, sizeof(pj->reason), "hetsched round %ld: %s", round, why);
	}
}

/* Does snapshot job i hold GPU `gpu` of node `node`? */
static int holds_gpu(const hs_sjob_t *sj, int node, int gpu)
{
	for (int x = 0; x < sj->nheld; x++)
		if (sj->held[x].node == node && sj->held[x].gpu == gpu)
			return 1;
	return 0;
}

/* Another running or suspended job than `i` holding that GPU (its packed
 * or time-slice partner), or -1. */
static int other_holder(const hs_snap_t *s, int i, int node, int gpu)
{
	for (int o = 0; o < s->njobs; o++)
		if (o != i &&
		    (s->jobs[o].state == HS_SJ_RUNNING || s->jobs[o].state == HS_SJ_SUSPENDED) &&
		    holds_gpu(&s->jobs[o], node, gpu))
			return o;
	return -1;
}

/* Gandiva time slicing (PreemptMode=suspend with the select plugin's
 * packing interface, doc/packing.md): a pending job chosen to start on
 * exactly the GPUs of a job the round suspends shares those GPUs with
 * it instead of evicting it. The newcomer is started packed onto the
 * still running job, which is suspended right after (hs_pack_start needs
 * a running partner; apply orders the two). Both keep the GPUs; later
 * rounds alternate them by suspend and resume, nothing is requeued. */
static void timeslice(const hs_engine_t *e, hs_plan_t *plan, const hs_snap_t *s,
		      const hs_round_build_t *b, const hs_round_out_t *out, const int *pj_of,
		      const int *snap_pj, const int *server_node, long round)
{
	if (!e->packing || e->conf.preempt != HS_PREEMPT_SUSPEND)
		return;
	for (int k = 0; k < out->njobs; k++) {
		const hs_decision_t *d = &out->d[k];
		if (pj_of[k] < 0 || d->ngpus <= 0)
			continue;
		hs_plan_job_t *pj = &plan->jobs[pj_of[k]];
		if (pj->op != HS_PLAN_START || pj->partner || pj->state != HS_SJ_PENDING)
			continue;
		/* one holder, running, suspended this round, holding exactly
		 * the chosen GPUs and nothing shared with a third job */
		int h = -1, ok = 1;
		for (int g = 0; g < d->ngpus && ok; g++) {
			int sv = d->gpus[g].server;
			if (sv < 0 || sv >= b->nservers) {
				ok = 0;
				break;
			}
			int o = b->owner[b->owner_base[sv] + d->gpus[g].gpu];
			ok = o >= 0 && (h < 0 || o == h);
			h = o;
		}
		if (!ok || h < 0 || snap_pj[h] < 0)
			continue;
		const hs_sjob_t *hj = &s->jobs[h];
		hs_plan_job_t *hp = &plan->jobs[snap_pj[h]];
		if (hp->op != HS_PLAN_SUSPEND || hp->slice_with || hj->state != HS_SJ_RUNNING ||
		    hj->nheld != d->ngpus)
			continue;
		for (int g = 0; g < d->ngpus && ok; g++)
			ok = holds_gpu(hj, server_node[d->gpus[g].server], d->gpus[g].gpu) &&
			     other_holder(s, h, server_node[d->gpus[g].server], d->gpus[g].gpu) < 0;
		if (!ok)
			continue;
		pj->partner = hj->id;
		hp->slice_with = pj->id;
		snprintf(pj->reason, sizeof(pj->reason),
			 "hetsched round %ld: starting on %s, time-sliced with job %u (suspended, "
			 "it keeps the GPUs)", round, pj->type_name ? pj->type_name : "?", hj->id);
		snprintf(hp->reason, sizeof(hp->reason),
			 "hetsched round %ld: suspended, time-sliced with job %u on its GPUs", round,
			 pj->id);
	}
}

/* A job to be started on the GPUs of job `o`, which keeps them (it
 * cannot be requeued without losing its work): the start waits, and the
 * holder runs on — kept instead of suspended, or resumed when nothing
 * else holds its GPUs. */
static void hold_back(hs_plan_job_t *pj, hs_plan_job_t *v, const hs_snap_t *s, int o,
		      long round)
{
	pj->op = HS_PLAN_NONE;
	pj->partner = 0;
	snprintf(pj->reason, sizeof(pj->reason),
		 "hetsched round %ld: waiting for GPUs held by job %u (suspending it would "
		 "leave them idle: it cannot be requeued without losing its work)", round, v->id);
	const hs_sjob_t *oj = &s->jobs[o];
	if (v->op == HS_PLAN_SUSPEND) {
		v->op = HS_PLAN_KEEP;
		snprintf(v->reason, sizeof(v->reason),
			 "hetsched round %ld: running on %s (kept: its GPUs cannot be handed over)",
			 round, v->type_name ? v->type_name : "its GPUs");
		return;
	}
	for (int x = 0; x < oj->nheld; x++)
		if (other_holder(s, o, oj->held[x].node, oj->held[x].gpu) >= 0)
			return; /* shares them: its partner decides */
	v->op = HS_PLAN_RESUME;
	snprintf(v->reason, sizeof(v->reason),
		 "hetsched round %ld: resumed (its GPUs cannot go to another job)", round);
}

/* Suspend keeps a job's GPUs, so jobs whose GPUs another job needs this
 * round are requeued instead: suspended ones that stay off, and running
 * ones the plan would suspend (checkpointed first when they can) — unless
 * the two time-slice those GPUs. A job that can be requeued only by
 * losing its work is never evicted: a job to be started on its GPUs
 * waits instead, and the holder keeps running (or is resumed), so the
 * GPUs never sit idle under a suspended job (otherwise the same start
 * would be chosen and fail round after round). */
static void vacate(const hs_engine_t *e, hs_plan_t *plan, const hs_snap_t *s,
		   const hs_round_build_t *b, const int *snap_pj, long round)
{
	for (int i = 0; i < plan->njobs; i++) {
		hs_plan_job_t *pj = &plan->jobs[i];
		int moving = pj->op == HS_PLAN_START || pj->op == HS_PLAN_RESUME ||
			     ((pj->op == HS_PLAN_REQUEUE || pj->op == HS_PLAN_CHECKPOINT) &&
			      pj->nnodes > 0);
		if (!moving)
			continue;
		const hs_sjob_t *me = &s->jobs[pj->snap];
		for (int pass = 0; pass < 2 && moving; pass++) {
			/* pass 0 looks for a holder that cannot be evicted,
			 * pass 1 evicts */
			for (int k = 0; k < pj->nnodes; k++) {
				int node = pj->nodes[k].node, sv = b->node_server[node];
				if (sv < 0)
					continue;
				for (int g = 0; g < s->nodes[node].ngpus; g++) {
					int o = b->owner[b->owner_base[sv] + g];
					if (o < 0 || o == pj->snap || holds_gpu(me, node, g))
						continue; /* its own, or its time-slice partner's */
					int q = snap_pj[o];
					if (q < 0)
						continue;
					hs_plan_job_t *v = &plan->jobs[q];
					if (v->slice_with == pj->id)
						continue;
					int stays = v->op == HS_PLAN_SUSPEND ||
						    (v->op == HS_PLAN_NONE &&
						     s->jobs[o].state == HS_SJ_SUSPENDED);
					if (!stays)
						continue;
					if (!b->hints[o].ckpt && !e->conf.requeue_no_ckpt) {
						if (pass == 0 && pj->op == HS_PLAN_START) {
							hold_back(pj, v, s, o, round);
							moving = 0;
							break;
						}
						continue;
					}
					if (pass == 0)
						continue;
					v->op = v->op == HS_PLAN_SUSPEND && b->hints[o].ckpt &&
							s->jobs[o].batch && s->jobs[o].requeue_ok
						? HS_PLAN_CHECKPOINT : HS_PLAN_REQUEUE;
					snprintf(v->reason, sizeof(v->reason),
						 "hetsched round %ld: preempted (%s), its GPUs go to job %u",
						 round, v->op == HS_PLAN_CHECKPOINT ? "checkpoint, requeue"
										    : "requeued", pj->id);
				}
				if (!moving)
					break;
			}
		}
	}
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
		 "hetsched round %ld: resumed on its GPUs (hetsched suspended it and no longer "
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

int hs_build_plan(hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
		  const hs_round_out_t *out, hs_plan_t *plan, hs_err_t *err)
{
	const hs_problem_t *pb = &b->problem;
	const int M = s->njobs;
	long round = out->round;
	int nextra = 0;
	for (int i = 0; i < M; i++)
		nextra += b->role[i] == HS_ROLE_CUT || b->role[i] == HS_ROLE_NOFIT ||
			  b->role[i] == HS_ROLE_RESUME || b->role[i] == HS_ROLE_UNMODELLED ||
			  b->role[i] == HS_ROLE_PIN_WAIT;
	int *server_node = calloc((size_t)b->nservers + 1, sizeof(int));
	int *pj_of = malloc(((size_t)pb->njobs + 1) * sizeof(int));
	int *snap_pj = malloc(((size_t)M + 1) * sizeof(int));
	plan->jobs = calloc((size_t)pb->njobs + (size_t)nextra + 1, sizeof(*plan->jobs));
	if (!server_node || !pj_of || !snap_pj || !plan->jobs) {
		free(server_node);
		free(pj_of);
		free(snap_pj);
		return hs_err_set(err, "out of memory");
	}
	for (int n = 0; n < s->nnodes; n++)
		if (b->node_server[n] >= 0)
			server_node[b->node_server[n]] = n;
	for (int i = 0; i < M; i++)
		snap_pj[i] = -1;

	int rc = 0;
	for (int k = 0; k < pb->njobs && rc == 0; k++) {
		int i = b->pjob_snap[k];
		const hs_sjob_t *sj = &s->jobs[i];
		const hs_hints_t *h = &b->hints[i];
		const hs_decision_t *d = &out->d[k];
		hs_plan_job_t *pj = &plan->jobs[plan->njobs];
		pj_of[k] = plan->njobs;
		snap_pj[i] = plan->njobs;
		plan->njobs++;
		plan_entry_of(pj, s, i, HS_PLAN_NONE);
		pj->action = d->action;
		pj->type = d->type;
		/* engine-owned name: the problem dies with the round */
		if (d->type >= 0) {
			int t = hs_acct_type_index(e, pb->cluster.names[d->type]);
			pj->type_name = t >= 0 ? e->types[t] : NULL;
		}
		pj->partner = d->partner >= 0 ? (uint32_t)strtoul(pb->jobs[d->partner].id, NULL, 10) : 0;
		pj->ckpt_signal = h->ckpt_signal;
		int ckpt = h->ckpt && sj->batch && sj->requeue_ok;
		char where[96];

		if (b->role[i] == HS_ROLE_LEAVING) {
			/* Its checkpoint is in flight: the op carries the restart
			 * target (or none). */
			hs_op_t *op = hs_op_find(e, sj->id);
			if (op) {
				if (d->action == HS_ACT_START) {
					if (set_target(pj, s, b, d, server_node) < 0 ||
					    hs_op_set_target(op, pj, pj->type_name) < 0)
						rc = hs_err_set(err, "out of memory");
				} else {
					hs_op_clear_target(op);
				}
			}
			pj->op = HS_PLAN_NONE;
			snprintf(pj->reason, sizeof(pj->reason),
				 "hetsched round %ld: checkpointing before requeue%s%s", round,
				 pj->nnodes ? ", then to " : "", pj->nnodes ? pj->type_name : "");
			continue;
		}
		switch (sj->state) {
		case HS_SJ_RUNNING:
			if (d->action == HS_ACT_KEEP) {
				pj->op = HS_PLAN_KEEP;
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched round %ld: running on %s (kept)", round, pj->type_name);
			} else if (d->action == HS_ACT_MIGRATE) {
				if (set_target(pj, s, b, d, server_node) < 0) {
					rc = hs_err_set(err, "out of memory");
					break;
				}
				pj->op = ckpt ? HS_PLAN_CHECKPOINT : HS_PLAN_REQUEUE;
				target_names(pj, s, where, sizeof(where));
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched round %ld: migrating to %s (%s)%s", round,
					 pj->type_name, where, ckpt ? " from a checkpoint" : "");
			} else {
				/* PREEMPT (or anything else for a running job). */
				if (e->conf.preempt == HS_PREEMPT_SUSPEND)
					pj->op = HS_PLAN_SUSPEND;
				else
					pj->op = ckpt ? HS_PLAN_CHECKPOINT : HS_PLAN_REQUEUE;
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched round %ld: preempted (%s)", round,
					 pj->op == HS_PLAN_SUSPEND ? "suspended"
					 : ckpt ? "checkpoint, requeue" : "requeued");
			}
			break;
		case HS_SJ_SUSPENDED:
			if (d->action == HS_ACT_START) {
				if (set_target(pj, s, b, d, server_node) < 0) {
					rc = hs_err_set(err, "out of memory");
					break;
				}
				/* Same GPUs: resume. Elsewhere: requeue, restart there. */
				int same = d->ngpus == sj->nheld;
				for (int g = 0; g < d->ngpus && same; g++) {
					int found = 0;
					for (int x = 0; x < sj->nheld && !found; x++)
						found = b->node_server[sj->held[x].node] == d->gpus[g].server &&
							sj->held[x].gpu == d->gpus[g].gpu;
					same = found;
				}
				pj->op = same ? HS_PLAN_RESUME : HS_PLAN_REQUEUE;
				snprintf(pj->reason, sizeof(pj->reason), "hetsched round %ld: %s on %s",
					 round, same ? "resumed" : "moving", pj->type_name);
				if (!same && !h->ckpt && !e->conf.requeue_no_ckpt) {
					/* a requeue would throw its work away: it
					 * waits for its own GPUs instead */
					pj->op = HS_PLAN_NONE;
					snprintf(pj->reason, sizeof(pj->reason),
						 "hetsched round %ld: suspended, waiting for its own GPUs "
						 "(moving would lose its work)", round);
				}
			} else {
				pj->op = HS_PLAN_NONE;
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched round %ld: suspended, waiting for its share", round);
			}
			break;
		default:
			if (d->action == HS_ACT_START) {
				if (set_target(pj, s, b, d, server_node) < 0) {
					rc = hs_err_set(err, "out of memory");
					break;
				}
				pj->op = HS_PLAN_START;
				target_names(pj, s, where, sizeof(where));
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched round %ld: starting on %s (%s)", round, pj->type_name,
					 where);
			} else {
				pj->op = HS_PLAN_NONE;
				waiting_reason(e, b, k, round, pj->reason, sizeof(pj->reason));
			}
			break;
		}
	}
	if (rc == 0) {
		resolve_pairs(e, plan, out, pj_of, b, round);
		timeslice(e, plan, s, b, out, pj_of, snap_pj, server_node, round);
		vacate(e, plan, s, b, snap_pj, round);
		/* Jobs that could not be in the problem still get a reason. */
		for (int i = 0; i < M; i++) {
			if (b->role[i] == HS_ROLE_RESUME) {
				resume_entry(&plan->jobs[plan->njobs++], s, i, round);
				continue;
			}
			if (b->role[i] != HS_ROLE_CUT && b->role[i] != HS_ROLE_NOFIT &&
			    b->role[i] != HS_ROLE_UNMODELLED && b->role[i] != HS_ROLE_PIN_WAIT)
				continue;
			const hs_sjob_t *sj = &s->jobs[i];
			hs_plan_job_t *pj = &plan->jobs[plan->njobs++];
			plan_entry_of(pj, s, i, HS_PLAN_NONE);
			if (b->role[i] == HS_ROLE_UNMODELLED)
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched: left alone, it holds GPUs hetsched does not model "
					 "(slurmctld.log says which)");
			else if (b->role[i] == HS_ROLE_PIN_WAIT)
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched round %ld: waiting, it cannot be preempted and jobs "
					 "like it hold their share of the GPUs (PinnedAdmission)", round);
			else if (b->role[i] == HS_ROLE_CUT)
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched: waiting, more than MaxJobs=%d jobs are active",
					 e->conf.max_jobs);
			else if (b->busy[i])
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched round %ld: waiting for %d free GPU%s%s%s (held by "
					 "jobs that are not preempted)", round, sj->gpus,
					 sj->gpus > 1 ? "s" : "", sj->gpu_type ? " of type " : "",
					 sj->gpu_type ? sj->gpu_type : "");
			else
				snprintf(pj->reason, sizeof(pj->reason),
					 "hetsched: needs %d GPU%s%s%s in one of its partitions, "
					 "which has no such type or not that many", sj->gpus,
					 sj->gpus > 1 ? "s" : "", sj->gpu_type ? " of type " : "",
					 sj->gpu_type ? sj->gpu_type : "");
		}
	}
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
			break;
		}
		if ((plan->jobs[k].op == HS_PLAN_CHECKPOINT || plan->jobs[k].op == HS_PLAN_REQUEUE) &&
		    plan->jobs[k].nnodes > 0)
			plan->nmigrate++;
	}
	free(server_node);
	free(pj_of);
	free(snap_pj);
	return rc;
}
