/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hetjobs.c — heterogeneous jobs (sbatch/salloc with `:` or #SBATCH
 * hetjob) are refused with a reason. In Slurm only backfill starts het
 * jobs: the main scheduler's loop skips every component (job_scheduler.c,
 * "if (job_ptr->het_job_id) goto fail_this_part"), and sched/hetsched
 * replaces backfill and turns that loop off. Starting all components
 * together needs backfill's joint plan over time, which the rounds do not
 * make; so a het job would stay pending forever with no reason. Instead
 * every component is cancelled the first time the thread sees it, with a
 * reason that scontrol, squeue -t all and sacct show, and a waiting
 * salloc/srun is told at once (as Slurm does for a dependency that can
 * never be satisfied). */
#include "config.h"

#include <time.h>

#include "compat/hs_slurm.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

const char hs_hetjob_reason[] =
	"sched/hetsched does not run heterogeneous jobs (hetjob components); "
	"submit each component as its own job";

static void refuse_one(job_record_t *job_ptr, time_t now)
{
	info(HS_LOG_PREFIX "cancelling %pJ: heterogeneous jobs are not supported", job_ptr);
	hs_job_state_set(job_ptr, JOB_CANCELLED);
	job_ptr->state_reason = FAIL_BAD_CONSTRAINTS;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(hs_hetjob_reason);
	job_ptr->start_time = now;
	job_ptr->end_time = now;
	job_completion_logger(job_ptr, false);
	srun_allocate_abort(job_ptr);
}

int hs_refuse_het_jobs(void)
{
	time_t now = time(NULL);
	int n = 0;
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job_ptr;
	/* Every pending component, leader or not, whether its leader is
	 * still there or purged: nobody would start any of them. A component
	 * that runs (started by backfill before a switch to hetsched) is left
	 * to finish. One pass, no lookups: this runs under the write locks. */
	while ((job_ptr = list_next(it))) {
		if (!job_ptr->het_job_id || !IS_JOB_PENDING(job_ptr))
			continue;
		refuse_one(job_ptr, now);
		n++;
	}
	list_iterator_destroy(it);
	if (n)
		last_job_update = now;
	return n;
}
