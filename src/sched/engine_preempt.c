/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_preempt.c — the one stage that decides preemption (engine_impl.h
 * "preemption"): whether a job can be preempted at all, and how a job the
 * round takes GPUs from stops (checkpoint then requeue, requeue, suspend)
 * or a job it moves restarts, and the pause of every preemption while a
 * restarted slurmctld settles. Who loses GPUs is the round mechanism's
 * choice (core/mechanism.c) among the jobs this stage allows; which
 * pending jobs that cannot be preempted may enter a round is
 * engine_pinned.c's. Every input is an argument: the configuration's
 * keys (hs_preempt_rules_t) and the job's facts (hs_preempt_job_t). */
#include "sched/engine_impl.h"

hs_preempt_rules_t hs_preempt_rules(const hs_engine_t *e, int64_t now)
{
	return (hs_preempt_rules_t){ .mode = e->conf.preempt,
				     .requeue_no_ckpt = e->conf.requeue_no_ckpt,
				     .settle_left = now < e->settle_until ? e->settle_until - now : 0 };
}

hs_preempt_job_t hs_preempt_job(const hs_hints_t *h, const hs_sjob_t *sj)
{
	return (hs_preempt_job_t){ .ckpt = h->ckpt, .no_preempt = h->no_preempt,
				   .batch = sj->batch, .requeue_ok = sj->requeue_ok };
}

/* Only a batch job Slurm may requeue can be stopped and started again,
 * and only one that checkpoints keeps its work (else RequeueWithoutCheckpoint
 * says its work may be thrown away); a suspend keeps everything, but Slurm
 * resumes or requeues it later only through the same path. */
int hs_preempt_able(const hs_preempt_rules_t *r, const hs_preempt_job_t *j)
{
	if (r->mode == HS_PREEMPT_OFF || j->no_preempt || !j->batch || !j->requeue_ok)
		return 0;
	return j->ckpt || r->requeue_no_ckpt || r->mode == HS_PREEMPT_SUSPEND;
}

hs_plan_op_t hs_preempt_stop(const hs_preempt_rules_t *r, const hs_preempt_job_t *j, int moving)
{
	int ckpt = j->ckpt && j->batch && j->requeue_ok;
	if (!moving && r->mode == HS_PREEMPT_SUSPEND)
		return HS_PLAN_SUSPEND; /* a suspend ends nothing: it stays */
	/* a restarted slurmctld may still show as running a job that ended
	 * in the crash window: checkpointing or requeueing it would run it
	 * again (its GPUs' starts wait, as during any preemption) */
	if (r->settle_left > 0)
		return HS_PLAN_KEEP;
	return ckpt ? HS_PLAN_CHECKPOINT : HS_PLAN_REQUEUE;
}

hs_plan_op_t hs_preempt_move_suspended(const hs_preempt_rules_t *r, const hs_preempt_job_t *j)
{
	/* a requeue would throw its work away: it waits for its own GPUs */
	return j->ckpt || r->requeue_no_ckpt ? HS_PLAN_REQUEUE : HS_PLAN_NONE;
}
