/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exec.h — carrying out what the engine decided: the engine says what to
 * do, one batch of acts at a time; an executor (the sched plugin inside
 * slurmctld, the simulator's Slurm, the tests' fake) does each act and
 * writes its outcome into it; the engine reads the outcomes and decides
 * the next batch. Every decision that depends on an outcome is the
 * engine's, Slurm-free and unit-tested:
 *   - a start Slurm refuses because the planned nodes cannot hold the job
 *     (HS_REFUSE_CONFIG, or "nodes busy" while the planned GPUs were free
 *     in the snapshot: memory or CPUs held by jobs that stay) is retried
 *     on any nodes of the planned GPU type, then on any type (Slurm
 *     placing it, as it would a job that named no type);
 *   - "nodes busy" while the planned GPUs are still held (a victim being
 *     preempted in the same pass) waits: retried every tick until the
 *     next round (an in-flight op); its target's nodes are left out of
 *     every start of the pass where Slurm picks the nodes (`avoid`), so
 *     none takes the part of the target that is free already;
 *   - the GPUs of a start refused for good go, in the same pass, to the
 *     next pending job in priority order that fits them (refill);
 *   - jobs no single GPU type can hold are placed by Slurm after the
 *     round's own starts;
 *   - a time-slicing suspend follows only the start it makes room for.
 * Two kinds of pass: a round's plan (hs_exec_plan) and a tick of the
 * in-flight operations (hs_exec_ops). Both end with every outcome
 * recorded in the engine (accounting, the op table, counters).
 *
 * The executor's part is mechanical: find the job (by id), check it is
 * still what the act says (state, incarnation), pass the one "may it
 * start now" gate, call the one start function (or signal, requeue,
 * suspend), and report what happened. It never chooses a job, a node or
 * a retry.
 */
#ifndef HS_SCHED_EXEC_H
#define HS_SCHED_EXEC_H

#include <stdint.h>

#include "sched/engine.h"

typedef enum hs_act_kind {
	HS_DO_CKPT_SIGNAL = 0, /* checkpoint signal (the protocol's two
	                         * deliveries: batch script and steps) */
	HS_DO_REQUEUE,         /* requeue now (running or suspended) */
	HS_DO_SUSPEND,
	HS_DO_RESUME,
	HS_DO_START,           /* start a pending job, `where` says how */
	HS_DO_CLEAR_BEGIN,     /* set the job's begin time to `begin` (the
	                         * requeue delay Slurm added) */
} hs_act_kind_t;

typedef enum hs_where {
	HS_WHERE_NODES = 0,     /* exactly the target's nodes and GPU counts */
	HS_WHERE_PACKED,        /* onto the GPUs of target->partner, which
	                         * runs (space sharing, doc/packing.md) */
	HS_WHERE_TYPE,          /* any nodes of GPU type `type`, Slurm picks */
	HS_WHERE_ANY,           /* any nodes of the job's managed partitions,
	                         * Slurm picks (any GPU type) */
} hs_where_t;

typedef enum hs_outcome {
	HS_OUT_DONE = 0,        /* it happened */
	HS_OUT_GONE,            /* the job is not what the act expected any
	                         * more (ended, changed state, another
	                         * incarnation): nothing was done */
	HS_OUT_WAIT,            /* a start that cannot happen yet: the job is
	                         * still being cleaned up after a requeue,
	                         * or (HS_REFUSE_BUSY) its nodes are busy */
	HS_OUT_REFUSED,         /* a start Slurm refused; see refusal */
	HS_OUT_FAILED,          /* a signal, requeue, suspend or resume that
	                         * failed (the job stays as it was) */
} hs_outcome_t;

typedef enum hs_refusal {
	HS_REFUSE_NONE = 0,
	HS_REFUSE_BUSY,         /* the nodes lack free resources now */
	HS_REFUSE_CONFIG,       /* the nodes can never hold the request
	                         * (Slurm: requested node configuration is
	                         * not available) */
	HS_REFUSE_HELD,         /* the job may not start now at all: held,
	                         * priority 0, unmet dependency or begin time */
	HS_REFUSE_PARTNER,      /* HS_WHERE_PACKED: the partner does not run
	                         * (any more) */
	HS_REFUSE_OTHER,        /* any other refusal (limits, reservation,
	                         * partition, node state) */
} hs_refusal_t;

const char *hs_act_kind_name(hs_act_kind_t k);
const char *hs_where_name(hs_where_t w);
const char *hs_outcome_name(hs_outcome_t o);

typedef struct hs_act {
	/* what to do (the engine's) */
	hs_act_kind_t kind;
	uint32_t id;               /* the job to act on (a job array's extra
	                            * task slot: the array's pending record,
	                            * snapshot.h's act_id) */
	uint32_t job;              /* the job the decision is about (its
	                            * snapshot id; = id but for array slots) */
	int plan;                  /* plan entry, -1 = an op's step */
	hs_where_t where;          /* HS_DO_START */
	const hs_target_t *target; /* HS_WHERE_NODES, HS_WHERE_PACKED */
	const char *type;          /* HS_WHERE_TYPE */
	/* HS_WHERE_TYPE, HS_WHERE_ANY: nodes Slurm must leave out (the
	 * targets of starts this pass deferred: their free GPUs wait for
	 * them); names valid until the next hs_exec_next */
	const char *const *avoid;
	int navoid;
	int signal;                /* HS_DO_CKPT_SIGNAL */
	int64_t begin;             /* HS_DO_CLEAR_BEGIN */
	int restore_requeue;       /* HS_DO_REQUEUE: incarnation restart_cnt
	                            * was admitted requeueable and has turned
	                            * requeue off since (hs_requeue_kept):
	                            * allow this one requeue, then put the
	                            * job's flag back */
	const char *why;           /* for the logs and SystemComment */
	/* What the job must still be (the executor checks; GONE if not):
	 * check_state 0 = only that it exists. */
	int check_state;
	hs_sjob_state_t state;
	unsigned restart_cnt;
	int64_t start_time;        /* running: this incarnation's start */
	/* what happened (the executor's) */
	hs_outcome_t out;
	hs_refusal_t refusal;
	int code;                  /* the executor's own error code (Slurm's) */
	char msg[96];              /* its text (slurm_strerror), for reasons */
} hs_act_t;

typedef struct hs_acts {
	int n, cap;
	hs_act_t *a;
} hs_acts_t;

/* Counts of one pass's outcomes (added into the plugin's round stats). */
typedef struct hs_exec_counts {
	int started, start_failed, deferred, kept, suspended, resumed;
	int checkpointing, requeued, requeue_failed, vanished;
	int refilled, fallbacks;
	int ops;                   /* op steps recorded (ops pass) */
} hs_exec_counts_t;

typedef struct hs_exec hs_exec_t;

/* A pass over a round's plan (plan and s must outlive the pass; the
 * engine must not run a round meanwhile). NULL on out of memory. */
hs_exec_t *hs_exec_plan(hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
			int64_t now);
/* A pass over the in-flight ops: views[i] is what the executor sees of
 * the job of an op (its id from hs_exec_ops_jobs, in views[i].id). requeues_only: only the requeues the ops ask
 * for (slurmctld's startup delay). NULL on out of memory. */
hs_exec_t *hs_exec_ops(hs_engine_t *e, const hs_op_view_t *views, int nviews, int64_t now,
		       int requeues_only);
/* The next batch, in the order its acts must be done: the executor fills
 * each act's outcome, then asks again. NULL when the pass is over (every
 * outcome is recorded in the engine then). */
hs_acts_t *hs_exec_next(hs_exec_t *x);
/* After the pass: the text users see for plan entry i (squeue's reason
 * for a pending job, SystemComment for a running one): the plan's, or
 * why Slurm refused the planned start. NULL for an ops pass. */
const char *hs_exec_reason(const hs_exec_t *x, int i);
/* Did the pass start or restart a job? (for slurmctld's state save) */
const hs_exec_counts_t *hs_exec_counts(const hs_exec_t *x);
void hs_exec_free(hs_exec_t *x);

/* The jobs an ops pass needs views of: the op job ids, in op order. */
int hs_exec_ops_jobs(const hs_engine_t *e, uint32_t *ids, int cap);

#endif /* HS_SCHED_EXEC_H */
