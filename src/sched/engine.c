/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine.c — lifecycle of the round engine and the round driver: build the
 * round from the snapshot, begin_round, solve when due, schedule, update
 * the accounting, build the plan (see engine.h). */
#include "sched/engine_impl.h"
#include "sched/solve_leaving_out.h"
#include "core/policy_impl.h"
#include "core/problem_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

void hs_sconf_engine_opts(const hs_sconf_t *c, hs_policy_opts_t *po, hs_mech_opts_t *mo)
{
	hs_policy_opts_default(po);
	po->seed = c->seed;
	po->pack_threshold = c->pack_threshold;
	po->time_limit_s = c->solver_time_limit_s;
	po->pop_partitions = c->pop_partitions;
	hs_mech_opts_default(mo);
	hs_mech_opts_for_policy(mo, c->policy);
	mo->min_reset_s = c->min_reset_s;
	mo->preempt_cost_s = c->preempt_cost_s;
	mo->restart_aware = c->restart_aware;
	mo->seed = c->seed;
	mo->round_s = c->round_s;
	/* A job we start keeps its GPUs for a round length: early rounds
	 * (arrivals, departures) only fill what is free. The clock advances by
	 * at most HS_MAX_CREDIT_S per round, so the lease must not be longer. */
	mo->lease_s = fmin(c->round_s, HS_MAX_CREDIT_S);
	if (c->backfill >= 0)
		mo->backfill = c->backfill;
}

/* Policy context and mechanism options for a configuration. */
static hs_policy_ctx_t *make_policy(const hs_sconf_t *c, hs_mech_opts_t *mo, hs_err_t *err)
{
	hs_policy_opts_t po;
	hs_sconf_engine_opts(c, &po, mo);
	return hs_policy_ctx_new(c->policy, &po, err);
}

hs_engine_t *hs_engine_new(const hs_sconf_t *conf, hs_log_fn log, void *log_arg, hs_err_t *err)
{
	hs_engine_t *e = calloc(1, sizeof(*e));
	if (!e) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	e->log = log;
	e->log_arg = log_arg;
	e->warned_no_types = -1;
	e->settle_s = HS_SETTLE_DEFAULT_S;
	if (hs_sconf_check(conf, err) < 0 || hs_sconf_copy(&e->conf, conf, err) < 0) {
		free(e);
		return NULL;
	}
	/* the three lookup hints in one block; without it lookups only
	 * search (sched/idindex.h) */
	if ((e->acct_hint = malloc(3 * sizeof(*e->acct_hint)))) {
		memset(e->acct_hint, 0xff, 3 * sizeof(*e->acct_hint)); /* -1: no guess */
		e->rc_hint = e->acct_hint + 1;
		e->memo_hint = e->acct_hint + 2;
	}
	hs_learn_init(&e->learn, e->conf.learn_max_kinds);
	e->learn.matrix_only = e->conf.learn_matrix_only;
	if (hs_tables_load(&e->tables, &e->conf, err) < 0)
		goto fail;
	if (!(e->policy = make_policy(&e->conf, &e->mopts, err)))
		goto fail;
	if (!(e->mech = hs_mech_new(&e->mopts, err)))
		goto fail;
	return e;
fail:
	hs_engine_free(e);
	return NULL;
}

void hs_engine_free(hs_engine_t *e)
{
	if (!e)
		return;
	hs_mech_free(e->mech);
	hs_policy_ctx_free(e->policy);
	hs_tables_free(&e->tables);
	hs_sconf_free(&e->conf);
	for (int t = 0; t < e->ntypes; t++)
		free(e->types[t]);
	hs_acct_free_all(e->acct, e->nacct);
	free(e->acct_id);
	free(e->acct_hint); /* and rc_hint, memo_hint */
	hs_ops_free(e);
	hs_warn_free(e);
	hs_reccache_free(e);
	hs_jmemo_free(e);
	hs_ents_free(&e->ents);
	hs_learn_free(&e->learn);
	free(e);
}

const hs_sconf_t *hs_engine_conf(const hs_engine_t *e)
{
	return &e->conf;
}

int hs_engine_reconfigure(hs_engine_t *e, const hs_sconf_t *conf, hs_err_t *err)
{
	hs_sconf_t c;
	hs_tables_t tb;
	hs_mech_opts_t mo;
	if (hs_sconf_check(conf, err) < 0 || hs_sconf_copy(&c, conf, err) < 0)
		return -1;
	if (hs_tables_load(&tb, &c, err) < 0) {
		hs_sconf_free(&c);
		return -1;
	}
	hs_policy_ctx_t *pol = make_policy(&c, &mo, err);
	if (!pol) {
		hs_tables_free(&tb);
		hs_sconf_free(&c);
		return -1;
	}
	/* The mechanism keeps its state; new options take effect through a
	 * save/restore round trip. */
	json_object *st = hs_mech_save(e->mech, err);
	hs_mech_t *m = st ? hs_mech_restore(st, &mo, err) : NULL;
	json_object_put(st);
	if (!m) {
		hs_policy_ctx_free(pol);
		hs_tables_free(&tb);
		hs_sconf_free(&c);
		return -1;
	}
	if (strcmp(c.policy, e->conf.policy))
		e->force_solve = 1;
	hs_mech_free(e->mech);
	e->mech = m;
	e->mopts = mo;
	hs_policy_ctx_free(e->policy);
	e->policy = pol;
	hs_tables_free(&e->tables);
	e->tables = tb;
	hs_jmemo_tables_changed(e); /* its table rows were the old tables' */
	/* a smaller bound applies as kinds are added (learn.c evicts) */
	e->learn.max_kinds = c.learn_max_kinds;
	e->learn.matrix_only = c.learn_matrix_only;
	hs_sconf_free(&e->conf);
	e->conf = c;
	return 0;
}

void hs_engine_set_settle(hs_engine_t *e, int seconds)
{
	e->settle_s = seconds > 0 ? seconds : 0;
}

void hs_engine_set_packing(hs_engine_t *e, int available)
{
	e->packing = available != 0;
}

/* The regular rounds keep their own clock: a RoundLength after the last
 * regular one, whatever early rounds ran in between. When an early round
 * set the next round a RoundLength after itself instead, the jobs the
 * round before it had started, kept by their lease through the early
 * round, stayed where they were for nearly two round lengths (live,
 * RoundLength=20: jobs placed before any throughput was measured ran
 * 39 s on the wrong type, doc/policies.md "Leases"). Without early
 * rounds every round is regular: nothing changes there. */
static int64_t regular_due(const hs_engine_t *e)
{
	int64_t base = e->last_regular_t > 0 ? e->last_regular_t : e->last_round_t;
	return base + e->conf.round_s;
}

/* Books a round run at now: the last round, and the last regular round
 * when it was one (due by the regular clock, or the first). A clock set
 * back before the last regular round restarts the regular clock there:
 * kept in the future, it would hold regular rounds off until the clock
 * caught up. */
static void note_round(hs_engine_t *e, int64_t now)
{
	if (e->last_round_t <= 0 || now < e->last_regular_t || now >= regular_due(e))
		e->last_regular_t = now;
	e->last_round_t = now;
}

int hs_engine_round_due(const hs_engine_t *e, int64_t now, int changed)
{
	if (e->last_round_t <= 0 || now < e->last_round_t)
		return 1;
	if (now >= regular_due(e))
		return 1;
	return changed && e->conf.early_rounds && now - e->last_round_t >= e->conf.min_round_gap_s;
}

int64_t hs_engine_next_round(const hs_engine_t *e, int changed)
{
	if (e->last_round_t <= 0)
		return 0;
	int64_t next = regular_due(e);
	if (changed && e->conf.early_rounds && e->last_round_t + e->conf.min_round_gap_s < next)
		next = e->last_round_t + e->conf.min_round_gap_s;
	return next;
}

void hs_engine_mech_stats(const hs_engine_t *e, hs_mech_stats_t *st)
{
	hs_mech_get_stats(e->mech, st);
}

int hs_engine_add_table(hs_engine_t *e, const hs_thrtable_t *t, hs_err_t *err)
{
	if (e->tables.n >= HS_SCONF_MAX_TABLES)
		return hs_err_set(err, "more than %d throughput tables", HS_SCONF_MAX_TABLES);
	if (hs_thrtable_copy(&e->tables.t[e->tables.n], t, err) < 0)
		return -1;
	e->tables.n++;
	return 0;
}

void hs_engine_set_reasons(hs_engine_t *e, int on)
{
	e->no_reasons = !on;
}

void hs_engine_set_save_failed(hs_engine_t *e, const char *path)
{
	e->save_failed = path;
}

int hs_engine_round_change_matters(const hs_engine_t *e, int64_t now)
{
	return !hs_engine_round_due(e, now, 0) && hs_engine_round_due(e, now, 1);
}

/* Credits the elapsed time, resets, installs shares and estimates. */
static int update_acct(hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
		       double elapsed, const hs_alloc_t *alloc, int reset, hs_err_t *err)
{
	const hs_problem_t *pb = &b->problem;
	const int J = pb->cluster.ntypes;
	const int *tmap = b->tmap;
	(void)err;
	long round = e->rounds + 1;
	for (int k = 0; k < pb->njobs; k++) {
		uint32_t id = s->jobs[b->pjob_snap[k]].id;
		hs_jacct_t *ac = hs_acct_get(e, id, s->now);
		if (!ac)
			return hs_err_set(err, "out of memory");
		ac->seen_round = round;
		ac->active_reset_s += elapsed;
		ac->active_total_s += elapsed;
		if (b->run[k].ngpus > 0) {
			int t = tmap[b->servers[b->run[k].gpus[0].server].type];
			ac->recv_reset[t] += elapsed;
			ac->recv_total[t] += elapsed;
			/* the exploration budget (LearnExplore): the time since
			 * the last round ran under its estimates */
			double gs = elapsed * b->run[k].ngpus;
			e->busy_s += gs;
			if (t < 64 && (ac->src_explore >> t & 1))
				e->explore_s += gs;
		}
	}
	/* A job we suspended keeps its entry (and so its suspended_by_us mark,
	 * also in the state file) while it is still suspended, whatever its
	 * role: the entry is what tells later rounds to resume it. A job
	 * seen in any other state is no longer suspended by us. */
	for (int i = 0; i < s->njobs; i++) {
		hs_jacct_t *ac = hs_acct_find(e, s->jobs[i].id);
		if (!ac)
			continue;
		const hs_sjob_t *sj = &s->jobs[i];
		/* the requeue flag each incarnation was admitted with
		 * (hs_requeue_kept): a pending job's is its own to change */
		if (sj->state == HS_SJ_PENDING)
			ac->requeue_rc1 = sj->requeue_ok ? sj->restart_cnt + 1 : 0;
		else if (sj->requeue_ok || b->requeue_kept[i])
			ac->requeue_rc1 = sj->restart_cnt + 1;
		if (sj->state != HS_SJ_SUSPENDED)
			ac->suspended_by_us = 0;
		else if (ac->suspended_by_us)
			ac->seen_round = round;
		/* A job held after a lost start (not active meanwhile) keeps
		 * its hold; a job hetsched started keeps the record of that
		 * start for a while even when it is pinned, not active: the
		 * state file must know the start until Slurm has saved it. */
		if (ac->hold_until > s->now ||
		    (ac->started_t && s->now - ac->started_t < HS_STARTED_KEEP_S))
			ac->seen_round = round;
	}
	hs_acct_drop_unseen(e, round);
	if (reset) {
		hs_acct_reset(e);
		e->last_reset_t = s->now;
	}
	/* entities of this round only: a job outside the problem has none */
	for (int i = 0; i < e->nacct; i++)
		e->acct[i].entity = -1;
	hs_ents_keep(e, &pb->entities);
	for (int k = 0; k < pb->njobs; k++) {
		hs_jacct_t *ac = hs_acct_find(e, s->jobs[b->pjob_snap[k]].id);
		if (!ac)
			continue;
		ac->src = b->src[k];
		hs_bound_note(e, ac->id, ac->bounded, b->bounded[k]);
		ac->bounded = b->bounded[k];
		ac->learn_conf = b->lconf[k];
		ac->src_table = ac->src_learned = ac->src_inferred = ac->src_explore = 0;
		ac->weight = pb->jobs[k].weight;
		const hs_sjob_t *sj = &s->jobs[b->pjob_snap[k]];
		hs_strlcpy(ac->account, sj->account && *sj->account ? sj->account : "(none)",
			   sizeof(ac->account));
		ac->entity = pb->jobs[k].entity;
		memset(ac->thr, 0, (size_t)e->acct_tcap * sizeof(double));
		memset(ac->meas, 0, (size_t)e->acct_tcap * sizeof(double));
		for (int j = 0; j < J; j++) {
			ac->thr[tmap[j]] = pb->jobs[k].thr[j] * b->units[k]; /* job's units */
			ac->meas[tmap[j]] = b->meas[(size_t)k * J + j];
			uint64_t bit = tmap[j] < 64 ? 1ull << tmap[j] : 0;
			if (b->explore[k] >> j & 1)
				ac->src_explore |= bit;
			switch (b->tsrc[(size_t)k * J + j]) {
			case HS_ESTIMATE_TABLE:
				ac->src_table |= bit;
				break;
			case HS_ESTIMATE_LEARNED:
				ac->src_learned |= bit;
				break;
			case HS_ESTIMATE_INFERRED:
				ac->src_inferred |= bit;
				break;
			default:
				break;
			}
		}
		if (alloc) {
			memset(ac->x, 0, (size_t)e->acct_tcap * sizeof(double));
			for (int j = 0; j < J; j++)
				ac->x[tmap[j]] = hs_alloc_job_type_total(alloc, k, j);
		}
	}
	return 0;
}

static int policy_solve(void *arg, const hs_problem_t *p, hs_alloc_t *out, hs_err_t *err)
{
	return hs_policy_solve(arg, p, out, err);
}

/* Effective throughput against an equal share, after a successful solve:
 * per job, its throughput under the allocation over its throughput under
 * Gavel's isolated allocation (each of the M jobs 1/M of every type it
 * can use, policy_impl.h); min and mean over the problem's jobs (jobs
 * times types: cheap). Jobs without an equal-share throughput are
 * skipped. */
static void thr_vs_equal(hs_engine_t *e, const hs_problem_t *pb, const hs_alloc_t *a)
{
	e->eq_jobs = 0;
	double *cap = malloc(((size_t)pb->cluster.ntypes + 1) * sizeof(double));
	if (!cap)
		return;
	for (int j = 0; j < pb->cluster.ntypes; j++)
		cap[j] = pb->cluster.count[j];
	double min = 0, sum = 0;
	int n = 0;
	for (int m = 0; m < pb->njobs && m < a->njobs; m++) {
		double iso = hs_isolated_thr(pb, cap, m);
		double r = iso > 0 ? hs_alloc_effective_thr(a, pb, m) / iso : NAN;
		if (!isfinite(r))
			continue;
		min = n == 0 || r < min ? r : min;
		sum += r;
		n++;
	}
	free(cap);
	e->eq_jobs = n;
	e->eq_min = min;
	e->eq_mean = n ? sum / n : 0;
}

/* The round's policy solve: jobs whose data the solver cannot handle are
 * left out for the round (logged once each) rather than failing the
 * solve, which would freeze the allocation for the whole cluster. */
static int solve_round(hs_engine_t *e, const hs_problem_t *pb, hs_alloc_t *alloc, hs_err_t *se)
{
	unsigned char *left = malloc((size_t)pb->njobs + 1);
	if (!left) {
		memset(alloc, 0, sizeof(*alloc));
		return hs_err_set(se, "out of memory");
	}
	int nl = 0;
	int r = hs_solve_leaving_out(policy_solve, e->policy, pb, alloc, left, &nl, se);
	for (int m = 0; r == 0 && m < pb->njobs; m++)
		if (left[m] && hs_warn_once(e, (uint32_t)strtoul(pb->jobs[m].id, NULL, 10),
					    HS_WARN_UNSOLVABLE))
			hs_engine_logf(e, HS_LOG_ERROR,
				       "job %s left out of policy %s while the solver fails with "
				       "its data (%s); the other %d jobs are scheduled",
				       pb->jobs[m].id, e->conf.policy, se->msg, pb->njobs - nl);
	free(left);
	return r;
}

/* The first problem the policy failed to solve, written for replay with
 * `hetsched solve` (hs_engine_set_save_failed). */
static void save_failed_problem(hs_engine_t *e, const hs_problem_t *pb)
{
	if (!e->save_failed || e->saved_failed)
		return;
	e->saved_failed = 1;
	hs_err_t err = { "" };
	char *text = hs_problem_to_json(pb, &err);
	FILE *f = text ? fopen(e->save_failed, "w") : NULL;
	int ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	free(text);
	hs_engine_logf(e, HS_LOG_ERROR, ok ? "the problem the policy failed on is saved to %s"
			   : "could not save the problem the policy failed on to %s", e->save_failed);
}

/* GpuPrices onto the problem's GPU types (GRES type names); a type
 * without a price keeps 0, which the cost policies refuse with a message
 * naming the type. */
static void set_prices(const hs_engine_t *e, hs_cluster_t *c)
{
	const hs_wlist_t *pr = &e->conf.gpu_prices;
	for (int j = 0; j < c->ntypes; j++)
		for (int i = 0; i < pr->n; i++)
			if (!strcmp(pr->names[i], c->names[j]))
				c->price[j] = pr->w[i];
}

int hs_engine_round(hs_engine_t *e, const hs_snap_t *s, hs_plan_t *plan, hs_err_t *err)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(plan, 0, sizeof(*plan));
	hs_ops_new_round(e);

	hs_round_build_t b;
	hs_warn_prune(e, s);
	int reused = hs_acct_forget_reused(e, s);
	if (reused > 0)
		hs_engine_logf(e, HS_LOG_INFO, "%d job id(s) now belong to new jobs (a slurmctld "
			       "restart lost the old ones): their accounting starts afresh", reused);
	if (e->recover)
		hs_recover_lost(e, s);
	if (hs_build_round(e, s, &b, err) < 0)
		return -1;
	set_prices(e, &b.problem.cluster);
	const hs_problem_t *pb = &b.problem;
	double elapsed = 0;
	if (e->last_round_t > 0 && s->now > e->last_round_t) {
		elapsed = (double)(s->now - e->last_round_t);
		if (elapsed > HS_MAX_CREDIT_S)
			elapsed = HS_MAX_CREDIT_S;
	}
	plan->nactive = b.nactive;
	plan->npinned = b.npinned + b.nresume; /* resumed outside the policy */
	plan->nleaving = b.nleaving;
	plan->nskipped = b.ncut + b.nnofit + b.nunmodelled + b.npinwait;

	if (pb->cluster.ntypes == 0) {
		/* No GPU node in the managed partitions: nothing to decide. */
		if (e->warned_no_types < 0)
			hs_engine_logf(e, HS_LOG_INFO,
				       "no GPU nodes in the managed partitions: GPU jobs wait");
		e->warned_no_types = e->rounds;
		int r = hs_plan_resumes_only(s, &b, plan, e->rounds + 1, err);
		hs_build_free(&b);
		if (r < 0)
			return -1;
		note_round(e, s->now);
		e->rounds++;
		plan->engine_ms = ms_since(&t0);
		return 0;
	}
	e->warned_no_types = -1;

	hs_round_in_t in = { .elapsed_s = elapsed, .problem = pb, .run = b.run, .home = b.home,
			     .nservers = b.nservers, .servers = b.servers,
			     .job_servers = (const unsigned char *const *)b.job_servers };
	int need = hs_mech_begin_round(e->mech, &in, err);
	if (need < 0) {
		hs_build_free(&b);
		return -1;
	}
	/* learned estimates that moved recompute it too, as often as an
	 * arrival would (MinResetInterval) */
	if (!need && e->last_reset_t > 0 && s->now - e->last_reset_t >= e->conf.min_reset_s &&
	    hs_estimates_moved(e, s, &b))
		need = 1;
	hs_alloc_t alloc;
	int have_alloc = 0;
	if (need || e->force_solve) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		hs_err_t se;
		int r;
		if (pb->njobs == 0)
			r = hs_alloc_init(&alloc, 0, pb->cluster.ntypes, &se);
		else
			r = solve_round(e, pb, &alloc, &se);
		plan->solve_ms = ms_since(&ts);
		plan->solved = 1;
		if (r < 0) {
			/* Not fatal: the old allocation stays, the mechanism asks
			 * again next round. */
			hs_alloc_free(&alloc);
			plan->solve_failed = 1;
			e->tot_solve_failed++;
			save_failed_problem(e, pb);
			hs_engine_logf(e, HS_LOG_ERROR, "policy %s failed on %d jobs: %s",
				       e->conf.policy, pb->njobs, se.msg);
		} else {
			have_alloc = 1;
			e->force_solve = 0;
			e->objective = alloc.objective;
			e->have_objective = 1;
			thr_vs_equal(e, pb, &alloc);
		}
	}
	hs_round_out_t out;
	int rc = hs_mech_schedule(e->mech, &in, have_alloc ? &alloc : NULL, &out, err);
	if (rc == 0)
		rc = update_acct(e, s, &b, elapsed, have_alloc ? &alloc : NULL, out.reset, err);
	if (rc == 0) {
		plan->round = out.round;
		plan->reset = out.reset;
		plan->gpus_usable = out.gpus_usable;
		plan->gpus_used = out.gpus_used;
		rc = hs_build_plan(e, s, &b, &out, plan, err);
	}
	if (rc == 0) {
		hs_plan_start_times(e, s, &b, &out, plan);
		hs_ops_mark_suspends(e, plan);
	}
	if (have_alloc)
		hs_alloc_free(&alloc);
	hs_round_out_free(&out);
	hs_build_free(&b);
	if (rc < 0) {
		hs_plan_free(plan);
		return -1;
	}
	note_round(e, s->now);
	e->rounds++;
	hs_reccache_prune(e, e->rounds);
	hs_jmemo_prune(e, e->rounds);
	plan->engine_ms = ms_since(&t0);
	return 0;
}
