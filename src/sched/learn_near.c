/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn_near.c — inference from the nearest kinds (issue 26, item 3).
 *
 * The scope's speedup matrix (learn.c) is one average over all of the
 * scope's kinds, so a model unlike the majority gets the majority's
 * ratio: live, A3C's and Recommendation's K80 rates were inferred 3-5x
 * too low from a matrix dominated by models that gain 4-9x from K80 to
 * V100 (doc/learning.md, "Measured live"). A kind that has measured two
 * types or more has a *profile*: its log rates on those types, less
 * their mean. Another kind of the scope that measured the same types
 * and the target type t predicts
 *
 *     log rate(t) = mean_C log rate_k  +  (log rate_j(t) - mean_C log rate_j)
 *
 * over the types C both measured (t left out), and counts with weight
 * exp(-d^2 / h^2) * n_j / (n_j + 2), where d^2 is the mean squared
 * difference of the two profiles over C, n_j the least sample count of
 * j's measured cells (up to HS_LEARN_WINDOW), and h = NEAR_BANDWIDTH. This is kernel regression over
 * kinds at the same GPU count (a nearest-neighbour recommender); Gavel's
 * throughput_estimator.py does the same kind of matching against
 * reference jobs for co-location. bench/learn_loo (leave one out on
 * Gavel's table: each job type's rate on one of k80/p100/v100 from the
 * other two, the other job types known) gives mean |ln error| 0.39 for
 * the matrix and 0.27 for this on one GPU, 0.34 and 0.29 over all counts
 * (doc/learning.md).
 *
 * Same scope only (the scope's speedup cache holds the candidates), so
 * one user's reports still never move another user's estimates. */
#include "sched/learn_near.h"

#include <math.h>
#include <string.h>

/* h: profiles whose type ratio differs by 35% (d^2 = (ln 1.35)^2 / 4 on
 * two types) weigh e^-1 of an identical one. In the leave-one-out above
 * 0.1 was 1% better and 0.25 4% worse; the wider of the good ones, as
 * measured rates are noisier than a table. */
#define NEAR_BANDWIDTH 0.15

/* How well entry e is sampled: its least sampled measured type, up to
 * the window (0 when it measured fewer than three types). */
static uint32_t sampled(const hs_learn_entry_t *e, int ntypes)
{
	uint32_t least = HS_LEARN_WINDOW;
	int nm = 0;
	for (int u = 0; u < ntypes; u++)
		if (e->cell[u].n) {
			nm++;
			least = e->cell[u].n < least ? e->cell[u].n : least;
		}
	return nm >= 3 ? least : 0;
}

/* Entry a (key ka) ranks before entry b (key kb): better sampled, then
 * seen later, then the lower index (a total order: the pick is
 * deterministic). */
static int before(const hs_learn_t *l, int a, uint32_t ka, int b, uint32_t kb)
{
	if (ka != kb)
		return ka > kb;
	if (l->e[a].seen != l->e[b].seen)
		return l->e[a].seen > l->e[b].seen;
	return a < b;
}

/* Bounded so that a scope of thousands of kinds (every job its own kind)
 * costs HS_LEARN_NEAR_MAX comparisons per estimate, not thousands; the
 * pick runs once per scope per table change (the speedup cache), and
 * keeps the candidates' logs so that an estimate takes none. */
void hs_learn_near_pick(const hs_learn_t *l, int lo, int hi, hs_learn_speedup_t *s)
{
	s->nnear = 0;
	for (int i = lo; i < hi; i++) {
		uint32_t k = sampled(&l->e[i], l->ntypes);
		if (!k)
			continue;
		int at = s->nnear;
		/* insertion into the sorted, bounded list */
		while (at > 0 && before(l, i, k, s->near[at - 1], s->nkey[at - 1]))
			at--;
		if (at >= HS_LEARN_NEAR_MAX)
			continue;
		int last = s->nnear < HS_LEARN_NEAR_MAX ? s->nnear : HS_LEARN_NEAR_MAX - 1;
		memmove(&s->near[at + 1], &s->near[at], (size_t)(last - at) * sizeof(int));
		memmove(&s->nkey[at + 1], &s->nkey[at], (size_t)(last - at) * sizeof(uint32_t));
		s->near[at] = i;
		s->nkey[at] = k;
		if (s->nnear < HS_LEARN_NEAR_MAX)
			s->nnear++;
	}
	for (int c = 0; c < s->nnear; c++) {
		const hs_learn_entry_t *e = &l->e[s->near[c]];
		s->nmask[c] = 0;
		s->nsf[c] = e->sf;
		for (int u = 0; u < l->ntypes; u++)
			if (e->cell[u].n) {
				s->nmask[c] |= 1u << u;
				s->nlog[c][u] = log(e->cell[u].rate);
			}
	}
}

/* Candidate c's offset mean_C log rate_k - mean_C log rate_c over the
 * types C in both mask (the kind's, t not among them) and c's, with its
 * weight; 0 weight when they share fewer than two types. */
static double predict(const hs_learn_speedup_t *s, int c, const double *lk, uint32_t mask,
		      int ntypes, double *w)
{
	double mk = 0, mj = 0;
	int nc = 0;
	uint32_t shared = mask & s->nmask[c];
	*w = 0;
	for (int u = 0; u < ntypes; u++)
		if (shared & (1u << u)) {
			mk += lk[u];
			mj += s->nlog[c][u];
			nc++;
		}
	if (nc < 2)
		return 0;
	mk /= nc;
	mj /= nc;
	double d2 = 0;
	for (int u = 0; u < ntypes; u++)
		if (shared & (1u << u)) {
			double x = (lk[u] - mk) - (s->nlog[c][u] - mj);
			d2 += x * x;
		}
	d2 /= nc * (NEAR_BANDWIDTH * NEAR_BANDWIDTH);
	/* beyond 12 bandwidths' worth the weight is under 1e-5 of a like
	 * kind's: skip the exp */
	if (d2 > 12)
		return 0;
	*w = exp(-d2) * s->nkey[c] / (s->nkey[c] + 2.0);
	return mk - mj;
}

double hs_learn_near(const hs_learn_t *l, const hs_learn_speedup_t *s, int self_lo, int self_hi,
		     int sf, const double *base, int t, double *weight)
{
	double lk[HS_LEARN_TYPES], acc = 0, wsum = 0;
	uint32_t mask = 0;
	for (int u = 0; u < l->ntypes; u++)
		if (u != t && base[u] > 0) {
			lk[u] = log(base[u]);
			mask |= 1u << u;
		}
	for (int c = 0; c < s->nnear; c++) {
		/* the kind's own other counts are cross_count's (learn.c) */
		if (!(s->nmask[c] & (1u << t)) || (s->near[c] >= self_lo && s->near[c] < self_hi))
			continue;
		/* same GPU count only: type speed-ups move with the count
		 * (communication), and counting other counts' kinds, even at
		 * half weight, raised the error on 8 GPUs by 13% (bench/learn_loo) */
		if (s->nsf[c] != sf)
			continue;
		double w, p = predict(s, c, lk, mask, l->ntypes, &w);
		if (!(w > 0))
			continue;
		p += s->nlog[c][t];
		acc += w * p;
		wsum += w;
	}
	*weight = wsum;
	return wsum > 0 ? exp(acc / wsum) : 0;
}
