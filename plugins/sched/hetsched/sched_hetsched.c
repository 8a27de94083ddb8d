/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_hetsched.c — the sched/hetsched Slurm plugin (SchedulerType=sched/hetsched):
 * heterogeneity-aware rounds inside slurmctld (see sched_hetsched(8)).
 *
 * This file holds only the entry points: init() checks hetsched.conf
 * (a bad one makes init fail, so slurmctld exits with the reason in its
 * log, except on a restart for reconfigure, which keeps the last good
 * copy: conf_lastgood.h) and starts the scheduling thread (agent.c) with it, fini() stops and joins it, sched_p_reconfig() asks it
 * to re-read hetsched.conf. The thread snapshots slurmctld's state under
 * read locks, runs the Slurm-free round engine (src/sched) with no lock,
 * and applies the plan under write locks. Slurm's own FIFO loop must be
 * off (SchedulerParameters=defer,sched_interval=-1); otherwise the thread
 * logs an error and stays passive.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>

#include "compat/hs_slurm.h"
#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"
#include "sched/conf_lastgood.h"

const char plugin_name[] = "hetsched heterogeneity-aware GPU scheduler";
const char plugin_type[] = "sched/hetsched";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static pthread_t agent_thread;
static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;

/* Reads and checks hetsched.conf the way the thread will use it (values,
 * then the engine: throughput tables, policy): 0 (1 for a missing file,
 * the defaults) with *c filled, or -1 with the reason in why. */
static int check_conf(const char *path, hs_sconf_t *c, char *why, size_t len)
{
	hs_err_t err;
	int r = hs_conf_load(path, c, why, len);
	if (r < 0)
		return -1;
	hs_engine_t *e = hs_engine_new(c, NULL, NULL, &err);
	if (!e) {
		snprintf(why, len, "%s", err.msg);
		hs_sconf_free(c);
		hs_heap_release();
		return -1;
	}
	hs_engine_free(e);
	hs_heap_release();
	return r;
}

/* hetsched.conf is bad: on a restart for `scontrol reconfigure` (the new
 * process, or the old one resuming after that failed) the last good copy
 * is loaded instead, so a typo does not take slurmctld down. 0 with *c
 * filled, -1 when there is no usable copy or this is a cold start. */
static int fallback_conf(const char *ssl, hs_sconf_t *c, const char *why)
{
	char path[4096];
	hs_err_t err;
	int same = 0, reconf = hs_slurmctld_reconf_restart();
	int r = hs_conf_last_good_load(ssl, c, &same, path, sizeof(path), &err);
	if (r < 0)
		error(HS_LOG_PREFIX "%s", err.msg);
	if (r <= 0)
		return -1;
	if (!reconf && !same) { /* a cold start */
		hs_sconf_free(c);
		return -1;
	}
	/* the tables it names may have changed since */
	hs_engine_t *e = hs_engine_new(c, NULL, NULL, &err);
	if (!e) {
		error(HS_LOG_PREFIX "the last good configuration %s cannot run either: %s",
		      path, err.msg);
		hs_sconf_free(c);
		return -1;
	}
	hs_engine_free(e);
	hs_heap_release();
	error(HS_LOG_PREFIX "hetsched.conf is bad (%s): keeping the last good configuration "
	      "from %s until it is fixed", why, path);
	return 0;
}

/* The configuration init() starts with, NULL with the reason logged:
 * like a bad slurm.conf, a bad hetsched.conf stops slurmctld at a cold
 * start rather than running on defaults nobody asked for (but see
 * fallback_conf). A missing file means the defaults. Every good load is
 * saved as the last good copy in StateSaveLocation. */
static hs_sconf_t *startup_conf(void)
{
	char why[600], *path = get_extra_conf_path("hetsched.conf");
	/* init() runs in slurmctld's main thread, before any thread of ours,
	 * with slurm.conf read: no lock needed to read it */
	const char *ssl = slurm_conf.state_save_location;
	hs_sconf_t *c = xmalloc(sizeof(*c));
	hs_err_t err;
	int r = check_conf(path, c, why, sizeof(why));
	if (r < 0 && (!ssl || fallback_conf(ssl, c, why) < 0)) {
		error(HS_LOG_PREFIX "bad configuration, %s: slurmctld does not start until "
		      "hetsched.conf is fixed", why);
		xfree(c);
		xfree(path);
		return NULL;
	}
	if (r == 1)
		info(HS_LOG_PREFIX "%s not found: using the defaults", path);
	/* also after a fallback: this process now runs the copy (see
	 * conf_lastgood.h on the writing process) */
	if (ssl && hs_conf_last_good_save(ssl, c, path, &err) < 0)
		error(HS_LOG_PREFIX "cannot save the last good configuration: %s", err.msg);
	xfree(path);
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
