/* SPDX-License-Identifier: GPL-2.0-or-later */
/* start_est.h — expected start times of waiting jobs, from the round
 * mechanism's own state (doc/start-times.md). Used by sched/hetsched
 * (squeue --start, scontrol show job) and by `hetsched simulate` (which
 * measures the estimate's error against the actual starts).
 *
 * THE ESTIMATOR (one call per round, after hs_mech_schedule)
 *  - A job that runs (or starts) this round: now.
 *  - A job with a share f > 0 in the allocation in force (the sum of its
 *    time fractions X over types, alone and in pairs) that does not run
 *    this round: the mechanism's priority is X / ((received + R/2) /
 *    (elapsed + R/2)) (mechanism.h), so the job comes back once the share
 *    of time it received since the last reset falls to f. With recv
 *    seconds received and E seconds since the reset, that is the first
 *    round n >= 1 with (recv + R/2) / (E + n R + R/2) <= f:
 *    n = max(1, ceil(((recv + R/2) / f - E - R/2) / R)); start = now + n R.
 *    The mechanism now ranks by lag (def + X E - received, mechanism.c),
 *    but this rule, Gavel's, predicts its starts better than the lag's
 *    own "back once the lag is no longer negative": the jobs behind
 *    their allocation still wait their turn for the GPUs, and the half
 *    round of seeding delays the estimate by about that wait (measured,
 *    doc/start-times.md: mean error 0.31 of the "starts now" baseline,
 *    against 0.70 with the lag rule and 0.31 with the lag's deficit
 *    added here, which is worse one round after arrival).
 *  - A job that arrived since the last reset, under a sharing policy:
 *    the next reset gives it a share, and a job that has not run yet ranks
 *    high: the first round at or after in->next_reset.
 *  - A job without a share (FIFO's queue, policies that give it nothing,
 *    jobs beyond MaxJobs): list scheduling over the pool of usable GPUs in
 *    queue order. Each running job holds its GPUs until its expected end
 *    (remaining work at its rate); each share job holds its GPUs from its
 *    estimate for its remaining time; a waiting job then takes the
 *    earliest `gpus` GPUs that free up, rounded up to a round boundary.
 * Limits: no future arrivals, no reallocation when the job set changes
 * (a new allocation can move any estimate), GPU types pooled (a job
 * restricted to one type can wait longer), remaining times from the
 * scheduler's own work estimates (unknown_s when the job gave none).
 * Slurm-free; no global state.
 */
#ifndef HS_CORE_START_EST_H
#define HS_CORE_START_EST_H

#include "core/model.h"

typedef struct hs_start_job {
	int gpus;             /* GPUs it needs at once, >= 1 */
	int running;          /* runs (or starts) this round */
	double share;         /* time fraction in the allocation in force,
	                       * summed over types (0 = no share) */
	double recv_s;        /* seconds it ran since the last reset */
	double remaining_s;   /* expected seconds to finish once running;
	                       * <= 0 or not finite = unknown */
	int new_job;          /* not in the allocation in force (arrived
	                       * since the last reset) */
} hs_start_job_t;

typedef struct hs_start_in {
	double now;           /* time of this round */
	double round_s;       /* round length, > 0 */
	double since_reset_s; /* seconds since the allocation reset, >= 0 */
	int gpus;             /* usable GPUs, all types */
	double unknown_s;     /* remaining time assumed when unknown, > 0 */
	int sharing;          /* the policy gives every job a share (all but
	                       * queue-order policies such as FIFO) */
	double next_reset;    /* earliest time of the next allocation reset
	                       * (last reset + MinResetInterval) */
} hs_start_in_t;

/* jobs[njobs] in queue order (the order the scheduler prefers them in);
 * start[njobs] gets each job's expected start, or -1 when it can never
 * start (needs more GPUs than exist). 0, or -1 with err on bad input. */
int hs_start_estimate(const hs_start_in_t *in, const hs_start_job_t *jobs, int njobs,
		      double *start, hs_err_t *err);

#endif /* HS_CORE_START_EST_H */
