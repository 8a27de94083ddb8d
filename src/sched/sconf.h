/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sconf.h — the configuration of the sched/hetsched plugin (hetsched.conf,
 * see hetsched.conf(5)): typed values, defaults, and the validation of each
 * key=value pair. Slurm-free: the plugin reads the file with Slurm's own
 * s_p_* parser (every key as a string) and hands each pair to
 * hs_sconf_set(), which converts and range-checks it with a message naming
 * the key; tests do the same without Slurm. A configuration is only
 * installed when every key of the file passed (hs_sconf_check last), so a
 * bad file never half-applies.
 */
#ifndef HS_SCHED_SCONF_H
#define HS_SCHED_SCONF_H

#include "core/model.h"

typedef enum hs_preempt_mode {
	HS_PREEMPT_REQUEUE = 0,  /* checkpoint (if the job opted in) + requeue */
	HS_PREEMPT_SUSPEND,      /* suspend; requeue only when the GPUs are
	                          * needed by another job or the job moves */
	HS_PREEMPT_OFF,          /* never preempt: running jobs keep their GPUs */
} hs_preempt_mode_t;

/* Fairness: who the policy's shares are between (hs_sconf_t.fairness). */
enum {
	HS_FAIR_TREE = 0,        /* accounts by Shares, users in an account by
	                          * theirs, every level of the association tree */
	HS_FAIR_ACCOUNTS,        /* accounts only (AccountWeights), one level */
	HS_FAIR_JOBS,            /* every job for itself */
};

/* A name -> weight list ("normal:1,high:4"). */
typedef struct hs_wlist {
	int n;
	char **names;
	double *w;
} hs_wlist_t;

#define HS_SCONF_MAX_TABLES 8

typedef struct hs_sconf {
	char *policy;                /* Policy */
	int round_s;                 /* RoundLength, seconds >= 1 */
	int min_round_gap_s;         /* MinRoundInterval: earliest next round
	                              * after a change (early rounds) */
	int early_rounds;            /* EarlyRounds: run a round before the
	                              * round length is over when GPU jobs
	                              * arrive or leave */
	double min_reset_s;          /* MinResetInterval */
	double estimate_resolve;     /* EstimateResolveFactor: recompute the
	                              * allocation when the ratio between a
	                              * job's estimates on two types moves by
	                              * more than this factor (0 = never) */
	double preempt_cost_s;       /* PreemptCost */
	int restart_aware;           /* RestartAware: the mechanism weighs a
	                              * restart's cost (no: Gavel's) */
	int backfill;                /* Backfill: -1 auto (policy), 0, 1 */
	int ntables;
	char *tables[HS_SCONF_MAX_TABLES]; /* ThroughputTable, comma list */
	hs_preempt_mode_t preempt;   /* PreemptMode */
	int requeue_no_ckpt;         /* RequeueWithoutCheckpoint: also requeue
	                              * running jobs that cannot checkpoint
	                              * (they lose their progress) */
	int pinned_always;           /* PinnedAdmission=always: pending jobs
	                              * that cannot be preempted enter the
	                              * policy at once (else share: within
	                              * their group's share, core/pinned.h) */
	int pinned_charge;           /* PinnedCharge: running pinned jobs'
	                              * GPUs count against their entities
	                              * (engine_entities.c, model.h's held) */
	int ckpt_grace_s;            /* CheckpointGrace */
	int restart_delay_s;         /* RestartDelay: seconds after a requeue
	                              * before the job may start again */
	int npartitions;             /* Partitions; 0 = all */
	char **partitions;
	int weight_by_priority;      /* WeightByPriority */
	hs_wlist_t qos_weights;      /* QosWeights */
	hs_wlist_t account_weights;  /* AccountWeights */
	hs_wlist_t gpu_prices;       /* GpuPrices: price per GPU-hour of each
	                              * GRES type (min_cost needs them) */
	int account_shares;          /* AccountWeights=shares */
	int fairness;                /* Fairness: HS_FAIR_TREE, _ACCOUNTS, _JOBS */
	int entity_fifo;             /* EntityMode=fifo (else fairness) */
	double solver_time_limit_s;  /* SolverTimeLimit, 0 = none */
	int pop_partitions;          /* PopPartitions, 1 = the whole LP */
	int max_jobs;                /* MaxJobs in one round's problem */
	int cpu_fill;                /* CpuJobs=yes: schedule jobs without GPUs */
	int cpu_fill_max;            /* CpuFillMax: start attempts per pass */
	unsigned long seed;          /* Seed */
	double pack_threshold;       /* PackThreshold */
	int debug;                   /* Debug: log every decision */
	int apply_delay_ms;          /* ApplyDelay (testing): pause between
	                              * the solve and the apply, no lock
	                              * held, so tests can change jobs under
	                              * a round's plan; 0 = none */
	int max_lock_hold_ms;        /* MaxLockHold: a round gives slurmctld's
	                              * locks back for a moment after holding
	                              * them this long; 0 = never */
	char *status_file;           /* StatusFile; NULL = StateSaveLocation */
	char *metrics_file;          /* MetricsFile: OpenMetrics exposition
	                              * after every round; NULL = none */
	double unknown_steps_s;      /* for jobs without HS_STEPS: remaining
	                              * work = this many seconds at their
	                              * estimated speed unless the time limit
	                              * says less (UnknownJobSeconds) */
	int learning;                /* Learning: learn throughputs per kind
	                              * of job (sched/learn.h) */
	int learn_scope;             /* LearnScope: hs_learn_scope_t */
	int learn_matrix_only;       /* LearnInference: 1 = matrix */
	int learn_max_kinds;         /* LearnMaxKinds: learned table bound */
	double learn_explore;        /* LearnExplore: share of the GPU time
	                              * optimistic estimates may send jobs to
	                              * types they have not run on; 0 = off */
	/* Bounds on what jobs report (sched/bound.h) */
	double rate_table_factor;    /* RateTableFactor: a measured rate
	                              * within this factor of its table
	                              * value; 0 = off */
	double rate_ratio_tol;       /* RateRatioTolerance: a claimed ratio
	                              * between two types may exceed the
	                              * largest the site has seen by this */
	double rate_ratio_max;       /* RateRatioMax: no ratio between two
	                              * types above this */
} hs_sconf_t;

/* The i-th key of the table (sconf_keys.c), NULL past the last: the
 * plugin registers each with s_p_*. */
const char *hs_sconf_key_name(int i);

/* Fills c with every key's default from the table (Policy=
 * max_min_fairness_perf, RoundLength=HS_ROUND_S_DEFAULT, ...). */
int hs_sconf_defaults(hs_sconf_t *c, hs_err_t *err);
void hs_sconf_free(hs_sconf_t *c);
/* Deep copy (dst uninitialized). */
int hs_sconf_copy(hs_sconf_t *dst, const hs_sconf_t *src, hs_err_t *err);

/* Sets one key (case-insensitive) from its text value; the message names
 * the key and says what is allowed. */
int hs_sconf_set(hs_sconf_t *c, const char *key, const char *value, hs_err_t *err);
/* Cross-key checks (the policy exists, ...), after every hs_sconf_set. */
int hs_sconf_check(const hs_sconf_t *c, hs_err_t *err);

/* Parses a whole "Key=Value" text (one pair per line, '#' comments): the
 * Slurm-free reader used by tests, by `hetsched status` (to find
 * StatusFile) and for the last good copy (conf_lastgood.c); the plugin
 * reads hetsched.conf with Slurm's s_p_* parser instead. */
int hs_sconf_parse_text(hs_sconf_t *c, const char *text, hs_err_t *err);

/* Is the partition managed? (no Partitions list = all) */
int hs_sconf_manages(const hs_sconf_t *c, const char *partition);
/* Weight of a name in a list, 1 when absent. */
double hs_wlist_get(const hs_wlist_t *l, const char *name);
const char *hs_preempt_mode_name(hs_preempt_mode_t m);

/* Checks slurm.conf's SchedulerParameters: Slurm's built-in FIFO loop
 * must not start jobs behind hetsched's back, which needs "defer" (no
 * scheduling at submit time) and "sched_interval=-1" (no periodic or
 * event-driven _schedule()). Returns 1 when both are there, else 0 with
 * what is missing in `why`. */
int hs_sched_params_ok(const char *params, char *why, size_t len);

/* The configuration as hetsched.conf text: "Key=Value" lines for every
 * key that has a value (unset ones left out), values exact, so that
 * hs_sconf_parse_text() of it gives the same configuration. malloc'd;
 * NULL with err when a value cannot be written as a line (a '#' in a
 * path). */
char *hs_sconf_write_text(const hs_sconf_t *c, hs_err_t *err);

/* One line with every key's value, in the table's order (for the log). */
int hs_sconf_describe(const hs_sconf_t *c, char *buf, size_t len);

#endif /* HS_SCHED_SCONF_H */
