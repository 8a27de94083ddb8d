/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_hetsched.c — the sched/hetsched Slurm plugin (SchedulerType=sched/hetsched):
 * heterogeneity-aware rounds inside slurmctld (see sched_hetsched(8)).
 *
 * This file holds only the entry points: init() checks hetsched.conf
 * (a bad one makes init fail, so slurmctld exits with the reason in its
 * log) and starts the scheduling thread (agent.c) with it, fini() stops and joins it, sched_p_reconfig() asks it
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
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

const char plugin_name[] = "hetsched heterogeneity-aware GPU scheduler";
const char plugin_type[] = "sched/hetsched";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static pthread_t agent_thread;
static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;

/* Reads and checks hetsched.conf the way the thread will use it (values,
 * then the engine: throughput tables, policy). NULL with the reason
 * logged when it is bad: like a bad slurm.conf, a bad hetsched.conf
 * stops slurmctld at startup rather than running on defaults nobody
 * asked for. A missing file means the defaults. */
static hs_sconf_t *startup_conf(void)
{
	char why[600], *path = get_extra_conf_path("hetsched.conf");
	hs_sconf_t *c = xmalloc(sizeof(*c));
	hs_err_t err;
	int r = hs_conf_load(path, c, why, sizeof(why));
	if (r < 0) {
		error(HS_LOG_PREFIX "bad configuration, %s: slurmctld does not start until "
		      "hetsched.conf is fixed", why);
		xfree(c);
		xfree(path);
		return NULL;
	}
	if (r == 1)
		info(HS_LOG_PREFIX "%s not found: using the defaults", path);
	xfree(path);
	hs_engine_t *e = hs_engine_new(c, NULL, NULL, &err);
	if (!e) {
		error(HS_LOG_PREFIX "bad configuration, %s: slurmctld does not start until "
		      "hetsched.conf is fixed", err.msg);
		hs_sconf_free(c);
		xfree(c);
		return NULL;
	}
	hs_engine_free(e);
	return c;
}

int init(void)
{
	hs_sconf_t *conf = startup_conf();
	if (!conf)
		return SLURM_ERROR;
	if (slurmctld_config.scheduling_disabled) {
		hs_sconf_free(conf);
		xfree(conf);
		return SLURM_SUCCESS;
	}
	slurm_mutex_lock(&thread_lock);
	if (agent_thread) {
		slurm_mutex_unlock(&thread_lock);
		hs_sconf_free(conf);
		xfree(conf);
		return SLURM_ERROR;
	}
	/* the thread owns conf from here */
	hs_thread_create("hetsched", &agent_thread, hs_agent, conf);
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
