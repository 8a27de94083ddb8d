/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sched_pinned.c — the round engine with jobs that cannot be
 * preempted (no checkpoints, the default, core/pinned.h): a
 * mixed queue where half the jobs are pinned. Pinned jobs are never
 * suspended, checkpointed or requeued; they hold at most their group's
 * share of the GPUs (plus what the preemptible jobs leave), the
 * preemptible jobs time-share the rest; a pinned job that ends makes
 * room for the next one. PinnedAdmission=always (the old behaviour)
 * lets the pinned jobs take every GPU. A running pinned job's GPUs count
 * against its user's share (PinnedCharge). A job no single type can hold
 * is admitted like a pinned one. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sched/engine.h"
#include "sched_fixtures.h"

static void logger(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

static hs_engine_t *engine_with(const char *conf_text)
{
	return fx_engine(conf_text, logger);
}

/* 4 GPUs, 8 one-GPU jobs: odd ids pinned (no checkpoints), even ids
 * checkpoint. */
static void mixed_queue(fx_t *f)
{
	fx_init(f, "v100:2:2");
	for (uint32_t id = 1; id <= 8; id++) {
		fx_job_t *j = fx_add(f, id, 1);
		j->ckpt = !(id % 2);
		j->submit = f->now - 100 + id; /* arrival order = id */
	}
}

static int held_by(const fx_t *f, int pinned)
{
	int n = 0;
	for (int i = 0; i < f->njobs; i++) {
		const fx_job_t *j = &f->jobs[i];
		if (!j->gone && j->state == HS_SJ_RUNNING && (!j->ckpt) == pinned)
			n += j->nheld;
	}
	return n;
}

/* Runs `rounds` rounds; fails if a pinned job is ever preempted; returns
 * the most GPUs pinned jobs held after a round, and in *min_pre the
 * fewest preemptible jobs held after round 2 (time to settle). */
static int run(fx_t *f, hs_engine_t *e, int rounds, int *min_pre)
{
	int max_pinned = 0;
	*min_pre = 1 << 20;
	for (int r = 0; r < rounds; r++) {
		hs_plan_t p;
		fx_counts_t c;
		f->now += 400;
		assert_int_equal(fx_round(f, e, &p, &c), 0);
		for (int k = 0; k < p.njobs; k++) {
			const fx_job_t *j = fx_find(f, p.jobs[k].id);
			if (j && !j->ckpt && (p.jobs[k].op == HS_PLAN_CHECKPOINT ||
					      p.jobs[k].op == HS_PLAN_REQUEUE ||
					      p.jobs[k].op == HS_PLAN_SUSPEND))
				fail_msg("round %d: pinned job %u got %s", r, j->id,
					 hs_plan_op_name(p.jobs[k].op));
		}
		hs_plan_free(&p);
		int pin = held_by(f, 1), pre = held_by(f, 0);
		if (pin > max_pinned)
			max_pinned = pin;
		if (r >= 2 && pre < *min_pre)
			*min_pre = pre;
	}
	return max_pinned;
}

static void test_half_pinned_share(void **state)
{
	(void)state;
	fx_t f;
	mixed_queue(&f);
	hs_engine_t *e = engine_with("RoundLength=360\nMinResetInterval=0\n"
				     "PinnedAdmission=share\n");
	int min_pre;
	int max_pin = run(&f, e, 12, &min_pre);
	/* share = 4 GPUs x 4/8 jobs = 2 */
	if (max_pin > 2 || min_pre < 2)
		fail_msg("pinned jobs held up to %d GPUs (share 2), preemptible jobs down to %d",
			 max_pin, min_pre);
	assert_int_equal(max_pin, 2);
	/* The two running pinned jobs end: 6 jobs left, share 4 x 2/6 =
	 * 1.33, so the oldest waiting pinned job starts (none holds GPUs)
	 * and the other waits. */
	uint32_t oldest = 0;
	for (uint32_t id = 1; id <= 7; id += 2) {
		fx_job_t *j = fx_find(&f, id);
		if (j->state == HS_SJ_RUNNING)
			j->gone = 1;
		else if (!oldest)
			oldest = id;
	}
	max_pin = run(&f, e, 3, &min_pre);
	int waiting = 0;
	for (uint32_t id = 1; id <= 7; id += 2)
		waiting += !fx_find(&f, id)->gone && fx_find(&f, id)->state == HS_SJ_PENDING;
	if (waiting != 1 || max_pin != 1 || fx_find(&f, oldest)->state != HS_SJ_RUNNING)
		fail_msg("after the pinned jobs ended: %d waiting, %d GPUs pinned, job %u %s",
			 waiting, max_pin, oldest,
			 fx_find(&f, oldest)->state == HS_SJ_RUNNING ? "runs" : "waits");
	hs_engine_free(e);
}

/* The waiting pinned jobs say why in squeue, and when they should start. */
static void test_pin_wait_reason(void **state)
{
	(void)state;
	fx_t f;
	mixed_queue(&f);
	hs_engine_t *e = engine_with("RoundLength=360\nPinnedAdmission=share\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	int waiting = 0;
	for (int k = 0; k < p.njobs; k++)
		if (strstr(p.jobs[k].reason, "cannot be preempted")) {
			assert_int_equal(p.jobs[k].id % 2, 1);
			assert_int_equal(p.jobs[k].op, HS_PLAN_NONE);
			/* and when they should start (squeue --start): after
			 * now, behind the jobs that hold the GPUs */
			if (!(p.jobs[k].expected_start > f.now))
				fail_msg("waiting pinned job %u: expected start %lld, now %lld",
					 p.jobs[k].id, (long long)p.jobs[k].expected_start,
					 (long long)f.now);
			waiting++;
		}
	assert_int_equal(waiting, 2);
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* Every GPU held by a running job nobody preempts (FIFO, one GPU): the
 * round has no usable GPU, yet the waiting jobs, a plain one and an
 * array's tasks, still get expected starts, one after another, from
 * when the running job's time limit ends (squeue --start showed N/A). */
static void test_start_behind_pinned(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->state = HS_SJ_RUNNING;
	a->start = f.now - 60;
	a->time_limit_min = 5;
	a->held[a->nheld++] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
	for (uint32_t id = 2; id <= 4; id++) {
		fx_job_t *j = fx_add(&f, id, 1);
		j->submit = f.now - 50 + id;
		j->time_limit_min = 3;
	}
	hs_engine_t *e = engine_with("RoundLength=10\nPolicy=fifo\n");
	for (int r = 0; r < 3; r++) {
		hs_plan_t p;
		fx_counts_t c;
		f.now += 10;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		assert_int_equal(c.start, 0);
		int64_t prev = a->start + 5 * 60;
		for (uint32_t id = 2; id <= 4; id++) {
			const hs_plan_job_t *pj = plan_job(&p, id);
			assert_non_null(pj);
			/* no earlier than the job ahead of it can end, and
			 * within a round of it */
			if (!(pj->expected_start >= prev && pj->expected_start <= prev + 10))
				fail_msg("round %d: job %u expected start %lld, want [%lld, %lld]", r,
					 id, (long long)pj->expected_start, (long long)prev,
					 (long long)prev + 10);
			prev = pj->expected_start + 3 * 60;
		}
		hs_plan_free(&p);
	}
	hs_engine_free(e);
}

/* Work conservation of the admission (PinnedAdmission=share): a pinned
 * job that cannot start now (-w the node another pinned job holds) does
 * not take the group's share, nor, being first in priority order, hold
 * back a pinned job that can start on the free node (sched_slurm_limits
 * (a) on a live cluster: the free node stayed idle). */
static void test_unstartable_pinned_not_admitted(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:1,k80:1:1");
	fx_job_t *a = fx_add(&f, 1, 1);
	a->state = HS_SJ_RUNNING;
	a->start = f.now - 60;
	a->held[a->nheld++] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
	fx_job_t *w = fx_add(&f, 2, 1);
	w->only_node = f.names[0]; /* -w the busy node */
	w->prio = 2000;            /* ahead of r */
	w->submit = f.now - 20;
	fx_job_t *r = fx_add(&f, 3, 1);
	r->submit = f.now - 10;
	hs_engine_t *e = engine_with("RoundLength=360\nPinnedAdmission=share\n");
	int started = 0;
	for (int k = 0; k < 2 && !started; k++) {
		hs_plan_t p;
		fx_counts_t c;
		f.now += 10;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		hs_plan_free(&p);
		started = fx_find(&f, 3)->state == HS_SJ_RUNNING;
	}
	if (!started || fx_find(&f, 2)->state != HS_SJ_PENDING)
		fail_msg("job 3 %s on the free k80, job 2 (-w the busy v100) %s",
			 started ? "started" : "did not start",
			 fx_find(&f, 2)->state == HS_SJ_PENDING ? "waits" : "did not wait");
	hs_engine_free(e);
}

/* The old behaviour, kept as PinnedAdmission=always: every pending
 * pinned job got a time share, and each one started kept its GPU, until
 * pinned jobs held more than their share. */
static void test_half_pinned_always(void **state)
{
	(void)state;
	fx_t f;
	mixed_queue(&f);
	hs_engine_t *e = engine_with("RoundLength=360\nMinResetInterval=0\n"
				     "PinnedAdmission=always\n");
	int min_pre;
	int max_pin = run(&f, e, 12, &min_pre);
	if (max_pin <= 2)
		fail_msg("expected the old behaviour to let pinned jobs exceed their share, "
			 "they held at most %d GPUs", max_pin);
	hs_engine_free(e);
}

/* Only preemptible jobs (all checkpoint): nothing changes, nothing waits. */
static void test_no_pinned(void **state)
{
	(void)state;
	fx_t f;
	mixed_queue(&f);
	for (int i = 0; i < f.njobs; i++)
		f.jobs[i].ckpt = 1;
	hs_engine_t *e = engine_with("RoundLength=360\nPinnedAdmission=share\n");
	hs_plan_t p;
	fx_counts_t c;
	assert_int_equal(fx_round(&f, e, &p, &c), 0);
	assert_int_equal(c.start, 4);
	for (int k = 0; k < p.njobs; k++)
		assert_null(strstr(p.jobs[k].reason, "cannot be preempted"));
	hs_plan_free(&p);
	hs_engine_free(e);
}

/* The soak's finding 3 (doc/robustness.md): the packed policy's input
 * check once failed a whole solve with "job '19' has no usable
 * accelerator type" (a v100-only job while no v100 was usable). Three
 * ways to lose the v100s, none of which reproduces it here, even with
 * the leave-out retry (solve_leaving_out.c) switched off: the problem
 * builder already keeps such a job out of the solve. These check that it
 * stays so: the round succeeds, the job waits (or keeps running), the
 * k80s are used, and a left-out warning, if any, comes once. */
static int unsolvable_logged;
static void count_left_out(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	if (strstr(msg, "job 2 left out of policy"))
		unsolvable_logged++;
}

static void no_usable_type(int v100_down)
{
	fx_t f;
	fx_init(&f, "v100:1:2,k80:1:2");
	fx_job_t *a = fx_add(&f, 1, 2);
	a->type = "v100";
	if (v100_down) {
		a->gone = 1;
		f.avail[0] = 0;
	} else {
		a->state = HS_SJ_RUNNING;
		a->start = f.now - 60;
		a->held[a->nheld++] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
		a->held[a->nheld++] = (hs_sgpu_t){ .node = 0, .gpu = 1 };
	}
	fx_job_t *b = fx_add(&f, 2, 1);
	b->type = "v100";
	b->ckpt = 1;
	if (v100_down == 2) { /* b still runs there: Slurm has not noticed yet */
		b->state = HS_SJ_RUNNING;
		b->start = f.now - 60;
		b->held[b->nheld++] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
	}
	for (uint32_t id = 3; id <= 4; id++)
		fx_add(&f, id, 1)->ckpt = 1;
	unsolvable_logged = 0;
	hs_engine_t *e = fx_engine("RoundLength=360\nMinResetInterval=0\n"
				   "Policy=max_min_fairness_packed\n", count_left_out);
	for (int r = 0; r < 2; r++) {
		hs_plan_t p;
		fx_counts_t c;
		f.now += 400;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		hs_plan_free(&p);
	}
	if (v100_down < 2)
		assert_int_equal(b->state, HS_SJ_PENDING);
	for (uint32_t id = 3; id <= 4; id++) {
		const fx_job_t *j = fx_find(&f, id);
		if (j->state != HS_SJ_RUNNING || strcmp(fx_type_of(&f, j), "k80"))
			fail_msg("job %u: %s on %s, want running on k80", id,
				 j->state == HS_SJ_RUNNING ? "running" : "not running",
				 fx_type_of(&f, j) ? fx_type_of(&f, j) : "nothing");
	}
	printf("# v100 %s: 'left out' logged %d time(s)\n", v100_down == 2 ? "down under a running job" : v100_down ? "down" : "pinned",
	       unsolvable_logged);
	assert_true(unsolvable_logged <= 1); /* once at most, not every round */
	hs_engine_free(e);
}

static void test_no_usable_type_pinned(void **state)
{
	(void)state;
	no_usable_type(0);
}

static void test_no_usable_type_down(void **state)
{
	(void)state;
	no_usable_type(1);
}

static void test_no_usable_type_running(void **state)
{
	(void)state;
	no_usable_type(2);
}

/* pinned_gpus of the status's entity named name (-1: none). */
static double status_pinned(json_object *st, const char *name)
{
	json_object *ents = json_object_object_get(st, "entities");
	for (size_t i = 0; ents && i < json_object_array_length(ents); i++) {
		json_object *x = json_object_array_get_idx(ents, i);
		if (!strcmp(json_object_get_string(json_object_object_get(x, "name")), name))
			return json_object_get_double(json_object_object_get(x, "pinned_gpus"));
	}
	return -1;
}

/* A running pinned job's GPUs count against its user (PinnedCharge=yes,
 * the default; issue 29): 4 GPUs, user 1's pinned job runs on 2 of them,
 * user 1 and user 2 (one account, equal Shares, the default policy and
 * Fairness=tree) have 2 pending checkpointing jobs each. User 1 holds its
 * half already, so user 2's jobs get the 2 free GPUs (target 1 each) and
 * user 1's none; PinnedCharge=no splits the free GPUs among the four
 * (1/2 each), as before. The status shows the charge (pinned_gpus) on
 * the user and its account. */
static void test_pinned_charged_to_user(void **state)
{
	(void)state;
	for (int charge = 0; charge < 2; charge++) {
		fx_t f;
		fx_init(&f, "v100:2:2");
		fx_job_t *a = fx_add(&f, 1, 2);
		a->uid = 1;
		a->state = HS_SJ_RUNNING;
		a->start = f.now - 60;
		a->held[a->nheld++] = (hs_sgpu_t){ .node = 0, .gpu = 0 };
		a->held[a->nheld++] = (hs_sgpu_t){ .node = 0, .gpu = 1 };
		for (uint32_t id = 2; id <= 5; id++) {
			fx_job_t *j = fx_add(&f, id, 1);
			j->ckpt = 1;
			j->uid = id <= 3 ? 1 : 2;
		}
		hs_engine_t *e = engine_with(charge ? NULL : "PinnedCharge=no\n");
		hs_plan_t p;
		hs_snap_t s;
		hs_err_t err;
		fx_snapshot(&f, &s);
		assert_int_equal(hs_engine_round(e, &s, &p, &err), 0);
		json_object *st = hs_engine_status(e, &s, &p, NULL, f.now, &err);
		assert_non_null(st);
		for (uint32_t id = 2; id <= 5; id++) {
			double want = !charge ? 0.5 : id <= 3 ? 0.0 : 1.0;
			double got = fx_status_target(st, id, "v100");
			if (fabs(got - want) > 1e-6)
				fail_msg("PinnedCharge=%s: job %u (user %d) gets %g, want %g",
					 charge ? "yes" : "no", id, id <= 3 ? 1 : 2, got, want);
		}
		assert_true(fabs(status_pinned(st, "uid1@acct") - 2.0 * charge) < 1e-9);
		assert_true(fabs(status_pinned(st, "acct") - 2.0 * charge) < 1e-9);
		assert_true(fabs(status_pinned(st, "uid2@acct")) < 1e-9);
		json_object_put(st);
		hs_plan_free(&p);
		hs_snap_free(&s);
		hs_engine_free(e);
	}
}

/* Pending pinned jobs are admitted fairly between their owners: user
 * 1's ten jobs, all ahead in priority order, do not take the four GPUs
 * before user 2's two (issue 28 item 6, sched_array_users.sh: a user's
 * array took every admission). Fairness=jobs keeps the priority order. */
static void test_pinned_admission_between_users(void **state)
{
	(void)state;
	for (int perjob = 0; perjob < 2; perjob++) {
		fx_t f;
		fx_init(&f, "v100:2:2");
		for (uint32_t id = 1; id <= 12; id++) {
			fx_job_t *j = fx_add(&f, id, 1);
			j->uid = id <= 10 ? 1 : 2;
			j->prio = 2000 - id;
		}
		hs_engine_t *e = engine_with(perjob ? "PinnedAdmission=share\nFairness=jobs\n"
						    : "PinnedAdmission=share\n");
		hs_plan_t p;
		fx_counts_t c;
		assert_int_equal(fx_round(&f, e, &p, &c), 0);
		int run1 = 0, run2 = 0;
		for (uint32_t id = 1; id <= 12; id++) {
			int r = fx_find(&f, id)->state == HS_SJ_RUNNING;
			run1 += id <= 10 && r;
			run2 += id > 10 && r;
		}
		if (run1 != (perjob ? 4 : 2) || run2 != (perjob ? 0 : 2))
			fail_msg("Fairness=%s: user 1 runs %d, user 2 runs %d", perjob ? "jobs" : "tree",
				 run1, run2);
		hs_plan_free(&p);
		hs_engine_free(e);
	}
}

/* One round of e on f's snapshot (*s and *p for the caller to free). */
static void round_on(fx_t *f, hs_engine_t *e, hs_snap_t *s, hs_plan_t *p)
{
	hs_err_t err;
	fx_snapshot(f, s);
	assert_int_equal(hs_engine_round(e, s, p, &err), 0);
}

/* A job no single GPU type can hold (3 GPUs, 2 of each type) would be
 * placed by Slurm across types and then never be preempted, checkpoints
 * or not: it is admitted like a pinned job (issue 28 item 3c). With
 * three preemptible jobs of another user waiting and a pinned job
 * running, the pinned group's share (4 x 4/7 GPUs) has no room for it:
 * it waits, saying why. Without the other user's jobs it starts (Slurm's
 * placement), and PinnedAdmission=always starts it whatever the share. */
static void test_span_job_admitted_like_pinned(void **state)
{
	(void)state;
	for (int run = 0; run < 3; run++) { /* 0 contended, 1 alone, 2 always */
		fx_t f;
		fx_init(&f, "v100:1:2,k80:1:2");
		fx_job_t *r = fx_add(&f, 1, 1); /* pinned, running */
		r->uid = 3;
		fx_hold(&f, r, "k80-1", 0);
		fx_job_t *span = fx_add(&f, 2, 3);
		span->uid = 1;
		span->ckpt = 1;
		for (uint32_t id = 3; id <= 5 && run != 1; id++) {
			fx_job_t *j = fx_add(&f, id, 1);
			j->uid = 2;
			j->ckpt = 1;
		}
		hs_engine_t *e = engine_with(run == 2 ? "PinnedAdmission=always\n"
						    : "PinnedAdmission=share\n");
		hs_snap_t s;
		hs_plan_t p;
		round_on(&f, e, &s, &p);
		const hs_plan_job_t *pj = plan_job(&p, 2);
		assert_non_null(pj);
		if (run == 0) {
			assert_int_equal(pj->op, HS_PLAN_NONE);
			assert_non_null(strstr(pj->reason, "no single GPU type can hold its 3 GPUs"));
			assert_non_null(strstr(pj->reason, "PinnedAdmission"));
		} else {
			assert_int_equal(pj->op, HS_PLAN_SLURM);
		}
		hs_plan_free(&p);
		hs_snap_free(&s);
		hs_engine_free(e);
	}
}

/* Once Slurm has placed it across types, such a job is pinned (never
 * checkpointed or requeued by a round) and its GPUs count against its
 * user's share (PinnedCharge), as any pinned job's. */
static void test_span_job_running_charged(void **state)
{
	(void)state;
	fx_t f;
	fx_init(&f, "v100:1:2,k80:1:2");
	fx_job_t *span = fx_add(&f, 2, 3);
	span->uid = 1;
	span->ckpt = 1;
	fx_hold(&f, span, "v100-1", 0);
	fx_hold(&f, span, "v100-1", 1);
	fx_hold(&f, span, "k80-1", 0);
	for (uint32_t id = 3; id <= 4; id++) {
		fx_job_t *j = fx_add(&f, id, 1);
		j->uid = 2;
		j->ckpt = 1;
	}
	hs_engine_t *e = engine_with("PinnedAdmission=share\n");
	hs_snap_t s;
	hs_plan_t p;
	hs_err_t err;
	round_on(&f, e, &s, &p);
	const hs_plan_job_t *pj = plan_job(&p, 2);
	assert_true(!pj || (pj->op != HS_PLAN_CHECKPOINT && pj->op != HS_PLAN_REQUEUE &&
			    pj->op != HS_PLAN_SUSPEND));
	json_object *st = hs_engine_status(e, &s, &p, NULL, f.now, &err);
	assert_non_null(st);
	assert_true(fabs(status_pinned(st, "uid1@acct") - 3.0) < 1e-9);
	assert_true(fabs(status_pinned(st, "uid2@acct")) < 1e-9);
	json_object_put(st);
	hs_plan_free(&p);
	hs_snap_free(&s);
	hs_engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_pinned_share),
		cmocka_unit_test(test_pinned_admission_between_users),
		cmocka_unit_test(test_pin_wait_reason),
		cmocka_unit_test(test_start_behind_pinned),
		cmocka_unit_test(test_half_pinned_always),
		cmocka_unit_test(test_unstartable_pinned_not_admitted),
		cmocka_unit_test(test_no_pinned),
		cmocka_unit_test(test_no_usable_type_pinned),
		cmocka_unit_test(test_no_usable_type_down),
		cmocka_unit_test(test_no_usable_type_running),
		cmocka_unit_test(test_pinned_charged_to_user),
		cmocka_unit_test(test_span_job_admitted_like_pinned),
		cmocka_unit_test(test_span_job_running_charged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
