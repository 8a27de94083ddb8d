/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sched_exec.c — what follows an outcome (exec.h), decided by the
 * engine and carried out by the fake Slurm executor of sched_fixtures.h:
 * the fallbacks of a start Slurm refuses (the planned GPU type, then any
 * type), waiting for GPUs a preemption of the same pass frees (and the
 * fallbacks leaving such a start's nodes alone), the refill
 * of a refused start's GPUs in priority order (held jobs skipped, tries
 * bounded), a packed start whose partner stopped, a restart's fallback,
 * jobs no single type holds, time-slicing suspends that follow their
 * start only, the write-ahead mark of a suspend that did not happen, and
 * the reason users see. Each plan is built by hand, so
 * each test pins one rule: it fails when that rule is removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sched/engine_exec_impl.h"
#include "sched_fixtures.h"

static void logger(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

/* Index of job id in the snapshot fx_snapshot builds. */
static int snap_index(const fx_t *f, uint32_t id)
{
	int k = 0;
	for (int i = 0; i < f->njobs; i++) {
		if (f->jobs[i].gone)
			continue;
		if (f->jobs[i].id == id)
			return k;
		k++;
	}
	return -1;
}

/* Appends a plan entry for job id with op; target "node:gpus" (NULL =
 * none) on a node of the fake, of GPU type `type`. */
static hs_plan_job_t *entry(hs_plan_t *p, const fx_t *f, uint32_t id, hs_plan_op_t op,
			    const char *node, int gpus, const char *type)
{
	hs_plan_job_t *pj = &p->jobs[p->njobs++];
	const fx_job_t *j = fx_find((fx_t *)f, id);
	memset(pj, 0, sizeof(*pj));
	pj->id = id;
	pj->snap = snap_index(f, id);
	pj->op = op;
	pj->type = -1;
	pj->type_name = type;
	pj->state = j->state;
	pj->restart_cnt = j->restart_cnt;
	pj->start_time = j->start;
	pj->ckpt_signal = 23;
	snprintf(pj->reason, sizeof(pj->reason), "plan of job %u", id);
	if (node) {
		int n = fx_node(f, node);
		for (int g = 0; g < gpus; g++)
			assert_int_equal(hs_target_add_gpu(&pj->target, gpus, n, node), 0);
	}
	return pj;
}

static void plan_init(hs_plan_t *p, int cap)
{
	memset(p, 0, sizeof(*p));
	p->round = 7;
	p->jobs = calloc((size_t)cap, sizeof(*p->jobs));
	assert_non_null(p->jobs);
}

/* Carries plan p out on f (pass and ticks, as fx_round does). */
static void run(fx_t *f, hs_engine_t *e, const hs_plan_t *p, fx_counts_t *c)
{
	hs_snap_t s;
	fx_snapshot(f, &s);
	fx_apply(f, e, &s, p, c);
	hs_snap_free(&s);
}

static const char *node_of(const fx_t *f, const fx_job_t *j)
{
	return j->nheld > 0 ? f->names[j->held[0].node] : NULL;
}

/* Slurm says the planned node cannot hold the job (its memory, say):
 * Slurm places it on another node of the planned type. */
static void test_config_refusal_type_fallback(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:1,k80:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->refuse_node = "v100-1";
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_plan_t p;
	fx_counts_t c;
	plan_init(&p, 4);
	entry(&p, &f, 1, HS_PLAN_START, "v100-1", 1, "v100");
	run(&f, e, &p, &c);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_string_equal(node_of(&f, a), "v100-2");
	assert_int_equal(c.fallbacks, 1);
	assert_int_equal(c.start, 1);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* "Nodes busy" while the planned GPUs were free in the snapshot: what is
 * busy is something else (memory held by jobs that stay), so waiting
 * would idle the GPU every round: the type fallback, at once. */
static void test_busy_but_gpus_free_falls_back(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->busy_node = "v100-1";
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_plan_t p;
	fx_counts_t c;
	plan_init(&p, 4);
	entry(&p, &f, 1, HS_PLAN_START, "v100-1", 1, "v100");
	run(&f, e, &p, &c);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_string_equal(node_of(&f, a), "v100-2");
	assert_int_equal(hs_engine_nops(e), 0);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* "Nodes busy" because the planned GPU is still held by the job this
 * round preempts: the start waits (an op) and happens once the victim's
 * checkpoint is acknowledged and it is requeued, in the same round. */
static void test_busy_gpus_held_waits_for_victim(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1,k80:1:1");
	fx_job_t *v = fx_add(&f, 1, 1);
	v->ckpt = 1;
	v->state = HS_SJ_RUNNING;
	v->nheld = 1;
	v->held[0] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
	v->start = f.now - 100;
	fx_job_t *b = fx_add(&f, 2, 1);
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_plan_t p;
	fx_counts_t c;
	plan_init(&p, 4);
	entry(&p, &f, 1, HS_PLAN_CHECKPOINT, NULL, 0, NULL);
	entry(&p, &f, 2, HS_PLAN_START, "v100-1", 1, "v100");
	f.no_ticks = 1;
	run(&f, e, &p, &c);
	/* not on k80 (no fallback: the GPUs are being freed), waiting */
	assert_int_equal(b->state, HS_SJ_PENDING);
	assert_int_equal(c.fallbacks, 0);
	assert_int_equal(hs_engine_nops(e), 2);
	/* the ticks: the victim's acknowledged checkpoint, its requeue, the
	 * deferred start */
	for (int t = 0; t < 4; t++)
		(void)fx_tick(&f, e, &c);
	assert_int_equal(v->state, HS_SJ_PENDING);
	assert_int_equal(b->state, HS_SJ_RUNNING);
	assert_string_equal(node_of(&f, b), "v100-1");
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* No node of the planned type can ever hold the job: Slurm places it on
 * any type, as for a job that named none. */
static void test_type_refused_any_type(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1,k80:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->refuse_node = "v100-1";
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_plan_t p;
	fx_counts_t c;
	plan_init(&p, 4);
	entry(&p, &f, 1, HS_PLAN_START, "v100-1", 1, "v100");
	run(&f, e, &p, &c);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_string_equal(node_of(&f, a), "k80-1");
	assert_int_equal(c.fallbacks, 2);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* A start deferred for a victim's GPUs keeps the part of its target that
 * is free already: another job's fallback to any type (refused on its own
 * type) must not take it, or the deferred start fails at its retry. The
 * fallback leaves the target's node out (user-bounds.md, 3b). */
static void test_fallback_avoids_deferred_target(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1,k80:1:2");
	fx_job_t *v = fx_add(&f, 1, 1);
	v->ckpt = 1;
	fx_hold(&f, v, "k80-1", 0);
	fx_job_t *b = fx_add(&f, 2, 2);
	fx_job_t *a = fx_add(&f, 3, 1);
	a->refuse_node = "v100-1"; /* its memory, say: no v100 node holds it */
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_plan_t p;
	fx_counts_t c;
	plan_init(&p, 4);
	entry(&p, &f, 1, HS_PLAN_CHECKPOINT, NULL, 0, NULL);
	entry(&p, &f, 2, HS_PLAN_START, "k80-1", 2, "k80");
	entry(&p, &f, 3, HS_PLAN_START, "v100-1", 1, "v100");
	f.no_ticks = 1;
	run(&f, e, &p, &c);
	assert_int_equal(b->state, HS_SJ_PENDING); /* deferred: GPU 0 still held */
	assert_int_equal(a->state, HS_SJ_PENDING); /* k80-1's free GPU left to b */
	assert_int_equal(c.fallbacks, 2);          /* tried on v100, then any type */
	for (int t = 0; t < 4; t++)
		(void)fx_tick(&f, e, &c);
	assert_int_equal(v->state, HS_SJ_PENDING);
	assert_int_equal(b->state, HS_SJ_RUNNING);
	assert_int_equal(b->nheld, 2);
	assert_string_equal(node_of(&f, b), "k80-1");
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* A start refused for good (a limit): its GPUs go to the next pending job
 * in priority order that fits them, in the same pass; a candidate Slurm
 * holds now is skipped (not counted as a try); the refused job's reason
 * says why. */
static void test_refill_priority_order(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->refuse_other = 1;
	fx_job_t *lo = fx_add(&f, 2, 1);
	lo->prio = 500;
	fx_job_t *hi = fx_add(&f, 3, 1);
	hi->prio = 2000;
	fx_job_t *held = fx_add(&f, 4, 1);
	held->prio = 5000;
	held->held_now = 1;
	fx_job_t *big = fx_add(&f, 5, 2); /* does not fit one GPU */
	big->prio = 9000;
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_plan_t p;
	plan_init(&p, 8);
	entry(&p, &f, 1, HS_PLAN_START, "v100-1", 1, "v100");
	for (uint32_t id = 2; id <= 5; id++)
		entry(&p, &f, id, HS_PLAN_NONE, NULL, 0, NULL);
	hs_snap_t s;
	fx_snapshot(&f, &s);
	hs_exec_t *x = hs_exec_plan(e, &s, &p, f.now);
	hs_acts_t *b;
	while ((b = hs_exec_next(x)))
		(void)fx_exec(&f, b);
	assert_int_equal(a->state, HS_SJ_PENDING);
	assert_int_equal(hi->state, HS_SJ_RUNNING);
	assert_int_equal(lo->state, HS_SJ_PENDING);
	assert_int_equal(held->state, HS_SJ_PENDING);
	assert_int_equal(hs_exec_counts(x)->refilled, 1);
	assert_non_null(strstr(hs_exec_reason(x, 0), "Slurm refused the start planned on v100-1"));
	assert_non_null(strstr(hs_exec_reason(x, 2), "GPUs of JobId=1"));
	assert_string_equal(hs_exec_reason(x, 1), "plan of job 2");
	hs_exec_free(x);
	hs_snap_free(&s);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* The refill tries at most HS_REFILL_TRIES jobs per refused target (the
 * time under slurmctld's write locks). */
static void test_refill_bounded(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	hs_plan_t p;
	plan_init(&p, 16);
	fx_add(&f, 1, 1)->refuse_other = 1;
	for (uint32_t id = 2; id <= 12; id++)
		fx_add(&f, id, 1)->refuse_other = 1;
	entry(&p, &f, 1, HS_PLAN_START, "v100-1", 1, "v100");
	for (uint32_t id = 2; id <= 12; id++)
		entry(&p, &f, id, HS_PLAN_NONE, NULL, 0, NULL);
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_snap_t s;
	fx_snapshot(&f, &s);
	hs_exec_t *x = hs_exec_plan(e, &s, &p, f.now);
	hs_acts_t *b;
	int starts = 0;
	while ((b = hs_exec_next(x))) {
		for (int k = 0; k < b->n; k++)
			starts += b->a[k].kind == HS_DO_START;
		(void)fx_exec(&f, b);
	}
	assert_int_equal(starts, 1 + HS_REFILL_TRIES);
	hs_exec_free(x);
	hs_snap_free(&s);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* Candidates Slurm holds now are no attempt at the GPUs: more of them
 * than HS_REFILL_TRIES ahead of a startable one do not use the budget up. */
static void test_refill_held_not_counted(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	hs_plan_t p;
	plan_init(&p, 16);
	fx_add(&f, 1, 1)->refuse_other = 1;
	for (uint32_t id = 2; id <= 11; id++) {
		fx_job_t *j = fx_add(&f, id, 1);
		j->held_now = 1;
		j->prio = 5000;
	}
	fx_job_t *ok = fx_add(&f, 12, 1);
	entry(&p, &f, 1, HS_PLAN_START, "v100-1", 1, "v100");
	for (uint32_t id = 2; id <= 12; id++)
		entry(&p, &f, id, HS_PLAN_NONE, NULL, 0, NULL);
	hs_engine_t *e = fx_engine(NULL, logger);
	fx_counts_t c;
	run(&f, e, &p, &c);
	assert_int_equal(ok->state, HS_SJ_RUNNING);
	assert_int_equal(c.refilled, 1);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* A packed start whose partner stopped before the apply: started alone
 * on the target's nodes. */
static void test_packed_partner_gone(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *q = fx_add(&f, 1, 1);
	q->state = HS_SJ_RUNNING;
	q->nheld = 1;
	q->held[0] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
	q->start = f.now - 10;
	fx_job_t *a = fx_add(&f, 2, 1);
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_engine_set_packing(e, 1);
	hs_plan_t p;
	fx_counts_t c;
	plan_init(&p, 4);
	entry(&p, &f, 1, HS_PLAN_KEEP, NULL, 0, NULL);
	entry(&p, &f, 2, HS_PLAN_START, "v100-1", 1, "v100")->target.partner = 1;
	hs_snap_t s;
	fx_snapshot(&f, &s);
	/* the partner ends between the snapshot and the apply */
	q->state = HS_SJ_OTHER;
	q->gone = 1;
	fx_apply(&f, e, &s, &p, &c);
	hs_snap_free(&s);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_string_equal(node_of(&f, a), "v100-1");
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* A migration's restart (an op) refused on its target's node: the same
 * fallback as a planned start, on its GPU type. */
static void test_restart_type_fallback(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:2:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->refuse_node = "v100-1";
	a->restart_cnt = 1; /* requeued by the op recorded below */
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_plan_t p;
	plan_init(&p, 2);
	hs_plan_job_t *pj = entry(&p, &f, 1, HS_PLAN_REQUEUE, "v100-1", 1, "v100");
	pj->restart_cnt = 0;
	assert_int_equal(hs_engine_applied(e, pj, 1, f.now, 0, NULL), 0);
	fx_counts_t c = { 0 };
	for (int t = 0; t < 3; t++)
		(void)fx_tick(&f, e, &c);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_string_equal(node_of(&f, a), "v100-2");
	assert_int_equal(c.fallbacks, 1);
	assert_int_equal(hs_engine_nops(e), 0);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* The same between in-flight ops: a restart that waits for GPUs still
 * held keeps its target's node from another restart's fallback to any
 * type, in the same tick; once the holder is gone it starts there. */
static void test_op_fallback_avoids_waiting_restart(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1,k80:1:2");
	fx_job_t *v = fx_add(&f, 3, 1); /* holds k80-1's GPU 0, stays */
	fx_hold(&f, v, "k80-1", 0);
	fx_job_t *a = fx_add(&f, 1, 1);
	a->refuse_node = "v100-1";
	a->restart_cnt = 1;
	fx_job_t *b = fx_add(&f, 2, 2);
	b->restart_cnt = 1;
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_plan_t p;
	plan_init(&p, 2);
	hs_plan_job_t *pa = entry(&p, &f, 1, HS_PLAN_REQUEUE, "v100-1", 1, "v100");
	hs_plan_job_t *pb = entry(&p, &f, 2, HS_PLAN_REQUEUE, "k80-1", 2, "k80");
	pa->restart_cnt = pb->restart_cnt = 0;
	assert_int_equal(hs_engine_applied(e, pa, 1, f.now, 0, NULL), 0);
	assert_int_equal(hs_engine_applied(e, pb, 1, f.now, 0, NULL), 0);
	fx_counts_t c = { 0 };
	(void)fx_tick(&f, e, &c);
	assert_int_equal(c.fallbacks, 2);          /* a: on v100, then any type */
	assert_int_equal(a->state, HS_SJ_PENDING); /* not on b's k80-1 */
	assert_int_equal(b->state, HS_SJ_PENDING);
	v->gone = 1;
	v->nheld = 0;
	for (int t = 0; t < 3; t++)
		(void)fx_tick(&f, e, &c);
	assert_int_equal(b->state, HS_SJ_RUNNING);
	assert_string_equal(node_of(&f, b), "k80-1");
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* A job no single type can hold is placed by Slurm on any free GPUs. */
static void test_slurm_placed(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1,k80:1:1");
	fx_job_t *a = fx_add(&f, 1, 2);
	a->per_node = 1;
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_plan_t p;
	fx_counts_t c;
	plan_init(&p, 2);
	entry(&p, &f, 1, HS_PLAN_SLURM, NULL, 0, NULL);
	run(&f, e, &p, &c);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_int_equal(a->nheld, 2);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* Time slicing: the running job is suspended only after the job packed
 * onto its GPUs started; when that start is refused it keeps running. */
static void timeslice(int refuse, hs_sjob_state_t want_a, hs_sjob_state_t want_b)
{
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->state = HS_SJ_RUNNING;
	a->nheld = 1;
	a->held[0] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
	a->start = f.now - 10;
	fx_job_t *b = fx_add(&f, 2, 1);
	b->refuse_other = refuse;
	hs_engine_t *e = fx_engine(NULL, logger);
	hs_engine_set_packing(e, 1);
	hs_plan_t p;
	fx_counts_t c;
	plan_init(&p, 4);
	entry(&p, &f, 1, HS_PLAN_SUSPEND, NULL, 0, NULL)->slice_with = 2;
	entry(&p, &f, 2, HS_PLAN_START, "v100-1", 1, "v100")->target.partner = 1;
	run(&f, e, &p, &c);
	assert_int_equal(a->state, want_a);
	assert_int_equal(b->state, want_b);
	hs_plan_free(&p);
	hs_engine_free(e);
}

static void test_timeslice_after_start(void **state)
{
	(void)state;
	timeslice(0, HS_SJ_SUSPENDED, HS_SJ_RUNNING);
	timeslice(1, HS_SJ_RUNNING, HS_SJ_PENDING);
}

/* Issue 28 item 7: a planned suspend marks its job ours before it is
 * carried out (write-ahead: the state the plugin saves before the apply
 * has it); a suspend the executor finds gone (the job was suspended by
 * someone else meanwhile) clears the mark again: not ours to resume. */
static void test_suspend_gone_clears_mark(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	hs_engine_t *e = fx_engine("PreemptMode=suspend\n", logger);
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	hs_plan_free(&p);
	assert_int_equal(a->state, HS_SJ_RUNNING);
	assert_non_null(hs_acct_find(e, 1));
	plan_init(&p, 2);
	entry(&p, &f, 1, HS_PLAN_SUSPEND, NULL, 0, NULL);
	hs_ops_mark_suspends(e, &p);
	assert_int_equal(hs_acct_find(e, 1)->suspended_by_us, 1);
	a->state = HS_SJ_SUSPENDED; /* scontrol suspend, before our act */
	run(&f, e, &p, &c);
	assert_int_equal(c.suspend, 0);
	assert_int_equal(hs_acct_find(e, 1)->suspended_by_us, 0);
	hs_plan_free(&p);
	hs_engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_refusal_type_fallback),
		cmocka_unit_test(test_fallback_avoids_deferred_target),
		cmocka_unit_test(test_busy_but_gpus_free_falls_back),
		cmocka_unit_test(test_busy_gpus_held_waits_for_victim),
		cmocka_unit_test(test_type_refused_any_type),
		cmocka_unit_test(test_refill_priority_order),
		cmocka_unit_test(test_refill_bounded),
		cmocka_unit_test(test_refill_held_not_counted),
		cmocka_unit_test(test_packed_partner_gone),
		cmocka_unit_test(test_restart_type_fallback),
		cmocka_unit_test(test_op_fallback_avoids_waiting_restart),
		cmocka_unit_test(test_slurm_placed),
		cmocka_unit_test(test_timeslice_after_start),
		cmocka_unit_test(test_suspend_gone_clears_mark),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
