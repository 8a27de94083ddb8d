/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_typemem.c — what the non-preemptive heuristics (fifo, allox)
 * remember across rounds: the accelerator type, by name, each job (by id)
 * was placed on last round, so a started job keeps its type while it is
 * active even if the cluster's type list changes order. Kept in the
 * policy context's state (see policy_impl.h). */
#include "core/policy_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct typemem {
	hs_idmap_t where;        /* job id -> index into names */
	char **names;
	int nnames;
} typemem_t;

void hs_typemem_free(void *state)
{
	typemem_t *s = state;
	if (!s)
		return;
	hs_idmap_free(&s->where);
	for (int i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s);
}

int hs_typemem_save(hs_policy_ctx_t *ctx, const hs_problem_t *p, const int *placed, hs_err_t *err)
{
	typemem_t *s = ctx->state;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return hs_err_set(err, "out of memory");
		ctx->state = s;
	}
	for (int i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	s->nnames = 0;
	s->names = calloc((size_t)p->cluster.ntypes + 1, sizeof(char *));
	if (!s->names)
		return hs_err_set(err, "out of memory");
	for (int j = 0; j < p->cluster.ntypes; j++) {
		s->names[j] = strdup(p->cluster.names[j]);
		if (!s->names[j])
			return hs_err_set(err, "out of memory");
		s->nnames = j + 1;
	}
	return hs_idmap_set(&s->where, p, placed, err);
}

int hs_typemem_prev(const hs_policy_ctx_t *ctx, const hs_problem_t *p, int m)
{
	const typemem_t *s = ctx->state;
	if (!s)
		return -1;
	int k = hs_idmap_get(&s->where, p->jobs[m].id);
	return k >= 0 && k < s->nnames ? hs_cluster_type_index(&p->cluster, s->names[k]) : -1;
}
