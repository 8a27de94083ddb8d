/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.c — construction, validation and small queries of the core model
 * (see model.h). */
#include "core/model.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hs_err_set(hs_err_t *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- Cluster ------------------------------------------------------------ */

int hs_cluster_init(hs_cluster_t *c, int ntypes, hs_err_t *err)
{
	memset(c, 0, sizeof(*c));
	if (ntypes < 0 || ntypes > 4096)
		return hs_err_set(err, "invalid number of accelerator types %d", ntypes);
	c->ntypes = ntypes;
	c->names = calloc((size_t)ntypes + 1, sizeof(*c->names));
	c->count = calloc((size_t)ntypes + 1, sizeof(*c->count));
	c->price = calloc((size_t)ntypes + 1, sizeof(*c->price));
	if (!c->names || !c->count || !c->price) {
		hs_cluster_free(c);
		return hs_err_set(err, "out of memory");
	}
	return 0;
}

void hs_cluster_free(hs_cluster_t *c)
{
	if (!c)
		return;
	if (c->names)
		for (int j = 0; j < c->ntypes; j++)
			free(c->names[j]);
	free(c->names);
	free(c->count);
	free(c->price);
	memset(c, 0, sizeof(*c));
}

int hs_cluster_type_index(const hs_cluster_t *c, const char *name)
{
	for (int j = 0; j < c->ntypes; j++)
		if (c->names[j] && strcmp(c->names[j], name) == 0)
			return j;
	return -1;
}

int hs_cluster_total(const hs_cluster_t *c)
{
	int total = 0;
	for (int j = 0; j < c->ntypes; j++)
		total += c->count[j];
	return total;
}

int hs_cluster_parse(hs_cluster_t *c, const char *spec, hs_err_t *err)
{
	if (!spec || !*spec)
		return hs_err_set(err, "empty cluster specification");
	int n = 1;
	for (const char *s = spec; *s; s++)
		n += (*s == ',');
	if (hs_cluster_init(c, n, err) < 0)
		return -1;
	const char *s = spec;
	for (int j = 0; j < n; j++) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *colon = memchr(s, ':', len);
		if (!colon || colon == s) {
			hs_err_set(err, "cluster entry '%.*s' is not TYPE:COUNT", (int)len, s);
			goto fail;
		}
		char num[32];
		size_t nlen = len - (size_t)(colon + 1 - s);
		if (nlen == 0 || nlen >= sizeof(num)) {
			hs_err_set(err, "cluster entry '%.*s' has a bad count", (int)len, s);
			goto fail;
		}
		memcpy(num, colon + 1, nlen);
		num[nlen] = '\0';
		char *nend;
		errno = 0;
		long v = strtol(num, &nend, 10);
		if (*nend || errno || v < 0 || v > INT_MAX) {
			hs_err_set(err, "cluster entry '%.*s': count must be an integer >= 0", (int)len, s);
			goto fail;
		}
		c->names[j] = strndup(s, (size_t)(colon - s));
		if (!c->names[j]) {
			hs_err_set(err, "out of memory");
			goto fail;
		}
		if (hs_cluster_type_index(c, c->names[j]) != j) {
			hs_err_set(err, "accelerator type '%s' appears twice", c->names[j]);
			goto fail;
		}
		c->count[j] = (int)v;
		s = end ? end + 1 : s + len;
	}
	return 0;
fail:
	hs_cluster_free(c);
	return -1;
}

/* ---- Problem ------------------------------------------------------------ */

int hs_problem_alloc_jobs(hs_problem_t *p, int njobs, hs_err_t *err)
{
	if (njobs < 0)
		return hs_err_set(err, "negative number of jobs");
	int J = p->cluster.ntypes;
	p->jobs = calloc((size_t)njobs + 1, sizeof(*p->jobs));
	if (!p->jobs)
		return hs_err_set(err, "out of memory");
	/* one block, not one calloc per job: the engine builds a problem
	 * every round (issue 27) */
	const size_t stride = (size_t)J + 1; /* as when each had its own */
	p->thr_block = calloc((size_t)njobs * stride + 1, sizeof(*p->thr_block));
	if (!p->thr_block)
		return hs_err_set(err, "out of memory");
	p->njobs = njobs;
	for (int m = 0; m < njobs; m++) {
		hs_job_t *jb = &p->jobs[m];
		jb->thr = p->thr_block + (size_t)m * stride;
		jb->scale_factor = 1;
		jb->weight = 1.0;
		jb->slo_s = -1.0;
		jb->job_type = -1;
		jb->entity = -1;
	}
	return 0;
}

static void free_strings(char **v, int n)
{
	if (v)
		for (int i = 0; i < n; i++)
			free(v[i]);
	free(v);
}

void hs_problem_free(hs_problem_t *p)
{
	if (!p)
		return;
	for (int m = 0; m < p->njobs && p->jobs && !p->id_block; m++)
		free(p->jobs[m].id);
	free(p->id_block);
	free(p->thr_block);
	free(p->jobs);
	hs_cluster_free(&p->cluster);
	free_strings(p->jobtypes.names, p->jobtypes.n);
	free(p->jobtypes.scale_factor);
	free(p->jobtypes.pair_thr);
	free_strings(p->entities.names, p->entities.n);
	free(p->entities.weight);
	free(p->entities.mode);
	free(p->entities.parent);
	free(p->entities.held);
	memset(p, 0, sizeof(*p));
}

static int finite_nonneg(double v)
{
	return isfinite(v) && v >= 0.0;
}

/* The entity forest (model.h): parents in range, no cycles, jobs on
 * leaves only. Linear (the input may be a hostile file): each walk up
 * marks its path 1 and stops at a -1 parent or at an entity already
 * known to reach one (2); meeting a 1 again is a cycle. */
static int validate_forest(const hs_problem_t *p, hs_err_t *err)
{
	const hs_entities_t *es = &p->entities;
	const int n = es->n;
	if (!es->parent)
		return 0;
	for (int e = 0; e < n; e++)
		if (es->parent[e] < -1 || es->parent[e] >= n)
			return hs_err_set(err, "entity '%s': parent index out of range", es->names[e]);
	char *mark = calloc((size_t)n + 1, 1), *haschild = calloc((size_t)n + 1, 1);
	int rc = 0;
	if (!mark || !haschild) {
		rc = hs_err_set(err, "out of memory");
		goto out;
	}
	for (int e = 0; e < n && rc == 0; e++) {
		int a = e;
		while (a >= 0 && mark[a] == 0) {
			mark[a] = 1;
			a = es->parent[a];
		}
		if (a >= 0 && mark[a] == 1) {
			rc = hs_err_set(err, "entity '%s': its parents form a cycle", es->names[a]);
			break;
		}
		for (a = e; a >= 0 && mark[a] == 1; a = es->parent[a])
			mark[a] = 2;
	}
	for (int e = 0; e < n; e++)
		if (es->parent[e] >= 0)
			haschild[es->parent[e]] = 1;
	for (int m = 0; m < p->njobs && rc == 0; m++) {
		int e = p->jobs[m].entity;
		if (e >= 0 && haschild[e])
			rc = hs_err_set(err, "job '%s': entity '%s' has child entities; jobs belong "
					"to leaves (users)", p->jobs[m].id, es->names[e]);
	}
out:
	free(mark);
	free(haschild);
	return rc;
}

int hs_problem_validate(const hs_problem_t *p, hs_err_t *err)
{
	const hs_cluster_t *c = &p->cluster;
	if (c->ntypes <= 0)
		return hs_err_set(err, "the cluster has no accelerator types");
	for (int j = 0; j < c->ntypes; j++) {
		if (!c->names[j] || !*c->names[j])
			return hs_err_set(err, "accelerator type %d has no name", j);
		if (c->count[j] < 0)
			return hs_err_set(err, "accelerator type '%s' has a negative count", c->names[j]);
		if (!finite_nonneg(c->price[j]))
			return hs_err_set(err, "accelerator type '%s' has an invalid price", c->names[j]);
	}
	if (p->njobs < 0)
		return hs_err_set(err, "negative number of jobs");
	const int A = p->jobtypes.n;
	for (int m = 0; m < p->njobs; m++) {
		const hs_job_t *jb = &p->jobs[m];
		const char *id = jb->id ? jb->id : "(unnamed)";
		if (!jb->id || !*jb->id)
			return hs_err_set(err, "job %d has no id", m);
		if (jb->scale_factor < 1)
			return hs_err_set(err, "job '%s': scale_factor must be >= 1", id);
		if (!isfinite(jb->weight) || jb->weight <= 0.0)
			return hs_err_set(err, "job '%s': weight must be > 0", id);
		if (!isfinite(jb->remaining_steps) || jb->remaining_steps <= 0.0)
			return hs_err_set(err, "job '%s': remaining_steps must be > 0", id);
		if (!finite_nonneg(jb->age_s))
			return hs_err_set(err, "job '%s': age_s must be >= 0", id);
		if (!isfinite(jb->slo_s))
			return hs_err_set(err, "job '%s': slo_s must be a number", id);
		int usable = 0;
		for (int j = 0; j < c->ntypes; j++) {
			if (!finite_nonneg(jb->thr[j]))
				return hs_err_set(err, "job '%s': throughput on '%s' must be >= 0",
						  id, c->names[j]);
			if (jb->thr[j] > 0.0 && c->count[j] >= jb->scale_factor)
				usable = 1;
		}
		if (!usable)
			return hs_err_set(err, "job '%s' has no usable accelerator type "
					  "(no type with throughput > 0 and at least %d accelerators)",
					  id, jb->scale_factor);
		if (jb->job_type < -1 || jb->job_type >= A)
			return hs_err_set(err, "job '%s': job type index out of range", id);
		if (jb->entity < -1 || jb->entity >= p->entities.n)
			return hs_err_set(err, "job '%s': entity index out of range", id);
	}
	for (int a = 0; a < A; a++) {
		if (p->jobtypes.scale_factor[a] < 1)
			return hs_err_set(err, "job type '%s': scale factor must be >= 1",
					  p->jobtypes.names[a]);
	}
	for (size_t i = 0; i < (size_t)A * A * (size_t)c->ntypes; i++)
		if (!finite_nonneg(p->jobtypes.pair_thr[i]))
			return hs_err_set(err, "pair throughput table has an invalid entry");
	for (int e = 0; e < p->entities.n; e++) {
		if (!isfinite(p->entities.weight[e]) || p->entities.weight[e] <= 0.0)
			return hs_err_set(err, "entity '%s': weight must be > 0", p->entities.names[e]);
		if (p->entities.held && !finite_nonneg(p->entities.held[e]))
			return hs_err_set(err, "entity '%s': held GPUs must be >= 0", p->entities.names[e]);
	}
	if (validate_forest(p, err) < 0)
		return -1;
	if (p->reference_type < -1 || p->reference_type >= c->ntypes)
		return hs_err_set(err, "reference type index out of range");
	return 0;
}

double hs_job_equal_share_thr(const hs_problem_t *p, int m)
{
	const hs_cluster_t *c = &p->cluster;
	double num = 0.0;
	int total = 0;
	for (int j = 0; j < c->ntypes; j++) {
		num += p->jobs[m].thr[j] * c->count[j];
		total += c->count[j];
	}
	return total > 0 ? num / total : 0.0;
}

double hs_job_pair_thr(const hs_problem_t *p, int m, int b, int j)
{
	const int A = p->jobtypes.n, J = p->cluster.ntypes;
	int a = p->jobs[m].job_type;
	if (a < 0 || a >= A || b < 0 || b >= A || j < 0 || j >= J)
		return 0.0;
	return p->jobtypes.pair_thr[((size_t)a * A + b) * J + j];
}

/* ---- Allocation --------------------------------------------------------- */

int hs_alloc_init(hs_alloc_t *a, int njobs, int ntypes, hs_err_t *err)
{
	memset(a, 0, sizeof(*a));
	if (njobs < 0 || ntypes < 0)
		return hs_err_set(err, "invalid allocation size");
	a->njobs = njobs;
	a->ntypes = ntypes;
	a->x = calloc((size_t)njobs * ntypes + 1, sizeof(*a->x));
	if (!a->x)
		return hs_err_set(err, "out of memory");
	return 0;
}

void hs_alloc_free(hs_alloc_t *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->npairs; i++)
		free(a->pairs[i].x);
	free(a->pairs);
	free(a->x);
	memset(a, 0, sizeof(*a));
}

int hs_alloc_add_pair(hs_alloc_t *a, int m, int k, hs_err_t *err)
{
	if (m == k || m < 0 || k < 0 || m >= a->njobs || k >= a->njobs)
		return hs_err_set(err, "invalid job pair (%d, %d)", m, k);
	if (a->npairs == a->cap_pairs) {
		int cap = a->cap_pairs ? 2 * a->cap_pairs : 16;
		hs_pair_alloc_t *np = realloc(a->pairs, (size_t)cap * sizeof(*np));
		if (!np)
			return hs_err_set(err, "out of memory");
		a->pairs = np;
		a->cap_pairs = cap;
	}
	double *x = calloc((size_t)a->ntypes + 1, sizeof(*x));
	if (!x)
		return hs_err_set(err, "out of memory");
	a->pairs[a->npairs] = (hs_pair_alloc_t){ .m = m < k ? m : k, .k = m < k ? k : m, .x = x };
	return a->npairs++;
}

double hs_alloc_job_type_total(const hs_alloc_t *a, int m, int j)
{
	double t = a->x[(size_t)m * a->ntypes + j];
	for (int i = 0; i < a->npairs; i++)
		if (a->pairs[i].m == m || a->pairs[i].k == m)
			t += a->pairs[i].x[j];
	return t;
}

double hs_alloc_effective_thr(const hs_alloc_t *a, const hs_problem_t *p, int m)
{
	double thr = 0.0;
	for (int j = 0; j < a->ntypes; j++)
		thr += p->jobs[m].thr[j] * a->x[(size_t)m * a->ntypes + j];
	for (int i = 0; i < a->npairs; i++) {
		const hs_pair_alloc_t *pr = &a->pairs[i];
		if (pr->m != m && pr->k != m)
			continue;
		int other = pr->m == m ? pr->k : pr->m;
		int b = p->jobs[other].job_type;
		for (int j = 0; j < a->ntypes; j++)
			thr += hs_job_pair_thr(p, m, b, j) * pr->x[j];
	}
	return thr;
}
