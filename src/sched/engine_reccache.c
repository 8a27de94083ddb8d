/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_reccache.c — the jobs' parsed AdminComment records, by job id:
 * a record is parsed again only when its text changed since it was last
 * parsed. Every round reads every job's record (estimates, remaining
 * work) and every tick the records of jobs with a checkpoint in flight;
 * most of them do not change between two looks (pending jobs, jobs
 * between reports), and the json-c parse was half of a simulated round's
 * time. The text is kept and compared whole, so a cached record is
 * exactly the parse of the text in hand. A leaf of the engine. */
#include "sched/engine_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index of id in the sorted cache, or -(insertion point) - 1. */
static int find(const hs_engine_t *e, uint32_t id)
{
	return hs_idx_find(e->rc, sizeof(*e->rc), offsetof(hs_rcache_t, id), e->nrc, id, e->rc_hint);
}

static hs_rcache_t *entry(hs_engine_t *e, uint32_t id)
{
	int i = find(e, id);
	if (i >= 0)
		return &e->rc[i];
	i = -i - 1;
	if (e->nrc == e->cap_rc) {
		int cap = e->cap_rc ? 2 * e->cap_rc : 64;
		hs_rcache_t *n = realloc(e->rc, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL;
		e->rc = n;
		e->cap_rc = cap;
	}
	memmove(&e->rc[i + 1], &e->rc[i], (size_t)(e->nrc - i) * sizeof(*e->rc));
	e->nrc++;
	memset(&e->rc[i], 0, sizeof(e->rc[i]));
	e->rc[i].id = id;
	e->rc[i].ok = -1; /* not parsed yet */
	return &e->rc[i];
}

/* Out of memory for the cache: parsed into the caller's room. */
static const hs_record_t *uncached(const char *text, hs_record_t *tmp, hs_err_t *err)
{
	return hs_record_parse(tmp, text, err) == 0 ? tmp : NULL;
}

const hs_record_t *hs_reccache_get(hs_engine_t *e, uint32_t id, const char *text,
				   hs_record_t *tmp, hs_err_t *err)
{
	if (!text || !*text)
		return NULL;
	size_t len = strlen(text);
	hs_rcache_t *c = entry(e, id);
	if (!c)
		return uncached(text, tmp, err);
	c->seen = e->rounds + 1;
	if (c->ok >= 0 && c->len == len && !memcmp(c->text, text, len)) {
		if (!c->ok && err)
			hs_err_set(err, "%s", c->why);
		return c->ok ? &c->rec : NULL;
	}
	char *t = realloc(c->text, len + 1);
	if (!t) {
		c->ok = -1;
		return uncached(text, tmp, err);
	}
	memcpy(t, text, len + 1);
	c->text = t;
	c->len = len;
	hs_err_t pe = { "" };
	c->ok = hs_record_parse(&c->rec, text, &pe) == 0;
	hs_strlcpy(c->why, pe.msg, sizeof(c->why)); /* truncation is fine: a log text */
	if (!c->ok && err)
		hs_err_set(err, "%s", pe.msg);
	return c->ok ? &c->rec : NULL;
}

void hs_reccache_prune(hs_engine_t *e, long round)
{
	int w = 0;
	for (int i = 0; i < e->nrc; i++) {
		if (e->rc[i].seen >= round - 1) {
			if (w != i) /* a parsed record is large: no copy onto itself */
				e->rc[w] = e->rc[i];
			w++;
			continue;
		}
		free(e->rc[i].text);
	}
	e->nrc = w;
}

void hs_reccache_free(hs_engine_t *e)
{
	for (int i = 0; i < e->nrc; i++)
		free(e->rc[i].text);
	free(e->rc);
	e->rc = NULL;
	e->nrc = e->cap_rc = 0;
}
