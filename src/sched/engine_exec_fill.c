/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_exec_fill.c — what follows a start Slurm refused (exec.h):
 * whether the fallback on the job's GPU type applies, and the refill,
 * which gives the GPUs of a start refused for good, in the same pass, to
 * the next job the priority order would pick: a pending job of the round
 * that the plan left pending, needs exactly that many GPUs, may use those
 * nodes (Slurm's node mask from the snapshot) and can take their GPU
 * type. So a refused job holds GPUs for at most this one round; the next
 * snapshot asks Slurm again and leaves it out while Slurm would not start
 * it. */
#include "sched/engine_exec_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hs_exec_target_was_free(const hs_snap_t *s, const hs_target_t *t)
{
	if (t->partner || t->nnodes <= 0)
		return 0; /* packed onto a running partner: its GPUs are held */
	for (int k = 0; k < t->nnodes; k++) {
		int n = t->nodes[k].node, nfree = 0;
		if (n < 0 || n >= s->nnodes || !s->nodes[n].gpu_held)
			return 0;
		for (int g = 0; g < s->nodes[n].ngpus; g++)
			nfree += !s->nodes[n].gpu_held[g];
		if (nfree < t->nodes[k].gpus)
			return 0;
	}
	return 1;
}

/* The plan models a job's GPUs, not every part of its request (CPUs or
 * memory per GPU beyond one node, a node count to spread over), so the
 * planned nodes may not hold it: Slurm says so (CONFIG), or says "busy"
 * although the planned GPUs were free (memory or CPUs held by jobs that
 * stay, an --exclusive job next to them). Then Slurm places it on any
 * nodes of the planned GPU type, so that the same refusal does not
 * repeat round after round. Other refusals (limits, holds, reservations)
 * would be refused there too. */
int hs_exec_wants_fallback(const hs_snap_t *s, const hs_act_t *a)
{
	if (a->out != HS_OUT_REFUSED || a->where != HS_WHERE_NODES || !a->target ||
	    a->target->partner)
		return 0;
	if (a->refusal == HS_REFUSE_CONFIG)
		return 1;
	return a->refusal == HS_REFUSE_BUSY && hs_exec_target_was_free(s, a->target);
}

/* Can snapshot job sj take exactly the refused target t? */
static int fits_target(const hs_snap_t *s, const hs_sjob_t *sj, const hs_target_t *t)
{
	int total = 0;
	for (int k = 0; k < t->nnodes; k++) {
		int n = t->nodes[k].node;
		if (n < 0 || n >= s->nnodes || (sj->node_ok && !sj->node_ok[n]))
			return 0;
		if (sj->gpu_type && (!s->nodes[n].gpu_type ||
				     strcmp(sj->gpu_type, s->nodes[n].gpu_type)))
			return 0;
		if (sj->gpus_per_node > 0 && t->nodes[k].gpus != sj->gpus_per_node)
			return 0;
		total += t->nodes[k].gpus;
	}
	return total == sj->gpus && total > 0;
}

int hs_exec_refill_init(hs_exec_t *x)
{
	const hs_plan_t *p = x->plan;
	const hs_snap_t *s = x->s;
	hs_queue_key_t *k = malloc(((size_t)p->njobs + 1) * sizeof(*k));
	int *plan_of = malloc(((size_t)s->njobs + 1) * sizeof(int)); /* snapshot -> plan */
	x->cands = malloc(((size_t)p->njobs + 1) * sizeof(int));
	x->batch_r = malloc(((size_t)p->njobs + 1) * sizeof(int));
	if (!k || !plan_of || !x->cands || !x->batch_r) {
		free(k);
		free(plan_of);
		return -1;
	}
	int n = 0;
	for (int i = 0; i < p->njobs; i++) {
		const hs_plan_job_t *pj = &p->jobs[i];
		if (pj->op != HS_PLAN_NONE || pj->state != HS_SJ_PENDING || pj->snap < 0 ||
		    pj->snap >= s->njobs || !s->jobs[pj->snap].eligible)
			continue;
		plan_of[pj->snap] = i;
		k[n++] = hs_queue_key(s, pj->snap, 0);
	}
	qsort(k, (size_t)n, sizeof(*k), hs_queue_key_cmp);
	for (int a = 0; a < n; a++)
		x->cands[a] = plan_of[k[a].snap];
	x->ncands = n;
	free(k);
	free(plan_of);
	return 0;
}

/* Is plan entry r a refused target still to be given away? */
static int open_target(const hs_exec_t *x, int r)
{
	const hs_plan_job_t *rj = &x->plan->jobs[r];
	return (x->flags[r] & (HS_XE_REFUSED | HS_XE_FILLED)) == HS_XE_REFUSED &&
	       rj->target.nnodes > 0 && !rj->target.partner &&
	       x->refill_tries[r] < HS_REFILL_TRIES;
}

int hs_exec_refill_batch(hs_exec_t *x)
{
	const hs_plan_t *p = x->plan;
	int added = 0;
	for (int r = 0; r < p->njobs; r++) {
		if (!open_target(x, r))
			continue;
		const hs_plan_job_t *rj = &p->jobs[r];
		int k = x->refill_next[r];
		for (; k < x->ncands; k++) {
			int c = x->cands[k];
			if (!(x->flags[c] & (HS_XE_TAKEN | HS_XE_STARTED)) &&
			    fits_target(x->s, &x->s->jobs[p->jobs[c].snap], &rj->target))
				break;
		}
		x->refill_next[r] = k + 1;
		if (k >= x->ncands)
			continue; /* nobody fits: the GPUs stay free this round */
		int c = x->cands[k];
		hs_act_t *a = hs_exec_add_plan(x, HS_DO_START, c);
		if (!a)
			return -1;
		x->flags[c] |= HS_XE_TAKEN;
		snprintf(x->why[c], sizeof(x->why[c]), "GPUs of JobId=%u, which Slurm refused",
			 rj->id);
		a->why = x->why[c];
		a->where = HS_WHERE_NODES;
		a->target = &rj->target;
		a->type = rj->type_name;
		x->batch_r[x->batch.n - 1] = r;
		added++;
	}
	return added;
}

void hs_exec_refill_done(hs_exec_t *x)
{
	for (int b = 0; b < x->batch.n; b++) {
		const hs_act_t *a = &x->batch.a[b];
		int r = x->batch_r[b], c = a->plan;
		const hs_plan_job_t *rj = &x->plan->jobs[r];
		if (a->out == HS_OUT_DONE) {
			x->flags[c] |= HS_XE_STARTED;
			x->flags[r] |= HS_XE_FILLED;
			x->c.started++;
			x->c.refilled++;
			snprintf(x->reason[c], sizeof(x->reason[c]),
				 HS_REASON_PREFIX "%ld: started on the GPUs of JobId=%u, which Slurm "
				 "refused", x->plan->round, rj->id);
			/* the engine counts it like a planned start, on the
			 * refused job's nodes (the plan keeps owning both) */
			hs_plan_job_t done = x->plan->jobs[c];
			done.op = HS_PLAN_START;
			done.target = rj->target;
			done.type_name = rj->type_name;
			hs_err_t err;
			if (hs_engine_applied(x->e, &done, 1, x->now, 0, &err) < 0)
				hs_engine_logf(x->e, HS_LOG_ERROR, "job %u: %s", done.id, err.msg);
			continue;
		}
		if (a->out == HS_OUT_GONE)
			x->c.vanished++;
		/* a job that may not start now at all (gone, still cleaned
		 * up, held) was no attempt at the GPUs: not counted */
		if (a->out == HS_OUT_GONE || a->out == HS_OUT_WAIT ||
		    (a->out == HS_OUT_REFUSED && a->refusal == HS_REFUSE_HELD))
			continue;
		x->refill_tries[r]++;
	}
}
