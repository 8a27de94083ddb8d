/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hs_plugin.h — internals of the sched/hetsched plugin shared by its files:
 *   sched_hetsched.c  entry points (init, fini, sched_p_reconfig)
 *   agent.c           the scheduling thread: ticks, rounds, persistence
 *   conf.c            hetsched.conf through Slurm's s_p_* parser
 *   snapshot.c        slurmctld state -> hs_snap_t, under backfill's locks
 *   runnable.c        Slurm's answer: may a pending job start now, where
 *   apply.c           a round's plan carried out (the engine's execution
 *                     pass, exec.h), reasons, expected starts
 *   exec.c            the executor: one act of the engine's -> slurmctld
 *   start.c           the one start function and the one start gate
 *   lockhold.c        a pass's hold on the locks, yielded every MaxLockHold
 *   ops.c             in-flight checkpoint/requeue/deferred-start steps
 *   cpujobs.c         jobs without GPUs: priority order with fill
 *   hetjobs.c         heterogeneous jobs: cancelled with a reason
 *   heap.c            freed table parses handed back to the system
 * Everything that can live without Slurm is in src/sched (engine.h).
 */
#ifndef HS_PLUGIN_H
#define HS_PLUGIN_H

#include <stdint.h>

#include "sched/engine.h"
#include "sched/exec.h"
#include "sched/sconf.h"
#include "sched/snapshot.h"

#include "compat/hs_slurm.h"
#include "src/slurmctld/slurmctld.h"

#define HS_LOG_PREFIX "sched/hetsched: "

/* The order in which pending jobs get GPUs, as backfill orders them:
 * higher priority first, then earlier submission, then lower job id
 * (qsort-style result for job a against job b). Used by refill.c and
 * cpujobs.c. */
static inline int hs_prio_order(uint32_t pa, int64_t sa, uint32_t ia, uint32_t pb, int64_t sb,
				uint32_t ib)
{
	if (pa != pb)
		return pa > pb ? -1 : 1;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/* conf.c: reads `path` with s_p_*; 0 and *out filled, or -1 with why. A
 * missing file gives the defaults (returns 1). */
int hs_conf_load(const char *path, hs_sconf_t *out, char *why, size_t len);

/* lockhold.c: a pass's hold on slurmctld's scheduling locks
 * (HS_LOCKS_WRITE), yielded for a moment every max_ms of holding
 * (MaxLockHold; 0 = never). */
typedef struct hs_lock_hold {
	int max_ms;
	double since;      /* when the current hold began (hs_now_ms) */
	double total_ms;   /* time held, all holds of the pass */
	double longest_ms; /* longest single hold */
	int yields;
	/* Units: the work between two points where the pass may yield (one
	 * job's step, or a walk that cannot yield). A hold lasts at most
	 * max_ms plus one unit, so the longest unit and what it was say why
	 * a hold ran long (the round's log line). */
	const char *what;      /* the unit running now (hs_hold_what) */
	double unit_since;     /* when it began */
	double unit_max_ms;    /* longest unit of the pass */
	const char *unit_max_what;
} hs_lock_hold_t;
double hs_now_ms(void); /* CLOCK_MONOTONIC, milliseconds */
void hs_hold_begin(hs_lock_hold_t *h, int max_ms); /* takes the locks */
void hs_hold_end(hs_lock_hold_t *h);               /* gives them back */
/* When the current hold has lasted max_ms: unlock, pause, lock again and
 * return 1; the caller must then find every job again by id. Else 0.
 * h may be NULL (never yields). */
int hs_hold_yield(hs_lock_hold_t *h);
/* Ends the current unit and starts one named what (a static string);
 * h may be NULL. */
void hs_hold_what(hs_lock_hold_t *h, const char *what);

/* snapshot.c: the caller holds backfill's locks {READ conf, WRITE job,
 * WRITE node, READ part, READ fed} (runnable.c updates job reasons)
 * through hold, which may yield them between jobs. */
int hs_snapshot_take(const hs_sconf_t *conf, hs_snap_t *s, hs_lock_hold_t *hold,
		     uint64_t *fingerprint, time_t ended_since);
/* Ended jobs: those whose end time is at least ended_since (> 0) go in
 * s->ended (learned table only, snapshot.h). HS_ENDED_SLACK_S: how far
 * before the previous snapshot the agent looks back. */
#define HS_ENDED_SLACK_S 300
/* Its *fingerprint (on success): the GPU job set it started from, as
 * hs_gpu_jobs_fingerprint would say before the first yield, except for
 * jobs that left during a yield, which the snapshot lacks too.
 * Cheap fingerprint of the GPU job set (ids of managed GPU jobs that are
 * pending, running or suspended): a change (arrival, departure) triggers
 * an early round; hetsched's own starts and requeues do not.
 * Caller holds job and part read locks. */
uint64_t hs_gpu_jobs_fingerprint(const hs_sconf_t *conf);
/* The node's one GPU type ("gpu" for typeless GPUs), borrowed from its
 * GRES state; NULL when hetsched does not model its GPUs (none, several
 * types, no per-GPU bitmap). *gres_ns (if not NULL) gets its
 * gres_node_state_t. Node read lock held. */
const char *hs_node_gpu_type(node_record_t *node_ptr, void **gres_ns);
/* Does the job ask for GPUs (any gres/gpu in its request)? */
int hs_job_wants_gpus(job_record_t *job_ptr);
/* Can the rounds place its GPU request (one gres/gpu entry per job, per
 * node or per task)? 0 for shapes they do not model (--gpus-per-socket,
 * several GPU entries): the CPU fill starts those with Slurm's own
 * placement instead (cpujobs.c). */
int hs_job_gpu_shape_ok(job_record_t *job_ptr);
/* Is a pending job really clean to start? A requeued job keeps its old
 * nodes, resources and GRES allocation until Slurm's batch_requeue_fini()
 * clears them (after its old processes are gone); starting it before
 * that corrupts its GRES state. */
int hs_job_startable(job_record_t *job_ptr);
/* Is the job in a partition hetsched manages? */
int hs_job_managed(const hs_sconf_t *conf, job_record_t *job_ptr);

/* runnable.c: the nodes (Slurm node index bitmap, caller frees) where
 * Slurm would start this pending job now in the partitions hetsched
 * manages, asked as backfill asks (dependencies, begin time, QOS and
 * association limits, partition limits, reservations, -w/-x,
 * --constraint, node state); NULL when it would not start it now (the
 * job then carries Slurm's reason). w_short: its -w nodes hold fewer
 * GPUs than it asks for, so Slurm would add nodes to them (unless -N
 * caps the count). Snapshot locks held. */
bitstr_t *hs_job_runnable_nodes(const hs_sconf_t *conf, job_record_t *job_ptr, int w_short);

/* apply.c: carries out a round's plan (the engine's execution pass, then
 * reasons and expected starts). The caller holds {READ, WRITE, WRITE,
 * READ, READ} through hold. */
void hs_apply_plan(hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
		   hs_round_stats_t *st, hs_lock_hold_t *hold);

/* exec.c: does every act of an engine batch, writing its outcome (write
 * locks held through hold, which it may yield between acts; NULL: never). */
void hs_exec_run(const hs_sconf_t *conf, hs_acts_t *b, hs_lock_hold_t *hold);
/* Adds a pass's counts to the round's statistics. */
void hs_exec_count(hs_round_stats_t *st, const hs_exec_counts_t *c);

/* start.c: the one gate every start passes first. HS_OUT_DONE: it may
 * start now; HS_OUT_WAIT: still being cleaned up after a requeue;
 * HS_OUT_REFUSED: held, priority 0 or not eligible (*rc = Slurm's code);
 * HS_OUT_GONE: not pending. */
hs_outcome_t hs_may_start(job_record_t *job_ptr, int *rc);
/* The one start function: a pending job that passed hs_may_start,
 * started where `where` says (exec.h): exactly the target's nodes, packed
 * onto target->partner, any nodes of GPU type `type`, or any nodes of its
 * partitions (managed ones for a job of a managed partition), Slurm
 * placing it within that, never on the `navoid` nodes `avoid` names
 * (HS_WHERE_TYPE and HS_WHERE_ANY). A Slurm error code;
 * HS_ESLURM_PARTNER_GONE for a packed start whose partner does not run. */
int hs_start(const hs_sconf_t *conf, job_record_t *job_ptr, hs_where_t where,
	     const hs_target_t *target, const char *type, const char *const *avoid, int navoid,
	     const char *why);
#define HS_ESLURM_PARTNER_GONE ESLURM_JOB_NOT_RUNNING

/* ops.c: advances every in-flight op once (an ops pass of the engine);
 * returns how many steps were recorded. Caller holds the write locks.
 * requeues_only: only the requeues the ops ask for (during the startup
 * delay: a requeue a slurmctld crash lost is repeated before the job's
 * stopped processes report their end and Slurm fails the job). */
int hs_ops_tick(hs_engine_t *e, hs_round_stats_t *st, int requeues_only);

/* requeue_sweep.c: finishes every requeue Slurm left half done (a batch
 * job pending and no longer completing but still with its old nodes and
 * GRES: its node died while it was completing, so job_epilog_complete()
 * never ran batch_requeue_fini()), for jobs of managed partitions or with
 * an op of `e`. Called once per agent tick and once per round; returns
 * how many it finished. Write locks held. */
int hs_requeue_sweep(const hs_sconf_t *conf, const hs_engine_t *e);

/* cpujobs.c: starts the pending jobs the rounds do not place in priority
 * order, filling free CPUs (at most conf->cpu_fill_max attempts): jobs
 * without GPUs, jobs of unmanaged partitions and, with gpu_shapes (right
 * after a round's apply only), GPU shapes the rounds do not model. Write
 * locks held through hold, which it may yield between jobs (NULL: never). */
int hs_cpu_jobs_fill(const hs_sconf_t *conf, hs_lock_hold_t *hold, int gpu_shapes);

/* hetjobs.c: cancels every pending heterogeneous job (all components)
 * with hs_hetjob_reason as its reason; returns how many components.
 * Write locks held. */
extern const char hs_hetjob_reason[];
int hs_refuse_het_jobs(void);

/* agent.c: arg is the checked startup configuration (xmalloc'd
 * hs_sconf_t), which the thread owns. */
void *hs_agent(void *arg);
void hs_agent_stop(void);
void hs_agent_reconfig(void);

/* Logging glue for the engine (engine.h's hs_log_fn). */
void hs_plugin_log(void *arg, int level, const char *msg);
/* After a configuration (its throughput tables) is loaded: the parse's
 * freed heap back to the system (heap.c). */
void hs_heap_release(void);

#endif /* HS_PLUGIN_H */
