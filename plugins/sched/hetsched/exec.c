/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exec.c — the executor of the engine's acts inside slurmctld (exec.h),
 * under write locks: for each act, find the job again by id (the locks
 * may have been yielded since the last act, lockhold.c), check it is
 * still what the act expects, do it with slurmctld's own functions (the
 * one start function of start.c behind the one gate), and write the
 * outcome, with Slurm's answer mapped to the engine's classes. It decides
 * nothing: what follows an outcome is the engine's. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "compat/hs_slurm.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

/* Is the job still what the act says? */
static job_record_t *refind(const hs_act_t *a)
{
	job_record_t *job_ptr = find_job_record(a->id);
	if (!job_ptr || !a->check_state)
		return job_ptr;
	if (IS_JOB_COMPLETING(job_ptr) || job_ptr->restart_cnt != a->restart_cnt)
		return NULL;
	switch (a->state) {
	case HS_SJ_RUNNING:
		if (!IS_JOB_RUNNING(job_ptr) || job_ptr->start_time != a->start_time)
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

/* Slurm's answer to a start, in the engine's classes. */
static hs_refusal_t refusal_of(int rc, hs_where_t where)
{
	if (where == HS_WHERE_PACKED && rc == HS_ESLURM_PARTNER_GONE)
		return HS_REFUSE_PARTNER;
	switch (rc) {
	case ESLURM_NODES_BUSY:
	case ESLURM_NODE_NOT_AVAIL:
		return HS_REFUSE_BUSY;
	case ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE:
		return HS_REFUSE_CONFIG;
	case ESLURM_DEPENDENCY:
		return HS_REFUSE_HELD;
	default:
		return HS_REFUSE_OTHER;
	}
}

static void set_result(hs_act_t *a, hs_outcome_t out, int rc)
{
	a->out = out;
	a->code = rc;
	if (out != HS_OUT_DONE && rc != SLURM_SUCCESS)
		snprintf(a->msg, sizeof(a->msg), "%s", slurm_strerror(rc));
}

static void do_start(const hs_sconf_t *conf, job_record_t *job_ptr, hs_act_t *a)
{
	int rc;
	hs_outcome_t gate = hs_may_start(job_ptr, &rc);
	if (gate == HS_OUT_REFUSED)
		a->refusal = HS_REFUSE_HELD;
	if (gate == HS_OUT_DONE) {
		rc = hs_start(conf, job_ptr, a->where, a->target, a->type, a->avoid, a->navoid,
			      a->why ? a->why : "hetsched");
		if (rc == SLURM_SUCCESS) {
			set_result(a, HS_OUT_DONE, rc);
			return;
		}
		gate = HS_OUT_REFUSED;
		a->refusal = refusal_of(rc, a->where);
	}
	set_result(a, gate, rc);
	if (gate != HS_OUT_REFUSED)
		return;
	if (a->refusal == HS_REFUSE_BUSY)
		debug(HS_LOG_PREFIX "%pJ: nodes busy for a start on %s (%s): %s", job_ptr,
		      hs_where_name(a->where), a->target && a->target->nnodes ?
		      a->target->nodes[0].name : a->type ? a->type : "any", a->msg);
	else
		info(HS_LOG_PREFIX "Slurm refused to start %pJ (%s, %s): %s (reason %s)", job_ptr,
		     hs_where_name(a->where), a->target && a->target->nnodes ?
		     a->target->nodes[0].name : a->type ? a->type : "any", a->msg,
		     hs_job_reason_string(job_ptr->state_reason));
}

/* The protocol's two signals: the batch script's process group and
 * every process of the other steps (srun does not forward SIGURG). */
static void do_ckpt_signal(job_record_t *job_ptr, hs_act_t *a)
{
	int rc = hs_job_signal_id(a->id, (uint16_t)a->signal, KILL_FULL_JOB, false);
	int rc2 = hs_job_signal_id(a->id, (uint16_t)a->signal, KILL_STEPS_ONLY, false);
	if (rc == SLURM_SUCCESS || rc2 == SLURM_SUCCESS) {
		set_result(a, HS_OUT_DONE, SLURM_SUCCESS);
		info(HS_LOG_PREFIX "%pJ: checkpoint signal %d sent (%s)", job_ptr, a->signal, a->why);
	} else {
		set_result(a, HS_OUT_FAILED, rc);
	}
}

/* A job the engine admitted requeueable whose owner set Requeue=0 once it
 * ran (hs_requeue_kept): Slurm would refuse the requeue, so the flag it
 * was admitted with is put back for this one requeue and the owner's
 * choice restored after it (it applies from the job's next start, when
 * the admission sees it). Only for the same incarnation. */
static int requeue_restoring(job_record_t *job_ptr, const hs_act_t *a, int *restored)
{
	*restored = a->restore_requeue && job_ptr->details && !job_ptr->details->requeue &&
		    job_ptr->restart_cnt == a->restart_cnt;
	if (*restored)
		job_ptr->details->requeue = 1;
	int rc = hs_job_requeue(a->id, true, 0);
	/* a requeue changes the record's state, not the record: job_ptr
	 * stays valid under the write lock */
	if (*restored && job_ptr->details)
		job_ptr->details->requeue = 0;
	return rc;
}

static void do_requeue(job_record_t *job_ptr, hs_act_t *a)
{
	int restored;
	int rc = requeue_restoring(job_ptr, a, &restored);
	set_result(a, rc == SLURM_SUCCESS ? HS_OUT_DONE : HS_OUT_FAILED, rc);
	if (rc == SLURM_SUCCESS)
		info(HS_LOG_PREFIX "requeued %pJ (%s)%s", job_ptr, a->why ? a->why : "",
		     restored ? "; it was started requeueable: Requeue=0 set since then "
				"applies from its next start" : "");
}

static void do_suspend(job_record_t *job_ptr, hs_act_t *a, uint16_t op)
{
	int rc = hs_job_suspend(a->id, op);
	set_result(a, rc == SLURM_SUCCESS ? HS_OUT_DONE : HS_OUT_FAILED, rc);
	if (rc == SLURM_SUCCESS)
		info(HS_LOG_PREFIX "%s %pJ (%s)", op == SUSPEND_JOB ? "suspended" : "resumed",
		     job_ptr, a->why ? a->why : "");
}

/* Slurm's requeue delay exists for credential revocation on the old
 * nodes; RestartDelay keeps a margin. */
static void do_clear_begin(job_record_t *job_ptr, hs_act_t *a, time_t now)
{
	if (job_ptr->details)
		job_ptr->details->begin_time = (time_t)a->begin;
	if (a->begin <= now &&
	    (job_ptr->state_reason == WAIT_TIME || job_ptr->state_reason == WAIT_NO_REASON)) {
		job_ptr->state_reason = WAIT_RESOURCES;
		xfree(job_ptr->state_desc);
		job_ptr->state_desc = xstrdup("hetsched: preempted, restarts when the round gives "
					      "it GPUs");
	}
	last_job_update = now;
	set_result(a, HS_OUT_DONE, SLURM_SUCCESS);
	debug(HS_LOG_PREFIX "%pJ: requeue delay cleared", job_ptr);
}

void hs_exec_run(const hs_sconf_t *conf, hs_acts_t *b, hs_lock_hold_t *hold)
{
	time_t now = time(NULL);
	for (int k = 0; k < b->n; k++) {
		hs_act_t *a = &b->a[k];
		(void)hs_hold_yield(hold); /* the job is found by id below */
		job_record_t *job_ptr = refind(a);
		if (!job_ptr) {
			set_result(a, HS_OUT_GONE, SLURM_SUCCESS);
			continue;
		}
		switch (a->kind) {
		case HS_DO_START:
			do_start(conf, job_ptr, a);
			break;
		case HS_DO_CKPT_SIGNAL:
			do_ckpt_signal(job_ptr, a);
			break;
		case HS_DO_REQUEUE:
			do_requeue(job_ptr, a);
			break;
		case HS_DO_SUSPEND:
			do_suspend(job_ptr, a, SUSPEND_JOB);
			break;
		case HS_DO_RESUME:
			do_suspend(job_ptr, a, RESUME_JOB);
			break;
		case HS_DO_CLEAR_BEGIN:
			do_clear_begin(job_ptr, a, now);
			break;
		}
	}
}

void hs_exec_count(hs_round_stats_t *st, const hs_exec_counts_t *c)
{
	st->started += c->started;
	st->start_failed += c->start_failed;
	st->deferred += c->deferred;
	st->kept += c->kept;
	st->suspended += c->suspended;
	st->resumed += c->resumed;
	st->checkpointing += c->checkpointing;
	st->requeued += c->requeued;
	st->requeue_failed += c->requeue_failed;
	st->vanished += c->vanished;
}
