/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_exec_ops.c — a pass over the in-flight operations (exec.h): each
 * op's next step from what the executor sees of its job
 * (hs_engine_op_step, engine_ops.c), as acts; their outcomes back into
 * the op table (hs_engine_op_result). A restart that Slurm refuses on its
 * target's nodes gets the same fallbacks as a planned start: its GPU
 * type, then any type; a packed restart whose partner no longer runs is
 * started alone on the target's nodes. */
#include "sched/engine_exec_impl.h"

#include <stdlib.h>
#include <string.h>

int hs_exec_ops_jobs(const hs_engine_t *e, uint32_t *ids, int cap)
{
	int n = hs_engine_nops(e);
	for (int i = 0; i < n && i < cap; i++)
		ids[i] = hs_engine_op_job(e, i);
	return n < cap ? n : cap;
}

void hs_exec_ops_free(hs_exec_t *x)
{
	for (int i = 0; i < x->nxops; i++) {
		hs_target_free(&x->xops[i].target);
		free(x->xops[i].type);
	}
	free(x->xops);
	free(x->xop_of);
	x->xops = NULL;
	x->xop_of = NULL;
	x->nxops = 0;
}

hs_exec_t *hs_exec_ops(hs_engine_t *e, const hs_op_view_t *views, int nviews, int64_t now,
		       int requeues_only)
{
	hs_exec_t *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->e = e;
	x->now = now;
	x->requeues_only = requeues_only;
	x->xops = calloc((size_t)nviews + 1, sizeof(*x->xops));
	x->xop_of = malloc(((size_t)nviews + 1) * sizeof(int));
	if (!x->xops || !x->xop_of) {
		free(x->xops);
		free(x->xop_of);
		free(x);
		return NULL;
	}
	/* Every step is decided before anything is done: the views are of
	 * one moment, and the op table changes as outcomes come in. */
	for (int i = 0; i < nviews; i++) {
		const hs_op_view_t *v = &views[i];
		hs_xop_t *o = &x->xops[x->nxops];
		const hs_target_t *t = NULL;
		o->id = v->id;
		o->action = hs_engine_op_step(e, v->id, v, now, &o->begin, &t);
		o->restart_cnt = v->restart_cnt;
		if (o->action == HS_OPA_REQUEUE)
			o->restore_requeue = hs_acct_requeue_admitted(e, v->id, v->restart_cnt);
		if (requeues_only && o->action != HS_OPA_REQUEUE)
			continue; /* asked again at a later tick */
		if (o->action == HS_OPA_WAIT)
			continue;
		if (o->action == HS_OPA_DROP) {
			hs_engine_op_result(e, v->id, HS_OPA_DROP, 1, now);
			x->c.ops++;
			continue;
		}
		if (o->action == HS_OPA_START) {
			const hs_op_t *op = hs_op_find(e, v->id);
			if (!t || hs_target_copy(&o->target, t) < 0 ||
			    (op && op->type && !(o->type = strdup(op->type)))) {
				hs_target_free(&o->target);
				continue; /* out of memory: asked again next tick */
			}
			o->target.partner = t->partner;
		}
		x->nxops++;
	}
	x->batch.n = -1;
	return x;
}

/* The act of op o: its step, or the fallback its restart is at. */
static int add_op_act(hs_exec_t *x, hs_xop_t *o)
{
	hs_act_kind_t k = o->action == HS_OPA_REQUEUE ? HS_DO_REQUEUE
			  : o->action == HS_OPA_CLEAR_BEGIN ? HS_DO_CLEAR_BEGIN : HS_DO_START;
	hs_act_t *a = hs_exec_add(x, k, o->id);
	if (!a)
		return -1;
	a->begin = o->begin;
	a->why = "restart where the round put it";
	a->restart_cnt = o->restart_cnt;
	a->restore_requeue = o->restore_requeue;
	if (k != HS_DO_START)
		return 0;
	a->target = &o->target;
	a->type = o->type;
	if (o->fb == 1)
		a->where = HS_WHERE_TYPE;
	else if (o->fb == 2)
		a->where = HS_WHERE_ANY;
	else if (o->fb == 3 || !o->target.partner || !x->e->packing)
		a->where = HS_WHERE_NODES;
	else
		a->where = HS_WHERE_PACKED;
	hs_exec_set_avoid(x, a);
	return 0;
}

/* Requeues (and begin times) before starts, as a round frees GPUs before
 * it starts jobs: a deferred start waiting for a victim's GPUs finds them
 * free in the same tick. xop_of[] maps the batch back to the ops. */
int hs_exec_ops_batch(hs_exec_t *x)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < x->nxops; i++) {
			hs_xop_t *o = &x->xops[i];
			if (o->action == HS_OPA_WAIT || (o->action == HS_OPA_START) != pass)
				continue; /* done with, or the other pass */
			if (add_op_act(x, o) < 0) {
				hs_engine_logf(x->e, HS_LOG_ERROR, "out of memory advancing job %u's "
					       "operation: asked again next tick", o->id);
				o->action = HS_OPA_WAIT;
				continue;
			}
			x->xop_of[x->batch.n - 1] = i;
		}
	return x->batch.n;
}

/* What follows a refused restart: 3 = alone on the target's nodes (its
 * partner does not run), 1 = its type, 2 = any type, 0 = nothing (the op
 * retries at a later tick). */
static int op_fallback(const hs_xop_t *o, const hs_act_t *a)
{
	if (a->out != HS_OUT_REFUSED)
		return 0;
	if (a->where == HS_WHERE_PACKED && a->refusal == HS_REFUSE_PARTNER)
		return 3;
	if (a->where == HS_WHERE_NODES && a->refusal == HS_REFUSE_CONFIG && o->type)
		return 1;
	if (a->where == HS_WHERE_TYPE &&
	    (a->refusal == HS_REFUSE_CONFIG || a->refusal == HS_REFUSE_BUSY))
		return 2;
	return 0;
}

void hs_exec_ops_done(hs_exec_t *x)
{
	for (int k = 0; k < x->batch.n; k++) {
		hs_xop_t *o = &x->xops[x->xop_of[k]];
		const hs_act_t *a = &x->batch.a[k];
		int ok = a->out == HS_OUT_DONE;
		if (o->action == HS_OPA_START && !ok) {
			int fb = op_fallback(o, a);
			if (fb) {
				o->fb = fb;
				x->c.fallbacks += fb != 3;
				continue; /* in the next batch */
			}
			/* waits for GPUs still held: other ops' fallbacks
			 * leave its nodes alone */
			if (a->out == HS_OUT_REFUSED && a->refusal == HS_REFUSE_BUSY &&
			    a->where == HS_WHERE_NODES)
				hs_exec_reserve(x, &o->target);
		}
		if (o->action == HS_OPA_REQUEUE) {
			if (ok)
				x->c.requeued++;
			else
				x->c.requeue_failed++;
		}
		if (o->action == HS_OPA_START && ok)
			x->c.started++;
		hs_engine_op_result(x->e, o->id, o->action, ok, x->now);
		x->c.ops++;
		o->action = HS_OPA_WAIT; /* done with */
	}
}
