/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_state.c — the round engine's state as JSON, for StateSaveLocation:
 *
 *   {"format": "hetsched-sched-state", "version": 1, "policy": "...",
 *    "last_round": <unix s>, "last_reset": <unix s>, "rounds": <n>,
 *    "types": ["k80", ...],
 *    "mech": <hs_mech_save()>,
 *    "jobs": [{"id": <job id>, "first_seen": <s>, "active_reset": <s>,
 *              "active_total": <s>, "suspended_by_us": <0|1>,
 *              "submit_time": <s>, "restart_cnt": <n> (both optional),
 *              "recv_reset": [<s per type>], "recv_total": [...],
 *              "x": [...], "thr": [...], "meas": [...], "src": <0..4>,
 *              "started_t": <s>, "started_rc": <n> (optional: hetsched's
 *              last start of the job, its incarnation),
 *              "requeue_inc": <n> (optional: restart_cnt + 1 of the
 *              incarnation admitted requeueable, hs_requeue_kept)}],
 *    "ops": [{"id": <job id>, "kind": "checkpoint"|"requeued"|"start",
 *             "t0": <s>, "deadline": <s>, "restart_cnt": <n>,
 *             "orig_begin": <s>, "begin_cleared": <0|1>,
 *             "type": "<gpu type>", "nodes": [["<node>", <gpus>], ...],
 *             "partner": <job id, optional: start packed with it>}],
 *    "totals": {"started": <n>, ...},
 *    "learned": <hs_learn_save()> (optional: the learned throughputs,
 *              sched/learn.h; a bad one is logged and dropped alone)}
 *
 * ("src" 3 and 4, learned and inferred, came with the learned table: an
 * older plugin rejects a state holding them.)
 * Restore validates every field before touching the engine: a garbage or
 * foreign file is rejected with a message naming the field (the plugin
 * then sets the file aside and starts fresh).
 */
#include "core/json_lazy.h"
#include "sched/engine_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT "hetsched-sched-state"
#define VERSION 1
#define MAX_JOBS_SAVED 1000000
#define MAX_NODES_PER_OP 4096

static json_object *darr(const double *v, int n)
{
	json_object *a = json_object_new_array();
	for (int i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_double(v[i]));
	return a;
}

/* jobs[i] of the saved state: engine accounting entry i. */
static json_object *job_elem(const void *ctx, int i)
{
	const hs_engine_t *e = ctx;
	const hs_jacct_t *a = &e->acct[i];
	json_object *j = json_object_new_object();
	if (!j)
		return NULL;
	json_object_object_add(j, "id", json_object_new_int64(a->id));
	json_object_object_add(j, "first_seen", json_object_new_int64(a->first_seen));
	json_object_object_add(j, "active_reset", json_object_new_double(a->active_reset_s));
	json_object_object_add(j, "active_total", json_object_new_double(a->active_total_s));
	json_object_object_add(j, "suspended_by_us", json_object_new_int(a->suspended_by_us));
	json_object_object_add(j, "submit_time", json_object_new_int64(a->submit_time));
	json_object_object_add(j, "restart_cnt", json_object_new_int64(a->restart_cnt));
	json_object_object_add(j, "recv_reset", darr(a->recv_reset, e->ntypes));
	json_object_object_add(j, "recv_total", darr(a->recv_total, e->ntypes));
	json_object_object_add(j, "x", darr(a->x, e->ntypes));
	json_object_object_add(j, "thr", darr(a->thr, e->ntypes));
	json_object_object_add(j, "meas", darr(a->meas, e->ntypes));
	json_object_object_add(j, "src", json_object_new_int(a->src));
	if (a->started_t) {
		json_object_object_add(j, "started_t", json_object_new_int64(a->started_t));
		json_object_object_add(j, "started_rc", json_object_new_int64(a->started_rc));
	}
	if (a->requeue_rc1)
		json_object_object_add(j, "requeue_inc", json_object_new_int64(a->requeue_rc1));
	return j;
}

static json_object *engine_save(const hs_engine_t *e, int lazy, hs_err_t *err)
{
	json_object *o = json_object_new_object();
	if (!o) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	json_object_object_add(o, "format", json_object_new_string(FORMAT));
	json_object_object_add(o, "version", json_object_new_int(VERSION));
	json_object_object_add(o, "policy", json_object_new_string(e->conf.policy));
	json_object_object_add(o, "last_round", json_object_new_int64(e->last_round_t));
	json_object_object_add(o, "last_reset", json_object_new_int64(e->last_reset_t));
	json_object_object_add(o, "rounds", json_object_new_int64(e->rounds));
	json_object *types = json_object_new_array();
	for (int t = 0; t < e->ntypes; t++)
		json_object_array_add(types, json_object_new_string(e->types[t]));
	json_object_object_add(o, "types", types);
	json_object *mech = lazy ? hs_mech_save_lazy(e->mech, err) : hs_mech_save(e->mech, err);
	if (!mech) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "mech", mech);

	json_object *jobs = NULL;
	if (lazy) {
		jobs = hs_json_lazy_array(e->nacct, job_elem, (void *)e, NULL); /* read only */
	} else {
		jobs = json_object_new_array();
		for (int i = 0; jobs && i < e->nacct; i++)
			json_object_array_add(jobs, job_elem(e, i));
	}
	json_object_object_add(o, "jobs", jobs);

	json_object *ops = json_object_new_array();
	for (int i = 0; i < e->nops; i++) {
		const hs_op_t *op = &e->ops[i];
		json_object *j = json_object_new_object();
		json_object_object_add(j, "id", json_object_new_int64(op->id));
		json_object_object_add(j, "kind", json_object_new_string(hs_op_kind_name(op->kind)));
		json_object_object_add(j, "t0", json_object_new_int64(op->t0));
		json_object_object_add(j, "deadline", json_object_new_int64(op->deadline));
		json_object_object_add(j, "restart_cnt", json_object_new_int64(op->restart_cnt));
		json_object_object_add(j, "orig_begin", json_object_new_int64(op->orig_begin));
		json_object_object_add(j, "begin_cleared", json_object_new_int(op->begin_cleared));
		if (op->type)
			json_object_object_add(j, "type", json_object_new_string(op->type));
		if (op->target.partner)
			json_object_object_add(j, "partner",
					       json_object_new_int64(op->target.partner));
		json_object *nodes = json_object_new_array();
		for (int k = 0; k < op->target.nnodes; k++) {
			json_object *pair = json_object_new_array();
			json_object_array_add(pair, json_object_new_string(op->target.nodes[k].name));
			json_object_array_add(pair, json_object_new_int(op->target.nodes[k].gpus));
			json_object_array_add(nodes, pair);
		}
		json_object_object_add(j, "nodes", nodes);
		json_object_array_add(ops, j);
	}
	json_object_object_add(o, "ops", ops);

	json_object *tot = json_object_new_object();
	json_object_object_add(tot, "started", json_object_new_int64(e->tot_started));
	json_object_object_add(tot, "preempted", json_object_new_int64(e->tot_preempted));
	json_object_object_add(tot, "migrated", json_object_new_int64(e->tot_migrated));
	json_object_object_add(tot, "suspended", json_object_new_int64(e->tot_suspended));
	json_object_object_add(tot, "resumed", json_object_new_int64(e->tot_resumed));
	json_object_object_add(tot, "requeued", json_object_new_int64(e->tot_requeued));
	json_object_object_add(tot, "checkpoints", json_object_new_int64(e->tot_checkpoints));
	json_object_object_add(tot, "checkpoints_acked", json_object_new_int64(e->tot_ckpt_acked));
	json_object_object_add(tot, "start_failed", json_object_new_int64(e->tot_start_failed));
	json_object_object_add(tot, "solve_failed", json_object_new_int64(e->tot_solve_failed));
	json_object_object_add(o, "totals", tot);
	/* the learned table (sched/learn.h), bounded by LearnMaxKinds; kept
	 * with Learning=no too, so that turning it off and on loses nothing */
	if (e->learn.n > 0)
		json_object_object_add(o, "learned", hs_learn_save(&e->learn));
	return o;
}

json_object *hs_engine_save(const hs_engine_t *e, hs_err_t *err)
{
	return engine_save(e, 0, err);
}

json_object *hs_engine_save_lazy(const hs_engine_t *e, hs_err_t *err)
{
	return engine_save(e, 1, err);
}

/* ---- restore ------------------------------------------------------------------ */

static int get(json_object *o, const char *key, json_type type, json_object **v, hs_err_t *err)
{
	if (!json_object_object_get_ex(o, key, v))
		return hs_err_set(err, "state: missing \"%s\"", key);
	if (!json_object_is_type(*v, type) &&
	    !(type == json_type_double && json_object_is_type(*v, json_type_int)))
		return hs_err_set(err, "state: \"%s\" has the wrong type", key);
	return 0;
}

static int get_i64(json_object *o, const char *key, int64_t lo, int64_t hi, int64_t *out,
		   hs_err_t *err)
{
	json_object *v;
	if (get(o, key, json_type_int, &v, err) < 0)
		return -1;
	int64_t x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return hs_err_set(err, "state: \"%s\" out of range", key);
	*out = x;
	return 0;
}

static int get_dbl(json_object *o, const char *key, double *out, hs_err_t *err)
{
	json_object *v;
	if (get(o, key, json_type_double, &v, err) < 0)
		return -1;
	double x = json_object_get_double(v);
	if (!isfinite(x) || x < 0 || x > 1e15)
		return hs_err_set(err, "state: \"%s\" out of range", key);
	*out = x;
	return 0;
}

static int get_darr(json_object *o, const char *key, int n, double *out, hs_err_t *err)
{
	json_object *v;
	if (get(o, key, json_type_array, &v, err) < 0)
		return -1;
	if ((int)json_object_array_length(v) != n)
		return hs_err_set(err, "state: \"%s\" has %d entries, expected %d", key,
				  (int)json_object_array_length(v), n);
	for (int i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(v, (size_t)i);
		if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int))
			return hs_err_set(err, "state: \"%s\" holds a non-number", key);
		out[i] = json_object_get_double(x);
		if (!isfinite(out[i]) || out[i] < 0 || out[i] > 1e15)
			return hs_err_set(err, "state: \"%s\" holds an invalid number", key);
	}
	return 0;
}

/* Everything restore builds before it swaps it into the engine. */
typedef struct restored {
	int ntypes;
	char *types[HS_MAX_TYPES];
	int nacct;
	int acct_len;              /* entries allocated (blocks freed) */
	int tcap;                  /* types of each entry's block */
	hs_jacct_t *acct;
	uint32_t *acct_id;         /* [acct_len] their ids */
	hs_engine_t ops_holder;    /* only nops/cap_ops/ops used */
	hs_mech_t *mech;
} restored_t;

static void restored_free(restored_t *r)
{
	for (int t = 0; t < r->ntypes; t++)
		free(r->types[t]);
	hs_acct_free_all(r->acct, r->acct_len);
	free(r->acct_id);
	hs_ops_free(&r->ops_holder);
	hs_mech_free(r->mech);
	memset(r, 0, sizeof(*r));
}

/* The restart target of saved op i (j), into op; none when "nodes" is
 * empty. */
static int restore_op_target(hs_op_t *op, json_object *j, int i, hs_err_t *err)
{
	json_object *nodes, *v;
	if (get(j, "nodes", json_type_array, &nodes, err) < 0)
		return -1;
	int nn = (int)json_object_array_length(nodes);
	if (nn > MAX_NODES_PER_OP)
		return hs_err_set(err, "state: ops[%d]: too many nodes", i);
	if (nn == 0)
		return 0;
	json_object *type;   /* read once: the target's GPU type */
	if (get(j, "type", json_type_string, &type, err) < 0)
		return -1;
	/* the target is built in the op (the holder frees it on error) */
	hs_target_t *t = &op->target;
	if (!(op->type = strdup(json_object_get_string(type))) ||
	    !(t->nodes = calloc((size_t)nn, sizeof(*t->nodes))))
		return hs_err_set(err, "out of memory");
	int bad = 0;
	for (int k = 0; k < nn && !bad; k++) {
		json_object *pair = json_object_array_get_idx(nodes, (size_t)k);
		json_object *a, *c;
		if (!json_object_is_type(pair, json_type_array) ||
		    json_object_array_length(pair) != 2 ||
		    !json_object_is_type(a = json_object_array_get_idx(pair, 0), json_type_string) ||
		    !json_object_is_type(c = json_object_array_get_idx(pair, 1), json_type_int) ||
		    json_object_get_int(c) < 1 || json_object_get_int(c) > HS_MAX_GPUS_PER_SERVER ||
		    !*json_object_get_string(a)) {
			bad = 1;
			break;
		}
		char *name = strdup(json_object_get_string(a));
		if (!name)
			return hs_err_set(err, "out of memory");
		t->nodes[t->nnodes++] = (hs_target_node_t){ .node = -1, .name = name,
							    .gpus = json_object_get_int(c) };
	}
	if (bad)
		return hs_err_set(err, "state: ops[%d]: bad node entry", i);
	int64_t partner = 0;
	if (json_object_object_get_ex(j, "partner", &v) &&
	    get_i64(j, "partner", 1, UINT32_MAX, &partner, err) < 0)
		return -1;
	t->partner = (uint32_t)partner;
	return 0;
}

static int restore_ops(restored_t *r, json_object *ops, hs_err_t *err)
{
	int n = (int)json_object_array_length(ops);
	if (n > MAX_JOBS_SAVED)
		return hs_err_set(err, "state: too many ops");
	for (int i = 0; i < n; i++) {
		json_object *j = json_object_array_get_idx(ops, (size_t)i), *v;
		if (!json_object_is_type(j, json_type_object))
			return hs_err_set(err, "state: ops[%d] is not an object", i);
		int64_t id, t0, dl, rc, ob, bc;
		if (get_i64(j, "id", 1, UINT32_MAX, &id, err) < 0 ||
		    get_i64(j, "t0", 0, INT64_MAX / 2, &t0, err) < 0 ||
		    get_i64(j, "deadline", 0, INT64_MAX / 2, &dl, err) < 0 ||
		    get_i64(j, "restart_cnt", 0, UINT32_MAX, &rc, err) < 0 ||
		    get_i64(j, "orig_begin", 0, INT64_MAX / 2, &ob, err) < 0 ||
		    get_i64(j, "begin_cleared", 0, 1, &bc, err) < 0 ||
		    get(j, "kind", json_type_string, &v, err) < 0)
			return -1;
		const char *ks = json_object_get_string(v);
		hs_op_kind_t kind = !strcmp(ks, "checkpoint") ? HS_OP_CKPT
				    : !strcmp(ks, "requeued") ? HS_OP_REQUEUED
				    : !strcmp(ks, "start") ? HS_OP_START : 0;
		if (!kind)
			return hs_err_set(err, "state: ops[%d]: unknown kind", i);
		if (hs_op_find(&r->ops_holder, (uint32_t)id))
			return hs_err_set(err, "state: ops: job %lld twice", (long long)id);
		hs_op_t *op = hs_op_add(&r->ops_holder, (uint32_t)id, kind);
		if (!op)
			return hs_err_set(err, "out of memory");
		op->t0 = t0;
		op->deadline = dl;
		op->restart_cnt = (unsigned)rc;
		op->orig_begin = ob;
		op->begin_cleared = (int)bc;
		op->restored = 1; /* its requeue may be one Slurm lost */
		if (restore_op_target(op, j, i, err) < 0)
			return -1;
	}
	return 0;
}

/* The header: format, version, round times and count. */
static int restore_header(json_object *st, int64_t *last, int64_t *reset, int64_t *rounds,
			  hs_err_t *err)
{
	json_object *v;
	int64_t ver;
	if (!st || !json_object_is_type(st, json_type_object))
		return hs_err_set(err, "state: not a JSON object");
	if (get(st, "format", json_type_string, &v, err) < 0)
		return -1;
	if (strcmp(json_object_get_string(v), FORMAT))
		return hs_err_set(err, "state: format is '%s', not '%s'", json_object_get_string(v),
				  FORMAT);
	if (get_i64(st, "version", 0, INT32_MAX, &ver, err) < 0)
		return -1;
	if (ver != VERSION)
		return hs_err_set(err, "state: version %lld, this build reads version %d",
				  (long long)ver, VERSION);
	if (get_i64(st, "last_round", 0, INT64_MAX / 2, last, err) < 0 ||
	    get_i64(st, "last_reset", 0, INT64_MAX / 2, reset, err) < 0 ||
	    get_i64(st, "rounds", 0, INT64_MAX / 2, rounds, err) < 0)
		return -1;
	return 0;
}

static int restore_types(restored_t *r, json_object *types, hs_err_t *err)
{
	int nt = (int)json_object_array_length(types);
	if (nt > HS_MAX_TYPES)
		return hs_err_set(err, "state: more than %d GPU types", HS_MAX_TYPES);
	for (int t = 0; t < nt; t++) {
		json_object *x = json_object_array_get_idx(types, (size_t)t);
		if (!json_object_is_type(x, json_type_string) || !*json_object_get_string(x))
			return hs_err_set(err, "state: types[%d] is not a name", t);
		for (int u = 0; u < t; u++)
			if (!strcmp(r->types[u], json_object_get_string(x)))
				return hs_err_set(err, "state: type '%s' twice", r->types[u]);
		if (!(r->types[t] = strdup(json_object_get_string(x))))
			return hs_err_set(err, "out of memory");
		r->ntypes = t + 1;
	}
	return 0;
}

/* The optional fields of jobs[i] (older state files have none): Slurm's
 * submit time and restart count (0 = adopt what the next round sees),
 * hetsched's last start of the job (engine_recover.c), the incarnation
 * admitted requeueable (hs_requeue_kept). */
static int restore_job_optional(json_object *j, hs_jacct_t *a, hs_err_t *err)
{
	int64_t st = 0, rc = 0, stt = 0, strc = 0, rq = 0;
	json_object *v;
	if ((json_object_object_get_ex(j, "submit_time", &v) &&
	     get_i64(j, "submit_time", 0, INT64_MAX / 2, &st, err) < 0) ||
	    (json_object_object_get_ex(j, "restart_cnt", &v) &&
	     get_i64(j, "restart_cnt", 0, UINT32_MAX, &rc, err) < 0))
		return -1;
	if (json_object_object_get_ex(j, "started_t", &v) &&
	    (get_i64(j, "started_t", 1, INT64_MAX / 2, &stt, err) < 0 ||
	     get_i64(j, "started_rc", 0, UINT32_MAX, &strc, err) < 0))
		return -1;
	if (json_object_object_get_ex(j, "requeue_inc", &v) &&
	    get_i64(j, "requeue_inc", 1, UINT32_MAX, &rq, err) < 0)
		return -1;
	a->requeue_rc1 = (unsigned)rq;
	a->started_t = stt;
	a->started_rc = (unsigned)strc;
	a->submit_time = st;
	a->restart_cnt = (unsigned)rc;
	return 0;
}

/* jobs[i] into a (nt: the number of types); ids must ascend. */
static int restore_job(const restored_t *r, json_object *j, int i, int nt, int64_t rounds,
		       hs_jacct_t *a, hs_err_t *err)
{
	int64_t id, fs, sb, src;
	if (!json_object_is_type(j, json_type_object))
		return hs_err_set(err, "state: jobs[%d] is not an object", i);
	if (get_i64(j, "id", 1, UINT32_MAX, &id, err) < 0 ||
	    get_i64(j, "first_seen", 0, INT64_MAX / 2, &fs, err) < 0 ||
	    get_i64(j, "suspended_by_us", 0, 1, &sb, err) < 0 ||
	    get_i64(j, "src", 0, HS_ESTIMATE_INFERRED, &src, err) < 0 ||
	    get_dbl(j, "active_reset", &a->active_reset_s, err) < 0 ||
	    get_dbl(j, "active_total", &a->active_total_s, err) < 0 ||
	    get_darr(j, "recv_reset", nt, a->recv_reset, err) < 0 ||
	    get_darr(j, "recv_total", nt, a->recv_total, err) < 0 ||
	    get_darr(j, "x", nt, a->x, err) < 0 || get_darr(j, "thr", nt, a->thr, err) < 0 ||
	    get_darr(j, "meas", nt, a->meas, err) < 0)
		return -1;
	for (int t = 0; t < nt; t++)
		if (a->x[t] > 1.0 + 1e-6)
			return hs_err_set(err, "state: jobs[%d]: share above 1", i);
	if (i > 0 && (uint32_t)id <= r->acct[i - 1].id)
		return hs_err_set(err, "state: jobs not sorted by id or duplicated");
	if (restore_job_optional(j, a, err) < 0)
		return -1;
	a->id = (uint32_t)id;
	a->first_seen = fs;
	a->suspended_by_us = (int)sb;
	a->src = (int)src;
	a->seen_round = rounds;
	return 0;
}

static int restore_jobs(restored_t *r, json_object *jobs, int64_t rounds, hs_err_t *err)
{
	int nj = (int)json_object_array_length(jobs);
	if (nj > MAX_JOBS_SAVED)
		return hs_err_set(err, "state: too many jobs");
	r->acct = calloc((size_t)nj + 1, sizeof(*r->acct));
	r->acct_id = calloc((size_t)nj + 1, sizeof(*r->acct_id));
	if (!r->acct || !r->acct_id)
		return hs_err_set(err, "out of memory");
	r->acct_len = nj;
	r->tcap = 8; /* as hs_acct_type_index grows it */
	while (r->tcap < r->ntypes)
		r->tcap *= 2;
	for (int i = 0; i < nj; i++) {
		if (hs_acct_block_new(&r->acct[i], r->tcap) < 0)
			return hs_err_set(err, "out of memory");
		if (restore_job(r, json_object_array_get_idx(jobs, (size_t)i), i, r->ntypes, rounds,
				&r->acct[i], err) < 0)
			return -1;
		r->acct_id[i] = r->acct[i].id;
		r->nacct = i + 1;
	}
	return 0;
}

/* The counters; tv[9] is "solve_failed", added later: optional, states
 * saved before have none. */
#define NTOTALS 10
static int restore_totals(json_object *tot, int64_t tv[NTOTALS], hs_err_t *err)
{
	const char *tk[NTOTALS - 1] = { "started", "preempted", "migrated", "suspended", "resumed",
					"requeued", "checkpoints", "checkpoints_acked",
					"start_failed" };
	for (int k = 0; k < NTOTALS - 1; k++)
		if (get_i64(tot, tk[k], 0, INT64_MAX / 2, &tv[k], err) < 0)
			return -1;
	tv[NTOTALS - 1] = 0;
	if (json_object_object_get_ex(tot, "solve_failed", NULL) &&
	    get_i64(tot, "solve_failed", 0, INT64_MAX / 2, &tv[NTOTALS - 1], err) < 0)
		return -1;
	return 0;
}

/* Everything is valid: swaps r into the engine (r's contents then
 * belong to it). */
static void restore_swap_in(hs_engine_t *e, restored_t *r, const int64_t tv[NTOTALS])
{
	hs_mech_free(e->mech);
	e->mech = r->mech;
	for (int t = 0; t < e->ntypes; t++)
		free(e->types[t]);
	e->ntypes = r->ntypes;
	memcpy(e->types, r->types, sizeof(r->types));
	hs_acct_free_all(e->acct, e->nacct);
	e->acct = r->acct;
	free(e->acct_id);
	e->acct_id = r->acct_id;
	e->nacct = e->cap_acct = r->nacct;
	e->acct_tcap = r->tcap;
	if (e->cap_acct == 0) {
		free(e->acct);
		e->acct = NULL;
		free(e->acct_id);
		e->acct_id = NULL;
	}
	hs_ops_free(e);
	e->ops = r->ops_holder.ops;
	e->nops = r->ops_holder.nops;
	e->cap_ops = r->ops_holder.cap_ops;
	e->tot_started = tv[0];
	e->tot_preempted = tv[1];
	e->tot_migrated = tv[2];
	e->tot_suspended = tv[3];
	e->tot_resumed = tv[4];
	e->tot_requeued = tv[5];
	e->tot_checkpoints = tv[6];
	e->tot_ckpt_acked = tv[7];
	e->tot_start_failed = tv[8];
	e->tot_solve_failed = tv[9];
}

int hs_engine_restore(hs_engine_t *e, json_object *st, hs_err_t *err)
{
	restored_t r;
	memset(&r, 0, sizeof(r));
	int64_t last, reset, rounds, tv[NTOTALS];
	if (restore_header(st, &last, &reset, &rounds, err) < 0)
		return -1;
	json_object *types, *jobs, *ops, *mech, *tot;
	if (get(st, "types", json_type_array, &types, err) < 0 ||
	    get(st, "jobs", json_type_array, &jobs, err) < 0 ||
	    get(st, "ops", json_type_array, &ops, err) < 0 ||
	    get(st, "mech", json_type_object, &mech, err) < 0 ||
	    get(st, "totals", json_type_object, &tot, err) < 0)
		return -1;
	if (restore_types(&r, types, err) < 0 || restore_jobs(&r, jobs, rounds, err) < 0 ||
	    restore_ops(&r, ops, err) < 0 || restore_totals(tot, tv, err) < 0 ||
	    !(r.mech = hs_mech_restore(mech, &e->mopts, err))) {
		restored_free(&r);
		return -1;
	}
	restore_swap_in(e, &r, tv);
	json_object *learned;
	hs_err_t le = { "" };
	/* optional (older states have none); a bad one costs what was
	 * learned, never the rest of the state */
	if (json_object_object_get_ex(st, "learned", &learned)) {
		if (hs_learn_load(&e->learn, learned, &le) < 0)
			hs_engine_logf(e, HS_LOG_ERROR, "state: learned table ignored: %s", le.msg);
		else /* the job memos are not saved: without this, every
		      * report read before the restart counted again */
			e->learn_floor_t = last;
	}
	e->last_round_t = last;
	e->last_regular_t = last; /* not kept: the grid restarts there */
	e->last_reset_t = reset;
	e->rounds = rounds;
	/* the first round compares this state with Slurm's (engine_recover.c) */
	e->recover = 1;
	if (strcmp(json_object_get_string(json_object_object_get(st, "policy")) ?: "",
		   e->conf.policy))
		e->force_solve = 1;
	return 0;
}
