/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sched_engine.c — the sched plugin's round engine without Slurm:
 * snapshots built by hand, plans applied by a fake slurmctld
 * (sched_fixtures.h). Placement by throughput, lease extension (no
 * preemption of unchanged assignments), convergence of received time
 * fractions to the allocation, preemption methods, pinned and foreign
 * GPUs, in-flight checkpoint operations, saved state. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "core/thrtable.h"
#include "sched/engine.h"
#include "sched/engine_impl.h"
#include "sched/solve_leaving_out.h"
#include "sched/status_private.h"
#include "sched_fixtures.h"
#include "testdata.h"

static char last_log[512];
static int nlogs_with;            /* messages containing log_needle */
static const char *log_needle = "";
static void logger(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	snprintf(last_log, sizeof(last_log), "%s", msg);
	if (*log_needle && strstr(msg, log_needle))
		nlogs_with++;
}

static hs_engine_t *engine_with(const char *conf_text)
{
	return fx_engine(conf_text, logger);
}

/* n rounds on f, each applied, RoundLength (360 s) apart. */
static void fx_rounds(fx_t *f, hs_engine_t *e, int n)
{
	hs_plan_t p;
	fx_counts_t c;
	for (int r = 0; r < n; r++) {
		assert_int_equal(fx_round(f, e, &p, &c), 0);
		hs_plan_free(&p);
		f->now += 360;
	}
}

/* Two types, one GPU each: A is 10x faster on v100, B barely cares. */
static void two_jobs(fx_t *f)
{
	fx_init(f, "v100:1:1,k80:1:1");
	fx_job_t *a = fx_add(f, 101, 1);
	fx_measure(a, "v100", 10);
	fx_measure(a, "k80", 1);
	fx_job_t *b = fx_add(f, 102, 1);
	fx_measure(b, "v100", 2);
	fx_measure(b, "k80", 1.6);
}

static void test_fast_type_wins(void **state)
{
	(void)state;
	fx_t f;
	two_jobs(&f);
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(p.nstart, 2);
	assert_int_equal(c.start, 2);
	assert_string_equal(fx_type_of(&f, fx_find(&f, 101)), "v100");
	assert_string_equal(fx_type_of(&f, fx_find(&f, 102)), "k80");
	assert_non_null(strstr(plan_job(&p, 101)->reason, "starting on v100"));
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* Policy=min_cost with GpuPrices: the round solves (before GpuPrices the
 * plugin never set prices and every min_cost solve failed) and puts each
 * job where its throughput per price is best: A (10 vs 1 steps/s) on the
 * v100 at 2.48, B (2 vs 1.6) on the k80 at 0.45. */
static void test_min_cost_prices(void **state)
{
	(void)state;
	fx_t f;
	two_jobs(&f);
	hs_engine_t *e = engine_with("Policy=min_cost\nGpuPrices=v100:2.48,k80:0.45\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_true(p.solved);
	assert_false(p.solve_failed);
	assert_int_equal(p.nstart, 2);
	assert_string_equal(fx_type_of(&f, fx_find(&f, 101)), "v100");
	assert_string_equal(fx_type_of(&f, fx_find(&f, 102)), "k80");
	hs_plan_free(&p);
	hs_engine_free(e);

	/* a GPU type without a price: the solve fails, naming the type */
	fx_t g;
	two_jobs(&g);
	e = engine_with("Policy=min_cost\nGpuPrices=v100:2.48\n");
	last_log[0] = 0;
	assert_int_equal(fx_round(&g, e, &p, &c), 0);
	assert_true(p.solve_failed);
	assert_non_null(strstr(last_log, "'k80' has none"));
	/* counted for the metrics (hetsched_solve_failures_total) */
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(&g, &s);
	json_object *st = hs_engine_status(e, &s, &p, NULL, g.now, &err), *tot, *v;
	assert_non_null(st);
	assert_true(json_object_object_get_ex(st, "totals", &tot));
	assert_true(json_object_object_get_ex(tot, "solve_failed", &v));
	assert_int_equal(json_object_get_int(v), 1);
	json_object_put(st);
	hs_snap_free(&s);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* Every job in the status document carries its owner's uid, so the
 * document can be filtered per user under PrivateData=jobs. */
static void test_status_user_ids(void **state)
{
	(void)state;
	fx_t f;
	two_jobs(&f);
	fx_find(&f, 101)->uid = 1000;
	fx_find(&f, 102)->uid = 1001;
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(&f, &s);
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	json_object *st = hs_engine_status(e, &s, &p, NULL, f.now, &err), *jobs, *v;
	assert_non_null(st);
	assert_true(json_object_object_get_ex(st, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 2);
	for (size_t i = 0; i < 2; i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		assert_true(json_object_object_get_ex(j, "id", &v));
		int id = json_object_get_int(v);
		assert_true(json_object_object_get_ex(j, "user_id", &v));
		assert_int_equal(json_object_get_int(v), id == 101 ? 1000 : 1001);
	}
	json_object_put(st);
	hs_snap_free(&s);
	hs_plan_free(&p);
	hs_engine_free(e);
}

static long doc_int(json_object *o, const char *path0, const char *k)
{
	json_object *a = o, *v;
	if (path0)
		assert_true(json_object_object_get_ex(o, path0, &a));
	assert_true(json_object_object_get_ex(a, k, &v));
	return (long)json_object_get_int64(v);
}

/* The aggregates the metrics need (metrics.c): per type idle GPUs (on
 * available nodes) and GPUs two jobs share, GPU jobs by state, failed
 * solves, and the objective once the policy solved. */
static void test_status_aggregates(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:2,k80:1:2");
	f.avail[1] = 0;
	fx_job_t *a = fx_add(&f, 101, 1), *b = fx_add(&f, 102, 1);
	fx_add(&f, 103, 1);
	fx_add(&f, 104, 0);
	a->state = b->state = HS_SJ_RUNNING;
	a->nheld = b->nheld = 1;
	a->held[0] = b->held[0] = (hs_sgpu_t){ .node = 0, .gpu = 0 }; /* packed */
	a->start = b->start = f.now;
	hs_engine_t *e = engine_with(NULL);
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(&f, &s);
	json_object *st = hs_engine_status(e, &s, NULL, NULL, f.now, &err), *types, *v;
	assert_non_null(st);
	assert_true(json_object_object_get_ex(st, "types", &types));
	assert_int_equal(json_object_array_length(types), 2);
	for (size_t i = 0; i < 2; i++) {
		json_object *t = json_object_array_get_idx(types, i);
		assert_true(json_object_object_get_ex(t, "name", &v));
		int v100 = !strcmp(json_object_get_string(v), "v100");
		assert_int_equal(doc_int(t, NULL, "gpus"), 2);
		assert_int_equal(doc_int(t, NULL, "available"), v100 ? 2 : 0);
		assert_int_equal(doc_int(t, NULL, "busy"), v100 ? 1 : 0);
		assert_int_equal(doc_int(t, NULL, "idle"), v100 ? 1 : 0);
		assert_int_equal(doc_int(t, NULL, "shared"), v100 ? 1 : 0);
	}
	assert_int_equal(doc_int(st, "gpu_jobs", "running"), 2);
	assert_int_equal(doc_int(st, "gpu_jobs", "pending"), 1);
	assert_int_equal(doc_int(st, "gpu_jobs", "suspended"), 0);
	assert_int_equal(doc_int(st, "totals", "solve_failed"), 0);
	assert_false(json_object_object_get_ex(st, "objective", NULL));
	json_object_put(st);
	hs_snap_free(&s);

	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_true(p.solved);
	fx_snapshot(&f, &s);
	st = hs_engine_status(e, &s, &p, NULL, f.now, &err);
	assert_non_null(st);
	assert_true(json_object_object_get_ex(st, "objective", &v));
	assert_true(json_object_is_type(v, json_type_double));
	/* effective throughput over the equal share, over the problem's
	 * jobs (here one job is in the problem: its equal share is all it
	 * can use, ratio 1) */
	json_object *eq;
	assert_true(json_object_object_get_ex(st, "vs_equal_share", &eq));
	assert_int_equal(doc_int(eq, NULL, "jobs"), p.nactive);
	assert_true(json_object_object_get_ex(eq, "min", &v));
	double mn = json_object_get_double(v);
	assert_true(json_object_object_get_ex(eq, "mean", &v));
	assert_true(mn > 0 && mn <= json_object_get_double(v) + 1e-12);
	assert_true(fabs(mn - 1) < 1e-9);
	json_object_put(st);
	hs_snap_free(&s);
	hs_plan_free(&p);
	hs_engine_free(e);
}

static void test_unchanged_not_preempted(void **state)
{
	(void)state;
	fx_t f;
	/* X is a pure assignment (the only optimum): two v100 jobs for two
	 * v100, one k80 job for the k80. */
	fx_init(&f, "v100:1:2,k80:1:1");
	fx_job_t *a = fx_add(&f, 101, 1), *b = fx_add(&f, 102, 1), *c3 = fx_add(&f, 103, 1);
	a->type = b->type = "v100";
	c3->type = "k80";
	/* preemptible: keeping them is the mechanism's choice */
	a->ckpt = b->ckpt = c3->ckpt = 1;
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	for (int r = 0; r < 5; r++) {
		f.now += 360;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		assert_int_equal(p.nkeep, 3);
		assert_int_equal(p.ncheckpoint + p.nrequeue + p.nstart + p.nsuspend, 0);
		assert_int_equal(plan_job(&p, 101)->op, HS_PLAN_KEEP);
		hs_plan_free(&p);
	}
	hs_engine_free(e);
}

/* Received fraction on a type since the last reset, from the status. */
static double received(json_object *st, uint32_t id, const char *type, const char *what)
{
	json_object *jobs = json_object_object_get(st, "jobs");
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		if ((uint32_t)json_object_get_int64(json_object_object_get(j, "id")) != id)
			continue;
		json_object *r = json_object_object_get(j, what), *v;
		return json_object_object_get_ex(r, type, &v) ? json_object_get_double(v) : 0.0;
	}
	return -1;
}

static void test_convergence(void **state)
{
	(void)state;
	fx_t f;
	/* 3 jobs, 2 GPUs: every job is time-sliced. */
	fx_init(&f, "v100:1:1,k80:1:1");
	double thr[3][2] = { { 10, 1 }, { 4, 3 }, { 6, 2 } };
	for (int i = 0; i < 3; i++) {
		fx_job_t *j = fx_add(&f, 201 + (uint32_t)i, 1);
		fx_measure(j, "v100", thr[i][0]);
		fx_measure(j, "k80", thr[i][1]);
		j->ckpt = 1;
	}
	hs_engine_t *e = engine_with("RoundLength=360\n");
	hs_plan_t p;
	fx_counts_t c;
	int preempts = 0;
	for (int r = 0; r < 300; r++) {
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		preempts += c.ckpt + c.requeue;
		/* never more jobs running than GPUs */
		int running = 0;
		for (int i = 0; i < f.njobs; i++)
			running += f.jobs[i].state == HS_SJ_RUNNING;
		assert_true(running <= 2);
		hs_plan_free(&p);
		f.now += 360;
	}
	assert_true(preempts > 0); /* time slicing happened */
	hs_snap_t s;
	fx_snapshot(&f, &s);
	hs_err_t err;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	json_object *st = hs_engine_status(e, &s, &p, NULL, f.now, &err);
	assert_non_null(st);
	double total_x = 0;
	for (uint32_t id = 201; id <= 203; id++)
		for (int t = 0; t < 2; t++) {
			const char *type = t ? "k80" : "v100";
			double x = received(st, id, type, "target");
			double got = received(st, id, type, "received");
			total_x += x;
			/* stated tolerance: 0.05 of wall time after 300 rounds */
			if (fabs(x - got) > 0.05)
				fail_msg("job %u on %s: target %.3f received %.3f", id, type, x, got);
		}
	assert_true(total_x > 1.9); /* both GPUs fully allocated */
	json_object_put(st);
	hs_snap_free(&s);
	hs_plan_free(&p);
	hs_engine_free(e);
}

static void test_preempt_methods(void **state)
{
	(void)state;
	const struct {
		const char *conf;
		int ckpt, no_preempt, batch;
		hs_plan_op_t expect;
	} cases[] = {
		{ NULL, 1, 0, 1, HS_PLAN_CHECKPOINT },
		{ "RequeueWithoutCheckpoint=yes\n", 0, 0, 1, HS_PLAN_REQUEUE },
		{ NULL, 0, 0, 1, HS_PLAN_NONE },             /* cannot checkpoint */
		/* suspend keeps the GPU, which job 2 needs: requeue instead */
		{ "PreemptMode=suspend\nRequeueWithoutCheckpoint=yes\n", 0, 0, 1, HS_PLAN_REQUEUE },
		{ "PreemptMode=suspend\n", 1, 0, 1, HS_PLAN_CHECKPOINT },
		{ NULL, 1, 1, 1, HS_PLAN_NONE },             /* --hs-no-preempt */
		{ NULL, 1, 0, 0, HS_PLAN_NONE },             /* not a batch job */
		{ "PreemptMode=off\n", 1, 0, 1, HS_PLAN_NONE },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		fx_t f;
		fx_init(&f, "v100:1:1");
		fx_job_t *a = fx_add(&f, 1, 1);
		a->ckpt = cases[k].ckpt;
		a->no_preempt = cases[k].no_preempt;
		a->batch = cases[k].batch;
		hs_engine_t *e = engine_with(cases[k].conf);
		hs_plan_t p;
		fx_counts_t c;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		assert_int_equal(c.start, 1);
		hs_plan_free(&p);
		f.now += 360;
		fx_add(&f, 2, 1);
		/* both share the GPU half the time: job 1 yields within 3 rounds */
		const hs_plan_job_t *pa = NULL, *pb = NULL;
		for (int r = 0; r < 3; r++) {
			assert_int_equal(fx_round(&f, e, &p, &c), 0);
			pa = plan_job(&p, 1);
			pb = plan_job(&p, 2);
			if (!pa || pa->op != HS_PLAN_KEEP)
				break;
			hs_plan_free(&p);
			f.now += 360;
		}
		if (cases[k].expect == HS_PLAN_NONE) {
			/* pinned: not in the plan, its GPU not usable: job 2 waits */
			assert_null(pa);
			assert_int_equal(fx_find(&f, 1)->state, HS_SJ_RUNNING);
			assert_non_null(pb);
			assert_int_equal(pb->op, HS_PLAN_NONE);
			assert_non_null(strstr(pb->reason, "waiting for 1 free GPU"));
		} else {
			assert_non_null(pa);
			if (pa->op != cases[k].expect)
				fail_msg("case %zu: op %s, expected %s", k, hs_plan_op_name(pa->op),
					 hs_plan_op_name(cases[k].expect));
			assert_int_equal(pb->op, HS_PLAN_START);
			assert_int_equal(fx_find(&f, 2)->state, HS_SJ_RUNNING);
			assert_int_equal(fx_find(&f, 1)->state, HS_SJ_PENDING);
		}
		hs_plan_free(&p);
		hs_engine_free(e);
	}
}

/* In suspend mode a job preempted while nobody needs its GPUs is
 * suspended and later resumed on the same GPUs. */
static void test_suspend_resume(void **state)
{
	(void)state;
	fx_t f;
	/* One GPU, so the two jobs must take turns on it. */
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	hs_engine_t *e = engine_with("PreemptMode=suspend\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	/* Suspend it by hand as hetsched would, then check resume. */
	hs_plan_job_t pj = { .id = 1, .op = HS_PLAN_SUSPEND };
	a->state = HS_SJ_SUSPENDED;
	assert_int_equal(hs_engine_applied(e, &pj, 1, f.now, 0, NULL), 0);
	f.now += 360;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(plan_job(&p, 1)->op, HS_PLAN_RESUME);
	assert_int_equal(c.resume, 1);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	hs_plan_free(&p);
	/* A job suspended by someone else is left alone (pinned). */
	a->state = HS_SJ_SUSPENDED;
	f.now += 360;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_null(plan_job(&p, 1));
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* Rounds of RoundLength 60 until job `victim` has been requeued (its
 * restart count rises) or `n` rounds pass; how many requeues and how many
 * of those the executor had to restore the flag for. */
static int rounds_until_requeued(fx_t *f, hs_engine_t *e, fx_job_t *victim, int n)
{
	unsigned rc0 = victim->restart_cnt;
	for (int r = 0; r < n && victim->restart_cnt == rc0; r++) {
		hs_plan_t p;
		fx_counts_t c;
		f->now += 60;
		assert_int_equal(fx_round(f, e, &p, &c), 0);
		hs_plan_free(&p);
	}
	return (int)(victim->restart_cnt - rc0);
}

/* Issue 28: Slurm lets the owner of a running job set Requeue=0 on it.
 * Judged by that, a job admitted as one the rounds may preempt would keep
 * its GPU for good (pinned), past its share. The engine keeps the flag
 * it was admitted with: a second job gets the GPU in turn, the victim is
 * checkpointed (ckpt) or requeued outright and restarts; its next start is
 * judged by Requeue=0 (pinned from then on, as its owner now asks). */
static void requeue_off_after_start(int ckpt)
{
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->ckpt = ckpt;
	const char *conf = ckpt ? "RoundLength=60\n" : "RoundLength=60\nRequeueWithoutCheckpoint=yes\n";
	hs_engine_t *e = engine_with(conf);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	a->requeue_ok = 0; /* scontrol update jobid=1 Requeue=0, once running */
	/* slurmctld restarts: the admission's flag is in the state file */
	hs_err_t err;
	json_object *st = hs_engine_save(e, &err);
	assert_non_null(st);
	hs_engine_free(e);
	e = engine_with(conf);
	if (hs_engine_restore(e, st, &err) < 0)
		fail_msg("restore: %s", err.msg);
	json_object_put(st);
	fx_job_t *b = fx_add(&f, 2, 1);
	b->ckpt = ckpt;
	b->uid = 2;
	b->account = "other";
	assert_int_equal(rounds_until_requeued(&f, e, a, 20), 1);
	assert_int_equal(a->requeue_ok, 0); /* the owner's choice stands */
	/* the GPU went to job 2; job 1's next start is judged by Requeue=0:
	 * once it runs again it is pinned and is never requeued again */
	for (int r = 0; r < 10 && a->state != HS_SJ_RUNNING; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		hs_plan_free(&p);
	}
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_int_equal(rounds_until_requeued(&f, e, a, 10), 0);
	hs_engine_free(e);
}

static void test_requeue_off_after_start(void **state)
{
	(void)state;
	requeue_off_after_start(1); /* checkpoint, then requeue (ops pass) */
	requeue_off_after_start(0); /* requeue at once (the plan's act) */
}

/* The same for a job array's task: Slurm starts it from the array's
 * pending record (another job id), so until the task has a record of its
 * own the engine judges it by what it saw of its array. */
static void test_requeue_off_array_task(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *pin = fx_add(&f, 5, 1); /* holds the GPU: pinned */
	pin->requeue_ok = 0;
	fx_job_t *arr = fx_add(&f, 10, 1); /* the array's pending record */
	arr->array_id = 10;
	arr->ckpt = 1;
	hs_engine_t *e = engine_with("RoundLength=60\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(pin->state, HS_SJ_RUNNING);
	assert_int_equal(arr->state, HS_SJ_PENDING);
	/* the pinned job ends; Slurm splits task 11 off the array record
	 * and runs it on the GPU, and the task turns requeue off at once */
	pin->gone = 1;
	fx_job_t *task = fx_add(&f, 11, 1);
	task->array_id = 10;
	task->ckpt = 1;
	task->requeue_ok = 0;
	task->state = HS_SJ_RUNNING;
	task->start = f.now;
	task->nheld = 1;
	task->held[0] = pin->held[0];
	pin->nheld = 0;
	fx_job_t *b = fx_add(&f, 20, 1);
	b->ckpt = 1;
	b->uid = 2;
	b->account = "other";
	assert_int_equal(rounds_until_requeued(&f, e, task, 20), 1);
	hs_engine_free(e);
}

/* Marks job j suspended by hetsched, as the plugin reports it. */
static void suspend_by_us(fx_t *f, hs_engine_t *e, fx_job_t *j)
{
	hs_plan_job_t pj = { .id = j->id, .op = HS_PLAN_SUSPEND };
	j->state = HS_SJ_SUSPENDED;
	assert_int_equal(hs_engine_applied(e, &pj, 1, f->now, 0, NULL), 0);
}

/* A job hetsched suspended that leaves its hands (the owner
 * sets requeue=0, PreemptMode changes) is resumed at once, not left
 * suspended with its GPUs forever once its accounting is gone. */
static void test_suspended_not_stranded(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:2");
	fx_job_t *a = fx_add(&f, 1, 1);
	hs_engine_t *e = engine_with("PreemptMode=suspend\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	suspend_by_us(&f, e, a);
	a->requeue_ok = 0; /* scontrol update requeue=0 */
	f.now += 360;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_non_null(plan_job(&p, 1));
	assert_int_equal(plan_job(&p, 1)->op, HS_PLAN_RESUME);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	hs_plan_free(&p);

	/* PreemptMode=off for one round, then back to suspend. */
	a->requeue_ok = 1;
	f.now += 360;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	suspend_by_us(&f, e, a);
	hs_sconf_t conf;
	hs_err_t err;
	assert_int_equal(hs_sconf_defaults(&conf, &err), 0);
	assert_int_equal(hs_sconf_parse_text(&conf, "PreemptMode=off\n", &err), 0);
	assert_int_equal(hs_engine_reconfigure(e, &conf, &err), 0);
	hs_sconf_free(&conf);
	f.now += 360;
	hs_snap_t s;
	fx_snapshot(&f, &s);
	assert_int_equal(hs_engine_round(e, &s, &p, &err), 0); /* the resume fails */
	assert_int_equal(plan_job(&p, 1)->op, HS_PLAN_RESUME);
	hs_plan_free(&p);
	hs_snap_free(&s);
	assert_int_equal(hs_sconf_defaults(&conf, &err), 0);
	assert_int_equal(hs_sconf_parse_text(&conf, "PreemptMode=suspend\n", &err), 0);
	assert_int_equal(hs_engine_reconfigure(e, &conf, &err), 0);
	hs_sconf_free(&conf);
	/* Back in suspend mode it is ours again: the policy decides, and
	 * with a free GPU and no rival it resumes it. */
	f.now += 360;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_non_null(plan_job(&p, 1));
	assert_int_equal(a->state, HS_SJ_RUNNING);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* A job we suspended whose partition is no longer managed
 * (so no GPU type is left: the round has nothing to solve) is resumed. */
static void test_suspended_unmanaged(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	hs_engine_t *e = engine_with("PreemptMode=suspend\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	suspend_by_us(&f, e, a);
	f.now += 360;
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(&f, &s);
	s.parts[0].managed = 0;
	assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
	hs_snap_free(&s);
	assert_non_null(plan_job(&p, 1));
	assert_int_equal(plan_job(&p, 1)->op, HS_PLAN_RESUME);
	assert_int_equal(p.nresume, 1);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* A job we suspended that falls beyond MaxJobs is resumed,
 * and its mark survives a round whose resume failed and a restart (the
 * state file still holds it). */
static void test_suspended_cut_restart(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:2");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->prio = 10;
	hs_engine_t *e = engine_with("PreemptMode=suspend\nMaxJobs=1\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	suspend_by_us(&f, e, a);
	/* a higher-priority job runs on the other GPU (started by hand) */
	fx_job_t *b = fx_add(&f, 2, 1);
	b->prio = 30;
	b->state = HS_SJ_RUNNING;
	b->nheld = 1;
	b->held[0] = (hs_sgpu_t){ .node = 0, .gpu = 1 };
	b->start = f.now;
	f.now += 360;
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(&f, &s);
	assert_int_equal(hs_engine_round(e, &s, &p, &err), 0); /* not applied */
	hs_snap_free(&s);
	assert_non_null(plan_job(&p, 1));
	assert_int_equal(plan_job(&p, 1)->op, HS_PLAN_RESUME);
	hs_plan_free(&p);

	json_object *st = hs_engine_save(e, &err);
	assert_non_null(st);
	hs_engine_t *e2 = engine_with("PreemptMode=suspend\nMaxJobs=1\n");
	if (hs_engine_restore(e2, st, &err) < 0)
		fail_msg("restore: %s", err.msg);
	json_object_put(st);
	hs_engine_free(e);
	f.now += 360;
	assert_int_equal(fx_round(&f, e2, &p, &c), 0);
	assert_non_null(plan_job(&p, 1));
	assert_int_equal(plan_job(&p, 1)->op, HS_PLAN_RESUME);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	hs_plan_free(&p);
	hs_engine_free(e2);
}

/* Time slicing on one GPU: job 1 runs, job 2 arrives. Rounds (60 s)
 * until one plans to suspend job 1; that round's snapshot and plan are
 * left to the caller, not applied. */
static void plan_first_suspend(fx_t *f, hs_engine_t *e, hs_snap_t *s, hs_plan_t *p)
{
	fx_counts_t c;
	assert_int_equal(fx_round(f, e, p, &c), 0);
	hs_plan_free(p);
	fx_add(f, 2, 1);
	for (int r = 0; r < 10; r++) {
		hs_err_t err;
		f->now += 60;
		fx_snapshot(f, s);
		assert_int_equal(hs_engine_round(e, s, p, &err), 0);
		const hs_plan_job_t *pa = plan_job(p, 1);
		if (pa && pa->op == HS_PLAN_SUSPEND)
			return;
		fx_apply(f, e, s, p, &c);
		hs_plan_free(p);
		hs_snap_free(s);
	}
	fail_msg("no round suspended job 1");
}

/* Issue 28 item 7: the "suspended by us" mark, which tells later rounds
 * to resume a job, reached the state file only with the save after the
 * round. A slurmctld crash between the suspend and that save left the job
 * suspended with no mark: an administrator's suspend, left alone for
 * good. The plugin now saves the state before it carries out a plan with
 * suspends (agent.c), and the plan's suspends are marked when planned.
 * (1) The state saved between the round and its apply, restored after a
 * crash once the suspend was done, still resumes the job. (2) A planned
 * suspend that does not happen (the job was suspended by someone else
 * meanwhile) leaves no mark: the job is left alone. */
static void test_suspend_mark_saved_first(void **state)
{
	(void)state;
	const char *conf = "PreemptMode=suspend\nRoundLength=60\n";
	for (int other = 0; other < 2; other++) {
		fx_t f;
		fx_init(&f, "v100:1:1");
		fx_job_t *a = fx_add(&f, 1, 1);
		hs_engine_t *e = engine_with(conf);
		hs_engine_set_packing(e, 1);
		hs_snap_t s;
		hs_plan_t p;
		fx_counts_t c;
		hs_err_t err;
		plan_first_suspend(&f, e, &s, &p);
		json_object *st = hs_engine_save(e, &err); /* agent.c's save before the apply */
		assert_non_null(st);
		if (other)
			a->state = HS_SJ_SUSPENDED; /* scontrol suspend, before our act */
		fx_apply(&f, e, &s, &p, &c);
		hs_plan_free(&p);
		hs_snap_free(&s);
		assert_int_equal(a->state, HS_SJ_SUSPENDED);
		/* (2): the packed start needs its partner running, so job 2
		 * waits and the suspend is not carried out */
		assert_int_equal(fx_find(&f, 2)->state, other ? HS_SJ_PENDING : HS_SJ_RUNNING);
		if (!other) {
			/* crash: the save after the round never happened */
			hs_engine_free(e);
			e = engine_with(conf);
			hs_engine_set_packing(e, 1);
			if (hs_engine_restore(e, st, &err) < 0)
				fail_msg("restore: %s", err.msg);
		}
		json_object_put(st);
		fx_find(&f, 2)->gone = 1; /* the GPU is free for job 1 again */
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		if (!other) {
			assert_int_equal(c.resume, 1);
			assert_int_equal(a->state, HS_SJ_RUNNING);
		} else {
			assert_int_equal(c.resume, 0);
			assert_int_equal(a->state, HS_SJ_SUSPENDED);
		}
		hs_plan_free(&p);
		hs_engine_free(e);
	}
}

/* active_total of job id in the engine's saved state (-1: no entry). */
static double saved_active_total(const hs_engine_t *e, uint32_t id)
{
	hs_err_t err;
	json_object *st = hs_engine_save(e, &err), *jobs, *v;
	double r = -1;
	assert_non_null(st);
	assert_true(json_object_object_get_ex(st, "jobs", &jobs));
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		if (json_object_object_get_ex(j, "id", &v) && json_object_get_int64(v) == id &&
		    json_object_object_get_ex(j, "active_total", &v))
			r = json_object_get_double(v);
	}
	json_object_put(st);
	return r;
}

/* A job no single GPU type can hold (3 GPUs: two v100 nodes, one k80)
 * that asked for no type is handed to Slurm's placement (HS_PLAN_SLURM,
 * outside the policy); the same job asking for v100 only waits, with the
 * reason why. */
static void test_no_single_type_to_slurm(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:1,k80:1:1");
	fx_add(&f, 1, 3);
	fx_add(&f, 2, 3)->type = "v100";
	hs_engine_t *e = engine_with(NULL);
	hs_snap_t s;
	hs_plan_t p;
	hs_err_t err;
	fx_snapshot(&f, &s);
	assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
	assert_non_null(plan_job(&p, 1));
	assert_int_equal(plan_job(&p, 1)->op, HS_PLAN_SLURM);
	assert_string_equal(hs_plan_op_name(HS_PLAN_SLURM), "slurm");
	assert_non_null(strstr(plan_job(&p, 1)->reason, "no single GPU type can hold its 3 GPUs"));
	assert_int_equal(p.nstart, 0); /* not the round's start */
	assert_non_null(plan_job(&p, 2));
	assert_int_equal(plan_job(&p, 2)->op, HS_PLAN_NONE);
	assert_non_null(strstr(plan_job(&p, 2)->reason, "of type v100"));
	hs_plan_free(&p);
	hs_snap_free(&s);
	hs_engine_free(e);
}

/* doc's text with flags, into a copy (NULL when serialization fails). */
static char *text_of(json_object *doc, int flags)
{
	const char *t = json_object_to_json_string_ext(doc, flags);
	return t ? strdup(t) : NULL;
}

/* The lazy state and status documents (json_lazy.h: per-job arrays built
 * while serialized, what the plugin writes) serialize to exactly the
 * text of the ordinary ones, plain and spaced; pretty output, which they
 * do not support, fails instead of writing something else. Also for an
 * engine without jobs (empty arrays). */
static void test_lazy_documents_same_text(void **state)
{
	(void)state;
	static const int flags[] = { JSON_C_TO_STRING_PLAIN, JSON_C_TO_STRING_SPACED };
	for (int with_jobs = 0; with_jobs < 2; with_jobs++) {
		fx_t f;
		fx_init(&f, "v100:1:2,k80:1:2");
		if (with_jobs) {
			for (uint32_t id = 1; id <= 6; id++)
				fx_add(&f, id, 1)->ckpt = 1;
			fx_measure(fx_find(&f, 1), "v100", 10);
		}
		hs_engine_t *e = engine_with(NULL);
		hs_plan_t p;
		fx_rounds(&f, e, 3);
		hs_snap_t s;
		hs_err_t err;
		fx_snapshot(&f, &s);
		assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
		json_object *docs[2][2] = {
			{ hs_engine_save(e, &err), hs_engine_save_lazy(e, &err) },
			{ hs_engine_status(e, &s, &p, NULL, f.now, &err),
			  hs_engine_status_lazy(e, &s, &p, NULL, f.now, &err) },
		};
		for (int d = 0; d < 2; d++) {
			assert_non_null(docs[d][0]);
			assert_non_null(docs[d][1]);
			for (int k = 0; k < 2; k++) {
				char *eager = text_of(docs[d][0], flags[k]);
				char *lazy = text_of(docs[d][1], flags[k]);
				assert_non_null(eager);
				assert_non_null(lazy);
				assert_string_equal(lazy, eager);
				if (with_jobs)
					assert_non_null(strstr(eager, d ? "\"reason\"" : "\"recv_total\""));
				free(eager);
				free(lazy);
			}
			assert_null(json_object_to_json_string_ext(docs[d][1], JSON_C_TO_STRING_PRETTY));
			json_object_put(docs[d][0]);
			json_object_put(docs[d][1]);
		}
		hs_plan_free(&p);
		hs_snap_free(&s);
		hs_engine_free(e);
	}
}

/* recv_total of job id on GPU type `type` in the saved state (-1: none),
 * and the number of types the state lists. */
static double saved_recv_total(const hs_engine_t *e, uint32_t id, const char *type, int *ntypes)
{
	hs_err_t err;
	json_object *st = hs_engine_save(e, &err), *jobs, *types, *v;
	double r = -1;
	int t = -1;
	assert_non_null(st);
	assert_true(json_object_object_get_ex(st, "types", &types));
	*ntypes = (int)json_object_array_length(types);
	for (int k = 0; k < *ntypes; k++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(types, (size_t)k)), type))
			t = k;
	assert_true(json_object_object_get_ex(st, "jobs", &jobs));
	for (size_t i = 0; t >= 0 && i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		if (json_object_object_get_ex(j, "id", &v) && json_object_get_int64(v) == id &&
		    json_object_object_get_ex(j, "recv_total", &v)) {
			assert_int_equal(json_object_array_length(v), *ntypes);
			r = json_object_get_double(json_object_array_get_idx(v, (size_t)t));
		}
	}
	json_object_put(st);
	return r;
}

/* The accounting's per-type rows are sized by the types in use (8 at
 * first) and grow when more types appear: a job's time received on the
 * first type survives the growth to 10 types, a save and a restore. */
static void test_accounting_types_grow(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "t0:1:1");
	fx_add(&f, 1, 1)->ckpt = 1; /* preemptible: accounted */
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	fx_rounds(&f, e, 3);
	int nt = 0;
	double before = saved_recv_total(e, 1, "t0", &nt);
	assert_int_equal(nt, 1);
	if (before < 360)
		fail_msg("recv_total on t0 %g after three rounds", before);
	for (int k = 1; k < 10; k++) { /* nine more types, one node each */
		int n = f.nnodes++;
		snprintf(f.names[n], sizeof(f.names[n]), "t%d-1", k);
		snprintf(f.types[n], sizeof(f.types[n]), "t%d", k);
		f.ngpus[n] = 1;
		f.avail[n] = 1;
		fx_add(&f, (uint32_t)(100 + k), 1)->ckpt = 1;
	}
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	double after = saved_recv_total(e, 1, "t0", &nt);
	assert_int_equal(nt, 10);
	if (after < before)
		fail_msg("recv_total on t0 went from %g to %g when types grew", before, after);

	hs_err_t err;
	json_object *st = hs_engine_save(e, &err);
	assert_non_null(st);
	char *text = strdup(json_object_to_json_string(st));
	hs_engine_t *e2 = engine_with(NULL);
	if (hs_engine_restore(e2, st, &err) < 0)
		fail_msg("restore: %s", err.msg);
	json_object_put(st);
	json_object *st2 = hs_engine_save(e2, &err);
	assert_string_equal(text, json_object_to_json_string(st2));
	json_object_put(st2);
	free(text);
	f.now += 360;
	assert_int_equal(fx_round(&f, e2, &p, &c), 0);
	hs_plan_free(&p);
	assert_true(saved_recv_total(e2, 1, "t0", &nt) >= after);
	hs_engine_free(e);
	hs_engine_free(e2);
}

/* A job id Slurm gives to a new job (a slurmctld crash lost the job that
 * had it) starts with fresh accounting; a requeued job (new submit time,
 * higher restart_cnt) keeps its own. */
static void test_reused_job_id(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->ckpt = 1; /* preemptible: in the policy problem, so accounted */
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	fx_rounds(&f, e, 3);
	double before = saved_active_total(e, 1);
	if (before < 360)
		fail_msg("active_total %g after three rounds", before);
	/* requeued: same job, its accounting goes on */
	fx_requeue(a);
	a->submit = f.now;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_true(saved_active_total(e, 1) > before);
	/* the id now belongs to a job submitted after the crash */
	f.now += 360;
	a->state = HS_SJ_PENDING;
	a->nheld = 0;
	a->restart_cnt = 0;
	a->submit = f.now - 5;
	log_needle = "belong to new jobs";
	nlogs_with = 0;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	log_needle = "";
	double after = saved_active_total(e, 1);
	if (after > 360 + 1e-6)
		fail_msg("active_total %g: the new job inherited %g s", after, before);
	assert_int_equal(nlogs_with, 1);
	hs_engine_free(e);
}

/* A copy of e's state in a new engine (a slurmctld restart) whose
 * settle time (hs_engine_set_settle) is `settle` seconds. */
static hs_engine_t *restarted(const hs_engine_t *e, const char *conf, int settle)
{
	hs_err_t err;
	json_object *st = hs_engine_save(e, &err);
	assert_non_null(st);
	hs_engine_t *e2 = engine_with(conf);
	hs_engine_set_settle(e2, settle);
	if (hs_engine_restore(e2, st, &err) < 0)
		fail_msg("restore: %s", err.msg);
	json_object_put(st);
	return e2;
}

/* doc/robustness.md finding 1: slurmctld was killed within its state
 * save interval after hetsched started a job, so the restarted slurmctld
 * has that incarnation pending while it still runs on its node. It is
 * not started again (on that very node) until the settle time has
 * passed, logged once; a requeued job (higher restart_cnt) is not held. */
static void test_lost_start_held(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1,k80:1:1");
	fx_job_t *a = fx_add(&f, 1, 1), *b = fx_add(&f, 2, 1);
	a->ckpt = b->ckpt = 1;
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_int_equal(b->state, HS_SJ_RUNNING);
	/* the crash: a's start is lost; b was requeued by someone else */
	a->state = HS_SJ_PENDING;
	a->nheld = 0;
	fx_requeue(b);
	hs_engine_t *e2 = restarted(e, NULL, 36);
	hs_engine_free(e);
	f.now += 3;
	log_needle = "without hetsched's start";
	nlogs_with = 0;
	assert_int_equal(fx_round(&f, e2, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_PENDING);
	assert_int_equal(b->state, HS_SJ_RUNNING);
	f.now += 20;
	assert_int_equal(fx_round(&f, e2, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_PENDING);
	assert_int_equal(nlogs_with, 1);
	log_needle = "";
	/* settled: started again */
	f.now += 20;
	assert_int_equal(fx_round(&f, e2, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	hs_engine_free(e2);
}

/* doc/robustness.md finding 1b: hetsched requeued a job after its
 * checkpoint; the restarted slurmctld has that incarnation running. The
 * restored op requeues it again, once; an engine that was not restarted
 * keeps waiting as before. */
static void test_lost_requeue_repeated(void **state)
{
	(void)state;
	hs_engine_t *e = engine_with("CheckpointGrace=60\nRestartDelay=2\n");
	hs_plan_job_t pj = { .id = 7, .op = HS_PLAN_REQUEUE, .restart_cnt = 3 };
	int64_t t0 = 5000, begin = 0;
	const hs_target_t *to = NULL;
	assert_int_equal(hs_engine_applied(e, &pj, 1, t0, 0, NULL), 0);
	hs_op_view_t v = { .exists = 1, .state = HS_SJ_RUNNING, .restart_cnt = 3 };
	assert_int_equal(hs_engine_op_step(e, 7, &v, t0 + 1, &begin, &to),
			 HS_OPA_WAIT);
	hs_engine_t *e2 = restarted(e, NULL, 36);
	hs_engine_free(e);
	log_needle = "the requeue was lost";
	nlogs_with = 0;
	assert_int_equal(hs_engine_op_step(e2, 7, &v, t0 + 30, &begin, &to),
			 HS_OPA_REQUEUE);
	hs_engine_op_result(e2, 7, HS_OPA_REQUEUE, 1, t0 + 30);
	assert_int_equal(nlogs_with, 1);
	log_needle = "";
	/* once: Slurm still shows it running (being requeued): wait */
	assert_int_equal(hs_engine_op_step(e2, 7, &v, t0 + 31, &begin, &to),
			 HS_OPA_WAIT);
	/* then pending, the new incarnation: the op ends as usual */
	v = (hs_op_view_t){ .exists = 1, .state = HS_SJ_PENDING, .restart_cnt = 4 };
	assert_int_equal(hs_engine_op_step(e2, 7, &v, t0 + 32, &begin, &to),
			 HS_OPA_DROP);
	hs_engine_op_result(e2, 7, HS_OPA_DROP, 1, t0 + 32);
	assert_int_equal(hs_engine_nops(e2), 0);
	hs_engine_free(e2);
}

/* Finding 1 with a requeue before the start: hetsched requeued a job and
 * restarted it (restart_cnt 1); the restarted slurmctld lost both and
 * has restart 0 running. Both were hetsched's: the job is requeued
 * again (not left running where its processes were stopped), out of the
 * round meanwhile. */
static void test_lost_requeue_and_start(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->ckpt = 1;
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	/* requeued and restarted by an op (restart 1) */
	hs_plan_job_t pj = { .id = 1, .op = HS_PLAN_START, .restart_cnt = 1 };
	assert_int_equal(hs_engine_applied(e, &pj, 1, f.now + 10, 0, NULL), 0);
	hs_engine_t *e2 = restarted(e, NULL, 36);
	hs_engine_free(e);
	f.now += 30; /* Slurm has restart 0 running */
	f.no_ticks = 1; /* the round alone, then the op's step below */
	log_needle = "the requeue was lost";
	nlogs_with = 0;
	assert_int_equal(fx_round(&f, e2, &p, &c), 0);
	assert_int_equal(c.ckpt + c.requeue, 0);
	const hs_plan_job_t *q = plan_job(&p, 1);
	if (q) /* leaving: no plan for it */
		assert_int_equal(q->op, HS_PLAN_NONE);
	hs_plan_free(&p);
	assert_int_equal(nlogs_with, 1);
	log_needle = "";
	assert_int_equal(hs_engine_nops(e2), 1);
	int64_t begin = 0;
	const hs_target_t *to = NULL;
	hs_op_view_t v = { .exists = 1, .state = HS_SJ_RUNNING, .restart_cnt = 0 };
	assert_int_equal(hs_engine_op_step(e2, 1, &v, f.now + 1, &begin, &to),
			 HS_OPA_REQUEUE);
	hs_engine_free(e2);
}

/* After a restore, running jobs are not checkpointed or requeued until
 * the settle time has passed (Slurm may report as running a job that
 * ended meanwhile): the same round with settle 0 preempts. */
static void test_settle_no_preemption(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1,k80:1:1");
	double thr[3][2] = { { 10, 1 }, { 4, 3 }, { 6, 2 } };
	for (int i = 0; i < 3; i++) {
		fx_job_t *j = fx_add(&f, 201 + (uint32_t)i, 1);
		fx_measure(j, "v100", thr[i][0]);
		fx_measure(j, "k80", thr[i][1]);
		j->ckpt = 1;
	}
	hs_engine_t *e = engine_with("RoundLength=360\n");
	hs_plan_t p, p2;
	fx_counts_t c;
	hs_err_t err;
	int seen = 0;
	for (int r = 0; r < 100 && !seen; r++) {
		hs_snap_t s;
		fx_snapshot(&f, &s);
		hs_engine_t *e0 = restarted(e, "RoundLength=360\n", 0);
		hs_engine_t *e2 = restarted(e, "RoundLength=360\n", 100);
		assert_int_equal(hs_engine_round(e0, &s, &p, &err), 0);
		assert_int_equal(hs_engine_round(e2, &s, &p2, &err), 0);
		hs_snap_free(&s);
		if (p.ncheckpoint + p.nrequeue > 0) {
			seen = 1;
			assert_int_equal(p2.ncheckpoint + p2.nrequeue, 0);
			int kept = 0;
			for (int i = 0; i < p2.njobs; i++)
				kept += p2.jobs[i].op == HS_PLAN_KEEP &&
					strstr(p2.jobs[i].reason, "slurmctld restarted") != NULL;
			assert_true(kept > 0);
		}
		hs_plan_free(&p);
		hs_plan_free(&p2);
		hs_engine_free(e0);
		hs_engine_free(e2);
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		hs_plan_free(&p);
		f.now += 360;
	}
	assert_true(seen);
	hs_engine_free(e);
}

/* A running GPU job on GPUs the snapshot does not model (an
 * index above its node's count; a node with several GPU types or no
 * File=, which the snapshot gives 0 GPUs) made every round fail. Now the
 * job is left alone, the free GPUs of its node are not given out, the
 * rest of the cluster is scheduled, and it is logged once. */
static void test_unmodelled_gpus(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:2,k80:1:2");
	f.ngpus[2] = 0; /* k80-1: mixed types, no GPUs modelled */
	fx_job_t *a = fx_add(&f, 1, 1);
	a->state = HS_SJ_RUNNING;
	a->nheld = 1;
	a->held[0] = (hs_sgpu_t){ .node = 0, .gpu = 3 }; /* v100-1 has 2 */
	a->start = f.now - 100;
	fx_job_t *m = fx_add(&f, 2, 1);
	m->state = HS_SJ_RUNNING;
	m->nheld = 1;
	m->held[0] = (hs_sgpu_t){ .node = 2, .gpu = 0 };
	m->start = f.now - 100;
	fx_add(&f, 3, 1);
	fx_add(&f, 4, 1);
	fx_add(&f, 5, 1);
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	log_needle = "does not model";
	nlogs_with = 0;
	for (int r = 0; r < 2; r++) {
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		assert_int_equal(plan_job(&p, 1)->op, HS_PLAN_NONE);
		assert_int_equal(plan_job(&p, 2)->op, HS_PLAN_NONE);
		assert_non_null(strstr(plan_job(&p, 1)->reason, "does not model"));
		hs_plan_free(&p);
		f.now += 360;
	}
	assert_int_equal(nlogs_with, 2); /* once per job, not per round */
	/* only v100-2's two GPUs were given out: v100-1 is not scheduled */
	int started = 0;
	for (uint32_t id = 3; id <= 5; id++) {
		fx_job_t *j = fx_find(&f, id);
		if (j->state == HS_SJ_RUNNING) {
			started++;
			assert_int_equal(j->held[0].node, 1);
		}
	}
	assert_int_equal(started, 2);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	log_needle = "";
	hs_engine_free(e);
}

/* --hs-steps near its limit (1e13 here, the limit is 1e15)
 * next to jobs of a few thousand steps made the makespan LP starve the
 * small jobs (below GLPK's tolerance), so every solve failed and the
 * allocation froze. Now the solve succeeds and every job gets a share. */
static void test_makespan_huge_steps(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:2,k80:1:2");
	const double v[] = { 10, 5, 3, 4 }, k[] = { 1, 2, 2.5, 1 };
	const long steps[] = { 1000, 2000, 3000, 10000000000000L };
	for (int i = 0; i < 4; i++) {
		fx_job_t *j = fx_add(&f, (uint32_t)(i + 1), 1);
		fx_measure(j, "v100", v[i]);
		fx_measure(j, "k80", k[i]);
		j->steps = steps[i];
	}
	hs_engine_t *e = engine_with("Policy=min_total_duration_perf\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_true(p.solved);
	assert_false(p.solve_failed);
	assert_int_equal(c.start, 4);
	hs_plan_free(&p);
	/* every job has a share in the allocation in force (saved state) */
	hs_err_t err;
	json_object *st = hs_engine_save(e, &err);
	assert_non_null(st);
	json_object *jobs = json_object_object_get(st, "jobs");
	assert_int_equal(json_object_array_length(jobs), 4);
	for (size_t i = 0; i < 4; i++) {
		json_object *x = json_object_object_get(json_object_array_get_idx(jobs, i), "x");
		double sum = 0;
		for (size_t t = 0; t < json_object_array_length(x); t++)
			sum += json_object_get_double(json_object_array_get_idx(x, t));
		assert_true(sum > 0);
	}
	json_object_put(st);
	hs_engine_free(e);
}

/* One job whose numbers the solver cannot handle (measured
 * 1e11 steps/s on one type and 2e-6 on the other, one step left, a
 * billion seconds old: finish-time fairness's coefficients overflow) made
 * every solve fail, freezing the allocation for everyone. Now that job
 * is left out of the round's solve, logged once, and the others get
 * their allocation. */
static void test_unsolvable_job_left_out(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:2,k80:1:2");
	f.now = 2000000000;
	const double v[] = { 1e11, 5, 3, 4 }, k[] = { 2e-6, 2, 2.5, 1 };
	const long steps[] = { 1, 2000, 3000, 4000 };
	for (int i = 0; i < 4; i++) {
		fx_job_t *j = fx_add(&f, (uint32_t)(i + 1), 1);
		fx_measure(j, "v100", v[i]);
		fx_measure(j, "k80", k[i]);
		j->steps = steps[i];
		j->ckpt = 1;
	}
	fx_find(&f, 1)->submit = f.now - 1000000000;
	/* RateRatioMax=0: without the ceiling on ratios between types
	 * (sched/bound.h), which holds this job to 100x, the safety net
	 * for whatever still reaches the solver is what is tested */
	hs_engine_t *e = engine_with("Policy=finish_time_fairness_perf\nRateRatioMax=0\n");
	hs_plan_t p;
	fx_counts_t c;
	log_needle = "left out";
	nlogs_with = 0;
	for (int r = 0; r < 2; r++) {
		hs_snap_t s;
		hs_err_t err;
		fx_snapshot(&f, &s);
		assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
		hs_snap_free(&s);
		assert_true(p.solved);
		assert_false(p.solve_failed);
		hs_plan_free(&p);
		hs_engine_set_packing(e, 0);
		f.now += 10;
		/* a new job forces a new solve next round */
		if (r == 0)
			fx_add(&f, 5, 1)->steps = 100;
	}
	assert_int_equal(nlogs_with, 1);
	(void)c;
	log_needle = "";
	hs_engine_free(e);
}

/* A fake solver for hs_solve_leaving_out: fails when the problem holds a
 * job named in bad[] (or both of pair[]), with msg; counts its calls. */
typedef struct fake_solver {
	const char *bad[4];
	const char *pair[2];
	const char *msg;
	int calls;
} fake_solver_t;

static int has_job(const hs_problem_t *p, const char *id)
{
	for (int m = 0; id && m < p->njobs; m++)
		if (!strcmp(p->jobs[m].id, id))
			return 1;
	return 0;
}

static int fake_solve(void *arg, const hs_problem_t *p, hs_alloc_t *out, hs_err_t *err)
{
	fake_solver_t *f = arg;
	f->calls++;
	assert_int_equal(hs_alloc_init(out, p->njobs, p->cluster.ntypes, err), 0);
	int fail = has_job(p, f->pair[0]) && has_job(p, f->pair[1]);
	for (int k = 0; k < 4; k++)
		fail |= has_job(p, f->bad[k]);
	if (fail)
		return hs_err_set(err, "%s", f->msg);
	for (int m = 0; m < p->njobs; m++)
		out->x[(size_t)m * p->cluster.ntypes] = 0.5;
	return 0;
}

/* The offender search itself: two bad jobs among 20 are found and left
 * out, the others keep the solver's rows; a time-out is not searched; a
 * failure that needs two jobs together is not pinned on either. */
static void test_solve_leaving_out(void **state)
{
	(void)state;
	hs_problem_t p;
	memset(&p, 0, sizeof(p));
	hs_err_t err;
	assert_int_equal(hs_cluster_init(&p.cluster, 1, &err), 0);
	p.cluster.names[0] = strdup("v100");
	p.cluster.count[0] = 4;
	assert_int_equal(hs_problem_alloc_jobs(&p, 20, &err), 0);
	for (int m = 0; m < 20; m++) {
		char id[16];
		snprintf(id, sizeof(id), "%d", m + 1);
		p.jobs[m].id = strdup(id);
	}
	unsigned char left[20];
	int nl;
	hs_alloc_t a;
	fake_solver_t f = { .bad = { "7", "13" }, .msg = "LP: bad coefficient" };
	assert_int_equal(hs_solve_leaving_out(fake_solve, &f, &p, &a, left, &nl, &err), 0);
	assert_int_equal(nl, 2);
	for (int m = 0; m < 20; m++) {
		int bad = m == 6 || m == 12;
		assert_int_equal(left[m], bad);
		assert_true(a.x[m] == (bad ? 0.0 : 0.5));
	}
	assert_true(f.calls <= HS_LEAVE_OUT_MAX_SOLVES + 2);
	hs_alloc_free(&a);

	fake_solver_t t = { .bad = { "7" }, .msg = "LP solver: the time budget of the policy solve (30 s) is used up" };
	assert_int_equal(hs_solve_leaving_out(fake_solve, &t, &p, &a, left, &nl, &err), -1);
	assert_int_equal(t.calls, 1);
	hs_alloc_free(&a);

	fake_solver_t two = { .pair = { "3", "4" }, .msg = "needs both" };
	assert_int_equal(hs_solve_leaving_out(fake_solve, &two, &p, &a, left, &nl, &err), -1);
	assert_non_null(strstr(err.msg, "needs both"));
	for (int m = 0; m < 20; m++)
		assert_int_equal(left[m], 0);
	hs_alloc_free(&a);
	hs_problem_free(&p);
}

/* Gandiva time slicing: PreemptMode=suspend with the packing interface,
 * two jobs that cannot checkpoint, one GPU. The newcomer is started onto
 * the running job's GPU (packed), which is suspended after it; from then
 * on both keep the GPU and the rounds alternate them by suspend/resume,
 * with nothing requeued and the GPU never idle. */
static void timeslice_pair(int a_batch, int a_requeue, int b_batch, int b_requeue)
{
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->batch = a_batch;
	a->requeue_ok = a_requeue;
	hs_engine_t *e = engine_with("PreemptMode=suspend\nRoundLength=60\n");
	hs_engine_set_packing(e, 1);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(c.start, 1);
	hs_plan_free(&p);
	fx_job_t *b = fx_add(&f, 2, 1);
	b->batch = b_batch;
	b->requeue_ok = b_requeue;
	int sliced = 0, suspends = 0, resumes = 0, switches = 0;
	uint32_t last_runner = 1;
	for (int r = 0; r < 10; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		const hs_plan_job_t *pb = plan_job(&p, 2), *pa = plan_job(&p, 1);
		if (pb && pb->op == HS_PLAN_START) {
			/* the first slice: packed onto job 1, which is
			 * suspended after the start */
			assert_int_equal(pb->target.partner, 1);
			assert_int_equal(pa->op, HS_PLAN_SUSPEND);
			assert_int_equal(pa->slice_with, 2);
			assert_non_null(strstr(pb->reason, "time-sliced with job 1"));
			sliced++;
		}
		assert_int_equal(c.requeue + c.ckpt + c.start_fail, 0);
		suspends += c.suspend;
		resumes += c.resume;
		hs_plan_free(&p);
		/* exactly one of the two runs, both hold the one GPU */
		assert_int_equal((a->state == HS_SJ_RUNNING) + (b->state == HS_SJ_RUNNING), 1);
		if (b->state != HS_SJ_PENDING) {
			assert_int_equal(a->nheld, 1);
			assert_int_equal(b->nheld, 1);
			assert_int_equal(a->held[0].gpu, b->held[0].gpu);
		}
		uint32_t runner = a->state == HS_SJ_RUNNING ? 1 : 2;
		switches += runner != last_runner;
		last_runner = runner;
	}
	assert_int_equal(sliced, 1);
	assert_int_equal(a->restart_cnt + b->restart_cnt, 0);
	/* they take turns: several switches, each a suspend (+ a resume
	 * after the first) */
	if (switches < 3 || suspends < 3 || resumes < 2)
		fail_msg("switches %d, suspends %d, resumes %d", switches, suspends, resumes);
	/* one leaves: the other has the GPU alone (resumed if needed) */
	fx_job_t *off = a->state == HS_SJ_RUNNING ? b : a;
	(a->state == HS_SJ_RUNNING ? a : b)->gone = 1;
	f.now += 60;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(off->state, HS_SJ_RUNNING);
	assert_int_equal(c.resume, 1);
	hs_plan_free(&p);
	hs_engine_free(e);
}

static void test_timeslice(void **state)
{
	(void)state;
	timeslice_pair(1, 1, 1, 1);
}

/* Issue 28: a time-slice pair of jobs that cannot be moved (requeue=0),
 * and a third job that wants their GPU. Its start is held back (neither
 * holder can leave), but the pair must still take turns: the GPU used to
 * stay with whichever ran when the third job came, round after round
 * (kept because "its GPUs cannot be handed over"), so the other waited
 * suspended for the whole run. */
static void test_timeslice_pair_held(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->requeue_ok = 0;
	hs_engine_t *e = engine_with("PreemptMode=suspend\nRoundLength=60\n");
	hs_engine_set_packing(e, 1);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	fx_job_t *b = fx_add(&f, 2, 1);
	b->requeue_ok = 0;
	for (int r = 0; r < 3 && b->state == HS_SJ_PENDING; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		hs_plan_free(&p);
	}
	assert_int_not_equal(b->state, HS_SJ_PENDING); /* time-sliced */
	fx_job_t *x = fx_add(&f, 3, 1);
	int switches = 0;
	uint32_t last = a->state == HS_SJ_RUNNING ? 1 : 2;
	for (int r = 0; r < 10; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		assert_int_equal(c.requeue + c.start_fail, 0);
		hs_plan_free(&p);
		assert_int_equal(x->state, HS_SJ_PENDING);
		/* exactly one of the pair runs: the GPU is never idle */
		assert_int_equal((a->state == HS_SJ_RUNNING) + (b->state == HS_SJ_RUNNING), 1);
		uint32_t now = a->state == HS_SJ_RUNNING ? 1 : 2;
		switches += now != last;
		last = now;
	}
	if (switches < 3)
		fail_msg("the pair switched %d times in 10 rounds with job 3 waiting", switches);
	hs_engine_free(e);
}

/* The preemption stage's rules, case by case (engine_preempt.c). Under
 * PreemptMode=suspend a job that cannot be moved without losing its work
 * or that Slurm cannot requeue is suspended, never requeued, even when
 * the round moves it; without time slicing it holds its GPUs like a
 * pinned job (PinnedAdmission gates it). Issue 28: it used to be pinned
 * (salloc, --no-requeue), or requeued losing its work when moved. */
static void test_preempt_rules(void **state)
{
	(void)state;
	const struct {
		hs_preempt_mode_t mode;
		int slice, ckpt, batch, requeue_ok;
		int able, movable, holds;
		hs_plan_op_t stop, move, move_susp;
	} c[] = {
		/* checkpoint + requeue: only what restarts keeps work */
		{ HS_PREEMPT_REQUEUE, 0, 1, 1, 1, 1, 1, 0, HS_PLAN_CHECKPOINT, HS_PLAN_CHECKPOINT, HS_PLAN_REQUEUE },
		{ HS_PREEMPT_REQUEUE, 0, 0, 1, 1, 0, 0, 1, HS_PLAN_REQUEUE, HS_PLAN_REQUEUE, HS_PLAN_NONE },
		{ HS_PREEMPT_REQUEUE, 0, 1, 0, 1, 0, 0, 1, HS_PLAN_REQUEUE, HS_PLAN_REQUEUE, HS_PLAN_NONE },
		/* suspend: everything not opted out may be suspended */
		{ HS_PREEMPT_SUSPEND, 1, 1, 1, 1, 1, 1, 0, HS_PLAN_SUSPEND, HS_PLAN_CHECKPOINT, HS_PLAN_REQUEUE },
		{ HS_PREEMPT_SUSPEND, 1, 0, 1, 1, 1, 0, 0, HS_PLAN_SUSPEND, HS_PLAN_SUSPEND, HS_PLAN_NONE },
		{ HS_PREEMPT_SUSPEND, 1, 1, 0, 1, 1, 0, 0, HS_PLAN_SUSPEND, HS_PLAN_SUSPEND, HS_PLAN_NONE },
		{ HS_PREEMPT_SUSPEND, 1, 1, 1, 0, 1, 0, 0, HS_PLAN_SUSPEND, HS_PLAN_SUSPEND, HS_PLAN_NONE },
		/* suspend without time slicing: unmovable jobs hold */
		{ HS_PREEMPT_SUSPEND, 0, 0, 0, 0, 1, 0, 1, HS_PLAN_SUSPEND, HS_PLAN_SUSPEND, HS_PLAN_NONE },
		{ HS_PREEMPT_SUSPEND, 0, 1, 1, 1, 1, 1, 0, HS_PLAN_SUSPEND, HS_PLAN_CHECKPOINT, HS_PLAN_REQUEUE },
		{ HS_PREEMPT_OFF, 0, 1, 1, 1, 0, 0, 1, HS_PLAN_CHECKPOINT, HS_PLAN_CHECKPOINT, HS_PLAN_NONE },
	};
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		hs_preempt_rules_t r = { .mode = c[k].mode, .slice = c[k].slice };
		hs_preempt_job_t j = { .ckpt = c[k].ckpt, .batch = c[k].batch,
				       .requeue_ok = c[k].requeue_ok };
		if (hs_preempt_able(&r, &j) != c[k].able || hs_preempt_movable(&r, &j) != c[k].movable ||
		    hs_preempt_holds(&r, &j) != c[k].holds)
			fail_msg("case %zu: able %d movable %d holds %d", k, hs_preempt_able(&r, &j),
				 hs_preempt_movable(&r, &j), hs_preempt_holds(&r, &j));
		if (!c[k].able)
			continue;
		assert_int_equal(hs_preempt_stop(&r, &j, 0), c[k].stop);
		if (hs_preempt_stop(&r, &j, 1) != c[k].move)
			fail_msg("case %zu: moving gives %d", k, hs_preempt_stop(&r, &j, 1));
		assert_int_equal(hs_preempt_move_suspended(&r, &j), c[k].move_susp);
		/* opting out of preemption always pins */
		j.no_preempt = 1;
		assert_int_equal(hs_preempt_able(&r, &j), 0);
		assert_int_equal(hs_preempt_holds(&r, &j), 1);
	}
}

/* Issue 28: a job Slurm cannot requeue (salloc/srun, --no-requeue) can
 * still be suspended, so PreemptMode=suspend time-slices it like any
 * other instead of pinning it. It used to be pinned: the newcomer waited
 * for the whole run, and opting out of requeue paid. */
static void test_timeslice_unrequeueable(void **state)
{
	(void)state;
	timeslice_pair(0, 0, 1, 1); /* the running job is an salloc */
	timeslice_pair(1, 0, 1, 1); /* the running job has --no-requeue */
	timeslice_pair(1, 1, 0, 0); /* the newcomer is an salloc */
}

/* Issue 28 under time slicing: a job that can be suspended but never
 * moved keeps one of its GPU's two places for its whole life. One GPU,
 * user 1's unmovable job runs; user 1 submits a second one (first in
 * the queue) and user 2 a movable one. User 1 already holds its half of
 * the places, so its second job waits (with a reason) and user 2's job
 * is the one time-sliced with the first. Before, the second unmovable
 * job became the partner and the GPU was user 1's for good: user 2
 * waited every round. When the first one ends, the second gets in. */
static void test_timeslice_unmovable_share(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->requeue_ok = 0;
	a->uid = 1;
	hs_engine_t *e = engine_with("PreemptMode=suspend\nRoundLength=60\n"
				     "PinnedAdmission=share\n"); /* the default */
	hs_engine_set_packing(e, 1);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	fx_job_t *b = fx_add(&f, 2, 1), *d = fx_add(&f, 3, 1);
	b->requeue_ok = 0;
	b->uid = 1;
	b->prio = 1000;
	d->ckpt = 1;
	d->uid = 2;
	int d_ran = 0, b_waited = 0;
	for (int r = 0; r < 6; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		const hs_plan_job_t *pb = plan_job(&p, 2);
		b_waited += b->state == HS_SJ_PENDING && pb &&
			    strstr(pb->reason, "time slices") != NULL;
		d_ran += d->state == HS_SJ_RUNNING;
		hs_plan_free(&p);
	}
	if (b_waited < 6 || d_ran < 2)
		fail_msg("user 1's second job waited %d of 6 rounds, user 2's ran %d", b_waited,
			 d_ran);
	a->gone = 1;
	int b_in = 0;
	for (int r = 0; r < 3; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		b_in += b->state == HS_SJ_RUNNING;
		hs_plan_free(&p);
	}
	assert_true(b_in > 0);
	hs_engine_free(e);
}

/* Two GPUs of one type, each holding a time-slice pair of jobs that
 * can be suspended but never moved: every round each GPU runs one of
 * its own pair. The mechanism did not know where a suspended job holds
 * its GPUs and could place each pair's job on the other GPU, where it
 * cannot go: then all four stayed suspended for good, both GPUs idle
 * (bench/strategic.sh --conf PreemptMode=suspend, seed 1). The fairness
 * gate on unmovable starts (PinnedAdmission=share) is off here so that
 * both pairs form. */
static void pairs_stay_put(const char *cluster)
{
	fx_t f;
	fx_init(&f, cluster);
	int two_nodes = strcmp(cluster, "k80:2:1") == 0;
	hs_engine_t *e = engine_with("PreemptMode=suspend\nRoundLength=60\n");
	hs_engine_set_packing(e, 1);
	fx_job_t *j[4];
	hs_plan_t p;
	fx_counts_t c;
	/* The lower ids go to the second node or GPU, so that the mechanism,
	 * placing in id order on the first free GPU, would put each on the
	 * other pair's GPU: on two nodes by -w, on one node by starting
	 * job 2 a round before job 1 (each takes the first free GPU). */
	static const uint32_t ids[4] = { 2, 1, 4, 3 };
	for (int k = 0; k < 4; k++) {
		j[k] = fx_add(&f, two_nodes ? (uint32_t)k + 1 : ids[k], 1);
		j[k]->requeue_ok = 0;
		j[k]->uid = (uint32_t)k % 2 + 1;
		if (two_nodes)
			j[k]->only_node = k % 2 ? "k80-1" : "k80-2";
		if (k <= 1) { /* two start, then two more join them */
			assert_int_equal(fx_round(&f, e, &p, &c), 0);
			hs_plan_free(&p);
		}
	}
	int idle_rounds = 0, formed = 0;
	for (int r = 0; r < 24; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		hs_plan_free(&p);
		int running = 0, resident = 0;
		for (int k = 0; k < 4; k++) {
			running += j[k]->state == HS_SJ_RUNNING;
			resident += j[k]->state != HS_SJ_PENDING;
		}
		formed += resident == 4;
		idle_rounds += resident == 4 && running < 2;
		/* a finished job leaves its pair: the pairs re-form below */
		if (r == 11)
			for (int k = 0; k < 4; k++)
				if (j[k]->state == HS_SJ_RUNNING) {
					j[k]->gone = 1;
					j[k] = fx_add(&f, (uint32_t)(10 + k), 1);
					j[k]->requeue_ok = 0;
					j[k]->uid = (uint32_t)k % 2 + 1;
				}
	}
	if (formed < 10 || idle_rounds > 0)
		fail_msg("%s: %d rounds with both pairs, %d of them with an idle GPU", cluster, formed,
			 idle_rounds);
	hs_engine_free(e);
}

/* Two nodes of one GPU (the server masks), one node of two GPUs (the
 * GPUs each suspended job holds: hs_round_in_t.home). */
static void test_timeslice_pairs_stay_put(void **state)
{
	(void)state;
	pairs_stay_put("k80:2:1");
	pairs_stay_put("k80:1:2");
}

/* One node of two GPUs: a time-slice pair of user 1's jobs that cannot
 * be moved on one GPU, the other GPU free. User 2's job starts on the
 * free GPU. A start used to be held back for any suspended unmovable job
 * on its node, so it waited for the pair to end while the GPU idled (on
 * multi-GPU servers never checkpointing paid 1.15x the GPU time:
 * bench/strategic.sh --gpus-per-server 2). */
static void test_timeslice_pair_beside_start(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "k80:1:2");
	hs_engine_t *e = engine_with("PreemptMode=suspend\nRoundLength=60\n");
	hs_engine_set_packing(e, 1);
	hs_plan_t p;
	fx_counts_t c;
	fx_job_t *a = fx_add(&f, 1, 1), *b = fx_add(&f, 2, 1);
	a->requeue_ok = b->requeue_ok = 0;
	a->uid = b->uid = 1;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	fx_job_t *d = fx_add(&f, 3, 1);
	d->requeue_ok = 0;
	d->uid = 1;
	for (int r = 0; r < 4 && d->state == HS_SJ_PENDING; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		hs_plan_free(&p);
	}
	assert_true(d->nheld == 1);
	/* the one of a, b not paired with d leaves: its GPU is free */
	fx_job_t *alone = a->held[0].gpu == d->held[0].gpu ? b : a;
	alone->gone = 1;
	fx_job_t *n = fx_add(&f, 4, 1);
	n->ckpt = 1;
	n->uid = 2;
	int waited = 0;
	for (int r = 0; r < 4 && n->state == HS_SJ_PENDING; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		hs_plan_free(&p);
		waited++;
	}
	if (n->state == HS_SJ_PENDING)
		fail_msg("user 2's job still waits after %d rounds beside the pair", waited);
	assert_true(n->held[0].gpu != d->held[0].gpu);
	hs_engine_free(e);
}

/* Two starts onto the GPUs of one suspended job that cannot be requeued
 * without losing its work: the first is held back and the holder resumed
 * (test_suspend_no_idle); the second must be held back too. It used to
 * go through, since the holder no longer looked suspended, and failed on
 * GPUs the resumed job holds (#14's review: hold_back). */
static void test_hold_back_second_start(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:2");
	fx_job_t *a = fx_add(&f, 1, 2);
	hs_engine_t *e = engine_with("PreemptMode=suspend\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	suspend_by_us(&f, e, a); /* hetsched suspended it earlier */
	fx_job_t *b = fx_add(&f, 2, 1), *d = fx_add(&f, 3, 1);
	int both_held = 0;
	for (int r = 0; r < 4; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		const hs_plan_job_t *pb = plan_job(&p, 2), *pd = plan_job(&p, 3);
		if (c.start_fail || c.requeue)
			fail_msg("round %d: %d start failures, %d requeues (job 1 holds the GPUs)", r,
				 c.start_fail, c.requeue);
		both_held += pb && pd && strstr(pb->reason, "held by job 1") &&
			     strstr(pd->reason, "held by job 1");
		assert_int_equal(a->state, HS_SJ_RUNNING);
		assert_int_equal(b->state, HS_SJ_PENDING);
		assert_int_equal(d->state, HS_SJ_PENDING);
		hs_plan_free(&p);
	}
	printf("# rounds with both starts held back: %d\n", both_held);
	hs_engine_free(e);
}

/* Without the packing interface a job that cannot checkpoint is never
 * suspended in favour of a job that would need its GPU (the GPU would
 * sit idle under the suspended job, the start failing every round): the
 * newcomer waits with a reason. A job hetsched suspended is resumed
 * rather than left idle on a GPU another job cannot get. And a suspended
 * job is never requeued (losing its work) to move it elsewhere. */
static void test_suspend_no_idle(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	hs_engine_t *e = engine_with("PreemptMode=suspend\nRoundLength=60\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	fx_job_t *b = fx_add(&f, 2, 1);
	int waited = 0;
	for (int r = 0; r < 4; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		assert_int_equal(a->state, HS_SJ_RUNNING);
		assert_int_equal(b->state, HS_SJ_PENDING);
		assert_int_equal(c.suspend + c.requeue + c.start_fail, 0);
		const hs_plan_job_t *pb = plan_job(&p, 2);
		waited += pb && strstr(pb->reason, "waiting for GPUs held by job 1") != NULL;
		hs_plan_free(&p);
	}
	assert_true(waited >= 1);
	/* job 1 suspended by hetsched earlier: resumed, not left idle */
	suspend_by_us(&f, e, a);
	for (int r = 0; r < 3; r++) {
		f.now += 60;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		assert_int_equal(a->state, HS_SJ_RUNNING);
		assert_int_equal(b->state, HS_SJ_PENDING);
		assert_int_equal(c.requeue + c.start_fail, 0);
		hs_plan_free(&p);
	}
	hs_engine_free(e);

	/* a suspended job chosen for other GPUs stays suspended (no
	 * checkpoints: a requeue would lose its work) */
	fx_t g;
	fx_init(&g, "v100:1:2");
	fx_job_t *x = fx_add(&g, 1, 1);
	hs_engine_t *e2 = engine_with("PreemptMode=suspend\n");
	assert_int_equal(fx_round(&g, e2, &p, &c), 0);
	hs_plan_free(&p);
	/* Slurm gave it GPU 1 (the mechanism's indices are advisory) and
	 * hetsched suspended it; the placement now picks GPU 0 */
	x->held[0].gpu = 1;
	hs_plan_job_t px = { .id = 1, .op = HS_PLAN_SUSPEND };
	x->state = HS_SJ_SUSPENDED;
	assert_int_equal(hs_engine_applied(e2, &px, 1, g.now, 0, NULL), 0);
	g.now += 60;
	assert_int_equal(fx_round(&g, e2, &p, &c), 0);
	const hs_plan_job_t *ppx = plan_job(&p, 1);
	assert_non_null(ppx);
	assert_int_equal(ppx->op, HS_PLAN_NONE);
	assert_non_null(strstr(ppx->reason, "waiting for its own GPUs"));
	assert_int_equal(c.requeue, 0);
	assert_int_equal(x->restart_cnt, 0);
	hs_plan_free(&p);
	hs_engine_free(e2);
}

/* A pending job whose GPU shape the rounds do not model is left to the
 * plugin's fill, but the plan says why it waits (its reason), and it
 * takes no part in the round: the modelled job gets the free GPU. */
static void test_odd_shape_explained(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *odd = fx_add(&f, 1, 1);
	odd->odd_shape = 1;
	fx_job_t *b = fx_add(&f, 2, 1);
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(b->state, HS_SJ_RUNNING);
	assert_int_equal(odd->state, HS_SJ_PENDING);
	const hs_plan_job_t *po = plan_job(&p, 1);
	assert_non_null(po);
	assert_int_equal(po->op, HS_PLAN_NONE);
	assert_non_null(strstr(po->reason, "GPU shape the rounds do not model"));
	hs_plan_free(&p);
	hs_engine_free(e);
}

static void test_foreign_drained_typed(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:2,k80:1:2");
	f.foreign[0][0] = f.foreign[0][1] = 1; /* v100-1 held by another partition's job */
	f.avail[1] = 0;                        /* v100-2 drained */
	fx_job_t *a = fx_add(&f, 1, 1);
	fx_measure(a, "v100", 10);
	fx_measure(a, "k80", 1);
	fx_job_t *b = fx_add(&f, 2, 1);
	b->type = "k80";
	fx_job_t *d = fx_add(&f, 3, 2);
	d->per_node = 2;
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	/* only k80 has usable GPUs */
	for (int i = 0; i < f.njobs; i++)
		if (f.jobs[i].state == HS_SJ_RUNNING)
			assert_string_equal(fx_type_of(&f, &f.jobs[i]), "k80");
	assert_int_equal(p.gpus_usable, 2);
	assert_int_equal(b->state, HS_SJ_RUNNING);
	hs_plan_free(&p);
	hs_engine_free(e);
}

static void test_multi_gpu_consolidated(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:4");
	fx_add(&f, 1, 1);
	fx_job_t *big = fx_add(&f, 2, 4);
	big->per_node = 4;
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	const hs_plan_job_t *pb = plan_job(&p, 2);
	assert_int_equal(pb->op, HS_PLAN_START);
	assert_int_equal(pb->target.nnodes, 1);
	assert_int_equal(pb->target.nodes[0].gpus, 4);
	assert_int_equal(big->state, HS_SJ_RUNNING);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* A job Slurm lets use one busy node only (sbatch -w) must not take the
 * free GPU elsewhere: the next job gets it, and the pinned one starts on
 * its own node once that frees. */
static void test_node_mask_busy_node(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:1");
	fx_job_t *r = fx_add(&f, 1, 1);
	r->state = HS_SJ_RUNNING;
	r->no_preempt = 1;
	r->nheld = 1;
	r->held[0] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
	r->start = f.now - 100;
	fx_job_t *w = fx_add(&f, 2, 1);
	w->only_node = "v100-1";
	w->prio = 5000;
	w->submit = f.now - 50;
	fx_job_t *o = fx_add(&f, 3, 1);
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(o->state, HS_SJ_RUNNING);
	assert_string_equal(f.names[o->held[0].node], "v100-2");
	assert_int_equal(w->state, HS_SJ_PENDING);
	assert_int_not_equal(plan_job(&p, 2)->op, HS_PLAN_START);
	hs_plan_free(&p);
	/* its node frees: it starts there */
	r->gone = 1;
	f.now += 60;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(w->state, HS_SJ_RUNNING);
	assert_string_equal(f.names[w->held[0].node], "v100-1");
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* Two jobs restricted to the same one-GPU node and one free job, two
 * free GPUs: the selection reserves the node for one restricted job, so
 * the free job gets the other GPU (not a second restricted job that
 * cannot be placed). */
static void test_node_mask_contention(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:1");
	for (uint32_t id = 1; id <= 2; id++) {
		fx_job_t *w = fx_add(&f, id, 1);
		w->only_node = "v100-2";
		w->prio = 5000;
	}
	fx_job_t *o = fx_add(&f, 3, 1);
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(c.start, 2);
	assert_int_equal(o->state, HS_SJ_RUNNING);
	assert_string_equal(f.names[o->held[0].node], "v100-1");
	int on2 = 0;
	for (uint32_t id = 1; id <= 2; id++) {
		fx_job_t *w = fx_find(&f, id);
		if (w->state == HS_SJ_RUNNING) {
			assert_string_equal(f.names[w->held[0].node], "v100-2");
			on2++;
		}
	}
	assert_int_equal(on2, 1);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* A pending job array is one snapshot job per task slot
 * (hs_snap_dup_job): copies sharing the record's data that act on the
 * array's record, and the round starts one task per slot, all in the
 * same round. */
static void test_array_slots(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:4");
	fx_job_t *a = fx_add(&f, 7, 1);
	a->only_node = "v100-1";
	snprintf(a->model, sizeof(a->model), "ResNet-18 (batch size 16)");
	hs_snap_t s;
	fx_snapshot(&f, &s);
	assert_non_null(hs_snap_dup_job(&s, 0, 0x80000001u));
	assert_non_null(hs_snap_dup_job(&s, 0, 0x80000002u));
	assert_null(hs_snap_dup_job(&s, 5, 0x80000003u)); /* no such job */
	assert_int_equal(s.njobs, 3);
	for (int i = 1; i < 3; i++) {
		assert_int_equal(hs_sjob_act_id(&s.jobs[i]), 7);
		/* the user's data is the record's, not a copy (item 6a):
		 * hs_snap_free frees it once (ASan, valgrind) */
		assert_true(s.jobs[i].borrowed);
		assert_ptr_equal(s.jobs[i].env, s.jobs[0].env);
		assert_ptr_equal(s.jobs[i].node_ok, s.jobs[0].node_ok);
		assert_ptr_equal(s.jobs[i].parts, s.jobs[0].parts);
		assert_ptr_equal(s.jobs[i].admin_comment, s.jobs[0].admin_comment);
		assert_null(s.jobs[i].held);
		assert_int_equal(s.jobs[i].node_ok[0], 1);
	}
	assert_int_equal(hs_sjob_act_id(&s.jobs[0]), 7);
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	hs_err_t err;
	assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
	assert_int_equal(p.nstart, 3);
	hs_plan_free(&p);
	hs_snap_free(&s);
	hs_engine_free(e);
}

static void test_max_jobs(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_add(&f, 1, 1)->prio = 10;
	fx_add(&f, 2, 1)->prio = 30;
	fx_add(&f, 3, 1)->prio = 20;
	hs_engine_t *e = engine_with("MaxJobs=2\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(p.nactive, 2);
	assert_non_null(strstr(plan_job(&p, 1)->reason, "MaxJobs"));
	assert_int_equal(fx_find(&f, 1)->state, HS_SJ_PENDING);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* Beyond MaxJobs: the same snapshot of 8 pending jobs, round
 * after round (nothing applied, so the queue stays); of MaxJobs=4 slots,
 * three go to the highest priorities every round and one rotates through
 * the other five, so each of those is in the problem once in five rounds
 * — none is left out of every round, however low its priority. */
static void test_max_jobs_rotation(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	for (uint32_t id = 1; id <= 8; id++)
		fx_add(&f, id, 1)->prio = 1000 - id; /* job 1 first */
	hs_engine_t *e = engine_with("MaxJobs=4\n");
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(&f, &s);
	int in_problem[9] = { 0 };
	for (int r = 0; r < 5; r++) {
		hs_plan_t p;
		assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
		assert_int_equal(p.nactive, 4);
		int rotating = 0;
		for (uint32_t id = 1; id <= 8; id++) {
			const hs_plan_job_t *pj = plan_job(&p, id);
			int cut = pj && strstr(pj->reason, "MaxJobs") != NULL;
			if (id <= 3)
				assert_false(cut); /* the priority part, every round */
			else if (!cut) {
				in_problem[id]++;
				rotating++;
			}
		}
		assert_int_equal(rotating, 1);
		hs_plan_free(&p);
	}
	for (uint32_t id = 4; id <= 8; id++)
		assert_int_equal(in_problem[id], 1);
	hs_snap_free(&s);
	hs_engine_free(e);
}

/* Jobs that vanish or change between the snapshot and the apply are the
 * plugin's business; here: a job finishing between rounds is dropped from
 * the accounting and its GPU reused. */
/* Early rounds do not undo the round before them (#12, run 3 of
 * doc/scale.md: "started 32" / "requeued 32" every 5 s): 2 GPUs, 4 jobs
 * that checkpoint, RoundLength=60. Round 0 starts two; a job arrives and
 * the early round 5 s later starts nothing and preempts nothing (the two
 * are within their lease, a round length). The next regular round is
 * due 60 s after the regular one, when the leases end (not 60 s after
 * the early round), and rotates: checkpoints and starts. Without leases
 * (the mechanism's lease_s = 0, as before) the early round preempts
 * both. */
static void test_early_round_keeps_starts(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:2");
	for (uint32_t id = 1; id <= 4; id++)
		fx_add(&f, id, 1)->ckpt = 1;
	hs_engine_t *e = engine_with("RoundLength=60\nMinRoundInterval=5\nMinResetInterval=0\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(c.start, 2);
	hs_plan_free(&p);
	fx_add(&f, 5, 1)->ckpt = 1;
	f.now += 5;
	assert_int_equal(hs_engine_round_due(e, f.now, 1), 1); /* an early round */
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	if (c.start + c.ckpt + c.requeue + c.suspend)
		fail_msg("early round: %d starts, %d checkpoints, %d requeues, %d suspends",
			 c.start, c.ckpt, c.requeue, c.suspend);
	hs_plan_free(&p);
	/* regular rounds keep their own clock: the next is due 60 s after
	 * the starts, when their leases end, not 60 s after the early
	 * round */
	assert_int_equal(hs_engine_next_round(e, 0), f.now + 55);
	assert_false(hs_engine_round_due(e, f.now + 54, 0));
	assert_true(hs_engine_round_due(e, f.now + 55, 0));
	f.now += 55;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	printf("# round 60 s after the starts: %d checkpoints, %d starts\n", c.ckpt, c.start);
	assert_true(c.ckpt >= 1);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* Weights: Slurm priority relative to the mean, times the QOS weight;
 * accounts become the entities. */
static double status_num(json_object *st, uint32_t id, const char *key)
{
	json_object *jobs = json_object_object_get(st, "jobs");
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		if ((uint32_t)json_object_get_int64(json_object_object_get(j, "id")) == id)
			return json_object_get_double(json_object_object_get(j, key));
	}
	return -1;
}

static void test_weights(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_add(&f, 1, 1)->prio = 100;
	fx_add(&f, 2, 1)->prio = 300;
	fx_job_t *c3 = fx_add(&f, 3, 1);
	c3->prio = 200;
	c3->account = "physics";
	hs_engine_t *e = engine_with("WeightByPriority=yes\nQosWeights=normal:2\n");
	hs_plan_t p;
	fx_counts_t c;
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(&f, &s);
	assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
	json_object *st = hs_engine_status(e, &s, &p, NULL, f.now, &err);
	/* mean priority 200; every job has QOS "normal" (weight 2) */
	assert_true(fabs(status_num(st, 1, "weight") - 1.0) < 1e-9);
	assert_true(fabs(status_num(st, 2, "weight") - 3.0) < 1e-9);
	assert_true(fabs(status_num(st, 3, "weight") - 2.0) < 1e-9);
	const char *acct = NULL;
	json_object *jobs = json_object_object_get(st, "jobs");
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		if (json_object_get_int64(json_object_object_get(j, "id")) == 3)
			acct = json_object_get_string(json_object_object_get(j, "account"));
	}
	assert_non_null(acct);
	assert_string_equal(acct, "physics");
	(void)c;
	json_object_put(st);
	hs_plan_free(&p);
	hs_snap_free(&s);
	hs_engine_free(e);
}

/* The hierarchical policy gets Slurm accounts as entities: three jobs of
 * account "a" and one of "b" on one GPU share it account by account
 * (1/2 to b's job, 1/6 to each of a's), and AccountWeights weigh the
 * accounts (b:3 -> 3/4). Read back from the status document. */
static void test_accounts_entities(void **state)
{
	(void)state;
	const struct {
		const char *conf;
		double b_share;
	} cases[] = {
		{ "Policy=max_min_fairness_water_filling\nFairness=accounts\n", 0.5 },
		{ "Policy=max_min_fairness_water_filling\nFairness=accounts\nAccountWeights=b:3\n",
		  0.75 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		fx_t f;
		fx_init(&f, "v100:1:1");
		for (uint32_t id = 1; id <= 3; id++)
			fx_add(&f, id, 1)->account = "a";
		fx_add(&f, 4, 1)->account = "b";
		hs_engine_t *e = engine_with(cases[k].conf);
		hs_plan_t p;
		hs_snap_t s;
		hs_err_t err;
		fx_snapshot(&f, &s);
		assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
		json_object *st = hs_engine_status(e, &s, &p, NULL, f.now, &err);
		assert_non_null(st);
		double b = fx_status_target(st, 4, "v100");
		if (fabs(b - cases[k].b_share) > 1e-6)
			fail_msg("case %zu: b's job gets %g, expected %g", k, b, cases[k].b_share);
		for (uint32_t id = 1; id <= 3; id++)
			assert_true(fabs(fx_status_target(st, id, "v100") - (1 - cases[k].b_share) / 3) <
				    1e-6);
		json_object_put(st);
		hs_plan_free(&p);
		hs_snap_free(&s);
		hs_engine_free(e);
	}
}

/* The status's "entities" (engine_entstatus.c) under the defaults (a
 * tree made up from accounts and users without accounting): account a
 * with users 1000 (3 jobs) and 1001 (1 job), account b with user 1002
 * (1 job), on 2 GPUs. Each account is entitled to half, each of a's
 * users to a quarter; the allocation gives exactly that (user 1000's
 * three jobs share its quarter), and the GPU time received since the
 * reset approaches it. */
static json_object *entity(json_object *st, const char *name)
{
	json_object *ents = json_object_object_get(st, "entities");
	for (size_t i = 0; ents && i < json_object_array_length(ents); i++) {
		json_object *x = json_object_array_get_idx(ents, i);
		if (!strcmp(json_object_get_string(json_object_object_get(x, "name")), name))
			return x;
	}
	fail_msg("no entity %s in %s", name, json_object_to_json_string(ents));
	return NULL;
}

static double ent_num(json_object *st, const char *name, const char *key)
{
	return json_object_get_double(json_object_object_get(entity(st, name), key));
}

static void test_status_entities(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:1");
	const struct { uint32_t id, uid; const char *acct; } jobs[] = {
		{ 1, 1000, "a" }, { 2, 1000, "a" }, { 3, 1000, "a" }, { 4, 1001, "a" },
		{ 5, 1002, "b" },
	};
	for (size_t k = 0; k < sizeof(jobs) / sizeof(jobs[0]); k++) {
		fx_job_t *j = fx_add(&f, jobs[k].id, 1);
		j->uid = jobs[k].uid;
		j->account = jobs[k].acct;
		j->ckpt = 1; /* preemptible: stays in the problem once running */
	}
	hs_engine_t *e = engine_with(NULL);
	fx_rounds(&f, e, 6);
	hs_plan_t p;
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(&f, &s);
	assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
	json_object *st = hs_engine_status(e, &s, &p, NULL, f.now + 360, &err);
	assert_non_null(st);
	const struct { const char *name; double norm; double target; int jobs; } want[] = {
		{ "a", 0.5, 0.5, 4 }, { "uid1000@a", 0.25, 0.25, 3 }, { "uid1001@a", 0.25, 0.25, 1 },
		{ "b", 0.5, 0.5, 1 }, { "uid1002@b", 0.5, 0.5, 1 },
	};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		double n = ent_num(st, want[k].name, "norm_shares");
		double x = ent_num(st, want[k].name, "target");
		double r = ent_num(st, want[k].name, "received");
		if (fabs(n - want[k].norm) > 1e-9 || fabs(x - want[k].target) > 1e-6 ||
		    ent_num(st, want[k].name, "jobs") != want[k].jobs || fabs(r - x) > 0.15)
			fail_msg("%s: norm %g target %g received %g jobs %g", want[k].name, n, x, r,
				 ent_num(st, want[k].name, "jobs"));
	}
	json_object *par = json_object_array_get_idx(json_object_object_get(st, "entities"),
						     (size_t)ent_num(st, "uid1000@a", "parent"));
	assert_string_equal(json_object_get_string(json_object_object_get(par, "name")), "a");
	assert_int_equal((int)ent_num(st, "a", "parent"), -1);
	/* one user's view (PrivateData=jobs) has nobody's shares */
	hs_status_keep_user(st, 1000);
	assert_null(json_object_object_get(st, "entities"));
	json_object_put(st);
	hs_plan_free(&p);
	hs_snap_free(&s);
	/* Fairness=jobs: no entities, no "entities" */
	hs_engine_free(e);
	e = engine_with("Fairness=jobs\n");
	fx_snapshot(&f, &s);
	assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
	st = hs_engine_status(e, &s, &p, NULL, f.now, &err);
	assert_null(json_object_object_get(st, "entities"));
	json_object_put(st);
	hs_plan_free(&p);
	hs_snap_free(&s);
	hs_engine_free(e);
}

static void test_departure(void **state)
{
	(void)state;
	fx_t f;
	two_jobs(&f);
	fx_add(&f, 103, 1);
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	fx_find(&f, 101)->gone = 1;
	f.now += 30;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_null(plan_job(&p, 101));
	assert_int_equal(fx_find(&f, 103)->state, HS_SJ_RUNNING);
	hs_plan_free(&p);
	hs_engine_free(e);
}

static void test_ops_checkpoint_flow(void **state)
{
	(void)state;
	hs_engine_t *e = engine_with("CheckpointGrace=60\nRestartDelay=2\n");
	hs_target_node_t nodes[1] = { { .node = 0, .name = "k80-1", .gpus = 1 } };
	hs_plan_job_t pj = { .id = 7, .op = HS_PLAN_CHECKPOINT,
			     .target = { .nnodes = 1, .nodes = nodes },
			     .type_name = "k80", .restart_cnt = 0 };
	int64_t t0 = 5000, begin = 0;
	const hs_target_t *to = NULL;
	assert_int_equal(hs_engine_applied(e, &pj, 1, t0, 0, NULL), 0);
	assert_int_equal(hs_engine_nops(e), 1);
	hs_op_view_t v = { .exists = 1, .state = HS_SJ_RUNNING, .restart_cnt = 0 };
	assert_int_equal(hs_engine_op_step(e, 7, &v, t0 + 1, &begin, &to),
			 HS_OPA_WAIT);
	/* an old checkpoint does not count */
	fx_job_t j = { 0 };
	fx_ckpt_ack(&j, 100, t0 - 100);
	v.admin_comment = j.comment;
	assert_int_equal(hs_engine_op_step(e, 7, &v, t0 + 2, &begin, &to),
			 HS_OPA_WAIT);
	fx_ckpt_ack(&j, 200, t0 + 3);
	assert_int_equal(hs_engine_op_step(e, 7, &v, t0 + 4, &begin, &to),
			 HS_OPA_REQUEUE);
	hs_engine_op_result(e, 7, HS_OPA_REQUEUE, 1, t0 + 4);
	/* requeue in progress */
	v.state = HS_SJ_PENDING;
	v.completing = 1;
	v.restart_cnt = 1;
	assert_int_equal(hs_engine_op_step(e, 7, &v, t0 + 5, &begin, &to),
			 HS_OPA_WAIT);
	/* pending with Slurm's requeue delay: clear it */
	v.completing = 0;
	v.begin_time = t0 + 6 + 121;
	assert_int_equal(hs_engine_op_step(e, 7, &v, t0 + 6, &begin, &to),
			 HS_OPA_CLEAR_BEGIN);
	assert_int_equal(begin, t0 + 6); /* t0+4 + RestartDelay 2 */
	hs_engine_op_result(e, 7, HS_OPA_CLEAR_BEGIN, 1, t0 + 6);
	v.begin_time = begin;
	assert_int_equal(hs_engine_op_step(e, 7, &v, t0 + 6, &begin, &to),
			 HS_OPA_START);
	assert_int_equal(to->nnodes, 1);
	assert_string_equal(to->nodes[0].name, "k80-1");
	assert_int_equal(to->nodes[0].gpus, 1);
	hs_engine_op_result(e, 7, HS_OPA_START, 1, t0 + 6);
	assert_int_equal(hs_engine_nops(e), 0);

	/* grace expiry without an ack, then a failing requeue gives up and
	 * leaves the job running */
	pj.id = 8;
	pj.target.nnodes = 0;
	assert_int_equal(hs_engine_applied(e, &pj, 1, t0, 0, NULL), 0);
	v = (hs_op_view_t){ .exists = 1, .state = HS_SJ_RUNNING };
	assert_int_equal(hs_engine_op_step(e, 8, &v, t0 + 59, &begin, &to),
			 HS_OPA_WAIT);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(hs_engine_op_step(e, 8, &v, t0 + 60 + k, &begin, &to),
				 HS_OPA_REQUEUE);
		hs_engine_op_result(e, 8, HS_OPA_REQUEUE, 0, t0 + 60 + k);
	}
	assert_int_equal(hs_engine_nops(e), 0);
	assert_non_null(strstr(last_log, "keeps running"));

	/* a job that vanished (cancelled) drops its op */
	pj.id = 9;
	assert_int_equal(hs_engine_applied(e, &pj, 1, t0, 0, NULL), 0);
	v.exists = 0;
	assert_int_equal(hs_engine_op_step(e, 9, &v, t0 + 1, &begin, &to),
			 HS_OPA_DROP);
	hs_engine_op_result(e, 9, HS_OPA_DROP, 1, t0 + 1);
	assert_int_equal(hs_engine_nops(e), 0);
	/* a requeued job cancelled before it restarted: dropped */
	pj.id = 11;
	pj.op = HS_PLAN_REQUEUE;
	assert_int_equal(hs_engine_applied(e, &pj, 1, t0, 0, NULL), 0);
	v = (hs_op_view_t){ .exists = 1, .state = HS_SJ_OTHER, .completing = 1 };
	assert_int_equal(hs_engine_op_step(e, 11, &v, t0 + 1, &begin, &to),
			 HS_OPA_WAIT);
	v.completing = 0;
	assert_int_equal(hs_engine_op_step(e, 11, &v, t0 + 2, &begin, &to),
			 HS_OPA_DROP);
	hs_engine_op_result(e, 11, HS_OPA_DROP, 1, t0 + 2);
	/* a requeued job stuck completing (its node never answers): waited
	 * for up to the one timeout of that state, HS_LEAVING_MAX_S (60 s),
	 * then dropped, as the rounds stop counting it leaving */
	pj.id = 12;
	assert_int_equal(hs_engine_applied(e, &pj, 1, t0, 0, NULL), 0);
	v = (hs_op_view_t){ .exists = 1, .state = HS_SJ_PENDING, .completing = 1 };
	assert_int_equal(hs_engine_op_step(e, 12, &v, t0 + 59, &begin, &to),
			 HS_OPA_WAIT);
	assert_int_equal(hs_engine_op_step(e, 12, &v, t0 + 60, &begin, &to),
			 HS_OPA_DROP);
	hs_engine_op_result(e, 12, HS_OPA_DROP, 1, t0 + 60);
	pj.op = HS_PLAN_CHECKPOINT;
	/* a job that completed while checkpointing: dropped too */
	pj.id = 10;
	assert_int_equal(hs_engine_applied(e, &pj, 1, t0, 0, NULL), 0);
	v = (hs_op_view_t){ .exists = 1, .state = HS_SJ_OTHER };
	assert_int_equal(hs_engine_op_step(e, 10, &v, t0 + 1, &begin, &to),
			 HS_OPA_DROP);
	hs_engine_free(e);
}

/* A checkpointing job is "leaving": its GPUs are not given away and the
 * next round does not signal it again. */
static void test_leaving_job(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1,k80:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->ckpt = 1;
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	/* checkpoint in flight (signal sent, no ack yet) */
	hs_plan_job_t pj = { .id = 1, .op = HS_PLAN_CHECKPOINT, .restart_cnt = a->restart_cnt };
	assert_int_equal(hs_engine_applied(e, &pj, 1, f.now, 0, NULL), 0);
	fx_add(&f, 2, 1);
	f.now += 20;
	hs_snap_t s;
	hs_err_t err;
	fx_snapshot(&f, &s);
	assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
	const hs_plan_job_t *pa = plan_job(&p, 1);
	assert_int_equal(pa->op, HS_PLAN_NONE);
	assert_non_null(strstr(pa->reason, "checkpointing"));
	/* job 2 does not get job 1's GPU */
	const hs_plan_job_t *pb = plan_job(&p, 2);
	for (int k = 0; pb && k < pb->target.nnodes; k++)
		assert_string_not_equal(pb->target.nodes[k].name, f.names[a->held[0].node]);
	hs_plan_free(&p);
	hs_snap_free(&s);
	hs_engine_free(e);
}

/* A stale GPU list (a requeued job Slurm did not clean up) does not make
 * GPUs the node reports free unusable, and the stuck job gets none. */
static void test_stale_holds(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->ckpt = 1;
	a->state = HS_SJ_OTHER;
	a->nheld = 1;
	a->held[0] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
	fx_add(&f, 2, 1);
	hs_engine_t *e = engine_with(NULL);
	hs_plan_job_t pj = { .id = 1, .op = HS_PLAN_REQUEUE, .restart_cnt = 0 };
	assert_int_equal(hs_engine_applied(e, &pj, 1, f.now, 0, NULL), 0);
	hs_plan_t p;
	fx_counts_t c;
	/* shortly after the requeue it may still get its restart target;
	 * stuck for a minute, it is left out */
	f.now += 61;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(p.gpus_usable, 1);
	assert_int_equal(fx_find(&f, 2)->state, HS_SJ_RUNNING);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* One GPU and two jobs (1 and 2) that share it well, which can
 * checkpoint; an engine with packing on a packed policy with Gavel's
 * table, then `extra` (the whole text in conf[len]). NULL without
 * Gavel data on this machine (the caller skips). */
static hs_engine_t *packed_two_jobs(fx_t *f, const char *extra, char *conf, size_t len,
				    fx_job_t **a, fx_job_t **b)
{
	char table[4096];
	if (hs_test_gavel_path(table, sizeof(table), "simulation_throughputs.json") < 0)
		return NULL;
	snprintf(conf, len, "Policy=max_min_fairness_packed\nThroughputTable=%s\n%s", table, extra);
	fx_init(f, "v100:1:1");
	*a = fx_add(f, 1, 1);
	*b = fx_add(f, 2, 1);
	snprintf((*a)->model, sizeof((*a)->model), "ResNet-18 (batch size 32)");
	snprintf((*b)->model, sizeof((*b)->model), "ResNet-18 (batch size 64)");
	(*a)->ckpt = (*b)->ckpt = 1;
	hs_engine_t *e = engine_with(conf);
	hs_engine_set_packing(e, 1);
	return e;
}

/* Space sharing: a packed policy pairs two jobs that share a GPU well;
 * with the select plugin's packing interface both run on the same GPU
 * (the second started onto the first), and stay there. */
static void test_packed_pair(void **state)
{
	(void)state;
	char conf[4300];
	fx_t f;
	fx_job_t *a, *b;
	hs_engine_t *e = packed_two_jobs(&f, "", conf, sizeof(conf), &a, &b);
	if (!e) {
		skip(); /* no Gavel data on this machine */
		return;
	}
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	const hs_plan_job_t *pa = plan_job(&p, 1), *pb = plan_job(&p, 2);
	assert_int_equal(pa->op, HS_PLAN_START);
	assert_int_equal(pb->op, HS_PLAN_START);
	assert_int_equal(pa->target.partner, 2);
	assert_int_equal(pb->target.partner, 1);
	assert_non_null(strstr(pb->reason, "packed with job 1"));
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_int_equal(b->state, HS_SJ_RUNNING);
	assert_int_equal(a->held[0].gpu, b->held[0].gpu);
	/* next rounds: the pair keeps its GPU */
	for (int r = 0; r < 3; r++) {
		f.now += 360;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		assert_int_equal(plan_job(&p, 1)->op, HS_PLAN_KEEP);
		assert_int_equal(plan_job(&p, 2)->op, HS_PLAN_KEEP);
		hs_plan_free(&p);
	}
	/* without the packing interface one member runs alone */
	hs_engine_t *e2 = engine_with(conf);
	fx_t g;
	fx_init(&g, "v100:1:1");
	fx_job_t *a2 = fx_add(&g, 1, 1), *b2 = fx_add(&g, 2, 1);
	memcpy(a2->model, a->model, sizeof(a->model));
	memcpy(b2->model, b->model, sizeof(b->model));
	assert_int_equal(fx_round(&g, e2, &p, &c), 0);
	assert_int_equal((a2->state == HS_SJ_RUNNING) + (b2->state == HS_SJ_RUNNING), 1);
	assert_non_null(strstr(plan_job(&p, a2->state == HS_SJ_RUNNING ? 2 : 1)->reason,
			       "packing not available"));
	hs_plan_free(&p);
	hs_engine_free(e2);
	hs_engine_free(e);
}

/* A start onto the GPU of a packed pair (PreemptMode=suspend keeps a
 * suspended job's GPUs): every member the round does not keep running
 * must leave the GPU (checkpointed or requeued), not only the one the
 * round's GPU owner table names first. Otherwise the other stays
 * suspended on it: the start fails, or (packed with the member that
 * stays) three jobs hold one GPU, which the next rounds treat as nobody's
 * (#14's review: vacate). */
static void test_vacate_packed_pair(void **state)
{
	(void)state;
	char conf[4300];
	fx_t f;
	fx_job_t *a, *b;
	hs_engine_t *e = packed_two_jobs(&f, "PreemptMode=suspend\n", conf, sizeof(conf), &a, &b);
	if (!e) {
		skip(); /* no Gavel data on this machine */
		return;
	}
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	/* the set-up: a packed pair running on the one GPU */
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_int_equal(b->state, HS_SJ_RUNNING);
	assert_int_equal(a->held[0].gpu, b->held[0].gpu);
	fx_job_t *d = fx_add(&f, 3, 1);
	snprintf(d->model, sizeof(d->model), "ResNet-50 (batch size 64)");
	d->ckpt = 1;
	int started = 0;
	for (int r = 0; r < 12 && !started; r++) {
		f.now += 360;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		const hs_plan_job_t *pa = plan_job(&p, 1), *pb = plan_job(&p, 2),
				    *pd = plan_job(&p, 3);
		/* the pair is in the problem as a pair */
		assert_non_null(pa);
		assert_non_null(pb);
		started = pd && pd->op == HS_PLAN_START;
		if (started) {
			printf("# round %d: job 3 starts; job 1 %s, job 2 %s\n", r,
			       hs_plan_op_name(pa->op), hs_plan_op_name(pb->op));
			if (c.start_fail)
				fail_msg("round %d: job 3's start failed: job 1 %s, job 2 %s (%s)", r,
					 hs_plan_op_name(pa->op), hs_plan_op_name(pb->op),
					 pb->reason);
			assert_int_equal(d->state, HS_SJ_RUNNING);
			/* at most a packed pair on the GPU, nobody suspended there */
			int holders = 0;
			for (int i = 0; i < f.njobs; i++) {
				const fx_job_t *j = &f.jobs[i];
				if (j->state != HS_SJ_RUNNING && j->state != HS_SJ_SUSPENDED)
					continue;
				holders++;
				if (j->state == HS_SJ_SUSPENDED)
					fail_msg("round %d: job %u stays suspended on the GPU job 3 "
						 "got (job 1 %s, job 2 %s)", r, j->id,
						 hs_plan_op_name(pa->op), hs_plan_op_name(pb->op));
			}
			assert_true(holders <= 2);
		}
		hs_plan_free(&p);
	}
	if (!started)
		fail_msg("job 3 never started in 12 rounds (the test proves nothing)");
	hs_engine_free(e);
}

/* Two packed pairs on a node of two GPUs: four running jobs hold four GPU
 * slots (the round's run list once had room for one per GPU only: a heap
 * overflow that crashed slurmctld). Then the jobs report throughputs 20
 * times the table's (emulators with --time-scale 20; on real GPUs the
 * units differ from Gavel's table the same way) and a fifth job arrives,
 * so the policy solves again with measured alone throughputs: the pair
 * throughputs must follow the jobs' units, or every pair looks 20 times
 * slower than time slicing and the policy unpacks everything. */
/* Time slicing is not packing: a job running on the GPU of a job
 * suspended there runs alone, and its samples count. */
static void test_timeslice_samples_kept(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1), *b = fx_add(&f, 2, 1);
	a->ckpt = b->ckpt = 1;
	hs_engine_t *e = engine_with("PreemptMode=suspend\n");
	fx_rounds(&f, e, 1);
	fx_job_t *run = a->state == HS_SJ_RUNNING ? a : b, *other = run == a ? b : a;
	assert_int_equal(run->state, HS_SJ_RUNNING);
	suspend_by_us(&f, e, run);
	fx_run(&f, other, run->held, run->nheld); /* on the suspended job's GPU */
	fx_rounds(&f, e, 1);
	fx_measure_at(other, "v100", 6.0, f.now - 30);
	fx_rounds(&f, e, 1);
	const hs_jacct_t *ac = hs_acct_find(e, other->id);
	assert_non_null(ac);
	assert_float_equal(ac->meas[hs_acct_type_index(e, "v100")], 6.0, 1e-9);
	hs_engine_free(e);
}

/* Issue 28 item 4 (doc/protocol.md, "Packed jobs"): a rate sampled
 * while the job shared its GPU is its pair rate, not its alone speed. It
 * is left out of the job's estimate and of the learned table until a
 * sample taken after the sharing ended. */
static void test_packed_samples_left_out(void **state)
{
	(void)state;
	char table[4096], conf[4300];
	if (hs_test_gavel_path(table, sizeof(table), "simulation_throughputs.json") < 0) {
		skip(); /* no Gavel data on this machine */
		return;
	}
	snprintf(conf, sizeof(conf), "Policy=max_min_fairness_packed\nThroughputTable=%s\n", table);
	fx_t f;
	fx_init(&f, "v100:1:1");
	static const char *const models[2] = { "ResNet-18 (batch size 16)",
						"ResNet-18 (batch size 32)" };
	for (int i = 0; i < 2; i++) {
		fx_job_t *j = fx_add(&f, (uint32_t)i + 1, 1);
		snprintf(j->model, sizeof(j->model), "%s", models[i]);
		j->ckpt = 1;
	}
	hs_engine_t *e = engine_with(conf);
	hs_engine_set_packing(e, 1);
	fx_rounds(&f, e, 2); /* packed onto the one GPU, then seen sharing */
	assert_int_equal(f.jobs[0].state, HS_SJ_RUNNING);
	assert_int_equal(f.jobs[1].state, HS_SJ_RUNNING);
	/* job 1 samples while packed: its pair rate */
	fx_measure_at(&f.jobs[0], "v100", 7.5, f.now - 30);
	fx_rounds(&f, e, 1);
	int t = hs_acct_type_index(e, "v100");
	const hs_jacct_t *a = hs_acct_find(e, 1);
	assert_non_null(a);
	assert_true(t >= 0);
	assert_true(a->meas[t] == 0);
	assert_int_equal(e->learn.n, 0);
	/* job 2 ends; job 1 runs alone, and samples well after */
	f.njobs = 1;
	fx_rounds(&f, e, 1);
	assert_int_equal(f.jobs[0].state, HS_SJ_RUNNING);
	/* the round seen alone was 360 s ago: 10 s after it, the job's
	 * EMA still holds its pair rate (engine_packmeas.c) */
	fx_measure_at(&f.jobs[0], "v100", 8.0, f.now - 350);
	fx_rounds(&f, e, 1);
	assert_true(hs_acct_find(e, 1)->meas[t] == 0);
	fx_measure_at(&f.jobs[0], "v100", 9.0, f.now - 100);
	fx_rounds(&f, e, 1);
	a = hs_acct_find(e, 1);
	assert_float_equal(a->meas[t], 9.0, 1e-9);
	assert_int_equal(e->learn.n, 1);
	hs_engine_free(e);
}

static void test_packed_two_pairs_measured(void **state)
{
	(void)state;
	char table[4096], conf[4300];
	hs_thrtable_t tt;
	hs_err_t terr;
	if (hs_test_gavel_path(table, sizeof(table), "simulation_throughputs.json") < 0) {
		skip(); /* no Gavel data on this machine */
		return;
	}
	if (hs_thrtable_load(&tt, table, &terr) < 0) {
		hs_thrtable_free(&tt);
		skip(); /* no Gavel data on this machine */
		return;
	}
	snprintf(conf, sizeof(conf), "Policy=max_min_fairness_packed\nThroughputTable=%s\n", table);
	static const char *const models[5] = {
		"ResNet-18 (batch size 16)", "ResNet-18 (batch size 32)", "ResNet-18 (batch size 64)",
		"Recommendation (batch size 512)", "ResNet-18 (batch size 16)",
	};
	fx_t f;
	fx_init(&f, "v100:1:2");
	for (int i = 0; i < 4; i++) {
		fx_job_t *j = fx_add(&f, (uint32_t)i + 1, 1);
		snprintf(j->model, sizeof(j->model), "%s", models[i]);
		j->ckpt = 1;
	}
	hs_engine_t *e = engine_with(conf);
	hs_engine_set_packing(e, 1);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	int per_gpu[2] = { 0, 0 };
	for (int i = 0; i < 4; i++) {
		assert_int_equal(f.jobs[i].state, HS_SJ_RUNNING);
		per_gpu[f.jobs[i].held[0].gpu]++;
	}
	assert_int_equal(per_gpu[0], 2);
	assert_int_equal(per_gpu[1], 2);
	/* a round with four jobs on two GPUs (the overflow) */
	f.now += 360;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	for (uint32_t id = 1; id <= 4; id++)
		assert_int_equal(plan_job(&p, id)->op, HS_PLAN_KEEP);
	hs_plan_free(&p);
	/* measured at 20x the table, then a fifth job arrives */
	for (int i = 0; i < 4; i++) {
		int jt = hs_thrtable_find(&tt, models[i], 1);
		assert_true(jt >= 0);
		fx_measure(&f.jobs[i], "v100", 20 * hs_thrtable_alone(&tt, jt, "v100", 1));
	}
	fx_job_t *j5 = fx_add(&f, 5, 1);
	snprintf(j5->model, sizeof(j5->model), "%s", models[4]);
	j5->ckpt = 1;
	f.now += 360;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	int running = 0;
	per_gpu[0] = per_gpu[1] = 0;
	for (int i = 0; i < 5; i++)
		if (f.jobs[i].state == HS_SJ_RUNNING) {
			running++;
			per_gpu[f.jobs[i].held[0].gpu]++;
		}
	/* still two pairs (which four of the five is the mechanism's choice) */
	assert_int_equal(running, 4);
	assert_int_equal(per_gpu[0], 2);
	assert_int_equal(per_gpu[1], 2);
	hs_engine_free(e);
	hs_thrtable_free(&tt);
}

static void test_state_roundtrip(void **state)
{
	(void)state;
	fx_t f;
	two_jobs(&f);
	fx_add(&f, 103, 1)->ckpt = 1;
	/* no ticks: the requeue op of job 103's preemption stays in flight,
	 * so the state carries ops and their jobs' accounting (with ticks the
	 * op ends, and 103 waits outside the problem behind the two jobs
	 * that cannot be preempted) */
	f.no_ticks = 1;
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	fx_rounds(&f, e, 4);
	hs_plan_job_t pj = { .id = 103, .op = HS_PLAN_CHECKPOINT };
	assert_int_equal(hs_engine_applied(e, &pj, 1, f.now, 0, NULL), 0);
	hs_err_t err;
	json_object *st = hs_engine_save(e, &err);
	assert_non_null(st);
	char *text = strdup(json_object_to_json_string(st));
	hs_engine_t *e2 = engine_with(NULL);
	if (hs_engine_restore(e2, st, &err) < 0)
		fail_msg("restore: %s", err.msg);
	json_object *st2 = hs_engine_save(e2, &err);
	assert_string_equal(text, json_object_to_json_string(st2));
	assert_int_equal(hs_engine_nops(e2), hs_engine_nops(e));
	assert_true(hs_engine_nops(e2) >= 1);
	/* rounds continue after the restore */
	assert_int_equal(fx_round(&f, e2, &p, &c), 0);
	assert_true(p.round >= 4);
	hs_plan_free(&p);

	/* garbage is rejected and leaves the engine as it was */
	const char *bad[] = {
		"[]",
		"{\"format\":\"something-else\",\"version\":1}",
		"{\"format\":\"hetsched-sched-state\",\"version\":2}",
		"{\"format\":\"hetsched-sched-state\",\"version\":1,\"last_round\":-5}",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		json_object *g = json_tokener_parse(bad[k]);
		assert_int_equal(hs_engine_restore(e2, g, &err), -1);
		json_object_put(g);
	}
	/* field-level corruption of a real state */
	const char *keys[] = { "jobs", "ops", "mech", "types", "totals" };
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		json_object *g = json_tokener_parse(text);
		json_object_object_add(g, keys[k], json_object_new_string("oops"));
		assert_int_equal(hs_engine_restore(e2, g, &err), -1);
		assert_non_null(strstr(err.msg, keys[k]));
		json_object_put(g);
	}
	json_object *g = json_tokener_parse(text);
	json_object *j0 = json_object_array_get_idx(json_object_object_get(g, "jobs"), 0);
	json_object_object_add(j0, "x", json_object_new_string("nan"));
	assert_int_equal(hs_engine_restore(e2, g, &err), -1);
	json_object_put(g);
	json_object *st3 = hs_engine_save(e2, &err);
	assert_non_null(st3);
	json_object_put(st3);

	free(text);
	json_object_put(st);
	json_object_put(st2);
	hs_engine_free(e);
	hs_engine_free(e2);
}

static void test_reconfigure(void **state)
{
	(void)state;
	fx_t f;
	two_jobs(&f);
	hs_engine_t *e = engine_with(NULL);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	hs_sconf_t nc;
	hs_err_t err;
	hs_sconf_defaults(&nc, &err);
	assert_int_equal(hs_sconf_parse_text(&nc, "Policy=max_min_fairness\nRoundLength=60\n", &err),
			 0);
	assert_int_equal(hs_engine_reconfigure(e, &nc, &err), 0);
	assert_int_equal(hs_engine_conf(e)->round_s, 60);
	/* a table that does not exist: the old configuration stays */
	hs_sconf_t bc;
	hs_sconf_copy(&bc, &nc, &err);
	assert_int_equal(hs_sconf_set(&bc, "ThroughputTable", "/nonexistent/table.json", &err), 0);
	assert_int_equal(hs_engine_reconfigure(e, &bc, &err), -1);
	assert_non_null(strstr(err.msg, "nonexistent"));
	assert_string_equal(hs_engine_conf(e)->policy, "max_min_fairness");
	f.now += 60;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_true(p.solved); /* the new policy is applied at once */
	hs_plan_free(&p);
	hs_sconf_free(&nc);
	hs_sconf_free(&bc);
	hs_engine_free(e);
}

static void test_round_due(void **state)
{
	(void)state;
	hs_engine_t *e = engine_with("RoundLength=100\nMinRoundInterval=10\n");
	assert_true(hs_engine_round_due(e, 1000, 0)); /* never ran */
	fx_t f;
	two_jobs(&f);
	hs_plan_t p;
	fx_counts_t c;
	f.now = 1000;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_false(hs_engine_round_due(e, 1005, 1));
	assert_false(hs_engine_round_due(e, 1050, 0));
	assert_true(hs_engine_round_due(e, 1011, 1));
	assert_true(hs_engine_round_due(e, 1100, 0));
	/* the job set is compared only where an early round may follow */
	assert_false(hs_engine_round_change_matters(e, 1005)); /* too soon */
	assert_true(hs_engine_round_change_matters(e, 1011));
	assert_false(hs_engine_round_change_matters(e, 1100)); /* due anyway */
	/* the clock set back 100 s: a round at once, and the regular clock
	 * restarts from it (not from the round in the future) */
	assert_true(hs_engine_round_due(e, 900, 0));
	f.now = 900;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_false(hs_engine_round_due(e, 999, 0));
	assert_true(hs_engine_round_due(e, 1000, 0));
	hs_engine_free(e);
	e = engine_with("RoundLength=100\nMinRoundInterval=10\nEarlyRounds=no\n");
	f.now = 1000;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_false(hs_engine_round_change_matters(e, 1011));
	hs_engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_type_wins),
		cmocka_unit_test(test_min_cost_prices),
		cmocka_unit_test(test_status_user_ids),
		cmocka_unit_test(test_unchanged_not_preempted),
		cmocka_unit_test(test_convergence),
		cmocka_unit_test(test_preempt_methods),
		cmocka_unit_test(test_suspend_resume),
		cmocka_unit_test(test_suspended_not_stranded),
		cmocka_unit_test(test_requeue_off_after_start),
		cmocka_unit_test(test_requeue_off_array_task),
		cmocka_unit_test(test_suspended_cut_restart),
		cmocka_unit_test(test_suspend_mark_saved_first),
		cmocka_unit_test(test_reused_job_id),
		cmocka_unit_test(test_lost_start_held),
		cmocka_unit_test(test_lost_requeue_repeated),
		cmocka_unit_test(test_lost_requeue_and_start),
		cmocka_unit_test(test_settle_no_preemption),
		cmocka_unit_test(test_suspended_unmanaged),
		cmocka_unit_test(test_unmodelled_gpus),
		cmocka_unit_test(test_makespan_huge_steps),
		cmocka_unit_test(test_unsolvable_job_left_out),
		cmocka_unit_test(test_solve_leaving_out),
		cmocka_unit_test(test_timeslice),
		cmocka_unit_test(test_timeslice_unrequeueable),
		cmocka_unit_test(test_timeslice_unmovable_share),
		cmocka_unit_test(test_timeslice_pairs_stay_put),
		cmocka_unit_test(test_timeslice_pair_beside_start),
		cmocka_unit_test(test_preempt_rules),
		cmocka_unit_test(test_timeslice_pair_held),
		cmocka_unit_test(test_suspend_no_idle),
		cmocka_unit_test(test_hold_back_second_start),
		cmocka_unit_test(test_foreign_drained_typed),
		cmocka_unit_test(test_odd_shape_explained),
		cmocka_unit_test(test_multi_gpu_consolidated),
		cmocka_unit_test(test_node_mask_busy_node),
		cmocka_unit_test(test_node_mask_contention),
		cmocka_unit_test(test_array_slots),
		cmocka_unit_test(test_max_jobs),
		cmocka_unit_test(test_max_jobs_rotation),
		cmocka_unit_test(test_early_round_keeps_starts),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_accounts_entities),
		cmocka_unit_test(test_status_entities),
		cmocka_unit_test(test_departure),
		cmocka_unit_test(test_ops_checkpoint_flow),
		cmocka_unit_test(test_leaving_job),
		cmocka_unit_test(test_stale_holds),
		cmocka_unit_test(test_packed_pair),
		cmocka_unit_test(test_status_aggregates),
		cmocka_unit_test(test_packed_two_pairs_measured),
		cmocka_unit_test(test_packed_samples_left_out),
		cmocka_unit_test(test_timeslice_samples_kept),
		cmocka_unit_test(test_vacate_packed_pair),
		cmocka_unit_test(test_state_roundtrip),
		cmocka_unit_test(test_accounting_types_grow),
		cmocka_unit_test(test_lazy_documents_same_text),
		cmocka_unit_test(test_no_single_type_to_slurm),
		cmocka_unit_test(test_reconfigure),
		cmocka_unit_test(test_round_due),
	};
	return cmocka_run_group_tests_name("sched_engine", tests, NULL, NULL);
}
