/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_ops.c — in-flight operations of the round engine: the
 * checkpoint protocol of doc/protocol.md (d) (signal at t0, wait for the
 * acknowledgement in AdminComment or the grace, requeue), clearing
 * Slurm's requeue delay (begin_time = now + cred_expire + 1) so the job
 * restarts where the policy wants it, and starts deferred until the GPUs
 * they wait for are free. The plugin advances them every tick:
 * hs_engine_op_step() says what to do, hs_engine_op_result() records
 * the outcome. A failed requeue leaves the job running; a failed start
 * leaves it pending. */
#include "sched/engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* Clock slack when comparing the job's checkpoint time with t0. */
#define HS_CKPT_SLACK_S 2
/* Requeue attempts before giving up (the job keeps running). */
#define HS_REQUEUE_TRIES 3

/* Write-ahead for suspends. The mark "suspended by us" is what tells a
 * later round (and a restarted slurmctld) to resume a job; a job
 * suspended without it counts as an administrator's and is left alone.
 * Set only when the suspend's outcome was recorded, it reached the state
 * file with the save after the round, so a slurmctld crash between the
 * suspend and that save left the job suspended for good. So the plan's
 * suspends are marked when planned, the plugin saves the state before it
 * carries out a plan with suspends (agent.c), and a suspend that does
 * not happen clears its mark (hs_engine_applied with ok = 0: refused,
 * gone, or a time slice whose partner did not start). A mark that
 * outlives a crash before the suspend is cleared by the next round,
 * which sees the job running (update_acct, engine.c). */
void hs_ops_mark_suspends(hs_engine_t *e, const hs_plan_t *p)
{
	for (int i = 0; i < p->njobs; i++) {
		if (p->jobs[i].op != HS_PLAN_SUSPEND)
			continue;
		hs_jacct_t *ac = hs_acct_find(e, p->jobs[i].id);
		if (ac)
			ac->suspended_by_us = 1;
	}
}

int hs_engine_applied(hs_engine_t *e, const hs_plan_job_t *pj, int ok, int64_t t0,
		      int64_t begin_time, hs_err_t *err)
{
	hs_jacct_t *ac = hs_acct_find(e, pj->id);
	hs_op_t *op;
	switch (pj->op) {
	case HS_PLAN_CHECKPOINT:
		if (!ok)
			return 0;
		if (!(op = hs_op_add(e, pj->id, HS_OP_CKPT)))
			return hs_err_set(err, "out of memory");
		op->t0 = t0;
		op->deadline = t0 + e->conf.ckpt_grace_s;
		op->restart_cnt = pj->restart_cnt;
		op->orig_begin = begin_time;
		e->tot_checkpoints++;
		if (pj->target.nnodes > 0 && hs_op_set_target(op, pj, pj->type_name) < 0)
			return hs_err_set(err, "out of memory");
		return 0;
	case HS_PLAN_REQUEUE:
		if (!ok)
			return 0;
		if (!(op = hs_op_add(e, pj->id, HS_OP_REQUEUED)))
			return hs_err_set(err, "out of memory");
		op->t0 = t0;
		op->restart_cnt = pj->restart_cnt;
		op->orig_begin = begin_time;
		e->tot_requeued++;
		if (pj->target.nnodes > 0)
			e->tot_migrated++;
		else
			e->tot_preempted++;
		if (ac)
			ac->suspended_by_us = 0;
		if (pj->target.nnodes > 0 && hs_op_set_target(op, pj, pj->type_name) < 0)
			return hs_err_set(err, "out of memory");
		return 0;
	case HS_PLAN_START:
		if (ok) {
			e->tot_started++;
			hs_op_remove(e, pj->id);
			hs_acct_started(e, pj->id, pj->restart_cnt, t0);
			return 0;
		}
		/* Not startable yet (GPUs still held by a job being preempted,
		 * a node still completing): retry until the next round. */
		if (!(op = hs_op_add(e, pj->id, HS_OP_START)))
			return hs_err_set(err, "out of memory");
		op->t0 = t0;
		op->deadline = t0 + e->conf.round_s;
		if (hs_op_set_target(op, pj, pj->type_name) < 0)
			return hs_err_set(err, "out of memory");
		return 0;
	case HS_PLAN_SUSPEND:
		if (ok && ac) {
			ac->suspended_by_us = 1;
			e->tot_suspended++;
		} else if (ac) {
			ac->suspended_by_us = 0; /* hs_ops_mark_suspends' mark */
		}
		return 0;
	case HS_PLAN_RESUME:
		if (ok) {
			if (ac)
				ac->suspended_by_us = 0;
			e->tot_resumed++;
		}
		return 0;
	case HS_PLAN_NONE:
	case HS_PLAN_KEEP:
	case HS_PLAN_SLURM: /* Slurm placed it: nothing of the round to record */
		return 0;
	}
	return 0;
}

/* Did job id acknowledge a checkpoint taken after t0 (minus slack)? */
static int ckpt_acked(hs_engine_t *e, uint32_t id, const hs_op_view_t *v, int64_t t0)
{
	hs_record_t tmp;
	const hs_record_t *r = v->record ? v->record
					 : hs_reccache_get(e, id, v->admin_comment, &tmp, NULL);
	return r && r->has_ckpt && r->ckpt_t >= t0 - HS_CKPT_SLACK_S;
}

hs_op_action_t hs_engine_op_step(hs_engine_t *e, uint32_t id, const hs_op_view_t *v,
				 int64_t now, int64_t *begin, const hs_target_t **target)
{
	hs_op_t *op = hs_op_find(e, id);
	if (!op || !v->exists)
		return HS_OPA_DROP;
	switch (op->kind) {
	case HS_OP_CKPT:
		if (v->state == HS_SJ_RUNNING && !v->completing &&
		    v->restart_cnt == op->restart_cnt) {
			if (ckpt_acked(e, id, v, op->t0)) {
				e->tot_ckpt_acked++;
				return HS_OPA_REQUEUE;
			}
			return now >= op->deadline ? HS_OPA_REQUEUE : HS_OPA_WAIT;
		}
		/* Suspended meanwhile: never signal again, requeue. */
		if (v->state == HS_SJ_SUSPENDED)
			return HS_OPA_REQUEUE;
		if (v->state == HS_SJ_PENDING || v->completing) {
			/* It left RUNNING on its own (requeued by someone else,
			 * node failure): continue as a requeued job. */
			op->kind = HS_OP_REQUEUED;
			op->t0 = now;
			return HS_OPA_WAIT;
		}
		return HS_OPA_DROP; /* it ended */
	case HS_OP_REQUEUED:
		if (v->state == HS_SJ_PENDING && !v->completing) {
			int64_t want = op->t0 + e->conf.restart_delay_s;
			if (op->orig_begin > want)
				want = op->orig_begin;
			if (!op->begin_cleared && v->begin_time > now && v->begin_time > want) {
				*begin = want > now ? want : now;
				return HS_OPA_CLEAR_BEGIN;
			}
			if (op->target.nnodes == 0)
				return op->begin_cleared || v->begin_time <= now ? HS_OPA_DROP
										 : HS_OPA_WAIT;
			if (now < want)
				return HS_OPA_WAIT;
			op->start_rc = v->restart_cnt;
			*target = &op->target;
			return HS_OPA_START;
		}
		if (v->state == HS_SJ_RUNNING || v->state == HS_SJ_SUSPENDED) {
			if (v->restart_cnt != op->restart_cnt)
				return HS_OPA_DROP;
			/* A requeue raises restart_cnt at once: the incarnation
			 * we requeued running after a restore is a requeue the
			 * slurmctld crash lost. Its processes were told to stop
			 * (after a checkpoint): requeue it again, not let it
			 * fail. */
			if (!op->restored)
				return HS_OPA_WAIT;
			if (!op->requeue_tries)
				hs_engine_logf(e, HS_LOG_INFO,
					       "job %u: slurmctld restarted with it still running, "
					       "but hetsched had requeued it at %lld: the requeue "
					       "was lost, it is requeued again",
					       id, (long long)op->t0);
			return HS_OPA_REQUEUE;
		}
		/* ended (cancelled...), or stuck completing (a node that
		 * never answers): HS_LEAVING_MAX_S, the one timeout of this
		 * state, after which the rounds no longer count it leaving
		 * either; once Slurm makes it pending it is an ordinary
		 * pending job */
		if (!v->completing || now >= op->t0 + HS_LEAVING_MAX_S)
			return HS_OPA_DROP;
		return HS_OPA_WAIT; /* still completing */
	case HS_OP_START:
		if (now >= op->deadline)
			return HS_OPA_DROP;
		if (v->state == HS_SJ_PENDING && !v->completing && v->begin_time <= now) {
			op->start_rc = v->restart_cnt;
			*target = &op->target;
			return HS_OPA_START;
		}
		if (v->state == HS_SJ_PENDING || v->completing)
			return HS_OPA_WAIT;
		return HS_OPA_DROP;
	}
	return HS_OPA_DROP;
}

void hs_engine_op_result(hs_engine_t *e, uint32_t id, hs_op_action_t a, int ok, int64_t now)
{
	hs_op_t *op = hs_op_find(e, id);
	if (!op)
		return;
	switch (a) {
	case HS_OPA_DROP:
		hs_op_remove(e, id);
		return;
	case HS_OPA_REQUEUE:
		if (ok && op->kind == HS_OP_REQUEUED) {
			/* a lost requeue repeated (counted the first time) */
			op->restored = 0;
			op->t0 = now;
		} else if (ok) {
			op->kind = HS_OP_REQUEUED;
			op->t0 = now;
			e->tot_requeued++;
			if (op->target.nnodes > 0)
				e->tot_migrated++;
			else
				e->tot_preempted++;
			hs_jacct_t *ac = hs_acct_find(e, id);
			if (ac)
				ac->suspended_by_us = 0;
		} else if (++op->requeue_tries >= HS_REQUEUE_TRIES) {
			hs_engine_logf(e, HS_LOG_ERROR,
				       "job %u: requeue failed %d times, it keeps running", id,
				       op->requeue_tries);
			hs_op_remove(e, id);
		}
		return;
	case HS_OPA_CLEAR_BEGIN:
		op->begin_cleared = 1;
		return;
	case HS_OPA_START:
		if (ok) {
			e->tot_started++;
			hs_acct_started(e, id, op->start_rc, now);
			hs_op_remove(e, id);
		} else {
			op->start_tries++;
		}
		return;
	case HS_OPA_WAIT:
		return;
	}
}
