/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_plan_share.c — the last steps of the "decisions -> plan" stage
 * (hs_build_plan, engine_plan.c), which look across plan entries at the
 * GPUs two jobs would share: packed pairs while no packing interface
 * exists, Gandiva time slicing onto a job the round suspends, and
 * vacating GPUs that suspended jobs keep. Each takes the plan with every
 * problem job's entry made, and the maps between problem jobs, snapshot
 * jobs, plan entries and servers. */
#include "sched/engine_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Packed pairs. With the select plugin's packing interface
 * (doc/packing.md) both members run: the plugin starts the second onto the
 * first's GPUs (pj->target.partner). Without it one member runs alone: a member
 * that keeps running wins, otherwise the lower problem index. */
void hs_plan_resolve_pairs(const hs_engine_t *e, hs_plan_t *plan, const hs_round_out_t *out,
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
					 ", packed with job %u", pj->target.partner);
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
			hs_target_drop_nodes(&pj->target);
		}
		pj->target.partner = 0;
		snprintf(pj->reason, sizeof(pj->reason), HS_REASON_PREFIX "%ld: %s", round, why);
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
void hs_plan_timeslice(const hs_engine_t *e, hs_plan_t *plan, const hs_snap_t *s,
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
		if (pj->op != HS_PLAN_START || pj->target.partner || pj->state != HS_SJ_PENDING)
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
		pj->target.partner = hj->id;
		hp->slice_with = pj->id;
		snprintf(pj->reason, sizeof(pj->reason),
			 HS_REASON_PREFIX "%ld: starting on %s, time-sliced with job %u (suspended, "
			 "it keeps the GPUs)", round, pj->type_name ? pj->type_name : "?", hj->id);
		snprintf(hp->reason, sizeof(hp->reason),
			 HS_REASON_PREFIX "%ld: suspended, time-sliced with job %u on its GPUs", round,
			 pj->id);
	}
}

/* A start onto the GPUs of job v, which keeps them: the start waits. */
static void hold_start(hs_plan_job_t *pj, const hs_plan_job_t *v, long round)
{
	pj->op = HS_PLAN_NONE;
	pj->target.partner = 0;
	snprintf(pj->reason, sizeof(pj->reason),
		 HS_REASON_PREFIX "%ld: waiting for GPUs held by job %u (it cannot be moved: "
		 "requeueing it would lose its work, or Slurm may not requeue it)", round, v->id);
}

/* One hs_plan_vacate pass over the entries. */
typedef struct vacate_ctx {
	const hs_engine_t *e;
	hs_plan_t *plan;
	const hs_snap_t *s;
	const hs_round_build_t *b;
	const hs_round_out_t *out; /* the decisions (may be NULL) */
	const int *snap_pj;
	long round;
	unsigned char *kept;       /* [plan->njobs] holders a start was held
	                            * back for (NULL: out of memory) */
} vacate_ctx_t;

/* The plan entry of the one other job holding exactly snapshot job o's
 * GPUs (its time-slice or packed partner), or NULL: none, or o's GPUs
 * are shared otherwise (a partial overlap). */
static hs_plan_job_t *pair_of(const vacate_ctx_t *c, int o)
{
	const hs_sjob_t *oj = &c->s->jobs[o];
	int p = -1;
	for (int x = 0; x < oj->nheld; x++) {
		int h = other_holder(c->s, o, oj->held[x].node, oj->held[x].gpu);
		if (h < 0 || (p >= 0 && h != p))
			return NULL;
		p = h;
	}
	if (p < 0 || c->s->jobs[p].nheld != oj->nheld || c->snap_pj[p] < 0)
		return NULL;
	return &c->plan->jobs[c->snap_pj[p]];
}

/* The two jobs of a time-slice pair take turns: `run` (suspended by
 * hetsched) is resumed while `stop` is suspended this round. */
static void alternate(vacate_ctx_t *c, hs_plan_job_t *run, const hs_plan_job_t *stop)
{
	run->op = HS_PLAN_RESUME;
	snprintf(run->reason, sizeof(run->reason),
		 HS_REASON_PREFIX "%ld: resumed, time-sliced with job %u on its GPUs", c->round,
		 stop->id);
	if (c->kept)
		c->kept[run - c->plan->jobs] = 1;
}

/* A job to be started on the GPUs of job `o`, which keeps them (it
 * cannot be moved: requeued without losing its work, or requeued at
 * all): the start waits. The GPUs still go to a job that can use them:
 * when the round stops `o` and its time-slice partner waits suspended,
 * the partner is resumed (the pair takes turns, Gandiva); when `o` waits
 * suspended and its partner is being stopped or waits too, `o` is
 * resumed; otherwise
 * `o` runs on, kept instead of suspended or resumed when nothing else
 * holds its GPUs. Keeping `o` whenever a start was held back gave it the
 * GPUs for good: in the simulator a user whose jobs could not be
 * requeued got 98% of a GPU for which ten jobs waited (issue 28). */
static void hold_back(vacate_ctx_t *c, hs_plan_job_t *pj, hs_plan_job_t *v, int o)
{
	const hs_snap_t *s = c->s;
	hold_start(pj, v, c->round);
	hs_plan_job_t *p = pair_of(c, o);
	int p_waits = p && p->op == HS_PLAN_NONE && s->jobs[p->snap].state == HS_SJ_SUSPENDED &&
		      c->b->role[p->snap] == HS_ROLE_ACTIVE;
	if (v->op == HS_PLAN_SUSPEND) {
		if (p_waits) {
			alternate(c, p, v);
			return;
		}
		v->op = HS_PLAN_KEEP;
		snprintf(v->reason, sizeof(v->reason),
			 HS_REASON_PREFIX "%ld: running on %s (kept: its GPUs cannot be handed over)",
			 c->round, v->type_name ? v->type_name : "its GPUs");
		return;
	}
	/* `o` waits suspended: it runs when its partner is being stopped
	 * or waits suspended too (else nobody would use the GPUs, round
	 * after round, while the start stays held back) */
	int p_stops = p && (p->op == HS_PLAN_SUSPEND ||
			    (p->op == HS_PLAN_NONE && s->jobs[p->snap].state == HS_SJ_SUSPENDED));
	if (p_stops && s->jobs[o].state == HS_SJ_SUSPENDED) {
		alternate(c, v, p);
		return;
	}
	const hs_sjob_t *oj = &s->jobs[o];
	for (int x = 0; x < oj->nheld; x++)
		if (other_holder(s, o, oj->held[x].node, oj->held[x].gpu) >= 0)
			return; /* shares them: its partner decides */
	v->op = HS_PLAN_RESUME;
	snprintf(v->reason, sizeof(v->reason),
		 HS_REASON_PREFIX "%ld: resumed (its GPUs cannot go to another job)", c->round);
}

/* What entry pj, which needs GPU g of `node`, does about snapshot job o
 * holding it: nothing, hold back (pass 0: pj waits, returns 1) or evict
 * (pass 1). */
static int vacate_holder(vacate_ctx_t *c, hs_plan_job_t *pj, int node, int g, int o, int pass)
{
	const hs_snap_t *s = c->s;
	const hs_round_build_t *b = c->b;
	if (o < 0 || o == pj->snap || holds_gpu(&s->jobs[pj->snap], node, g))
		return 0; /* its own, or its time-slice partner's */
	int q = c->snap_pj[o];
	if (q < 0)
		return 0;
	hs_plan_job_t *v = &c->plan->jobs[q];
	if (v->slice_with == pj->id)
		return 0;
	if (c->kept && c->kept[q] && pj->op == HS_PLAN_START && pj->target.partner != v->id) {
		hold_start(pj, v, c->round);
		return 1;
	}
	int stays = v->op == HS_PLAN_SUSPEND ||
		    (v->op == HS_PLAN_NONE && s->jobs[o].state == HS_SJ_SUSPENDED);
	if (!stays)
		return 0;
	hs_preempt_rules_t rules = hs_preempt_rules(c->e, s->now);
	hs_preempt_job_t oj = hs_preempt_job(b, &s->jobs[o], o);
	if (!hs_preempt_movable(&rules, &oj)) {
		if (pass == 0 && pj->op == HS_PLAN_START) {
			hold_back(c, pj, v, o);
			if (c->kept)
				c->kept[q] = 1;
			return 1;
		}
		return 0;
	}
	if (pass == 0)
		return 0;
	v->op = v->op == HS_PLAN_SUSPEND && oj.ckpt ? HS_PLAN_CHECKPOINT : HS_PLAN_REQUEUE;
	snprintf(v->reason, sizeof(v->reason),
		 HS_REASON_PREFIX "%ld: preempted (%s), its GPUs go to job %u", c->round,
		 v->op == HS_PLAN_CHECKPOINT ? "checkpoint, requeue" : "requeued", pj->id);
	return 0;
}

/* Was GPU g of server sv given to entry pj this round? 1 when the
 * decisions are not at hand (then every GPU of its nodes counts). */
static int given(const vacate_ctx_t *c, const hs_plan_job_t *pj, int sv, int g)
{
	int k = c->out && pj->snap >= 0 ? c->b->snap_pjob[pj->snap] : -1;
	if (k < 0 || k >= c->out->njobs || c->out->d[k].ngpus <= 0)
		return 1;
	const hs_decision_t *d = &c->out->d[k];
	for (int x = 0; x < d->ngpus; x++)
		if (d->gpus[x].server == sv && d->gpus[x].gpu == g)
			return 1;
	return 0;
}

/* One pass of entry pj over the GPUs of its target's nodes and both
 * holders of each (a packed pair holds a GPU twice); 1 = it waits.
 * Pass 0 (hold back for a holder that cannot be moved) looks only at the
 * GPUs pj was given: Slurm starts a job on free GPUs of a node, and a
 * suspended job's GPUs are not free, so a job that cannot be moved,
 * suspended on another GPU of the node, is in nobody's way. Looking at
 * every GPU of the node, a user whose suspended jobs could not be moved
 * kept other users' starts off the whole node (bench/strategic.sh
 * --conf PreemptMode=suspend --gpus-per-server 2: 1.15x the GPU time
 * for never checkpointing, 0.63x for the honest user). Pass 1 still
 * requeues movable jobs suspended anywhere on the node, as before (it
 * frees their GPUs for the next rounds; honest runs are unchanged). */
static int vacate_pass(vacate_ctx_t *c, hs_plan_job_t *pj, int pass)
{
	const hs_round_build_t *b = c->b;
	for (int k = 0; k < pj->target.nnodes; k++) {
		int node = pj->target.nodes[k].node, sv = b->node_server[node];
		if (sv < 0)
			continue;
		for (int g = 0; g < c->s->nodes[node].ngpus; g++) {
			int slot = b->owner_base[sv] + g;
			if (pass == 0 && !given(c, pj, sv, g))
				continue;
			if (vacate_holder(c, pj, node, g, b->owner[slot], pass) ||
			    vacate_holder(c, pj, node, g, b->owner2[slot], pass))
				return 1;
		}
	}
	return 0;
}

/* Suspend keeps a job's GPUs, so jobs whose GPUs another job needs this
 * round are requeued instead: suspended ones that stay off, and running
 * ones the plan would suspend (checkpointed first when they can) — unless
 * the two time-slice those GPUs. Both members of a packed pair on those
 * GPUs are. A job that can be requeued only by losing its work is never
 * evicted: a job to be started on its GPUs waits instead, and the holder
 * keeps running (or is resumed), so the GPUs never sit idle under a
 * suspended job (otherwise the same start would be chosen and fail round
 * after round). */
void hs_plan_vacate(const hs_engine_t *e, hs_plan_t *plan, const hs_snap_t *s,
		    const hs_round_build_t *b, const hs_round_out_t *out, const int *snap_pj,
		    long round)
{
	/* holders a start was held back for: kept or resumed now, so no
	 * later start may go onto their GPUs either (without this a second
	 * start saw them no longer suspended and failed on busy GPUs) */
	vacate_ctx_t c = { .e = e, .plan = plan, .s = s, .b = b, .out = out, .snap_pj = snap_pj,
			   .round = round, .kept = calloc((size_t)plan->njobs + 1, 1) };
	for (int i = 0; i < plan->njobs; i++) {
		hs_plan_job_t *pj = &plan->jobs[i];
		int moving = pj->op == HS_PLAN_START || pj->op == HS_PLAN_RESUME ||
			     ((pj->op == HS_PLAN_REQUEUE || pj->op == HS_PLAN_CHECKPOINT) &&
			      pj->target.nnodes > 0);
		/* pass 0 looks for a holder that cannot be evicted, pass 1
		 * evicts */
		for (int pass = 0; pass < 2 && moving; pass++)
			moving = !vacate_pass(&c, pj, pass);
	}
	free(c.kept);
}
