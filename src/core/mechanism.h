/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mechanism.h — Gavel's round-based mechanism: turns a policy's allocation X
 * (fraction of time each job should spend on each accelerator type, alone or
 * packed in pairs) into who runs where during the next round, on concrete
 * servers and GPU indices, with the action the caller must take per job.
 * The Slurm sched plugin and `hetsched simulate` call exactly these
 * functions; only the ends differ (Slurm state vs a trace, Slurm actions vs
 * a clock).
 *
 * HOW A CALLER DRIVES A ROUND (every round, e.g. every 360 s)
 * -----------------------------------------------------------
 *   hs_mech_t *m = hs_mech_new(&opts, &err);          once (or restore below)
 *   each round:
 *   1. Build this round's input, hs_round_in_t in:
 *        in.problem   the active jobs as an hs_problem_t (the same one the
 *                     policy solves): cluster types with counts = usable
 *                     GPUs of each type, and per job its id (matched across
 *                     rounds by id, never by index), scale factor,
 *                     throughput per type (0 = cannot run there), job_type
 *                     (for pairs).
 *        in.run       [njobs] where each job runs right now (0 GPUs = not
 *                     running), as server index + GPU index.
 *        in.servers   every GPU node: name, type, GPU count, which GPU
 *                     indices are usable (drained/foreign-held ones not).
 *        in.elapsed_s wall seconds since the previous round was applied
 *                     (0 on the first round).
 *   2. need = hs_mech_begin_round(m, &in, &err);
 *        credits elapsed_s to every running job on its type, notices
 *        arrivals/departures (by id) and cluster changes, and returns 1 when
 *        a new allocation should be computed now (job set or cluster changed
 *        and at least opts.min_reset_s since the last reset; or no
 *        allocation yet; or no active job is in the current one), 0 when
 *        the current one stays, -1 on bad input (message in err; the
 *        state is unchanged except for bookkeeping of ids seen).
 *   3. If need: hs_policy_solve(ctx, in.problem, &alloc, &err) — with no
 *        slurmctld locks held. A failed solve is not fatal: pass NULL below,
 *        the old allocation stays and step 2 asks again next round.
 *   4. hs_mech_schedule(m, &in, need ? &alloc : NULL, &out, &err);
 *        with the SAME in as step 2. If an allocation is given it is
 *        installed (deficits carried over, see below). Then priorities,
 *        greedy per-type selection and placement; out.d[i] tells, for
 *        problem job i: action, type, GPUs (server index + GPU index),
 *        servers spanned, packed partner.
 *   5. Apply out.d[i] (see hs_action_t), hs_round_out_free(&out). Stop
 *        first (PREEMPT, and the stop half of MIGRATE), then start (START,
 *        the start half of MIGRATE): a START may target GPUs that a job
 *        preempted in the same round frees. A packed pair (d.partner >= 0)
 *        shares the same GPUs: one member may KEEP while the other STARTs
 *        onto its GPUs.
 *   6. Persist: json_object *st = hs_mech_save(m, &err) (e.g. to
 *        StateSaveLocation); after a restart m = hs_mech_restore(st, &opts,
 *        &err), which validates everything and rejects garbage with a
 *        message.
 *
 * RULES (see doc/policies.md)
 *  - Per entry (a job alone, or a packed pair) and type the mechanism keeps
 *    the time received since the last allocation reset.
 *    The priority is the entry's lag, deficit + X * elapsed since reset -
 *    received, in half rounds u = lag / (R/2) (R the round length), as
 *    1 + u when behind and 1 / (1 - u) when ahead (1 on track, 0 without
 *    an allocation): largest lag first, so a user's many small-share jobs
 *    and another's few large-share ones are served alike (not Gavel's
 *    X / received fraction, whose half-round seed favours large X).
 *  - At a reset: deficit += X_old * elapsed - received, received := 0, then
 *    the new X is installed. Deficits survive resets (in the lag, and as
 *    the tie-breaker), and are dropped only when a job leaves.
 *  - Each round, types are visited fastest first (or in a random order, for
 *    heterogeneity-agnostic policies: opts.shuffle_types); per type,
 *    entries in decreasing (priority, deficit, X) order are taken while
 *    their scale factor fits in the free usable GPUs. A job is scheduled at
 *    most once per round; a packed pair uses its scale factor once; entries
 *    with zero throughput are skipped. With opts.backfill, jobs with X = 0
 *    on a type may still use GPUs nobody with X > 0 took (Gavel does this
 *    for every policy but FIFO).
 *  - Leases (opts.lease_s > 0): a job that started or moved less than
 *    lease_s ago (on the clock of elapsed_s) and still runs alone or with
 *    the same partner on its GPUs is taken first, on its type, before the
 *    greedy order: no round preempts or moves it within its lease.
 *  - Placement (placement.h): a job whose entry stays on the same type keeps
 *    its very same GPUs (lease extension, no preemption); otherwise
 *    multi-GPU jobs go on as few servers as possible.
 *  - Every change of placement of a job that has run before (migration, or
 *    start after a preemption) costs opts.preempt_cost_s seconds of
 *    checkpoint + restart, reported in hs_decision_t.cost_s and counted.
 *    With opts.restart_aware the selection weighs that cost (see the
 *    option); with a zero cost the choices are Gavel's.
 *
 * No global state; every function takes the mechanism. Not thread-safe per
 * mechanism (one caller at a time).
 */
#ifndef HS_CORE_MECHANISM_H
#define HS_CORE_MECHANISM_H

#include <json-c/json.h>

#include "core/model.h"
#include "core/placement.h"

/* What the caller must do with a job this round. */
typedef enum hs_action {
	HS_ACT_NONE = 0,  /* not running, stays pending */
	HS_ACT_START,     /* not running; start on d.gpus (d.resume: it ran
	                   * before, restart from its checkpoint) */
	HS_ACT_KEEP,      /* running on exactly d.gpus already: leave it
	                   * alone (lease extended) */
	HS_ACT_MIGRATE,   /* running elsewhere: checkpoint, stop, restart on
	                   * d.gpus */
	HS_ACT_PREEMPT,   /* running, but not this round: checkpoint and stop
	                   * (requeue / suspend); it stays active */
} hs_action_t;

/* "none", "start", "keep", "migrate", "preempt" (the simulator's timeline). */
const char *hs_action_name(hs_action_t a);

typedef struct hs_mech_opts {
	double min_reset_s;     /* minimum seconds between allocation resets
	                         * (Gavel's simulator: 1920); 0 = reset on every
	                         * change of the job set or cluster */
	double preempt_cost_s;  /* checkpoint + restart seconds charged to a job
	                         * that restarts after running before (0 =
	                         * Gavel's simulator) */
	int backfill;           /* 1 = jobs may use GPUs of types where their
	                         * X is 0 when nobody else wants them */
	int shuffle_types;      /* 1 = visit types in a random order each round
	                         * (heterogeneity-agnostic policies), 0 = fastest
	                         * type first */
	unsigned long seed;     /* for shuffle_types */
	double round_s;         /* nominal round length (restart_aware) */
	int restart_aware;      /* 1 = scale the priority of an entry whose job
	                         * would restart by (round_s - preempt_cost_s) /
	                         * round_s, the share of the round it would
	                         * still use: a running job is displaced only
	                         * when that pays. No effect when the cost is 0
	                         * (Gavel's mechanism exactly). */
	double lease_s;         /* a job the mechanism starts or moves keeps
	                         * its GPUs for at least this many seconds of
	                         * the clock: rounds within that time (a caller's
	                         * early rounds, brought by arrivals) leave it
	                         * running where it is. 0 = no minimum (Gavel's
	                         * simulator: every round may rotate it). */
} hs_mech_opts_t;

/* The round length every front end starts from (seconds, Gavel's 6
 * minutes): the mechanism's default, hetsched.conf's RoundLength default
 * and `hetsched simulate --round`'s default all name this one number. */
#define HS_ROUND_S_DEFAULT 360

/* Defaults: min_reset_s 1920, preempt_cost_s 0, backfill 1, shuffle 0,
 * round_s HS_ROUND_S_DEFAULT, restart_aware 1, lease_s 0. */
void hs_mech_opts_default(hs_mech_opts_t *o);
/* Gavel's per-policy conventions, from the policy registry (policy.h):
 * heterogeneity-agnostic policies (!hs_policy_is_aware) visit types in a
 * random order; policies whose allocation is a queue order (FIFO,
 * !hs_policy_backfills) do not backfill. Leaves other fields alone. */
void hs_mech_opts_for_policy(hs_mech_opts_t *o, const char *policy_name);

/* Where a job runs now, as the caller observes it. */
typedef struct hs_job_run {
	int ngpus;                 /* 0 = not running */
	const hs_gpu_ref_t *gpus;  /* [ngpus] into this round's servers */
} hs_job_run_t;

typedef struct hs_round_in {
	double elapsed_s;              /* seconds since the previous round's
	                                * decisions were applied, >= 0 */
	const hs_problem_t *problem;   /* active jobs + cluster types */
	const hs_job_run_t *run;       /* [problem->njobs]; NULL = none runs */
	int nservers;
	const hs_server_t *servers;    /* [nservers] */
	const unsigned char *const *job_servers;
	                               /* [problem->njobs] or NULL: per job
	                                * NULL (any server) or [nservers], 1 =
	                                * the job may run there. A job is only
	                                * selected on a type where its servers
	                                * have room, and only placed there. */
	const hs_job_run_t *home;      /* [problem->njobs] or NULL: per job,
	                                * the GPUs a job that does not run
	                                * holds and can run only on (a
	                                * suspended job that cannot be moved):
	                                * placed there when they are free,
	                                * as a running job's lease; not
	                                * counted as running */
} hs_round_in_t;

/* The decision for one job (aligned with problem->jobs). */
typedef struct hs_decision {
	hs_action_t action;
	int type;              /* accelerator type this round, -1 = not running */
	int ngpus;             /* GPUs this round (= scale factor), 0 = none */
	hs_gpu_ref_t *gpus;    /* [ngpus], in the hs_round_out_t's gpu_block
	                        * (a pair's two decisions share theirs) */
	int nservers;          /* distinct servers spanned (1 = consolidated) */
	int partner;           /* problem index of the job packed on the same
	                        * GPUs, -1 = alone */
	int resume;            /* START/MIGRATE from a checkpoint */
	double cost_s;         /* checkpoint + restart seconds charged now */
	double priority;       /* priority the choice used (diagnostics) */
	double x;              /* its allocation share on the chosen type */
} hs_decision_t;

typedef struct hs_round_out {
	long round;            /* 0-based round number */
	int reset;             /* 1 = a new allocation was installed */
	int njobs;
	hs_decision_t *d;      /* [njobs] */
	int nstart, nkeep, nmigrate, npreempt;
	int gpus_used;         /* GPUs running something this round */
	int gpus_usable;       /* usable GPUs this round */
	hs_gpu_ref_t *gpu_block; /* every decision's GPUs: one allocation a
	                        * round, not one a job (issue 27) */
} hs_round_out_t;

void hs_round_out_free(hs_round_out_t *out);

/* Counters since the mechanism was created (they survive save/restore). */
typedef struct hs_mech_stats {
	long rounds, resets;
	long starts, resumes, keeps, migrations, preemptions;
	long lease_opportunities;  /* running jobs that stayed active */
	double cost_s;             /* total checkpoint + restart seconds */
} hs_mech_stats_t;

typedef struct hs_mech hs_mech_t;

hs_mech_t *hs_mech_new(const hs_mech_opts_t *o, hs_err_t *err);
void hs_mech_free(hs_mech_t *m);

/* Step 2 above: 1 = compute a new allocation now, 0 = keep, -1 = error. */
int hs_mech_begin_round(hs_mech_t *m, const hs_round_in_t *in, hs_err_t *err);
/* Step 4 above: alloc (for in->problem, or NULL) installed, round decided.
 * out is initialized here; free it with hs_round_out_free (also on error). */
int hs_mech_schedule(hs_mech_t *m, const hs_round_in_t *in, const hs_alloc_t *alloc,
		     hs_round_out_t *out, hs_err_t *err);

void hs_mech_get_stats(const hs_mech_t *m, hs_mech_stats_t *s);

/* Seconds of mechanism time (sum of elapsed_s) and of the last reset
 * (the start-time estimate, start_est.h). */
double hs_mech_clock(const hs_mech_t *m);
double hs_mech_last_reset(const hs_mech_t *m);

/* Per job of the problem last scheduled (valid after hs_mech_schedule
 * until the next hs_mech_begin_round, same problem): share[i] its time
 * fraction in the allocation in force summed over types, alone and in
 * every pair; recv_s[i] the seconds it ran since the last reset, alone
 * and packed; in_alloc[i] (may be NULL) whether it was there when the
 * allocation in force was made (mech_query.c; used by the start-time
 * estimate). */
void hs_mech_shares(const hs_mech_t *m, int njobs, double *share, double *recv_s,
		    unsigned char *in_alloc);

/* Serializes the whole state (time received per job and type, deficits,
 * allocation in force, round number, placements, counters, random state);
 * NULL on failure. The caller owns the object (json_object_put). */
json_object *hs_mech_save(const hs_mech_t *m, hs_err_t *err);
/* The same document with its per-job arrays ("jobs", "entries") built
 * only while it is serialized (core/json_lazy.h): for writing it out,
 * not for reading it back as a tree; serialize it before m changes. */
json_object *hs_mech_save_lazy(const hs_mech_t *m, hs_err_t *err);
/* Rebuilds a mechanism from hs_mech_save's output with the given options;
 * validates every field and returns NULL with a message on garbage. */
hs_mech_t *hs_mech_restore(json_object *state, const hs_mech_opts_t *o, hs_err_t *err);

#endif /* HS_CORE_MECHANISM_H */
