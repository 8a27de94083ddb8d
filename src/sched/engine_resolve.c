/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_resolve.c — whether this round's estimates moved far enough from
 * the last round's to recompute the allocation (EstimateResolveFactor).
 *
 * The mechanism recomputes the allocation when jobs arrive or leave
 * (mechanism.h). With a throughput table the estimates do not move in
 * between, but a learned job's do: its first report replaces an agnostic
 * or inferred estimate by a measured one, often by a factor of 2-10.
 * Without this, an allocation solved on a job set's first, blind
 * estimates stayed in force until the next arrival or departure: hours,
 * on a site whose long jobs run for days. A leaf of the engine. */
#include "sched/engine_impl.h"

#include <math.h>

/* Job k's estimates moved between the last round's (old, in the job's
 * units, hs_jacct_t.thr) and this round's: the ratio between two of its
 * types changed by more than factor f, or a type it could use became
 * unusable, or (absolute set: the policy is not scale-free) one of them
 * moved by more than f.
 * Under a scale-free policy (max-min fairness, water filling, FIFO;
 * hs_policy_is_scale_free) a change of all types by one factor is not a
 * move: it does not change the allocation, and it is what a table job's
 * first report does when its steps are not the table's (a time scale, a
 * different GPU model, doc/learning.md), which recomputed the allocation
 * of every such job for nothing. Under finish-time fairness, the aware
 * makespan, throughput, cost, SLOs or AlloX it is one: a job found 2x
 * slower everywhere needs twice the time, or gives half the throughput.
 * A type with no estimate last round (one the job could not use) is not
 * compared. The last round's estimates are in the saved state
 * (engine_state.c), so after a restart the first round compares with
 * those from before it. */
static int job_moved(const hs_engine_t *e, const hs_round_build_t *b, int k,
		     const double *old, double f, int absolute)
{
	const hs_problem_t *pb = &b->problem;
	double lo = INFINITY, hi = 0.0;
	for (int j = 0; j < pb->cluster.ntypes; j++) {
		int t = b->tmap[j];
		if (t < 0 || t >= e->acct_tcap || !(old[t] > 0.0))
			continue;
		double now = pb->jobs[k].thr[j] * b->units[k];
		if (!(now > 0.0))
			return 1;
		double r = now / old[t];
		lo = fmin(lo, r);
		hi = fmax(hi, r);
	}
	if (hi > f * lo)
		return 1;
	/* none compared: lo stays INFINITY, hi 0 */
	return absolute && hi > 0.0 && (hi > f || lo * f < 1.0);
}

/* Compares each problem job's estimates with the ones the last round
 * used. A job not active in the last round is an arrival, which the
 * mechanism counts itself. The comparison is with the last round, not
 * with the last solve: estimates drifting by less than the factor each
 * round could add up unseen, but a report moves a job's estimate in one
 * step, and keeping a second row per job would cost memory at every
 * queued job. */
int hs_estimates_moved(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b)
{
	const double f = e->conf.estimate_resolve;
	if (!(f >= 1.0)) /* 0: only arrivals and departures */
		return 0;
	const int absolute = !hs_policy_is_scale_free(e->conf.policy);
	for (int k = 0; k < b->problem.njobs; k++) {
		const hs_jacct_t *ac = hs_acct_find(e, s->jobs[b->pjob_snap[k]].id);
		if (ac && ac->seen_round == e->rounds && job_moved(e, b, k, ac->thr, f, absolute))
			return 1;
	}
	return 0;
}
