/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_acct.c — per-job accounting of the round engine: time received
 * on each GPU type (since the last allocation reset and in total), the
 * target share, the estimates used. Kept sorted by job id. */
#include "sched/engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* Points a's rows into its block of tcap types. */
static void acct_rows(hs_jacct_t *a, int tcap)
{
	a->recv_reset = a->pt;
	a->recv_total = a->pt + tcap;
	a->x = a->pt + 2 * (size_t)tcap;
	a->thr = a->pt + 3 * (size_t)tcap;
	a->meas = a->pt + 4 * (size_t)tcap;
}

int hs_acct_block_new(hs_jacct_t *a, int tcap)
{
	double *pt = calloc(5 * (size_t)tcap, sizeof(double));
	if (!pt)
		return -1;
	a->pt = pt;
	acct_rows(a, tcap);
	return 0;
}

void hs_acct_free_all(hs_jacct_t *acct, int n)
{
	for (int i = 0; acct && i < n; i++)
		free(acct[i].pt);
	free(acct);
}

/* Makes every entry's block hold `need` types (doubling, 8 at least,
 * HS_MAX_TYPES at most). All new blocks are allocated before any is
 * swapped in, so out of memory leaves every entry as it was. */
static int acct_grow_types(hs_engine_t *e, int need)
{
	if (need <= e->acct_tcap)
		return 0;
	int cap = e->acct_tcap ? e->acct_tcap : 8;
	while (cap < need)
		cap *= 2;
	cap = cap > HS_MAX_TYPES ? HS_MAX_TYPES : cap;
	double **nb = calloc((size_t)e->nacct + 1, sizeof(*nb));
	if (!nb)
		return -1;
	for (int i = 0; i < e->nacct; i++)
		if (!(nb[i] = calloc(5 * (size_t)cap, sizeof(double)))) {
			for (int k = 0; k < i; k++)
				free(nb[k]);
			free(nb);
			return -1;
		}
	for (int i = 0; i < e->nacct; i++) {
		hs_jacct_t *a = &e->acct[i];
		for (int r = 0; r < 5; r++)
			memcpy(nb[i] + (size_t)r * cap, a->pt + (size_t)r * e->acct_tcap,
			       (size_t)e->acct_tcap * sizeof(double));
		free(a->pt);
		a->pt = nb[i];
		acct_rows(a, cap);
	}
	free(nb);
	e->acct_tcap = cap;
	return 0;
}

/* The accounting's GPU type table only grows (per-type arrays of hs_jacct_t
 * are indexed by it), so an index stays valid for the engine's life. */
int hs_acct_type_index(hs_engine_t *e, const char *name)
{
	for (int t = 0; t < e->ntypes; t++)
		if (!strcmp(e->types[t], name))
			return t;
	if (e->ntypes >= HS_MAX_TYPES || acct_grow_types(e, e->ntypes + 1) < 0)
		return -1;
	if (!(e->types[e->ntypes] = strdup(name)))
		return -1;
	return e->ntypes++;
}

/* Called several times per job per round: a plain binary search over the
 * compact id array, not bsearch(3) over the entries. */
hs_jacct_t *hs_acct_find(const hs_engine_t *e, uint32_t id)
{
	int i = hs_idx_find(e->acct_id, sizeof(*e->acct_id), 0, e->nacct, id, e->acct_hint);
	return i >= 0 ? &e->acct[i] : NULL;
}

/* One search answers both: the entry, or where a new one goes
 * (hs_idx_find's -(insertion point) - 1). */
hs_jacct_t *hs_acct_get(hs_engine_t *e, uint32_t id, int64_t now)
{
	int at = hs_idx_find(e->acct_id, sizeof(*e->acct_id), 0, e->nacct, id, e->acct_hint);
	if (at >= 0)
		return &e->acct[at];
	if (e->nacct == e->cap_acct) {
		int cap = e->cap_acct ? e->cap_acct * 2 : 64;
		uint32_t *ni = realloc(e->acct_id, (size_t)cap * sizeof(*ni));
		if (!ni)
			return NULL;
		e->acct_id = ni;
		hs_jacct_t *n = realloc(e->acct, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL; /* the larger id array is harmless */
		e->acct = n;
		e->cap_acct = cap;
	}
	hs_jacct_t fresh;
	memset(&fresh, 0, sizeof(fresh));
	if (acct_grow_types(e, e->ntypes > 1 ? e->ntypes : 1) < 0 ||
	    hs_acct_block_new(&fresh, e->acct_tcap) < 0)
		return NULL;
	int lo = -at - 1;
	memmove(&e->acct[lo + 1], &e->acct[lo], (size_t)(e->nacct - lo) * sizeof(*e->acct));
	memmove(&e->acct_id[lo + 1], &e->acct_id[lo], (size_t)(e->nacct - lo) * sizeof(*e->acct_id));
	e->acct_id[lo] = id;
	e->nacct++;
	hs_jacct_t *a = &e->acct[lo];
	*a = fresh;
	a->id = id;
	a->first_seen = now;
	a->seen_round = -1;
	return a;
}

int hs_acct_requeue_admitted(const hs_engine_t *e, uint32_t id, unsigned rc)
{
	const hs_jacct_t *ac = hs_acct_find(e, id);
	return ac && ac->requeue_rc1 == rc + 1;
}

void hs_acct_started(hs_engine_t *e, uint32_t id, unsigned rc, int64_t now)
{
	hs_jacct_t *a = hs_acct_get(e, id, now);
	if (!a)
		return; /* out of memory: only the lost-start check misses it */
	a->started_t = now;
	a->started_rc = rc;
	a->hold_until = 0;
}

void hs_acct_drop_unseen(hs_engine_t *e, long round)
{
	int k = 0;
	for (int i = 0; i < e->nacct; i++)
		if (e->acct[i].seen_round == round || hs_op_find(e, e->acct[i].id)) {
			if (k != i) { /* entries are large: no copy onto itself */
				e->acct_id[k] = e->acct[i].id;
				e->acct[k] = e->acct[i];
			}
			k++;
		} else
			free(e->acct[i].pt);
	e->nacct = k;
}

void hs_acct_reset(hs_engine_t *e)
{
	for (int i = 0; i < e->nacct; i++) {
		e->acct[i].active_reset_s = 0;
		memset(e->acct[i].recv_reset, 0, (size_t)e->acct_tcap * sizeof(double));
	}
}

/* Slurm gives a job id to a new job when a slurmctld crash lost the job
 * that had it (state is saved every few seconds) or when MaxJobId wraps.
 * The lost job's entry would hand the newcomer its time received, its
 * measurements, a pending operation and a suspended_by_us mark. A requeue
 * also gives a job a new submit time, but always with a higher
 * restart_cnt; a new submit time without one is another job. */
int hs_acct_forget_reused(hs_engine_t *e, const hs_snap_t *s)
{
	int n = 0;
	for (int i = 0; i < s->njobs; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		hs_jacct_t *a = hs_acct_find(e, sj->id);
		if (!a)
			continue;
		int reused = a->submit_time && sj->submit_time && sj->submit_time != a->submit_time &&
			     sj->restart_cnt <= a->restart_cnt;
		if (reused) {
			hs_op_remove(e, sj->id);
			double *pt = a->pt; /* keeps its block, zeroed */
			memset(pt, 0, 5 * (size_t)e->acct_tcap * sizeof(double));
			memset(a, 0, sizeof(*a));
			a->pt = pt;
			acct_rows(a, e->acct_tcap);
			a->id = sj->id;
			a->first_seen = s->now;
			a->seen_round = -1;
			n++;
		}
		a->submit_time = sj->submit_time;
		a->restart_cnt = sj->restart_cnt;
	}
	return n;
}
