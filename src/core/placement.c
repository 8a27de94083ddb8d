/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placement.c — turns "job needs k GPUs of type j" into concrete server and
 * GPU indices: lease extension first, then biggest requests first on as few
 * servers as possible (see placement.h). */
#include "core/placement.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a: the duplicate-name check hashes names instead of sorting them
 * (it runs every round, over thousands of servers in a simulation). */
static unsigned long name_hash(const char *s)
{
	unsigned long h = 2166136261UL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619UL;
	return h;
}

/* Everything hs_servers_validate checks but the unique names. */
static int servers_check_each(const hs_server_t *s, int n, int ntypes, hs_err_t *err)
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
	return 0;
}

int hs_servers_validate(const hs_server_t *s, int n, int ntypes, hs_err_t *err)
{
	if (servers_check_each(s, n, ntypes, err) < 0)
		return -1;
	if (n < 2)
		return 0;
	/* Duplicate names: an open-addressing set of server indices, with
	 * each slot's hash so most probes skip the strcmp. */
	size_t cap = 16;
	while (cap < 2 * (size_t)n)
		cap *= 2;
	int *slot = malloc(cap * sizeof(*slot));
	unsigned long *slot_h = malloc(cap * sizeof(*slot_h));
	if (!slot || !slot_h) {
		free(slot);
		free(slot_h);
		return hs_err_set(err, "out of memory");
	}
	for (size_t i = 0; i < cap; i++)
		slot[i] = -1;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		const unsigned long hash = name_hash(s[i].name);
		size_t h = (size_t)hash & (cap - 1);
		while (slot[h] >= 0 && (slot_h[h] != hash || strcmp(s[slot[h]].name, s[i].name)))
			h = (h + 1) & (cap - 1);
		if (slot[h] >= 0)
			rc = hs_err_set(err, "server '%s' appears twice", s[i].name);
		slot[h] = i;
		slot_h[h] = hash;
	}
	free(slot);
	free(slot_h);
	return rc;
}

void hs_gpu_pool_free(hs_gpu_pool_t *p)
{
	if (!p)
		return;
	free(p->taken);
	free(p->taken_block);
	free(p->nfree);
	free(p->bits);
	free(p->tfree);
	memset(p, 0, sizeof(*p));
}

static unsigned long long *pool_bits(const hs_gpu_pool_t *p, int t, int c)
{
	return p->bits + ((size_t)t * ((size_t)p->maxg + 1) + (size_t)c) * (size_t)p->nwords;
}

/* Lowest server index in a bitmap, or -1. */
static int first_server(const unsigned long long *w, int nwords)
{
	for (int i = 0; i < nwords; i++)
		if (w[i])
			return i * 64 + __builtin_ctzll(w[i]);
	return -1;
}

/* Every change of nfree goes through here to keep the index current. */
static void pool_set_nfree(hs_gpu_pool_t *p, int s, int v)
{
	int old = p->nfree[s], t = p->servers[s].type;
	p->tfree[t] += v - old;
	p->nfree[s] = v;
	if (!p->bits)
		return;
	const unsigned long long bit = 1ULL << (s % 64);
	if (old > 0)
		pool_bits(p, t, old)[s / 64] &= ~bit;
	if (v > 0)
		pool_bits(p, t, v)[s / 64] |= bit;
}

static int pool_build(hs_gpu_pool_t *p, const hs_server_t *s, int n, int ntypes,
		      hs_err_t *err);

int hs_gpu_pool_init(hs_gpu_pool_t *p, const hs_server_t *s, int n, int ntypes, hs_err_t *err)
{
	memset(p, 0, sizeof(*p));
	if (hs_servers_validate(s, n, ntypes, err) < 0)
		return -1;
	return pool_build(p, s, n, ntypes, err);
}

int hs_gpu_pool_init_unique(hs_gpu_pool_t *p, const hs_server_t *s, int n, int ntypes,
			    hs_err_t *err)
{
	memset(p, 0, sizeof(*p));
	if (servers_check_each(s, n, ntypes, err) < 0)
		return -1;
	return pool_build(p, s, n, ntypes, err);
}

static int pool_build(hs_gpu_pool_t *p, const hs_server_t *s, int n, int ntypes,
		      hs_err_t *err)
{
	p->nservers = n;
	p->servers = s;
	p->ntypes = ntypes;
	size_t total = 0;
	for (int i = 0; i < n; i++) {
		total += (size_t)s[i].ngpus;
		p->maxg = s[i].ngpus > p->maxg ? s[i].ngpus : p->maxg;
	}
	p->nwords = (n + 63) / 64;
	p->taken = calloc((size_t)n + 1, sizeof(*p->taken));
	p->taken_block = calloc(total + 1, 1);
	p->nfree = calloc((size_t)n + 1, sizeof(*p->nfree));
	p->tfree = calloc((size_t)ntypes + 1, sizeof(*p->tfree));
	if (!p->taken || !p->taken_block || !p->nfree || !p->tfree)
		goto oom;
	if (p->maxg <= HS_POOL_INDEX_MAXG && n > 0) {
		p->bits = calloc((size_t)ntypes * ((size_t)p->maxg + 1) * (size_t)p->nwords,
				 sizeof(*p->bits));
		if (!p->bits)
			goto oom;
	}
	total = 0;
	for (int i = 0; i < n; i++) {
		p->taken[i] = p->taken_block + total;
		total += (size_t)s[i].ngpus;
		int nfree = 0;
		for (int g = 0; g < s[i].ngpus; g++) {
			p->taken[i][g] = s[i].usable ? !s[i].usable[g] : 0;
			nfree += !p->taken[i][g];
		}
		pool_set_nfree(p, i, nfree);
	}
	return 0;
oom:
	hs_gpu_pool_free(p);
	return hs_err_set(err, "out of memory");
}

int hs_gpu_pool_count(const hs_gpu_pool_t *p, int type)
{
	return type >= 0 && type < p->ntypes ? p->tfree[type] : 0;
}

/* Free GPUs of a type left on the servers `allowed` permits ([nservers],
 * 1 = permitted; NULL = every server). */
static int gpu_pool_count_on(const hs_gpu_pool_t *p, int type, const unsigned char *allowed)
{
	if (!allowed)
		return hs_gpu_pool_count(p, type);
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
		pool_set_nfree(p, s, p->nfree[s] - 1);
		out[got++] = (hs_gpu_ref_t){ .server = s, .gpu = g };
	}
	return got;
}

/* Places one request without a usable lease: best fit on one server, else
 * the servers with the most free GPUs first (fewest servers spanned). A
 * restricted request that does not fit on its servers stays unplaced. */
/* The server a request without a mask takes next, from the index:
 * spread = 0: the fewest free GPUs >= ngpus; spread = 1: the most free
 * GPUs; lowest index among equals, as the scans below choose. */
static int indexed_server(const hs_gpu_pool_t *p, const hs_place_req_t *r, int spread)
{
	if (spread) {
		for (int c = p->maxg; c >= 1; c--) {
			int s = first_server(pool_bits(p, r->type, c), p->nwords);
			if (s >= 0)
				return s;
		}
		return -1;
	}
	for (int c = r->ngpus; c <= p->maxg; c++) {
		int s = first_server(pool_bits(p, r->type, c), p->nwords);
		if (s >= 0)
			return s;
	}
	return -1;
}

static int place_fresh(hs_gpu_pool_t *p, hs_place_req_t *r, hs_err_t *err)
{
	const int indexed = p->bits && !r->allowed && r->type >= 0 && r->type < p->ntypes;
	int best = indexed ? indexed_server(p, r, 0) : -1;
	for (int s = 0; s < p->nservers && !indexed; s++) {
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
		int most = indexed ? indexed_server(p, r, 1) : -1;
		for (int s = 0; s < p->nservers && !indexed; s++)
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
				pool_set_nfree(p, r->prev[k].server, p->nfree[r->prev[k].server] - 1);
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
	/* the same list in the same order (a kept lease): equal as sets
	 * without sorting; this runs per job per round */
	if (na == 0 || !memcmp(a, b, (size_t)na * sizeof(*a)))
		return 1;
	/* Small sets (every real node) on the stack: this runs per job per
	 * round. */
	hs_gpu_ref_t stack_a[16], stack_b[16];
	const int small = na <= 16;
	hs_gpu_ref_t *sa = small ? stack_a : malloc((size_t)na * sizeof(*sa));
	hs_gpu_ref_t *sb = small ? stack_b : malloc((size_t)nb * sizeof(*sb));
	int eq = 0;
	if (sa && sb) {
		memcpy(sa, a, (size_t)na * sizeof(*sa));
		memcpy(sb, b, (size_t)nb * sizeof(*sb));
		qsort(sa, (size_t)na, sizeof(*sa), cmp_ref);
		qsort(sb, (size_t)nb, sizeof(*sb), cmp_ref);
		eq = memcmp(sa, sb, (size_t)na * sizeof(*sa)) == 0;
	}
	if (!small) {
		free(sa);
		free(sb);
	}
	return eq;
}
