/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.c — carries a round's plan out under write locks: the engine's
 * execution pass (exec.h) batch by batch through the executor (exec.c),
 * then what users see of it: each job's reason (squeue's for a pending
 * job, SystemComment for a running one) and expected start, and a fresh
 * look at jobs that were not eligible. What to do after any outcome
 * (fallbacks, refill, waiting) is the engine's. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "compat/hs_slurm.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

/* What users see: state_desc of pending jobs (squeue's reason),
 * SystemComment of running ones. Only written when it changed. */
static void set_reason(job_record_t *job_ptr, const char *why)
{
	if (!why || !*why)
		return;
	if (IS_JOB_PENDING(job_ptr) && !IS_JOB_COMPLETING(job_ptr)) {
		if (job_ptr->state_reason == WAIT_RESOURCES && !xstrcmp(job_ptr->state_desc, why))
			return;
		/* Keep Slurm's own blocking reasons (held, dependency...),
		 * except a partition-down reason once the partition is up:
		 * schedule() set it while it was down and, with the main
		 * scheduler off, nothing else clears it (squeue showed
		 * PartitionDown for jobs waiting on our rounds). */
		int part_reason = job_ptr->state_reason == WAIT_PART_DOWN ||
				  job_ptr->state_reason == WAIT_PART_INACTIVE;
		int part_up = job_ptr->part_ptr &&
			      (job_ptr->part_ptr->state_up & PARTITION_SCHED) == PARTITION_SCHED;
		if (job_ptr->state_reason != WAIT_NO_REASON &&
		    job_ptr->state_reason != WAIT_RESOURCES &&
		    job_ptr->state_reason != WAIT_PRIORITY && job_ptr->state_reason != WAIT_TIME &&
		    job_ptr->state_reason != WAIT_NODE_NOT_AVAIL && !(part_reason && part_up))
			return;
		job_ptr->state_reason = WAIT_RESOURCES;
		xfree(job_ptr->state_desc);
		job_ptr->state_desc = xstrdup(why);
	} else if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) {
		if (!xstrcmp(job_ptr->system_comment, why))
			return;
		xfree(job_ptr->system_comment);
		job_ptr->system_comment = xstrdup(why);
	}
}

/* The expected start of a job that stays pending (squeue --start,
 * scontrol show job), from the round's plan (engine_start.c). As
 * backfill does: a time not in the future becomes now + 1 (Slurm shows a
 * pending job's start_time only when it is set); a pending job without
 * an estimate gets 0 (no stale time from an earlier round). */
static void set_expected_start(job_record_t *job_ptr, int64_t when, time_t now)
{
	if (!IS_JOB_PENDING(job_ptr) || IS_JOB_COMPLETING(job_ptr))
		return;
	if (when <= 0)
		job_ptr->start_time = 0;
	else
		job_ptr->start_time = when > now ? (time_t)when : now + 1;
}

/* Every loop below finds its job again by id on each step and keeps no
 * pointer into slurmctld's tables across steps, so it may yield the
 * locks between steps (hs_hold_yield, lockhold.c). */
void hs_apply_plan(hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
		   hs_round_stats_t *st, hs_lock_hold_t *hold)
{
	time_t now = time(NULL);
	hs_exec_t *x = hs_exec_plan(e, s, plan, now);
	if (!x) {
		error(HS_LOG_PREFIX "out of memory applying round %ld: nothing applied",
		      plan->round);
		return;
	}
	hs_hold_what(hold, "apply: plan");
	hs_acts_t *b;
	while ((b = hs_exec_next(x)))
		hs_exec_run(hs_engine_conf(e), b, hold);
	hs_exec_count(st, hs_exec_counts(x));
	/* reasons, and a fresh look at jobs that were not eligible
	 * (dependencies, begin times: job_independent updates them) */
	hs_hold_what(hold, "apply: reasons");
	for (int i = 0; i < plan->njobs; i++) {
		(void)hs_hold_yield(hold);
		job_record_t *job_ptr = find_job_record(plan->jobs[i].id);
		if (!job_ptr)
			continue;
		set_reason(job_ptr, hs_exec_reason(x, i));
		set_expected_start(job_ptr, plan->jobs[i].expected_start, now);
	}
	hs_exec_free(x);
	hs_hold_what(hold, "apply: eligibility");
	for (int i = 0; i < s->njobs; i++) {
		(void)hs_hold_yield(hold);
		if (s->jobs[i].state != HS_SJ_PENDING || s->jobs[i].eligible)
			continue;
		job_record_t *job_ptr = find_job_record(s->jobs[i].id);
		if (job_ptr && IS_JOB_PENDING(job_ptr) && !IS_JOB_COMPLETING(job_ptr) &&
		    job_ptr->priority != 0)
			(void)job_independent(job_ptr);
	}
	last_job_update = now;
}
