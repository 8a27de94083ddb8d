/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_warn.c — "log it once" for per-job problems the round engine
 * works around every round (a job on GPUs the snapshot does not model, a
 * job the policy cannot solve with): which jobs were logged for what,
 * sorted by job id, forgotten when the job leaves the snapshot (so a job
 * that comes back is logged again). */
#include "sched/engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* Position of id in e->warned, or where it would go. */
static int warned_pos(const hs_engine_t *e, uint32_t id)
{
	int lo = 0, hi = e->nwarned;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (e->warned[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int hs_warn_once(hs_engine_t *e, uint32_t id, unsigned kind)
{
	int k = warned_pos(e, id);
	if (k < e->nwarned && e->warned[k].id == id) {
		if (e->warned[k].kinds & kind)
			return 0;
		e->warned[k].kinds |= kind;
		return 1;
	}
	if (e->nwarned == e->cap_warned) {
		int cap = e->cap_warned ? e->cap_warned * 2 : 16;
		hs_warned_t *n = realloc(e->warned, (size_t)cap * sizeof(*n));
		if (!n)
			return -1;
		e->warned = n;
		e->cap_warned = cap;
	}
	memmove(&e->warned[k + 1], &e->warned[k], (size_t)(e->nwarned - k) * sizeof(*e->warned));
	e->warned[k] = (hs_warned_t){ .id = id, .kinds = kind };
	e->nwarned++;
	return 1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

void hs_warn_prune(hs_engine_t *e, const hs_snap_t *s)
{
	if (!e->nwarned)
		return;
	uint32_t *ids = malloc(((size_t)s->njobs + 1) * sizeof(*ids));
	if (!ids)
		return; /* keep them: at worst a message is not repeated */
	for (int i = 0; i < s->njobs; i++)
		ids[i] = s->jobs[i].id;
	qsort(ids, (size_t)s->njobs, sizeof(*ids), cmp_u32);
	int k = 0;
	for (int i = 0; i < e->nwarned; i++)
		if (bsearch(&e->warned[i].id, ids, (size_t)s->njobs, sizeof(*ids), cmp_u32))
			e->warned[k++] = e->warned[i];
	e->nwarned = k;
	free(ids);
}

void hs_warn_free(hs_engine_t *e)
{
	free(e->warned);
	e->warned = NULL;
	e->nwarned = e->cap_warned = 0;
}
