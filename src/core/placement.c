/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placement.c — turns "job needs k GPUs of type j" into concrete server and
 * GPU indices: lease extension first, then biggest requests first on as few
 * servers as possible (see placement.h). */
#include "core/placement.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int hs_servers_validate(const hs_server_t *s, int n, int ntypes, hs_err_t *err)
{
	if (n < 0 || (n > 0 && !s))
		return hs_err_set(err, "invalid server list");
	for (int i = 0; i < n; i++) {
		if (!s[i].name || !*s[i].name)
			return hs_err_set(err, "server %d has no name", i);
		if (s[i].type < 0 || s[i].type >= ntypes)
			return hs_err_set(err, "server '%s': accelerator type index %d out of range",
					  s[i].name, s[i].type);
		if (s[i].ngpus < 0 || s[i].ngpus > HS_MAX_GPUS_PER_SERVER)
			return hs_err_set(err, "server '%s': GPU count %d out of range",
					  s[i].name, s[i].ngpus);
	}
	if (n < 2)
		return 0;
	/* Duplicate names: sort a copy of the name pointers. */
	const char **names = malloc((size_t)n * sizeof(*names));
	if (!names)
		return hs_err_set(err, "out of memory");
	for (int i = 0; i < n; i++)
		names[i] = s[i].name;
	qsort(names, (size_t)n, sizeof(*names), cmp_str_ptr);
	int rc = 0;
	for (int i = 1; i < n && rc == 0; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			rc = hs_err_set(err, "server '%s' appears twice", names[i]);
	free(names);
	return rc;
}

void hs_gpu_pool_free(hs_gpu_pool_t *p)
{
	if (!p)
		return;
	if (p->taken)
		for (int i = 0; i < p->nservers; i++)
			free(p->taken[i]);
	free(p->taken);
	free(p->nfree);
	memset(p, 0, sizeof(*p));
}

int hs_gpu_pool_init(hs_gpu_pool_t *p, const hs_server_t *s, int n, int ntypes, hs_err_t *err)
{
	memset(p, 0, sizeof(*p));
	if (hs_servers_validate(s, n, ntypes, err) < 0)
		return -1;
	p->nservers = n;
	p->servers = s;
	p->taken = calloc((size_t)n + 1, sizeof(*p->taken));
	p->nfree = calloc((size_t)n + 1, sizeof(*p->nfree));
	if (!p->taken || !p->nfree)
		goto oom;
	for (int i = 0; i < n; i++) {
		p->taken[i] = calloc((size_t)s[i].ngpus + 1, 1);
		if (!p->taken[i])
			goto oom;
		for (int g = 0; g < s[i].ngpus; g++) {
			p->taken[i][g] = s[i].usable ? !s[i].usable[g] : 0;
			p->nfree[i] += !p->taken[i][g];
		}
	}
	return 0;
oom:
	hs_gpu_pool_free(p);
	return hs_err_set(err, "out of memory");
}

int hs_gpu_pool_count(const hs_gpu_pool_t *p, int type)
{
	int n = 0;
	for (int i = 0; i < p->nservers; i++)
		if (p->servers[i].type == type)
			n += p->nfree[i];
	return n;
}

/* Free GPUs of a type left on the servers `allowed` permits ([nservers],
 * 1 = permitted; NULL = every server). */
static int gpu_pool_count_on(const hs_gpu_pool_t *p, int type, const unsigned char *allowed)
{
	int n = 0;
	for (int i = 0; i < p->nservers; i++)
		if (p->servers[i].type == type && (!allowed || allowed[i]))
			n += p->nfree[i];
	return n;
}

static int server_allowed(const hs_place_req_t *r, int s)
{
	return !r->allowed || r->allowed[s];
}

/* Lease extension: r->prev usable as is? (same type, same size, every GPU
 * valid, usable, allowed and not yet taken, no GPU twice) */
static int prev_available(const hs_gpu_pool_t *p, const hs_place_req_t *r)
{
	if (!r->prev || r->nprev != r->ngpus)
		return 0;
	for (int i = 0; i < r->nprev; i++) {
		const hs_gpu_ref_t *g = &r->prev[i];
		if (g->server < 0 || g->server >= p->nservers)
			return 0;
		if (p->servers[g->server].type != r->type)
			return 0;
		if (g->gpu < 0 || g->gpu >= p->servers[g->server].ngpus)
			return 0;
		if (p->taken[g->server][g->gpu] || !server_allowed(r, g->server))
			return 0;
		for (int k = 0; k < i; k++)
			if (r->prev[k].server == g->server && r->prev[k].gpu == g->gpu)
				return 0;
	}
	return 1;
}

static int count_servers(const hs_gpu_ref_t *g, int n)
{
	int distinct = 0;
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int k = 0; k < i && !seen; k++)
			seen = g[k].server == g[i].server;
		distinct += !seen;
	}
	return distinct;
}

/* Takes up to `want` free GPUs of server s into out; returns how many. */
static int take_from(hs_gpu_pool_t *p, int s, int want, hs_gpu_ref_t *out)
{
	int got = 0;
	for (int g = 0; g < p->servers[s].ngpus && got < want; g++) {
		if (p->taken[s][g])
			continue;
		p->taken[s][g] = 1;
		p->nfree[s]--;
		out[got++] = (hs_gpu_ref_t){ .server = s, .gpu = g };
	}
	return got;
}

/* Places one request without a usable lease: best fit on one server, else
 * the servers with the most free GPUs first (fewest servers spanned). A
 * restricted request that does not fit on its servers stays unplaced. */
static int place_fresh(hs_gpu_pool_t *p, hs_place_req_t *r, hs_err_t *err)
{
	int best = -1;
	for (int s = 0; s < p->nservers; s++) {
		if (p->servers[s].type != r->type || p->nfree[s] < r->ngpus ||
		    !server_allowed(r, s))
			continue;
		if (best < 0 || p->nfree[s] < p->nfree[best])
			best = s;
	}
	if (best >= 0) {
		take_from(p, best, r->ngpus, r->gpus);
		r->nservers = 1;
		r->placed = 1;
		return 0;
	}
	if (gpu_pool_count_on(p, r->type, r->allowed) < r->ngpus) {
		if (r->allowed)
			return 0; /* unplaced: its servers are full */
		return hs_err_set(err, "not enough free GPUs of type %d for a %d-GPU request",
				  r->type, r->ngpus);
	}
	int got = 0;
	while (got < r->ngpus) {
		int most = -1;
		for (int s = 0; s < p->nservers; s++)
			if (p->servers[s].type == r->type && p->nfree[s] > 0 &&
			    server_allowed(r, s) && (most < 0 || p->nfree[s] > p->nfree[most]))
				most = s;
		got += take_from(p, most, r->ngpus - got, r->gpus + got);
	}
	r->nservers = count_servers(r->gpus, r->ngpus);
	r->placed = 1;
	return 0;
}

/* Pass-2 order: restricted before unrestricted, then bigger first. */
static int place_before(const hs_place_req_t *a, const hs_place_req_t *b)
{
	if ((a->allowed != NULL) != (b->allowed != NULL))
		return a->allowed != NULL;
	return a->ngpus > b->ngpus;
}

int hs_place(hs_gpu_pool_t *p, hs_place_req_t *reqs, int nreqs, hs_err_t *err)
{
	int *order = malloc(((size_t)nreqs + 1) * sizeof(*order));
	if (!order)
		return hs_err_set(err, "out of memory");
	int n = 0;
	/* Pass 1: lease extensions, in array (priority) order. */
	for (int i = 0; i < nreqs; i++) {
		hs_place_req_t *r = &reqs[i];
		r->kept = 0;
		r->nservers = 0;
		r->placed = 0;
		if (r->ngpus < 1) {
			free(order);
			return hs_err_set(err, "placement request %d wants %d GPUs", i, r->ngpus);
		}
		if (prev_available(p, r)) {
			for (int k = 0; k < r->ngpus; k++) {
				r->gpus[k] = r->prev[k];
				p->taken[r->prev[k].server][r->prev[k].gpu] = 1;
				p->nfree[r->prev[k].server]--;
			}
			r->kept = 1;
			r->placed = 1;
			r->nservers = count_servers(r->gpus, r->ngpus);
		} else {
			order[n++] = i;
		}
	}
	/* Pass 2: the rest, restricted requests first (the others fit
	 * anywhere), then biggest first; insertion sort keeps array order
	 * among equals (n is at most the number of GPUs). */
	for (int i = 1; i < n; i++) {
		int v = order[i], k = i;
		while (k > 0 && place_before(&reqs[v], &reqs[order[k - 1]])) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = v;
	}
	for (int i = 0; i < n; i++) {
		if (place_fresh(p, &reqs[order[i]], err) < 0) {
			free(order);
			return -1;
		}
	}
	free(order);
	return 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const hs_gpu_ref_t *x = a, *y = b;
	if (x->server != y->server)
		return x->server < y->server ? -1 : 1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

int hs_gpu_set_equal(const hs_gpu_ref_t *a, int na, const hs_gpu_ref_t *b, int nb)
{
	if (na != nb)
		return 0;
	if (na == 0)
		return 1;
	hs_gpu_ref_t *sa = malloc((size_t)na * sizeof(*sa));
	hs_gpu_ref_t *sb = malloc((size_t)nb * sizeof(*sb));
	int eq = 0;
	if (sa && sb) {
		memcpy(sa, a, (size_t)na * sizeof(*sa));
		memcpy(sb, b, (size_t)nb * sizeof(*sb));
		qsort(sa, (size_t)na, sizeof(*sa), cmp_ref);
		qsort(sb, (size_t)nb, sizeof(*sb), cmp_ref);
		eq = memcmp(sa, sb, (size_t)na * sizeof(*sa)) == 0;
	}
	free(sa);
	free(sb);
	return eq;
}
