/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strategy.h — strategic users in the simulator (issue 28, "A
 * strategic-user suite"): one user plays a strategy, the others are
 * honest, on the same generated workload (same seed: the same jobs, the
 * same users). From the command line, once per strategic user:
 *
 *   --strategy USER:NAME[=ARG]
 *
 * A strategy changes only what the user controls: what it submits (its
 * job count and sizes, HS_CKPT), what it declares (HS_MODEL, HS_STEPS)
 * and what its jobs report (the measured rates of the AdminComment
 * record, which the SPANK plugin fills from the job's own reports on the
 * step socket). The true speed of every job stays the table's; the engine
 * sees each lie exactly where slurmctld would show it.
 *
 *   honest            nothing (the control)
 *   no-preempt        opts out of preemption: every job pinned (no
 *                     --hs-ckpt / --hs-no-preempt: HS_CKPT=0), so it
 *                     never checkpoints and keeps its GPUs once started
 *   no-requeue        sbatch --no-requeue on every job (it still
 *                     checkpoints): Slurm cannot requeue it, so it can
 *                     never be moved; under PreemptMode=suspend it can
 *                     still be suspended (time slicing)
 *   drop-requeue      submits requeueable jobs that checkpoint, and
 *                     each job, once running, turns requeue off
 *                     (`scontrol update jobid=$SLURM_JOB_ID Requeue=0`
 *                     from its batch script, which Slurm allows the
 *                     owner): judged by what it is then, it could no
 *                     longer be moved (the engine keeps the flag it was
 *                     admitted with: hs_requeue_kept)
 *   split[=K]         many small array tasks: each job becomes K jobs
 *                     (default 8) of 1/K of its steps, same model, scale
 *                     factor and arrival, one job array (array_id): the
 *                     same GPU-seconds of demand
 *   ratio-slow[=F]    lies about per-type ratios: the rate it reports on
 *                     every type but its truly fastest is F times the
 *                     true one (default 10), a claim that the slow types
 *                     suit it as well as or better than the fast one
 *   ratio-fast[=F]    the opposite: F times the truth on its fastest type
 *   fake-model[=M]    declares another model (HS_MODEL) of the same
 *                     scale factor: M = max (default) the table's model
 *                     with the largest fastest/slowest rate ratio on the
 *                     cluster's types, min the smallest, or a model name
 *   inflate-steps[=F] declares F times its steps (HS_STEPS, default 10)
 *   odd-shape         a GPU request shape the rounds do not model
 *                     (--gpus-per-socket, two GPU entries: shape_ok = 0);
 *                     the simulated Slurm then starts it as the plugin's
 *                     CPU fill does (cpujobs.c): every second, in
 *                     priority order, on free GPUs of any type, ahead of
 *                     the next round
 *
 * Only generated workloads (--generate --users): the users must exist.
 */
#ifndef HS_SIM_STRATEGY_H
#define HS_SIM_STRATEGY_H

#include "core/model.h"
#include "core/thrtable.h"

typedef enum hs_strategy_kind {
	HS_STRAT_HONEST = 0,
	HS_STRAT_NO_PREEMPT,
	HS_STRAT_SPLIT,
	HS_STRAT_RATIO_SLOW,
	HS_STRAT_RATIO_FAST,
	HS_STRAT_FAKE_MODEL,
	HS_STRAT_INFLATE_STEPS,
	HS_STRAT_ODD_SHAPE,
	HS_STRAT_NO_REQUEUE,
	HS_STRAT_DROP_REQUEUE,
	HS_STRAT_COUNT
} hs_strategy_kind_t;

#define HS_STRAT_MODEL_MAX 128
#define HS_STRAT_SPLIT_MAX 1000

typedef struct hs_sim_strategy {
	hs_strategy_kind_t kind;
	double factor;                 /* split: K; ratio-*, inflate: F */
	char model[HS_STRAT_MODEL_MAX]; /* fake-model: "max", "min" or a name */
} hs_sim_strategy_t;

/* The strategy's name ("honest", "split", ...). */
const char *hs_sim_strategy_name(hs_strategy_kind_t k);
/* Parses NAME[=ARG] into s (validated: K an integer in [2, 1000], F a
 * finite number in (0, 1e6], a model name non-empty). */
int hs_sim_strategy_parse(hs_sim_strategy_t *s, const char *spec, hs_err_t *err);
/* A strategy's text form, NAME[=ARG] (the run's configuration). */
void hs_sim_strategy_format(const hs_sim_strategy_t *s, char *buf, size_t n);

/* Jobs each of the user's jobs becomes (split: K, else 1). */
int hs_sim_strategy_tasks(const hs_sim_strategy_t *s);
/* Does the user pin its jobs (no checkpoints)? */
int hs_sim_strategy_pinned(const hs_sim_strategy_t *s);
/* May Slurm requeue the user's jobs (no --no-requeue)? */
int hs_sim_strategy_requeue_ok(const hs_sim_strategy_t *s);
/* Do the user's jobs turn requeue off once they run (drop-requeue)? */
int hs_sim_strategy_drops_requeue(const hs_sim_strategy_t *s);
/* Does the user's request have a shape the rounds model? */
int hs_sim_strategy_shape_ok(const hs_sim_strategy_t *s);
/* The steps the user declares (HS_STEPS) for a job of `steps` steps. */
double hs_sim_strategy_steps(const hs_sim_strategy_t *s, double steps);
/* The table job type the user declares for true job type jt (the same
 * scale factor) given the cluster's types names[0..ntypes-1]: jt itself
 * unless fake-model; -1 when the named model is not in the table. */
int hs_sim_strategy_model(const hs_sim_strategy_t *s, const hs_thrtable_t *t, int jt,
			  char *const *names, int ntypes);
/* The rate a job reports for type `type` where it measured `measured`;
 * thr[0..ntypes-1] are its true rates on every type (0 = cannot run). */
double hs_sim_strategy_report(const hs_sim_strategy_t *s, const double *thr, int ntypes,
			      int type, double measured);

#endif /* HS_SIM_STRATEGY_H */
