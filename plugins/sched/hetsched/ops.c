/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ops.c — advances the in-flight operations of the engine once per tick,
 * under write locks: requeue a job whose checkpoint was acknowledged (or
 * whose grace ran out), clear the requeue delay Slurm put on a job it
 * requeued for us (begin_time = now + cred_expire + 1), start a job on
 * its new nodes once it is pending again, retry deferred starts. The
 * decisions are the engine's (hs_engine_op_step); this file only looks
 * the job up and calls slurmctld. */
#include "config.h"

#include <stdlib.h>

#include "compat/hs_slurm.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

int hs_ops_tick(hs_engine_t *e, hs_round_stats_t *st, int packing, int requeues_only)
{
	int n = hs_engine_nops(e), acted = 0;
	if (n <= 0)
		return 0;
	/* ops may be removed while we walk: copy the ids first */
	uint32_t *ids = malloc((size_t)n * sizeof(*ids));
	if (!ids)
		return 0;
	for (int i = 0; i < n; i++)
		ids[i] = hs_engine_op_job(e, i);
	time_t now = time(NULL);
	for (int i = 0; i < n; i++) {
		uint32_t id = ids[i];
		job_record_t *job_ptr = find_job_record(id);
		hs_op_view_t v = { .exists = job_ptr != NULL };
		if (job_ptr) {
			/* not cleaned up after a requeue yet: still completing
			 * (hs_requeue_sweep ran before: a requeue Slurm left
			 * half done is finished already) */
			v.completing = IS_JOB_COMPLETING(job_ptr) ||
				       (IS_JOB_PENDING(job_ptr) && !hs_job_startable(job_ptr));
			if (IS_JOB_RUNNING(job_ptr))
				v.state = HS_SJ_RUNNING;
			else if (IS_JOB_SUSPENDED(job_ptr))
				v.state = HS_SJ_SUSPENDED;
			else if (IS_JOB_PENDING(job_ptr))
				v.state = HS_SJ_PENDING;
			else
				v.state = HS_SJ_OTHER;
			v.restart_cnt = job_ptr->restart_cnt;
			v.begin_time = job_ptr->details ? job_ptr->details->begin_time : 0;
			v.admin_comment = job_ptr->admin_comment;
		}
		int64_t begin = 0;
		const hs_target_t *target = NULL;
		int ok = 1, rc;
		hs_op_action_t a = hs_engine_op_step(e, id, &v, now, &begin, &target);
		if (requeues_only && a != HS_OPA_REQUEUE)
			continue; /* asked again at a later tick */
		switch (a) {
		case HS_OPA_WAIT:
			continue;
		case HS_OPA_DROP:
			break;
		case HS_OPA_REQUEUE:
			rc = hs_job_requeue(id, true, 0);
			ok = rc == SLURM_SUCCESS;
			if (ok) {
				st->requeued++;
				info(HS_LOG_PREFIX "requeued %pJ after its checkpoint", job_ptr);
			} else {
				st->requeue_failed++;
				error(HS_LOG_PREFIX "requeue of %pJ failed: %s", job_ptr,
				      slurm_strerror(rc));
			}
			break;
		case HS_OPA_CLEAR_BEGIN:
			/* Slurm's requeue delay exists for credential revocation
			 * on the old nodes; RestartDelay keeps a margin. */
			if (job_ptr->details)
				job_ptr->details->begin_time = (time_t)begin;
			if (begin <= now && (job_ptr->state_reason == WAIT_TIME ||
					     job_ptr->state_reason == WAIT_NO_REASON)) {
				job_ptr->state_reason = WAIT_RESOURCES;
				xfree(job_ptr->state_desc);
				job_ptr->state_desc = xstrdup("hetsched: preempted, restarts when "
							      "the round gives it GPUs");
			}
			last_job_update = now;
			debug(HS_LOG_PREFIX "%pJ: requeue delay cleared", job_ptr);
			break;
		case HS_OPA_START:
			if (!hs_job_startable(job_ptr) || job_ptr->priority == 0 ||
			    !job_independent(job_ptr)) {
				ok = 0;
				break;
			}
			rc = hs_start_job(job_ptr, target, packing, "restart where the round put it");
			ok = rc == SLURM_SUCCESS;
			if (ok)
				st->started++;
			break;
		}
		acted++;
		hs_engine_op_result(e, id, a, ok, now);
	}
	free(ids);
	return acted;
}
