/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sim.c — the simulator end to end on cases small enough to work out
 * by hand (the arithmetic is in the comments), plus the workload
 * generator's determinism and distributions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/report.h"
#include "sim/sim.h"
#include "tests/unit/testdata.h"

/* One GPU type "fast": A runs 1 step/s; B (4 GPUs) 4 steps/s on one
 * server, 2 steps/s spread over servers. */
static const char *table_json =
	"{\"fast\": {\"('A', 1)\": {\"null\": 1.0}, \"('B', 4)\": {\"null\": 4.0}},"
	" \"fast_unconsolidated\": {\"('B', 4)\": {\"null\": 2.0}}}";

typedef struct run {
	hs_sim_result_t res;
	json_object *sum;
} run_t;

static void simulate(run_t *r, const char *cluster, const char *trace_text,
		     const hs_sim_opts_t *o)
{
	hs_err_t err;
	hs_thrtable_t t;
	hs_cluster_t c;
	hs_trace_t tr;
	hs_workload_t w;
	assert_int_equal(hs_thrtable_parse(&t, table_json, &err), 0);
	assert_int_equal(hs_cluster_parse(&c, cluster, &err), 0);
	FILE *f = fmemopen((void *)trace_text, strlen(trace_text), "r");
	if (hs_trace_read(&tr, f, "t", &err) < 0)
		fail_msg("%s", err.msg);
	fclose(f);
	hs_workload_from_trace(&w, &tr);
	if (hs_sim_run(o, &c, &t, &w, &r->res, &err) < 0)
		fail_msg("simulate: %s", err.msg);
	r->sum = hs_sim_summary(&r->res, o, &err);
	assert_non_null(r->sum);
	/* the result keeps borrowed model names: keep trace and table alive
	 * until here, then check what we need before freeing */
	for (long i = 0; i < r->res.njobs; i++)
		r->res.jobs[i].model = NULL;
	r->res.type_names = NULL;
	hs_workload_free(&w);
	hs_trace_free(&tr);
	hs_cluster_free(&c);
	hs_thrtable_free(&t);
}

static void run_free(run_t *r)
{
	json_object_put(r->sum);
	hs_sim_result_free(&r->res);
}

static double get(json_object *o, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	json_object *cur = o;
	for (char *k = strtok(buf, "."); k; k = strtok(NULL, ".")) {
		json_object *next;
		if (!json_object_object_get_ex(cur, k, &next))
			fail_msg("summary has no '%s'", path);
		cur = next;
	}
	return json_object_get_double(cur);
}

/* Options on the plugin's defaults with this policy, quiet. */
static void opts(hs_sim_opts_t *o, const char *policy)
{
	hs_err_t err;
	assert_int_equal(hs_sim_opts_default(o, &err), 0);
	assert_int_equal(hs_sconf_set(&o->conf, "Policy", policy, &err), 0);
	o->progress = 0;
}

static void set(hs_sim_opts_t *o, const char *key, const char *value)
{
	hs_err_t err;
	if (hs_sconf_set(&o->conf, key, value, &err) < 0)
		fail_msg("%s", err.msg);
}

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-6 * (1 + fabs((double)(b))))

/* Two jobs on one GPU, isolated policy (X = 1/2 each), on the plugin's
 * defaults (RoundLength 360, early rounds 10 s after a job leaves,
 * RestartDelay 1, checkpoints acknowledged at once), as the engine runs
 * them second by second:
 *   t=0    round 0: j0 starts (tie, lower id).
 *   t=360  round 1: j0 is checkpointed (360 of 720 steps); j1's start on
 *          the GPU j0 still holds waits (an op).
 *   t=361  tick: j0 is requeued (the step it made since its checkpoint is
 *          lost: 360 done), j1 starts.
 *   t=720  round 2: j1 (359 of 360) is checkpointed; j0 waits for it.
 *   t=721  j1 ends (a second before its requeue would have come); the
 *          tick starts j0 on the freed GPU: 360 steps to go.
 *   t=730  the early round after j1 left (721 + MinRoundInterval, after
 *          the round at 720 + 10) keeps j0, within the lease of its
 *          start at 720.
 *   t=1080 the regular round (720 + 360: early rounds do not move the
 *          regular clock) keeps j0, the only job.
 *   t=1081 j0 ends.
 * JCTs 1081 and 721 (average 901), makespan 1081, the GPU held all the
 * time. Two preemptions (rounds 1 and 2), one restart, 5 rounds. FTF: an
 * equal share is 0.5 step/s while both are there: j1 gets 0.5 * 721 over
 * 360 steps (1.00139); j0 0.5 * 721 + 360 over 720 (1.00069). */
static const char *two_jobs =
	"A\tc\td\t-s\t0\t720\t1\t1\t-1\t0\n"
	"A\tc\td\t-s\t0\t360\t1\t1\t-1\t0\n";

static void two_jobs_rounds(void **state)
{
	(void)state;
	hs_sim_opts_t o;
	opts(&o, "isolated");
	run_t r;
	simulate(&r, "fast:1", two_jobs, &o);
	NEAR(r.res.jobs[0].finish_s, 1081);
	NEAR(r.res.jobs[1].finish_s, 721);
	NEAR(get(r.sum, "avg_jct_s"), 901);
	NEAR(get(r.sum, "makespan_s"), 1081);
	NEAR(get(r.sum, "utilization"), 1.0);
	NEAR(get(r.sum, "ftf_rho.max"), 0.5 * 721 / 360);
	NEAR(get(r.sum, "ftf_rho.median"), (0.5 * 721 + 360) / 720 + (0.5 * 721 / 360 - (0.5 * 721 + 360) / 720) / 2);
	assert_int_equal((int)get(r.sum, "preemptions"), 2);
	assert_int_equal((int)get(r.sum, "restarts"), 1);
	assert_int_equal((int)get(r.sum, "rounds"), 5);
	assert_int_equal((int)get(r.sum, "jobs_completed"), 2);
	run_free(&r);

	/* A 60 s restart (PreemptCost=60, the checkpoint's load 60 s): at
	 * t=720 the restart-aware mechanism keeps j1 (moving it would cost
	 * more than a round's worth to it); j1 ends at 721, the GPU waits
	 * for the early round at 730, where j0 restarts, loads 60 s and ends
	 * at 730 + 60 + 360 = 1150. */
	set(&o, "PreemptCost", "60");
	o.restart_s = 60;
	simulate(&r, "fast:1", two_jobs, &o);
	NEAR(r.res.jobs[0].finish_s, 1150);
	NEAR(r.res.jobs[1].finish_s, 721);
	NEAR(get(r.sum, "restart_cost_s"), 60);
	assert_int_equal((int)get(r.sum, "preemptions"), 1);
	run_free(&r);

	/* The fluid ideal: both at 0.5 step/s, j1 done at 720 (j0 at
	 * 360/720), then j0 alone at 1 step/s: done at 1080. */
	set(&o, "PreemptCost", "0");
	o.restart_s = 0;
	o.ideal = 1;
	simulate(&r, "fast:1", two_jobs, &o);
	NEAR(r.res.jobs[0].finish_s, 1080);
	NEAR(r.res.jobs[1].finish_s, 720);
	assert_int_equal((int)get(r.sum, "rounds"), 2); /* two fluid intervals */
	run_free(&r);
	hs_sim_opts_free(&o);
}

/* A 4-GPU job of 1440 steps: on 2-GPU servers it spans two servers and
 * runs unconsolidated (2 steps/s): 720 s, two full rounds. On a 4-GPU
 * server, or with consolidation = always, 4 steps/s: 360 s. */
static void consolidation(void **state)
{
	(void)state;
	const char *one = "B\tc\td\t-s\t0\t1440\t4\t1\t-1\t0\n";
	hs_sim_opts_t o;
	opts(&o, "max_min_fairness_perf");
	o.gpus_per_server = 2;
	run_t r;
	simulate(&r, "fast:4", one, &o);
	NEAR(get(r.sum, "avg_jct_s"), 720);
	run_free(&r);
	o.consolidation = HS_CONS_ALWAYS;
	simulate(&r, "fast:4", one, &o);
	NEAR(get(r.sum, "avg_jct_s"), 360);
	run_free(&r);
	o.consolidation = HS_CONS_PLACEMENT;
	o.gpus_per_server = 4;
	simulate(&r, "fast:4", one, &o);
	NEAR(get(r.sum, "avg_jct_s"), 360);
	run_free(&r);
	hs_sim_opts_free(&o);
}

/* An arrival brings an early round; the window restricts the measured
 * jobs. j0 runs from 0; j1 arrives at 100: the early round then
 * recomputes the allocation (X = 1/2 each) but keeps j0, whose start at
 * 0 leases its GPU for a round length; the regular round comes at 360,
 * when that lease ends (the early round does not move the regular
 * clock to 100 + 360 = 460): j0 is checkpointed, j1 starts at the tick
 * after (361) and ends at 721: JCT 621. */
static void window_and_arrivals(void **state)
{
	(void)state;
	const char *text = "A\tc\td\t-s\t0\t720\t1\t1\t-1\t0\n"
			   "A\tc\td\t-s\t0\t360\t1\t1\t-1\t100\n";
	hs_sim_opts_t o;
	opts(&o, "max_min_fairness");
	o.window_first = o.window_last = 1;
	run_t r;
	simulate(&r, "fast:1", text, &o);
	assert_int_equal((int)get(r.sum, "jobs_measured"), 1);
	NEAR(get(r.sum, "avg_jct_s"), 621);
	NEAR(r.res.jobs[1].first_start_s, 361);
	run_free(&r);
	hs_sim_opts_free(&o);
}

/* The generator: same seed, same jobs; Gavel's distributions within
 * sampling error over 20000 jobs. */
static void generator(void **state)
{
	(void)state;
	char path[4096];
	if (hs_test_gavel_path(path, sizeof(path), "simulation_throughputs.json") < 0)
		skip();
	hs_thrtable_t t;
	hs_err_t err;
	assert_int_equal(hs_thrtable_load(&t, path, &err), 0);
	hs_gen_opts_t g = { .jobs_per_hour = 4, .multi_gpu = 1, .multi_priority = 1,
			    .njobs = 20000, .seed = 7, .reference_type = "v100" };
	hs_workload_t a, b;
	assert_int_equal(hs_workload_generator(&a, &t, &g, &err), 0);
	assert_int_equal(hs_workload_generator(&b, &t, &g, &err), 0);
	long sf[9] = { 0 }, longjobs = 0, prio5 = 0, n = 0;
	double last = 0, gaps = 0;
	hs_trace_job_t x, y;
	while (hs_workload_next(&a, &x)) {
		assert_int_equal(hs_workload_next(&b, &y), 1);
		assert_string_equal(x.model, y.model);
		assert_true(x.total_steps == y.total_steps && x.arrival_s == y.arrival_s);
		int jt = hs_thrtable_find(&t, x.model, x.scale_factor);
		assert_true(jt >= 0);
		double dur = x.total_steps / hs_thrtable_alone(&t, jt, "v100", 1);
		assert_true(dur >= 60 * pow(10, 1.5) * 0.999 && dur <= 60 * 1e4 * 1.001);
		longjobs += dur > 60 * 1000;
		sf[x.scale_factor]++;
		prio5 += x.weight == 5;
		gaps += x.arrival_s - last;
		last = x.arrival_s;
		n++;
	}
	assert_int_equal(n, 20000);
	assert_int_equal(hs_workload_next(&b, &y), 0);
	/* 3 sigma of a binomial(20000, p) is under 0.01 for these p */
	assert_true(fabs(sf[1] / 20000.0 - 0.70) < 0.01);
	assert_true(fabs(sf[2] / 20000.0 - 0.10) < 0.01);
	assert_true(fabs(sf[4] / 20000.0 - 0.15) < 0.01);
	assert_true(fabs(sf[8] / 20000.0 - 0.05) < 0.01);
	assert_true(fabs(longjobs / 20000.0 - 0.20) < 0.01);
	assert_true(fabs(prio5 / 20000.0 - 0.20) < 0.01);
	/* mean gap 900 s at 4 jobs/hour; the sample mean's sd is 900/sqrt(n) */
	assert_true(fabs(gaps / 19999 - 900) < 30);
	/* a different seed gives a different workload */
	hs_workload_free(&b);
	g.seed = 8;
	assert_int_equal(hs_workload_generator(&b, &t, &g, &err), 0);
	hs_workload_free(&a);
	g.seed = 7;
	assert_int_equal(hs_workload_generator(&a, &t, &g, &err), 0);
	int differ = 0;
	for (int i = 0; i < 10; i++) {
		hs_workload_next(&a, &x);
		hs_workload_next(&b, &y);
		differ |= x.total_steps != y.total_steps;
	}
	assert_true(differ);
	hs_workload_free(&a);
	hs_workload_free(&b);
	/* single-GPU workloads have scale factor 1 only; static ones t = 0 */
	g.multi_gpu = 0;
	g.jobs_per_hour = 0;
	g.njobs = 500;
	assert_int_equal(hs_workload_generator(&a, &t, &g, &err), 0);
	while (hs_workload_next(&a, &x)) {
		assert_int_equal(x.scale_factor, 1);
		assert_true(x.arrival_s == 0);
	}
	hs_workload_free(&a);
	g.reference_type = "nosuch";
	assert_int_equal(hs_workload_generator(&a, &t, &g, &err), -1);
	hs_workload_free(&a);
	hs_thrtable_free(&t);
}

/* A trace job whose type is not in the table is an error naming the line. */
static void unknown_job_type(void **state)
{
	(void)state;
	hs_err_t err;
	hs_thrtable_t t;
	hs_cluster_t c;
	hs_trace_t tr;
	hs_workload_t w;
	hs_sim_result_t res;
	assert_int_equal(hs_thrtable_parse(&t, table_json, &err), 0);
	assert_int_equal(hs_cluster_parse(&c, "fast:1", &err), 0);
	const char *text = "A\tc\td\t-s\t0\t10\t1\t1\t-1\t0\nZ\tc\td\t-s\t0\t10\t1\t1\t-1\t0\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	assert_int_equal(hs_trace_read(&tr, f, "t", &err), 0);
	fclose(f);
	hs_workload_from_trace(&w, &tr);
	hs_sim_opts_t o;
	opts(&o, "isolated");
	assert_int_equal(hs_sim_run(&o, &c, &t, &w, &res, &err), -1);
	assert_non_null(strstr(err.msg, "trace line 2"));
	hs_sim_opts_free(&o);
	hs_sim_result_free(&res);
	hs_workload_free(&w);
	hs_trace_free(&tr);
	hs_cluster_free(&c);
	hs_thrtable_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_jobs_rounds),
		cmocka_unit_test(consolidation),
		cmocka_unit_test(window_and_arrivals),
		cmocka_unit_test(generator),
		cmocka_unit_test(unknown_job_type),
	};
	return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
