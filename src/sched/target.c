/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.c — building, copying and freeing a placement target
 * (target.h). */
#include "sched/target.h"

#include <stdlib.h>
#include <string.h>

int hs_target_add_gpu(hs_target_t *t, int cap, int node, const char *name)
{
	int k;
	for (k = 0; k < t->nnodes; k++)
		if (t->nodes[k].node == node)
			break;
	if (k < t->nnodes) {
		t->nodes[k].gpus++;
		return 0;
	}
	if (k >= cap)
		return -1;
	if (!t->nodes && !(t->nodes = calloc((size_t)cap, sizeof(*t->nodes))))
		return -1;
	char *copy = strdup(name ? name : "");
	if (!copy)
		return -1;
	t->nodes[t->nnodes++] = (hs_target_node_t){ .node = node, .name = copy, .gpus = 1 };
	return 0;
}

void hs_target_drop_nodes(hs_target_t *t)
{
	for (int k = 0; k < t->nnodes; k++)
		free(t->nodes[k].name);
	free(t->nodes);
	t->nodes = NULL;
	t->nnodes = 0;
}

void hs_target_free(hs_target_t *t)
{
	hs_target_drop_nodes(t);
	t->partner = 0;
}

int hs_target_copy(hs_target_t *dst, const hs_target_t *src)
{
	hs_target_free(dst);
	if (src->nnodes <= 0) {
		dst->partner = src->partner;
		return 0;
	}
	dst->nodes = calloc((size_t)src->nnodes, sizeof(*dst->nodes));
	if (!dst->nodes)
		return -1;
	for (int k = 0; k < src->nnodes; k++) {
		const hs_target_node_t *n = &src->nodes[k];
		char *name = strdup(n->name ? n->name : "");
		if (!name) {
			hs_target_free(dst);
			return -1;
		}
		dst->nodes[k] = (hs_target_node_t){ .node = -1, .name = name, .gpus = n->gpus };
		dst->nnodes = k + 1;
	}
	dst->partner = src->partner;
	return 0;
}
