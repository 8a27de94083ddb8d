/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim.h — the trace-driven simulator's event loop: the same core code as
 * the Slurm plugin (hs_problem_t built per round, hs_policy_solve, the
 * round mechanism hs_mech_* with placement on concrete servers), with a
 * workload instead of Slurm's queue and a clock instead of Slurm actions.
 *
 * Semantics (mirroring Gavel's simulator where sensible):
 *  - Rounds of mopts.round_s seconds. Jobs that arrive during a round join
 *    at the next round boundary. A round ends after round_s, or earlier when
 *    every job scheduled in it finished (Gavel does the same).
 *  - The allocation is recomputed when the mechanism asks (jobs arrived or
 *    finished and min_reset_s passed since the last reset, or nothing is
 *    allocated). A failed solve keeps the allocation in force, as in the
 *    plugin, and is counted (solve_failures); in ideal mode it is an
 *    error.
 *  - A job placed on one server runs at the table's throughput; a
 *    multi-GPU job spread over several servers at the table's
 *    "<type>_unconsolidated" throughput (consolidation = placement), or
 *    always at the consolidated one (consolidation = always, what Gavel's
 *    simulator does). The policy sees, per type, the consolidated
 *    throughput when a server of that type can hold the whole job, else
 *    the unconsolidated one.
 *  - A packed pair runs each job at its pair throughput from the table.
 *  - A restart (migration, or start after a preemption) loses
 *    preempt_cost_s of the round (checkpoint + restart).
 *  - Pinned jobs (trace column 11 = 0, or --pinned-fraction; pinned.h)
 *    cannot be preempted: once started, a pinned job runs until it ends,
 *    outside the policy's problem, and its GPUs are not usable by anyone
 *    else (the problem's counts drop by them). pinned_admission says when a
 *    pending one may enter the problem: HS_SIM_PIN_SHARE (the plugin's
 *    default) by hs_pin_admit in arrival order, HS_SIM_PIN_ALWAYS at once
 *    (the old behaviour: it gets a time share like any job, then keeps its
 *    GPUs once started), HS_SIM_PIN_IGNORE treats every job as preemptible.
 *    Ideal mode ignores pinning.
 *  - ideal = 1 replaces rounds by the allocation itself, run as a fluid
 *    (each job progresses at its effective throughput under X, recomputed
 *    at every arrival and completion): the reference the mechanism's
 *    fidelity is measured against.
 *  - Finish-time fairness per job: rho = JCT / isolated JCT, with the
 *    isolated JCT approximated by integrating, over the job's lifetime,
 *    the throughput it would get from an equal 1/M share of every type (M =
 *    active jobs at each round): rho = that integral / total steps.
 */
#ifndef HS_SIM_SIM_H
#define HS_SIM_SIM_H

#include <stdio.h>

#include "core/mechanism.h"
#include "core/policy.h"
#include "core/thrtable.h"
#include "sim/workload.h"

typedef enum hs_consolidation {
	HS_CONS_PLACEMENT = 0,  /* spread multi-GPU jobs run unconsolidated */
	HS_CONS_ALWAYS = 1,     /* always the consolidated throughput */
} hs_consolidation_t;

typedef enum hs_sim_pin {
	HS_SIM_PIN_SHARE = 0,   /* pending pinned jobs admitted by group share */
	HS_SIM_PIN_ALWAYS,      /* every pending pinned job in the problem */
	HS_SIM_PIN_IGNORE,      /* pinned jobs treated as preemptible */
} hs_sim_pin_t;

typedef struct hs_sim_opts {
	const char *policy;
	hs_policy_opts_t popts;
	hs_mech_opts_t mopts;        /* min_reset_s, preempt_cost_s, backfill,
	                              * shuffle_types, seed, and round_s: the
	                              * round length (> 0), the one the
	                              * mechanism charges restarts against */
	int gpus_per_server;         /* >= 1, default 1 */
	hs_consolidation_t consolidation;
	int ideal;
	long window_first, window_last;  /* measured job ids; -1 = all */
	double max_time_s;           /* stop (unfinished) after this much
	                              * simulated time; 0 = no limit */
	int progress;                /* progress lines on stderr */
	hs_sim_pin_t pinned_admission;
	const char *save_failed;     /* if set, the first problem the policy
	                              * fails to solve is written there as
	                              * `hetsched solve` input (for replay) */
	FILE *timeline;              /* if set, one CSV line per job per GPU
	                              * per round (hs_sim_timeline_header;
	                              * `hetsched timeline` draws it); rounds
	                              * mode only */
} hs_sim_opts_t;

/* The header line of the timeline CSV (doc/accounting.md "timeline"). */
extern const char hs_sim_timeline_header[];

/* Defaults (policy left NULL): round HS_ROUND_S_DEFAULT s, Gavel's 1920 s between
 * resets, no preemption cost, 1 GPU per server, placement-aware
 * consolidation, no window, no time limit, progress on. */
void hs_sim_opts_default(hs_sim_opts_t *o);

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
	/* predicted start (sim_start.h): the first prediction, and the first
	 * made at least one round after arrival; *_at when made, -1 = none */
	double pred_first_s, pred_first_at, pred_late_s, pred_late_at;
	int measured;
	/* where it runs now */
	int ngpus;
	hs_gpu_ref_t *gpus;          /* [sf] */
	int type, nservers, partner; /* partner: job index, -1 */
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
	long nrounds, cap_rounds;
	hs_sim_round_t *rounds;
	double end_s;
	int finished;                /* 0 = stopped by max_time_s */
	long solves;
	long solve_failures;         /* solves that failed (allocation kept) */
	double solve_s, wall_s;
	double cpu_s;                /* process CPU time of the run */
	long rejected;               /* jobs no type could ever run */
	hs_mech_stats_t mech;
} hs_sim_result_t;

/* Runs a whole simulation. The cluster gives types and GPU counts; the
 * table gives throughputs (every workload job type must be in it). res is
 * initialized here; hs_sim_result_free it also on failure. */
int hs_sim_run(const hs_sim_opts_t *o, const hs_cluster_t *c, const hs_thrtable_t *t,
	       hs_workload_t *w, hs_sim_result_t *res, hs_err_t *err);
void hs_sim_result_free(hs_sim_result_t *res);

#endif /* HS_SIM_SIM_H */
