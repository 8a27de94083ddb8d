/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bound.h — plausibility bounds on what a job claims about itself (issue
 * 28, "every claim is bounded"). A job reports its own steps/s per GPU
 * type (AdminComment, doc/protocol.md (c)) and declares its remaining
 * work (HS_STEPS); the policies act on both, so a job that inflates or
 * deflates them wins GPUs or a GPU type. The bounds, applied in this
 * order (doc/learning.md "Bounds" explains them to admins):
 *
 *  1. Table: a measured rate of a job whose model the throughput table
 *     knows lies within RateTableFactor of the table value (0 = off).
 *     Wide by default (100): jobs legitimately measure in other units
 *     (the emulator's --time-scale, real GPUs against Gavel's).
 *  2. Kind: a measured rate lies within HS_LEARN_OUTLIER (10, learning's
 *     own outlier factor) of its kind's learned rate on that type, where
 *     that cell is confident (HS_LEARN_CONFIDENT samples).
 *  3. Ratio: for every two types t, u the job's estimate, whatever its
 *     source, has rate(t) / rate(u) <= min(R[t][u] * RateRatioTolerance,
 *     RateRatioMax), where R[t][u] is the largest ratio any throughput
 *     table row or any *other* learned kind of the job's learning scope
 *     has shown (learn.h: LearnScope), and RateRatioMax alone where none
 *     has. An excess lowers the faster rate: lying makes a job look
 *     slower, never faster.
 *  4. Steps: remaining work is at most the time limit left times the
 *     job's best bounded rate, so that no declared HS_STEPS makes a job
 *     look longer than its time limit (makespan, finish-time fairness).
 *
 * Slurm-free, no global state.
 */
#ifndef HS_SCHED_BOUND_H
#define HS_SCHED_BOUND_H

#include <stddef.h>

#include "core/thrtable.h"

/* Which bounds applied (status "bounded", a log line). */
#define HS_BOUND_TABLE 1u
#define HS_BOUND_KIND 2u
#define HS_BOUND_RATIO 4u
#define HS_BOUND_STEPS 8u

typedef struct hs_bound_in {
	int ntypes;
	const double *table;   /* [ntypes] the job's table rates, 0 = none; NULL */
	const double *kind;    /* [ntypes] its kind's confident learned rates,
	                        * 0 = none; NULL */
	const double *maxr;    /* [ntypes * ntypes] R[t][u] at t * ntypes + u,
	                        * 0 = nothing seen; NULL = nothing anywhere */
	double table_factor;   /* RateTableFactor, 0 = off */
	double kind_factor;    /* 0 = off */
	double ratio_tol;      /* RateRatioTolerance, >= 1 */
	double ratio_max;      /* RateRatioMax; below 1 = no ceiling */
} hs_bound_in_t;

/* Bounds 1 and 2 on measured rates v[ntypes] (0 = not measured), in
 * place. Returns the HS_BOUND_* bits that changed a value. */
unsigned hs_bound_measured(const hs_bound_in_t *in, double *v);

/* Bound 3 on estimates v[ntypes] (0 = not usable), in place: the
 * faster rate of each pair over its limit is lowered until every pair
 * is within (a shortest-path fixpoint in log space, at most ntypes
 * passes). Returns HS_BOUND_RATIO when a value changed, else 0. */
unsigned hs_bound_ratios(const hs_bound_in_t *in, double *v);

/* Bound 4: steps capped at left_s * best_rate when both are > 0 and
 * finite (no time limit: no bound); *flags gets HS_BOUND_STEPS when it
 * applied. */
double hs_bound_steps(double steps, double left_s, double best_rate, unsigned *flags);

/* R of the throughput tables: into maxr[n * n] (which the caller has
 * zeroed or filled), the largest alone(t) / alone(u) of any row of
 * tables t[0..ntables-1] over the GPU types names[0..n-1]. */
void hs_bound_table_ratios(const hs_thrtable_t *t, int ntables, const char *const *names,
			   int n, double *maxr);

/* Comma-separated names of the bits (e.g. "table,ratio") into buf. */
void hs_bound_names(unsigned bits, char *buf, size_t len);

#endif /* HS_SCHED_BOUND_H */
