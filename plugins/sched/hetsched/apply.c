/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.c — applies a round's plan through slurmctld's own functions,
 * under write locks. Every job is re-found with find_job_record() and
 * re-checked against what the snapshot saw (it may have finished, been
 * cancelled, requeued or restarted meanwhile); a job that changed is left
 * alone until the next round. Order: first what frees GPUs (checkpoint
 * signals, requeues, suspends), then starts and resumes, then the
 * suspends of time slicing (after the job packed onto the suspended
 * one's GPUs started), then reasons and expected start times.
 * A failed start leaves the job pending; a failed requeue leaves it
 * running. Starting on chosen nodes follows backfill's _start_job():
 * exclude every other node, select_nodes(), restore, launch. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "compat/hs_slurm.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"
#include "../../select/hetsched/hs_pack.h"

/* The partition to start a job in: one of its partitions hetsched
 * manages that contains every target node. */
static part_record_t *target_partition(job_record_t *job_ptr, bitstr_t *target)
{
	if (job_ptr->part_ptr_list) {
		part_record_t *p, *found = NULL;
		list_itr_t *it = list_iterator_create(job_ptr->part_ptr_list);
		while ((p = list_next(it)) && !found)
			if (p->node_bitmap && (p->state_up & PARTITION_SCHED) &&
			    bit_super_set(target, p->node_bitmap))
				found = p;
		list_iterator_destroy(it);
		return found;
	}
	part_record_t *p = job_ptr->part_ptr;
	if (p && p->node_bitmap && bit_super_set(target, p->node_bitmap))
		return p;
	return NULL;
}

int hs_start_on_nodes(job_record_t *job_ptr, const hs_target_t *t, const char *why)
{
	if (!job_ptr->details || t->nnodes <= 0)
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	bitstr_t *target = bit_alloc(node_record_count);
	for (int k = 0; k < t->nnodes; k++) {
		node_record_t *node_ptr = find_node_record(t->nodes[k].name);
		if (!node_ptr) {
			FREE_NULL_BITMAP(target);
			return ESLURM_INVALID_NODE_NAME;
		}
		bit_set(target, node_ptr->index);
	}
	part_record_t *part = target_partition(job_ptr, target);
	int rc = part ? hs_start_within(job_ptr, part, target, why)
		      : ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE;
	FREE_NULL_BITMAP(target);
	return rc;
}

int hs_start_within(job_record_t *job_ptr, part_record_t *part, bitstr_t *allowed, const char *why)
{
	if (!job_ptr->details)
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	part_record_t *orig_part = job_ptr->part_ptr;
	job_ptr->part_ptr = part;

	bitstr_t *orig_exc = job_ptr->details->exc_node_bitmap;
	if (allowed) {
		bitstr_t *exc = bit_copy(allowed);
		bit_not(exc);
		/* -w nodes stay in: a job that outgrows them (runnable.c)
		 * may be planned elsewhere, and Slurm must still include
		 * them */
		if (job_ptr->details->req_node_bitmap)
			bit_and_not(exc, job_ptr->details->req_node_bitmap);
		if (orig_exc)
			bit_or(exc, orig_exc);
		job_ptr->details->exc_node_bitmap = exc;
	}
	bool is_array_head = job_ptr->array_recs != NULL;
	int rc = hs_select_nodes(job_ptr, NULL);
	if (allowed && is_array_head && job_ptr->details) {
		/* A split array copied our exclusion into the new pending
		 * record: give it the job's own back. */
		job_record_t *base = find_job_record(job_ptr->array_job_id);
		if (base && base != job_ptr && base->array_recs && base->details) {
			FREE_NULL_BITMAP(base->details->exc_node_bitmap);
			if (orig_exc)
				base->details->exc_node_bitmap = bit_copy(orig_exc);
		}
	}
	if (allowed && job_ptr->details) { /* select_nodes() may reset it */
		FREE_NULL_BITMAP(job_ptr->details->exc_node_bitmap);
		job_ptr->details->exc_node_bitmap = orig_exc;
	} else if (allowed) {
		FREE_NULL_BITMAP(orig_exc);
	}

	if (rc != SLURM_SUCCESS) {
		if (IS_JOB_PENDING(job_ptr))
			job_ptr->part_ptr = orig_part;
		return rc;
	}
	info(HS_LOG_PREFIX "started %pJ on %s (%s)", job_ptr, job_ptr->nodes, why);
	hs_launch_started_job(job_ptr);
	return SLURM_SUCCESS;
}

int hs_start_job(job_record_t *job_ptr, const hs_target_t *t, int packing, const char *why)
{
	uint32_t partner = t->partner;
	job_record_t *pp = partner ? find_job_record(partner) : NULL;
	if (!packing || !pp || !IS_JOB_RUNNING(pp) || IS_JOB_COMPLETING(pp))
		return hs_start_on_nodes(job_ptr, t, why);
	char msg[256];
	int rc = hs_pack_start(job_ptr, partner, msg, sizeof(msg));
	if (rc == SLURM_SUCCESS) {
		last_job_update = time(NULL);
		info(HS_LOG_PREFIX "started %pJ packed with JobId=%u (%s)", job_ptr, partner, why);
	} else {
		verbose(HS_LOG_PREFIX "could not pack %pJ with JobId=%u: %s", job_ptr, partner, msg);
	}
	return rc;
}

/* The Slurm record a plan job acts on: an extra task slot of a job
 * array acts on the array's pending record (snapshot.c). */
static uint32_t act_id(const hs_snap_t *s, const hs_plan_job_t *pj)
{
	if (pj->snap >= 0 && pj->snap < s->njobs && s->jobs[pj->snap].id == pj->id)
		return hs_sjob_act_id(&s->jobs[pj->snap]);
	return pj->id;
}

/* Is the job still what the snapshot saw? */
static job_record_t *refind(const hs_snap_t *s, const hs_plan_job_t *pj)
{
	job_record_t *job_ptr = find_job_record(act_id(s, pj));
	if (!job_ptr || IS_JOB_COMPLETING(job_ptr) || job_ptr->restart_cnt != pj->restart_cnt)
		return NULL;
	switch (pj->state) {
	case HS_SJ_RUNNING:
		if (!IS_JOB_RUNNING(job_ptr) || job_ptr->start_time != pj->start_time)
			return NULL;
		break;
	case HS_SJ_SUSPENDED:
		if (!IS_JOB_SUSPENDED(job_ptr))
			return NULL;
		break;
	case HS_SJ_PENDING:
		if (!IS_JOB_PENDING(job_ptr))
			return NULL;
		break;
	case HS_SJ_OTHER:
		return NULL;
	}
	return job_ptr;
}

static int do_checkpoint(hs_engine_t *e, const hs_plan_job_t *pj, job_record_t *job_ptr,
			 time_t now, hs_round_stats_t *st)
{
	/* The protocol's two signals: the batch script's process group and
	 * every process of the other steps (srun does not forward SIGURG). */
	int rc = hs_job_signal_id(pj->id, (uint16_t)pj->ckpt_signal, KILL_FULL_JOB, false);
	int rc2 = hs_job_signal_id(pj->id, (uint16_t)pj->ckpt_signal, KILL_STEPS_ONLY, false);
	int ok = rc == SLURM_SUCCESS || rc2 == SLURM_SUCCESS;
	if (ok) {
		st->checkpointing++;
		info(HS_LOG_PREFIX "%pJ: checkpoint signal %d sent (%s)", job_ptr, pj->ckpt_signal,
		     pj->reason);
	} else {
		error(HS_LOG_PREFIX "%pJ: checkpoint signal failed: %s; it keeps running", job_ptr,
		      slurm_strerror(rc));
	}
	hs_err_t err;
	if (hs_engine_applied(e, pj, ok, now, job_ptr->details ? job_ptr->details->begin_time : 0,
			      &err) < 0)
		error(HS_LOG_PREFIX "%pJ: %s", job_ptr, err.msg);
	return ok;
}

static int do_requeue(hs_engine_t *e, const hs_plan_job_t *pj, job_record_t *job_ptr,
		      time_t now, hs_round_stats_t *st)
{
	time_t begin = job_ptr->details ? job_ptr->details->begin_time : 0;
	int rc = hs_job_requeue(pj->id, true, 0);
	int ok = rc == SLURM_SUCCESS;
	if (ok) {
		st->requeued++;
		info(HS_LOG_PREFIX "requeued JobId=%u (%s)", pj->id, pj->reason);
	} else {
		st->requeue_failed++;
		error(HS_LOG_PREFIX "requeue of JobId=%u failed: %s; it keeps running", pj->id,
		      slurm_strerror(rc));
	}
	hs_err_t err;
	if (hs_engine_applied(e, pj, ok, now, begin, &err) < 0)
		error(HS_LOG_PREFIX "JobId=%u: %s", pj->id, err.msg);
	return ok;
}

static int do_suspend(hs_engine_t *e, const hs_plan_job_t *pj, job_record_t *job_ptr,
		      time_t now, int op, hs_round_stats_t *st)
{
	int rc = hs_job_suspend(pj->id, (uint16_t)op);
	int ok = rc == SLURM_SUCCESS;
	if (ok) {
		if (op == SUSPEND_JOB)
			st->suspended++;
		else
			st->resumed++;
		info(HS_LOG_PREFIX "%s %pJ (%s)", op == SUSPEND_JOB ? "suspended" : "resumed", job_ptr,
		     pj->reason);
	} else {
		error(HS_LOG_PREFIX "%s of %pJ failed: %s", op == SUSPEND_JOB ? "suspend" : "resume",
		      job_ptr, slurm_strerror(rc));
	}
	hs_err_t err;
	(void)hs_engine_applied(e, pj, ok, now, 0, &err);
	return ok;
}

/* Each job of a pass: the locks may be yielded first (lockhold.c), then
 * the job is re-found; NULL (counted as vanished) when it changed. */
static job_record_t *refind_after_yield(const hs_snap_t *s, const hs_plan_job_t *pj,
					hs_round_stats_t *st, hs_lock_hold_t *hold)
{
	(void)hs_hold_yield(hold);
	job_record_t *job_ptr = refind(s, pj);
	if (!job_ptr)
		st->vanished++;
	return job_ptr;
}

/* Were the GPUs of target t all free in the round's snapshot? Only then
 * can "nodes busy" not mean GPUs this round is still freeing (a victim
 * checkpointing, completing or being requeued holds them until it is
 * gone): what the nodes lack is something else the job asks for, held by
 * jobs that stay (memory, CPUs, a node for --exclusive). */
static int target_gpus_were_free(const hs_snap_t *s, const hs_target_t *t)
{
	if (t->partner || t->nnodes <= 0)
		return 0; /* packed onto a running partner: its GPUs are held */
	for (int k = 0; k < t->nnodes; k++) {
		int n = t->nodes[k].node, nfree = 0;
		if (n < 0 || n >= s->nnodes || !s->nodes[n].gpu_held)
			return 0;
		for (int g = 0; g < s->nodes[n].ngpus; g++)
			nfree += !s->nodes[n].gpu_held[g];
		if (nfree < t->nodes[k].gpus)
			return 0;
	}
	return 1;
}

/* do_start()'s answer for a start that waits for GPUs still being freed. */
#define HS_START_DEFERRED (-2)

/* SLURM_SUCCESS, HS_START_DEFERRED ("GPUs still busy": retried), or
 * Slurm's error when it refused the start. */
static int do_start(hs_engine_t *e, const hs_snap_t *s, const hs_plan_job_t *pj,
		    job_record_t *job_ptr, time_t now, hs_round_stats_t *st, int packing)
{
	int rc, busy_not_gpus = 0;
	if (!hs_job_startable(job_ptr)) {
		rc = ESLURM_NODES_BUSY; /* still being cleaned up: retried */
	} else if (job_ptr->priority == 0 || !job_independent(job_ptr)) {
		rc = ESLURM_DEPENDENCY; /* held or not eligible any more */
	} else {
		rc = hs_start_job(job_ptr, &pj->target, packing, pj->reason);
		busy_not_gpus = (rc == ESLURM_NODES_BUSY || rc == ESLURM_NODE_NOT_AVAIL) &&
				target_gpus_were_free(s, &pj->target);
	}
	/* Refused because the planned nodes cannot hold the job: the plan
	 * models a job's GPUs, not every part of its request (CPUs or
	 * memory per GPU beyond one node, a node count to spread over; now
	 * taken by jobs without GPUs, or an --exclusive job next to them).
	 * Ask Slurm to place it on any nodes of the planned GPU type
	 * (start_type.c), so that the same refusal does not repeat round
	 * after round. Other refusals (limits, holds, reservations) would
	 * be refused there too: not retried. */
	if ((rc == ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE || busy_not_gpus) &&
	    !pj->target.partner && pj->type_name && IS_JOB_PENDING(job_ptr) &&
	    hs_job_startable(job_ptr) &&
	    hs_start_on_type(hs_engine_conf(e), job_ptr, s, pj->type_name, pj->reason) ==
		    SLURM_SUCCESS)
		rc = SLURM_SUCCESS;
	int ok = rc == SLURM_SUCCESS;
	/* busy for a reason other than GPUs being freed: waiting would
	 * leave the GPUs idle every round, so it is a refusal */
	int defer = !ok && !busy_not_gpus &&
		    (rc == ESLURM_NODES_BUSY || rc == ESLURM_NODE_NOT_AVAIL);
	if (ok) {
		st->started++;
	} else if (defer) {
		/* Typically GPUs still held by a job being preempted now:
		 * retried every tick until the next round. */
		st->deferred++;
		debug(HS_LOG_PREFIX "%pJ waits for its GPUs on %s: %s", job_ptr,
		      pj->target.nnodes ? pj->target.nodes[0].name : "?", slurm_strerror(rc));
	} else {
		st->start_failed++;
		/* once per refusal: the next snapshot asks Slurm again and
		 * leaves the job out while Slurm would not start it */
		info(HS_LOG_PREFIX "Slurm refused to start %pJ on %s: %s (reason %s); its GPUs "
		     "go to the next job", job_ptr, pj->target.nnodes ? pj->target.nodes[0].name : "?",
		     slurm_strerror(rc), hs_job_reason_string(job_ptr->state_reason));
	}
	hs_err_t err;
	if (ok || defer)
		(void)hs_engine_applied(e, pj, ok, now, 0, &err);
	return ok ? SLURM_SUCCESS : defer ? HS_START_DEFERRED : rc;
}

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

/* A planned start Slurm refused: the job's reason says so (not the
 * plan's "starting on ..."), unless Slurm set a reason of its own. */
static void set_refused_reason(job_record_t *job_ptr, const hs_plan_t *plan,
			       const hs_plan_job_t *pj, int rc)
{
	char why[192];
	snprintf(why, sizeof(why),
		 "hetsched round %ld: Slurm refused the start planned on %s (%s); the next "
		 "round asks again", plan->round, pj->target.nnodes ? pj->target.nodes[0].name : "?",
		 slurm_strerror(rc));
	set_reason(job_ptr, why);
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
		   hs_round_stats_t *st, int packing, hs_lock_hold_t *hold)
{
	time_t now = time(NULL);
	/* 1. what frees GPUs */
	hs_hold_what(hold, "apply: checkpoint, requeue, suspend");
	for (int i = 0; i < plan->njobs; i++) {
		const hs_plan_job_t *pj = &plan->jobs[i];
		if (pj->op != HS_PLAN_CHECKPOINT && pj->op != HS_PLAN_REQUEUE &&
		    pj->op != HS_PLAN_SUSPEND)
			continue;
		if (pj->op == HS_PLAN_SUSPEND && pj->slice_with)
			continue; /* after its time-slice partner started (3.) */
		job_record_t *job_ptr = refind_after_yield(s, pj, st, hold);
		if (!job_ptr)
			continue;
		if (pj->op == HS_PLAN_CHECKPOINT && IS_JOB_RUNNING(job_ptr))
			do_checkpoint(e, pj, job_ptr, now, st);
		else if (pj->op == HS_PLAN_SUSPEND && IS_JOB_RUNNING(job_ptr))
			do_suspend(e, pj, job_ptr, now, SUSPEND_JOB, st);
		else
			do_requeue(e, pj, job_ptr, now, st);
	}
	/* 2. starts and resumes; the GPUs of starts Slurm refused go to the
	 * next job in priority order (refill.c) */
	int *refused = malloc(((size_t)plan->njobs + 1) * sizeof(int));
	unsigned char *taken = calloc((size_t)plan->njobs + 1, 1);
	int *refused_rc = calloc((size_t)plan->njobs + 1, sizeof(int)); /* for 4. */
	int nrefused = 0;
	hs_hold_what(hold, "apply: start");
	for (int i = 0; i < plan->njobs; i++) {
		const hs_plan_job_t *pj = &plan->jobs[i];
		int rc;
		if (pj->op == HS_PLAN_KEEP) {
			st->kept++;
			continue;
		}
		if (pj->op != HS_PLAN_START && pj->op != HS_PLAN_RESUME)
			continue;
		job_record_t *job_ptr = refind_after_yield(s, pj, st, hold);
		if (!job_ptr)
			continue;
		if (pj->op == HS_PLAN_RESUME)
			do_suspend(e, pj, job_ptr, now, RESUME_JOB, st);
		else if ((rc = do_start(e, s, pj, job_ptr, now, st, packing)) != SLURM_SUCCESS &&
			 rc != HS_START_DEFERRED) {
			if (refused_rc)
				refused_rc[i] = rc;
			if (refused && !pj->target.partner && pj->target.nnodes > 0)
				refused[nrefused++] = i;
		}
	}
	hs_hold_what(hold, "apply: refill");
	if (refused && taken)
		(void)hs_refill(e, s, plan, refused, nrefused, taken, now, st, hold);
	free(refused);
	free(taken);
	/* 2b. jobs no single GPU type can hold: Slurm places them on what
	 * the round's starts left free */
	hs_hold_what(hold, "apply: placed by Slurm");
	for (int i = 0; i < plan->njobs; i++) {
		const hs_plan_job_t *pj = &plan->jobs[i];
		if (pj->op != HS_PLAN_SLURM)
			continue;
		job_record_t *job_ptr = refind_after_yield(s, pj, st, hold);
		if (!job_ptr)
			continue;
		if (hs_job_startable(job_ptr) && job_ptr->priority != 0 &&
		    job_independent(job_ptr) &&
		    hs_start_on_type(hs_engine_conf(e), job_ptr, s, NULL, pj->reason) == SLURM_SUCCESS)
			st->started++;
	}
	/* 3. time slicing: suspend the jobs a newcomer was just packed onto
	 * (hs_pack_start needs them running); if the newcomer did not
	 * start, the job keeps running rather than idle its GPUs */
	hs_hold_what(hold, "apply: time slices");
	for (int i = 0; i < plan->njobs; i++) {
		const hs_plan_job_t *pj = &plan->jobs[i];
		if (pj->op != HS_PLAN_SUSPEND || !pj->slice_with)
			continue;
		job_record_t *job_ptr = refind_after_yield(s, pj, st, hold);
		if (!job_ptr)
			continue;
		job_record_t *nj = find_job_record(pj->slice_with);
		if (nj && IS_JOB_RUNNING(nj) && IS_JOB_RUNNING(job_ptr))
			do_suspend(e, pj, job_ptr, now, SUSPEND_JOB, st);
		else
			verbose(HS_LOG_PREFIX "%pJ keeps running: JobId=%u did not start on its GPUs",
				job_ptr, pj->slice_with);
	}
	/* 4. reasons, and a fresh look at jobs that were not eligible
	 * (dependencies, begin times: job_independent updates them) */
	hs_hold_what(hold, "apply: reasons");
	for (int i = 0; i < plan->njobs; i++) {
		(void)hs_hold_yield(hold);
		job_record_t *job_ptr = find_job_record(plan->jobs[i].id);
		if (!job_ptr)
			continue;
		if (refused_rc && refused_rc[i])
			set_refused_reason(job_ptr, plan, &plan->jobs[i], refused_rc[i]);
		else
			set_reason(job_ptr, plan->jobs[i].reason);
		set_expected_start(job_ptr, plan->jobs[i].expected_start, now);
	}
	free(refused_rc);
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
