/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bound.c — plausibility bounds on a job's claims (rules in bound.h). */
#include "sched/bound.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int usable(double v)
{
	return v > 0 && isfinite(v);
}

/* v clamped into [ref / f, ref * f]; *hit set when it moved. */
static double clamp_to(double v, double ref, double f, int *hit)
{
	if (!usable(ref) || !(f >= 1) || !isfinite(f))
		return v;
	double lo = ref / f, hi = ref * f;
	if (v > hi) {
		*hit = 1;
		return hi;
	}
	if (v < lo) {
		*hit = 1;
		return lo;
	}
	return v;
}

unsigned hs_bound_measured(const hs_bound_in_t *in, double *v)
{
	unsigned bits = 0;
	for (int j = 0; j < in->ntypes; j++) {
		if (!usable(v[j]))
			continue;
		int hit = 0;
		if (in->table && in->table_factor > 0)
			v[j] = clamp_to(v[j], in->table[j], in->table_factor, &hit);
		bits |= hit ? HS_BOUND_TABLE : 0;
		hit = 0;
		if (in->kind && in->kind_factor > 0)
			v[j] = clamp_to(v[j], in->kind[j], in->kind_factor, &hit);
		bits |= hit ? HS_BOUND_KIND : 0;
	}
	return bits;
}

/* The limit of rate(t) / rate(u): what was seen times the tolerance,
 * never above the ceiling; the ceiling alone where nothing was seen. */
static double ratio_limit(const hs_bound_in_t *in, int t, int u)
{
	double cap = in->ratio_max >= 1 ? in->ratio_max : INFINITY;
	double seen = in->maxr ? in->maxr[(size_t)t * (size_t)in->ntypes + (size_t)u] : 0;
	if (usable(seen)) {
		double tol = in->ratio_tol >= 1 ? in->ratio_tol : 1;
		/* a seen ratio below 1 (t always slower than u) still allows
		 * equal rates within the tolerance: the bound is on claimed
		 * speed-ups, not on a job being alike on two types */
		double lim = (seen > 1 ? seen : 1) * tol;
		return lim < cap ? lim : cap;
	}
	return cap;
}

unsigned hs_bound_ratios(const hs_bound_in_t *in, double *v)
{
	const int J = in->ntypes;
	int changed = 0;
	/* v[t] = min(v[t], v[u] * L[t][u]) until nothing moves: every
	 * limit is >= 1, so there is no cycle that shrinks for ever and
	 * J passes reach the fixpoint (Bellman-Ford on log v) */
	for (int pass = 0; pass < J; pass++) {
		int moved = 0;
		for (int t = 0; t < J; t++)
			for (int u = 0; u < J; u++) {
				if (t == u || !usable(v[t]) || !usable(v[u]))
					continue;
				double lim = v[u] * ratio_limit(in, t, u);
				if (v[t] > lim * (1 + 1e-12)) {
					v[t] = lim;
					moved = 1;
				}
			}
		changed |= moved;
		if (!moved)
			break;
	}
	return changed ? HS_BOUND_RATIO : 0;
}

double hs_bound_steps(double steps, double left_s, double best_rate, unsigned *flags)
{
	if (!usable(left_s) || !usable(best_rate) || !usable(steps))
		return steps;
	double cap = left_s * best_rate;
	if (!isfinite(cap) || steps <= cap)
		return steps;
	*flags |= HS_BOUND_STEPS;
	return cap >= 1 ? cap : 1;
}

void hs_bound_table_ratios(const hs_thrtable_t *t, int ntables, const char *const *names,
			   int n, double *maxr)
{
	int col[n > 0 ? n : 1];
	for (int k = 0; k < ntables; k++) {
		const hs_thrtable_t *tb = &t[k];
		for (int i = 0; i < n; i++)
			col[i] = hs_thrtable_type_index(tb, names[i]);
		for (int jt = 0; jt < tb->njobtypes; jt++) {
			const double *row = &tb->alone[(size_t)jt * (size_t)tb->ntypes];
			for (int a = 0; a < n; a++) {
				if (col[a] < 0 || !usable(row[col[a]]))
					continue;
				for (int b = 0; b < n; b++) {
					if (b == a || col[b] < 0 || !usable(row[col[b]]))
						continue;
					double r = row[col[a]] / row[col[b]];
					double *m = &maxr[(size_t)a * (size_t)n + (size_t)b];
					if (isfinite(r) && r > *m)
						*m = r;
				}
			}
		}
	}
}

void hs_bound_names(unsigned bits, char *buf, size_t len)
{
	static const char *const names[] = { "table", "kind", "ratio", "steps" };
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < 4 && len; i++)
		if (bits >> i & 1) {
			int w = snprintf(buf + n, len - n, "%s%s", n ? "," : "", names[i]);
			if (w < 0 || (size_t)w >= len - n)
				break;
			n += (size_t)w;
		}
}
