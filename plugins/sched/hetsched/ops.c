/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ops.c — a tick of the engine's in-flight operations, under write locks:
 * what slurmctld shows of each op's job (hs_op_view_t), then the engine's
 * ops pass (exec.h) through the executor (exec.c): requeue a job whose
 * checkpoint was acknowledged (or whose grace ran out), clear the requeue
 * delay Slurm put on a job it requeued for us, start a job on its new
 * nodes once it is pending again (with the engine's fallbacks when Slurm
 * refuses those nodes), retry deferred starts. */
#include "config.h"

#include <stdlib.h>

#include "compat/hs_slurm.h"
#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

/* What slurmctld shows of job id now. */
static void view_of(uint32_t id, hs_op_view_t *v)
{
	job_record_t *job_ptr = find_job_record(id);
	*v = (hs_op_view_t){ .id = id, .exists = job_ptr != NULL };
	if (!job_ptr)
		return;
	/* not cleaned up after a requeue yet: still completing
	 * (hs_requeue_sweep ran before: a requeue Slurm left half done is
	 * finished already) */
	v->completing = IS_JOB_COMPLETING(job_ptr) ||
			(IS_JOB_PENDING(job_ptr) && !hs_job_startable(job_ptr));
	if (IS_JOB_RUNNING(job_ptr))
		v->state = HS_SJ_RUNNING;
	else if (IS_JOB_SUSPENDED(job_ptr))
		v->state = HS_SJ_SUSPENDED;
	else if (IS_JOB_PENDING(job_ptr))
		v->state = HS_SJ_PENDING;
	else
		v->state = HS_SJ_OTHER;
	v->restart_cnt = job_ptr->restart_cnt;
	v->begin_time = job_ptr->details ? job_ptr->details->begin_time : 0;
	v->admin_comment = job_ptr->admin_comment;
}

int hs_ops_tick(hs_engine_t *e, hs_round_stats_t *st, int requeues_only)
{
	int n = hs_engine_nops(e);
	if (n <= 0)
		return 0;
	uint32_t *ids = malloc((size_t)n * sizeof(*ids));
	hs_op_view_t *views = malloc((size_t)n * sizeof(*views));
	hs_exec_t *x = NULL;
	int acted = 0;
	if (ids && views) {
		n = hs_exec_ops_jobs(e, ids, n);
		for (int i = 0; i < n; i++)
			view_of(ids[i], &views[i]);
		/* the views (AdminComment pointers) are read before any act
		 * changes a job: the pass decides every step first */
		x = hs_exec_ops(e, views, n, time(NULL), requeues_only);
	}
	if (x) {
		hs_acts_t *b;
		while ((b = hs_exec_next(x)))
			hs_exec_run(hs_engine_conf(e), b, NULL);
		hs_exec_count(st, hs_exec_counts(x));
		acted = hs_exec_counts(x)->ops;
	} else {
		error(HS_LOG_PREFIX "out of memory advancing in-flight operations: retried "
		      "next tick");
	}
	hs_exec_free(x);
	free(ids);
	free(views);
	return acted;
}
