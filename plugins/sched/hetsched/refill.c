/* SPDX-License-Identifier: GPL-2.0-or-later */
/* refill.c — when slurmctld refuses a planned start (select_nodes()
 * fails for a reason other than "GPUs still busy"), the GPUs the plan
 * gave that job go, in the same apply pass, to the next job the priority
 * order would pick: a pending job of the round that the plan left
 * pending, needs exactly that many GPUs, may use those nodes (Slurm's
 * node mask from the snapshot) and can take their GPU type. So a refused
 * job holds GPUs for at most this one round; the next snapshot asks Slurm
 * again and leaves it out while Slurm would not start it. Write locks
 * held (apply.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

/* Attempts per refused start, to bound the time under write locks. */
#define HS_REFILL_TRIES 8

typedef struct cand {
	int plan;            /* index into plan->jobs */
	uint32_t prio;
	int64_t submit;
	uint32_t id;
} cand_t;

static int cmp_cand(const void *pa, const void *pb)
{
	const cand_t *a = pa, *b = pb;
	return hs_prio_order(a->prio, a->submit, a->id, b->prio, b->submit, b->id);
}

/* Can snapshot job sj take exactly the refused target of rj? */
static int fits_target(const hs_snap_t *s, const hs_sjob_t *sj, const hs_plan_job_t *rj)
{
	int total = 0;
	for (int k = 0; k < rj->target.nnodes; k++) {
		int n = rj->target.nodes[k].node;
		if (n < 0 || n >= s->nnodes || (sj->node_ok && !sj->node_ok[n]))
			return 0;
		if (sj->gpu_type && (!s->nodes[n].gpu_type ||
				     strcmp(sj->gpu_type, s->nodes[n].gpu_type)))
			return 0;
		if (sj->gpus_per_node > 0 && rj->target.nodes[k].gpus != sj->gpus_per_node)
			return 0;
		total += rj->target.nodes[k].gpus;
	}
	return total == sj->gpus && total > 0;
}

int hs_refill(hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
	      const int *refused, int nrefused, unsigned char *taken, time_t now,
	      hs_round_stats_t *st, hs_lock_hold_t *hold)
{
	if (nrefused <= 0)
		return 0;
	cand_t *c = malloc(((size_t)plan->njobs + 1) * sizeof(*c));
	if (!c)
		return 0;
	int n = 0;
	for (int i = 0; i < plan->njobs; i++) {
		const hs_plan_job_t *pj = &plan->jobs[i];
		if (pj->op != HS_PLAN_NONE || pj->state != HS_SJ_PENDING || pj->snap < 0 ||
		    pj->snap >= s->njobs || !s->jobs[pj->snap].eligible)
			continue;
		const hs_sjob_t *sj = &s->jobs[pj->snap];
		c[n++] = (cand_t){ .plan = i, .prio = sj->priority, .submit = sj->submit_time,
				   .id = sj->id };
	}
	qsort(c, (size_t)n, sizeof(*c), cmp_cand);
	int started = 0;
	for (int r = 0; r < nrefused; r++) {
		const hs_plan_job_t *rj = &plan->jobs[refused[r]];
		int tries = 0;
		for (int k = 0; k < n && tries < HS_REFILL_TRIES; k++) {
			const hs_plan_job_t *pj = &plan->jobs[c[k].plan];
			if (taken[c[k].plan] || !fits_target(s, &s->jobs[pj->snap], rj))
				continue;
			(void)hs_hold_yield(hold); /* the job is found by id below */
			job_record_t *job_ptr =
				find_job_record(hs_sjob_act_id(&s->jobs[pj->snap]));
			if (!job_ptr || !IS_JOB_PENDING(job_ptr) || !hs_job_startable(job_ptr) ||
			    job_ptr->priority == 0)
				continue;
			tries++;
			taken[c[k].plan] = 1;
			char why[256];
			snprintf(why, sizeof(why), "GPUs of JobId=%u, which Slurm refused", rj->id);
			if (hs_start_on_nodes(job_ptr, &rj->target, why) != SLURM_SUCCESS)
				continue;
			st->started++;
			started++;
			/* the engine counts it like a planned start (on the
			 * refused job's nodes; the plan keeps owning both) */
			hs_plan_job_t done = *pj;
			done.op = HS_PLAN_START;
			done.target.nnodes = rj->target.nnodes;
			done.target.nodes = rj->target.nodes;
			hs_err_t err;
			(void)hs_engine_applied(e, &done, 1, now, 0, &err);
			break;
		}
	}
	free(c);
	return started;
}
