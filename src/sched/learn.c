/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn.c — kinds, the learned table and inference (rules in learn.h);
 * save, load and export are in learn_json.c. */
#include "sched/learn.h"
#include "sched/learn_near.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hs_learn_init(hs_learn_t *l, int max_kinds)
{
	memset(l, 0, sizeof(*l));
	l->max_kinds = max_kinds > 0 ? max_kinds : HS_LEARN_DEFAULT_KINDS;
}

void hs_learn_free(hs_learn_t *l)
{
	for (int t = 0; t < l->ntypes; t++)
		free(l->types[t]);
	free(l->e);
	free(l->sp);
	int mk = l->max_kinds;
	memset(l, 0, sizeof(*l));
	l->max_kinds = mk;
}

/* Appends src to out (at *n, room HS_LEARN_KIND_MAX) with characters
 * outside [A-Za-z0-9._+@-] replaced: kinds stay printable, and '/' and
 * '=' keep their meaning (scope, rule). */
static void put(char *out, size_t *n, const char *src)
{
	for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
		if (*n + 1 >= HS_LEARN_KIND_MAX)
			break;
		/* every job every round: comparisons, not strchr */
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '+' ||
			 *p == '@' || *p == '-';
		out[(*n)++] = ok ? (char)*p : '_';
	}
	out[*n] = '\0';
}

/* Job names that say nothing about what runs: Slurm's defaults for
 * --wrap and interactive shells. Jobs named so are not one kind. */
static int generic_name(const char *s)
{
	static const char *const generic[] = { "", "sbatch", "wrap", "bash", "sh", "zsh",
					       "interactive", "srun", "salloc", "python",
					       "python3", "job", "script.sh", "run.sh" };
	if (!s)
		return 1;
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(s, generic[i]))
			return 1;
	return 0;
}

/* Appends a literal rule or scope prefix (kept as it is). */
static void raw(char *out, size_t *n, const char *lit)
{
	while (*lit && *n + 1 < HS_LEARN_KIND_MAX)
		out[(*n)++] = *lit++;
	out[*n] = '\0';
}

void hs_learn_kind(const hs_learn_job_t *j, char *out)
{
	size_t n = 0;
	char num[16];
	out[0] = '\0';
	switch (j->scope) {
	case HS_LEARN_SCOPE_USER:
		raw(out, &n, "u=");
		put(out, &n, j->user ? j->user : "");
		break;
	case HS_LEARN_SCOPE_ACCOUNT:
		raw(out, &n, "a=");
		put(out, &n, j->account ? j->account : "");
		break;
	case HS_LEARN_SCOPE_SITE:
		raw(out, &n, "s");
		break;
	}
	raw(out, &n, "/");
	if (j->model && *j->model) {
		raw(out, &n, "m=");
		put(out, &n, j->model);
	} else if (!generic_name(j->name)) {
		raw(out, &n, "n=");
		put(out, &n, j->name);
	} else if (j->array_id) {
		snprintf(num, sizeof(num), "%u", j->array_id);
		raw(out, &n, "r=");
		put(out, &n, num);
	} else {
		snprintf(num, sizeof(num), "%u", j->id);
		raw(out, &n, "j=");
		put(out, &n, num);
	}
}

/* The scope of a kind: its text up to and including the first '/'. */
static size_t scope_len(const char *kind)
{
	const char *s = strchr(kind, '/');
	return s ? (size_t)(s - kind) + 1 : strlen(kind);
}

static int cmp_key(const char *kind, int sf, const hs_learn_entry_t *e)
{
	int c = strcmp(kind, e->kind);
	return c ? c : (sf > e->sf) - (sf < e->sf);
}

/* Index of (kind, sf), or -(insertion point) - 1. */
static int find(const hs_learn_t *l, const char *kind, int sf)
{
	int lo = 0, hi = l->n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = cmp_key(kind, sf, &l->e[mid]);
		if (!c)
			return mid;
		if (c > 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

const hs_learn_entry_t *hs_learn_find(const hs_learn_t *l, const char *kind, int sf)
{
	int i = find(l, kind, sf);
	return i >= 0 ? &l->e[i] : NULL;
}

/* Drops the least recently seen entry (the first of equals). */
static void evict_one(hs_learn_t *l)
{
	int victim = 0;
	for (int i = 1; i < l->n; i++)
		if (l->e[i].seen < l->e[victim].seen)
			victim = i;
	memmove(&l->e[victim], &l->e[victim + 1], (size_t)(l->n - victim - 1) * sizeof(*l->e));
	l->n--;
	l->gen++;
}

static hs_learn_entry_t *entry_add(hs_learn_t *l, const char *kind, int sf)
{
	int i = find(l, kind, sf);
	if (i >= 0)
		return &l->e[i];
	if (l->n >= l->max_kinds) {
		while (l->n >= l->max_kinds) /* the bound may have shrunk */
			evict_one(l);
		i = find(l, kind, sf);
	}
	i = -i - 1;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		if (cap > l->max_kinds)
			cap = l->max_kinds;
		hs_learn_entry_t *ne = realloc(l->e, (size_t)cap * sizeof(*ne));
		if (!ne)
			return NULL;
		l->e = ne;
		l->cap = cap;
	}
	memmove(&l->e[i + 1], &l->e[i], (size_t)(l->n - i) * sizeof(*l->e));
	l->n++;
	l->gen++; /* entry indices moved: the speedup caches hold some */
	hs_learn_entry_t *e = &l->e[i];
	memset(e, 0, sizeof(*e));
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	e->sf = sf;
	return e;
}

/* The index of GPU type `type`, added when new; -1 when full. */
static int type_index(hs_learn_t *l, const char *type, int add)
{
	for (int t = 0; t < l->ntypes; t++)
		if (!strcmp(l->types[t], type))
			return t;
	if (!add || l->ntypes >= HS_LEARN_TYPES || !*type)
		return -1;
	if (!(l->types[l->ntypes] = strdup(type)))
		return -1;
	return l->ntypes++;
}

/* The bounds of estimate.c's measured values. */
static int ok_rate(double v)
{
	return isfinite(v) && v >= 1e-6 && v < 1e12;
}

/* Entry i showed rate(t) / rate(u) = r: the two largest of distinct
 * entries (one entry shows each pair once per speedup computation). */
static void max_add(hs_learn_speedup_t *s, int t, int u, double r, int i)
{
	if (!isfinite(r))
		return;
	if (r > s->max1[t][u]) {
		s->max2[t][u] = s->max1[t][u];
		s->max1[t][u] = r;
		s->arg1[t][u] = i;
	} else if (r > s->max2[t][u]) {
		s->max2[t][u] = r;
	}
}

/* Folds sample v into cell c (rules in learn.h); 1 averaged in, 0 an
 * outlier. */
static int cell_add(hs_learn_cell_t *c, double v, int64_t now)
{
	/* the newest sample seen, outliers included and never going back:
	 * history imported out of order (learn_sacct.h) skips what is not
	 * newer, so an import repeated changes nothing */
	if (now > c->last)
		c->last = now;
	if (c->n >= HS_LEARN_CONFIDENT) {
		double r = v / c->rate;
		if (r > HS_LEARN_OUTLIER || r < 1.0 / HS_LEARN_OUTLIER) {
			c->outliers++;
			if (++c->streak < HS_LEARN_RESET)
				return 0;
			c->n = 0; /* the cell's truth changed: start again */
		}
	}
	c->streak = 0;
	uint32_t k = c->n < HS_LEARN_WINDOW ? c->n + 1 : HS_LEARN_WINDOW;
	c->rate = c->n ? c->rate + (v - c->rate) / k : v;
	if (c->n < UINT32_MAX)
		c->n++;
	return 1;
}

int hs_learn_observe(hs_learn_t *l, const char *kind, int sf, const char *type, double rate,
		     int64_t now)
{
	if (!kind || !*kind || !type || sf <= 0 || !ok_rate(rate) ||
	    strlen(kind) >= HS_LEARN_KIND_MAX) {
		l->refused++;
		return -1;
	}
	int t = type_index(l, type, 1);
	hs_learn_entry_t *e = t >= 0 ? entry_add(l, kind, sf) : NULL;
	if (!e) {
		l->refused++;
		return -1;
	}
	e->seen = now > e->seen ? now : e->seen;
	int rc = cell_add(&e->cell[t], rate, now);
	if (rc)
		l->gen++;
	else
		l->outliers++;
	return rc;
}

void hs_learn_score(hs_learn_t *l, int inferred, double predicted, double measured)
{
	if (!ok_rate(predicted) || !ok_rate(measured))
		return;
	l->err_n[inferred != 0]++;
	l->err_sum[inferred != 0] += fabs(log(predicted / measured));
}

/* Bounds of the fitted GPU-count exponent: from a job twice as slow on
 * twice the GPUs to one that speeds up with the square of its GPUs, far
 * outside what data-parallel training does (Gavel's table: 0.1 to 1.2),
 * so a hostile scope cannot push an extrapolation further. */
#define BETA_MIN (-1.0)
#define BETA_MAX 2.0

/* The scope's GPU-count scaling from its run [lo, hi) of the sorted table
 * (a kind's counts are adjacent): rate(sf) ~ sf^beta, least squares
 * through the origin of log(rate ratio) on log(count ratio) over every
 * pair of a kind's counts measured on the same type, weight the lesser
 * sample count; per type and over all types (learn.h). */
static void fit_scaling(const hs_learn_t *l, int lo, int hi, hs_learn_speedup_t *s)
{
	enum { ALL = HS_LEARN_TYPES };
	double num[HS_LEARN_TYPES + 1] = { 0 }, den[HS_LEARN_TYPES + 1] = { 0 };
	for (int i = lo; i < hi; i++)
		for (int j = i + 1; j < hi && !strcmp(l->e[j].kind, l->e[i].kind); j++) {
			double ls = log((double)l->e[j].sf / l->e[i].sf);
			for (int t = 0; t < l->ntypes; t++) {
				const hs_learn_cell_t *a = &l->e[j].cell[t], *b = &l->e[i].cell[t];
				if (!a->n || !b->n || ls == 0)
					continue;
				double w = a->n < b->n ? a->n : b->n, lr = log(a->rate / b->rate);
				num[t] += w * lr * ls;
				den[t] += w * ls * ls;
				s->bw[t] += w;
				num[ALL] += w * lr * ls;
				den[ALL] += w * ls * ls;
				s->bw[ALL] += w;
			}
		}
	for (int t = 0; t <= ALL; t++) {
		double b = den[t] > 0 ? num[t] / den[t] : 0;
		s->beta[t] = b < BETA_MIN ? BETA_MIN : b > BETA_MAX ? BETA_MAX : b;
		if (!(den[t] > 0))
			s->bw[t] = 0;
	}
}

/* The scope's kinds are one run [*lo, *hi) of the sorted table (the
 * scope is a prefix ending in '/'): a miss costs the scope's size, not
 * the table's, so many users' jobs in one round stay cheap. */
static void scope_run(const hs_learn_t *l, const char *kind, int *lo, int *hi)
{
	size_t sl = scope_len(kind);
	int a = 0, b = l->n;
	while (a < b) {
		int mid = a + (b - a) / 2;
		if (strncmp(l->e[mid].kind, kind, sl) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (a < l->n && !strncmp(l->e[a].kind, kind, sl))
		a++;
	*hi = a;
}

/* The speedup matrix of the scope of `kind` (cached until l->gen moves). */
static const hs_learn_speedup_t *speedup(hs_learn_t *l, const char *kind)
{
	size_t sl = scope_len(kind);
	/* an empty table infers nothing: no cache to allocate */
	if (!l->sp && l->n && (l->sp = calloc(HS_LEARN_SPEEDUP_CACHE, sizeof(*l->sp))))
		l->nsp = l->sp_next = 0; /* sp_one's entry, if any, is not in it */
	hs_learn_speedup_t *sp = l->sp ? l->sp : &l->sp_one;
	int cap = l->sp ? HS_LEARN_SPEEDUP_CACHE : 1;
	for (int i = 0; i < l->nsp; i++)
		if (!strncmp(sp[i].scope, kind, sl) && !sp[i].scope[sl]) {
			if (sp[i].gen == l->gen)
				return &sp[i];
		}
	int slot = -1;
	for (int i = 0; i < l->nsp && slot < 0; i++)
		if (!strncmp(sp[i].scope, kind, sl) && !sp[i].scope[sl])
			slot = i;
	if (slot < 0) {
		slot = l->nsp < cap ? l->nsp++ : l->sp_next;
		l->sp_next = (slot + 1) % cap;
	}
	hs_learn_speedup_t *s = &sp[slot];
	memset(s, 0, sizeof(*s));
	memcpy(s->scope, kind, sl);
	s->gen = l->gen;
	const int T = l->ntypes;
	int lo, end;
	scope_run(l, kind, &lo, &end);
	for (int i = lo; i < end; i++) {
		const hs_learn_entry_t *e = &l->e[i];
		for (int t = 0; t < T; t++)
			for (int u = 0; u < T; u++) {
				const hs_learn_cell_t *a = &e->cell[t], *b = &e->cell[u];
				if (t == u || !a->n || !b->n)
					continue;
				double w = a->n < b->n ? a->n : b->n;
				s->logr[t][u] += w * log(a->rate / b->rate);
				s->w[t][u] += w;
				if (a->n >= HS_LEARN_CONFIDENT && b->n >= HS_LEARN_CONFIDENT)
					max_add(s, t, u, a->rate / b->rate, i);
			}
	}
	for (int t = 0; t < T; t++)
		for (int u = 0; u < T; u++)
			if (s->w[t][u] > 0)
				s->logr[t][u] /= s->w[t][u];
	fit_scaling(l, lo, end, s);
	hs_learn_near_pick(l, lo, end, s);
	return s;
}

/* Confidence of a cell of n samples, and of an inference over pairs of
 * weight w from a cell of confidence c. */
static double conf_cell(uint32_t n)
{
	return (double)n / (n + 2.0);
}

static double conf_inferred(double c, double w)
{
	return c * w / (w + 2.0);
}

/* A kind measured nowhere: the scope's relative type speeds. */
static int prior(const hs_learn_speedup_t *s, const int *ti, int n, double *rate,
		 hs_learn_src_t *src, double *conf)
{
	double logp[n > 0 ? n : 1], sum = 0;
	int have[n > 0 ? n : 1], nh = 0;
	for (int i = 0; i < n; i++) {
		double acc = 0, w = 0;
		have[i] = 0;
		for (int k = 0; k < n && ti[i] >= 0; k++)
			if (ti[k] >= 0 && k != i && s->w[ti[i]][ti[k]] > 0) {
				acc += s->logr[ti[i]][ti[k]];
				w += 1;
			}
		if (w > 0) {
			/* log p_t = mean over u of log S[t][u], t itself (0)
			 * included: for consistent speedups (S[t][u] = p_t /
			 * p_u) that is log p_t less the mean of log p */
			logp[i] = acc / (w + 1);
			have[i] = 1;
			sum += logp[i];
			nh++;
		}
	}
	for (int i = 0; i < n && nh; i++)
		if (have[i]) {
			if (rate)
				rate[i] = exp(logp[i] - sum / nh);
			if (src)
				src[i] = HS_LEARN_INFERRED;
			if (conf)
				conf[i] = 0.1;
		}
	return nh;
}

/* Across GPU counts: the kind's rate at sf on type t from its nearest
 * other count measured on t, times (sf / sf')^beta of the scope (the
 * type's fit, else the fit over all types); 0 when there is none. Half
 * the confidence of an inference between types: a power law over counts
 * is a coarser model than a ratio between two types at one count. */
static double cross_count(const hs_learn_t *l, const hs_learn_speedup_t *s, const char *kind,
			  int sf, int t, double *conf)
{
	const hs_learn_entry_t *best = NULL;
	double bd = 0;
	/* (kind, 0) is never stored (counts are > 0): its insertion point
	 * is the kind's first entry */
	for (int i = -find(l, kind, 0) - 1; i < l->n && !strcmp(l->e[i].kind, kind); i++) {
		const hs_learn_entry_t *x = &l->e[i];
		if (x->sf == sf || !x->cell[t].n)
			continue;
		double d = fabs(log((double)sf / x->sf));
		if (!best || d < bd || (d == bd && x->cell[t].n > best->cell[t].n)) {
			best = x;
			bd = d;
		}
	}
	int k = s->bw[t] > 0 ? t : HS_LEARN_TYPES;
	if (!best || !(s->bw[k] > 0))
		return 0;
	double v = best->cell[t].rate * pow((double)sf / best->sf, s->beta[k]);
	if (!ok_rate(v))
		return 0;
	*conf = 0.5 * conf_inferred(conf_cell(best->cell[t].n), s->bw[k]);
	return v;
}

/* Type t from the kind's rates base[u] at its count (learned there, or
 * across counts) through the speedup matrix: a weighted geometric mean
 * over u; 0 when no pair is known. */
static double across_types(const hs_learn_t *l, const hs_learn_speedup_t *s, const double *base,
			   const double *bconf, int t, double *conf)
{
	double acc = 0, wsum = 0, best = 0;
	for (int u = 0; u < l->ntypes; u++) {
		if (u == t || !(base[u] > 0) || !(s->w[t][u] > 0))
			continue;
		double cf = conf_inferred(bconf[u], s->w[t][u]);
		acc += cf * (log(base[u]) + s->logr[t][u]);
		wsum += cf;
		best = cf > best ? cf : best;
	}
	if (wsum <= 0)
		return 0;
	double v = exp(acc / wsum);
	if (!ok_rate(v))
		return 0;
	*conf = best;
	return v;
}

/* Type t across types: the speedup matrix, and when the kind has a
 * profile (nb >= 2 types) the nearest kinds (learn_near.c) weighted
 * against the matrix as HS_LEARN_NEAR_MATRIX; the more confident of the
 * two confidences (the nearest kinds': the kind's best cell times
 * W / (W + 1)). */
static double between_types(const hs_learn_t *l, const hs_learn_speedup_t *s, const char *kind,
			    int sf, const double *base, const double *bconf, int nb, int t,
			    double *conf)
{
	double v = across_types(l, s, base, bconf, t, conf);
	if (nb < 2 || l->matrix_only)
		return v;
	double w = 0, bc = 0;
	/* the kind's own entries (any count) are adjacent from (kind, 0)'s
	 * insertion point: counts are > 0 */
	int self_lo = -find(l, kind, 0) - 1, self_hi = self_lo;
	while (self_hi < l->n && !strcmp(l->e[self_hi].kind, kind))
		self_hi++;
	double vn = hs_learn_near(l, s, self_lo, self_hi, sf, base, t, &w);
	if (!(vn > 0) || !ok_rate(vn))
		return v;
	for (int u = 0; u < l->ntypes; u++)
		bc = u != t && bconf[u] > bc ? bconf[u] : bc;
	double cn = bc * w / (w + 1.0);
	if (v > 0)
		vn = exp((w * log(vn) + HS_LEARN_NEAR_MATRIX * log(v)) / (w + HS_LEARN_NEAR_MATRIX));
	*conf = cn > *conf ? cn : *conf;
	return ok_rate(vn) ? vn : v;
}

int hs_learn_estimate(hs_learn_t *l, const char *kind, int sf, const char *const *types, int n,
		      int64_t now, double *rate, hs_learn_src_t *src, double *conf)
{
	int ti[n > 0 ? n : 1], got = 0;
	for (int i = 0; i < n; i++) {
		ti[i] = type_index(l, types[i], 0);
		if (rate)
			rate[i] = 0;
		if (src)
			src[i] = HS_LEARN_NONE;
		if (conf)
			conf[i] = 0;
	}
	int k = find(l, kind, sf);
	hs_learn_entry_t *e = k >= 0 ? &l->e[k] : NULL;
	if (e && now > e->seen)
		e->seen = now;
	for (int i = 0; e && i < n; i++)
		if (ti[i] >= 0 && e->cell[ti[i]].n) {
			got++;
			if (rate)
				rate[i] = e->cell[ti[i]].rate;
			if (src)
				src[i] = HS_LEARN_LEARNED;
			if (conf)
				conf[i] = conf_cell(e->cell[ti[i]].n);
		}
	if (got == n)
		return got;
	const hs_learn_speedup_t *s = speedup(l, kind);
	/* the kind's rate at sf per learned type: learned there, else from
	 * another GPU count of the kind */
	double base[HS_LEARN_TYPES] = { 0 }, bconf[HS_LEARN_TYPES] = { 0 };
	double xr[HS_LEARN_TYPES] = { 0 }, xc[HS_LEARN_TYPES] = { 0 };
	int nb = 0;
	for (int t = 0; t < l->ntypes; t++) {
		if (e && e->cell[t].n) {
			base[t] = e->cell[t].rate;
			bconf[t] = conf_cell(e->cell[t].n);
		} else {
			base[t] = xr[t] = cross_count(l, s, kind, sf, t, &xc[t]);
			bconf[t] = xc[t];
		}
		nb += base[t] > 0;
	}
	if (!nb)
		return prior(s, ti, n, rate, src, conf);
	for (int i = 0; i < n; i++) {
		int t = ti[i];
		if (t < 0 || (e && e->cell[t].n))
			continue;
		/* the more confident of: across counts on t itself, across
		 * types at sf */
		double c = 0, v = between_types(l, s, kind, sf, base, bconf, nb, t, &c);
		if (xr[t] > 0 && (!(v > 0) || xc[t] >= c)) {
			v = xr[t];
			c = xc[t];
		}
		if (!(v > 0))
			continue;
		got++;
		if (rate)
			rate[i] = v;
		if (src)
			src[i] = HS_LEARN_INFERRED;
		if (conf)
			conf[i] = c;
	}
	return got;
}

void hs_learn_max_ratios(hs_learn_t *l, const char *kind, int sf, const char *const *types,
			 int n, double *maxr)
{
	int ti[n > 0 ? n : 1];
	for (int i = 0; i < n; i++)
		ti[i] = type_index(l, types[i], 0);
	const hs_learn_speedup_t *s = speedup(l, kind);
	int self = find(l, kind, sf);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++) {
			int t = ti[i], u = ti[k];
			if (i == k || t < 0 || u < 0)
				continue;
			/* the kind's own reports do not widen its bound */
			double r = s->arg1[t][u] == self && self >= 0 ? s->max2[t][u]
								     : s->max1[t][u];
			double *m = &maxr[(size_t)i * (size_t)n + (size_t)k];
			if (r > *m)
				*m = r;
		}
}
