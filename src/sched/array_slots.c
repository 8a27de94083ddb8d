/* SPDX-License-Identifier: GPL-2.0-or-later */
/* array_slots.c — one budget of free GPUs dealt as task slots over the
 * pending job arrays, round-robin over their users (array_slots.h). */
#include "sched/array_slots.h"

#include <stdlib.h>

static int cmp_queue(const void *a, const void *b)
{
	const hs_array_cand_t *x = a, *y = b;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Next array of the same user after candidate i (-1: none), and each
 * user's first, users in the queue order of their best array. */
static int link_users(const hs_array_cand_t *c, int n, int *next, int *first)
{
	int nusers = 0;
	int *last = malloc(((size_t)n + 1) * sizeof(int));
	if (!last)
		return -1;
	for (int i = 0; i < n; i++) {
		next[i] = -1;
		int u = 0;
		while (u < nusers && c[first[u]].owner != c[i].owner)
			u++;
		if (u == nusers) {
			first[nusers++] = i;
		} else {
			next[last[u]] = i;
		}
		last[u] = i;
	}
	free(last);
	return nusers;
}

int hs_array_slots_deal(hs_array_cand_t *c, int n, int budget)
{
	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		c[i].slots = 0;
		if (c[i].per < 1)
			c[i].per = 1;
		if (c[i].want < 0)
			c[i].want = 0;
	}
	qsort(c, (size_t)n, sizeof(*c), cmp_queue);
	int *next = malloc((size_t)n * sizeof(int));
	int *cur = malloc((size_t)n * sizeof(int)); /* per user: its array in turn */
	int nusers = next && cur ? link_users(c, n, next, cur) : -1;
	if (nusers < 0) {
		free(next);
		free(cur);
		return -1;
	}
	int dealt = 0, progress = 1;
	while (progress && budget > 0) {
		progress = 0;
		for (int u = 0; u < nusers && budget > 0; u++) {
			int i = cur[u];
			/* the budget only shrinks: an array that wants no
			 * more, or no longer fits, is passed for good */
			while (i >= 0 && (c[i].slots >= c[i].want || c[i].per > budget))
				i = next[i];
			cur[u] = i;
			if (i < 0)
				continue;
			c[i].slots++;
			budget -= c[i].per;
			dealt++;
			progress = 1;
		}
	}
	free(next);
	free(cur);
	return dealt;
}
