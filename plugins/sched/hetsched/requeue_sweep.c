/* SPDX-License-Identifier: GPL-2.0-or-later */
/* requeue_sweep.c — finishes the requeues Slurm leaves half done, once
 * per agent tick and once per round, under the write locks the caller
 * holds. A batch job that was requeued (by hetsched after a checkpoint,
 * or by Slurm) and whose node died while it was completing ends up
 * pending and no longer completing, but with its old nodes, resources
 * and GRES: kill_running_job_by_node_name() clears the completing flag
 * through cleanup_completing(), and job_epilog_complete(), which would
 * have called batch_requeue_fini(), never runs for it. Such a job is
 * never startable (hs_job_startable); the sweep calls
 * batch_requeue_fini() for it, as the epilog completion would have.
 *
 * One walk of the job list, one guard (half_done): this replaces three
 * callers of hs_finish_requeue (the ops, the round's apply, the CPU job
 * fill), each with its own view of which jobs to look at. The walk costs
 * a few flag tests per job; the guard's expensive part (the partition
 * and op look-ups) runs only for the rare job in that state. */
#include "config.h"

#include <time.h>

#include "compat/hs_slurm.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

/* Has hetsched an in-flight op for the job (a GPU job it requeued, maybe
 * of a partition no longer managed)? The op list is short. */
static int has_op(const hs_engine_t *e, uint32_t id)
{
	int n = e ? hs_engine_nops(e) : 0;
	for (int i = 0; i < n; i++)
		if (hs_engine_op_job(e, i) == id)
			return 1;
	return 0;
}

/* A requeue Slurm left half done: pending, no longer completing, no
 * epilog running, a batch job, yet still holding its old allocation.
 * Only jobs hetsched answers for: its partitions, or one of its ops. */
static int half_done(const hs_sconf_t *conf, const hs_engine_t *e, job_record_t *job_ptr)
{
	if (!IS_JOB_PENDING(job_ptr) || IS_JOB_COMPLETING(job_ptr) || !job_ptr->batch_flag ||
	    job_ptr->epilog_running || !job_ptr->details || hs_job_startable(job_ptr))
		return 0;
	return hs_job_managed(conf, job_ptr) || has_op(e, job_ptr->job_id);
}

int hs_requeue_sweep(const hs_sconf_t *conf, const hs_engine_t *e)
{
	int finished = 0;
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job_ptr;
	while ((job_ptr = list_next(it))) {
		if (!half_done(conf, e, job_ptr))
			continue;
		info(HS_LOG_PREFIX "finishing the requeue of %pJ (its node failed while it was "
		     "completing; Slurm left its old allocation behind)", job_ptr);
		batch_requeue_fini(job_ptr);
		finished++;
	}
	list_iterator_destroy(it);
	if (finished)
		last_job_update = time(NULL);
	return finished;
}
