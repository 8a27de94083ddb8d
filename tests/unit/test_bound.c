/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_bound.c — bounds on what a job claims (sched/bound.h, issue 28):
 * the rules alone (table and kind factors, ratios between types to a
 * fixpoint, remaining work, the tables' and a learning scope's ratios),
 * then through the engine: a job claiming an implausible speed-up
 * between types, one declaring more work than its time limit allows, one
 * far from its table model, and one user's reports leaving another
 * user's estimates alone unless LearnScope says so. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/bound.h"
#include "sched/learn.h"
#include "sched_fixtures.h"

static void measured_bounds(void **state)
{
	(void)state;
	double table[3] = { 10, 0, 4 }, kind[3] = { 0, 2, 0 };
	hs_bound_in_t in = { .ntypes = 3, .table = table, .kind = kind, .table_factor = 100,
			     .kind_factor = 10, .ratio_tol = 1.25, .ratio_max = 100 };
	double v[3] = { 5000, 50, 0.01 };
	unsigned bits = hs_bound_measured(&in, v);
	assert_int_equal(bits, HS_BOUND_TABLE | HS_BOUND_KIND);
	assert_float_equal(v[0], 1000, 1e-9);  /* 100 x the table */
	assert_float_equal(v[1], 20, 1e-9);    /* 10 x its kind */
	assert_float_equal(v[2], 0.04, 1e-12); /* the table / 100 */
	/* within the factors: untouched; 0 = not measured stays 0 */
	double w[3] = { 900, 0, 4 };
	assert_int_equal(hs_bound_measured(&in, w), 0);
	assert_float_equal(w[0], 900, 0);
	assert_float_equal(w[1], 0, 0);
	/* RateTableFactor=0: off */
	in.table_factor = 0;
	double x[3] = { 5000, 2, 4 };
	assert_int_equal(hs_bound_measured(&in, x), 0);
	assert_float_equal(x[0], 5000, 0);
}

static void ratio_bounds(void **state)
{
	(void)state;
	/* types a, b, c: a/b seen 3, b/c seen 2, a/c never (ceiling 100) */
	double maxr[9] = { 0 };
	maxr[0 * 3 + 1] = 3;
	maxr[1 * 3 + 2] = 2;
	maxr[1 * 3 + 0] = 0.5; /* b always slower than a */
	hs_bound_in_t in = { .ntypes = 3, .maxr = maxr, .ratio_tol = 1.25, .ratio_max = 100 };
	double v[3] = { 100, 10, 10 };
	assert_int_equal(hs_bound_ratios(&in, v), HS_BOUND_RATIO);
	assert_float_equal(v[0], 37.5, 1e-9); /* 10 x 3 x 1.25 */
	assert_float_equal(v[1], 10, 0);
	assert_float_equal(v[2], 10, 0);
	/* a chain: b over c capped first, then a over the lowered b */
	double w[3] = { 1000, 1000, 1 };
	hs_bound_ratios(&in, w);
	assert_float_equal(w[1], 2.5, 1e-9);
	assert_float_equal(w[0], 2.5 * 3.75, 1e-9);
	/* a seen ratio below 1 still allows equal rates within tolerance */
	double x[3] = { 10, 12, 0 };
	assert_int_equal(hs_bound_ratios(&in, x), 0);
	double y[3] = { 10, 13, 0 };
	assert_int_equal(hs_bound_ratios(&in, y), HS_BOUND_RATIO);
	assert_float_equal(y[1], 12.5, 1e-9);
	/* nothing seen anywhere: the ceiling alone, both directions */
	hs_bound_in_t none = { .ntypes = 2, .ratio_tol = 1.25, .ratio_max = 100 };
	double z[2] = { 1, 1e5 };
	assert_int_equal(hs_bound_ratios(&none, z), HS_BOUND_RATIO);
	assert_float_equal(z[1], 100, 1e-9);
	/* a ceiling below seen x tolerance wins */
	in.ratio_max = 2;
	double u[3] = { 100, 10, 0 };
	hs_bound_ratios(&in, u);
	assert_float_equal(u[0], 20, 1e-9);
}

static void steps_bound(void **state)
{
	(void)state;
	unsigned f = 0;
	assert_float_equal(hs_bound_steps(1e15, 3600, 10, &f), 36000, 1e-6);
	assert_int_equal(f, HS_BOUND_STEPS);
	f = 0;
	assert_float_equal(hs_bound_steps(1000, 3600, 10, &f), 1000, 0);
	assert_float_equal(hs_bound_steps(1e15, 0, 10, &f), 1e15, 0); /* no time limit */
	assert_int_equal(f, 0);
	char names[64];
	hs_bound_names(HS_BOUND_RATIO | HS_BOUND_STEPS, names, sizeof(names));
	assert_string_equal(names, "ratio,steps");
}

static void table_ratios(void **state)
{
	(void)state;
	hs_thrtable_t t;
	hs_err_t err;
	const char *json = "{\"v100\": {\"('A', 1)\": {\"null\": 30.0}, \"('B', 1)\": {\"null\": 8.0}},"
			   " \"k80\": {\"('A', 1)\": {\"null\": 10.0}, \"('B', 1)\": {\"null\": 4.0}}}";
	assert_int_equal(hs_thrtable_parse(&t, json, &err), 0);
	const char *names[3] = { "k80", "v100", "p100" };
	double maxr[9] = { 0 };
	hs_bound_table_ratios(&t, 1, names, 3, maxr);
	assert_float_equal(maxr[1 * 3 + 0], 3.0, 1e-12); /* v100 / k80: A's */
	assert_float_equal(maxr[0 * 3 + 1], 0.5, 1e-12); /* k80 / v100: B's */
	assert_float_equal(maxr[2 * 3 + 0], 0, 0);       /* p100: not in the table */
	hs_thrtable_free(&t);
}

/* Three samples of kind on sf 1: rate v100 = r * k80 (k80 = 10). */
static void learn3(hs_learn_t *l, const char *kind, double r)
{
	for (int i = 0; i < 3; i++) {
		hs_learn_observe(l, kind, 1, "k80", 10, 100 + i);
		hs_learn_observe(l, kind, 1, "v100", 10 * r, 100 + i);
	}
}

static void learned_ratios(void **state)
{
	(void)state;
	hs_learn_t l;
	hs_learn_init(&l, 0);
	learn3(&l, "u=1/n=a", 3);
	learn3(&l, "u=1/n=liar", 50);
	learn3(&l, "u=2/n=big", 80);
	const char *types[2] = { "v100", "k80" };
	double m[4] = { 0 };
	/* the liar's own reports do not widen its bound: user 1's other kind */
	hs_learn_max_ratios(&l, "u=1/n=liar", 1, types, 2, m);
	assert_float_equal(m[0 * 2 + 1], 3, 1e-9);
	/* any other kind of user 1 sees the liar's 50; never user 2's 80 */
	memset(m, 0, sizeof(m));
	hs_learn_max_ratios(&l, "u=1/n=new", 1, types, 2, m);
	assert_float_equal(m[0 * 2 + 1], 50, 1e-9);
	assert_float_equal(m[1 * 2 + 0], 1.0 / 3, 1e-9);
	/* cells of fewer than HS_LEARN_CONFIDENT samples do not count */
	hs_learn_observe(&l, "u=3/n=one", 1, "k80", 1, 100);
	hs_learn_observe(&l, "u=3/n=one", 1, "v100", 1000, 100);
	memset(m, 0, sizeof(m));
	hs_learn_max_ratios(&l, "u=3/n=x", 1, types, 2, m);
	assert_float_equal(m[0 * 2 + 1], 0, 0);
	hs_learn_free(&l);
}

/* ---- through the engine ---------------------------------------------------- */

static void logger(void *arg, int level, const char *msg)
{
	(void)level;
	if (arg && strstr(msg, "bounded"))
		++*(int *)arg;
}

static json_object *job_doc(json_object *st, int id)
{
	json_object *j = fx_status_job(st, id);
	if (!j)
		fail_msg("job %d not in the status", id);
	return j;
}

static double thr_of(json_object *j, const char *type)
{
	double v = fx_status_thr(j, type);
	assert_true(v >= 0);
	return v;
}

static const char *bounded_of(json_object *j)
{
	json_object *v;
	return json_object_object_get_ex(j, "bounded", &v) ? json_object_get_string(v) : "";
}

/* An engine on the defaults plus conf, counting "bounded" log lines
 * into *logged. */
static hs_engine_t *engine_counting(const char *conf, int *logged)
{
	hs_sconf_t c;
	hs_err_t err;
	assert_int_equal(hs_sconf_defaults(&c, &err), 0);
	assert_int_equal(hs_sconf_parse_text(&c, "RestartDelay=0", &err), 0);
	if (conf)
		assert_int_equal(hs_sconf_parse_text(&c, conf, &err), 0);
	hs_engine_t *e = hs_engine_new(&c, logger, logged, &err);
	hs_sconf_free(&c);
	assert_non_null(e);
	return e;
}

static json_object *round_status(fx_t *f, hs_engine_t *e)
{
	json_object *st = fx_round_status(f, e);
	assert_non_null(st);
	return st;
}

/* A job claiming v100 10,000 times its k80 rate, where nothing has shown
 * such a speed-up: capped at RateRatioMax (100), logged once, in the
 * status; then one of its user's kinds shows 3 (three reports): capped
 * at 3 x RateRatioTolerance. */
static void engine_ratio_lie(void **state)
{
	(void)state;
	fx_t f;
	int logged = 0;
	fx_init(&f, "v100:1:2,k80:1:2");
	fx_job_t *liar = fx_add(&f, 101, 1);
	liar->name = "liar";
	liar->uid = 1000;
	liar->ckpt = 1; /* preemptible: in every round's problem */
	fx_measure(liar, "v100", 10000);
	fx_measure(liar, "k80", 1);
	hs_engine_t *e = engine_counting(NULL, &logged);
	json_object *st = round_status(&f, e);
	json_object *j = job_doc(st, 101);
	assert_float_equal(thr_of(j, "v100"), 100, 1e-9);
	assert_float_equal(thr_of(j, "k80"), 1, 1e-12);
	assert_string_equal(bounded_of(j), "ratio");
	json_object_put(st);
	assert_int_equal(logged, 1);
	f.now += 360;
	json_object_put(round_status(&f, e));
	assert_int_equal(logged, 1); /* once, not every round */

	for (uint32_t id = 102; id <= 104; id++) {
		fx_job_t *h = fx_add(&f, id, 1);
		h->name = "honest";
		h->uid = 1000;
		h->ckpt = 1;
		fx_measure(h, "v100", 30);
		fx_measure(h, "k80", 10);
	}
	f.now += 360;
	st = round_status(&f, e);
	assert_float_equal(thr_of(job_doc(st, 101), "v100"), 3.75, 1e-9);
	assert_string_equal(bounded_of(job_doc(st, 102)), ""); /* honest: as measured */
	assert_float_equal(thr_of(job_doc(st, 102), "v100"), 30, 1e-9);
	json_object_put(st);
	hs_engine_free(e);
}

/* HS_STEPS far beyond what the time limit allows at the job's rate:
 * remaining work is the time limit's worth, not 10^11 seconds. */
static void engine_steps(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1), *b = fx_add(&f, 2, 1);
	a->steps = b->steps = 1000000000000L;
	a->time_limit_min = 60;
	fx_measure(a, "v100", 10);
	fx_measure(b, "v100", 10);
	hs_engine_t *e = fx_engine("Policy=min_total_duration", logger);
	json_object *st = round_status(&f, e);
	json_object *ja = job_doc(st, 1), *v;
	assert_string_equal(bounded_of(ja), "steps");
	assert_true(json_object_object_get_ex(ja, "remaining_s", &v));
	assert_true(json_object_get_double(v) <= 3600 + 1e-6);
	/* no time limit: nothing to bound by */
	assert_string_equal(bounded_of(job_doc(st, 2)), "");
	json_object_put(st);
	hs_engine_free(e);
}

/* A job of a table model measuring a million times its table value:
 * RateTableFactor (100) x the table; RateTableFactor=0 turns it off. */
static void engine_table(void **state)
{
	(void)state;
	char path[] = "/tmp/hs_test_bound_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *json = "{\"v100\": {\"('M', 1)\": {\"null\": 30.0}},"
			   " \"k80\": {\"('M', 1)\": {\"null\": 10.0}}}";
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	char conf[256];
	for (int on = 1; on >= 0; on--) {
		snprintf(conf, sizeof(conf), "ThroughputTable=%s\nRateTableFactor=%s", path,
			 on ? "100" : "0");
		fx_t f;
		fx_init(&f, "v100:1:2,k80:1:2");
		fx_job_t *a = fx_add(&f, 1, 1);
		snprintf(a->model, sizeof(a->model), "M");
		fx_measure(a, "v100", 3e7);
		hs_engine_t *e = fx_engine(conf, logger);
		json_object *st = round_status(&f, e);
		json_object *j = job_doc(st, 1);
		assert_float_equal(thr_of(j, "v100"), on ? 3000 : 3e7, 1e-6);
		/* k80 from the table, scaled like the measured type */
		assert_float_equal(thr_of(j, "k80"), on ? 1000 : 1e7, 1e-6);
		assert_string_equal(bounded_of(j), on ? "table" : "");
		json_object_put(st);
		hs_engine_free(e);
	}
	unlink(path);
}

/* alice (1000): 201 "train" measured v100 200, k80 10 (20x); 202-204
 * "other" v100 30, k80 10 (3x). With bob (2000): 301-303 "big" v100 500,
 * k80 10 (50x) and 304 "train" v100 1e4, k80 1 (the same name). */
static void alice_bob(fx_t *f, int with_bob)
{
	fx_init(f, "v100:1:8,k80:1:8");
	fx_job_t *a = fx_add(f, 201, 1);
	a->name = "train";
	a->uid = 1000;
	a->ckpt = 1; /* preemptible: in every round's problem */
	fx_measure(a, "v100", 200);
	fx_measure(a, "k80", 10);
	for (uint32_t id = 202; id <= 204; id++) {
		fx_job_t *o = fx_add(f, id, 1);
		o->name = "other";
		o->uid = 1000;
		o->ckpt = 1;
		fx_measure(o, "v100", 30);
		fx_measure(o, "k80", 10);
	}
	for (uint32_t id = 301; id <= 304 && with_bob; id++) {
		fx_job_t *b = fx_add(f, id, 1);
		b->name = id == 304 ? "train" : "big";
		b->uid = 2000;
		b->ckpt = 1;
		fx_measure(b, "v100", id == 304 ? 1e4 : 500);
		fx_measure(b, "k80", id == 304 ? 1 : 10);
	}
}

/* alice's estimates on both types after two rounds, into thr[4][2] */
static void alice_estimates(const char *conf, int with_bob, double thr[4][2])
{
	fx_t f;
	alice_bob(&f, with_bob);
	hs_engine_t *e = fx_engine(conf, logger);
	json_object_put(round_status(&f, e));
	f.now += 360;
	json_object *st = round_status(&f, e);
	for (int i = 0; i < 4; i++) {
		thr[i][0] = thr_of(job_doc(st, 201 + i), "v100");
		thr[i][1] = thr_of(job_doc(st, 201 + i), "k80");
	}
	json_object_put(st);
	hs_engine_free(e);
}

static void engine_scope(void **state)
{
	(void)state;
	double alone[4][2], bob[4][2], site[4][2];
	alice_estimates("LearnScope=user", 0, alone);
	alice_estimates("LearnScope=user", 1, bob);
	/* bob's reports change nothing of alice's: not her kinds of the
	 * same name, not her bound (her "other" kind's 3x caps "train") */
	for (int i = 0; i < 4; i++)
		for (int t = 0; t < 2; t++)
			assert_float_equal(alone[i][t], bob[i][t], 0);
	assert_float_equal(alone[0][0], 10 * 3 * 1.25, 1e-9);
	/* LearnScope=site shares them: bob's 50x widens alice's bound (the
	 * control: the test sees a change when there is one) */
	alice_estimates("LearnScope=site", 1, site);
	assert_true(site[0][0] > alone[0][0] * 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(measured_bounds), cmocka_unit_test(ratio_bounds),
		cmocka_unit_test(steps_bound),     cmocka_unit_test(table_ratios),
		cmocka_unit_test(learned_ratios),  cmocka_unit_test(engine_ratio_lie),
		cmocka_unit_test(engine_steps),    cmocka_unit_test(engine_table),
		cmocka_unit_test(engine_scope),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
