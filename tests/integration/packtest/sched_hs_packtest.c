/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_hs_packtest.c — TEST ONLY, never installed (built by `make check`
 * into tests/integration/packtest/.libs): SchedulerType=sched/hs_packtest.
 *
 * It drives space sharing through the very interface sched/hetsched is to
 * use (plugins/select/hetsched/hs_pack.h), so the integration tests can pack
 * jobs before the real scheduler decides pairs. Once a second, under the
 * select_nodes() locks, every pending job whose Comment is
 * "hs-pack-onto=<jobid>" is started with hs_pack_start() onto that job's
 * GPUs; and the pairs reported by hs_pack_pairs() (and, for each pair,
 * hs_pack_partner()) are logged whenever they change and after `scontrol
 * reconfigure`. Log lines start with
 * "hs_packtest:" so the tests can find them in slurmctld.log. Slurm's own
 * scheduler keeps starting every other job.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "compat/hs_slurm.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "../../../plugins/select/hetsched/hs_pack.h"

const char plugin_name[] = "hetsched packing test driver (test only)";
const char plugin_type[] = "sched/hs_packtest";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define TAG "hs-pack-onto="
#define MAX_PAIRS 64

static pthread_t agent_tid;
static pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t agent_cond = PTHREAD_COND_INITIALIZER;
static bool agent_stop;
static bool relog_pairs; /* set by sched_p_reconfig, under agent_lock */

/* The partner named in the job's comment, 0 if none or malformed. */
static uint32_t wanted_partner(job_record_t *job)
{
	const char *c = job->comment;
	char *end;
	unsigned long v;

	if (!c || strncmp(c, TAG, strlen(TAG)))
		return 0;
	errno = 0;
	v = strtoul(c + strlen(TAG), &end, 10);
	if (errno || *end || v == 0 || v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

static void pack_pending(void)
{
	static char last[300];
	job_record_t *job;
	list_itr_t *it = list_iterator_create(job_list);

	while ((job = list_next(it))) {
		uint32_t a;
		char msg[256], line[300];
		int rc;

		if (!IS_JOB_PENDING(job) || !(a = wanted_partner(job)))
			continue;
		rc = hs_pack_start(job, a, msg, sizeof(msg));
		if (rc == SLURM_SUCCESS) {
			info("hs_packtest: packed JobId=%u onto JobId=%u", job->job_id, a);
			continue;
		}
		snprintf(line, sizeof(line), "JobId=%u onto JobId=%u not started: %s", job->job_id, a, msg);
		if (strcmp(line, last)) /* once per distinct outcome */
			info("hs_packtest: %s", line);
		snprintf(last, sizeof(last), "%s", line);
	}
	list_iterator_destroy(it);
}

static void log_pairs(bool always)
{
	static char last[1024] = "?";
	uint32_t pairs[MAX_PAIRS][2];
	char *s = NULL;
	int n = hs_pack_pairs(pairs, MAX_PAIRS);

	if (n < 0)
		xstrcat(s, "unavailable");
	for (int i = 0; i < n && i < MAX_PAIRS; i++) {
		job_record_t *j0 = find_job_record(pairs[i][0]);
		job_record_t *j1 = find_job_record(pairs[i][1]);
		/* both directions of the partner query must agree */
		bool ok = j0 && j1 && hs_pack_partner(j0) == pairs[i][1] &&
			  hs_pack_partner(j1) == pairs[i][0];

		xstrfmtcat(s, "%s%u+%u%s", i ? " " : "", pairs[i][0], pairs[i][1], ok ? "" : "(partner mismatch)");
	}
	if (!s)
		xstrcat(s, "none");
	if (always || strcmp(s, last)) {
		info("hs_packtest: pairs: %s", s);
		snprintf(last, sizeof(last), "%s", s);
	}
	xfree(s);
}

static void *agent(void *arg)
{
	/* the locks select_nodes() needs */
	slurmctld_lock_t locks = HS_LOCKS_WRITE;
	int available = -1;
	bool always;

	(void)arg;
	for (;;) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		slurm_mutex_lock(&agent_lock);
		if (!agent_stop)
			slurm_cond_timedwait(&agent_cond, &agent_lock, &until);
		if (agent_stop) {
			slurm_mutex_unlock(&agent_lock);
			break;
		}
		always = relog_pairs;
		relog_pairs = false;
		slurm_mutex_unlock(&agent_lock);

		if (available < 0) {
			available = hs_pack_available();
			info("hs_packtest: packing interface %s", available ? "available" : "NOT available");
		}
		lock_slurmctld(locks);
		pack_pending();
		log_pairs(always);
		unlock_slurmctld(locks);
	}
	return NULL;
}

int init(void)
{
	info("hs_packtest: loaded (TEST ONLY: packs jobs whose comment is %s<jobid>)", TAG);
	agent_stop = false;
	hs_thread_create("hs_packtest", &agent_tid, agent, NULL);
	return SLURM_SUCCESS;
}

void fini(void)
{
	slurm_mutex_lock(&agent_lock);
	agent_stop = true;
	slurm_cond_broadcast(&agent_cond);
	slurm_mutex_unlock(&agent_lock);
	pthread_join(agent_tid, NULL);
}

/* scontrol reconfigure: the pairs are logged again (the tests check that
 * select_p_reconfigure kept them). */
int sched_p_reconfig(void)
{
	slurm_mutex_lock(&agent_lock);
	relog_pairs = true;
	slurm_mutex_unlock(&agent_lock);
	return SLURM_SUCCESS;
}
