/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fairtree.c — effective weights over the entity forest (fairtree.h). */
#include "core/fairtree.h"

#include <stdlib.h>
#include <string.h>

void hs_ftree_free(hs_ftree_t *t)
{
	if (!t)
		return;
	free(t->order);
	free(t->inner);
	free(t->childsum);
	free(t->hsub);
	free(t->hact);
	memset(t, 0, sizeof(*t));
}

int hs_ftree_init(hs_ftree_t *t, const hs_entities_t *es, hs_err_t *err)
{
	const int n = es->n;
	memset(t, 0, sizeof(*t));
	t->n = n;
	t->shares = es->weight;
	t->parent = es->parent;
	t->order = malloc(((size_t)n + 1) * sizeof(int));
	t->inner = calloc((size_t)n + 1, 1);
	t->childsum = calloc((size_t)n + 1, sizeof(double));
	t->held = es->held;
	if (t->held) {
		t->hsub = calloc((size_t)n + 1, sizeof(double));
		t->hact = calloc((size_t)n + 1, sizeof(double));
		if (!t->hsub || !t->hact) {
			hs_ftree_free(t);
			return hs_err_set(err, "out of memory");
		}
	}
	int *depth = malloc(((size_t)n + 1) * sizeof(int));
	int *count = calloc((size_t)n + 2, sizeof(int));
	int *stack = malloc(((size_t)n + 1) * sizeof(int));
	if (!t->order || !t->inner || !t->childsum || !depth || !count || !stack) {
		free(depth);
		free(count);
		free(stack);
		hs_ftree_free(t);
		return hs_err_set(err, "out of memory");
	}
	/* depth of each entity, memoized so that the whole pass is linear
	 * even for a deep chain read from a hostile file (the forest is
	 * acyclic: hs_problem_validate); a counting sort by depth then puts
	 * parents before children */
	for (int e = 0; e < n; e++)
		depth[e] = -1;
	for (int e = 0; e < n; e++) {
		int top = 0, a = e;
		while (a >= 0 && depth[a] < 0) {
			stack[top++] = a;
			a = t->parent ? t->parent[a] : -1;
		}
		int d = a >= 0 ? depth[a] : -1;
		while (top > 0)
			depth[stack[--top]] = ++d;
		count[depth[e] + 1]++;
		if (t->parent && t->parent[e] >= 0)
			t->inner[t->parent[e]] = 1;
	}
	free(stack);
	for (int d = 1; d <= n; d++)
		count[d] += count[d - 1];
	for (int e = 0; e < n; e++)
		t->order[count[depth[e]]++] = e;
	free(depth);
	free(count);
	return 0;
}

void hs_ftree_weights(hs_ftree_t *t, char *active, double *W)
{
	const int n = t->n;
	for (int e = 0; e < n; e++) {
		t->childsum[e] = 0.0;
		if (t->inner[e])
			active[e] = 0;
	}
	/* children before parents: activity and active Shares go up */
	for (int k = n - 1; k >= 0; k--) {
		int e = t->order[k], par = t->parent ? t->parent[e] : -1;
		if (active[e] && par >= 0) {
			active[par] = 1;
			t->childsum[par] += t->shares[e];
		}
	}
	/* parents before children: each active child's part of its parent */
	for (int k = 0; k < n; k++) {
		int e = t->order[k], par = t->parent ? t->parent[e] : -1;
		if (!active[e])
			W[e] = 0.0;
		else if (par < 0)
			W[e] = t->shares[e];
		else
			W[e] = W[par] * t->shares[e] / t->childsum[par];
	}
}

void hs_ftree_charges(hs_ftree_t *t, const char *active, double *Q)
{
	const int n = t->n;
	for (int e = 0; e < n; e++) {
		Q[e] = 0.0;
		if (t->held) {
			t->hsub[e] = t->held[e] > 0.0 ? t->held[e] : 0.0;
			t->hact[e] = 0.0;
		}
	}
	if (!t->held)
		return;
	/* children before parents: subtree holdings, and the active
	 * children's part of them */
	for (int k = n - 1; k >= 0; k--) {
		int e = t->order[k], par = t->parent ? t->parent[e] : -1;
		if (par < 0)
			continue;
		t->hsub[par] += t->hsub[e];
		if (active[e])
			t->hact[par] += t->hsub[e];
	}
	/* parents before children: what an active parent is charged beyond
	 * its active children's holdings is spread over them by Shares (the
	 * same proportion as their weights) */
	for (int k = 0; k < n; k++) {
		int e = t->order[k], par = t->parent ? t->parent[e] : -1;
		if (!active[e])
			continue;
		Q[e] = t->hsub[e];
		if (par >= 0 && t->childsum[par] > 0.0) {
			double extra = Q[par] - t->hact[par];
			if (extra > 0.0)
				Q[e] += extra * t->shares[e] / t->childsum[par];
		}
	}
}
