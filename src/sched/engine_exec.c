/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_exec.c — one execution pass over a round's plan (exec.h): the
 * stages of hs_xstage_t, each a batch of acts for the executor, and what
 * each outcome means for the engine (its accounting and op table through
 * hs_engine_applied, engine_ops.c). The rules for refused starts
 * (fallbacks, refill) are engine_exec_fill.c; the ops pass is
 * engine_exec_ops.c. */
#include "sched/engine_exec_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *hs_act_kind_name(hs_act_kind_t k)
{
	static const char *const n[] = { "checkpoint signal", "requeue", "suspend",
					 "resume", "start", "clear begin" };
	return (unsigned)k < sizeof(n) / sizeof(n[0]) ? n[k] : "?";
}

const char *hs_where_name(hs_where_t w)
{
	static const char *const n[] = { "nodes", "packed", "type", "any" };
	return (unsigned)w < sizeof(n) / sizeof(n[0]) ? n[w] : "?";
}

const char *hs_outcome_name(hs_outcome_t o)
{
	static const char *const n[] = { "done", "gone", "wait", "refused", "failed" };
	return (unsigned)o < sizeof(n) / sizeof(n[0]) ? n[o] : "?";
}

/* ---- the plan's stages ------------------------------------------------------------- */

/* Does the partner of a packed start run (or will it, once started in
 * this pass)? 1 runs now, 2 starts in this pass, 0 no; *k = its plan
 * entry. */
static int partner_state(hs_exec_t *x, uint32_t partner, int *k)
{
	*k = hs_exec_plan_index(x, partner);
	if (*k < 0)
		return 0;
	const hs_plan_job_t *p = &x->plan->jobs[*k];
	if (x->flags[*k] & HS_XE_STARTED)
		return 1;
	if (p->state == HS_SJ_RUNNING &&
	    (p->op == HS_PLAN_KEEP || (p->op == HS_PLAN_SUSPEND && p->slice_with)))
		return 1;
	return p->op == HS_PLAN_START ? 2 : 0;
}

/* A planned start: packed onto its partner when packing is available and
 * the partner runs, else on exactly the target's nodes. Of a pair that
 * starts together, the first in plan order waits for the second (late:
 * after MAIN's outcomes), which starts alone on the pair's GPUs. */
static int add_start(hs_exec_t *x, int i, int late)
{
	const hs_plan_job_t *pj = &x->plan->jobs[i];
	hs_where_t where = HS_WHERE_NODES;
	if (pj->target.partner && x->e->packing) {
		int k, ps = partner_state(x, pj->target.partner, &k);
		if (ps == 2 && !late && !(x->flags[k] & HS_XE_PACK_LATE)) {
			x->flags[i] |= HS_XE_PACK_LATE;
			return 0;
		}
		if (ps == 1)
			where = HS_WHERE_PACKED;
	}
	hs_act_t *a = hs_exec_add_plan(x, HS_DO_START, i);
	if (!a)
		return -1;
	a->where = where;
	a->target = &pj->target;
	a->type = pj->type_name;
	return 0;
}

static int stage_main(hs_exec_t *x)
{
	const hs_plan_t *p = x->plan;
	/* first what frees GPUs */
	for (int i = 0; i < p->njobs; i++) {
		const hs_plan_job_t *pj = &p->jobs[i];
		hs_act_t *a = NULL;
		if (pj->op == HS_PLAN_CHECKPOINT) {
			if ((a = hs_exec_add_plan(x, HS_DO_CKPT_SIGNAL, i)))
				a->signal = pj->ckpt_signal;
		} else if (pj->op == HS_PLAN_REQUEUE) {
			if ((a = hs_exec_add_plan(x, HS_DO_REQUEUE, i)))
				a->restore_requeue =
					hs_acct_requeue_admitted(x->e, pj->id, pj->restart_cnt);
		} else if (pj->op == HS_PLAN_SUSPEND && !pj->slice_with) {
			a = hs_exec_add_plan(x, HS_DO_SUSPEND, i);
		} else {
			continue;
		}
		if (!a)
			return -1;
	}
	/* then starts and resumes */
	for (int i = 0; i < p->njobs; i++) {
		const hs_plan_job_t *pj = &p->jobs[i];
		if (pj->op == HS_PLAN_KEEP)
			x->c.kept++;
		else if (pj->op == HS_PLAN_RESUME && !hs_exec_add_plan(x, HS_DO_RESUME, i))
			return -1;
		else if (pj->op == HS_PLAN_START && add_start(x, i, 0) < 0)
			return -1;
	}
	return 0;
}

static int stage_packed(hs_exec_t *x)
{
	for (int i = 0; i < x->plan->njobs; i++)
		if ((x->flags[i] & HS_XE_PACK_LATE) && add_start(x, i, 1) < 0)
			return -1;
	for (int i = 0; i < x->plan->njobs; i++)
		x->flags[i] &= ~(unsigned)HS_XE_PACK_LATE;
	return 0;
}

/* The refused starts' fallbacks: each job first on its planned type,
 * then, if that fails as HS_REFUSE_CONFIG or BUSY does, on any type. */
static int stage_fallback(hs_exec_t *x)
{
	for (int i = 0; i < x->plan->njobs; i++) {
		unsigned f = x->flags[i];
		if (!(f & (HS_XE_FB_TYPE | HS_XE_FB_ANY | HS_XE_FB_NODES)))
			continue;
		hs_act_t *a = hs_exec_add_plan(x, HS_DO_START, i);
		if (!a)
			return -1;
		a->where = f & HS_XE_FB_NODES ? HS_WHERE_NODES
			   : f & HS_XE_FB_TYPE ? HS_WHERE_TYPE : HS_WHERE_ANY;
		a->target = &x->plan->jobs[i].target;
		a->type = x->plan->jobs[i].type_name;
		hs_exec_set_avoid(x, a);
		x->flags[i] &= ~(unsigned)(HS_XE_FB_TYPE | HS_XE_FB_ANY | HS_XE_FB_NODES);
		x->c.fallbacks += a->where != HS_WHERE_NODES;
	}
	return 0;
}

static int stage_slurm(hs_exec_t *x)
{
	for (int i = 0; i < x->plan->njobs; i++) {
		if (x->plan->jobs[i].op != HS_PLAN_SLURM)
			continue;
		hs_act_t *a = hs_exec_add_plan(x, HS_DO_START, i);
		if (!a)
			return -1;
		a->where = HS_WHERE_ANY;
		hs_exec_set_avoid(x, a);
	}
	return 0;
}

static void applied(hs_exec_t *x, const hs_plan_job_t *pj, int ok);

/* Time slicing: suspend a job only once the job packed onto its GPUs
 * started (the packed start needs it running); otherwise it keeps
 * running rather than idle its GPUs. */
static int stage_slice(hs_exec_t *x)
{
	for (int i = 0; i < x->plan->njobs; i++) {
		const hs_plan_job_t *pj = &x->plan->jobs[i];
		if (pj->op != HS_PLAN_SUSPEND || !pj->slice_with)
			continue;
		int k = hs_exec_plan_index(x, pj->slice_with);
		if (k < 0 || !(x->flags[k] & HS_XE_STARTED)) {
			hs_engine_logf(x->e, HS_LOG_DEBUG, "job %u keeps running: job %u did not "
				       "start on its GPUs", pj->id, pj->slice_with);
			applied(x, pj, 0); /* not suspended: clear the write-ahead mark */
			continue;
		}
		if (!hs_exec_add_plan(x, HS_DO_SUSPEND, i))
			return -1;
	}
	return 0;
}

/* ---- outcomes -------------------------------------------------------------------- */

/* What the engine records of a plan act (engine_ops.c's hs_engine_applied). */
static void applied(hs_exec_t *x, const hs_plan_job_t *pj, int ok)
{
	hs_err_t err;
	int64_t begin = pj->snap >= 0 && pj->snap < x->s->njobs ? x->s->jobs[pj->snap].begin_time : 0;
	if (hs_engine_applied(x->e, pj, ok, x->now, begin, &err) < 0)
		hs_engine_logf(x->e, HS_LOG_ERROR, "job %u: %s", pj->id, err.msg);
}

/* A start refused for good: remembered for its reason and the refill. */
static void refused(hs_exec_t *x, int i, const hs_act_t *first)
{
	if (x->flags[i] & HS_XE_REFUSED)
		return;
	const hs_plan_job_t *pj = &x->plan->jobs[i];
	x->flags[i] |= HS_XE_REFUSED;
	x->c.start_failed++;
	if (hs_exec_notes(x) < 0) {
		/* out of memory: no refill, no reason text for it */
		x->flags[i] &= ~(unsigned)HS_XE_REFUSED;
		return;
	}
	snprintf(x->refmsg[i], sizeof(x->refmsg[i]), "%s", first->msg[0] ? first->msg : "refused");
	snprintf(x->reason[i], sizeof(x->reason[i]),
		 HS_REASON_PREFIX "%ld: Slurm refused the start planned on %s (%s); the next "
		 "round asks again", x->plan->round,
		 pj->target.nnodes ? pj->target.nodes[0].name : "?", x->refmsg[i]);
	hs_engine_logf(x->e, HS_LOG_INFO, "job %u: Slurm refused to start it on %s: %s; its GPUs "
		       "go to the next job", x->plan->jobs[i].id,
		       x->plan->jobs[i].target.nnodes ? x->plan->jobs[i].target.nodes[0].name : "?",
		       x->refmsg[i]);
}

/* The outcome of a planned start (MAIN, PACKED). */
static void start_outcome(hs_exec_t *x, const hs_act_t *a)
{
	const int i = a->plan;
	const hs_plan_job_t *pj = &x->plan->jobs[i];
	switch (a->out) {
	case HS_OUT_DONE:
		x->flags[i] |= HS_XE_STARTED;
		x->c.started++;
		applied(x, pj, 1);
		return;
	case HS_OUT_GONE:
		x->c.vanished++;
		return;
	case HS_OUT_WAIT:
		/* still being cleaned up after a requeue: retried every tick
		 * until the next round */
		x->c.deferred++;
		hs_exec_reserve(x, &pj->target);
		applied(x, pj, 0);
		return;
	case HS_OUT_REFUSED:
	case HS_OUT_FAILED:
		break;
	}
	if (a->where == HS_WHERE_PACKED && a->refusal == HS_REFUSE_PARTNER) {
		x->flags[i] |= HS_XE_FB_NODES; /* its partner stopped: alone */
		return;
	}
	if (hs_exec_wants_fallback(x->s, a) && pj->type_name && hs_exec_notes(x) == 0) {
		snprintf(x->refmsg[i], sizeof(x->refmsg[i]), "%s", a->msg);
		x->flags[i] |= HS_XE_FB_TYPE;
		hs_engine_logf(x->e, HS_LOG_INFO, "job %u: refused on its planned nodes (%s): "
			       "Slurm places it on %s nodes", pj->id, a->msg, pj->type_name);
		return;
	}
	if (a->out == HS_OUT_REFUSED && a->refusal == HS_REFUSE_BUSY) {
		/* the planned GPUs are still held by a job this round
		 * preempts (or another job that is ending): it waits */
		x->c.deferred++;
		hs_exec_reserve(x, &pj->target);
		applied(x, pj, 0);
		return;
	}
	refused(x, i, a);
}

/* The outcome of a fallback start. */
static void fallback_outcome(hs_exec_t *x, const hs_act_t *a)
{
	const int i = a->plan;
	if (a->where == HS_WHERE_NODES) {
		start_outcome(x, a); /* a packed start's retry alone */
		return;
	}
	if (a->out == HS_OUT_DONE) {
		x->flags[i] |= HS_XE_STARTED;
		x->c.started++;
		hs_engine_logf(x->e, HS_LOG_INFO, "JobId=%u refused on its planned nodes, started "
			       "by Slurm on %s nodes", x->plan->jobs[i].id,
			       a->where == HS_WHERE_TYPE && a->type ? a->type : "any GPU type's");
		applied(x, &x->plan->jobs[i], 1);
		return;
	}
	if (a->out == HS_OUT_GONE) {
		x->c.vanished++;
		return;
	}
	/* Never runnable on the type, or not now on any node of it: rather
	 * than wait while another type's GPU could take it, Slurm chooses
	 * among all types, as for a job that asked for none. */
	if (a->where == HS_WHERE_TYPE && a->out == HS_OUT_REFUSED &&
	    (a->refusal == HS_REFUSE_CONFIG || a->refusal == HS_REFUSE_BUSY)) {
		x->flags[i] |= HS_XE_FB_ANY;
		return;
	}
	/* the first refusal's reason stays (refmsg) */
	hs_act_t first = *a;
	snprintf(first.msg, sizeof(first.msg), "%s", x->refmsg[i]);
	x->flags[i] &= ~(unsigned)HS_XE_REFUSED;
	refused(x, i, &first);
}

static void other_outcome(hs_exec_t *x, const hs_act_t *a)
{
	const hs_plan_job_t *pj = &x->plan->jobs[a->plan];
	int ok = a->out == HS_OUT_DONE;
	if (a->out == HS_OUT_GONE) {
		x->c.vanished++;
		if (a->kind == HS_DO_SUSPEND)
			applied(x, pj, 0); /* not suspended: clear the write-ahead mark */
		return;
	}
	switch (a->kind) {
	case HS_DO_CKPT_SIGNAL:
		x->c.checkpointing += ok;
		break;
	case HS_DO_REQUEUE:
		if (ok)
			x->c.requeued++;
		else
			x->c.requeue_failed++;
		break;
	case HS_DO_SUSPEND:
		x->c.suspended += ok;
		break;
	case HS_DO_RESUME:
		x->c.resumed += ok;
		break;
	default:
		return;
	}
	if (!ok)
		hs_engine_logf(x->e, HS_LOG_ERROR, "%s of job %u failed: %s; it stays as it was",
			       hs_act_kind_name(a->kind), pj->id, a->msg);
	applied(x, pj, ok);
}

static void slurm_outcome(hs_exec_t *x, const hs_act_t *a)
{
	if (a->out == HS_OUT_DONE) {
		x->flags[a->plan] |= HS_XE_STARTED;
		x->c.started++; /* Slurm placed it: nothing of the round to record */
		hs_engine_logf(x->e, HS_LOG_INFO, "JobId=%u: no single GPU type can hold it, "
			       "started by Slurm on any GPU type's nodes", a->job);
	} else if (a->out == HS_OUT_GONE) {
		x->c.vanished++;
	}
}

/* Records the outcomes of the batch just done (stage x->stage). */
static void batch_done(hs_exec_t *x)
{
	for (int k = 0; k < x->batch.n; k++) {
		const hs_act_t *a = &x->batch.a[k];
		switch (x->stage) {
		case HS_XS_MAIN:
		case HS_XS_PACKED:
			if (a->kind == HS_DO_START)
				start_outcome(x, a);
			else
				other_outcome(x, a);
			break;
		case HS_XS_FALLBACK:
			fallback_outcome(x, a);
			break;
		case HS_XS_SLURM:
			slurm_outcome(x, a);
			break;
		case HS_XS_SLICE:
			other_outcome(x, a);
			break;
		case HS_XS_REFILL:
		case HS_XS_DONE:
			break;
		}
	}
	if (x->stage == HS_XS_REFILL)
		hs_exec_refill_done(x);
}

/* ---- the pass ------------------------------------------------------------------------ */

hs_exec_t *hs_exec_plan(hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan, int64_t now)
{
	hs_exec_t *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	const size_t n = (size_t)plan->njobs + 1;
	x->e = e;
	x->s = s;
	x->plan = plan;
	x->now = now;
	x->stage = HS_XS_MAIN;
	x->flags = calloc(n, 1);
	if (!x->flags) {
		hs_exec_free(x);
		return NULL;
	}
	x->batch.n = -1; /* nothing done yet */
	return x;
}

/* Fills the batch of the first stage from x->stage on that has acts. */
static int next_plan_batch(hs_exec_t *x)
{
	for (;;) {
		int rc = 0;
		switch (x->stage) {
		case HS_XS_MAIN:
			rc = stage_main(x);
			break;
		case HS_XS_PACKED:
			rc = stage_packed(x);
			break;
		case HS_XS_FALLBACK:
			rc = stage_fallback(x);
			break;
		case HS_XS_REFILL:
			if (!x->reason)
				rc = 0; /* nothing refused: no refill */
			else if (!x->cands && hs_exec_refill_init(x) < 0)
				rc = -1;
			else
				rc = hs_exec_refill_batch(x) < 0 ? -1 : 0;
			break;
		case HS_XS_SLURM:
			rc = stage_slurm(x);
			break;
		case HS_XS_SLICE:
			rc = stage_slice(x);
			break;
		case HS_XS_DONE:
			return 0;
		}
		if (rc < 0) {
			hs_engine_logf(x->e, HS_LOG_ERROR, "out of memory applying round %ld: the "
				       "rest of its plan is left to the next round", x->plan->round);
			x->batch.n = 0;
			x->stage = HS_XS_DONE;
			return 0;
		}
		if (x->batch.n > 0)
			return x->batch.n;
		/* the fallback and the refill repeat while they have acts */
		x->stage++;
	}
}

hs_acts_t *hs_exec_next(hs_exec_t *x)
{
	if (!x)
		return NULL;
	if (!x->plan) {
		if (x->batch.n >= 0)
			hs_exec_ops_done(x);
		x->batch.n = 0;
		return hs_exec_ops_batch(x) > 0 ? &x->batch : NULL;
	}
	if (x->batch.n > 0) {
		batch_done(x);
		/* a stage with follow-ups runs again; the others are over */
		if (x->stage != HS_XS_FALLBACK && x->stage != HS_XS_REFILL)
			x->stage++;
	}
	x->batch.n = 0;
	return next_plan_batch(x) > 0 ? &x->batch : NULL;
}

const char *hs_exec_reason(const hs_exec_t *x, int i)
{
	if (!x || !x->plan || i < 0 || i >= x->plan->njobs)
		return NULL;
	return x->reason && x->reason[i][0] ? x->reason[i] : x->plan->jobs[i].reason;
}

const hs_exec_counts_t *hs_exec_counts(const hs_exec_t *x)
{
	return &x->c;
}

void hs_exec_free(hs_exec_t *x)
{
	if (!x)
		return;
	hs_exec_ops_free(x);
	free(x->batch.a);
	free(x->flags);
	free(x->refmsg);
	free(x->by_id);
	free(x->cands);
	free(x->batch_r);
	free(x->refill_next);
	free(x->refill_tries);
	free(x->why);
	free(x->reason);
	free(x->avoid);
	free(x);
}
