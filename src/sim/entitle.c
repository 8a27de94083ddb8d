/* SPDX-License-Identifier: GPL-2.0-or-later */
/* entitle.c — demand-capped split of the GPUs by Shares (entitle.h). */
#include "sim/entitle.h"

#include <stdlib.h>

typedef struct wf_item {
	double w, cap, level; /* level = cap / w: when its cap binds */
	int idx;
} wf_item_t;

static int by_level(const void *a, const void *b)
{
	const wf_item_t *x = a, *y = b;
	return x->level < y->level ? -1 : x->level > y->level;
}

/* Water filling of `total` over n items with weights w > 0 and caps >= 0:
 * each gets min(cap, w * L) with L as large as the total allows. it[] is
 * sorted in place; out[it[i].idx] is written. */
static void waterfill(wf_item_t *it, int n, double total, double *out)
{
	double wsum = 0.0;
	for (int i = 0; i < n; i++) {
		it[i].level = it[i].cap / it[i].w;
		wsum += it[i].w;
	}
	qsort(it, (size_t)n, sizeof(*it), by_level);
	for (int i = 0; i < n; i++) {
		double level = wsum > 0.0 ? total / wsum : 0.0;
		double give = it[i].level <= level ? it[i].cap : it[i].w * level;
		out[it[i].idx] = give;
		total -= give;
		wsum -= it[i].w;
		if (total < 0.0)
			total = 0.0;
	}
}

int hs_sim_entitle(const hs_sim_users_t *users, const double *demand, double gpus, double *out)
{
	const int A = users->naccounts, U = users->nusers;
	wf_item_t *it = malloc(((size_t)(A > U ? A : U) + 1) * sizeof(*it));
	double *adem = calloc((size_t)A + 1, sizeof(*adem));
	double *agot = calloc((size_t)A + 1, sizeof(*agot));
	if (!it || !adem || !agot) {
		free(it);
		free(adem);
		free(agot);
		return -1;
	}
	for (int u = 0; u < U; u++)
		adem[users->users[u].account] += demand[u] > 0.0 ? demand[u] : 0.0;
	int n = 0;
	for (int a = 0; a < A; a++)
		if (adem[a] > 0.0)
			it[n++] = (wf_item_t){ .w = users->accounts[a].shares, .cap = adem[a], .idx = a };
	waterfill(it, n, gpus, agot);
	for (int u = 0; u < U; u++)
		out[u] = 0.0;
	for (int a = 0; a < A; a++) {
		if (!(agot[a] > 0.0))
			continue;
		n = 0;
		for (int u = 0; u < U; u++)
			if (users->users[u].account == a && demand[u] > 0.0)
				it[n++] = (wf_item_t){ .w = users->users[u].shares, .cap = demand[u],
						       .idx = u };
		waterfill(it, n, agot[a], out);
	}
	free(it);
	free(adem);
	free(agot);
	return 0;
}
