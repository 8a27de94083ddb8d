/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_exec_impl.h — the state of one execution pass (exec.h), shared
 * by engine_exec.c (the pass, the plan's stages), engine_exec_fill.c
 * (refill and the fallbacks' rules) and engine_exec_ops.c (the ops
 * pass). Not for other users. */
#ifndef HS_SCHED_ENGINE_EXEC_IMPL_H
#define HS_SCHED_ENGINE_EXEC_IMPL_H

#include "sched/engine_impl.h"
#include "sched/exec.h"

/* Most start attempts per refused target in the refill (bounds the time
 * under slurmctld's write locks). */
#define HS_REFILL_TRIES 8

/* The stages of a plan pass, in order (engine_exec.c). */
typedef enum hs_xstage {
	HS_XS_MAIN = 0,    /* checkpoints, requeues, suspends, then starts
	                    * and resumes */
	HS_XS_PACKED,      /* packed starts whose partner started in MAIN */
	HS_XS_FALLBACK,    /* refused starts: again on their type, then on
	                    * any (several batches) */
	HS_XS_REFILL,      /* refused targets to the next jobs (batches) */
	HS_XS_SLURM,       /* jobs no single type can hold */
	HS_XS_SLICE,       /* time-slicing suspends */
	HS_XS_DONE,
} hs_xstage_t;

/* Per plan entry, what the pass did. */
enum {
	HS_XE_STARTED = 1 << 0,   /* a start of it (any kind) succeeded */
	HS_XE_REFUSED = 1 << 1,   /* its planned start was refused for good */
	HS_XE_TAKEN = 1 << 2,     /* tried as a refill candidate */
	HS_XE_FILLED = 1 << 3,    /* refused, and its GPUs went to another */
	HS_XE_PACK_LATE = 1 << 4, /* packed start waiting for its partner */
	HS_XE_FB_TYPE = 1 << 5,   /* needs the fallback on its type */
	HS_XE_FB_ANY = 1 << 6,    /* needs the fallback on any type */
	HS_XE_FB_NODES = 1 << 7,  /* packed start whose partner stopped: alone
	                           * on the target's nodes */
};

/* One op of an ops pass: its decided step and a copy of its target (the
 * op table may shrink while the batch runs). */
typedef struct hs_xop {
	uint32_t id;
	hs_op_action_t action;
	int64_t begin;
	hs_target_t target;
	char *type;
	int fb;                   /* 0 none, 1 on its type, 2 on any */
	unsigned restart_cnt;     /* the job's incarnation in the view */
	int restore_requeue;      /* HS_OPA_REQUEUE: hs_act_t's */
} hs_xop_t;

struct hs_exec {
	hs_engine_t *e;
	const hs_snap_t *s;
	const hs_plan_t *plan;     /* NULL: an ops pass */
	int64_t now;
	hs_xstage_t stage;
	hs_acts_t batch;
	hs_exec_counts_t c;
	/* plan pass */
	unsigned char *flags;      /* [plan njobs] HS_XE_* */
	char (*refmsg)[96];        /* [plan njobs] why its start was refused */
	int *by_id;                /* [plan njobs] plan indices sorted by id */
	int *cands;                /* refill candidates, priority order */
	int ncands;
	int *refill_next;          /* [plan njobs] next candidate to try */
	int *refill_tries;         /* [plan njobs] */
	int *batch_r;              /* refill batch: act -> refused entry */
	char (*why)[128];          /* [plan njobs] a refill start's why */
	char (*reason)[192];       /* [plan njobs] what users see instead of
	                            * the plan's reason ("" = the plan's) */
	const char **avoid;        /* target nodes of the starts deferred in
	                            * this pass (the plan's strings) */
	int navoid, cap_avoid;
	/* ops pass */
	int nxops;
	hs_xop_t *xops;
	int *xop_of;               /* batch act -> its op */
	int requeues_only;
};

/* engine_exec.c */
hs_act_t *hs_exec_add(hs_exec_t *x, hs_act_kind_t kind, uint32_t id);
/* An act on plan entry i: the job's Slurm record, what it must still be. */
hs_act_t *hs_exec_add_plan(hs_exec_t *x, hs_act_kind_t kind, int i);
/* A start deferred in this pass (waiting for GPUs still held): its
 * target's nodes are left out of the fallbacks that follow. */
void hs_exec_reserve(hs_exec_t *x, const hs_target_t *t);
/* A TYPE or ANY start: leaves out the reserved nodes. */
void hs_exec_set_avoid(const hs_exec_t *x, hs_act_t *a);
/* Plan entry of job id, -1 = none. */
int hs_exec_plan_index(hs_exec_t *x, uint32_t id);
/* The per-entry texts and counters of refusals (refmsg, reason, why,
 * refill_*), allocated at the first refusal: most passes have none. */
int hs_exec_notes(hs_exec_t *x);

/* engine_exec_fill.c: the rules after a refused start. */
/* Were the GPUs of target t all free in the round's snapshot? Only then
 * can "nodes busy" not mean GPUs this round is still freeing: what the
 * nodes lack is something else the job asks for (memory, CPUs, a whole
 * node), held by jobs that stay. */
int hs_exec_target_was_free(const hs_snap_t *s, const hs_target_t *t);
/* Is a refusal one the fallback on the job's GPU type may cure? */
int hs_exec_wants_fallback(const hs_snap_t *s, const hs_act_t *a);
/* The refill's candidates (pending plan jobs left pending, eligible, in
 * priority order); -1 on out of memory. */
int hs_exec_refill_init(hs_exec_t *x);
/* Adds the next refill attempts (one per refused target still open);
 * returns how many. */
int hs_exec_refill_batch(hs_exec_t *x);
/* Records a refill batch's outcomes. */
void hs_exec_refill_done(hs_exec_t *x);

/* engine_exec_ops.c */
int hs_exec_ops_batch(hs_exec_t *x);
void hs_exec_ops_done(hs_exec_t *x);
void hs_exec_ops_free(hs_exec_t *x);

#endif /* HS_SCHED_ENGINE_EXEC_IMPL_H */
