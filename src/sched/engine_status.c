/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_status.c — the status document the plugin writes after every
 * round (next to its state) and `hetsched status` prints:
 *
 *   {"format": "hetsched-status", "version": 1, "time": <unix s>,
 *    "round": <n>, "rounds": <n>, "policy": "...", "round_length": <s>,
 *    "preempt_mode": "...", "last_reset": <unix s>,
 *    "types": [{"name": "v100", "gpus": 8, "available": 8, "busy": 6,
 *               "idle": 2, "shared": 1}],
 *    "gpu_jobs": {"pending": n, "running": n, "suspended": n, "other": n},
 *    "objective": <the policy's objective in its last successful solve>,
 *    "vs_equal_share": {"min": r, "mean": r, "jobs": n},
 *    "round_stats": {"solve_ms": .., "engine_ms": .., "snapshot_lock_ms": ..,
 *                    "apply_lock_ms": .., "lock_hold_max_ms": ..,
 *                    "lock_yields": .., "round_ms": .., "solved": 0|1,
 *                    "reset": 0|1, "active": n, "pinned": n, "leaving": n,
 *                    "planned": {"start": n, "keep": n, "checkpoint": n,
 *                                "requeue": n, "suspend": n, "resume": n,
 *                                "migrate": n},
 *                    "done": {"started": n, "start_failed": n, "deferred": n,
 *                             "checkpointing": n, "requeued": n,
 *                             "requeue_failed": n, "suspended": n,
 *                             "resumed": n, "vanished": n, "cpu_started": n}},
 *    "totals": {"started": n, "preempted": n, "migrated": n, ...,
 *               "solve_failed": n},
 *    "private_jobs": true|false,   (added by hs_status_write)
 *    "jobs": [{"id": n, "user_id": n, "state": "running", "type": "v100",
 *              "nodes": ["v100-1"], "gpus": 1, "op": "keep",
 *              "reason": "...", "estimate": "table",
 *              "estimates": {"v100": "measured", "k80": "inferred"},
 *              "learn_confidence": 0.4, "bounded": "ratio,steps",
 *              "target": {"v100": 0.5}, "received": {"v100": 0.48},
 *              "received_s": {"v100": 120}, "active_s": 250,
 *              "weight": 1.0, "account": "physics",
 *              "throughput": {"v100": 12.1}, "measured": {"v100": 11.9},
 *              "expected_start": <unix s>, "received_total_s": {"v100": 900},
 *              "active_total_s": 1200, "ftf_rho": 1.3, "remaining_s": 800}],
 *    "entities": [{"name": "physics", "parent": -1, "shares": 2, ...}],
 *    "ops": [{"id": n, "kind": "checkpoint", "since": <unix s>}]}
 *
 * "received" is the fraction of the time since the last allocation reset
 * the job ran on each type; "target" is the allocation's share X.
 * "idle" counts GPUs on available nodes that no job holds, "shared" GPUs
 * two or more jobs hold (packing); "gpu_jobs" counts the snapshot's jobs
 * that want GPUs by state; "vs_equal_share" the jobs' effective
 * throughput over their equal-share throughput in the last successful
 * solve (engine.c). "expected_start" (pending jobs, start_est.h),
 * "received_total_s" / "active_total_s" (since the job was first active,
 * across resets), "ftf_rho" (finish-time fairness estimate) and
 * "remaining_s" come from engine_start.c; "estimates" names each usable
 * type's source (estimate.h: measured, table, learned, inferred,
 * agnostic) and "learn_confidence" (only with a learned or inferred
 * type) the least confidence of those (sched/learn.h); "bounded" (only
 * when one applied) names the bounds on what the job reported that
 * changed its estimates or remaining work (sched/bound.h: table, kind,
 * ratio, steps; "throughput" is then the bounded estimate and "measured"
 * what the job reported); "entities" (accounts and users,
 * engine_entstatus.c) from the round's association tree. Those and "objective" came
 * after version 1 was
 * published: readers treat them as optional (metrics.c).
 */
#include "core/json_lazy.h"
#include "sched/engine_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *state_name(hs_sjob_state_t s)
{
	switch (s) {
	case HS_SJ_PENDING:
		return "pending";
	case HS_SJ_RUNNING:
		return "running";
	case HS_SJ_SUSPENDED:
		return "suspended";
	case HS_SJ_OTHER:
		return "other";
	}
	return "?";
}

static void add_int(json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_dbl(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

/* {"type": value} for the non-zero entries of an accounting array. */
static json_object *per_type(const hs_engine_t *e, const double *v, double div, int all)
{
	json_object *o = json_object_new_object();
	for (int t = 0; t < e->ntypes; t++) {
		double x = div > 0 ? v[t] / div : 0;
		if (all || x > 0)
			add_dbl(o, e->types[t], x);
	}
	return o;
}

/* What learning did (hs_engine_learn_stats): "learning": {"kinds": n,
 * "refused": n, "outliers": n, "explore_gpu_s": s, "busy_gpu_s": s,
 * "learned_error": x, "learned_scored": n,
 * "inferred_error": x, "inferred_scored": n} (errors: mean |ln(estimate /
 * first measurement)|, only once some were scored). */
static json_object *learning_doc(const hs_engine_t *e)
{
	hs_learn_stats_t ls;
	hs_engine_learn_stats(e, &ls);
	json_object *o = json_object_new_object();
	add_int(o, "kinds", ls.kinds);
	add_int(o, "refused", ls.refused);
	add_int(o, "outliers", ls.outliers);
	add_dbl(o, "explore_gpu_s", ls.explore_gpu_s);
	add_dbl(o, "busy_gpu_s", ls.busy_gpu_s);
	add_int(o, "learned_scored", ls.err_n[0]);
	add_int(o, "inferred_scored", ls.err_n[1]);
	if (ls.err_n[0])
		add_dbl(o, "learned_error", ls.err_mean[0]);
	if (ls.err_n[1])
		add_dbl(o, "inferred_error", ls.err_mean[1]);
	return o;
}

/* Where each type's estimate of job a came from (types it may use). */
static json_object *type_sources(const hs_engine_t *e, const hs_jacct_t *a)
{
	json_object *o = json_object_new_object();
	for (int t = 0; t < e->ntypes && t < 64; t++) {
		uint64_t bit = 1ull << t;
		hs_estimate_source_t s = a->meas[t] > 0 ? HS_ESTIMATE_MEASURED
				       : a->src_table & bit ? HS_ESTIMATE_TABLE
				       : a->src_learned & bit ? HS_ESTIMATE_LEARNED
				       : a->src_inferred & bit ? HS_ESTIMATE_INFERRED
				       : HS_ESTIMATE_AGNOSTIC;
		if (a->thr[t] > 0)
			json_object_object_add(o, e->types[t],
					       json_object_new_string(hs_estimate_source_name(s)));
	}
	return o;
}

static void add_to(json_object *t, const char *k, int64_t v)
{
	add_int(t, k, json_object_get_int64(json_object_object_get(t, k)) + v);
}

/* holders[base[n] + g]: how many jobs hold GPU g of node n (NULL when out
 * of memory: "shared" then counts nothing). */
static int *gpu_holders(const hs_snap_t *s, int *base)
{
	int total = 0;
	for (int n = 0; n < s->nnodes; n++) {
		base[n] = total;
		total += s->nodes[n].ngpus > 0 ? s->nodes[n].ngpus : 0;
	}
	int *holders = calloc(total > 0 ? (size_t)total : 1, sizeof(int));
	for (int j = 0; holders && j < s->njobs; j++)
		for (int g = 0; g < s->jobs[j].nheld; g++) {
			const hs_sgpu_t *h = &s->jobs[j].held[g];
			if (h->node >= 0 && h->node < s->nnodes && h->gpu >= 0 &&
			    h->gpu < s->nodes[h->node].ngpus)
				holders[base[h->node] + h->gpu]++;
		}
	return holders;
}

static json_object *types_doc(const hs_snap_t *s)
{
	json_object *arr = json_object_new_array();
	int *base = calloc(s->nnodes > 0 ? (size_t)s->nnodes : 1, sizeof(int));
	int *holders = base ? gpu_holders(s, base) : NULL;
	for (int n = 0; n < s->nnodes; n++) {
		const hs_snode_t *nd = &s->nodes[n];
		if (nd->ngpus <= 0 || !nd->gpu_type)
			continue;
		json_object *t = NULL;
		for (size_t k = 0; k < json_object_array_length(arr); k++) {
			json_object *x = json_object_array_get_idx(arr, k);
			if (!strcmp(json_object_get_string(json_object_object_get(x, "name")),
				    nd->gpu_type))
				t = x;
		}
		if (!t) {
			t = json_object_new_object();
			json_object_object_add(t, "name", json_object_new_string(nd->gpu_type));
			add_int(t, "gpus", 0);
			add_int(t, "available", 0);
			add_int(t, "busy", 0);
			add_int(t, "idle", 0);
			add_int(t, "shared", 0);
			json_object_array_add(arr, t);
		}
		int busy = 0, shared = 0;
		for (int g = 0; g < nd->ngpus; g++) {
			busy += nd->gpu_held[g] != 0;
			shared += holders && holders[base[n] + g] > 1;
		}
		add_to(t, "gpus", nd->ngpus);
		add_to(t, "available", nd->avail ? nd->ngpus : 0);
		add_to(t, "busy", busy);
		add_to(t, "idle", nd->avail ? nd->ngpus - busy : 0);
		add_to(t, "shared", shared);
	}
	free(holders);
	free(base);
	return arr;
}

/* The snapshot's GPU jobs by state. */
static json_object *gpu_jobs_doc(const hs_snap_t *s)
{
	int64_t n[HS_SJ_OTHER + 1] = { 0 };
	for (int j = 0; j < s->njobs; j++)
		if (s->jobs[j].gpus > 0 && s->jobs[j].state <= HS_SJ_OTHER)
			n[s->jobs[j].state]++;
	json_object *o = json_object_new_object();
	for (int k = HS_SJ_PENDING; k <= HS_SJ_OTHER; k++)
		add_int(o, state_name((hs_sjob_state_t)k), n[k]);
	return o;
}

/* "nodes" (each once) and "type" of the GPUs job sj holds, if any. */
static void add_held(json_object *j, const hs_snap_t *s, const hs_sjob_t *sj)
{
	if (sj->nheld <= 0)
		return;
	json_object *nodes = json_object_new_array();
	const char *type = NULL;
	for (int g = 0; g < sj->nheld; g++) {
		const hs_snode_t *nd = &s->nodes[sj->held[g].node];
		type = nd->gpu_type;
		int dup = 0;
		for (int h = 0; h < g; h++)
			dup |= sj->held[h].node == sj->held[g].node;
		if (!dup)
			json_object_array_add(nodes, json_object_new_string(nd->name));
	}
	json_object_object_add(j, "nodes", nodes);
	if (type)
		json_object_object_add(j, "type", json_object_new_string(type));
}

/* One job of the round's plan: its state, GPUs, the plan's op and reason,
 * and what the engine's accounting knows of it. */
static json_object *plan_job_doc(const hs_engine_t *e, const hs_snap_t *s,
				 const hs_plan_job_t *pj)
{
	const hs_sjob_t *sj = pj->snap >= 0 && pj->snap < s->njobs ? &s->jobs[pj->snap] : NULL;
	json_object *j = json_object_new_object();
	add_int(j, "id", pj->id);
	json_object_object_add(j, "state", json_object_new_string(state_name(pj->state)));
	if (sj) {
		add_int(j, "user_id", sj->user_id);
		add_int(j, "gpus", sj->gpus);
		add_held(j, s, sj);
	}
	json_object_object_add(j, "op", json_object_new_string(hs_plan_op_name(pj->op)));
	if (pj->type_name)
		json_object_object_add(j, "round_type", json_object_new_string(pj->type_name));
	json_object_object_add(j, "reason", json_object_new_string(pj->reason));
	if (pj->expected_start > 0)
		add_int(j, "expected_start", pj->expected_start);
	const hs_jacct_t *a = hs_acct_find(e, pj->id);
	if (a) {
		json_object_object_add(j, "received_total_s",
				       per_type(e, a->recv_total, 1, 0));
		add_dbl(j, "active_total_s", a->active_total_s);
		if (a->have_rho && isfinite(a->rho))
			add_dbl(j, "ftf_rho", a->rho);
		if (a->remaining_s > 0 && isfinite(a->remaining_s))
			add_dbl(j, "remaining_s", a->remaining_s);
		json_object_object_add(j, "estimate",
				       json_object_new_string(hs_estimate_source_name(a->src)));
		json_object_object_add(j, "estimates", type_sources(e, a));
		if ((a->src_learned | a->src_inferred) && isfinite(a->learn_conf))
			add_dbl(j, "learn_confidence", a->learn_conf);
		if (a->bounded) {
			char names[64];
			hs_bound_names(a->bounded, names, sizeof(names));
			json_object_object_add(j, "bounded", json_object_new_string(names));
		}
		json_object_object_add(j, "target", per_type(e, a->x, 1, 0));
		json_object_object_add(j, "received",
				       per_type(e, a->recv_reset, a->active_reset_s, 0));
		json_object_object_add(j, "received_s", per_type(e, a->recv_reset, 1, 0));
		add_dbl(j, "active_s", a->active_reset_s);
		add_dbl(j, "weight", a->weight);
		if (a->account[0])
			json_object_object_add(j, "account",
					       json_object_new_string(a->account));
		json_object_object_add(j, "throughput", per_type(e, a->thr, 1, 0));
		json_object_object_add(j, "measured", per_type(e, a->meas, 1, 0));
	}
	return j;
}

/* Running or suspended GPU jobs the plan does not list: jobs the policy
 * leaves alone because sched/hetsched cannot preempt them (pinned: no
 * checkpoints, requeue=0, PreemptMode=off, ...). Users look for them in
 * `hetsched job` too; they keep their GPUs until they end. */
static void add_unplanned_holders(json_object *jobs, const hs_snap_t *s, const hs_plan_t *plan)
{
	/* planned[i]: snapshot job i is in the plan (one pass, not a search
	 * per job: the queue may hold tens of thousands) */
	unsigned char *planned = calloc((size_t)s->njobs + 1, 1);
	if (!planned)
		return; /* the document just lacks them this round */
	for (int k = 0; plan && k < plan->njobs; k++)
		if (plan->jobs[k].snap >= 0 && plan->jobs[k].snap < s->njobs)
			planned[plan->jobs[k].snap] = 1;
	for (int i = 0; i < s->njobs; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		if (planned[i] || sj->gpus <= 0 || sj->nheld <= 0 ||
		    (sj->state != HS_SJ_RUNNING && sj->state != HS_SJ_SUSPENDED))
			continue;
		json_object *j = json_object_new_object();
		add_int(j, "id", sj->id);
		json_object_object_add(j, "state", json_object_new_string(state_name(sj->state)));
		add_int(j, "user_id", sj->user_id);
		add_int(j, "gpus", sj->gpus);
		add_held(j, s, sj);
		json_object_object_add(j, "op", json_object_new_string("none"));
		json_object_object_add(j, "outside_policy", json_object_new_boolean(1));
		json_object_object_add(j, "reason", json_object_new_string(
			"outside the policy: sched/hetsched cannot preempt it, so it keeps its "
			"GPUs until it ends"));
		json_object_array_add(jobs, j);
	}
	free(planned);
}

/* What a lazy "jobs" array of the status builds its elements from: the
 * plan's jobs, then the running jobs outside it (few: built at once). */
typedef struct status_jobs {
	const hs_engine_t *e;
	const hs_snap_t *s;
	const hs_plan_t *plan;
	int nplan;
	json_object *holders;
} status_jobs_t;

static json_object *status_job_elem(const void *ctx, int i)
{
	const status_jobs_t *c = ctx;
	if (i < c->nplan)
		return plan_job_doc(c->e, c->s, &c->plan->jobs[i]);
	return json_object_get(json_object_array_get_idx(c->holders, (size_t)(i - c->nplan)));
}

static void status_jobs_free(void *ctx)
{
	status_jobs_t *c = ctx;
	json_object_put(c->holders);
	free(c);
}

/* The status document's "jobs": built now, or lazily (json_lazy.h). */
static json_object *status_jobs(const hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
				int lazy)
{
	if (!lazy) {
		json_object *jobs = json_object_new_array();
		for (int k = 0; jobs && plan && k < plan->njobs; k++)
			json_object_array_add(jobs, plan_job_doc(e, s, &plan->jobs[k]));
		if (jobs)
			add_unplanned_holders(jobs, s, plan);
		return jobs;
	}
	json_object *holders = json_object_new_array();
	status_jobs_t *c = calloc(1, sizeof(*c));
	if (!c || !holders) {
		free(c);
		json_object_put(holders);
		return NULL;
	}
	add_unplanned_holders(holders, s, plan);
	*c = (status_jobs_t){ .e = e, .s = s, .plan = plan, .nplan = plan ? plan->njobs : 0,
			      .holders = holders };
	int n = c->nplan + (int)json_object_array_length(holders);
	return hs_json_lazy_array(n, status_job_elem, c, status_jobs_free);
}

static json_object *engine_status(const hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
				  const hs_round_stats_t *st, int64_t now, int lazy, hs_err_t *err)
{
	json_object *o = json_object_new_object();
	if (!o) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	json_object_object_add(o, "format", json_object_new_string("hetsched-status"));
	add_int(o, "version", 1);
	add_int(o, "time", now);
	add_int(o, "round", plan ? plan->round : 0);
	add_int(o, "rounds", e->rounds);
	json_object_object_add(o, "policy", json_object_new_string(e->conf.policy));
	add_int(o, "round_length", e->conf.round_s);
	json_object_object_add(o, "preempt_mode",
			       json_object_new_string(hs_preempt_mode_name(e->conf.preempt)));
	add_int(o, "last_reset", e->last_reset_t);
	json_object_object_add(o, "types", types_doc(s));
	json_object_object_add(o, "gpu_jobs", gpu_jobs_doc(s));
	if (e->have_objective && isfinite(e->objective))
		add_dbl(o, "objective", e->objective);
	if (e->eq_jobs > 0) {
		json_object *eq = json_object_new_object();
		add_dbl(eq, "min", e->eq_min);
		add_dbl(eq, "mean", e->eq_mean);
		add_int(eq, "jobs", e->eq_jobs);
		json_object_object_add(o, "vs_equal_share", eq);
	}

	json_object *rs = json_object_new_object();
	if (plan) {
		add_dbl(rs, "solve_ms", plan->solve_ms);
		add_dbl(rs, "engine_ms", plan->engine_ms);
		add_int(rs, "solved", plan->solved);
		add_int(rs, "solve_failed", plan->solve_failed);
		add_int(rs, "reset", plan->reset);
		add_int(rs, "active", plan->nactive);
		add_int(rs, "pinned", plan->npinned);
		add_int(rs, "leaving", plan->nleaving);
		add_int(rs, "waiting_outside", plan->nskipped);
		add_int(rs, "gpus_usable", plan->gpus_usable);
		add_int(rs, "gpus_used", plan->gpus_used);
		json_object *pl = json_object_new_object();
		add_int(pl, "start", plan->nstart);
		add_int(pl, "keep", plan->nkeep);
		add_int(pl, "checkpoint", plan->ncheckpoint);
		add_int(pl, "requeue", plan->nrequeue);
		add_int(pl, "suspend", plan->nsuspend);
		add_int(pl, "resume", plan->nresume);
		add_int(pl, "migrate", plan->nmigrate);
		json_object_object_add(rs, "planned", pl);
	}
	if (st) {
		add_dbl(rs, "snapshot_lock_ms", st->snapshot_lock_ms);
		add_dbl(rs, "apply_lock_ms", st->apply_lock_ms);
		add_dbl(rs, "lock_hold_max_ms", st->lock_hold_max_ms);
		add_int(rs, "lock_yields", st->lock_yields);
		add_dbl(rs, "round_ms", st->round_ms);
		json_object *dn = json_object_new_object();
		add_int(dn, "started", st->started);
		add_int(dn, "start_failed", st->start_failed);
		add_int(dn, "deferred", st->deferred);
		add_int(dn, "kept", st->kept);
		add_int(dn, "checkpointing", st->checkpointing);
		add_int(dn, "requeued", st->requeued);
		add_int(dn, "requeue_failed", st->requeue_failed);
		add_int(dn, "suspended", st->suspended);
		add_int(dn, "resumed", st->resumed);
		add_int(dn, "vanished", st->vanished);
		add_int(dn, "cpu_started", st->cpu_started);
		json_object_object_add(rs, "done", dn);
	}
	json_object_object_add(o, "round_stats", rs);

	json_object *tot = json_object_new_object();
	add_int(tot, "started", e->tot_started);
	add_int(tot, "preempted", e->tot_preempted);
	add_int(tot, "migrated", e->tot_migrated);
	add_int(tot, "suspended", e->tot_suspended);
	add_int(tot, "resumed", e->tot_resumed);
	add_int(tot, "requeued", e->tot_requeued);
	add_int(tot, "checkpoints", e->tot_checkpoints);
	add_int(tot, "checkpoints_acked", e->tot_ckpt_acked);
	add_int(tot, "start_failed", e->tot_start_failed);
	add_int(tot, "solve_failed", e->tot_solve_failed);
	hs_mech_stats_t ms;
	hs_mech_get_stats(e->mech, &ms);
	add_int(tot, "mech_rounds", ms.rounds);
	add_int(tot, "mech_resets", ms.resets);
	add_int(tot, "lease_extensions", ms.keeps);
	json_object_object_add(o, "totals", tot);
	json_object_object_add(o, "learning", learning_doc(e));

	json_object *jobs = status_jobs(e, s, plan, lazy);
	if (!jobs) {
		json_object_put(o);
		hs_err_set(err, "out of memory");
		return NULL;
	}
	json_object_object_add(o, "jobs", jobs);

	json_object *ents = hs_entities_status(e, s, plan, now);
	if (ents)
		json_object_object_add(o, "entities", ents);

	json_object *ops = json_object_new_array();
	for (int i = 0; i < e->nops; i++) {
		json_object *j = json_object_new_object();
		add_int(j, "id", e->ops[i].id);
		json_object_object_add(j, "kind",
				       json_object_new_string(hs_op_kind_name(e->ops[i].kind)));
		add_int(j, "since", e->ops[i].t0);
		json_object_array_add(ops, j);
	}
	json_object_object_add(o, "ops", ops);
	return o;
}

json_object *hs_engine_status(const hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
			      const hs_round_stats_t *st, int64_t now, hs_err_t *err)
{
	return engine_status(e, s, plan, st, now, 0, err);
}

json_object *hs_engine_status_lazy(const hs_engine_t *e, const hs_snap_t *s,
				   const hs_plan_t *plan, const hs_round_stats_t *st, int64_t now,
				   hs_err_t *err)
{
	return engine_status(e, s, plan, st, now, 1, err);
}
