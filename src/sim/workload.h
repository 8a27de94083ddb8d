/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workload.h — where the simulator's jobs come from, in arrival order:
 * either a trace (trace.h) or a generator with Gavel's distributions,
 * drawing from one seeded random generator held in the workload context:
 *
 *  - arrivals: the first job at t = 0, then exponential inter-arrival times
 *    for the given jobs/hour (a Poisson process); 0 jobs/hour = every job at
 *    t = 0 (a static trace);
 *  - duration on the reference type: 80% of jobs 10^U(1.5, 3) minutes, 20%
 *    10^U(3, 4) minutes;
 *  - scale factor (multi-GPU workloads): 1, 2, 4, 8 with probabilities
 *    0.7, 0.1, 0.15, 0.05 (drawn for every job, as Gavel does, and forced to
 *    1 for single-GPU workloads);
 *  - job type: uniform over the throughput table's models that have an
 *    entry for that scale factor with a throughput > 0 on the reference
 *    type;
 *  - priority weight (multi-priority workloads): 5 for 20% of jobs, else 1;
 *  - total steps = duration x the job type's throughput on the reference
 *    type.
 * Per job the draws happen in this order: scale factor, duration (two
 * draws), job type, priority (only for multi-priority workloads), then the
 * gap to the next arrival.
 *
 * A generated job of a user whose strategy splits (strategy.h "split=K")
 * comes out as K jobs of 1/K of its steps at its arrival, one after the
 * other (array tasks 0..K-1); the draws are the same as without the
 * strategy, so every other job is unchanged. A user whose strategy is
 * no-preempt submits every job pinned.
 */
#ifndef HS_SIM_WORKLOAD_H
#define HS_SIM_WORKLOAD_H

#include "core/thrtable.h"
#include "core/rng.h"
#include "sim/trace.h"
#include "sim/users.h"

typedef struct hs_gen_opts {
	double jobs_per_hour;   /* >= 0; 0 = all jobs at t = 0 */
	int multi_gpu;          /* draw scale factors 1/2/4/8 */
	int multi_priority;     /* 20% of jobs get weight 5 */
	long njobs;             /* jobs to generate; < 0 = no limit */
	unsigned long seed;
	const char *reference_type;  /* table GPU type for duration -> steps */
} hs_gen_opts_t;

typedef struct hs_workload {
	const hs_trace_t *trace;     /* trace mode, or NULL */
	double pinned_fraction;      /* [0, 1]: this fraction of the jobs, evenly
	                              * spread by arrival order (not drawn), is
	                              * marked pinned (cannot be preempted) on
	                              * top of the trace's own column; set after
	                              * construction, 0 by default */
	const hs_sim_users_t *users; /* generated jobs' users (users.h), by
	                              * their fractions; NULL = none */
	long *user_jobs;             /* generated jobs of each user so far */
	/* a strategic user's job split into an array (strategy.h): the
	 * tasks still to come, all copies of split_job but for the number */
	hs_trace_job_t split_job;
	int split_left;
	int next;
	/* generator mode */
	const hs_thrtable_t *table;
	hs_gen_opts_t g;
	int ref;                     /* reference type index in the table */
	hs_rng_t rng;
	long generated;
	double next_arrival;
	int nsf;                     /* candidate job types per scale factor */
	int sf_values[4];
	int *cands[4];
	int ncands[4];
} hs_workload_t;

/* A workload replaying a trace (borrowed; must outlive the workload). */
void hs_workload_from_trace(hs_workload_t *w, const hs_trace_t *t);
/* A generated workload (the table is borrowed). */
int hs_workload_generator(hs_workload_t *w, const hs_thrtable_t *t, const hs_gen_opts_t *g,
			  hs_err_t *err);
void hs_workload_free(hs_workload_t *w);

/* Total jobs the workload will produce (split tasks counted), or -1 when
 * unbounded. */
long hs_workload_size(const hs_workload_t *w);
/* Arrival time of the next job, or -1 when there is none. */
double hs_workload_peek(const hs_workload_t *w);
/* The next job (strings are borrowed from the trace or the table, valid
 * while they live). Returns 1 with a job, 0 at the end. */
int hs_workload_next(hs_workload_t *w, hs_trace_job_t *job);

#endif /* HS_SIM_WORKLOAD_H */
