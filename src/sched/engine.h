/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine.h — everything the sched/hetsched plugin decides, without Slurm.
 *
 * The plugin copies slurmctld's state into a snapshot (snapshot.h) under
 * backfill's locks, then, with no lock held, calls hs_engine_round(), which:
 *   1. classifies jobs: active (in the policy problem), pinned (running
 *      but not preemptible: their GPUs leave the policy's hands), leaving
 *      (a checkpoint is in flight), foreign (other partitions), ineligible;
 *   2. builds the core problem (cluster types = GRES types of the managed
 *      nodes, counts = usable GPUs; per job scale factor, throughput
 *      estimates (estimate.h), weight from priority/QOS, entity = account,
 *      remaining work and age), the servers and where jobs run now;
 *   3. drives the core round mechanism (mechanism.h): begin_round, the
 *      policy solve when a new allocation is due, schedule;
 *   4. turns the decisions into a plan (hs_plan_t): per job the Slurm
 *      operation (start / keep / checkpoint+requeue / requeue / suspend /
 *      resume), target nodes with GPU counts, and the reason text users
 *      see in squeue;
 *   5. keeps per-job accounting (time received on each type since the
 *      last allocation reset and in total, target share X, estimates) for
 *      `hetsched status`.
 * The plugin then re-takes write locks and carries the plan out as the
 * engine says, batch by batch, reporting every outcome (exec.h); the
 * engine decides what follows a refusal. Asynchronous steps (wait for a
 * checkpoint acknowledgement, requeue, clear the requeue delay, start on
 * the new nodes) are "ops" that an ops pass of exec.h advances every
 * tick.
 *
 * The whole state (mechanism, accounting, in-flight ops, counters) is
 * saved and restored as JSON (hs_engine_save / hs_engine_restore).
 * One engine per scheduler; not thread-safe (the plugin's agent thread is
 * its only user).
 */
#ifndef HS_SCHED_ENGINE_H
#define HS_SCHED_ENGINE_H

#include <json-c/json.h>
#include <stdint.h>

#include "core/mechanism.h"
#include "core/policy.h"
#include "core/thrtable.h"
#include "sched/learn.h"
#include "sched/sconf.h"
#include "sched/snapshot.h"
#include "sched/target.h"

/* Log levels of the engine's messages (mapped to Slurm's by the plugin). */
enum { HS_LOG_ERROR = 0, HS_LOG_INFO = 1, HS_LOG_DEBUG = 2 };
typedef void (*hs_log_fn)(void *arg, int level, const char *msg);

typedef enum hs_plan_op {
	HS_PLAN_NONE = 0,    /* leave as is (pending stays pending) */
	HS_PLAN_KEEP,        /* running on the chosen GPUs: do not touch */
	HS_PLAN_START,       /* pending: start on the target */
	HS_PLAN_RESUME,      /* suspended by hetsched on the chosen GPUs */
	HS_PLAN_SUSPEND,     /* running: suspend (GPUs stay with the job) */
	HS_PLAN_CHECKPOINT,  /* running: checkpoint signal, wait for the ack
	                      * or the grace, requeue; then start on the
	                      * target when it has nodes */
	HS_PLAN_REQUEUE,     /* running or suspended: requeue now; then start
	                      * on the target when it has nodes */
	HS_PLAN_SLURM,       /* pending, no single GPU type can hold it (and
	                      * it asked for none): started where Slurm
	                      * places it, on GPUs the round's own starts
	                      * left free; outside the policy */
} hs_plan_op_t;

const char *hs_plan_op_name(hs_plan_op_t op);

typedef struct hs_plan_job {
	uint32_t id;
	int snap;                  /* index into the snapshot's jobs */
	hs_plan_op_t op;
	hs_action_t action;        /* the mechanism's decision */
	int type;                  /* problem type index, -1 = none */
	const char *type_name;     /* owned by the engine (valid until the
	                            * next round) */
	hs_target_t target;        /* start target (nodes, GPUs per node) and
	                            * the job it is packed with */
	uint32_t slice_with;       /* HS_PLAN_SUSPEND for time slicing: job
	                            * started onto this job's GPUs this
	                            * round; suspend only after that start
	                            * succeeded (it needs this job running) */
	int ckpt_signal;           /* for HS_PLAN_CHECKPOINT */
	/* what the job looked like in the snapshot, for re-validation */
	hs_sjob_state_t state;
	unsigned restart_cnt;
	int64_t start_time;
	int64_t expected_start;    /* pending: expected start (unix s) from
	                            * the round's plan (start_est.h), 0 = no
	                            * estimate (engine_start.c) */
	char reason[192];          /* state_desc / SystemComment text */
} hs_plan_job_t;

/* Every reason the engine writes starts with this, then the round
 * number: the plugin recognises its own reasons by it (cpujobs.c keeps a
 * round's reason when a fill attempt fails), so write reasons only as
 * HS_REASON_PREFIX "%ld: ...". */
#define HS_REASON_PREFIX "hetsched round "

typedef struct hs_plan {
	long round;                /* mechanism round number */
	int reset;                 /* a new allocation was installed */
	int solved;                /* the policy ran this round */
	int solve_failed;
	double solve_ms;           /* policy solve */
	double engine_ms;          /* whole hs_engine_round */
	int njobs;
	hs_plan_job_t *jobs;       /* active jobs (and jobs with a reason) */
	int nactive, npinned, nleaving, nskipped;
	int nstart, nkeep, ncheckpoint, nrequeue, nsuspend, nresume, nmigrate;
	int gpus_usable, gpus_used;
} hs_plan_t;

void hs_plan_free(hs_plan_t *p);

/* Statistics the plugin measures around the engine (for status/logs). */
typedef struct hs_round_stats {
	double snapshot_lock_ms;   /* locks held for the snapshot */
	double apply_lock_ms;      /* write locks held to apply */
	double lock_hold_max_ms;   /* longest single hold of the round */
	int lock_yields;           /* times the round gave the locks back
	                            * (MaxLockHold) */
	double round_ms;           /* whole round, wall */
	int started, start_failed, deferred, kept, suspended, resumed;
	int checkpointing, requeued, requeue_failed, vanished;
	int cpu_started;
} hs_round_stats_t;

typedef struct hs_engine hs_engine_t;

/* conf is copied; tables are loaded here (a bad table is an error). */
hs_engine_t *hs_engine_new(const hs_sconf_t *conf, hs_log_fn log, void *log_arg,
			   hs_err_t *err);
void hs_engine_free(hs_engine_t *e);
/* Installs a new configuration (scontrol reconfigure): tables are loaded
 * and the policy context created first; on any error the engine keeps
 * the old configuration untouched. */
int hs_engine_reconfigure(hs_engine_t *e, const hs_sconf_t *conf, hs_err_t *err);
const hs_sconf_t *hs_engine_conf(const hs_engine_t *e);

/* One round on a snapshot (see the file comment). plan is initialized
 * here (hs_plan_free it, also on failure). On failure nothing is applied
 * and the mechanism's state is unchanged except for time credits. */
int hs_engine_round(hs_engine_t *e, const hs_snap_t *s, hs_plan_t *plan, hs_err_t *err);

/* Whether the select plugin can start a job on a running partner's GPUs
 * (doc/packing.md). Without it, a packed pair of the policy runs one
 * member alone and the other waits. */
void hs_engine_set_packing(hs_engine_t *e, int available);

/* Seconds a restarted slurmctld needs before what it reports of running
 * jobs can be trusted: its nodes register, a job it lost the start of is
 * aborted there and its old processes end (the plugin: AuthInfo's
 * cred_expire + 1 + KillWait; default 121, Slurm's default cred_expire
 * + 1). After a state restore a job whose start Slurm lost is not
 * started again, and running jobs are not preempted, for this long. */
void hs_engine_set_settle(hs_engine_t *e, int seconds);

/* The earliest time a round is due (0: at once), with or without a
 * change of the GPU job set since the last round (hs_engine_round_due). */
int64_t hs_engine_next_round(const hs_engine_t *e, int changed);
/* The round mechanism's counters (starts, keeps, resets, ...). */
void hs_engine_mech_stats(const hs_engine_t *e, hs_mech_stats_t *st);
/* Adds a copy of a throughput table after the configuration's
 * (ThroughputTable); a reconfigure drops it. For callers that hold the
 * table in memory (the simulator). */
int hs_engine_add_table(hs_engine_t *e, const hs_thrtable_t *t, hs_err_t *err);
/* Whether plan entries carry reason texts (default on: squeue shows them;
 * the simulator, which reads none, turns them off). Decisions do not
 * depend on them. */
void hs_engine_set_reasons(hs_engine_t *e, int on);
/* Writes the first problem the policy fails to solve to path (`hetsched
 * solve` input, for replay); NULL = never. The path is borrowed. */
void hs_engine_set_save_failed(hs_engine_t *e, const char *path);
/* The policy and mechanism options a configuration gives the engine
 * (the simulator's fluid mode uses the same). */
void hs_sconf_engine_opts(const hs_sconf_t *c, hs_policy_opts_t *po, hs_mech_opts_t *mo);

/* Is a round due at time now? (round length over, or an early round:
 * GPU jobs arrived or left and MinRoundInterval passed). `changed` is
 * whether the plugin saw the GPU job set change since the last round. */
int hs_engine_round_due(const hs_engine_t *e, int64_t now, int changed);
/* Would `changed` decide it? Only then is the job set worth comparing
 * (the plugin walks every job for it). */
int hs_engine_round_change_matters(const hs_engine_t *e, int64_t now);

/* ---- in-flight operations ---------------------------------------------------- */

/* Asynchronous steps of a preemption or a deferred start (wait for the
 * checkpoint acknowledgement, requeue, clear the requeue delay, start on
 * the new nodes): "ops", one per job, advanced by an ops pass of exec.h
 * every tick. */

/* What the executor sees of an op's job at a tick. */
typedef struct hs_op_view {
	uint32_t id;               /* the op's job (hs_exec_ops_jobs) */
	int exists;                /* the job record was found */
	hs_sjob_state_t state;
	int completing;
	unsigned restart_cnt;
	int64_t begin_time;
	const char *admin_comment; /* for the checkpoint acknowledgement */
	const struct hs_record *record; /* or the record parsed (snapshot.h) */
} hs_op_view_t;

/* Number of in-flight ops and their job ids. */
int hs_engine_nops(const hs_engine_t *e);
uint32_t hs_engine_op_job(const hs_engine_t *e, int i);

/* ---- state and status ----------------------------------------------------------- */

/* The whole state as JSON ({"format": "hetsched-sched-state",
 * "version": 1, ...}); the caller owns it. */
json_object *hs_engine_save(const hs_engine_t *e, hs_err_t *err);
/* The same document with its per-job arrays built only while it is
 * serialized (core/json_lazy.h: one job's tree at a time, not 13x the
 * text for all of them): for writing the state file, not for reading it
 * back as a tree. Serialize it (non-pretty) before the engine changes. */
json_object *hs_engine_save_lazy(const hs_engine_t *e, hs_err_t *err);
/* Replaces the engine's state by a saved one; validates everything and
 * leaves the engine untouched on error. */
int hs_engine_restore(hs_engine_t *e, json_object *state, hs_err_t *err);
/* The learned throughput table alone (sched/learn.h: hs_learn_save's
 * document, a warm start for another engine; Gavel's table format with
 * cells of at least min_n reports), and loading one (replaces it,
 * nothing changes on error). */
json_object *hs_engine_learned_save(const hs_engine_t *e);
/* What learning did (hs_learn_stats_t, sched/learn.h). */
void hs_engine_learn_stats(const hs_engine_t *e, hs_learn_stats_t *st);
json_object *hs_engine_learned_export(const hs_engine_t *e, unsigned min_n);
int hs_engine_learned_load(hs_engine_t *e, json_object *o, hs_err_t *err);

/* The status document (`hetsched status` reads it; format in
 * hetsched-status(1)) for the last round; the caller owns it. */
json_object *hs_engine_status(const hs_engine_t *e, const hs_snap_t *s,
			      const hs_plan_t *plan, const hs_round_stats_t *st,
			      int64_t now, hs_err_t *err);
/* The same document with "jobs" built only while it is serialized
 * (core/json_lazy.h), for writing it out (not for PrivateData=jobs, whose
 * per-user files filter the tree): serialize it (non-pretty) while s and
 * plan are alive and before the engine changes. */
json_object *hs_engine_status_lazy(const hs_engine_t *e, const hs_snap_t *s,
				   const hs_plan_t *plan, const hs_round_stats_t *st,
				   int64_t now, hs_err_t *err);

#endif /* HS_SCHED_ENGINE_H */
