/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_optable.c — the round engine's table of in-flight operations
 * (hs_op_t, one per job): find, add, remove, restart targets, and the
 * accessors the plugin's tick loop uses. Data only: the protocol that
 * advances the ops is engine_ops.c, which with the accounting
 * (engine_acct.c) and the round's stages calls this file; it calls none
 * of them. */
#include "sched/engine_impl.h"

#include <stdlib.h>
#include <string.h>

const char *hs_op_kind_name(hs_op_kind_t k)
{
	switch (k) {
	case HS_OP_CKPT:
		return "checkpoint";
	case HS_OP_REQUEUED:
		return "requeued";
	case HS_OP_START:
		return "start";
	}
	return "?";
}

/* Index of id in the table (sorted by id: every job of every round asks
 * for its op), or -(insertion point) - 1. */
static int op_index(const hs_engine_t *e, uint32_t id)
{
	int lo = 0, hi = e->nops - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (e->ops[mid].id == id)
			return mid;
		if (e->ops[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

hs_op_t *hs_op_find(const hs_engine_t *e, uint32_t id)
{
	int i = op_index(e, id);
	return i >= 0 ? &e->ops[i] : NULL;
}

void hs_op_clear_target(hs_op_t *op)
{
	hs_target_free(&op->target);
	free(op->type);
	op->type = NULL;
}

hs_op_t *hs_op_add(hs_engine_t *e, uint32_t id, hs_op_kind_t kind)
{
	int i = op_index(e, id);
	hs_op_t *op;
	if (i >= 0) {
		op = &e->ops[i];
		hs_op_clear_target(op);
	} else {
		if (e->nops == e->cap_ops) {
			int cap = e->cap_ops ? e->cap_ops * 2 : 16;
			hs_op_t *n = realloc(e->ops, (size_t)cap * sizeof(*n));
			if (!n)
				return NULL;
			e->ops = n;
			e->cap_ops = cap;
		}
		i = -i - 1;
		memmove(&e->ops[i + 1], &e->ops[i], (size_t)(e->nops - i) * sizeof(*e->ops));
		e->nops++;
		op = &e->ops[i];
	}
	memset(op, 0, sizeof(*op));
	op->id = id;
	op->kind = kind;
	return op;
}

void hs_op_remove(hs_engine_t *e, uint32_t id)
{
	int i = op_index(e, id);
	if (i < 0)
		return;
	hs_op_clear_target(&e->ops[i]);
	memmove(&e->ops[i], &e->ops[i + 1], (size_t)(e->nops - i - 1) * sizeof(*e->ops));
	e->nops--;
}

void hs_ops_free(hs_engine_t *e)
{
	for (int i = 0; i < e->nops; i++)
		hs_op_clear_target(&e->ops[i]);
	free(e->ops);
	e->ops = NULL;
	e->nops = e->cap_ops = 0;
}

int hs_op_set_target(hs_op_t *op, const hs_plan_job_t *pj, const char *type)
{
	hs_op_clear_target(op);
	if (pj->target.nnodes <= 0)
		return 0; /* no target: no partner or type either */
	op->type = type ? strdup(type) : NULL;
	if ((type && !op->type) || hs_target_copy(&op->target, &pj->target) < 0) {
		hs_op_clear_target(op);
		return -1;
	}
	return 0;
}

void hs_ops_new_round(hs_engine_t *e)
{
	int w = 0; /* one pass: the table stays sorted */
	for (int i = 0; i < e->nops; i++) {
		hs_op_t *op = &e->ops[i];
		if (op->kind == HS_OP_START) {
			hs_op_clear_target(op);
			continue;
		}
		/* A requeued job is active again: this round decides anew. */
		if (op->kind == HS_OP_REQUEUED)
			hs_op_clear_target(op);
		e->ops[w++] = *op;
	}
	e->nops = w;
}

int hs_engine_nops(const hs_engine_t *e)
{
	return e->nops;
}

uint32_t hs_engine_op_job(const hs_engine_t *e, int i)
{
	return i >= 0 && i < e->nops ? e->ops[i].id : 0;
}
