/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_common.c — helpers shared by the policy families (see
 * policy_impl.h): usable types, the isolated allocation, grouping jobs
 * into interchangeable classes, a per-context random generator, and
 * cleaning solver noise out of allocations. */
#include "core/alloc_lp.h"
#include "core/policy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int hs_job_usable(const hs_problem_t *p, const double *cap, int m, int j)
{
	return p->jobs[m].thr[j] > 0.0 && cap[j] >= (double)p->jobs[m].scale_factor;
}

double hs_policy_thr(const hs_policy_desc_t *d, const hs_problem_t *p, int m, int j)
{
	double t = p->jobs[m].thr[j];
	if (d->aware)
		return t;
	return t > 0.0 ? 1.0 : 0.0;
}

/* ---- job classes --------------------------------------------------------- */

unsigned long long hs_hash_mix(unsigned long long h, unsigned long long v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h;
}

unsigned long long hs_hash_double(unsigned long long h, double v)
{
	unsigned long long bits;
	if (v == 0.0)
		v = 0.0; /* -0 and +0 hash alike */
	memcpy(&bits, &v, sizeof(bits));
	return hs_hash_mix(h, bits);
}

/* Open-addressing hash table from key hash to class; classes are compared
 * with eq on their representative, so hash collisions are harmless. */
int hs_classes_build(hs_classes_t *cl, int njobs, hs_class_hash_fn hash,
		     hs_class_eq_fn eq, const void *ctx, hs_err_t *err)
{
	memset(cl, 0, sizeof(*cl));
	size_t cap = 16;
	while (cap < 2 * (size_t)njobs)
		cap *= 2;
	int *slot = malloc(cap * sizeof(*slot));
	unsigned long long *slot_h = malloc(cap * sizeof(*slot_h));
	cl->class_of = malloc(((size_t)njobs + 1) * sizeof(*cl->class_of));
	cl->rep = malloc(((size_t)njobs + 1) * sizeof(*cl->rep));
	cl->size = calloc((size_t)njobs + 1, sizeof(*cl->size));
	if (!slot || !slot_h || !cl->class_of || !cl->rep || !cl->size) {
		free(slot);
		free(slot_h);
		hs_classes_free(cl);
		return hs_err_set(err, "out of memory");
	}
	for (size_t i = 0; i < cap; i++)
		slot[i] = -1;
	for (int m = 0; m < njobs; m++) {
		unsigned long long h = hash(ctx, m);
		size_t i = (size_t)(h & (cap - 1));
		for (;;) {
			int c = slot[i];
			if (c < 0) {
				c = cl->n++;
				slot[i] = c;
				slot_h[i] = h;
				cl->rep[c] = m;
				cl->class_of[m] = c;
				cl->size[c] = 1;
				break;
			}
			if (slot_h[i] == h && eq(ctx, cl->rep[c], m)) {
				cl->class_of[m] = c;
				cl->size[c]++;
				break;
			}
			i = (i + 1) & (cap - 1);
		}
	}
	free(slot);
	free(slot_h);
	return 0;
}

void hs_classes_free(hs_classes_t *cl)
{
	free(cl->class_of);
	free(cl->rep);
	free(cl->size);
	memset(cl, 0, sizeof(*cl));
}

typedef struct ck_ctx {
	const hs_problem_t *p;
	const double *cap;
	int flags;
} ck_ctx_t;

static unsigned long long ck_hash(const void *vctx, int m)
{
	const ck_ctx_t *k = vctx;
	const hs_job_t *jb = &k->p->jobs[m];
	if (k->flags & HS_CK_DISTINCT)
		return hs_hash_mix(0, (unsigned long long)m);
	unsigned long long h = hs_hash_mix(0, (unsigned long long)jb->scale_factor);
	if (k->flags & HS_CK_WEIGHT)
		h = hs_hash_double(h, jb->weight);
	if (k->flags & HS_CK_STEPS)
		h = hs_hash_double(h, jb->remaining_steps);
	if (k->flags & HS_CK_AGE)
		h = hs_hash_double(h, jb->age_s);
	if (k->flags & HS_CK_SLO)
		h = hs_hash_double(h, jb->slo_s);
	if (k->flags & HS_CK_JOBTYPE)
		h = hs_hash_mix(h, (unsigned long long)(jb->job_type + 1));
	if (k->flags & HS_CK_ENTITY)
		h = hs_hash_mix(h, (unsigned long long)(jb->entity + 1));
	for (int j = 0; j < k->p->cluster.ntypes; j++) {
		if (k->flags & HS_CK_THR)
			h = hs_hash_double(h, jb->thr[j]);
		if (k->flags & HS_CK_USABLE)
			h = hs_hash_mix(h, (unsigned long long)hs_job_usable(k->p, k->cap, m, j));
	}
	return h;
}

static int ck_eq(const void *vctx, int m, int n)
{
	const ck_ctx_t *k = vctx;
	const hs_job_t *a = &k->p->jobs[m], *b = &k->p->jobs[n];
	if (k->flags & HS_CK_DISTINCT)
		return m == n;
	if (a->scale_factor != b->scale_factor)
		return 0;
	if (((k->flags & HS_CK_WEIGHT) && a->weight != b->weight) ||
	    ((k->flags & HS_CK_STEPS) && a->remaining_steps != b->remaining_steps) ||
	    ((k->flags & HS_CK_AGE) && a->age_s != b->age_s) ||
	    ((k->flags & HS_CK_SLO) && a->slo_s != b->slo_s) ||
	    ((k->flags & HS_CK_JOBTYPE) && a->job_type != b->job_type) ||
	    ((k->flags & HS_CK_ENTITY) && a->entity != b->entity))
		return 0;
	for (int j = 0; j < k->p->cluster.ntypes; j++) {
		if ((k->flags & HS_CK_THR) && a->thr[j] != b->thr[j])
			return 0;
		if ((k->flags & HS_CK_USABLE) &&
		    hs_job_usable(k->p, k->cap, m, j) != hs_job_usable(k->p, k->cap, n, j))
			return 0;
	}
	return 1;
}

int hs_job_classes(hs_classes_t *cl, const hs_problem_t *p, const double *cap, int flags,
		   hs_err_t *err)
{
	ck_ctx_t k = { p, cap, flags };
	return hs_classes_build(cl, p->njobs, ck_hash, ck_eq, &k, err);
}

void hs_policy_note_lp(hs_policy_ctx_t *ctx, const hs_alp_t *alp)
{
	ctx->last_iterations += alp->iterations;
	ctx->last_lp_solves += alp->lp_solves;
	ctx->last_lp_items = alp->lp_items;
	ctx->last_items = alp->n;
}

/* ---- state across rounds -------------------------------------------------------- */

typedef struct id_entry {
	const char *id;
	int val;
} id_entry_t;

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const id_entry_t *)a)->id, ((const id_entry_t *)b)->id);
}

void hs_idmap_free(hs_idmap_t *map)
{
	if (!map)
		return;
	for (int i = 0; i < map->n; i++)
		free(map->ids[i]);
	free(map->ids);
	free(map->val);
	memset(map, 0, sizeof(*map));
}

int hs_idmap_set(hs_idmap_t *map, const hs_problem_t *p, const int *val, hs_err_t *err)
{
	hs_idmap_free(map);
	int n = 0;
	for (int m = 0; m < p->njobs; m++)
		n += val[m] != -1;
	id_entry_t *e = malloc(((size_t)n + 1) * sizeof(*e));
	map->ids = calloc((size_t)n + 1, sizeof(*map->ids));
	map->val = malloc(((size_t)n + 1) * sizeof(*map->val));
	if (!e || !map->ids || !map->val) {
		free(e);
		hs_idmap_free(map);
		return hs_err_set(err, "out of memory");
	}
	n = 0;
	for (int m = 0; m < p->njobs; m++)
		if (val[m] != -1)
			e[n++] = (id_entry_t){ p->jobs[m].id, val[m] };
	qsort(e, (size_t)n, sizeof(*e), cmp_entry);
	for (int i = 0; i < n; i++) {
		map->ids[i] = strdup(e[i].id);
		map->val[i] = e[i].val;
		if (!map->ids[i]) {
			map->n = i;
			free(e);
			hs_idmap_free(map);
			return hs_err_set(err, "out of memory");
		}
	}
	map->n = n;
	free(e);
	return 0;
}

int hs_idmap_find(const hs_idmap_t *map, const char *id)
{
	int lo = 0, hi = map->n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(map->ids[mid], id);
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int hs_idmap_get(const hs_idmap_t *map, const char *id)
{
	int i = hs_idmap_find(map, id);
	return i < 0 ? -1 : map->val[i];
}

typedef struct arr {
	double age;
	const char *id;
	int m;
} arr_t;

static int cmp_arrival(const void *a, const void *b)
{
	const arr_t *x = a, *y = b;
	if (x->age != y->age)
		return x->age > y->age ? -1 : 1;
	return strcmp(x->id, y->id);
}

int *hs_arrival_order(const hs_problem_t *p, hs_err_t *err)
{
	arr_t *a = malloc(((size_t)p->njobs + 1) * sizeof(*a));
	int *order = malloc(((size_t)p->njobs + 1) * sizeof(*order));
	if (!a || !order) {
		free(a);
		free(order);
		hs_err_set(err, "out of memory");
		return NULL;
	}
	for (int m = 0; m < p->njobs; m++)
		a[m] = (arr_t){ p->jobs[m].age_s, p->jobs[m].id, m };
	qsort(a, (size_t)p->njobs, sizeof(*a), cmp_arrival);
	for (int m = 0; m < p->njobs; m++)
		order[m] = a[m].m;
	free(a);
	return order;
}

/* ---- allocations ----------------------------------------------------------- */

double hs_alloc_total_thr(const hs_alloc_t *a, const hs_problem_t *p)
{
	double s = 0.0;
	for (int m = 0; m < p->njobs; m++)
		s += hs_alloc_effective_thr(a, p, m);
	return s;
}

static double snap(double v)
{
	if (!(v > 1e-9)) /* also catches NaN */
		return 0.0;
	if (v > 1.0 - 1e-9)
		return 1.0;
	return v;
}

int hs_alloc_clean(hs_alloc_t *a, const hs_problem_t *p, const double *cap, hs_err_t *err)
{
	const int J = a->ntypes, M = a->njobs;
	for (size_t i = 0; i < (size_t)M * J; i++)
		a->x[i] = snap(a->x[i]);
	for (int i = 0; i < a->npairs; i++)
		for (int j = 0; j < J; j++)
			a->pairs[i].x[j] = snap(a->pairs[i].x[j]);
	/* per type: sum_m s_m x_mj (a pair counts once) <= cap_j */
	for (int j = 0; j < J; j++) {
		double u = 0.0;
		for (int m = 0; m < M; m++)
			u += p->jobs[m].scale_factor * a->x[(size_t)m * J + j];
		for (int i = 0; i < a->npairs; i++)
			u += p->jobs[a->pairs[i].m].scale_factor * a->pairs[i].x[j];
		if (u > cap[j]) {
			double f = u > 0.0 ? cap[j] / u : 0.0;
			for (int m = 0; m < M; m++)
				a->x[(size_t)m * J + j] *= f;
			for (int i = 0; i < a->npairs; i++)
				a->pairs[i].x[j] *= f;
		}
	}
	/* per job: alone + pairs <= 1. Scaling down keeps the types feasible;
	 * a pair is scaled by the smaller factor of its two jobs. */
	double *f = malloc(((size_t)M + 1) * sizeof(*f));
	if (!f)
		return hs_err_set(err, "out of memory");
	for (int m = 0; m < M; m++) {
		f[m] = 0.0;
		for (int j = 0; j < J; j++)
			f[m] += a->x[(size_t)m * J + j];
	}
	for (int i = 0; i < a->npairs; i++)
		for (int j = 0; j < J; j++) {
			f[a->pairs[i].m] += a->pairs[i].x[j];
			f[a->pairs[i].k] += a->pairs[i].x[j];
		}
	for (int m = 0; m < M; m++) {
		f[m] = f[m] > 1.0 ? 1.0 / f[m] : 1.0;
		if (f[m] < 1.0)
			for (int j = 0; j < J; j++)
				a->x[(size_t)m * J + j] *= f[m];
	}
	for (int i = 0; i < a->npairs; i++) {
		double g = f[a->pairs[i].m] < f[a->pairs[i].k] ? f[a->pairs[i].m] : f[a->pairs[i].k];
		if (g < 1.0)
			for (int j = 0; j < J; j++)
				a->pairs[i].x[j] *= g;
	}
	free(f);
	return 0;
}
