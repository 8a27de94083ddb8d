/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mech_state.c — saves the round mechanism's state to a json-c object and
 * restores it, validating every field (the Slurm plugin keeps it in
 * StateSaveLocation; a damaged file must be rejected with a message, never
 * crash slurmctld or silently reset fairness).
 *
 * Format (version 1):
 *  {"format": "hetsched-mechanism", "version": 1,
 *   "round": N, "clock_s": s, "last_reset_s": s, "have_alloc": bool,
 *   "departed": N, "rng": [u16, u16, u16],
 *   "types": [{"name": "v100", "count_at_reset": 36 or -1}, ...],
 *   "jobs": [{"id": "42", "ever_ran": bool, "in_alloc": bool,
 *             "run_since_s": s (optional: when its current run began),
 *             "placement": null | {"type": "v100", "gpus": [["node1", 0], ...],
 *                                  "partner": null | "43"}}, ...],
 *   "entries": [{"jobs": ["42"] or ["42", "43"], "x": [per type],
 *                "received_s": [per type], "deficit_s": [per type]}, ...],
 *   "stats": {"rounds": N, ...}}
 * Per-type arrays follow the order of "types".
 */
#include "core/json_lazy.h"
#include "core/mechanism_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HS_MECH_FORMAT "hetsched-mechanism"
#define HS_MECH_VERSION 1
/* Counters in a state file stay far from overflow however long they keep
 * counting (2^52 rounds of 1 s is 142 million years). */
#define HS_STATE_MAX_COUNT (1L << 52)

/* ---- Save ------------------------------------------------------------------ */

static int add(json_object *o, const char *k, json_object *v)
{
	if (!v)
		return -1;
	if (json_object_object_add(o, k, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int push(json_object *a, json_object *v)
{
	if (!v)
		return -1;
	if (json_object_array_add(a, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static json_object *doubles(const double *v, int n)
{
	json_object *a = json_object_new_array_ext(n);
	if (!a)
		return NULL;
	for (int i = 0; i < n; i++)
		if (push(a, json_object_new_double(v[i])) < 0) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

static json_object *save_job(const hs_mech_t *m, const hs_mjob_t *j)
{
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	int rc = add(o, "id", json_object_new_string(j->id)) |
		 add(o, "ever_ran", json_object_new_boolean(j->ever_ran)) |
		 add(o, "in_alloc", json_object_new_boolean(j->in_alloc));
	if (j->run_since >= 0.0)
		rc |= add(o, "run_since_s", json_object_new_double(j->run_since));
	if (j->nplace > 0 && j->ptype >= 0) {
		json_object *pl = json_object_new_object(), *g = json_object_new_array();
		rc |= !pl || !g;
		if (pl && g) {
			for (int i = 0; i < j->nplace; i++) {
				json_object *ref = json_object_new_array();
				rc |= !ref || push(ref, json_object_new_string(j->pserver[i])) ||
				      push(ref, json_object_new_int(j->pgpu[i])) || push(g, ref);
			}
			rc |= add(pl, "type", json_object_new_string(m->tnames[j->ptype])) |
			      add(pl, "gpus", g);
			g = NULL;
			if (j->partner)
				rc |= add(pl, "partner", json_object_new_string(j->partner));
			else
				rc |= json_object_object_add(pl, "partner", NULL) != 0;
			rc |= add(o, "placement", pl);
			pl = NULL;
		}
		json_object_put(pl);
		json_object_put(g);
	} else {
		rc |= json_object_object_add(o, "placement", NULL) != 0;
	}
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *job_elem(const void *ctx, int i)
{
	const hs_mech_t *m = ctx;
	return save_job(m, m->jobs[i]);
}

static json_object *entry_elem(const void *ctx, int i)
{
	const hs_mech_t *m = ctx;
	const hs_mentry_t *e = m->ents[i];
	json_object *eo = json_object_new_object(), *ids = json_object_new_array();
	if (!eo || !ids) {
		json_object_put(eo);
		json_object_put(ids);
		return NULL;
	}
	/* eo owns ids once added; || stops at the first failure */
	int rc = add(eo, "jobs", ids) || push(ids, json_object_new_string(e->a)) ||
		 (e->b && push(ids, json_object_new_string(e->b))) ||
		 add(eo, "x", doubles(e->x, m->ntypes)) ||
		 add(eo, "received_s", doubles(e->recv, m->ntypes)) ||
		 add(eo, "deficit_s", doubles(e->def, m->ntypes));
	if (rc) {
		json_object_put(eo);
		return NULL;
	}
	return eo;
}

/* An array of n elements elem(m, i): built now, or lazily (json_lazy.h). */
static json_object *elems(const hs_mech_t *m, int n, hs_json_elem_fn elem, int lazy)
{
	if (lazy)
		return hs_json_lazy_array(n, elem, (void *)m, NULL); /* ctx is read only */
	json_object *a = json_object_new_array();
	for (int i = 0; a && i < n; i++)
		if (push(a, elem(m, i))) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

static json_object *mech_save(const hs_mech_t *m, int lazy, hs_err_t *err)
{
	json_object *o = json_object_new_object();
	json_object *types = json_object_new_array();
	json_object *jobs = elems(m, m->njobs, job_elem, lazy);
	json_object *ents = elems(m, m->nents, entry_elem, lazy), *st = json_object_new_object();
	json_object *rng = json_object_new_array();
	int rc = !o || !types || !jobs || !ents || !st || !rng;
	if (rc)
		goto fail;
	for (int k = 0; k < 3; k++)
		rc |= push(rng, json_object_new_int(m->rng.x[k]));
	for (int j = 0; j < m->ntypes; j++) {
		json_object *t = json_object_new_object();
		rc |= !t || add(t, "name", json_object_new_string(m->tnames[j])) ||
		      add(t, "count_at_reset", json_object_new_int(m->tcount[j])) || push(types, t);
	}
	const hs_mech_stats_t *s = &m->st;
	rc |= add(st, "rounds", json_object_new_int64(s->rounds)) ||
	      add(st, "resets", json_object_new_int64(s->resets)) ||
	      add(st, "starts", json_object_new_int64(s->starts)) ||
	      add(st, "resumes", json_object_new_int64(s->resumes)) ||
	      add(st, "keeps", json_object_new_int64(s->keeps)) ||
	      add(st, "migrations", json_object_new_int64(s->migrations)) ||
	      add(st, "preemptions", json_object_new_int64(s->preemptions)) ||
	      add(st, "lease_opportunities", json_object_new_int64(s->lease_opportunities)) ||
	      add(st, "cost_s", json_object_new_double(s->cost_s));
	rc |= add(o, "format", json_object_new_string(HS_MECH_FORMAT)) ||
	      add(o, "version", json_object_new_int(HS_MECH_VERSION)) ||
	      add(o, "round", json_object_new_int64(m->round)) ||
	      add(o, "clock_s", json_object_new_double(m->clock)) ||
	      add(o, "last_reset_s", json_object_new_double(m->last_reset)) ||
	      add(o, "have_alloc", json_object_new_boolean(m->have_alloc)) ||
	      add(o, "departed", json_object_new_int64(m->departed)) ||
	      add(o, "rng", rng);
	rng = NULL;
	rc |= add(o, "types", types);
	types = NULL;
	rc |= add(o, "jobs", jobs);
	jobs = NULL;
	rc |= add(o, "entries", ents);
	ents = NULL;
	rc |= add(o, "stats", st);
	st = NULL;
	if (!rc)
		return o;
fail:
	json_object_put(o);
	json_object_put(types);
	json_object_put(jobs);
	json_object_put(ents);
	json_object_put(st);
	json_object_put(rng);
	hs_err_set(err, "out of memory while saving the mechanism state");
	return NULL;
}

json_object *hs_mech_save(const hs_mech_t *m, hs_err_t *err)
{
	return mech_save(m, 0, err);
}

json_object *hs_mech_save_lazy(const hs_mech_t *m, hs_err_t *err)
{
	return mech_save(m, 1, err);
}

/* ---- Restore ----------------------------------------------------------------- */

static json_object *member(json_object *o, const char *k, json_type t, int optional,
			   const char *where, hs_err_t *err)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, k, &v) || (v == NULL && !optional)) {
		if (!optional)
			hs_err_set(err, "mechanism state: %s has no '%s'", where, k);
		return NULL;
	}
	if (v == NULL)
		return NULL;
	/* integers are acceptable where numbers are expected */
	json_type vt = json_object_get_type(v);
	if (vt != t && !(t == json_type_double && vt == json_type_int)) {
		hs_err_set(err, "mechanism state: %s: '%s' has the wrong type", where, k);
		return NULL;
	}
	return v;
}

static int get_num(json_object *o, const char *k, double lo, double hi, double *out,
		   const char *where, hs_err_t *err)
{
	json_object *v = member(o, k, json_type_double, 0, where, err);
	if (!v)
		return -1;
	double d = json_object_get_double(v);
	if (!isfinite(d) || d < lo || d > hi)
		return hs_err_set(err, "mechanism state: %s: '%s' = %g is out of range", where, k, d);
	*out = d;
	return 0;
}

static int get_long(json_object *o, const char *k, long lo, long hi, long *out,
		    const char *where, hs_err_t *err)
{
	json_object *v = member(o, k, json_type_int, 0, where, err);
	if (!v)
		return -1;
	int64_t d = json_object_get_int64(v);
	if (d < lo || d > hi)
		return hs_err_set(err, "mechanism state: %s: '%s' is out of range", where, k);
	*out = (long)d;
	return 0;
}

static int get_bool(json_object *o, const char *k, int *out, const char *where, hs_err_t *err)
{
	json_object *v = member(o, k, json_type_boolean, 0, where, err);
	if (!v)
		return -1;
	*out = json_object_get_boolean(v) ? 1 : 0;
	return 0;
}

static int get_doubles(json_object *o, const char *k, int n, double lo, double *out,
		       const char *where, hs_err_t *err)
{
	json_object *a = member(o, k, json_type_array, 0, where, err);
	if (!a)
		return -1;
	if ((int)json_object_array_length(a) != n)
		return hs_err_set(err, "mechanism state: %s: '%s' must have %d values", where, k, n);
	for (int i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(a, (size_t)i);
		json_type t = json_object_get_type(v);
		if (t != json_type_double && t != json_type_int)
			return hs_err_set(err, "mechanism state: %s: '%s' holds a non-number", where, k);
		double d = json_object_get_double(v);
		if (!isfinite(d) || d < lo || (k[0] == 'x' && d > 1.0 + 1e-9))
			return hs_err_set(err, "mechanism state: %s: '%s' value %g is out of range",
					  where, k, d);
		out[i] = d;
	}
	return 0;
}

static int restore_job(hs_mech_t *m, json_object *jo, int idx, hs_err_t *err)
{
	char where[64];
	snprintf(where, sizeof(where), "job #%d", idx);
	if (!json_object_is_type(jo, json_type_object))
		return hs_err_set(err, "mechanism state: %s is not an object", where);
	json_object *id = member(jo, "id", json_type_string, 0, where, err);
	if (!id)
		return -1;
	const char *ids = json_object_get_string(id);
	if (!hs_mech_id_ok(ids))
		return hs_err_set(err, "mechanism state: %s has an invalid id", where);
	if (hs_mech_job_get(m, ids, 0, NULL))
		return hs_err_set(err, "mechanism state: job '%s' appears twice", ids);
	hs_mjob_t *j = hs_mech_job_get(m, ids, 1, err);
	if (!j)
		return -1;
	snprintf(where, sizeof(where), "job '%.40s'", ids);
	if (get_bool(jo, "ever_ran", &j->ever_ran, where, err) < 0 ||
	    get_bool(jo, "in_alloc", &j->in_alloc, where, err) < 0)
		return -1;
	/* Optional: state saved before leases has none (the job's run then
	 * counts from the first round after the restore). */
	if (json_object_object_get_ex(jo, "run_since_s", NULL) &&
	    get_num(jo, "run_since_s", 0.0, m->clock, &j->run_since, where, err) < 0)
		return -1;
	json_object *pl = NULL;
	if (!json_object_object_get_ex(jo, "placement", &pl))
		return hs_err_set(err, "mechanism state: %s has no 'placement'", where);
	if (!pl)
		return 0;
	if (!json_object_is_type(pl, json_type_object))
		return hs_err_set(err, "mechanism state: %s: placement is not an object", where);
	json_object *t = member(pl, "type", json_type_string, 0, where, err);
	json_object *g = t ? member(pl, "gpus", json_type_array, 0, where, err) : NULL;
	if (!g)
		return -1;
	int type = hs_mech_type_index(m, json_object_get_string(t), 0, NULL);
	if (type < 0)
		return hs_err_set(err, "mechanism state: %s: placement on unknown type", where);
	int n = (int)json_object_array_length(g);
	if (n < 1 || n > HS_MAX_GPUS_PER_SERVER * 64)
		return hs_err_set(err, "mechanism state: %s: placement has %d GPUs", where, n);
	const char **names = calloc((size_t)n, sizeof(*names));
	int *gpus = calloc((size_t)n, sizeof(*gpus));
	int rc = names && gpus ? 0 : hs_err_set(err, "out of memory");
	for (int i = 0; i < n && rc == 0; i++) {
		json_object *ref = json_object_array_get_idx(g, (size_t)i);
		json_object *s = NULL, *x = NULL;
		if (!json_object_is_type(ref, json_type_array) || json_object_array_length(ref) != 2 ||
		    !json_object_is_type(s = json_object_array_get_idx(ref, 0), json_type_string) ||
		    !json_object_is_type(x = json_object_array_get_idx(ref, 1), json_type_int) ||
		    !hs_mech_id_ok(json_object_get_string(s)) || json_object_get_int64(x) < 0 ||
		    json_object_get_int64(x) >= HS_MAX_GPUS_PER_SERVER) {
			rc = hs_err_set(err, "mechanism state: %s: GPU %d is not [\"node\", index]",
					where, i);
			break;
		}
		names[i] = json_object_get_string(s);
		gpus[i] = (int)json_object_get_int64(x);
	}
	const char *partner = NULL;
	json_object *po = NULL;
	if (rc == 0 && json_object_object_get_ex(pl, "partner", &po) && po) {
		if (!json_object_is_type(po, json_type_string) ||
		    !hs_mech_id_ok(json_object_get_string(po)) ||
		    !strcmp(json_object_get_string(po), ids))
			rc = hs_err_set(err, "mechanism state: %s: invalid partner", where);
		else
			partner = json_object_get_string(po);
	}
	if (rc == 0 && hs_mjob_set_place(j, type, n, names, gpus, partner) < 0)
		rc = hs_err_set(err, "out of memory");
	free(names);
	free(gpus);
	return rc;
}

static int restore_entry(hs_mech_t *m, json_object *eo, int idx, hs_err_t *err)
{
	char where[64];
	snprintf(where, sizeof(where), "entry #%d", idx);
	if (!json_object_is_type(eo, json_type_object))
		return hs_err_set(err, "mechanism state: %s is not an object", where);
	json_object *ids = member(eo, "jobs", json_type_array, 0, where, err);
	if (!ids)
		return -1;
	int n = (int)json_object_array_length(ids);
	if (n < 1 || n > 2)
		return hs_err_set(err, "mechanism state: %s must name one or two jobs", where);
	const char *id[2] = { NULL, NULL };
	for (int i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(ids, (size_t)i);
		if (!json_object_is_type(v, json_type_string) ||
		    !hs_mech_job_get(m, json_object_get_string(v), 0, NULL))
			return hs_err_set(err, "mechanism state: %s names an unknown job", where);
		id[i] = json_object_get_string(v);
	}
	if (n == 2 && !strcmp(id[0], id[1]))
		return hs_err_set(err, "mechanism state: %s pairs a job with itself", where);
	if (hs_mech_entry_get(m, id[0], id[1], 0, NULL))
		return hs_err_set(err, "mechanism state: %s appears twice", where);
	hs_mentry_t *e = hs_mech_entry_get(m, id[0], id[1], 1, err);
	if (!e)
		return -1;
	if (get_doubles(eo, "x", m->ntypes, 0.0, e->x, where, err) < 0 ||
	    get_doubles(eo, "received_s", m->ntypes, 0.0, e->recv, where, err) < 0 ||
	    get_doubles(eo, "deficit_s", m->ntypes, -INFINITY, e->def, where, err) < 0)
		return -1;
	return 0;
}

static int restore_stats(hs_mech_t *m, json_object *o, hs_err_t *err)
{
	json_object *st = member(o, "stats", json_type_object, 0, "the state", err);
	if (!st)
		return -1;
	const char *w = "stats";
	struct { const char *k; long *v; } f[] = {
		{ "rounds", &m->st.rounds }, { "resets", &m->st.resets },
		{ "starts", &m->st.starts }, { "resumes", &m->st.resumes },
		{ "keeps", &m->st.keeps }, { "migrations", &m->st.migrations },
		{ "preemptions", &m->st.preemptions },
		{ "lease_opportunities", &m->st.lease_opportunities },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (get_long(st, f[i].k, 0, HS_STATE_MAX_COUNT, f[i].v, w, err) < 0)
			return -1;
	return get_num(st, "cost_s", 0.0, INFINITY, &m->st.cost_s, w, err);
}

hs_mech_t *hs_mech_restore(json_object *o, const hs_mech_opts_t *opts, hs_err_t *err)
{
	if (!o || !json_object_is_type(o, json_type_object)) {
		hs_err_set(err, "mechanism state is not a JSON object");
		return NULL;
	}
	json_object *fmt = member(o, "format", json_type_string, 0, "the state", err);
	if (!fmt)
		return NULL;
	if (strcmp(json_object_get_string(fmt), HS_MECH_FORMAT) != 0) {
		hs_err_set(err, "mechanism state: format is '%.60s', not '%s'",
			   json_object_get_string(fmt), HS_MECH_FORMAT);
		return NULL;
	}
	long version;
	if (get_long(o, "version", 0, HS_STATE_MAX_COUNT, &version, "the state", err) < 0)
		return NULL;
	if (version != HS_MECH_VERSION) {
		hs_err_set(err, "mechanism state: version %ld is not supported (expected %d)",
			   version, HS_MECH_VERSION);
		return NULL;
	}
	hs_mech_t *m = hs_mech_alloc(opts, err);
	if (!m)
		return NULL;
	const char *w = "the state";
	long departed;
	if (get_long(o, "round", 0, HS_STATE_MAX_COUNT, &m->round, w, err) < 0 ||
	    get_num(o, "clock_s", 0.0, INFINITY, &m->clock, w, err) < 0 ||
	    get_num(o, "last_reset_s", 0.0, m->clock, &m->last_reset, w, err) < 0 ||
	    get_bool(o, "have_alloc", &m->have_alloc, w, err) < 0 ||
	    get_long(o, "departed", 0, HS_STATE_MAX_COUNT, &departed, w, err) < 0)
		goto fail;
	m->departed = departed;
	json_object *rng = member(o, "rng", json_type_array, 0, w, err);
	if (!rng)
		goto fail;
	if (json_object_array_length(rng) != 3) {
		hs_err_set(err, "mechanism state: 'rng' must hold 3 integers");
		goto fail;
	}
	for (int k = 0; k < 3; k++) {
		json_object *v = json_object_array_get_idx(rng, (size_t)k);
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
		    json_object_get_int64(v) > 0xffff) {
			hs_err_set(err, "mechanism state: 'rng' must hold 3 integers in [0, 65535]");
			goto fail;
		}
		m->rng.x[k] = (unsigned short)json_object_get_int64(v);
	}
	json_object *types = member(o, "types", json_type_array, 0, w, err);
	if (!types)
		goto fail;
	int nt = (int)json_object_array_length(types);
	if (nt > 4096) {
		hs_err_set(err, "mechanism state: too many types");
		goto fail;
	}
	for (int j = 0; j < nt; j++) {
		json_object *t = json_object_array_get_idx(types, (size_t)j);
		json_object *name = json_object_is_type(t, json_type_object)
				    ? member(t, "name", json_type_string, 0, "a type", err) : NULL;
		long cnt;
		if (!name || get_long(t, "count_at_reset", -1, __INT_MAX__, &cnt, "a type", err) < 0) {
			if (!name)
				hs_err_set(err, "mechanism state: type #%d has no name", j);
			goto fail;
		}
		const char *nm = json_object_get_string(name);
		if (!hs_mech_id_ok(nm) || hs_mech_type_index(m, nm, 0, NULL) >= 0) {
			hs_err_set(err, "mechanism state: type #%d has an invalid or repeated name", j);
			goto fail;
		}
		int idx = hs_mech_type_index(m, nm, 1, err);
		if (idx < 0)
			goto fail;
		m->tcount[idx] = (int)cnt;
	}
	json_object *jobs = member(o, "jobs", json_type_array, 0, w, err);
	if (!jobs)
		goto fail;
	for (size_t i = 0; i < json_object_array_length(jobs); i++)
		if (restore_job(m, json_object_array_get_idx(jobs, i), (int)i, err) < 0)
			goto fail;
	for (int i = 0; i < m->njobs; i++) {
		hs_mjob_t *j = m->jobs[i];
		if (j->partner && !hs_mech_job_get(m, j->partner, 0, NULL)) {
			hs_err_set(err, "mechanism state: job '%.40s' has an unknown partner", j->id);
			goto fail;
		}
	}
	json_object *ents = member(o, "entries", json_type_array, 0, w, err);
	if (!ents)
		goto fail;
	for (size_t i = 0; i < json_object_array_length(ents); i++)
		if (restore_entry(m, json_object_array_get_idx(ents, i), (int)i, err) < 0)
			goto fail;
	if (restore_stats(m, o, err) < 0)
		goto fail;
	return m;
fail:
	hs_mech_free(m);
	return NULL;
}
