/* SPDX-License-Identifier: GPL-2.0-or-later */
/* problem_json.c — read and write policy problems and allocations as JSON
 * with json-c (format in problem_json.h and hetsched-solve(1)). The reader
 * checks every key and value and names the offending one in its message;
 * name lookups go through json-c objects used as hash maps, so large
 * inputs stay linear. */
#include "core/problem_json.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAME 1024          /* longest type / job type / entity / id name */
#define MAX_JOBS 10000000
#define MAX_PAIR_ENTRIES 100000000L /* job types^2 x accelerator types */

/* ---- small typed getters ---------------------------------------------------- */

static int is_number(json_object *o)
{
	return o && (json_object_is_type(o, json_type_double) || json_object_is_type(o, json_type_int));
}

/* A finite number. */
static int get_num(json_object *o, double *v)
{
	if (!is_number(o))
		return -1;
	double d = json_object_get_double(o);
	if (!isfinite(d))
		return -1;
	*v = d;
	return 0;
}

/* An integral number in [lo, hi] (1.0 is accepted as 1). */
static int get_int(json_object *o, long lo, long hi, long *v)
{
	if (!o)
		return -1;
	if (json_object_is_type(o, json_type_int)) {
		errno = 0;
		int64_t i = json_object_get_int64(o);
		if (errno || i < lo || i > hi)
			return -1;
		*v = (long)i;
		return 0;
	}
	double d;
	if (get_num(o, &d) < 0 || d != floor(d) || d < (double)lo || d > (double)hi)
		return -1;
	*v = (long)d;
	return 0;
}

static const char *get_name(json_object *o)
{
	if (!o || !json_object_is_type(o, json_type_string))
		return NULL;
	const char *s = json_object_get_string(o);
	size_t n = strlen(s);
	if (n == 0 || n > MAX_NAME || n != (size_t)json_object_get_string_len(o))
		return NULL; /* empty, huge, or with an embedded NUL */
	return s;
}

/* Every key of obj must be one of allowed (NULL-terminated). */
static int check_keys(json_object *obj, const char *const *allowed, const char *what, hs_err_t *err)
{
	json_object_object_foreach(obj, key, val) {
		(void)val;
		int ok = 0;
		for (int i = 0; allowed[i] && !ok; i++)
			ok = !strcmp(key, allowed[i]);
		if (!ok)
			return hs_err_set(err, "%s: unknown key '%.64s'", what, key);
	}
	return 0;
}

/* A name -> index map as a json-c object (a hash table). */
static int map_add(json_object *map, const char *name, int idx, const char *what, hs_err_t *err)
{
	if (json_object_object_get_ex(map, name, NULL))
		return hs_err_set(err, "%s '%.64s' appears twice", what, name);
	json_object *v = json_object_new_int(idx);
	if (!v || json_object_object_add(map, name, v) < 0) {
		json_object_put(v);
		return hs_err_set(err, "out of memory");
	}
	return 0;
}

static int map_get(json_object *map, const char *name)
{
	json_object *v;
	if (!map || !json_object_object_get_ex(map, name, &v))
		return -1;
	return json_object_get_int(v);
}

/* ---- sections ----------------------------------------------------------------- */

static int parse_cluster(hs_problem_t *p, json_object *o, json_object *typemap, hs_err_t *err)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return hs_err_set(err, "\"cluster\" must be an object {\"<type>\": <count>, ...}");
	int n = json_object_object_length(o);
	if (n == 0)
		return hs_err_set(err, "\"cluster\" has no accelerator types");
	if (hs_cluster_init(&p->cluster, n, err) < 0)
		return -1;
	int j = 0;
	json_object_object_foreach(o, key, val) {
		long cnt;
		if (!*key || strlen(key) > MAX_NAME)
			return hs_err_set(err, "cluster: accelerator type names must be 1..%d characters", MAX_NAME);
		if (get_int(val, 0, INT_MAX, &cnt) < 0)
			return hs_err_set(err, "cluster: count of '%.64s' must be an integer >= 0", key);
		p->cluster.names[j] = strdup(key);
		if (!p->cluster.names[j])
			return hs_err_set(err, "out of memory");
		p->cluster.count[j] = (int)cnt;
		if (map_add(typemap, key, j, "accelerator type", err) < 0)
			return -1;
		j++;
	}
	return 0;
}

static int parse_prices(hs_problem_t *p, json_object *o, json_object *typemap, hs_err_t *err)
{
	if (!json_object_is_type(o, json_type_object))
		return hs_err_set(err, "\"prices\" must be an object {\"<type>\": <price per hour>}");
	json_object_object_foreach(o, key, val) {
		int j = map_get(typemap, key);
		double v;
		if (j < 0)
			return hs_err_set(err, "prices: '%.64s' is not an accelerator type of the cluster", key);
		if (get_num(val, &v) < 0 || v < 0.0)
			return hs_err_set(err, "prices: price of '%.64s' must be a number >= 0", key);
		p->cluster.price[j] = v;
	}
	return 0;
}

/* A {"<type>": <steps/s>} object into row[ntypes]. */
static int parse_type_row(const hs_problem_t *p, json_object *o, json_object *typemap, double *row,
			  const char *what, hs_err_t *err)
{
	if (!json_object_is_type(o, json_type_object))
		return hs_err_set(err, "%s must be an object {\"<type>\": <steps per second>}", what);
	json_object_object_foreach(o, key, val) {
		int j = map_get(typemap, key);
		double v;
		if (j < 0)
			return hs_err_set(err, "%s: '%.64s' is not an accelerator type of the cluster", what, key);
		if (get_num(val, &v) < 0 || v < 0.0)
			return hs_err_set(err, "%s: throughput on '%.64s' must be a number >= 0", what, key);
		row[j] = v;
	}
	(void)p;
	return 0;
}

static int parse_job_types(hs_problem_t *p, json_object *o, json_object *typemap,
			   json_object *jtmap, hs_err_t *err)
{
	static const char *const keys[] = { "scale_factor", "pairs", NULL };
	if (!json_object_is_type(o, json_type_object))
		return hs_err_set(err, "\"job_types\" must be an object {\"<name>\": {...}}");
	const long n = json_object_object_length(o), J = p->cluster.ntypes;
	if (n * n * J > MAX_PAIR_ENTRIES)
		return hs_err_set(err, "job_types: too many job types (%ld)", n);
	hs_jobtypes_t *jt = &p->jobtypes;
	jt->names = calloc((size_t)n + 1, sizeof(*jt->names));
	jt->scale_factor = calloc((size_t)n + 1, sizeof(*jt->scale_factor));
	jt->pair_thr = calloc((size_t)(n * n * J) + 1, sizeof(*jt->pair_thr));
	if (!jt->names || !jt->scale_factor || !jt->pair_thr)
		return hs_err_set(err, "out of memory");
	int a = 0;
	json_object_object_foreach(o, key, val) {
		char what[96];
		snprintf(what, sizeof(what), "job type '%.64s'", key);
		if (strlen(key) == 0 || strlen(key) > MAX_NAME)
			return hs_err_set(err, "job_types: names must be 1..%d characters", MAX_NAME);
		if (!json_object_is_type(val, json_type_object))
			return hs_err_set(err, "%s must be an object", what);
		if (check_keys(val, keys, what, err) < 0)
			return -1;
		json_object *sf;
		long v = 1;
		if (json_object_object_get_ex(val, "scale_factor", &sf) && get_int(sf, 1, 1 << 20, &v) < 0)
			return hs_err_set(err, "%s: scale_factor must be an integer >= 1", what);
		jt->names[a] = strdup(key);
		if (!jt->names[a])
			return hs_err_set(err, "out of memory");
		jt->scale_factor[a] = (int)v;
		jt->n = a + 1; /* so hs_problem_free frees what exists */
		if (map_add(jtmap, key, a, "job type", err) < 0)
			return -1;
		a++;
	}
	/* second pass: pair throughputs, now that every name is known */
	a = 0;
	json_object_object_foreach(o, key2, val2) {
		json_object *pairs;
		if (json_object_object_get_ex(val2, "pairs", &pairs)) {
			if (!json_object_is_type(pairs, json_type_object))
				return hs_err_set(err, "job type '%.64s': pairs must be an object", key2);
			json_object_object_foreach(pairs, other, row) {
				char what[160];
				snprintf(what, sizeof(what), "job type '%.64s' paired with '%.64s'", key2, other);
				int b = map_get(jtmap, other);
				if (b < 0)
					return hs_err_set(err, "%s: no such job type", what);
				double *r = &jt->pair_thr[((size_t)a * n + b) * J];
				if (parse_type_row(p, row, typemap, r, what, err) < 0)
					return -1;
				if (jt->scale_factor[a] != jt->scale_factor[b])
					for (int j = 0; j < J; j++)
						if (r[j] > 0.0)
							return hs_err_set(err, "%s: only job types with equal "
									  "scale factors can share", what);
			}
		}
		a++;
	}
	return 0;
}

static int parse_entities(hs_problem_t *p, json_object *o, json_object *entmap, hs_err_t *err)
{
	static const char *const keys[] = { "weight", "mode", "parent", NULL };
	if (!json_object_is_type(o, json_type_object))
		return hs_err_set(err, "\"entities\" must be an object {\"<name>\": {...}}");
	int n = json_object_object_length(o);
	hs_entities_t *e = &p->entities;
	e->names = calloc((size_t)n + 1, sizeof(*e->names));
	e->weight = calloc((size_t)n + 1, sizeof(*e->weight));
	e->mode = calloc((size_t)n + 1, sizeof(*e->mode));
	e->parent = malloc(((size_t)n + 1) * sizeof(*e->parent));
	if (!e->names || !e->weight || !e->mode || !e->parent)
		return hs_err_set(err, "out of memory");
	int i = 0;
	json_object_object_foreach(o, key, val) {
		char what[96];
		snprintf(what, sizeof(what), "entity '%.64s'", key);
		if (strlen(key) == 0 || strlen(key) > MAX_NAME)
			return hs_err_set(err, "entities: names must be 1..%d characters", MAX_NAME);
		if (!json_object_is_type(val, json_type_object))
			return hs_err_set(err, "%s must be an object", what);
		if (check_keys(val, keys, what, err) < 0)
			return -1;
		e->names[i] = strdup(key);
		if (!e->names[i])
			return hs_err_set(err, "out of memory");
		e->n = i + 1;
		e->weight[i] = 1.0;
		e->mode[i] = HS_ENTITY_FAIRNESS;
		e->parent[i] = -1;
		json_object *f;
		if (json_object_object_get_ex(val, "weight", &f) &&
		    (get_num(f, &e->weight[i]) < 0 || e->weight[i] <= 0.0))
			return hs_err_set(err, "%s: weight must be a number > 0", what);
		if (json_object_object_get_ex(val, "mode", &f)) {
			const char *m = get_name(f);
			if (m && !strcmp(m, "fairness"))
				e->mode[i] = HS_ENTITY_FAIRNESS;
			else if (m && !strcmp(m, "fifo"))
				e->mode[i] = HS_ENTITY_FIFO;
			else
				return hs_err_set(err, "%s: mode must be \"fairness\" or \"fifo\"", what);
		}
		if (map_add(entmap, key, i, "entity", err) < 0)
			return -1;
		i++;
	}
	/* second pass: parents, now that every name is known (a child may
	 * come before its parent); cycles are hs_problem_validate's */
	i = 0;
	json_object_object_foreach(o, key2, val2) {
		json_object *f;
		if (json_object_object_get_ex(val2, "parent", &f)) {
			const char *name = get_name(f);
			e->parent[i] = name ? map_get(entmap, name) : -1;
			if (e->parent[i] < 0)
				return hs_err_set(err, "entity '%.64s': parent must name a declared entity",
						  key2);
			if (e->parent[i] == i)
				return hs_err_set(err, "entity '%.64s' is its own parent", key2);
		}
		i++;
	}
	return 0;
}

/* Fills job m's throughputs from the Gavel table (its job type's row). */
static int thr_from_table(hs_problem_t *p, int m, const hs_thrtable_t *t, const char *what,
			  hs_err_t *err)
{
	hs_job_t *jb = &p->jobs[m];
	int a = jb->job_type;
	if (!t || a < 0 || a >= t->njobtypes)
		return hs_err_set(err, "%s has no \"throughput\" (and no job type from a "
				  "throughput table to take it from)", what);
	for (int j = 0; j < p->cluster.ntypes; j++)
		jb->thr[j] = hs_thrtable_alone(t, a, p->cluster.names[j], 1);
	return 0;
}

static int parse_job(hs_problem_t *p, int m, json_object *o, json_object *typemap,
		     json_object *jtmap, json_object *entmap, const hs_thrtable_t *table,
		     int types_from_table, hs_err_t *err)
{
	static const char *const keys[] = { "id", "scale_factor", "weight", "remaining_steps",
					    "age_s", "slo_s", "job_type", "entity", "throughput", NULL };
	hs_job_t *jb = &p->jobs[m];
	char what[96];
	snprintf(what, sizeof(what), "jobs[%d]", m);
	if (!json_object_is_type(o, json_type_object))
		return hs_err_set(err, "%s must be an object", what);
	json_object *f;
	/* the id first, so later messages can name the job */
	if (!json_object_object_get_ex(o, "id", &f))
		return hs_err_set(err, "%s has no \"id\"", what);
	if (json_object_is_type(f, json_type_int)) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%lld", (long long)json_object_get_int64(f));
		jb->id = strdup(buf);
	} else {
		const char *id = get_name(f);
		if (!id)
			return hs_err_set(err, "%s: id must be a non-empty string (or an integer)", what);
		jb->id = strdup(id);
	}
	if (!jb->id)
		return hs_err_set(err, "out of memory");
	snprintf(what, sizeof(what), "job '%.64s'", jb->id);
	if (check_keys(o, keys, what, err) < 0)
		return -1;
	long v;
	if (json_object_object_get_ex(o, "scale_factor", &f)) {
		if (get_int(f, 1, 1 << 20, &v) < 0)
			return hs_err_set(err, "%s: scale_factor must be an integer >= 1", what);
		jb->scale_factor = (int)v;
	}
	if (json_object_object_get_ex(o, "weight", &f) && (get_num(f, &jb->weight) < 0 || jb->weight <= 0.0))
		return hs_err_set(err, "%s: weight must be a number > 0", what);
	if (!json_object_object_get_ex(o, "remaining_steps", &f))
		return hs_err_set(err, "%s has no \"remaining_steps\"", what);
	if (get_num(f, &jb->remaining_steps) < 0 || jb->remaining_steps <= 0.0)
		return hs_err_set(err, "%s: remaining_steps must be a number > 0", what);
	if (json_object_object_get_ex(o, "age_s", &f) && (get_num(f, &jb->age_s) < 0 || jb->age_s < 0.0))
		return hs_err_set(err, "%s: age_s must be a number >= 0", what);
	if (json_object_object_get_ex(o, "slo_s", &f) && (get_num(f, &jb->slo_s) < 0 || jb->slo_s <= 0.0))
		return hs_err_set(err, "%s: slo_s (deadline in seconds from now) must be a number > 0", what);
	if (json_object_object_get_ex(o, "job_type", &f)) {
		const char *name = get_name(f);
		jb->job_type = name ? map_get(jtmap, name) : -1;
		if (jb->job_type < 0)
			return hs_err_set(err, "%s: job_type must name a declared job type%s", what,
					  types_from_table ? " (a key of the throughput table)" : "");
		if (p->jobtypes.scale_factor[jb->job_type] != jb->scale_factor)
			return hs_err_set(err, "%s: its scale_factor %d differs from job type '%.64s' (%d)",
					  what, jb->scale_factor, name, p->jobtypes.scale_factor[jb->job_type]);
	}
	if (json_object_object_get_ex(o, "entity", &f)) {
		const char *name = get_name(f);
		jb->entity = name ? map_get(entmap, name) : -1;
		if (jb->entity < 0)
			return hs_err_set(err, "%s: entity must name a declared entity", what);
	}
	if (json_object_object_get_ex(o, "throughput", &f)) {
		char w2[128];
		snprintf(w2, sizeof(w2), "%s: throughput", what);
		return parse_type_row(p, f, typemap, jb->thr, w2, err);
	}
	return thr_from_table(p, m, types_from_table ? table : NULL, what, err);
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int check_unique_ids(const hs_problem_t *p, hs_err_t *err)
{
	const char **ids = malloc(((size_t)p->njobs + 1) * sizeof(*ids));
	if (!ids)
		return hs_err_set(err, "out of memory");
	for (int m = 0; m < p->njobs; m++)
		ids[m] = p->jobs[m].id;
	qsort(ids, (size_t)p->njobs, sizeof(*ids), cmp_id);
	for (int i = 1; i < p->njobs; i++)
		if (!strcmp(ids[i], ids[i - 1])) {
			hs_err_set(err, "job id '%.64s' appears twice", ids[i]);
			free(ids);
			return -1;
		}
	free(ids);
	return 0;
}

static int parse_root(hs_problem_t *p, json_object *root, const hs_thrtable_t *table,
		      json_object *typemap, json_object *jtmap, json_object *entmap, hs_err_t *err)
{
	static const char *const keys[] = { "cluster", "prices", "reference_type", "job_types",
					    "entities", "jobs", NULL };
	if (!json_object_is_type(root, json_type_object))
		return hs_err_set(err, "the problem must be a JSON object with \"cluster\" and \"jobs\"");
	if (check_keys(root, keys, "problem", err) < 0)
		return -1;
	json_object *f;
	if (!json_object_object_get_ex(root, "cluster", &f))
		return hs_err_set(err, "the problem has no \"cluster\"");
	if (parse_cluster(p, f, typemap, err) < 0)
		return -1;
	if (json_object_object_get_ex(root, "prices", &f) && parse_prices(p, f, typemap, err) < 0)
		return -1;
	if (json_object_object_get_ex(root, "reference_type", &f)) {
		const char *name = get_name(f);
		p->reference_type = name ? map_get(typemap, name) : -1;
		if (p->reference_type < 0)
			return hs_err_set(err, "reference_type must name an accelerator type of the cluster");
	}
	int types_from_table = 0;
	if (json_object_object_get_ex(root, "job_types", &f)) {
		if (parse_job_types(p, f, typemap, jtmap, err) < 0)
			return -1;
	} else if (table) {
		if (hs_thrtable_to_jobtypes(table, &p->cluster, &p->jobtypes, err) < 0)
			return -1;
		for (int a = 0; a < p->jobtypes.n; a++)
			if (map_add(jtmap, p->jobtypes.names[a], a, "job type", err) < 0)
				return -1;
		types_from_table = 1;
	}
	if (json_object_object_get_ex(root, "entities", &f) && parse_entities(p, f, entmap, err) < 0)
		return -1;
	if (!json_object_object_get_ex(root, "jobs", &f) || !json_object_is_type(f, json_type_array))
		return hs_err_set(err, "the problem needs a \"jobs\" array");
	size_t n = json_object_array_length(f);
	if (n > MAX_JOBS)
		return hs_err_set(err, "too many jobs (%zu, at most %d)", n, MAX_JOBS);
	if (hs_problem_alloc_jobs(p, (int)n, err) < 0)
		return -1;
	for (size_t m = 0; m < n; m++)
		if (parse_job(p, (int)m, json_object_array_get_idx(f, m), typemap, jtmap, entmap,
			      table, types_from_table, err) < 0)
			return -1;
	if (check_unique_ids(p, err) < 0)
		return -1;
	return hs_problem_validate(p, err);
}

int hs_problem_parse_json(hs_problem_t *p, const char *text, size_t len,
			  const hs_thrtable_t *table, hs_err_t *err)
{
	memset(p, 0, sizeof(*p));
	p->reference_type = -1;
	if (!text)
		return hs_err_set(err, "no problem text");
	if (len > (size_t)HS_PROBLEM_JSON_MAX_BYTES)
		return hs_err_set(err, "problem too large (%zu bytes, at most %ld)", len,
				  (long)HS_PROBLEM_JSON_MAX_BYTES);
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return hs_err_set(err, "out of memory");
	json_object *root = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!root || jerr != json_tokener_success) {
		json_object_put(root);
		if (jerr == json_tokener_continue)
			return hs_err_set(err, "malformed JSON: the input ends too early");
		return hs_err_set(err, "malformed JSON near byte %zu: %s", end,
				  json_tokener_error_desc(jerr));
	}
	for (size_t i = end; i < len; i++)
		if (!strchr(" \t\r\n", text[i])) {
			json_object_put(root);
			return hs_err_set(err, "malformed JSON: trailing data at byte %zu", i);
		}
	json_object *typemap = json_object_new_object();
	json_object *jtmap = json_object_new_object();
	json_object *entmap = json_object_new_object();
	int rc;
	if (!typemap || !jtmap || !entmap)
		rc = hs_err_set(err, "out of memory");
	else
		rc = parse_root(p, root, table, typemap, jtmap, entmap, err);
	json_object_put(typemap);
	json_object_put(jtmap);
	json_object_put(entmap);
	json_object_put(root);
	return rc;
}

int hs_problem_load_json(hs_problem_t *p, const char *path, const hs_thrtable_t *table,
			 hs_err_t *err)
{
	memset(p, 0, sizeof(*p));
	p->reference_type = -1;
	int is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f)
		return hs_err_set(err, "cannot open %s: %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int rc = 0;
	while (buf) {
		if (len == cap) {
			if (cap >= (size_t)HS_PROBLEM_JSON_MAX_BYTES) {
				rc = hs_err_set(err, "%s: larger than %ld bytes", path,
						(long)HS_PROBLEM_JSON_MAX_BYTES);
				break;
			}
			char *nb = realloc(buf, 2 * cap);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f))
				rc = hs_err_set(err, "cannot read %s: %s", path, strerror(errno));
			break;
		}
	}
	if (!buf)
		rc = hs_err_set(err, "out of memory reading %s", path);
	if (!is_stdin)
		fclose(f);
	if (rc == 0) {
		rc = hs_problem_parse_json(p, buf, len, table, err);
		if (rc < 0) {
			char msg[HS_ERRLEN];
			snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
			hs_err_set(err, "%s: %s", path, msg);
		}
	}
	free(buf);
	return rc;
}

/* ---- writers ------------------------------------------------------------------ */

/* A double with a chosen precision (json-c's default prints 17 digits). */
static json_object *num(double v, int digits)
{
	char buf[64];
	if (!isfinite(v))
		v = 0.0;
	snprintf(buf, sizeof(buf), "%.*g", digits, v);
	return json_object_new_double_s(v, buf);
}

/* json_object_object_add that reports allocation failure via *ok. */
static void put(json_object *o, const char *key, json_object *v, int *ok)
{
	if (!v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		*ok = 0;
	}
}

static void push(json_object *arr, json_object *v, int *ok)
{
	if (!v || json_object_array_add(arr, v) < 0) {
		json_object_put(v);
		*ok = 0;
	}
}

static char *finish(json_object *root, int ok, int pretty, hs_err_t *err)
{
	char *s = NULL;
	if (ok) {
		int flags = (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
				    : JSON_C_TO_STRING_PLAIN) | JSON_C_TO_STRING_NOSLASHESCAPE;
		const char *t = json_object_to_json_string_ext(root, flags);
		s = t ? strdup(t) : NULL;
	}
	json_object_put(root);
	if (!s)
		hs_err_set(err, "out of memory");
	return s;
}

static json_object *type_row(const hs_cluster_t *c, const double *row, int digits, int skip_zero, int *ok)
{
	json_object *o = json_object_new_object();
	if (!o) {
		*ok = 0;
		return NULL;
	}
	for (int j = 0; j < c->ntypes; j++)
		if (!skip_zero || row[j] != 0.0)
			put(o, c->names[j], num(row[j], digits), ok);
	return o;
}

char *hs_problem_to_json(const hs_problem_t *p, hs_err_t *err)
{
	const hs_cluster_t *c = &p->cluster;
	const int J = c->ntypes, A = p->jobtypes.n;
	int ok = 1;
	json_object *root = json_object_new_object();
	if (!root) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	json_object *cl = json_object_new_object(), *pr = json_object_new_object();
	int any_price = 0;
	put(root, "cluster", cl, &ok);
	for (int j = 0; j < J && cl; j++) {
		put(cl, c->names[j], json_object_new_int(c->count[j]), &ok);
		any_price |= c->price[j] > 0.0;
	}
	if (any_price) {
		put(root, "prices", pr, &ok);
		for (int j = 0; j < J && pr; j++)
			put(pr, c->names[j], num(c->price[j], 17), &ok);
	} else {
		json_object_put(pr);
	}
	if (p->reference_type >= 0 && p->reference_type < J)
		put(root, "reference_type", json_object_new_string(c->names[p->reference_type]), &ok);
	if (A > 0) {
		json_object *jts = json_object_new_object();
		put(root, "job_types", jts, &ok);
		for (int a = 0; a < A && jts; a++) {
			json_object *t = json_object_new_object(), *pairs = json_object_new_object();
			put(jts, p->jobtypes.names[a], t, &ok);
			if (!t) {
				json_object_put(pairs);
				break;
			}
			put(t, "scale_factor", json_object_new_int(p->jobtypes.scale_factor[a]), &ok);
			put(t, "pairs", pairs, &ok);
			for (int b = 0; b < A && pairs; b++) {
				const double *row = &p->jobtypes.pair_thr[((size_t)a * A + b) * J];
				int any = 0;
				for (int j = 0; j < J; j++)
					any |= row[j] > 0.0;
				if (any)
					put(pairs, p->jobtypes.names[b], type_row(c, row, 17, 1, &ok), &ok);
			}
		}
	}
	if (p->entities.n > 0) {
		json_object *es = json_object_new_object();
		put(root, "entities", es, &ok);
		for (int e = 0; e < p->entities.n && es; e++) {
			json_object *eo = json_object_new_object();
			put(es, p->entities.names[e], eo, &ok);
			if (!eo)
				break;
			put(eo, "weight", num(p->entities.weight[e], 17), &ok);
			put(eo, "mode", json_object_new_string(p->entities.mode[e] == HS_ENTITY_FIFO
								 ? "fifo" : "fairness"), &ok);
			int par = p->entities.parent ? p->entities.parent[e] : -1;
			if (par >= 0 && par < p->entities.n)
				put(eo, "parent", json_object_new_string(p->entities.names[par]), &ok);
		}
	}
	json_object *jobs = json_object_new_array_ext(p->njobs);
	put(root, "jobs", jobs, &ok);
	for (int m = 0; m < p->njobs && jobs && ok; m++) {
		const hs_job_t *jb = &p->jobs[m];
		json_object *o = json_object_new_object();
		push(jobs, o, &ok);
		if (!o)
			break;
		put(o, "id", json_object_new_string(jb->id ? jb->id : ""), &ok);
		put(o, "scale_factor", json_object_new_int(jb->scale_factor), &ok);
		put(o, "weight", num(jb->weight, 17), &ok);
		put(o, "remaining_steps", num(jb->remaining_steps, 17), &ok);
		put(o, "age_s", num(jb->age_s, 17), &ok);
		if (jb->slo_s > 0.0)
			put(o, "slo_s", num(jb->slo_s, 17), &ok);
		if (jb->job_type >= 0 && jb->job_type < A)
			put(o, "job_type", json_object_new_string(p->jobtypes.names[jb->job_type]), &ok);
		if (jb->entity >= 0 && jb->entity < p->entities.n)
			put(o, "entity", json_object_new_string(p->entities.names[jb->entity]), &ok);
		put(o, "throughput", type_row(c, jb->thr, 17, 0, &ok), &ok);
	}
	return finish(root, ok, 1, err);
}

char *hs_alloc_to_json(const hs_alloc_t *a, const hs_problem_t *p, const char *policy,
		       double solve_ms, int pretty, hs_err_t *err)
{
	const hs_cluster_t *c = &p->cluster;
	const int J = c->ntypes;
	int ok = 1;
	json_object *root = json_object_new_object();
	if (!root) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	put(root, "policy", json_object_new_string(policy ? policy : ""), &ok);
	put(root, "objective", num(a->objective, 12), &ok);
	json_object *al = json_object_new_object();
	put(root, "allocation", al, &ok);
	for (int m = 0; m < a->njobs && al && ok; m++)
		put(al, p->jobs[m].id, type_row(c, &a->x[(size_t)m * J], 12, 0, &ok), &ok);
	json_object *pairs = json_object_new_array_ext(a->npairs);
	put(root, "pairs", pairs, &ok);
	for (int i = 0; i < a->npairs && pairs && ok; i++) {
		json_object *po = json_object_new_object(), *ids = json_object_new_array_ext(2);
		push(pairs, po, &ok);
		if (!po) {
			json_object_put(ids);
			break;
		}
		put(po, "jobs", ids, &ok);
		if (ids) {
			push(ids, json_object_new_string(p->jobs[a->pairs[i].m].id), &ok);
			push(ids, json_object_new_string(p->jobs[a->pairs[i].k].id), &ok);
		}
		put(po, "allocation", type_row(c, a->pairs[i].x, 12, 0, &ok), &ok);
	}
	json_object *thr = json_object_new_object();
	put(root, "effective_throughput", thr, &ok);
	for (int m = 0; m < a->njobs && thr && ok; m++)
		put(thr, p->jobs[m].id, num(hs_alloc_effective_thr(a, p, m), 12), &ok);
	put(root, "solve_ms", num(solve_ms, 6), &ok);
	return finish(root, ok, pretty, err);
}
