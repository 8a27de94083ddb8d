/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thrtable.c — load Gavel-format throughput tables with json-c (see
 * thrtable.h for the format). Two passes: collect GPU types and job types,
 * then fill the dense arrays. */
#include "core/thrtable.h"

#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNCONS_SUFFIX "_unconsolidated"
#define MAX_TABLE_BYTES (64L << 20) /* tables are ~100 KB; refuse absurd files */

/* Formats the table key of a job type, "('<model>', <sf>)", into buf. */
static int thrtable_key(const char *model, int sf, char *buf, size_t len)
{
	int n = snprintf(buf, len, "('%s', %d)", model, sf);
	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

/* Splits "('<model>', <sf>)" into a freshly allocated model and sf. The
 * model itself may contain parentheses and commas, so split at the last
 * "', ". */
static int parse_key(const char *key, char **model, int *sf)
{
	size_t len = strlen(key);
	if (len < 7 || strncmp(key, "('", 2) != 0 || key[len - 1] != ')')
		return -1;
	const char *sep = NULL;
	for (const char *s = key + 2; (s = strstr(s, "', ")); s++)
		sep = s;
	if (!sep)
		return -1;
	char *end;
	long v = strtol(sep + 3, &end, 10);
	if (end != key + len - 1 || v < 1 || v > 1 << 20)
		return -1;
	*model = strndup(key + 2, (size_t)(sep - key - 2));
	if (!*model)
		return -1;
	*sf = (int)v;
	return 0;
}

static int get_number(json_object *o, double *out)
{
	if (!o || !(json_object_is_type(o, json_type_double) || json_object_is_type(o, json_type_int)))
		return -1;
	double v = json_object_get_double(o);
	if (!isfinite(v) || v < 0.0)
		return -1;
	*out = v;
	return 0;
}

/* Base GPU type name of a table type ("v100_unconsolidated" -> "v100"). */
static size_t base_len(const char *type, int *uncons)
{
	size_t len = strlen(type), sl = strlen(UNCONS_SUFFIX);
	*uncons = len > sl && strcmp(type + len - sl, UNCONS_SUFFIX) == 0;
	return *uncons ? len - sl : len;
}

int hs_thrtable_type_index(const hs_thrtable_t *t, const char *type)
{
	for (int j = 0; j < t->ntypes; j++)
		if (strcmp(t->types[j], type) == 0)
			return j;
	return -1;
}

/* The index key of (model, sf) in buf; 0, or -1 when it does not fit. */
static int index_key(const char *model, int sf, char *buf, size_t len)
{
	/* by hand, not snprintf: every job's lookup in every round of the
	 * engine comes here (the plugin's and the simulator's) */
	char digits[16];
	size_t nd = 0, ml = strlen(model);
	unsigned v = sf < 0 ? 0u - (unsigned)sf : (unsigned)sf;
	do {
		digits[nd++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && nd < sizeof(digits));
	size_t need = (sf < 0) + nd + 1 + ml + 1;
	if (need > len)
		return -1;
	size_t p = 0;
	if (sf < 0)
		buf[p++] = '-';
	while (nd)
		buf[p++] = digits[--nd];
	buf[p++] = '\x1f';
	memcpy(buf + p, model, ml + 1);
	return 0;
}

static void index_free_entry(struct lh_entry *e)
{
	free(lh_entry_k(e));
}

/* Adds job type a to the index (a table without one scans). */
static int index_add(hs_thrtable_t *t, int a)
{
	char key[1024];
	if (!t->index && !(t->index = lh_kchar_table_new(256, index_free_entry)))
		return -1;
	if (index_key(t->models[a], t->sf[a], key, sizeof(key)) < 0)
		return 0; /* a very long name: found by the scan below */
	char *k = strdup(key);
	if (!k || lh_table_insert(t->index, k, (void *)(intptr_t)(a + 1)) != 0) {
		free(k);
		return -1;
	}
	return 0;
}

int hs_thrtable_find(const hs_thrtable_t *t, const char *model, int sf)
{
	char key[1024];
	void *v = NULL;
	if (t->index && index_key(model, sf, key, sizeof(key)) == 0)
		return lh_table_lookup_ex(t->index, key, &v) ? (int)(intptr_t)v - 1 : -1;
	for (int a = 0; a < t->njobtypes; a++)
		if (t->sf[a] == sf && strcmp(t->models[a], model) == 0)
			return a;
	return -1;
}

static int find_key(const hs_thrtable_t *t, const char *key)
{
	char *model;
	int sf;
	if (parse_key(key, &model, &sf) < 0)
		return -1;
	int a = hs_thrtable_find(t, model, sf);
	free(model);
	return a;
}

/* Pass 1: GPU types and job types. */
static int collect_names(hs_thrtable_t *t, json_object *root, hs_err_t *err)
{
	int ntop = json_object_object_length(root);
	t->types = calloc((size_t)ntop + 1, sizeof(char *));
	if (!t->types)
		return hs_err_set(err, "out of memory");
	int capjt = 0;
	json_object_object_foreach(root, type, per_type) {
		if (!json_object_is_type(per_type, json_type_object))
			return hs_err_set(err, "throughput table: '%s' is not an object", type);
		int uncons;
		size_t bl = base_len(type, &uncons);
		if (bl == 0)
			return hs_err_set(err, "throughput table: empty GPU type name");
		if (!uncons && hs_thrtable_type_index(t, type) < 0) {
			if (!(t->types[t->ntypes] = strdup(type)))
				return hs_err_set(err, "out of memory");
			t->ntypes++;
		}
		json_object_object_foreach(per_type, key, entry) {
			(void)entry;
			char *model;
			int sf;
			if (parse_key(key, &model, &sf) < 0)
				return hs_err_set(err, "throughput table: bad job key '%.80s' under '%s' "
						  "(expected \"('<model>', <scale factor>)\")", key, type);
			if (hs_thrtable_find(t, model, sf) >= 0) {
				free(model);
				continue;
			}
			if (t->njobtypes == capjt) {
				capjt = capjt ? 2 * capjt : 64;
				char **nm = realloc(t->models, (size_t)capjt * sizeof(*nm));
				int *ns = nm ? realloc(t->sf, (size_t)capjt * sizeof(*ns)) : NULL;
				if (nm)
					t->models = nm;
				if (ns)
					t->sf = ns;
				if (!nm || !ns) {
					free(model);
					return hs_err_set(err, "out of memory");
				}
			}
			t->models[t->njobtypes] = model;
			t->sf[t->njobtypes] = sf;
			if (index_add(t, t->njobtypes++) < 0)
				return hs_err_set(err, "out of memory");
		}
	}
	/* Unconsolidated-only types still need a base type. */
	json_object_object_foreach(root, type2, unused) {
		(void)unused;
		int uncons;
		size_t bl = base_len(type2, &uncons);
		if (!uncons)
			continue;
		char *base = strndup(type2, bl);
		if (!base)
			return hs_err_set(err, "out of memory");
		if (hs_thrtable_type_index(t, base) < 0)
			t->types[t->ntypes++] = base;
		else
			free(base);
	}
	if (t->ntypes == 0 || t->njobtypes == 0)
		return hs_err_set(err, "throughput table has no GPU types or no jobs");
	return 0;
}

/* Pass 2a: which job types have pair entries (both sides are job types
 * of the table); numbers them in t->paired. Values are checked later. */
static int mark_paired(hs_thrtable_t *t, json_object *root, hs_err_t *err)
{
	t->paired = malloc(((size_t)t->njobtypes + 1) * sizeof(*t->paired));
	if (!t->paired)
		return hs_err_set(err, "out of memory");
	for (int a = 0; a < t->njobtypes; a++)
		t->paired[a] = -1;
	json_object_object_foreach(root, type, per_type) {
		int uncons;
		base_len(type, &uncons);
		if (uncons)
			continue; /* pair rows are kept for consolidated types only */
		json_object_object_foreach(per_type, key, entry) {
			if (!json_object_is_type(entry, json_type_object))
				continue; /* reported by fill_values */
			int a = find_key(t, key);
			json_object_object_foreach(entry, other, val) {
				(void)val;
				int b = strcmp(other, "null") ? find_key(t, other) : -1;
				if (a < 0 || b < 0)
					continue;
				if (t->paired[a] < 0)
					t->paired[a] = t->npaired++;
				if (t->paired[b] < 0)
					t->paired[b] = t->npaired++;
			}
		}
	}
	return 0;
}

/* Pass 2b: values. */
static int fill_values(hs_thrtable_t *t, json_object *root, hs_err_t *err)
{
	const size_t J = (size_t)t->ntypes, A = (size_t)t->njobtypes, P = (size_t)t->npaired;
	t->alone = calloc(A * J + 1, sizeof(double));
	t->alone_uncons = calloc(A * J + 1, sizeof(double));
	t->pair = calloc(P * P * J + 1, sizeof(double));
	if (!t->alone || !t->alone_uncons || !t->pair)
		return hs_err_set(err, "out of memory");
	json_object_object_foreach(root, type, per_type) {
		int uncons;
		size_t bl = base_len(type, &uncons);
		char base[256];
		if (bl >= sizeof(base))
			return hs_err_set(err, "throughput table: GPU type name too long");
		memcpy(base, type, bl);
		base[bl] = '\0';
		const size_t j = (size_t)hs_thrtable_type_index(t, base);
		json_object_object_foreach(per_type, key, entry) {
			const size_t a = (size_t)find_key(t, key);
			if (!json_object_is_type(entry, json_type_object))
				return hs_err_set(err, "throughput table: %s/%.80s is not an object", type, key);
			json_object_object_foreach(entry, other, val) {
				if (strcmp(other, "null") == 0) {
					double v;
					if (get_number(val, &v) < 0)
						return hs_err_set(err, "throughput table: %s/%.80s: "
								  "\"null\" must be a number >= 0", type, key);
					(uncons ? t->alone_uncons : t->alone)[a * J + j] = v;
					continue;
				}
				int b = find_key(t, other);
				if (b < 0) {
					/* a partner that is never a job of its own: skip it,
					 * it can never be scheduled anyway */
					continue;
				}
				double v;
				if (!json_object_is_type(val, json_type_array) ||
				    json_object_array_length(val) != 2 ||
				    get_number(json_object_array_get_idx(val, 0), &v) < 0)
					return hs_err_set(err, "throughput table: %s/%.80s/%.80s must be "
							  "[this, other] with numbers >= 0", type, key, other);
				if (!uncons)
					t->pair[((size_t)t->paired[a] * P + (size_t)t->paired[b]) * J + j] = v;
			}
		}
	}
	return 0;
}

int hs_thrtable_parse(hs_thrtable_t *t, const char *json_text, hs_err_t *err)
{
	memset(t, 0, sizeof(*t));
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return hs_err_set(err, "out of memory");
	json_object *root = json_tokener_parse_ex(tok, json_text, (int)strlen(json_text));
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (!root || jerr != json_tokener_success) {
		json_object_put(root);
		return hs_err_set(err, "throughput table is not valid JSON: %s",
				  json_tokener_error_desc(jerr));
	}
	int rc = -1;
	if (!json_object_is_type(root, json_type_object))
		hs_err_set(err, "throughput table must be a JSON object keyed by GPU type");
	else if (collect_names(t, root, err) == 0 && mark_paired(t, root, err) == 0 &&
		 fill_values(t, root, err) == 0)
		rc = 0;
	json_object_put(root);
	if (rc < 0)
		hs_thrtable_free(t);
	return rc;
}

int hs_thrtable_load(hs_thrtable_t *t, const char *path, hs_err_t *err)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f)
		return hs_err_set(err, "cannot open throughput table %s: %m", path);
	char *buf = NULL;
	long size = -1;
	if (fseek(f, 0, SEEK_END) == 0)
		size = ftell(f);
	if (size < 0 || size > MAX_TABLE_BYTES || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return hs_err_set(err, "throughput table %s: unreadable or larger than %ld bytes",
				  path, MAX_TABLE_BYTES);
	}
	buf = malloc((size_t)size + 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		fclose(f);
		return hs_err_set(err, "cannot read throughput table %s", path);
	}
	fclose(f);
	buf[size] = '\0';
	if (strlen(buf) != (size_t)size) {
		free(buf);
		return hs_err_set(err, "throughput table %s contains a NUL byte", path);
	}
	int rc = hs_thrtable_parse(t, buf, err);
	free(buf);
	if (rc < 0) {
		char msg[HS_ERRLEN];
		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		hs_err_set(err, "%s: %s", path, msg);
	}
	return rc;
}

static void *dup_mem(const void *src, size_t n)
{
	void *d = malloc(n ? n : 1);
	if (d && n)
		memcpy(d, src, n);
	return d;
}

int hs_thrtable_copy(hs_thrtable_t *dst, const hs_thrtable_t *src, hs_err_t *err)
{
	memset(dst, 0, sizeof(*dst));
	const size_t T = (size_t)src->ntypes, A = (size_t)src->njobtypes, P = (size_t)src->npaired;
	dst->types = calloc(T + 1, sizeof(char *));
	dst->models = calloc(A + 1, sizeof(char *));
	dst->sf = dup_mem(src->sf, A * sizeof(int));
	dst->alone = dup_mem(src->alone, A * T * sizeof(double));
	dst->alone_uncons = dup_mem(src->alone_uncons, A * T * sizeof(double));
	dst->paired = dup_mem(src->paired, A * sizeof(int));
	dst->pair = dup_mem(src->pair, P * P * T * sizeof(double));
	dst->npaired = src->npaired;
	if (!dst->types || !dst->models || !dst->sf || !dst->alone || !dst->alone_uncons ||
	    !dst->paired || !dst->pair)
		goto oom;
	for (size_t j = 0; j < T; j++) {
		if (!(dst->types[j] = strdup(src->types[j])))
			goto oom;
		dst->ntypes = (int)j + 1;
	}
	for (size_t a = 0; a < A; a++) {
		if (!(dst->models[a] = strdup(src->models[a])))
			goto oom;
		dst->njobtypes = (int)a + 1;
		if (index_add(dst, (int)a) < 0)
			goto oom;
	}
	return 0;
oom:
	hs_thrtable_free(dst);
	return hs_err_set(err, "out of memory copying a throughput table");
}

void hs_thrtable_free(hs_thrtable_t *t)
{
	if (!t)
		return;
	if (t->types)
		for (int j = 0; j < t->ntypes; j++)
			free(t->types[j]);
	if (t->models)
		for (int a = 0; a < t->njobtypes; a++)
			free(t->models[a]);
	free(t->types);
	free(t->models);
	free(t->sf);
	free(t->alone);
	free(t->alone_uncons);
	free(t->paired);
	free(t->pair);
	if (t->index)
		lh_table_free(t->index);
	memset(t, 0, sizeof(*t));
}

double hs_thrtable_alone(const hs_thrtable_t *t, int jt, const char *type, int consolidated)
{
	return hs_thrtable_alone_at(t, jt, hs_thrtable_type_index(t, type), consolidated);
}

double hs_thrtable_alone_at(const hs_thrtable_t *t, int jt, int j, int consolidated)
{
	if (j < 0 || j >= t->ntypes || jt < 0 || jt >= t->njobtypes)
		return 0.0;
	size_t i = (size_t)jt * t->ntypes + j;
	if (!consolidated && t->alone_uncons[i] > 0.0)
		return t->alone_uncons[i];
	return t->alone[i];
}

double hs_thrtable_pair(const hs_thrtable_t *t, int a, int b, const char *type)
{
	int j = hs_thrtable_type_index(t, type);
	if (j < 0 || a < 0 || b < 0 || a >= t->njobtypes || b >= t->njobtypes)
		return 0.0;
	return hs_thrtable_pair_at(t, a, b, j);
}

double hs_thrtable_pair_at(const hs_thrtable_t *t, int a, int b, int j)
{
	int pa = t->paired[a], pb = t->paired[b];
	if (pa < 0 || pb < 0)
		return 0.0;
	return t->pair[((size_t)pa * t->npaired + pb) * t->ntypes + j];
}

/* out = the m table job types types[] (distinct), with their pair rows
 * mapped onto the cluster's GPU types (missing types get 0). */
static int build_jobtypes(const hs_thrtable_t *t, const hs_cluster_t *c, const int *types,
			  size_t m, hs_jobtypes_t *out, hs_err_t *err)
{
	const size_t J = (size_t)c->ntypes;
	memset(out, 0, sizeof(*out));
	out->names = calloc(m + 1, sizeof(char *));
	out->scale_factor = calloc(m + 1, sizeof(int));
	out->pair_thr = calloc(m * m * J + 1, sizeof(double));
	if (!out->names || !out->scale_factor || !out->pair_thr)
		goto oom;
	out->n = (int)m;
	for (size_t a = 0; a < m; a++) {
		char key[512];
		if (thrtable_key(t->models[types[a]], t->sf[types[a]], key, sizeof(key)) < 0 ||
		    !(out->names[a] = strdup(key)))
			goto oom;
		out->scale_factor[a] = t->sf[types[a]];
	}
	for (size_t j = 0; j < J; j++) {
		int tj = hs_thrtable_type_index(t, c->names[j]);
		if (tj < 0)
			continue;
		for (size_t a = 0; a < m; a++)
			for (size_t b = 0; b < m; b++)
				out->pair_thr[(a * m + b) * J + j] =
					hs_thrtable_pair_at(t, types[a], types[b], tj);
	}
	return 0;
oom:
	if (out->names)
		for (size_t a = 0; a < m; a++)
			free(out->names[a]);
	free(out->names);
	free(out->scale_factor);
	free(out->pair_thr);
	memset(out, 0, sizeof(*out));
	return hs_err_set(err, "out of memory");
}

int hs_thrtable_to_jobtypes(const hs_thrtable_t *t, const hs_cluster_t *c,
			    hs_jobtypes_t *out, hs_err_t *err)
{
	const size_t A = (size_t)t->njobtypes;
	int *all = malloc((A + 1) * sizeof(*all));
	if (!all) {
		memset(out, 0, sizeof(*out));
		return hs_err_set(err, "out of memory");
	}
	for (size_t a = 0; a < A; a++)
		all[a] = (int)a;
	int rc = build_jobtypes(t, c, all, A, out, err);
	free(all);
	return rc;
}

int hs_thrtable_jobtypes_of(const hs_thrtable_t *t, const hs_cluster_t *c, const int *jt, int n,
			    hs_jobtypes_t *out, int *idx, hs_err_t *err)
{
	/* slot[paired index] = index in out + 1, 0 = not taken yet */
	int *slot = calloc((size_t)t->npaired + 1, sizeof(*slot));
	int *types = malloc(((size_t)n + 1) * sizeof(*types));
	int m = 0;
	if (!slot || !types) {
		free(slot);
		free(types);
		memset(out, 0, sizeof(*out));
		return hs_err_set(err, "out of memory");
	}
	for (int k = 0; k < n; k++) {
		int p = jt[k] >= 0 && jt[k] < t->njobtypes ? t->paired[jt[k]] : -1;
		if (p >= 0 && !slot[p]) {
			types[m] = jt[k];
			slot[p] = ++m;
		}
		idx[k] = p >= 0 ? slot[p] - 1 : -1;
	}
	int rc = build_jobtypes(t, c, types, (size_t)m, out, err);
	free(slot);
	free(types);
	return rc;
}
