/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpujobs.c — jobs the rounds do not place, in managed partitions: jobs
 * without GPUs, and GPU jobs whose request shape the rounds do not model
 * (--gpus-per-socket, several GPU entries; hs_job_gpu_shape_ok). With
 * Slurm's own scheduler turned off somebody must still start them, so a
 * real cluster keeps working: pending jobs in priority order (then
 * submit time), each tried with select_nodes() on any node of its
 * partition, Slurm placing it; one that does not fit does not block the
 * ones behind it (fill of free CPUs and GPUs, like backfill without
 * reservations). It runs after the round's apply, so it takes only GPUs
 * the plan left free; once running, such a GPU job holds its GPUs like
 * any job the rounds do not preempt. At most CpuFillMax attempts per
 * pass bound the time under the write locks. */
#include "config.h"

#include <stdlib.h>

#include "compat/hs_slurm.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

typedef struct cand {
	job_record_t *job_ptr;
	uint32_t prio;
	time_t submit;
	uint32_t id;
} cand_t;

static int cmp_cand(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;
	return hs_prio_order(x->prio, x->submit, x->id, y->prio, y->submit, y->id);
}

int hs_cpu_jobs_fill(const hs_sconf_t *conf)
{
	if (!conf->cpu_fill || conf->cpu_fill_max <= 0)
		return 0;
	int n = 0, cap = 0, started = 0;
	cand_t *c = NULL;
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job_ptr;
	while ((job_ptr = list_next(it))) {
		if (!IS_JOB_PENDING(job_ptr) || IS_JOB_COMPLETING(job_ptr) || job_ptr->het_job_id)
			continue;
		if (!hs_job_managed(conf, job_ptr) ||
		    (hs_job_wants_gpus(job_ptr) && hs_job_gpu_shape_ok(job_ptr)))
			continue;
		if (!hs_job_startable(job_ptr) || job_ptr->priority == 0)
			continue;
		if (n == cap) {
			int nc = cap ? cap * 2 : 64;
			cand_t *x = realloc(c, (size_t)nc * sizeof(*x));
			if (!x)
				break;
			c = x;
			cap = nc;
		}
		c[n++] = (cand_t){ .job_ptr = job_ptr, .prio = job_ptr->priority,
				   .submit = job_ptr->details->submit_time, .id = job_ptr->job_id };
	}
	list_iterator_destroy(it);
	qsort(c, (size_t)n, sizeof(*c), cmp_cand);
	int attempts = 0;
	for (int i = 0; i < n && attempts < conf->cpu_fill_max; i++) {
		job_ptr = c[i].job_ptr;
		if (!job_independent(job_ptr))
			continue;
		attempts++;
		if (hs_start_in_partitions(conf, job_ptr, NULL,
					   hs_job_wants_gpus(job_ptr) ? "GPU shape placed by Slurm"
								      : "no GPUs") == SLURM_SUCCESS)
			started++;
	}
	free(c);
	return started;
}
