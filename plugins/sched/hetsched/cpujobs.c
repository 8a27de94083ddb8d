/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpujobs.c — jobs the rounds do not place: in managed partitions, jobs
 * without GPUs and GPU jobs whose request shape the rounds do not model
 * (--gpus-per-socket, several GPU entries; hs_job_gpu_shape_ok); every
 * job of partitions not in Partitions= (hetsched.conf). With
 * Slurm's own scheduler turned off somebody must still start them, so a
 * real cluster keeps working: pending jobs in priority order (then
 * submit time), each tried with select_nodes() on any node of its
 * partition, Slurm placing it; one that does not fit does not block the
 * ones behind it (fill of free CPUs and GPUs, like backfill without
 * reservations). GPU jobs of managed partitions are filled only right
 * after a round's apply (gpu_shapes), so they take only GPUs the plan
 * left free: GPUs freed between rounds wait for the next (early) round,
 * whose plan may give them to a job ahead in the policy's order, instead
 * of going to whichever odd shape the next tick finds (issue 28 item 3).
 * Once running, such a GPU job holds its GPUs like any job the rounds do
 * not preempt, and its GPU time counts against its user's share (pinned
 * GPUs, PinnedCharge). At most CpuFillMax attempts per pass bound the
 * time under the write locks. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "compat/hs_slurm.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

typedef struct cand {
	uint32_t id;
	uint32_t prio;
	time_t submit;
} cand_t;

static int cmp_cand(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;
	return hs_prio_order(x->prio, x->submit, x->id, y->prio, y->submit, y->id);
}

/* Pending and possibly startable, from flags alone: what the walk of the
 * whole job list may test without yielding (no list or string work). */
static int cheap_candidate(const job_record_t *job_ptr)
{
	return IS_JOB_PENDING(job_ptr) && !IS_JOB_COMPLETING(job_ptr) && !job_ptr->het_job_id &&
	       job_ptr->priority != 0 && job_ptr->details;
}

/* A job the fill starts, startable now: one of a managed partition
 * without GPUs or with a GPU shape the rounds do not model, or any job of
 * partitions hetsched does not manage (Partitions=): with Slurm's own
 * scheduler off nobody else would start it. */
static int fill_candidate(const hs_sconf_t *conf, job_record_t *job_ptr, int gpu_shapes)
{
	if (!cheap_candidate(job_ptr) || !hs_job_startable(job_ptr))
		return 0;
	if (!hs_job_managed(conf, job_ptr))
		return 1;
	if (!hs_job_wants_gpus(job_ptr))
		return 1;
	return gpu_shapes && !hs_job_gpu_shape_ok(job_ptr);
}

/* Why the fill started it (SystemComment). */
static const char *fill_why(const hs_sconf_t *conf, job_record_t *job_ptr)
{
	if (!hs_job_managed(conf, job_ptr))
		return "partition not managed by hetsched";
	return hs_job_wants_gpus(job_ptr) ? "GPU shape placed by Slurm" : "no GPUs";
}

/* After a start the fill tried and Slurm refused: the round's reason
 * back, unless Slurm now names a reason of its own other than resources
 * (a limit, a hold). */
static void keep_reason(job_record_t *job_ptr, const char *ours)
{
	if (!ours || !IS_JOB_PENDING(job_ptr) ||
	    (job_ptr->state_reason != WAIT_RESOURCES && job_ptr->state_reason != WAIT_NO_REASON))
		return;
	job_ptr->state_reason = WAIT_RESOURCES;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(ours);
}

/* The ids of the pending jobs, in one walk of the job list (a list
 * iteration cannot yield); NULL when out of memory. */
static cand_t *pending_ids(int *n)
{
	*n = 0;
	int cap = job_list ? list_count(job_list) : 0;
	cand_t *c = malloc(((size_t)cap + 1) * sizeof(*c));
	if (!c || !job_list)
		return c;
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job_ptr;
	while ((job_ptr = list_next(it)) && *n < cap)
		if (cheap_candidate(job_ptr))
			c[(*n)++] = (cand_t){ .id = job_ptr->job_id };
	list_iterator_destroy(it);
	return c;
}

/* Three steps, so that the locks may be yielded between jobs (the hold,
 * lockhold.c; at 10,000 queued GPU jobs the per-job tests of one walk
 * were the round's longest unit, 28 ms mean, doc/scale.md): the pending
 * ids from flags alone, then each job found by id and tested, then the
 * attempts in priority order, each job found again by id. */
int hs_cpu_jobs_fill(const hs_sconf_t *conf, hs_lock_hold_t *hold, int gpu_shapes)
{
	if (!conf->cpu_fill || conf->cpu_fill_max <= 0)
		return 0;
	int n = 0, keep = 0, started = 0, attempts = 0;
	cand_t *c = pending_ids(&n);
	if (!c)
		return 0;
	for (int i = 0; i < n; i++) {
		(void)hs_hold_yield(hold);
		job_record_t *job_ptr = find_job_record(c[i].id);
		if (!job_ptr || !fill_candidate(conf, job_ptr, gpu_shapes))
			continue;
		c[keep++] = (cand_t){ .id = job_ptr->job_id, .prio = job_ptr->priority,
				      .submit = job_ptr->details->submit_time };
	}
	qsort(c, (size_t)keep, sizeof(*c), cmp_cand);
	for (int i = 0; i < keep && attempts < conf->cpu_fill_max; i++) {
		(void)hs_hold_yield(hold);
		job_record_t *job_ptr = find_job_record(c[i].id);
		int rc;
		if (!job_ptr || !fill_candidate(conf, job_ptr, gpu_shapes) ||
		    hs_may_start(job_ptr, &rc) != HS_OUT_DONE)
			continue;
		attempts++;
		/* a failed select_nodes() replaces the reason; the round's
		 * own (why a GPU shape waits, engine_plan.c) says more */
		char *ours = job_ptr->state_desc && !strncmp(job_ptr->state_desc, HS_REASON_PREFIX, strlen(HS_REASON_PREFIX))
				     ? xstrdup(job_ptr->state_desc) : NULL;
		if (hs_start(conf, job_ptr, HS_WHERE_ANY, NULL, NULL, NULL, 0,
			     fill_why(conf, job_ptr)) ==
		    SLURM_SUCCESS)
			started++;
		else
			keep_reason(job_ptr, ours);
		xfree(ours);
	}
	free(c);
	return started;
}
