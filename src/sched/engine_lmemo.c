/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_lmemo.c — one round's learned answers per (learning kind, GPU
 * count). While a round's problem is built the learned table does not
 * change: every report is fed before the first estimate
 * (engine_problem.c), and an estimate only stamps when a kind was last
 * asked for. So every job of one kind and GPU count gets the same learned
 * rates and the same learned ratio bounds, and they are computed once per
 * kind, not once per job (issue 27: with a queue of a few dozen kinds,
 * half of the learning's share of a simulated round). A leaf of the
 * engine; the memo lives and dies with the round build. */
#include "sched/engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* Kinds a round remembers at most: beyond, jobs are answered without the
 * memo (the ratio bounds take ntypes^2 doubles an entry). */
#define LMEMO_MAX 512

typedef struct lmemo_ent {
	uint64_t hash;
	int sf;
	int has_maxr;              /* maxr filled (only jobs that need it ask) */
	char kind[HS_LEARN_KIND_MAX];
} lmemo_ent_t;

struct hs_lmemo {
	int ntypes, cap, n;
	unsigned mask;
	int *slot;                 /* [mask + 1] entry index, -1 = empty */
	lmemo_ent_t *ent;          /* [cap] */
	double *rate, *conf;       /* [cap * ntypes] */
	unsigned char *inf;        /* [cap * ntypes] */
	double *maxr;              /* [cap * ntypes * ntypes] */
};

void hs_lmemo_free(hs_lmemo_t *m)
{
	if (!m)
		return;
	free(m->slot);
	free(m->ent);
	free(m->rate);
	free(m->conf);
	free(m->inf);
	free(m->maxr);
	free(m);
}

hs_lmemo_t *hs_lmemo_new(int jobs, int ntypes)
{
	if (ntypes <= 0)
		return NULL;
	hs_lmemo_t *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->ntypes = ntypes;
	m->cap = jobs < 1 ? 1 : jobs > LMEMO_MAX ? LMEMO_MAX : jobs;
	unsigned size = 16;
	while (size < 2u * (unsigned)m->cap)
		size *= 2;
	m->mask = size - 1;
	const size_t cj = (size_t)m->cap * (size_t)ntypes;
	m->slot = malloc(size * sizeof(*m->slot));
	m->ent = malloc((size_t)m->cap * sizeof(*m->ent)); /* set as added */
	m->rate = malloc(cj * sizeof(*m->rate));
	m->conf = malloc(cj * sizeof(*m->conf));
	m->inf = malloc(cj);
	m->maxr = malloc(cj * (size_t)ntypes * sizeof(*m->maxr));
	if (!m->slot || !m->ent || !m->rate || !m->conf || !m->inf || !m->maxr) {
		hs_lmemo_free(m);
		return NULL;
	}
	memset(m->slot, 0xff, size * sizeof(*m->slot));
	return m;
}

static uint64_t kind_hash(const char *kind, int sf)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(unsigned)sf;
	for (; *kind; kind++)
		h = (h ^ (unsigned char)*kind) * 1099511628211ull;
	return h;
}

int hs_lmemo_find(hs_lmemo_t *m, const char *kind, int sf, int *found)
{
	*found = 0;
	if (!m)
		return -1;
	const uint64_t h = kind_hash(kind, sf);
	unsigned s = (unsigned)h & m->mask;
	for (; m->slot[s] >= 0; s = (s + 1) & m->mask) {
		const lmemo_ent_t *x = &m->ent[m->slot[s]];
		if (x->hash == h && x->sf == sf && !strcmp(x->kind, kind)) {
			*found = 1;
			return m->slot[s];
		}
	}
	if (m->n >= m->cap)
		return -1; /* full: this kind goes without the memo */
	const size_t len = strlen(kind);
	if (len >= sizeof(m->ent[0].kind))
		return -1; /* not a kind hs_learn_kind makes */
	lmemo_ent_t *x = &m->ent[m->n];
	memcpy(x->kind, kind, len + 1);
	x->hash = h;
	x->sf = sf;
	x->has_maxr = 0;
	m->slot[s] = m->n;
	return m->n++;
}

void hs_lmemo_put_rates(hs_lmemo_t *m, int ix, const double *rate, const unsigned char *inf,
			const double *conf)
{
	const size_t J = (size_t)m->ntypes, at = (size_t)ix * J;
	memcpy(m->rate + at, rate, J * sizeof(*rate));
	memcpy(m->inf + at, inf, J);
	memcpy(m->conf + at, conf, J * sizeof(*conf));
}

void hs_lmemo_get_rates(const hs_lmemo_t *m, int ix, double *rate, unsigned char *inf,
			double *conf)
{
	const size_t J = (size_t)m->ntypes, at = (size_t)ix * J;
	memcpy(rate, m->rate + at, J * sizeof(*rate));
	memcpy(inf, m->inf + at, J);
	memcpy(conf, m->conf + at, J * sizeof(*conf));
}

void hs_lmemo_ratios(hs_lmemo_t *m, int ix, hs_learn_t *l, const char *kind, int sf,
		     const char *const *types, double *maxr)
{
	const size_t JJ = (size_t)m->ntypes * (size_t)m->ntypes;
	double *own = m->maxr + (size_t)ix * JJ;
	if (!m->ent[ix].has_maxr) {
		/* the kind's ratios alone (from 0): hs_learn_max_ratios only
		 * ever raises an entry, so raising the caller's table ratios
		 * to these gives what it would have given them */
		memset(own, 0, JJ * sizeof(*own));
		hs_learn_max_ratios(l, kind, sf, types, m->ntypes, own);
		m->ent[ix].has_maxr = 1;
	}
	for (size_t i = 0; i < JJ; i++)
		if (own[i] > maxr[i])
			maxr[i] = own[i];
}
