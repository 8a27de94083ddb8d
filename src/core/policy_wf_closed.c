/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_wf_closed.c — what a class can reach on its own (rmax), and the
 * accelerator types closed to the jobs not frozen yet.
 *
 * A saturation chain (policy_wf_chain.c) needs, for each class, a bound
 * on r that holds in every allocation meeting the frozen levels: rmax,
 * all its time on its best types. Once water filling has frozen jobs
 * that together need a type in full (a v100 taken by jobs frozen at
 * their maximum), the jobs left are bounded by what they reach on the
 * other types, and those rounds are saturation rounds too (most of the
 * rounds of a 3-level, 100-user, 4,096-job instance).
 *
 * Proof without an LP: a frozen class f at level l must spend on a set P
 * of types at least the time m_f(P) that its level needs when it uses
 * every other type as well as it can (min sum_{j in P} x_j s.t. a.x >= l,
 * sum x <= 1; capacities of the other types left out, which only lowers
 * m). If sum_f n_f s_f m_f(P) reaches the capacity of P, the frozen
 * classes fill P in every allocation that meets their levels, and no
 * unfrozen class can use any of it: P is closed. Tried for all the
 * priced types together (the last LP's capacity duals: a type with slack
 * is never full), then type by type, each closed type then counting, for
 * every frozen class, as usable only up to its own forced use (the
 * others' fill the rest). More freezing only adds demands, so closed
 * types stay closed while a chain goes on. A shortfall up to 1e-6 of
 * the capacity is taken as none (the levels come from LP solutions,
 * tight to the solver's tolerance).
 */
#include "core/policy_wf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CLOSED_TOL 1e-6

typedef struct tcoef {
	double a;
	int j;
} tcoef_t;

static int cmp_tcoef(const void *x, const void *y)
{
	const tcoef_t *p = x, *q = y;
	if (p->a != q->a)
		return p->a > q->a ? -1 : 1;
	return (p->j > q->j) - (p->j < q->j);
}

/* Usable types of a row with their upper bounds, best coefficient first
 * (into t, J entries). */
static int sorted_types(const double *a, int J, const double *u, tcoef_t *t)
{
	int n = 0;
	for (int j = 0; j < J; j++)
		if (a[j] > 0.0 && u[j] > 0.0)
			t[n++] = (tcoef_t){ a[j], j };
	qsort(t, (size_t)n, sizeof(*t), cmp_tcoef);
	return n;
}

double hs_wf_rmax(const hs_wf_t *s, int c, const char *open)
{
	const int J = s->J;
	const double *a = &s->a[(size_t)c * J];
	double ns = s->cl.size[c] * (double)s->p->jobs[s->cl.rep[c]].scale_factor;
	tcoef_t small[16], *t = J <= 16 ? small : malloc((size_t)J * sizeof(*t));
	double us[16], *u = J <= 16 ? us : malloc((size_t)J * sizeof(*u));
	double r = -1.0;
	if (!t || !u)
		goto out;
	for (int j = 0; j < J; j++)
		u[j] = !open || open[j] ? s->cap[j] / ns : 0.0;
	int n = sorted_types(a, J, u, t);
	double time = 1.0;
	r = 0.0;
	for (int k = 0; k < n && time > 0.0; k++) {
		double x = u[t[k].j] < time ? u[t[k].j] : time;
		r += t[k].a * x;
		time -= x;
	}
out:
	if (t != small)
		free(t);
	if (u != us)
		free(u);
	return r;
}

/* Scratch of the closure test (J = types, C = classes). */
typedef struct cl_work {
	int J, ng;
	int *gid;         /* [J] group of a closed type, -1 = open */
	double *gbound;   /* [C * J] a frozen class's time on each closed group */
	double *u;        /* [J] */
	double *ca;       /* [J] */
	tcoef_t *t;       /* [J] */
	char *inq;        /* [J] */
} cl_work_t;

/* The least total time row a at level l must spend on the types of Q
 * (w->inq), using the rest as well as it can: open types up to all its
 * time, each closed group up to gb[g] (its time there is forced, see
 * close_group), as one type with the group's best coefficient. The
 * rest's best r within time T is a fractional knapsack F(T); G(X) =
 * F(1 - X) + aq X (aq: Q's best coefficient) rises while aq beats the
 * knapsack's marginal segment, and the answer is the X where G reaches l.
 * Capacities are left out, which can only lower the answer. */
static double forced_use(cl_work_t *w, const double *a, const double *gb, double l)
{
	const int J = w->J;
	double aq = 0.0;
	int n = 0;
	for (int j = 0; j < J; j++) {
		if (w->inq[j]) {
			aq = a[j] > aq ? a[j] : aq;
		} else if (w->gid[j] < 0 && a[j] > 0.0) {
			w->t[n] = (tcoef_t){ a[j], j };
			w->u[n++] = 1.0;
		}
	}
	for (int g = 0; g < w->ng; g++) {
		double best = 0.0;
		for (int j = 0; j < J; j++)
			if (w->gid[j] == g && a[j] > best)
				best = a[j];
		if (best > 0.0 && gb[g] > 0.0) {
			w->t[n] = (tcoef_t){ best, J + g };
			w->u[n++] = gb[g];
		}
	}
	/* sort segments best first, bounds along (n is tiny: insertion) */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && w->t[k].a > w->t[k - 1].a; k--) {
			tcoef_t tt = w->t[k];
			double uu = w->u[k];
			w->t[k] = w->t[k - 1];
			w->u[k] = w->u[k - 1];
			w->t[k - 1] = tt;
			w->u[k - 1] = uu;
		}
	double time = 1.0, r = 0.0;
	int last = -1;
	for (int k = 0; k < n && time > 0.0; k++) {
		double x = w->u[k] < time ? w->u[k] : time;
		r += w->t[k].a * x;
		time -= x;
		w->ca[k] = x; /* length used on segment k */
		last = k;
	}
	if (r >= l || !(aq > 0.0))
		return 0.0;
	/* idle time goes to Q first, at no loss */
	double X = 0.0, g = r;
	if (time > 0.0) {
		double need = (l - g) / aq;
		if (need <= time)
			return need;
		X = time;
		g += aq * time;
	}
	/* then the others' worst segments are traded for Q */
	for (int k = last; k >= 0; k--) {
		double gain = aq - w->t[k].a;
		if (gain <= 0.0)
			break; /* Q is no better: l out of reach (rounding) */
		if (g + gain * w->ca[k] >= l)
			return X + (l - g) / gain;
		g += gain * w->ca[k];
		X += w->ca[k];
	}
	return X;
}

/* Do the frozen classes' forced uses of Q (w->inq) fill it? */
static int filled(const hs_wf_t *s, cl_work_t *w)
{
	double cap = 0.0, use = 0.0;
	for (int j = 0; j < s->J; j++)
		cap += w->inq[j] ? s->cap[j] : 0.0;
	if (!(cap > 0.0))
		return 0;
	for (int c = 0; c < s->C && use < cap; c++) {
		if (!s->frozen[c])
			continue;
		double ns = s->cl.size[c] * (double)s->p->jobs[s->cl.rep[c]].scale_factor;
		use += ns * forced_use(w, &s->a[(size_t)c * s->J], &w->gbound[(size_t)c * s->J], s->level[c]);
	}
	return use >= cap * (1.0 - CLOSED_TOL);
}

/* Closes Q as a new group. Its capacity is used up by forced uses, so
 * each frozen class spends on it exactly its forced use (up to the
 * tolerance): that is its bound there from now on. */
static void close_group(const hs_wf_t *s, cl_work_t *w)
{
	const int g = w->ng;
	for (int c = 0; c < s->C; c++)
		if (s->frozen[c])
			w->gbound[(size_t)c * s->J + g] =
				forced_use(w, &s->a[(size_t)c * s->J], &w->gbound[(size_t)c * s->J], s->level[c]);
	for (int j = 0; j < s->J; j++)
		if (w->inq[j])
			w->gid[j] = g;
	w->ng++;
}

int hs_wf_closed_types(hs_wf_t *s, const double *price, hs_err_t *err)
{
	const int J = s->J, C = s->C;
	double pmax = 0.0;
	for (int j = 0; j < J; j++)
		pmax = price[j] > pmax ? price[j] : pmax;
	cl_work_t w = { .J = J };
	w.gid = malloc((size_t)J * sizeof(int));
	w.gbound = calloc((size_t)C * J + 1, sizeof(double));
	w.u = calloc((size_t)2 * J, sizeof(double));
	w.ca = calloc((size_t)2 * J, sizeof(double));
	w.t = calloc((size_t)2 * J, sizeof(tcoef_t));
	w.inq = calloc((size_t)J, 1);
	char *cand = calloc((size_t)J, 1);
	int n = -1;
	if (!w.gid || !w.gbound || !w.u || !w.ca || !w.t || !w.inq || !cand) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	int ncand = 0;
	for (int j = 0; j < J; j++) {
		w.gid[j] = -1;
		/* a type with slack has price 0: only priced ones can be full */
		cand[j] = price[j] > 1e-9 * pmax && s->cap[j] > 0.0;
		ncand += cand[j];
	}
	/* all the candidates together, else one by one, again after each
	 * closing (the others then have fewer ways out) */
	for (int j = 0; j < J; j++)
		w.inq[j] = cand[j];
	if (ncand > 0 && filled(s, &w)) {
		close_group(s, &w);
	} else {
		for (int again = ncand > 1; again;) {
			again = 0;
			for (int j = 0; j < J; j++) {
				if (!cand[j] || w.gid[j] >= 0)
					continue;
				memset(w.inq, 0, (size_t)J);
				w.inq[j] = 1;
				if (filled(s, &w)) {
					close_group(s, &w);
					again = 1;
				}
			}
		}
	}
	n = 0;
	for (int j = 0; j < J; j++) {
		s->open[j] = w.gid[j] < 0;
		n += w.gid[j] >= 0;
	}
	for (int c = 0; c < C; c++)
		s->rmaxo[c] = n ? hs_wf_rmax(s, c, s->open) : s->rmax[c];
out:
	free(w.gid);
	free(w.gbound);
	free(w.u);
	free(w.ca);
	free(w.t);
	free(w.inq);
	free(cand);
	return n < 0 ? -1 : n;
}
