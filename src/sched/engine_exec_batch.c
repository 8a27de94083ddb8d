/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_exec_batch.c — the leaves of an execution pass (exec.h): a
 * batch's acts, the nodes deferred starts keep, the plan entries by job
 * id, and the texts and counters of refused starts. The pass
 * (engine_exec.c), the refill (engine_exec_fill.c) and the ops pass
 * (engine_exec_ops.c) call these; they call none of them. */
#include "sched/engine_exec_impl.h"

#include <stdlib.h>
#include <string.h>

hs_act_t *hs_exec_add(hs_exec_t *x, hs_act_kind_t kind, uint32_t id)
{
	hs_acts_t *b = &x->batch;
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 64;
		hs_act_t *n = realloc(b->a, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL;
		b->a = n;
		b->cap = cap;
	}
	hs_act_t *a = &b->a[b->n++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->id = a->job = id;
	a->plan = -1;
	return a;
}

/* A start deferred in a pass keeps its target: the fallbacks that
 * follow (Slurm placing a job on any node of a type, or of any type)
 * leave those nodes out, so they cannot take the part of the target
 * that is free already and make the deferred start fail at its retry.
 * Out of memory: the node is simply not avoided. */
void hs_exec_reserve(hs_exec_t *x, const hs_target_t *t)
{
	for (int k = 0; k < t->nnodes; k++) {
		const char *name = t->nodes[k].name;
		int seen = !name || !*name;
		for (int i = 0; i < x->navoid && !seen; i++)
			seen = !strcmp(x->avoid[i], name);
		if (seen)
			continue;
		if (x->navoid == x->cap_avoid) {
			int cap = x->cap_avoid ? 2 * x->cap_avoid : 8;
			const char **a = realloc(x->avoid, (size_t)cap * sizeof(*a));
			if (!a)
				return;
			x->avoid = a;
			x->cap_avoid = cap;
		}
		x->avoid[x->navoid++] = name;
	}
}

/* A start where Slurm picks the nodes: never a deferred start's. */
void hs_exec_set_avoid(const hs_exec_t *x, hs_act_t *a)
{
	if (a->where != HS_WHERE_TYPE && a->where != HS_WHERE_ANY)
		return;
	a->avoid = x->avoid;
	a->navoid = x->navoid;
}

hs_act_t *hs_exec_add_plan(hs_exec_t *x, hs_act_kind_t kind, int i)
{
	const hs_plan_job_t *pj = &x->plan->jobs[i];
	const hs_snap_t *s = x->s;
	/* an extra task slot of a job array acts on the array's record */
	uint32_t id = pj->snap >= 0 && pj->snap < s->njobs && s->jobs[pj->snap].id == pj->id
			      ? hs_sjob_act_id(&s->jobs[pj->snap]) : pj->id;
	hs_act_t *a = hs_exec_add(x, kind, id);
	if (!a)
		return NULL;
	a->job = pj->id;
	a->plan = i;
	a->check_state = 1;
	a->state = pj->state;
	a->restart_cnt = pj->restart_cnt;
	a->start_time = pj->start_time;
	a->why = pj->reason;
	return a;
}

/* Keys (job id << 32 | plan index) sort by id without a context. */
static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

static int index_by_id(hs_exec_t *x)
{
	const int n = x->plan->njobs;
	uint64_t *k = malloc(((size_t)n + 1) * sizeof(*k));
	x->by_id = malloc(((size_t)n + 1) * sizeof(int));
	if (!k || !x->by_id) {
		free(k);
		return -1;
	}
	for (int i = 0; i < n; i++)
		k[i] = ((uint64_t)x->plan->jobs[i].id << 32) | (uint32_t)i;
	qsort(k, (size_t)n, sizeof(*k), cmp_u64);
	for (int i = 0; i < n; i++)
		x->by_id[i] = (int)(k[i] & 0xffffffffu);
	free(k);
	return 0;
}

int hs_exec_plan_index(hs_exec_t *x, uint32_t id)
{
	/* built at the first lookup: most passes need none (no pairs, no
	 * time slicing) */
	if (!x->by_id && x->plan && index_by_id(x) < 0)
		return -1;
	int lo = 0, hi = x->plan ? x->plan->njobs - 1 : -1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		uint32_t v = x->plan->jobs[x->by_id[mid]].id;
		if (v == id)
			return x->by_id[mid];
		if (v < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int hs_exec_notes(hs_exec_t *x)
{
	if (x->reason)
		return 0;
	const size_t n = (size_t)x->plan->njobs + 1;
	x->refmsg = calloc(n, sizeof(*x->refmsg));
	x->refill_next = calloc(n, sizeof(int));
	x->refill_tries = calloc(n, sizeof(int));
	x->why = calloc(n, sizeof(*x->why));
	x->reason = calloc(n, sizeof(*x->reason));
	if (x->refmsg && x->refill_next && x->refill_tries && x->why && x->reason)
		return 0;
	free(x->refmsg);
	free(x->refill_next);
	free(x->refill_tries);
	free(x->why);
	free(x->reason);
	x->refmsg = NULL;
	x->refill_next = x->refill_tries = NULL;
	x->why = NULL;
	x->reason = NULL;
	return -1;
}

