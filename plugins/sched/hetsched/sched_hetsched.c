/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_hetsched.c — the sched/hetsched Slurm plugin (SchedulerType=sched/hetsched):
 * heterogeneity-aware rounds inside slurmctld (see sched_hetsched(8)).
 *
 * This file holds only the entry points: init() starts the scheduling
 * thread (agent.c), fini() stops and joins it, sched_p_reconfig() asks it
 * to re-read hetsched.conf. The thread snapshots slurmctld's state under
 * read locks, runs the Slurm-free round engine (src/sched) with no lock,
 * and applies the plan under write locks. Slurm's own FIFO loop must be
 * off (SchedulerParameters=defer,sched_interval=-1); otherwise the thread
 * logs an error and stays passive.
 */
#include "config.h"

#include <pthread.h>

#include "compat/hs_slurm.h"
#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

const char plugin_name[] = "hetsched heterogeneity-aware GPU scheduler";
const char plugin_type[] = "sched/hetsched";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static pthread_t agent_thread;
static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;

int init(void)
{
	if (slurmctld_config.scheduling_disabled)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&thread_lock);
	if (agent_thread) {
		slurm_mutex_unlock(&thread_lock);
		return SLURM_ERROR;
	}
	hs_thread_create("hetsched", &agent_thread, hs_agent, NULL);
	slurm_mutex_unlock(&thread_lock);
	/* The integration tests look for this line in slurmctld.log. */
	info("sched/hetsched: loaded (rounds run in the hetsched thread)");
	return SLURM_SUCCESS;
}

void fini(void)
{
	slurm_mutex_lock(&thread_lock);
	if (agent_thread) {
		hs_agent_stop();
		pthread_join(agent_thread, NULL);
		agent_thread = 0;
	}
	slurm_mutex_unlock(&thread_lock);
	info("sched/hetsched: unloaded");
}

/* Called on `scontrol reconfigure` (a rebuilt .so needs a restart): the
 * thread re-reads hetsched.conf at its next tick, outside any lock. */
int sched_p_reconfig(void)
{
	hs_agent_reconfig();
	info("sched/hetsched: reconfigured (hetsched.conf is re-read)");
	return SLURM_SUCCESS;
}
