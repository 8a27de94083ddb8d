/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_strategy.c — strategic users in the simulator (sim/strategy.h):
 * --strategy parsing; the workload transforms (split into array tasks
 * of the same total steps, pinned jobs), with the honest user's jobs
 * unchanged; what the simulated Slurm shows the engine (HS_STEPS,
 * HS_MODEL, shape_ok, array_id, the measured rates of the record) while
 * the job runs at its true speed; and whole runs (the odd shape started
 * by the fill, a split user's submissions counted once). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/record.h"
#include "sim/report.h"
#include "sim/sim.h"
#include "sim/strategy.h"
#include "sim/world.h"

/* Two types. A: 10 steps/s on fast, 1 on slow (ratio 10); C: ratio 2;
 * D: ratio 100. */
static const char *table_json =
	"{\"fast\": {\"('A', 1)\": {\"null\": 10.0}, \"('C', 1)\": {\"null\": 2.0},"
	"            \"('D', 1)\": {\"null\": 100.0}},"
	" \"slow\": {\"('A', 1)\": {\"null\": 1.0}, \"('C', 1)\": {\"null\": 1.0},"
	"            \"('D', 1)\": {\"null\": 1.0}}}";

static void users_with(hs_sim_users_t *u, const char *strategy)
{
	hs_err_t err = { "" };
	hs_sim_users_init(u);
	assert_int_equal(hs_sim_users_parse(u, "alice:0.5,bob:0.5", NULL, &err), 0);
	if (strategy && hs_sim_users_strategy(u, strategy, &err) < 0)
		fail_msg("%s", err.msg);
}

static void parse(void **state)
{
	(void)state;
	static const struct { const char *spec, *text; } good[] = {
		{ "honest", "honest" }, { "no-preempt", "no-preempt" }, { "split", "split=8" },
		{ "split=3", "split=3" }, { "ratio-slow", "ratio-slow=10" },
		{ "ratio-fast=2.5", "ratio-fast=2.5" }, { "fake-model", "fake-model=max" },
		{ "fake-model=LM (batch size 5)", "fake-model=LM (batch size 5)" },
		{ "inflate-steps=0.1", "inflate-steps=0.1" }, { "odd-shape", "odd-shape" },
		{ "no-requeue", "no-requeue" }, { "drop-requeue", "drop-requeue" },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		hs_sim_strategy_t s;
		hs_err_t err = { "" };
		char buf[200];
		if (hs_sim_strategy_parse(&s, good[i].spec, &err) < 0)
			fail_msg("'%s': %s", good[i].spec, err.msg);
		hs_sim_strategy_format(&s, buf, sizeof(buf));
		assert_string_equal(buf, good[i].text);
	}
	static const struct { const char *spec, *expect; } bad[] = {
		{ "lie", "unknown strategy 'lie'" }, { "", "unknown strategy" },
		{ "split=1", "integer in [2," }, { "split=2.5", "integer in [2," },
		{ "split=1001", "integer in [2," }, { "ratio-slow=0", "(0, 1e6]" },
		{ "ratio-fast=nan", "(0, 1e6]" }, { "inflate-steps=x", "(0, 1e6]" },
		{ "fake-model=", "max, min or a model" }, { "odd-shape=1", "takes no argument" },
		{ "honest=", "takes no argument" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hs_sim_strategy_t s;
		hs_err_t err = { "" };
		assert_int_equal(hs_sim_strategy_parse(&s, bad[i].spec, &err), -1);
		if (!strstr(err.msg, bad[i].expect))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].spec, err.msg, bad[i].expect);
	}
	/* per user: the user must exist; the other users stay honest */
	hs_sim_users_t u;
	users_with(&u, "bob:split=4");
	assert_int_equal(u.users[0].strategy.kind, HS_STRAT_HONEST);
	assert_int_equal(u.users[1].strategy.kind, HS_STRAT_SPLIT);
	hs_err_t err = { "" };
	assert_int_equal(hs_sim_users_strategy(&u, "carol:split", &err), -1);
	assert_non_null(strstr(err.msg, "no user 'carol'"));
	assert_int_equal(hs_sim_users_strategy(&u, "bob", &err), -1);
	assert_int_equal(hs_sim_users_strategy(&u, ":split", &err), -1);
	assert_int_equal(hs_sim_users_strategy(&u, "bob:nope", &err), -1);
	hs_sim_users_free(&u);
}

typedef struct gen {
	long n;
	hs_trace_job_t jobs[64];
} gen_t;

/* The generated workload of 10 jobs (seed 3, 60 jobs/hour) with these
 * users; the user names are compared by pointer-free strcmp later. */
static void generate(gen_t *out, const hs_sim_users_t *u, long *size)
{
	hs_err_t err;
	hs_thrtable_t t;
	assert_int_equal(hs_thrtable_parse(&t, table_json, &err), 0);
	hs_gen_opts_t g = { .jobs_per_hour = 60, .njobs = 10, .seed = 3,
			    .reference_type = "fast" };
	hs_workload_t w;
	if (hs_workload_generator(&w, &t, &g, &err) < 0)
		fail_msg("%s", err.msg);
	w.users = u;
	*size = hs_workload_size(&w);
	out->n = 0;
	hs_trace_job_t j;
	while (hs_workload_next(&w, &j)) {
		assert_true(out->n < 64);
		assert_true(hs_workload_peek(&w) < 0 || hs_workload_peek(&w) >= j.arrival_s);
		j.model = NULL; /* borrowed from the table */
		out->jobs[out->n++] = j;
	}
	hs_workload_free(&w);
	hs_thrtable_free(&t);
}

static void split_and_pin(void **state)
{
	(void)state;
	hs_sim_users_t hu, su, pu;
	users_with(&hu, NULL);
	users_with(&su, "bob:split=4");
	users_with(&pu, "bob:no-preempt");
	gen_t *h = calloc(3, sizeof(gen_t)), *s = h + 1, *p = h + 2;
	long hsize, ssize, psize;
	generate(h, &hu, &hsize);
	generate(s, &su, &ssize);
	generate(p, &pu, &psize);
	assert_int_equal(hsize, 10);
	assert_int_equal(h->n, 10);
	assert_int_equal(ssize, 5 + 5 * 4); /* bob's 5 jobs are 4 tasks each */
	assert_int_equal(s->n, ssize);
	/* the same jobs in the same order; bob's as 4 tasks of 1/4 each */
	long k = 0;
	double steps[2][2] = { { 0, 0 }, { 0, 0 } };
	for (long i = 0; i < h->n; i++) {
		const hs_trace_job_t *o = &h->jobs[i];
		int bob = !strcmp(o->user, "bob");
		int n = bob ? 4 : 1;
		steps[bob][0] += o->total_steps;
		for (int task = 0; task < n; task++, k++) {
			const hs_trace_job_t *x = &s->jobs[k];
			assert_string_equal(x->user, o->user);
			assert_true(x->arrival_s == o->arrival_s);
			assert_int_equal(x->scale_factor, o->scale_factor);
			assert_int_equal(x->array_tasks, bob ? 4 : 0);
			assert_int_equal(x->array_task, bob ? task : 0);
			assert_true(fabs(x->total_steps - o->total_steps / n) < 1e-9 * o->total_steps);
			steps[bob][1] += x->total_steps;
		}
		/* no-preempt: bob's jobs pinned, alice's not, nothing else */
		assert_int_equal(p->jobs[i].pinned, bob);
		assert_true(p->jobs[i].total_steps == o->total_steps);
		assert_int_equal(h->jobs[i].pinned, 0);
	}
	assert_int_equal(k, s->n);
	for (int b = 0; b < 2; b++)
		assert_true(fabs(steps[b][0] - steps[b][1]) < 1e-6 * steps[b][0]);
	free(h);
	hs_sim_users_free(&hu);
	hs_sim_users_free(&su);
	hs_sim_users_free(&pu);
}

static const char *env_of(const hs_sjob_t *sj, const char *key)
{
	size_t n = strlen(key);
	for (uint32_t e = 0; e < sj->nenv; e++)
		if (!strncmp(sj->env[e], key, n) && sj->env[e][n] == '=')
			return sj->env[e] + n + 1;
	return NULL;
}

typedef struct wfix {
	hs_thrtable_t t;
	hs_cluster_t c;
	hs_sim_users_t u;
	hs_sim_result_t res;
	hs_world_t *w;
} wfix_t;

/* A world of fast:1,slow:1 in which alice and then bob (strategy)
 * submit one job of model A, 1000 steps, at t = 0. */
static void world_two(wfix_t *f, const char *strategy)
{
	hs_err_t err;
	memset(f, 0, sizeof(*f));
	assert_int_equal(hs_thrtable_parse(&f->t, table_json, &err), 0);
	assert_int_equal(hs_cluster_parse(&f->c, "fast:1,slow:1", &err), 0);
	users_with(&f->u, strategy);
	hs_world_opts_t o = { .cluster = &f->c, .table = &f->t, .gpus_per_server = 1,
			      .measure = 1, .users = &f->u };
	f->w = hs_world_new(&o, &f->res, &err);
	assert_non_null(f->w);
	for (int i = 0; i < 2; i++) {
		hs_trace_job_t tj = { .model = "A", .total_steps = 1000, .scale_factor = 1,
				      .weight = 1, .slo = -1, .user = i ? "bob" : "alice" };
		if (hs_world_submit(f->w, &tj, 1, &err) != 0)
			fail_msg("%s", err.msg);
	}
}

static void world_free(wfix_t *f)
{
	hs_world_free(f->w);
	hs_sim_result_free(&f->res);
	hs_sim_users_free(&f->u);
	hs_cluster_free(&f->c);
	hs_thrtable_free(&f->t);
}

/* The snapshot's alice (jobs[0]) and bob (jobs[1]) under a strategy. */
static void declared(const char *strategy, const char *steps, const char *model, int shape_ok)
{
	wfix_t f;
	hs_snap_t s;
	hs_err_t err;
	world_two(&f, strategy);
	assert_int_equal(hs_world_snapshot(f.w, HS_SIM_EPOCH, &s, &err), 0);
	assert_int_equal(s.njobs, 2);
	assert_string_equal(env_of(&s.jobs[0], "HS_STEPS"), "1000");
	assert_string_equal(env_of(&s.jobs[0], "HS_MODEL"), "A");
	assert_int_equal(s.jobs[0].shape_ok, 1);
	assert_string_equal(env_of(&s.jobs[1], "HS_STEPS"), steps);
	assert_string_equal(env_of(&s.jobs[1], "HS_MODEL"), model);
	assert_int_equal(s.jobs[1].shape_ok, shape_ok);
	hs_world_snapshot_done(&s);
	/* the truth is unchanged: bob's job is still A, 1000 steps */
	assert_int_equal(f.res.jobs[1].jt, f.res.jobs[0].jt);
	assert_true(f.res.jobs[1].total_steps == 1000);
	world_free(&f);
}

static void declarations(void **state)
{
	(void)state;
	declared(NULL, "1000", "A", 1);
	declared("bob:inflate-steps", "10000", "A", 1);
	declared("bob:inflate-steps=3", "3000", "A", 1);
	declared("bob:fake-model", "1000", "D", 1);      /* ratio 100 > 10 */
	declared("bob:fake-model=min", "1000", "C", 1);  /* ratio 2 */
	declared("bob:fake-model=C", "1000", "C", 1);
	declared("bob:odd-shape", "1000", "A", 0);
	declared("bob:no-requeue", "1000", "A", 1);
	{ /* --no-requeue shows in the snapshot as Slurm's requeue=0 */
		wfix_t g;
		hs_snap_t s;
		hs_err_t e2;
		world_two(&g, "bob:no-requeue");
		assert_int_equal(hs_world_snapshot(g.w, HS_SIM_EPOCH, &s, &e2), 0);
		assert_int_equal(s.jobs[0].requeue_ok, 1);
		assert_int_equal(s.jobs[1].requeue_ok, 0);
		hs_world_snapshot_done(&s);
		world_free(&g);
	}
	wfix_t f;
	hs_err_t err;
	memset(&f, 0, sizeof(f));
	assert_int_equal(hs_thrtable_parse(&f.t, table_json, &err), 0);
	assert_int_equal(hs_cluster_parse(&f.c, "fast:1,slow:1", &err), 0);
	users_with(&f.u, "bob:fake-model=Z");
	hs_world_opts_t o = { .cluster = &f.c, .table = &f.t, .gpus_per_server = 1,
			      .users = &f.u };
	f.w = hs_world_new(&o, &f.res, &err);
	hs_trace_job_t tj = { .model = "A", .total_steps = 10, .scale_factor = 1, .weight = 1,
			      .slo = -1, .user = "bob" };
	assert_int_equal(hs_world_submit(f.w, &tj, 1, &err), -1);
	assert_non_null(strstr(err.msg, "fake-model=Z"));
	world_free(&f);
}

/* Starts both jobs (alice on fast, bob on slow), runs them 90 s: the
 * measured rates in the records, and the true progress. */
static void reported(const char *strategy, double alice_sps, double bob_sps, double bob_steps)
{
	wfix_t f;
	world_two(&f, strategy);
	hs_act_t a[2] = {
		{ .kind = HS_DO_START, .id = 1, .job = 1, .plan = -1, .where = HS_WHERE_TYPE,
		  .type = "fast" },
		{ .kind = HS_DO_START, .id = 2, .job = 2, .plan = -1, .where = HS_WHERE_TYPE,
		  .type = "slow" },
	};
	hs_acts_t b = { .n = 2, .cap = 2, .a = a };
	hs_world_exec(f.w, &b, HS_SIM_EPOCH);
	assert_int_equal(a[0].out, HS_OUT_DONE);
	assert_int_equal(a[1].out, HS_OUT_DONE);
	hs_world_advance(f.w, 90, NAN); /* alice ends at 100 */
	hs_snap_t s;
	hs_err_t err;
	assert_int_equal(hs_world_snapshot(f.w, HS_SIM_EPOCH + 90, &s, &err), 0);
	assert_int_equal(s.njobs, 2);
	const hs_record_thr_t *ra = hs_record_thr_find(s.jobs[0].record, "fast");
	const hs_record_thr_t *rb = hs_record_thr_find(s.jobs[1].record, "slow");
	assert_non_null(ra);
	assert_non_null(rb);
	assert_true(fabs(ra->sps - alice_sps) < 1e-9);
	assert_true(fabs(rb->sps - bob_sps) < 1e-9);
	hs_world_snapshot_done(&s);
	assert_true(fabs(f.res.jobs[1].done_steps - bob_steps) < 1e-6);
	world_free(&f);
}

static void reports(void **state)
{
	(void)state;
	reported(NULL, 10, 1, 90);
	/* 10x on its slow type: reported 10, still 1 step/s */
	reported("bob:ratio-slow", 10, 10, 90);
	reported("bob:ratio-slow=4", 10, 4, 90);
	/* ratio-fast lies on the fast type only: its slow report is true */
	reported("bob:ratio-fast", 10, 1, 90);
	double thr[2] = { 10, 1 };
	hs_sim_strategy_t s;
	hs_err_t err;
	assert_int_equal(hs_sim_strategy_parse(&s, "ratio-fast=3", &err), 0);
	assert_true(hs_sim_strategy_report(&s, thr, 2, 0, 10) == 30);
	assert_true(hs_sim_strategy_report(&s, thr, 2, 1, 1) == 1);
}

/* Whole runs on fast:1,slow:1: the odd shape's jobs are started by the
 * fill (without it they would never start: the run fails), and a split
 * user's submissions count once. */
static void whole_runs(void **state)
{
	(void)state;
	/* suspend: PreemptMode=suspend. With jobs that cannot be moved the
	 * pairs time-slice; these runs did not finish when a running job's
	 * suspended partner still slowed it to the pair rate (world_run.c)
	 * and when a held-back start left a pair's GPU idle for good
	 * (engine_plan_share.c hold_back) */
	static const struct { const char *strategy; long njobs; int suspend; } cases[] = {
		{ NULL, 8, 0 }, { "bob:odd-shape", 8, 0 }, { "bob:split=3", 4 + 4 * 3, 0 },
		{ "bob:no-preempt", 8, 0 }, { "bob:ratio-slow", 8, 0 }, { "bob:fake-model", 8, 0 },
		{ "bob:inflate-steps", 8, 0 }, { "bob:no-requeue", 8, 0 },
		{ NULL, 8, 1 }, { "bob:no-requeue", 8, 1 }, { "bob:no-preempt", 8, 1 },
		{ "bob:drop-requeue", 8, 0 }, { "bob:drop-requeue", 8, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hs_err_t err;
		hs_thrtable_t t;
		hs_cluster_t c;
		hs_sim_users_t u;
		hs_sim_opts_t o;
		hs_sim_result_t res;
		hs_workload_t w;
		assert_int_equal(hs_thrtable_parse(&t, table_json, &err), 0);
		assert_int_equal(hs_cluster_parse(&c, "fast:1,slow:1", &err), 0);
		users_with(&u, cases[i].strategy);
		assert_int_equal(hs_sim_opts_default(&o, &err), 0);
		o.progress = 0;
		o.users = &u;
		if (cases[i].suspend)
			o.conf.preempt = HS_PREEMPT_SUSPEND;
		/* every run here ends by 6e6 s (no-preempt's last); a job
		 * nobody starts would keep the rounds going for ever: stop
		 * and fail instead */
		o.max_time_s = 2e7;
		hs_gen_opts_t g = { .jobs_per_hour = 20, .njobs = 8, .seed = 1,
				    .reference_type = "fast" };
		assert_int_equal(hs_workload_generator(&w, &t, &g, &err), 0);
		w.users = &u;
		if (hs_sim_run(&o, &c, &t, &w, &res, &err) < 0)
			fail_msg("%s: %s", cases[i].strategy, err.msg);
		assert_int_equal(res.njobs, cases[i].njobs);
		if (!res.finished)
			fail_msg("%s: unfinished at %.0f s", cases[i].strategy, res.end_s);
		json_object *sum = hs_sim_summary(&res, &o, &err);
		assert_non_null(sum);
		json_object *us, *bob, *v;
		assert_true(json_object_object_get_ex(sum, "users", &us));
		assert_true(json_object_object_get_ex(us, "bob@sim", &bob));
		assert_true(json_object_object_get_ex(bob, "works_completed", &v));
		assert_int_equal(json_object_get_int(v), 4);
		assert_true(json_object_object_get_ex(bob, "jobs_completed", &v));
		assert_int_equal(json_object_get_int(v), (cases[i].njobs - 4));
		json_object_put(sum);
		/* --no-requeue: Slurm could not requeue bob's jobs, and the
		 * engine never asked (a refused requeue would be a restart
		 * here too, as the world counts what it was told) */
		for (long k = 0; cases[i].strategy && !strcmp(cases[i].strategy, "bob:no-requeue") &&
				 !cases[i].suspend && k < res.njobs; k++)
			if (res.jobs[k].user == 1 && (res.jobs[k].preemptions || res.jobs[k].restarts))
				fail_msg("no-requeue: bob's job %ld preempted %ld times", k,
					 res.jobs[k].preemptions);
		for (long k = 0; k < res.njobs; k++)
			res.jobs[k].model = NULL;
		res.type_names = NULL;
		hs_sim_result_free(&res);
		hs_workload_free(&w);
		hs_sim_opts_free(&o);
		hs_sim_users_free(&u);
		hs_cluster_free(&c);
		hs_thrtable_free(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse),
		cmocka_unit_test(split_and_pin),
		cmocka_unit_test(declarations),
		cmocka_unit_test(reports),
		cmocka_unit_test(whole_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
