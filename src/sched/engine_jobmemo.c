/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_jobmemo.c — what the engine derives from a job's submit hints,
 * kept by job id between rounds: the hints parsed (hs_hints_parse) and
 * which throughput table row its model and GPU count have. Every round
 * re-read both for every job of the queue, though a job's hints do not
 * change; now they are parsed again only when the hints' text does (a
 * 64-bit hash of the HS_* entries: a collision could only give a job
 * the parse of its own earlier hints, never another job's). Dropped with
 * the job; a reconfigure (the tables change) forgets only their table
 * rows (hs_jmemo_tables_changed). A leaf
 * of the engine. */
#include "sched/engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* 8 bytes at a time (every round hashes every job's hints: FNV-1a byte
 * by byte was 4% of a simulation), each word mixed in with a multiply and
 * a shift; an entry's length is mixed in after it (the separator). */
static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t env_hash(char *const *env, uint32_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (uint32_t i = 0; env && i < n; i++) {
		const char *p = env[i] ? env[i] : "";
		size_t len = strlen(p), k = 0;
		for (; k + 8 <= len; k += 8) {
			uint64_t w;
			memcpy(&w, p + k, 8);
			h = mix(h, w);
		}
		uint64_t tail = 0;
		memcpy(&tail, p + k, len - k);
		h = mix(mix(h, tail), (uint64_t)len + 0x100u);
	}
	return h;
}

static int find(const hs_engine_t *e, uint32_t id)
{
	return hs_idx_find(e->memo, sizeof(*e->memo), offsetof(hs_jmemo_t, id), e->nmemo, id,
			   e->memo_hint);
}

static hs_jmemo_t *entry(hs_engine_t *e, uint32_t id)
{
	int i = find(e, id);
	if (i >= 0)
		return &e->memo[i];
	i = -i - 1;
	if (e->nmemo == e->cap_memo) {
		int cap = e->cap_memo ? 2 * e->cap_memo : 64;
		hs_jmemo_t *n = realloc(e->memo, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL;
		e->memo = n;
		e->cap_memo = cap;
	}
	memmove(&e->memo[i + 1], &e->memo[i], (size_t)(e->nmemo - i) * sizeof(*e->memo));
	e->nmemo++;
	memset(&e->memo[i], 0, sizeof(e->memo[i]));
	e->memo[i].id = id;
	e->memo[i].learn_t = e->learn_floor_t;
	e->memo[i].parsed = 0;
	return &e->memo[i];
}

void hs_jmemo_hints(hs_engine_t *e, const hs_sjob_t *sj, hs_hints_t *out)
{
	uint64_t h = env_hash(sj->env, sj->nenv);
	hs_jmemo_t *m = entry(e, sj->id);
	if (!m) {
		hs_hints_parse(out, sj->env, sj->nenv); /* out of memory: no memo */
		return;
	}
	m->seen = e->rounds + 1;
	if (!m->parsed || m->env_hash != h || m->nenv != sj->nenv) {
		hs_hints_parse(&m->hints, sj->env, sj->nenv);
		m->env_hash = h;
		m->nenv = sj->nenv;
		m->parsed = 1;
		m->table_sf = 0; /* the table row follows the model */
	}
	*out = m->hints;
}

int hs_jmemo_table(hs_engine_t *e, uint32_t id, const char *model, int sf, int *jt)
{
	int i = find(e, id);
	hs_jmemo_t *m = i >= 0 ? &e->memo[i] : NULL;
	if (m && m->table_sf == sf && sf > 0) {
		*jt = m->table_jt;
		return m->table_ti;
	}
	int ti = hs_tables_find(&e->tables, model, sf, jt);
	if (m) {
		m->table_sf = sf;
		m->table_ti = ti;
		m->table_jt = *jt;
	}
	return ti;
}

hs_jmemo_t *hs_jmemo_get(hs_engine_t *e, uint32_t id)
{
	int i = find(e, id);
	return i >= 0 ? &e->memo[i] : NULL;
}

void hs_jmemo_prune(hs_engine_t *e, long round)
{
	int w = 0;
	for (int i = 0; i < e->nmemo; i++)
		if (e->memo[i].seen >= round - 1) {
			if (w != i) /* entries are large: no copy onto itself */
				e->memo[w] = e->memo[i];
			w++;
		}
	e->nmemo = w;
}

void hs_jmemo_tables_changed(hs_engine_t *e)
{
	for (int i = 0; i < e->nmemo; i++)
		e->memo[i].table_sf = 0;
}

void hs_jmemo_free(hs_engine_t *e)
{
	free(e->memo);
	e->memo = NULL;
	e->nmemo = e->cap_memo = 0;
}
