/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sched_learn.c — the engine with learned throughputs (issue 26):
 * a round feeds each job's reports to its kind once, estimates of jobs
 * of the same kind come from them (and from the speedup matrix for types
 * a kind has not run on), another user's jobs see nothing of them, the
 * status names each type's source, the state keeps the table, and
 * Learning=no estimates as before. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "sched/metrics.h"
#include "sched_fixtures.h"

static void logger(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

/* alice (1000): 101 "train" measured v100 30, k80 10; 102 "other"
 * measured k80 5; 103 "train" not measured; bob (2000): 104 "train" not
 * measured. */
static void four_jobs(fx_t *f)
{
	fx_init(f, "v100:1:2,k80:1:2");
	fx_job_t *a = fx_add(f, 101, 1), *b = fx_add(f, 102, 1);
	fx_job_t *c = fx_add(f, 103, 1), *d = fx_add(f, 104, 1);
	a->name = c->name = d->name = "train";
	b->name = "other";
	a->uid = b->uid = c->uid = 1000;
	d->uid = 2000;
	fx_measure(a, "v100", 30);
	fx_measure(a, "k80", 10);
	fx_measure(b, "k80", 5);
}

static json_object *job_doc(json_object *st, int id)
{
	json_object *j = fx_status_job(st, id);
	if (!j)
		fail_msg("job %d not in the status", id);
	return j;
}

static const char *src_of(json_object *j, const char *type)
{
	json_object *e, *v;
	assert_true(json_object_object_get_ex(j, "estimates", &e));
	assert_true(json_object_object_get_ex(e, type, &v));
	return json_object_get_string(v);
}

static double thr_of(json_object *j, const char *type)
{
	double v = fx_status_thr(j, type);
	assert_true(v >= 0);
	return v;
}

static const char *str(json_object *j, const char *k)
{
	json_object *v;
	assert_true(json_object_object_get_ex(j, k, &v));
	return json_object_get_string(v);
}

/* One round of f on e; its status document (the caller puts it). */
static json_object *round_status(fx_t *f, hs_engine_t *e)
{
	json_object *st = fx_round_status(f, e);
	assert_non_null(st);
	return st;
}

static void learned_kinds(void **state)
{
	(void)state;
	fx_t f;
	four_jobs(&f);
	hs_engine_t *e = fx_engine(NULL, logger); /* Learning=yes by default */
	json_object *st = round_status(&f, e);
	json_object *j103 = job_doc(st, 103), *j102 = job_doc(st, 102), *j104 = job_doc(st, 104);
	/* 103 shares 101's kind: its rates */
	assert_string_equal(str(j103, "estimate"), "learned");
	assert_string_equal(src_of(j103, "v100"), "learned");
	assert_float_equal(thr_of(j103, "v100"), 30, 1e-9);
	assert_float_equal(thr_of(j103, "k80"), 10, 1e-9);
	/* 102 ran on k80 only: v100 from alice's speedup (30 / 10) */
	assert_string_equal(src_of(j102, "k80"), "measured");
	assert_string_equal(src_of(j102, "v100"), "inferred");
	assert_float_equal(thr_of(j102, "v100"), 15, 1e-9);
	json_object *v;
	assert_true(json_object_object_get_ex(j102, "learn_confidence", &v));
	assert_true(json_object_get_double(v) > 0 && json_object_get_double(v) < 1);
	/* bob's job of the same name learns nothing from alice */
	assert_string_equal(str(j104, "estimate"), "agnostic");
	assert_float_equal(thr_of(j104, "v100"), thr_of(j104, "k80"), 1e-12);
	json_object_put(st);

	/* the same reports again are not new samples */
	json_object *t1 = hs_engine_learned_save(e);
	f.now += 360;
	json_object_put(round_status(&f, e));
	json_object *t2 = hs_engine_learned_save(e);
	json_object *k1 = json_object_object_get(t1, "kinds"), *k2 = json_object_object_get(t2, "kinds");
	assert_int_equal(json_object_array_length(k1), json_object_array_length(k2));
	for (size_t i = 0; i < json_object_array_length(k1); i++) {
		json_object *c1 = json_object_object_get(json_object_array_get_idx(k1, i), "cells");
		json_object *c2 = json_object_object_get(json_object_array_get_idx(k2, i), "cells");
		assert_string_equal(json_object_to_json_string(c1), json_object_to_json_string(c2));
	}
	json_object_put(t1);

	/* 103 now measures v100 at 33 where its kind's 30 was its estimate:
	 * scored |ln(30 / 33)|, and exported as a metric */
	fx_measure(fx_find(&f, 103), "v100", 33);
	f.now += 360;
	st = round_status(&f, e);
	json_object *ln;
	assert_true(json_object_object_get_ex(st, "learning", &ln));
	assert_int_equal(json_object_get_int(json_object_object_get(ln, "learned_scored")), 1);
	assert_float_equal(json_object_get_double(json_object_object_get(ln, "learned_error")),
			   fabs(log(30.0 / 33.0)), 1e-9);
	assert_int_equal(json_object_get_int(json_object_object_get(ln, "kinds")), 2);
	size_t mlen;
	hs_err_t merr;
	char *metrics = hs_metrics_text(st, &mlen, &merr);
	assert_non_null(metrics);
	assert_non_null(strstr(metrics, "hetsched_learn_estimate_error{source=\"learned\"}"));
	assert_non_null(strstr(metrics, "hetsched_learned_kinds 2"));
	free(metrics);
	json_object_put(st);
	json_object_put(t2);
	t2 = hs_engine_learned_save(e);

	/* the state keeps the table: a restored engine estimates the same */
	hs_err_t err;
	json_object *saved = hs_engine_save(e, &err);
	assert_non_null(saved);
	hs_engine_t *e2 = fx_engine(NULL, logger);
	assert_int_equal(hs_engine_restore(e2, saved, &err), 0);
	json_object *t3 = hs_engine_learned_save(e2);
	assert_string_equal(json_object_to_json_string(t2), json_object_to_json_string(t3));
	/* the same jobs' reports, all read before the restart, are not
	 * counted again by the restored engine */
	f.now += 360;
	json_object_put(round_status(&f, e2));
	json_object *t4 = hs_engine_learned_save(e2);
	json_object *k3 = json_object_object_get(t3, "kinds"), *k4 = json_object_object_get(t4, "kinds");
	for (size_t i = 0; i < json_object_array_length(k3); i++)
		assert_string_equal(
			json_object_to_json_string(json_object_object_get(json_object_array_get_idx(k3, i), "cells")),
			json_object_to_json_string(json_object_object_get(json_object_array_get_idx(k4, i), "cells")));
	json_object_put(t4);
	/* a job of the kind arriving after the restart starts from it */
	fx_t g;
	fx_init(&g, "v100:1:2,k80:1:2");
	fx_job_t *n = fx_add(&g, 201, 1);
	n->name = "train";
	n->uid = 1000;
	st = round_status(&g, e2);
	/* the mean of 101's 30 and 103's 33: 103 ran outside the policy
	 * (it cannot be preempted) and still taught its kind */
	assert_float_equal(thr_of(job_doc(st, 201), "v100"), 31.5, 1e-9);
	json_object_put(st);
	json_object_put(saved);
	json_object_put(t2);
	json_object_put(t3);
	hs_engine_free(e2);
	hs_engine_free(e);
}

static void learning_off(void **state)
{
	(void)state;
	fx_t f;
	four_jobs(&f);
	hs_engine_t *e = fx_engine("Learning=no", logger);
	json_object *st = round_status(&f, e);
	json_object *j103 = job_doc(st, 103), *j102 = job_doc(st, 102);
	assert_string_equal(str(j103, "estimate"), "agnostic");
	assert_float_equal(thr_of(j103, "v100"), 1, 0);
	/* the mean of what 102 measured (rule 5) */
	assert_string_equal(src_of(j102, "v100"), "agnostic");
	assert_float_equal(thr_of(j102, "v100"), 5, 1e-12);
	json_object_put(st);
	json_object *t = hs_engine_learned_save(e);
	assert_int_equal(json_object_array_length(json_object_object_get(t, "kinds")), 0);
	json_object_put(t);
	hs_engine_free(e);
}

static double learning_num(json_object *st, const char *k)
{
	json_object *ln, *v;
	assert_true(json_object_object_get_ex(st, "learning", &ln));
	assert_true(json_object_object_get_ex(ln, k, &v));
	return json_object_get_double(v);
}

/* On cluster spec: 101 "train" (preemptible) measured v100 30, k80 10;
 * 102 "other" (preemptible) and 105 "third" (not) measured k80 5. */
static void three_jobs(fx_t *f, const char *spec)
{
	fx_init(f, spec);
	fx_job_t *a = fx_add(f, 101, 1), *b = fx_add(f, 102, 1), *c = fx_add(f, 105, 1);
	a->name = "train";
	b->name = "other";
	c->name = "third";
	a->uid = b->uid = c->uid = 1000;
	a->ckpt = b->ckpt = 1;
	fx_measure(a, "v100", 30);
	fx_measure(a, "k80", 10);
	fx_measure(b, "k80", 5);
	fx_measure(c, "k80", 5);
}

/* LearnExplore: 102 (measured k80 5, v100 inferred 15 at confidence
 * 1/3 * 1/3: one report each, one pair) is raised on v100 by 2 - 1/9;
 * 105, the same but not preemptible, never is; once the GPU time on
 * raised types passes the share, estimates are plain again. */
static void exploration(void **state)
{
	(void)state;
	fx_t f;
	three_jobs(&f, "v100:1:2,k80:1:2");
	hs_engine_t *off = fx_engine(NULL, logger);
	json_object *st = round_status(&f, off);
	assert_float_equal(thr_of(job_doc(st, 102), "v100"), 15, 1e-9);
	json_object_put(st);
	hs_engine_free(off);

	/* v100s for every job: 102 runs on its raised type */
	three_jobs(&f, "v100:1:4,k80:1:2");
	hs_engine_t *e = fx_engine("LearnExplore=0.1", logger);
	st = round_status(&f, e);
	assert_float_equal(thr_of(job_doc(st, 102), "v100"), 15 * (2 - 1.0 / 9), 1e-9);
	assert_float_equal(thr_of(job_doc(st, 105), "v100"), 15, 1e-9);
	assert_float_equal(thr_of(job_doc(st, 101), "v100"), 30, 1e-9); /* measured */
	json_object_put(st);
	/* 102 is sent to v100 and runs there: its GPU time is exploration */
	assert_string_equal(fx_type_of(&f, fx_find(&f, 102)), "v100");
	int plain = 0, over = 0;
	for (int r = 0; r < 4 && !plain; r++) {
		f.now += 360;
		st = round_status(&f, e);
		/* the counters a round's estimates saw are the last round's:
		 * once they were over the share, this round is plain */
		if (over) {
			assert_float_equal(thr_of(job_doc(st, 102), "v100"), 15, 1e-9);
			plain = 1;
		}
		double ex = learning_num(st, "explore_gpu_s"), busy = learning_num(st, "busy_gpu_s");
		assert_true(ex > 0 && busy >= ex);
		over = ex > 0.1 * busy;
		json_object_put(st);
	}
	assert_true(plain);
	hs_engine_free(e);
}

/* LearnExplore on a type nothing can be inferred for: bob's 201 and 202
 * ran on k80 only (5 steps/s) and no kind of bob's has run on two types,
 * so their v100 estimate is agnostic, the mean of their own rates (5).
 * Exploration raises it by 2 (confidence 0) for 201, which can be
 * preempted, and sends it there; never for 202, which cannot. */
static void exploration_agnostic(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:2,k80:1:2");
	fx_job_t *a = fx_add(&f, 201, 1), *b = fx_add(&f, 202, 1);
	a->name = "solo";
	b->name = "fixed";
	a->uid = b->uid = 2000;
	a->ckpt = 1;
	fx_measure(a, "k80", 5);
	fx_measure(b, "k80", 5);
	hs_engine_t *e = fx_engine("LearnExplore=0.1", logger);
	json_object *st = round_status(&f, e);
	assert_string_equal(src_of(job_doc(st, 201), "v100"), "agnostic");
	assert_float_equal(thr_of(job_doc(st, 201), "v100"), 10, 1e-9);
	assert_float_equal(thr_of(job_doc(st, 202), "v100"), 5, 1e-9);
	assert_float_equal(thr_of(job_doc(st, 201), "k80"), 5, 1e-9); /* measured */
	json_object_put(st);
	assert_string_equal(fx_type_of(&f, fx_find(&f, 201)), "v100");
	hs_engine_free(e);
}

/* One round of f on e: whether the policy ran (a new allocation). */
static int round_solved(fx_t *f, hs_engine_t *e)
{
	hs_plan_t plan;
	fx_counts_t c;
	memset(&c, 0, sizeof(c));
	assert_int_equal(fx_round(f, e, &plan, &c), 0);
	int solved = plan.solved;
	hs_plan_free(&plan);
	return solved;
}

/* EstimateResolveFactor: the same two jobs, no arrival or departure, so
 * only a moved estimate recomputes the allocation. 301's first reports
 * (k80 5, v100 50: its agnostic estimate, the same on both types, now
 * 10x faster on v100) recompute it at the next round, at the default
 * factor 1.5 and not at 0; a report 1.2x the last (v100 60) does not;
 * 2x does; both types 2x at once does not (the ratio between them is
 * what places the job). 302 is another user's, so its estimates do not
 * follow 301's kind. */
static void estimate_moves_resolve(void **state)
{
	(void)state;
	/* k 0: the default policy (scale-free), 1: off, 2: a policy whose
	 * allocation depends on a job's absolute speed */
	const char *confs[] = { NULL, "EstimateResolveFactor=0", "Policy=finish_time_fairness_perf" };
	for (int k = 0; k < 3; k++) {
		fx_t f;
		fx_init(&f, "v100:1:1,k80:1:1");
		fx_job_t *a = fx_add(&f, 301, 1), *b = fx_add(&f, 302, 1);
		a->name = "first";
		b->name = "second";
		a->uid = 1000;
		b->uid = 2000; /* learns nothing from 301's kind (LearnScope=user) */
		a->ckpt = b->ckpt = 1;
		hs_engine_t *e = fx_engine(confs[k], logger);
		assert_int_equal(round_solved(&f, e), 1); /* the first allocation */
		f.now += 360;
		assert_int_equal(round_solved(&f, e), 0); /* nothing moved */
		fx_measure_at(fx_find(&f, 301), "k80", 5, f.now);
		fx_measure_at(fx_find(&f, 301), "v100", 50, f.now);
		f.now += 360;
		assert_int_equal(round_solved(&f, e), k != 1);
		f.now += 360;
		assert_int_equal(round_solved(&f, e), 0); /* the same estimates */
		fx_measure_at(fx_find(&f, 301), "v100", 60, f.now);
		f.now += 360;
		assert_int_equal(round_solved(&f, e), 0); /* 1.2x: within the factor */
		fx_measure_at(fx_find(&f, 301), "v100", 120, f.now);
		f.now += 360;
		assert_int_equal(round_solved(&f, e), k != 1);
		/* both types 2x (steps of another size): not a move under
		 * max-min fairness, twice the speed under finish-time fairness */
		fx_measure_at(fx_find(&f, 301), "k80", 10, f.now);
		fx_measure_at(fx_find(&f, 301), "v100", 240, f.now);
		f.now += 360;
		assert_int_equal(round_solved(&f, e), k == 2);
		hs_engine_free(e);
	}
}

/* The cells of a learned table's first kind (its samples; "seen" moves
 * with every estimate asked of it). */
static const char *cells_text(json_object *t)
{
	json_object *kinds = json_object_object_get(t, "kinds");
	assert_int_equal(json_object_array_length(kinds), 1);
	return json_object_to_json_string(
		json_object_object_get(json_object_array_get_idx(kinds, 0), "cells"));
}

/* A job's last reports reach its kind when it ended between two rounds
 * (hs_snap_t.ended): 301 "train" measured k80 at the first round, then
 * v100 just before it ended; 303 "train" started and ended between two
 * rounds. 302 "train" waits and shows what the kind knows. Listed again
 * in the next round, neither counts twice, nor does anything after a
 * reconfigure. */
static void ended_jobs_teach(void **state)
{
	(void)state;
	const char *confs[] = { NULL, "Learning=no" };
	for (int k = 0; k < 2; k++) {
		fx_t f;
		fx_init(&f, "v100:1:1,k80:1:1");
		fx_job_t *a = fx_add(&f, 301, 1), *b = fx_add(&f, 302, 1), *c = fx_add(&f, 303, 1);
		a->name = b->name = c->name = "train";
		a->uid = b->uid = c->uid = 1000;
		b->ckpt = 1; /* in the problem every round, with its estimates */
		c->gone = 1; /* not submitted yet */
		fx_measure_at(a, "k80", 10, f.now);
		hs_engine_t *e = fx_engine(confs[k], logger);
		json_object_put(round_status(&f, e));
		fx_measure_at(a, "v100", 40, f.now + 100);
		a->ended = 1;
		f.now += 360;
		json_object *st = round_status(&f, e);
		json_object *j302 = job_doc(st, 302);
		if (k == 1) { /* Learning=no: nothing learned, as before */
			assert_string_equal(src_of(j302, "v100"), "agnostic");
			json_object_put(st);
			hs_engine_free(e);
			continue;
		}
		assert_string_equal(src_of(j302, "v100"), "learned");
		assert_float_equal(thr_of(j302, "v100"), 40, 1e-9);
		assert_float_equal(thr_of(j302, "k80"), 10, 1e-9);
		json_object_put(st);
		c->gone = 0;
		c->ended = 1;
		fx_measure_at(c, "v100", 50, f.now + 100);
		f.now += 360;
		st = round_status(&f, e);
		assert_float_equal(thr_of(job_doc(st, 302), "v100"), 45, 1e-9); /* (40 + 50) / 2 */
		json_object_put(st);
		fx_measure_at(b, "k80", 12, f.now); /* 302's own report */
		f.now += 360;
		json_object_put(round_status(&f, e));
		json_object *t1 = hs_engine_learned_save(e);
		f.now += 360; /* both listed again: no new samples */
		json_object_put(round_status(&f, e));
		/* nor after a reconfigure (it once forgot what was fed, and
		 * every job's reports counted again) */
		hs_sconf_t nc;
		hs_err_t err;
		assert_int_equal(hs_sconf_defaults(&nc, &err), 0);
		assert_int_equal(hs_engine_reconfigure(e, &nc, &err), 0);
		hs_sconf_free(&nc);
		f.now += 360;
		json_object_put(round_status(&f, e));
		json_object *t2 = hs_engine_learned_save(e);
		assert_string_equal(cells_text(t1), cells_text(t2));
		json_object_put(t1);
		json_object_put(t2);
		hs_engine_free(e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(learned_kinds),
		cmocka_unit_test(learning_off),
		cmocka_unit_test(exploration),
		cmocka_unit_test(exploration_agnostic),
		cmocka_unit_test(estimate_moves_resolve),
		cmocka_unit_test(ended_jobs_teach),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
