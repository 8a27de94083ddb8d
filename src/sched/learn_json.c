/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn_json.c — the learned table saved, loaded and exported in Gavel's
 * throughput-table format (learn.h). Loading treats the file as
 * untrusted: every value is checked, the table is rebuilt through the
 * same observe path's bounds, and nothing changes on an error. */
#include "sched/learn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT "hetsched-learned"
#define VERSION 1

json_object *hs_learn_save(const hs_learn_t *l)
{
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "format", json_object_new_string(FORMAT));
	json_object_object_add(o, "version", json_object_new_int(VERSION));
	json_object *types = json_object_new_array();
	for (int t = 0; t < l->ntypes; t++)
		json_object_array_add(types, json_object_new_string(l->types[t]));
	json_object_object_add(o, "types", types);
	json_object *kinds = json_object_new_array();
	for (int i = 0; i < l->n; i++) {
		const hs_learn_entry_t *e = &l->e[i];
		json_object *k = json_object_new_object(), *cells = json_object_new_object();
		json_object_object_add(k, "kind", json_object_new_string(e->kind));
		json_object_object_add(k, "sf", json_object_new_int(e->sf));
		json_object_object_add(k, "seen", json_object_new_int64(e->seen));
		for (int t = 0; t < l->ntypes; t++) {
			const hs_learn_cell_t *c = &e->cell[t];
			if (!c->n)
				continue;
			json_object *v = json_object_new_array();
			json_object_array_add(v, json_object_new_double(c->rate));
			json_object_array_add(v, json_object_new_int64(c->n));
			json_object_array_add(v, json_object_new_int64(c->outliers));
			json_object_array_add(v, json_object_new_int64(c->last));
			json_object_object_add(cells, l->types[t], v);
		}
		json_object_object_add(k, "cells", cells);
		json_object_array_add(kinds, k);
	}
	json_object_object_add(o, "kinds", kinds);
	return o;
}

static int num(json_object *a, size_t i, double lo, double hi, double *out)
{
	json_object *v = json_object_array_get_idx(a, i);
	if (!v || (!json_object_is_type(v, json_type_double) &&
		   !json_object_is_type(v, json_type_int)))
		return -1;
	double d = json_object_get_double(v);
	if (!isfinite(d) || d < lo || d > hi)
		return -1;
	*out = d;
	return 0;
}

/* One saved cell [rate, n, outliers, last] into c. */
static int load_cell(json_object *v, hs_learn_cell_t *c)
{
	double rate, n, out, last;
	if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 4 ||
	    num(v, 0, 1e-6, 1e12, &rate) < 0 || num(v, 1, 1, 4e9, &n) < 0 ||
	    num(v, 2, 0, 4e9, &out) < 0 || num(v, 3, 0, 1e12, &last) < 0 || rate >= 1e12)
		return -1;
	c->rate = rate;
	c->n = (uint32_t)n;
	c->outliers = (uint32_t)out;
	c->streak = 0;
	c->last = (int64_t)last;
	return 0;
}

/* Saved entry k into l (types already loaded). */
static int load_entry(hs_learn_t *l, json_object *k, int i, hs_err_t *err)
{
	json_object *kind, *sf, *seen, *cells;
	if (!json_object_is_type(k, json_type_object) ||
	    !json_object_object_get_ex(k, "kind", &kind) ||
	    !json_object_is_type(kind, json_type_string) ||
	    !json_object_object_get_ex(k, "sf", &sf) || !json_object_is_type(sf, json_type_int) ||
	    !json_object_object_get_ex(k, "seen", &seen) ||
	    !json_object_is_type(seen, json_type_int) ||
	    !json_object_object_get_ex(k, "cells", &cells) ||
	    !json_object_is_type(cells, json_type_object))
		return hs_err_set(err, "kinds[%d]: expected kind, sf, seen and cells", i);
	const char *ks = json_object_get_string(kind);
	int64_t s = json_object_get_int64(sf);
	if (!*ks || strlen(ks) >= HS_LEARN_KIND_MAX || !strchr(ks, '/') || s < 1 || s > 65536)
		return hs_err_set(err, "kinds[%d]: bad kind or sf", i);
	if (i > 0 && strcmp(l->e[i - 1].kind, ks) > 0)
		return hs_err_set(err, "kinds[%d]: not sorted", i);
	if (i > 0 && !strcmp(l->e[i - 1].kind, ks) && l->e[i - 1].sf >= s)
		return hs_err_set(err, "kinds[%d]: not sorted", i);
	hs_learn_entry_t *e = &l->e[i];
	memset(e, 0, sizeof(*e));
	snprintf(e->kind, sizeof(e->kind), "%s", ks);
	e->sf = (int)s;
	e->seen = json_object_get_int64(seen);
	json_object_object_foreach(cells, tn, v) {
		int t = -1;
		for (int x = 0; x < l->ntypes && t < 0; x++)
			if (!strcmp(l->types[x], tn))
				t = x;
		if (t < 0 || load_cell(v, &e->cell[t]) < 0)
			return hs_err_set(err, "kinds[%d]: bad cell '%.40s'", i, tn);
	}
	return 0;
}

static int load_types(hs_learn_t *l, json_object *types, hs_err_t *err)
{
	size_t nt = json_object_array_length(types);
	if (nt > HS_LEARN_TYPES)
		return hs_err_set(err, "more than %d types", HS_LEARN_TYPES);
	for (size_t t = 0; t < nt; t++) {
		json_object *v = json_object_array_get_idx(types, t);
		const char *s = json_object_is_type(v, json_type_string)
				? json_object_get_string(v) : NULL;
		if (!s || !*s || strlen(s) > 64)
			return hs_err_set(err, "types[%zu]: expected a type name", t);
		for (int x = 0; x < l->ntypes; x++)
			if (!strcmp(l->types[x], s))
				return hs_err_set(err, "types[%zu]: '%s' twice", t, s);
		if (!(l->types[l->ntypes] = strdup(s)))
			return hs_err_set(err, "out of memory");
		l->ntypes++;
	}
	return 0;
}

/* Keeps the max_kinds most recently seen entries (a file written with a
 * larger bound), in their sorted order. */
static void trim(hs_learn_t *l)
{
	while (l->n > l->max_kinds) {
		int victim = 0;
		for (int i = 1; i < l->n; i++)
			if (l->e[i].seen < l->e[victim].seen)
				victim = i;
		memmove(&l->e[victim], &l->e[victim + 1],
			(size_t)(l->n - victim - 1) * sizeof(*l->e));
		l->n--;
	}
}

int hs_learn_load(hs_learn_t *l, json_object *o, hs_err_t *err)
{
	json_object *fmt, *ver, *types, *kinds;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "format", &fmt) ||
	    strcmp(json_object_get_string(fmt) ?: "", FORMAT) ||
	    !json_object_object_get_ex(o, "version", &ver) || json_object_get_int(ver) != VERSION)
		return hs_err_set(err, "not a learned table of version %d", VERSION);
	if (!json_object_object_get_ex(o, "types", &types) ||
	    !json_object_is_type(types, json_type_array) ||
	    !json_object_object_get_ex(o, "kinds", &kinds) ||
	    !json_object_is_type(kinds, json_type_array))
		return hs_err_set(err, "expected types and kinds arrays");
	size_t nk = json_object_array_length(kinds);
	if (nk > 1000000)
		return hs_err_set(err, "too many kinds (%zu)", nk);
	hs_learn_t nl;
	hs_learn_init(&nl, l->max_kinds);
	/* the counters of this engine's life go on */
	nl.matrix_only = l->matrix_only;
	nl.refused = l->refused;
	nl.outliers = l->outliers;
	memcpy(nl.err_n, l->err_n, sizeof(nl.err_n));
	memcpy(nl.err_sum, l->err_sum, sizeof(nl.err_sum));
	if (load_types(&nl, types, err) < 0)
		goto fail;
	if (nk && !(nl.e = calloc(nk, sizeof(*nl.e)))) {
		hs_err_set(err, "out of memory");
		goto fail;
	}
	nl.cap = (int)nk;
	for (size_t i = 0; i < nk; i++) {
		if (load_entry(&nl, json_object_array_get_idx(kinds, i), (int)i, err) < 0)
			goto fail;
		nl.n = (int)i + 1;
	}
	trim(&nl);
	nl.gen = l->gen + 1;
	hs_learn_free(l);
	*l = nl;
	return 0;
fail:
	hs_learn_free(&nl);
	return -1;
}

json_object *hs_learn_export(const hs_learn_t *l, unsigned min_n)
{
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	for (int t = 0; t < l->ntypes; t++) {
		json_object *per = json_object_new_object();
		for (int i = 0; i < l->n; i++) {
			const hs_learn_cell_t *c = &l->e[i].cell[t];
			if (!c->n || c->n < min_n)
				continue;
			char key[HS_LEARN_KIND_MAX + 32];
			snprintf(key, sizeof(key), "('%s', %d)", l->e[i].kind, l->e[i].sf);
			json_object *row = json_object_new_object();
			json_object_object_add(row, "null", json_object_new_double(c->rate));
			json_object_object_add(per, key, row);
		}
		json_object_object_add(o, l->types[t], per);
	}
	return o;
}
