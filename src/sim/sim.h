/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim.h — the trace-driven simulator: the plugin's engine (engine.h, the
 * code that runs in slurmctld: classification, estimates, pinned jobs,
 * the policy, the round mechanism, the plan, its execution with the
 * fallbacks, in-flight checkpoints and requeues) on a simulated Slurm
 * (world.h) with a workload instead of users and a clock instead of
 * time. Only the two Slurm ends are replaced: what slurmctld shows
 * (snapshots, op views) and what it does with the engine's acts.
 *
 * Semantics:
 *  - The engine's configuration is a hetsched.conf (hs_sconf_t, its
 *    defaults the plugin's): rounds every RoundLength, early rounds when
 *    GPU jobs arrive or leave (EarlyRounds, MinRoundInterval), policy,
 *    resets, preemption mode and cost, pinned admission.
 *  - The clock runs in whole seconds as the plugin's agent does: a round
 *    when one is due, else a tick of the in-flight ops (each second while
 *    there are any); jobs end at their exact times in between.
 *  - A job runs at its true throughput from the table: alone on one
 *    server, spread over several (the table's "<type>_unconsolidated"
 *    throughput, or the consolidated one with consolidation = always, as
 *    Gavel's simulator), or packed with a partner (the pair throughput).
 *  - Jobs declare their model and steps (HS_MODEL, HS_STEPS) and whether
 *    they checkpoint (HS_CKPT: pinned jobs do not), report their step and
 *    the throughput they measure on each type alone (AdminComment), and
 *    acknowledge a checkpoint signal after ckpt_s seconds; a restart
 *    loads the checkpoint for restart_s seconds before it progresses; a
 *    requeue loses the work since the last checkpoint.
 *  - ideal = 1 replaces the engine by the policy's allocation run as a
 *    fluid (each job progresses at its effective throughput under X,
 *    recomputed at every arrival and completion): the reference the
 *    mechanism's fidelity is measured against (sim_ideal.c).
 *  - Finish-time fairness per job: rho = JCT / isolated JCT, the isolated
 *    JCT from the throughput an equal 1/M share of every type would give
 *    it (M = jobs present, at every moment of its life).
 */
#ifndef HS_SIM_SIM_H
#define HS_SIM_SIM_H

#include <stdio.h>

#include "core/mechanism.h"
#include "core/policy.h"
#include "core/thrtable.h"
#include "sched/learn.h"
#include "sched/sconf.h"
#include "sim/users.h"
#include "sim/workload.h"

typedef enum hs_consolidation {
	HS_CONS_PLACEMENT = 0,  /* spread multi-GPU jobs run unconsolidated */
	HS_CONS_ALWAYS = 1,     /* always the consolidated throughput */
} hs_consolidation_t;

typedef struct hs_sim_opts {
	hs_sconf_t conf;             /* the engine's hetsched.conf: Policy,
	                              * RoundLength, MinResetInterval,
	                              * PreemptCost, PinnedAdmission, ...;
	                              * ThroughputTable the jobs' model table */
	int gpus_per_server;         /* >= 1, default 1 */
	hs_consolidation_t consolidation;
	double restart_s;            /* a restart's checkpoint load, seconds */
	double ckpt_s;               /* a checkpoint signal's acknowledgement */
	int pinned_preemptible;      /* pinned jobs checkpoint anyway (the
	                              * old --pinned-admission ignore) */
	int measure;                 /* jobs report measured throughputs (1) */
	double unknown_models;       /* fraction of jobs (evenly spread, the
	                              * spread's phase from conf.seed) whose
	                              * model the engine is not told: no
	                              * HS_MODEL, their model as job name */
	int anonymous_jobs;          /* ... and no job name either: every such
	                              * job is its own learned kind */
	const char *learned_in;      /* if set, the engine starts from this
	                              * learned table (warm start) */
	const char *learned_out;     /* if set, the learned table at the end
	                              * is written there */
	int ideal;
	long window_first, window_last;  /* measured job ids; -1 = all */
	double max_time_s;           /* stop (unfinished) after this much
	                              * simulated time; 0 = no limit */
	int progress;                /* progress lines on stderr */
	const char *save_failed;     /* if set, the first problem the policy
	                              * fails to solve is written there as
	                              * `hetsched solve` input (for replay) */
	hs_sim_users_t *users;       /* users and accounts (users.h); NULL =
	                              * one user; users a trace names are
	                              * added to it */
	FILE *trace_acts;            /* if set, a line per act of the engine
	                              * and its outcome, and per round */
	FILE *timeline;              /* if set, one CSV line per job per GPU
	                              * per run segment
	                              * (hs_sim_timeline_header; `hetsched
	                              * timeline` draws it); rounds only */
} hs_sim_opts_t;

/* The header line of the timeline CSV (doc/accounting.md "timeline"). */
extern const char hs_sim_timeline_header[];

/* Defaults: the plugin's hetsched.conf defaults (hs_sconf_defaults), 1
 * GPU per server, placement-aware consolidation, no restart or
 * checkpoint time, measured throughputs reported, no window, no time
 * limit, progress on. hs_sim_opts_free it. */
int hs_sim_opts_default(hs_sim_opts_t *o, hs_err_t *err);
void hs_sim_opts_free(hs_sim_opts_t *o);

typedef struct hs_sim_job {
	char id[24];
	long index;                  /* 0-based arrival order */
	const char *model;           /* borrowed from the trace/table */
	int jt;                      /* table job type */
	int sf;
	double weight, slo, total_steps, arrival_s;
	int pinned;                  /* cannot be preempted once started */
	int line;                    /* trace line, 0 when generated */
	double *thr_cons, *thr_uncons, *thr_policy;  /* [ntypes] steps/s */
	/* progress */
	double done_steps;
	double first_start_s, finish_s;  /* -1 = not yet */
	/* predicted start (the plan's expected start, engine_start.c): the
	 * first prediction, and the first made at least one round after
	 * arrival; *_at when made, -1 = none */
	double pred_first_s, pred_first_at, pred_late_s, pred_late_at;
	int measured;
	int type, nservers, partner; /* where it runs (or ran last) */
	int user;                    /* index into the result's users */
	long group;                  /* index of the first job of its array
	                              * (a split strategy), else its own */
	int array_tasks;             /* jobs in that array, 0 = not one */
	/* counters */
	long starts, preemptions, migrations, restarts, keeps;
	double lost_s, gpu_s, iso_steps;
	double *type_s;              /* [ntypes] seconds run on each type */
} hs_sim_job_t;

/* One round's GPU use, for utilization over the measured interval. */
typedef struct hs_sim_round {
	double start_s, end_s;
	double busy_gpu_s;
} hs_sim_round_t;

typedef struct hs_sim_result {
	int ntypes;
	char **type_names;           /* borrowed from the cluster */
	int total_gpus;
	long njobs;
	hs_sim_job_t *jobs;          /* [njobs] every job that arrived */
	long nrounds, cap_rounds;    /* intervals of GPU use: one per round
	                              * (and the time after the last) */
	long rounds_run;             /* the engine's rounds (ideal mode:
	                              * fluid steps) */
	hs_sim_round_t *rounds;
	double end_s;
	int finished;                /* 0 = stopped by max_time_s */
	long solves;
	long solve_failures;         /* solves that failed (allocation kept) */
	double solve_s, wall_s;
	double cpu_s;                /* process CPU time of the run */
	long rejected;               /* jobs no type could ever run */
	hs_mech_stats_t mech;
	hs_learn_stats_t learn;      /* the engine's learning (Learning=) */
	hs_sim_users_t users;        /* who submitted: the run's users and
	                              * accounts (a copy; users.h) */
	/* per user (index into users.users): GPU-seconds held by its running
	 * jobs, and the GPU-seconds its Shares entitled it to given what its
	 * live jobs asked for (entitle.h) */
	double *user_gpu_s, *user_gpu_entitled;
	int cap_users;
} hs_sim_result_t;

/* Runs a whole simulation. The cluster gives types and GPU counts; the
 * table gives throughputs (every workload job type must be in it). res is
 * initialized here; hs_sim_result_free it also on failure. */
int hs_sim_run(const hs_sim_opts_t *o, const hs_cluster_t *c, const hs_thrtable_t *t,
	       hs_workload_t *w, hs_sim_result_t *res, hs_err_t *err);
void hs_sim_result_free(hs_sim_result_t *res);

#endif /* HS_SIM_SIM_H */
