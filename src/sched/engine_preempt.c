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
				     .slice = e->packing && e->conf.preempt == HS_PREEMPT_SUSPEND,
				     .settle_left = now < e->settle_until ? e->settle_until - now : 0 };
}

hs_preempt_job_t hs_preempt_job(const hs_round_build_t *b, const hs_sjob_t *sj, int i)
{
	const hs_hints_t *h = &b->hints[i];
	return (hs_preempt_job_t){ .ckpt = h->ckpt, .no_preempt = h->no_preempt,
				   .batch = sj->batch,
				   .requeue_ok = sj->requeue_ok || b->requeue_kept[i] };
}

/* Any owner may `scontrol update jobid=X Requeue=0` once X runs (Slurm
 * allows it). Judged by that, a job admitted as movable would keep its
 * GPUs for good, past the policy and the pinned and unmovable admissions
 * (issue 28). So a job keeps the requeue flag it was admitted with: the
 * engine records the incarnation it saw requeueable (update_acct), and the
 * executor restores the flag for a requeue the round decides
 * (hs_act_t.restore_requeue). A task of a job array is started from its
 * array's pending record (another job id): until the task has a record of
 * its own, the array's counts. */
int hs_requeue_kept(const hs_engine_t *e, const hs_sjob_t *sj)
{
	if (sj->requeue_ok || !sj->batch || sj->state == HS_SJ_PENDING)
		return 0;
	const hs_jacct_t *ac = hs_acct_find(e, sj->id);
	if (ac && ac->requeue_rc1)
		return ac->requeue_rc1 == sj->restart_cnt + 1;
	if (!sj->array_id || sj->array_id == sj->id)
		return 0;
	const hs_jacct_t *arr = hs_acct_find(e, sj->array_id);
	return arr && arr->requeue_rc1 == sj->restart_cnt + 1;
}

/* Only a batch job Slurm may requeue can be stopped and started again,
 * and only one that checkpoints keeps its work (else RequeueWithoutCheckpoint
 * says its work may be thrown away). */
int hs_preempt_movable(const hs_preempt_rules_t *r, const hs_preempt_job_t *j)
{
	if (r->mode == HS_PREEMPT_OFF || j->no_preempt || !j->batch || !j->requeue_ok)
		return 0;
	return j->ckpt || r->requeue_no_ckpt;
}

/* A suspend keeps everything and needs neither a batch script nor
 * requeue: under PreemptMode=suspend any job that did not opt out may be
 * suspended where it runs (and resumed there), even one that can never
 * be moved (salloc, --no-requeue, no checkpoint). Pinning those would
 * make opting out of checkpoints pay (issue 28). */
int hs_preempt_able(const hs_preempt_rules_t *r, const hs_preempt_job_t *j)
{
	if (r->mode == HS_PREEMPT_OFF || j->no_preempt)
		return 0;
	return r->mode == HS_PREEMPT_SUSPEND || hs_preempt_movable(r, j);
}

/* Without time slicing a suspended job's GPUs stay allocated and no
 * other job can start on them, so hs_plan_vacate keeps a job that cannot
 * be moved running rather than suspend it for a start: it holds its GPUs
 * like a pinned job and is admitted like one (engine_pinned.c). */
int hs_preempt_holds(const hs_preempt_rules_t *r, const hs_preempt_job_t *j)
{
	return !hs_preempt_able(r, j) || (!r->slice && !hs_preempt_movable(r, j));
}

hs_plan_op_t hs_preempt_stop(const hs_preempt_rules_t *r, const hs_preempt_job_t *j, int moving)
{
	int ckpt = j->ckpt && j->batch && j->requeue_ok;
	/* a job that cannot be moved is suspended where it is instead (its
	 * target goes unused; the round only picks it on its own type) */
	if (r->mode == HS_PREEMPT_SUSPEND && (!moving || !hs_preempt_movable(r, j)))
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
	/* a requeue would throw its work away, or Slurm cannot requeue
	 * it: it waits for its own GPUs */
	return hs_preempt_movable(r, j) ? HS_PLAN_REQUEUE : HS_PLAN_NONE;
}
