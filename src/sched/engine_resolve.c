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

/* The last round's estimate a and this round's b (>= 0) differ by more
 * than factor f, or b is 0 where a was not (the type became unusable).
 * a = 0 is not known: a type the job could not use, or an entry restored
 * after a restart (estimates are not saved), which must not recompute the
 * allocation on its own. */
static int moved(double a, double b, double f)
{
	if (a <= 0.0)
		return 0;
	if (b <= 0.0)
		return 1;
	return fmax(a, b) > f * fmin(a, b);
}

/* Compares each problem job's estimate per type with the one the last
 * round used (hs_jacct_t.thr, in the job's units). A job not active in
 * the last round is an arrival, which the mechanism counts itself. The
 * comparison is with the last round, not with the last solve: estimates
 * drifting by less than the factor each round could add up unseen, but
 * a report moves a job's estimate in one step, and keeping a second row
 * per job would cost memory at every queued job. */
int hs_estimates_moved(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b)
{
	const double f = e->conf.estimate_resolve;
	if (!(f >= 1.0)) /* 0: only arrivals and departures */
		return 0;
	const hs_problem_t *pb = &b->problem;
	const int J = pb->cluster.ntypes;
	for (int k = 0; k < pb->njobs; k++) {
		const hs_jacct_t *ac = hs_acct_find(e, s->jobs[b->pjob_snap[k]].id);
		if (!ac || ac->seen_round != e->rounds)
			continue;
		for (int j = 0; j < J; j++) {
			int t = b->tmap[j];
			if (t < 0 || t >= e->acct_tcap)
				continue;
			if (moved(ac->thr[t], pb->jobs[k].thr[j] * b->units[k], f))
				return 1;
		}
	}
	return 0;
}
