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
#include <stdlib.h>
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

/* A kind that qualifies as a candidate: its entry, how well it is
 * sampled, when it was last seen, its GPU count, and (once ranked) its
 * rank among the candidates of its GPU count. */
typedef struct near_cand {
	int i;
	uint32_t key;
	int64_t seen;
	int sf, rank;
} near_cand_t;

/* Better sampled, then seen later, then the lower index (a total order:
 * the pick is deterministic). */
static int cmp_quality(const void *pa, const void *pb)
{
	const near_cand_t *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	if (a->seen != b->seen)
		return a->seen > b->seen ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Round robin over the GPU counts: every count's best first, then every
 * count's second, ...; within a rank, by quality. */
static int cmp_rank(const void *pa, const void *pb)
{
	const near_cand_t *a = pa, *b = pb;
	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return cmp_quality(pa, pb);
}

/* Each candidate's rank within its GPU count (c sorted by quality). The
 * counts seen are few (1, 2, 4, 8...): a short list, searched. */
static void rank_by_count(near_cand_t *c, int n)
{
	int sfs[64], used[64], nsf = 0;
	for (int k = 0; k < n; k++) {
		int x = 0;
		while (x < nsf && sfs[x] != c[k].sf)
			x++;
		if (x == nsf) {
			if (nsf == 64) { /* more counts than that: they share
					  * the last slot's count of ranks */
				x = 63;
			} else {
				sfs[nsf] = c[k].sf;
				used[nsf++] = 0;
			}
		}
		c[k].rank = used[x]++;
	}
}

/* Bounded so that a scope of thousands of kinds (every job its own kind)
 * costs HS_LEARN_NEAR_MAX comparisons per estimate, not thousands; the
 * pick runs once per scope per table change (the speedup cache), and
 * keeps the candidates' logs so that an estimate takes none. Estimates
 * compare kinds of the same GPU count only, so the places are dealt
 * round robin over the counts: with one pick by quality alone, a scope
 * with more than HS_LEARN_NEAR_MAX kinds gave them all to the counts
 * with the most kinds and left the others with none (on Gavel's table,
 * 104 kinds over four counts: 8 GPUs got no candidate). Out of memory:
 * no candidates (the matrix alone). */
void hs_learn_near_pick(const hs_learn_t *l, int lo, int hi, hs_learn_speedup_t *s)
{
	s->nnear = 0;
	near_cand_t *c = malloc(((size_t)(hi > lo ? hi - lo : 0) + 1) * sizeof(*c));
	if (!c)
		return;
	int n = 0;
	for (int i = lo; i < hi; i++) {
		uint32_t k = sampled(&l->e[i], l->ntypes);
		if (k)
			c[n++] = (near_cand_t){ .i = i, .key = k, .seen = l->e[i].seen,
						.sf = l->e[i].sf };
	}
	/* best first (the order estimates sum them in) */
	qsort(c, (size_t)n, sizeof(*c), cmp_quality);
	if (n > HS_LEARN_NEAR_MAX) {
		rank_by_count(c, n);
		qsort(c, (size_t)n, sizeof(*c), cmp_rank);
		n = HS_LEARN_NEAR_MAX;
	}
	for (int k = 0; k < n; k++) {
		const hs_learn_entry_t *e = &l->e[c[k].i];
		s->near[k] = c[k].i;
		s->nkey[k] = c[k].key;
		s->nmask[k] = 0;
		s->nsf[k] = e->sf;
		for (int u = 0; u < l->ntypes; u++)
			if (e->cell[u].n) {
				s->nmask[k] |= 1u << u;
				s->nlog[k][u] = log(e->cell[u].rate);
			}
	}
	s->nnear = n;
	free(c);
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
