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

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-6 * (1 + fabs((double)(b))))

/* Two jobs on one GPU, isolated policy: X = 1/2 each.
 * r0 [0,360):    j0 runs (tie, lower index), 360/720 steps.
 * r1 [360,720):  j0 has priority 0.5/(360/360) = 0.5, j1 0.5e9: j1 runs
 *                360 steps and finishes at 720 (j0 preempted).
 * r2 [720,1080): j0 alone (no reset: 720 s < 1920 s) runs 360 steps and
 *                finishes at 1080.
 * JCT 1080 and 720, average 900, makespan 1080, GPU always busy. FTF: with
 * M = 2 the isolated share is 0.5 step/s, with M = 1 1 step/s: j1 gets
 * 0.5 * 720 = 360 = its steps -> rho 1; j0 0.5 * 720 + 1 * 360 = 720 -> 1. */
static const char *two_jobs =
	"A\tc\td\t-s\t0\t720\t1\t1\t-1\t0\n"
	"A\tc\td\t-s\t0\t360\t1\t1\t-1\t0\n";

static void two_jobs_rounds(void **state)
{
	(void)state;
	hs_sim_opts_t o;
	hs_sim_opts_default(&o);
	o.policy = "isolated";
	o.progress = 0;
	run_t r;
	simulate(&r, "fast:1", two_jobs, &o);
	NEAR(r.res.jobs[0].finish_s, 1080);
	NEAR(r.res.jobs[1].finish_s, 720);
	NEAR(get(r.sum, "avg_jct_s"), 900);
	NEAR(get(r.sum, "makespan_s"), 1080);
	NEAR(get(r.sum, "utilization"), 1.0);
	NEAR(get(r.sum, "ftf_rho.max"), 1.0);
	NEAR(get(r.sum, "ftf_rho.median"), 1.0);
	assert_int_equal((int)get(r.sum, "preemptions"), 1);
	assert_int_equal((int)get(r.sum, "restarts"), 1);
	assert_int_equal((int)get(r.sum, "rounds"), 3);
	assert_int_equal((int)get(r.sum, "jobs_completed"), 2);
	run_free(&r);

	/* A 60 s restart cost: j0 restarts in r2, runs only 300 steps there
	 * (60 left), and finishes 60 s into r3: at 1080 + 60 = 1140. */
	o.mopts.preempt_cost_s = 60;
	simulate(&r, "fast:1", two_jobs, &o);
	NEAR(r.res.jobs[0].finish_s, 1140);
	NEAR(r.res.jobs[1].finish_s, 720);
	NEAR(get(r.sum, "restart_cost_s"), 60);
	run_free(&r);

	/* The fluid ideal: both at 0.5 step/s, j1 done at 720 (j0 at
	 * 360/720), then j0 alone at 1 step/s: done at 1080. */
	o.mopts.preempt_cost_s = 0;
	o.ideal = 1;
	simulate(&r, "fast:1", two_jobs, &o);
	NEAR(r.res.jobs[0].finish_s, 1080);
	NEAR(r.res.jobs[1].finish_s, 720);
	assert_int_equal((int)get(r.sum, "rounds"), 2); /* two fluid intervals */
	run_free(&r);
}

/* A 4-GPU job of 1440 steps: on 2-GPU servers it spans two servers and
 * runs unconsolidated (2 steps/s): 720 s, two full rounds. On a 4-GPU
 * server, or with consolidation = always, 4 steps/s: 360 s. */
static void consolidation(void **state)
{
	(void)state;
	const char *one = "B\tc\td\t-s\t0\t1440\t4\t1\t-1\t0\n";
	hs_sim_opts_t o;
	hs_sim_opts_default(&o);
	o.policy = "max_min_fairness_perf";
	o.progress = 0;
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
}

/* Arrivals wait for the round boundary; the window restricts the
 * measured jobs. j1 arrives at 100 while j0 runs (X = 1, no other job),
 * joins at 360 (no reset yet: 360 s < 1920 s, so X(j1) = 0 and j0, with
 * priority 1, keeps the GPU) until j0 finishes at 720. Then no active job
 * is allocated, the mechanism asks for a new allocation, and j1 runs
 * 720..1080: JCT 980. */
static void window_and_arrivals(void **state)
{
	(void)state;
	const char *text = "A\tc\td\t-s\t0\t720\t1\t1\t-1\t0\n"
			   "A\tc\td\t-s\t0\t360\t1\t1\t-1\t100\n";
	hs_sim_opts_t o;
	hs_sim_opts_default(&o);
	o.policy = "max_min_fairness";
	o.progress = 0;
	o.window_first = o.window_last = 1;
	run_t r;
	simulate(&r, "fast:1", text, &o);
	assert_int_equal((int)get(r.sum, "jobs_measured"), 1);
	NEAR(get(r.sum, "avg_jct_s"), 980);
	NEAR(r.res.jobs[1].first_start_s, 720);
	run_free(&r);
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
	hs_sim_opts_default(&o);
	o.policy = "isolated";
	o.progress = 0;
	assert_int_equal(hs_sim_run(&o, &c, &t, &w, &res, &err), -1);
	assert_non_null(strstr(err.msg, "trace line 2"));
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
