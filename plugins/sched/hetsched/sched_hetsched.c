/*
 * sched_hetsched.c — the sched/hetsched Slurm plugin (SchedulerType=sched/hetsched).
 *
 * Today it only loads, logs and answers sched_p_reconfig: jobs are started by
 * Slurm's built-in FIFO scheduler (job_scheduler.c:_schedule), which runs
 * beside any sched plugin unless SchedulerParameters turns it off. The
 * round-based heterogeneity-aware loop is issue 5; it will live in its own
 * files here, with this file staying the plugin's entry points.
 */
#include "config.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"

const char plugin_name[] = "hetsched heterogeneity-aware GPU scheduler";
const char plugin_type[] = "sched/hetsched";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void)
{
	/* The integration tests look for this line in slurmctld.log. */
	info("sched/hetsched: loaded (Slurm's built-in scheduler starts jobs)");
	return SLURM_SUCCESS;
}

void fini(void)
{
	info("sched/hetsched: unloaded");
}

/* Called on `scontrol reconfigure` (a rebuilt .so needs a restart). */
int sched_p_reconfig(void)
{
	info("sched/hetsched: reconfigured");
	return SLURM_SUCCESS;
}
