/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_mechanism.c — the round mechanism on small, hand-checkable cases:
 * priorities and rotation, deficits carried across resets, lease
 * extension, multi-GPU placement on few servers, preemption/migration
 * counting and costs, packed pairs counted once, drained GPUs, type order,
 * zero-throughput entries, and saving/restoring the state. Every expected
 * value is worked out by hand in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mechanism.h"
#include "core/policy.h"

/* A test world: cluster, jobs, servers, current placements. */
typedef struct world {
	hs_problem_t p;
	hs_server_t srv[8];
	unsigned char usable[8][8];
	int nsrv;
	hs_job_run_t run[8];
	hs_gpu_ref_t rungpus[8][8];
	hs_mech_t *m;
} world_t;

/* Default options with a reset on every change of the job set (Gavel's
 * simulator waits 1920 s). */
static hs_mech_opts_t opts_every_change(void)
{
	hs_mech_opts_t o;
	hs_mech_opts_default(&o);
	o.min_reset_s = 0;
	return o;
}

static void world_init(world_t *w, const char *cluster, int njobs, const hs_mech_opts_t *o)
{
	memset(w, 0, sizeof(*w));
	hs_err_t err;
	assert_int_equal(hs_cluster_parse(&w->p.cluster, cluster, &err), 0);
	assert_int_equal(hs_problem_alloc_jobs(&w->p, njobs, &err), 0);
	for (int i = 0; i < njobs; i++) {
		char id[16];
		snprintf(id, sizeof(id), "j%d", i);
		w->p.jobs[i].id = strdup(id);
		w->p.jobs[i].remaining_steps = 1000;
		for (int j = 0; j < w->p.cluster.ntypes; j++)
			w->p.jobs[i].thr[j] = 1.0;
	}
	hs_mech_opts_t def = opts_every_change();
	w->m = hs_mech_new(o ? o : &def, &err);
	assert_non_null(w->m);
}

static void add_server(world_t *w, const char *name, int type, int ngpus)
{
	int s = w->nsrv++;
	w->srv[s] = (hs_server_t){ .name = name, .type = type, .ngpus = ngpus,
				   .usable = w->usable[s] };
	for (int g = 0; g < ngpus; g++)
		w->usable[s][g] = 1;
}

static void world_free(world_t *w)
{
	hs_mech_free(w->m);
	hs_problem_free(&w->p);
}

/* Runs one round: begin, (alloc if given), schedule; then makes the
 * decisions the new "current placement" as a caller would. */
static int round_(world_t *w, double elapsed, const hs_alloc_t *a, hs_round_out_t *out)
{
	hs_err_t err = { "" };
	hs_round_in_t in = { .elapsed_s = elapsed, .problem = &w->p, .run = w->run,
			     .nservers = w->nsrv, .servers = w->srv };
	int need = hs_mech_begin_round(w->m, &in, &err);
	if (need < 0)
		fail_msg("begin_round: %s", err.msg);
	if (hs_mech_schedule(w->m, &in, a, out, &err) < 0)
		fail_msg("schedule: %s", err.msg);
	for (int i = 0; i < w->p.njobs; i++) {
		w->run[i].ngpus = out->d[i].ngpus;
		if (out->d[i].ngpus > 0)
			memcpy(w->rungpus[i], out->d[i].gpus,
			       (size_t)out->d[i].ngpus * sizeof(hs_gpu_ref_t));
		w->run[i].gpus = w->rungpus[i];
	}
	return need;
}

static void alloc_equal(hs_alloc_t *a, const world_t *w, double x)
{
	hs_err_t err;
	assert_int_equal(hs_alloc_init(a, w->p.njobs, w->p.cluster.ntypes, &err), 0);
	for (int i = 0; i < w->p.njobs * w->p.cluster.ntypes; i++)
		a->x[i] = x;
}

/* One GPU, two jobs with X = 0.5 each: they alternate round by round.
 * Lag X E - recv in half rounds u (R = 360), priority 1 + u behind,
 * 1 / (1 - u) ahead:
 * r0: neither ran, lag 0 -> 1 each, tie -> j0.
 * r1 (360 s later): j0 lag 180 - 360 -> 1/2; j1 lag 180 -> 2 -> j1.
 * r2: j0 and j1 lag 360 - 360 = 0 -> 1 each, deficits 0 -> j0 again. */
static void rotation(void **state)
{
	(void)state;
	world_t w;
	hs_mech_opts_t o = opts_every_change();
	o.preempt_cost_s = 30;
	o.restart_aware = 0; /* Gavel's choices; the cost is still charged */
	world_init(&w, "a:1", 2, &o);
	add_server(&w, "n0", 0, 1);
	hs_alloc_t a;
	alloc_equal(&a, &w, 0.5);
	hs_round_out_t out;

	assert_int_equal(round_(&w, 0, &a, &out), 1);
	assert_int_equal(out.reset, 1);
	assert_int_equal(out.d[0].action, HS_ACT_START);
	assert_int_equal(out.d[0].resume, 0);
	assert_true(out.d[0].cost_s == 0.0);
	assert_int_equal(out.d[1].action, HS_ACT_NONE);
	assert_true(fabs(out.d[0].priority - 1.0) < 1e-12);
	hs_round_out_free(&out);

	assert_int_equal(round_(&w, 360, NULL, &out), 0); /* job set unchanged */
	assert_int_equal(out.d[0].action, HS_ACT_PREEMPT);
	assert_int_equal(out.d[1].action, HS_ACT_START);
	assert_true(fabs(out.d[1].priority - 2.0) < 1e-12);
	hs_round_out_free(&out);

	round_(&w, 360, NULL, &out);
	assert_int_equal(out.d[0].action, HS_ACT_START);
	assert_int_equal(out.d[0].resume, 1);      /* ran before: restart */
	assert_true(out.d[0].cost_s == 30.0);
	assert_true(fabs(out.d[0].priority - 1.0) < 1e-12);
	assert_int_equal(out.d[1].action, HS_ACT_PREEMPT);
	hs_round_out_free(&out);

	hs_mech_stats_t st;
	hs_mech_get_stats(w.m, &st);
	assert_int_equal(st.rounds, 3);
	assert_int_equal(st.starts, 3);
	assert_int_equal(st.resumes, 1);
	assert_int_equal(st.preemptions, 2);
	assert_int_equal(st.keeps, 0);
	assert_true(st.cost_s == 30.0);
	hs_alloc_free(&a);
	world_free(&w);
}

/* Restart-aware selection: the same two jobs with a 180 s restart cost
 * and 360 s rounds (priorities as in rotation()). r2: j0 would restart
 * (it ran in r0), so its priority 1 counts for 1 * (360 - 180) / 360
 * = 0.5 against j1's 1 for staying: j1 keeps the GPU (without the
 * discount the tie goes to j0). r3: j1 lag 540 - 720 -> 1/2 against j0
 * lag 540 - 360 -> 2 * 0.5 = 1: j0 restarts. A job that has not run
 * pays nothing and is not discounted. */
static void restart_aware(void **state)
{
	(void)state;
	world_t w;
	hs_mech_opts_t o = opts_every_change();
	o.preempt_cost_s = 180;
	o.round_s = 360;
	world_init(&w, "a:1", 2, &o);
	add_server(&w, "n0", 0, 1);
	hs_alloc_t a;
	alloc_equal(&a, &w, 0.5);
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	assert_int_equal(out.d[0].action, HS_ACT_START);
	hs_round_out_free(&out);
	round_(&w, 360, NULL, &out);
	assert_int_equal(out.d[1].action, HS_ACT_START); /* not run yet: 2 */
	assert_true(out.d[1].cost_s == 0.0);
	hs_round_out_free(&out);
	round_(&w, 360, NULL, &out);
	assert_int_equal(out.d[1].action, HS_ACT_KEEP);
	assert_int_equal(out.d[0].action, HS_ACT_NONE);
	assert_true(fabs(out.d[1].priority - 1.0) < 1e-12);
	hs_round_out_free(&out);
	round_(&w, 360, NULL, &out);
	assert_int_equal(out.d[0].action, HS_ACT_START);
	assert_int_equal(out.d[0].resume, 1);
	assert_true(out.d[0].cost_s == 180.0);
	assert_true(fabs(out.d[0].priority - 1.0) < 1e-12);
	assert_int_equal(out.d[1].action, HS_ACT_PREEMPT);
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	world_free(&w);
}

/* Deficits: j0 ran the only GPU for 360 s with X = 0.5 each, then a new
 * allocation arrives. deficit(j0) = 0.5*360 - 360 = -180, deficit(j1) =
 * +180. Both have received nothing since the reset, so priorities tie
 * (1) and the deficit decides: j1 runs. */
static void deficits(void **state)
{
	(void)state;
	world_t w;
	world_init(&w, "a:1", 2, NULL);
	add_server(&w, "n0", 0, 1);
	hs_alloc_t a;
	alloc_equal(&a, &w, 0.5);
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	assert_int_equal(out.d[0].action, HS_ACT_START);
	hs_round_out_free(&out);
	round_(&w, 360, &a, &out); /* forced reset with the same shares */
	assert_int_equal(out.reset, 1);
	assert_int_equal(out.d[1].action, HS_ACT_START);
	assert_int_equal(out.d[0].action, HS_ACT_PREEMPT);
	hs_round_out_free(&out);

	hs_err_t err;
	json_object *st = hs_mech_save(w.m, &err);
	assert_non_null(st);
	json_object *ents, *e, *def;
	assert_true(json_object_object_get_ex(st, "entries", &ents));
	int found = 0;
	for (size_t i = 0; i < json_object_array_length(ents); i++) {
		e = json_object_array_get_idx(ents, i);
		json_object *ids;
		json_object_object_get_ex(e, "jobs", &ids);
		const char *id = json_object_get_string(json_object_array_get_idx(ids, 0));
		json_object_object_get_ex(e, "deficit_s", &def);
		double d = json_object_get_double(json_object_array_get_idx(def, 0));
		if (!strcmp(id, "j0")) {
			assert_true(d == -180.0);
			found++;
		} else if (!strcmp(id, "j1")) {
			assert_true(d == 180.0);
			found++;
		}
	}
	assert_int_equal(found, 2);
	json_object_put(st);
	hs_alloc_free(&a);
	world_free(&w);
}

/* Lease extension: a job that keeps its assignment keeps the very same
 * GPUs (n1 GPUs 0,1 here, not the "better fitting" n0), and the action is
 * KEEP, not a restart. */
static void lease_extension(void **state)
{
	(void)state;
	world_t w;
	world_init(&w, "a:4", 1, NULL);
	w.p.jobs[0].scale_factor = 2;
	add_server(&w, "n0", 0, 2);
	add_server(&w, "n1", 0, 2);
	hs_alloc_t a;
	alloc_equal(&a, &w, 1.0);
	/* Pretend the job already runs on n1 (e.g. after a scheduler restart). */
	w.rungpus[0][0] = (hs_gpu_ref_t){ 1, 0 };
	w.rungpus[0][1] = (hs_gpu_ref_t){ 1, 1 };
	w.run[0] = (hs_job_run_t){ .ngpus = 2, .gpus = w.rungpus[0] };
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	assert_int_equal(out.d[0].action, HS_ACT_KEEP);
	assert_int_equal(out.d[0].gpus[0].server, 1);
	assert_int_equal(out.d[0].nservers, 1);
	hs_round_out_free(&out);
	for (int r = 0; r < 3; r++) {
		round_(&w, 360, NULL, &out);
		assert_int_equal(out.d[0].action, HS_ACT_KEEP);
		assert_int_equal(out.nkeep, 1);
		hs_round_out_free(&out);
	}
	/* n1 GPU 1 drained: the lease cannot be kept, the job migrates, to n0. */
	w.usable[1][1] = 0;
	round_(&w, 360, NULL, &out);
	assert_int_equal(out.d[0].action, HS_ACT_MIGRATE);
	assert_int_equal(out.d[0].resume, 1);
	assert_int_equal(out.d[0].gpus[0].server, 0);
	assert_int_equal(out.d[0].gpus[1].server, 0);
	hs_round_out_free(&out);
	hs_mech_stats_t st;
	hs_mech_get_stats(w.m, &st);
	assert_int_equal(st.keeps, 4);
	assert_int_equal(st.migrations, 1);
	assert_int_equal(st.lease_opportunities, 5);
	hs_alloc_free(&a);
	world_free(&w);
}

/* Multi-GPU jobs go on as few servers as possible: servers with 4, 2, 2
 * free GPUs; a 4-GPU job takes the 4-GPU server whole, two 2-GPU jobs the
 * 2-GPU servers. Then with 2+2+2+2 (the 4-GPU server half drained) a
 * 3-GPU job must span exactly 2 servers. */
/* Leases (opts.lease_s = 360): one GPU, two jobs with X = 0.5. r0: j0
 * starts. r1 comes 5 s later (an early round): j1 never ran (priority
 * 1 + 2.5 / 180 against j0's 1 / (1 + 2.5 / 180)), yet j0
 * keeps the GPU, its run began 5 s ago. Without a lease (lease_s = 0)
 * the same round preempts j0. The lease survives save/restore: r2 (10 s)
 * keeps j0 in both mechanisms; r3 at 360 s since the start lets j1 in. */
static void early_round_lease(void **state)
{
	(void)state;
	for (int with_lease = 0; with_lease <= 1; with_lease++) {
		world_t w;
		hs_mech_opts_t o = opts_every_change();
		o.restart_aware = 0;
		o.lease_s = with_lease ? 360 : 0;
		world_init(&w, "a:1", 2, &o);
		add_server(&w, "n0", 0, 1);
		hs_alloc_t a;
		alloc_equal(&a, &w, 0.5);
		hs_round_out_t out;
		round_(&w, 0, &a, &out);
		assert_int_equal(out.d[0].action, HS_ACT_START);
		hs_round_out_free(&out);
		round_(&w, 5, NULL, &out);
		assert_int_equal(out.d[0].action, with_lease ? HS_ACT_KEEP : HS_ACT_PREEMPT);
		assert_int_equal(out.d[1].action, with_lease ? HS_ACT_NONE : HS_ACT_START);
		hs_round_out_free(&out);
		if (!with_lease) {
			hs_alloc_free(&a);
			world_free(&w);
			continue;
		}
		hs_err_t err;
		json_object *st = hs_mech_save(w.m, &err);
		assert_non_null(st);
		assert_non_null(strstr(json_object_to_json_string(st), "\"run_since_s\""));
		hs_mech_t *m2 = hs_mech_restore(st, &o, &err);
		json_object_put(st);
		if (!m2)
			fail_msg("restore: %s", err.msg);
		hs_mech_t *m1 = w.m;
		for (int k = 0; k < 2; k++) {
			w.m = k ? m2 : m1;
			hs_round_in_t in = { .elapsed_s = 5, .problem = &w.p, .run = w.run,
					     .nservers = w.nsrv, .servers = w.srv };
			assert_true(hs_mech_begin_round(w.m, &in, &err) >= 0);
			assert_int_equal(hs_mech_schedule(w.m, &in, NULL, &out, &err), 0);
			assert_int_equal(out.d[0].action, HS_ACT_KEEP);
			hs_round_out_free(&out);
		}
		hs_mech_free(m1);
		w.m = m2;
		round_(&w, 350, NULL, &out);
		assert_int_equal(out.d[0].action, HS_ACT_PREEMPT);
		assert_int_equal(out.d[1].action, HS_ACT_START);
		hs_round_out_free(&out);
		hs_alloc_free(&a);
		world_free(&w);
	}
}

/* A lease holds GPUs only while they are usable: j0 and j1 run on n0 and
 * n1; 5 s later n0's GPU is drained. j1 keeps n1 within its lease, j0 is
 * preempted (nothing usable is left for it), j2 still waits. */
static void lease_drained(void **state)
{
	(void)state;
	world_t w;
	hs_mech_opts_t o = opts_every_change();
	o.lease_s = 360;
	world_init(&w, "a:2", 3, &o);
	add_server(&w, "n0", 0, 1);
	add_server(&w, "n1", 0, 1);
	hs_alloc_t a;
	alloc_equal(&a, &w, 2.0 / 3);
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	assert_int_equal(out.d[0].action, HS_ACT_START);
	assert_int_equal(out.d[1].action, HS_ACT_START);
	int on_n0 = out.d[0].gpus[0].server == 0 ? 0 : 1;
	hs_round_out_free(&out);
	w.usable[0][0] = 0;
	w.p.cluster.count[0] = 1;
	round_(&w, 5, NULL, &out);
	assert_int_equal(out.d[on_n0].action, HS_ACT_PREEMPT);
	assert_int_equal(out.d[1 - on_n0].action, HS_ACT_KEEP);
	assert_int_equal(out.d[2].action, HS_ACT_NONE);
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	world_free(&w);
}

/* A restricted job that runs counts its own GPUs in the selection: j0
 * runs on n1 and may use n0 or n1, j1 (pending) may use only n0. Both
 * never ran (priorities tie, j0 first by index). j0's reservation used
 * to be the best fit, n0, so j1 found no room and n0 stayed idle; now j0
 * holds n1 and j1 starts on n0. */
static void restricted_running_keeps_own(void **state)
{
	(void)state;
	world_t w;
	hs_mech_opts_t o = opts_every_change();
	world_init(&w, "a:2", 2, &o);
	add_server(&w, "n0", 0, 1);
	add_server(&w, "n1", 0, 1);
	w.run[0].ngpus = 1;
	w.rungpus[0][0] = (hs_gpu_ref_t){ .server = 1, .gpu = 0 };
	w.run[0].gpus = w.rungpus[0];
	w.run[1].gpus = w.rungpus[1];
	unsigned char both[2] = { 1, 1 }, only_n0[2] = { 1, 0 };
	const unsigned char *masks[2] = { both, only_n0 };
	hs_alloc_t a;
	alloc_equal(&a, &w, 0.5);
	hs_err_t err;
	hs_round_in_t in = { .elapsed_s = 0, .problem = &w.p, .run = w.run, .nservers = w.nsrv,
			     .servers = w.srv, .job_servers = masks };
	assert_true(hs_mech_begin_round(w.m, &in, &err) >= 0);
	hs_round_out_t out;
	assert_int_equal(hs_mech_schedule(w.m, &in, &a, &out, &err), 0);
	assert_int_equal(out.d[0].action, HS_ACT_KEEP);
	assert_int_equal(out.d[1].action, HS_ACT_START);
	assert_int_equal(out.d[1].gpus[0].server, 0);
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	world_free(&w);
}

static void few_servers(void **state)
{
	(void)state;
	world_t w;
	world_init(&w, "a:8", 3, NULL);
	w.p.jobs[0].scale_factor = 2;
	w.p.jobs[1].scale_factor = 4;
	w.p.jobs[2].scale_factor = 2;
	add_server(&w, "n0", 0, 2);
	add_server(&w, "big", 0, 4);
	add_server(&w, "n2", 0, 2);
	hs_alloc_t a;
	alloc_equal(&a, &w, 1.0);
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	assert_int_equal(out.gpus_used, 8);
	assert_int_equal(out.d[1].nservers, 1);
	for (int g = 0; g < 4; g++)
		assert_int_equal(out.d[1].gpus[g].server, 1);
	assert_int_equal(out.d[0].nservers, 1);
	assert_int_equal(out.d[2].nservers, 1);
	assert_int_not_equal(out.d[0].gpus[0].server, out.d[2].gpus[0].server);
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	world_free(&w);

	world_init(&w, "a:8", 1, NULL);
	w.p.jobs[0].scale_factor = 3;
	add_server(&w, "n0", 0, 2);
	add_server(&w, "big", 0, 4);
	add_server(&w, "n2", 0, 2);
	w.usable[1][0] = w.usable[1][1] = 0;
	alloc_equal(&a, &w, 1.0);
	round_(&w, 0, &a, &out);
	assert_int_equal(out.d[0].ngpus, 3);
	assert_int_equal(out.d[0].nservers, 2);
	for (int g = 0; g < 3; g++)
		assert_false(out.d[0].gpus[g].server == 1 && out.d[0].gpus[g].gpu < 2);
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	world_free(&w);
}

/* A packed pair uses its scale factor once: one GPU, pair (j0, j1) with
 * X = 1 -> both run on the same GPU, each other's partner, 1 GPU used.
 * j2 alone (X = 1, priority 1) would outrank the pair by deficit only;
 * the pair also has 1, tie -> deficit 0 -> X 1 both -> lower first
 * member index: the pair (j0) wins, j2 waits. */
static void pairs_count_once(void **state)
{
	(void)state;
	world_t w;
	world_init(&w, "a:1", 3, NULL);
	hs_err_t err;
	/* two job types that can share: throughputs 0.6 and 0.7 together */
	w.p.jobtypes.n = 2;
	w.p.jobtypes.names = calloc(2, sizeof(char *));
	w.p.jobtypes.names[0] = strdup("A");
	w.p.jobtypes.names[1] = strdup("B");
	w.p.jobtypes.scale_factor = calloc(2, sizeof(int));
	w.p.jobtypes.scale_factor[0] = w.p.jobtypes.scale_factor[1] = 1;
	w.p.jobtypes.pair_thr = calloc(4, sizeof(double));
	w.p.jobtypes.pair_thr[0 * 2 + 1] = 0.6; /* A with B */
	w.p.jobtypes.pair_thr[1 * 2 + 0] = 0.7; /* B with A */
	w.p.jobs[0].job_type = 0;
	w.p.jobs[1].job_type = 1;
	add_server(&w, "n0", 0, 1);
	hs_alloc_t a;
	assert_int_equal(hs_alloc_init(&a, 3, 1, &err), 0);
	a.x[2] = 1.0;
	int q = hs_alloc_add_pair(&a, 0, 1, &err);
	assert_true(q >= 0);
	a.pairs[q].x[0] = 1.0;
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	assert_int_equal(out.gpus_used, 1);
	assert_int_equal(out.d[0].action, HS_ACT_START);
	assert_int_equal(out.d[1].action, HS_ACT_START);
	assert_int_equal(out.d[0].partner, 1);
	assert_int_equal(out.d[1].partner, 0);
	assert_int_equal(out.d[0].gpus[0].gpu, out.d[1].gpus[0].gpu);
	assert_int_equal(out.d[2].action, HS_ACT_NONE);
	hs_round_out_free(&out);
	/* Next round: the pair got 360 s (credited once, to the pair entry):
	 * pair lag 0 -> 1, j2 lag 360 -> 3 -> j2 runs, the pair is
	 * preempted (both members). */
	round_(&w, 360, NULL, &out);
	assert_int_equal(out.d[2].action, HS_ACT_START);
	assert_int_equal(out.d[0].action, HS_ACT_PREEMPT);
	assert_int_equal(out.d[1].action, HS_ACT_PREEMPT);
	hs_round_out_free(&out);
	/* A pair whose members cannot share on this type is never picked. */
	w.p.jobtypes.pair_thr[1] = 0.0;
	round_(&w, 360, &a, &out);
	assert_int_equal(out.d[0].partner, -1);
	assert_int_equal(out.d[1].partner, -1);
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	world_free(&w);
}

/* Types are visited fastest first; a job with zero throughput on a type is
 * never put there; backfill uses idle GPUs for X = 0 jobs unless off. */
static void type_order_and_backfill(void **state)
{
	(void)state;
	world_t w;
	world_init(&w, "slow:1,fast:1", 3, NULL);
	for (int i = 0; i < 3; i++) {
		w.p.jobs[i].thr[0] = 1.0;
		w.p.jobs[i].thr[1] = 3.0;
	}
	w.p.jobs[2].thr[1] = 0.0; /* j2 cannot run on fast */
	add_server(&w, "s", 0, 1);
	add_server(&w, "f", 1, 1);
	hs_alloc_t a;
	alloc_equal(&a, &w, 0.5);
	a.x[2 * 2 + 1] = 0.0;
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	/* fast first: j0 (tie by index) on fast; slow: j1 (j0 taken) */
	assert_int_equal(out.d[0].type, 1);
	assert_int_equal(out.d[1].type, 0);
	assert_int_equal(out.d[2].action, HS_ACT_NONE);
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	world_free(&w);

	/* Backfill: one job with X = 0 everywhere still runs on an idle GPU,
	 * unless backfill is off (FIFO). */
	hs_mech_opts_t o = opts_every_change();
	for (int bf = 0; bf < 2; bf++) {
		o.backfill = bf;
		world_init(&w, "a:1", 1, &o);
		add_server(&w, "n", 0, 1);
		alloc_equal(&a, &w, 0.0);
		round_(&w, 0, &a, &out);
		assert_int_equal(out.d[0].action, bf ? HS_ACT_START : HS_ACT_NONE);
		hs_round_out_free(&out);
		hs_alloc_free(&a);
		world_free(&w);
	}
	hs_mech_opts_default(&o);
	hs_mech_opts_for_policy(&o, "fifo");
	assert_int_equal(o.backfill, 0);
	assert_int_equal(o.shuffle_types, 1);
	hs_mech_opts_for_policy(&o, "max_min_fairness_perf");
	assert_int_equal(o.backfill, 1);
	assert_int_equal(o.shuffle_types, 0);
	hs_mech_opts_for_policy(&o, "min_cost_slo");
	assert_int_equal(o.shuffle_types, 0);
	hs_mech_opts_for_policy(&o, "finish_time_fairness");
	assert_int_equal(o.shuffle_types, 1);
	assert_int_equal(o.backfill, 1);
	hs_mech_opts_for_policy(&o, "gandiva"); /* agnostic shares, packs pairs */
	assert_int_equal(o.shuffle_types, 1);
	hs_mech_opts_for_policy(&o, "fifo_packed");
	assert_int_equal(o.shuffle_types, 0);
	assert_int_equal(o.backfill, 0);
	hs_mech_opts_for_policy(&o, "isolated");
	assert_int_equal(o.shuffle_types, 1);
	/* every policy: the registry decides, not the name */
	for (int i = 0; i < hs_policy_count(); i++) {
		const char *n = hs_policy_name(i);
		hs_mech_opts_for_policy(&o, n);
		assert_int_equal(o.shuffle_types, !hs_policy_is_aware(n));
		assert_int_equal(o.backfill, hs_policy_backfills(n));
	}
}

/* Resets: with min_reset_s = 1000 an arrival asks for a new allocation
 * only once 1000 s have passed since the last reset; a departure likewise;
 * with no allocation at all it asks at once. */
static void reset_interval(void **state)
{
	(void)state;
	world_t w;
	hs_mech_opts_t o;
	hs_mech_opts_default(&o);
	o.min_reset_s = 1000;
	world_init(&w, "a:2", 2, &o);
	add_server(&w, "n", 0, 2);
	w.p.njobs = 1; /* only j0 has arrived */
	hs_alloc_t a;
	assert_int_equal(hs_alloc_init(&a, 1, 1, NULL), 0);
	a.x[0] = 1.0;
	hs_round_out_t out;
	assert_int_equal(round_(&w, 0, &a, &out), 1);
	hs_round_out_free(&out);
	assert_int_equal(round_(&w, 360, NULL, &out), 0);
	hs_round_out_free(&out);
	w.p.njobs = 2; /* j1 arrives at 720 s: too early for a reset */
	assert_int_equal(round_(&w, 360, NULL, &out), 0);
	/* backfill lets j1 use the idle GPU meanwhile */
	assert_int_equal(out.d[1].action, HS_ACT_START);
	hs_round_out_free(&out);
	assert_int_equal(round_(&w, 360, NULL, &out), 1); /* 1080 s */
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	w.p.njobs = 2;
	world_free(&w);
}

/* Bad input is an error with a message, never a crash. */
static void bad_input(void **state)
{
	(void)state;
	world_t w;
	world_init(&w, "a:2", 2, NULL);
	add_server(&w, "n", 0, 2);
	hs_err_t err;
	hs_round_in_t in = { .elapsed_s = 0, .problem = &w.p, .run = w.run,
			     .nservers = w.nsrv, .servers = w.srv };
	/* GPU index beyond the server */
	w.rungpus[0][0] = (hs_gpu_ref_t){ 0, 5 };
	w.run[0] = (hs_job_run_t){ 1, w.rungpus[0] };
	assert_int_equal(hs_mech_begin_round(w.m, &in, &err), -1);
	assert_non_null(strstr(err.msg, "does not exist"));
	/* the same for the GPUs a suspended job holds (home) */
	w.run[0] = (hs_job_run_t){ 0, NULL };
	hs_job_run_t home[2] = { { 1, w.rungpus[0] }, { 0, NULL } };
	in.home = home;
	assert_int_equal(hs_mech_begin_round(w.m, &in, &err), -1);
	assert_non_null(strstr(err.msg, "home placement names a GPU that does not exist"));
	in.home = NULL;
	/* two jobs on overlapping but different GPU sets */
	w.rungpus[0][0] = (hs_gpu_ref_t){ 0, 0 };
	w.rungpus[0][1] = (hs_gpu_ref_t){ 0, 1 };
	w.run[0] = (hs_job_run_t){ 2, w.rungpus[0] };
	w.rungpus[1][0] = (hs_gpu_ref_t){ 0, 1 };
	w.run[1] = (hs_job_run_t){ 1, w.rungpus[1] };
	assert_int_equal(hs_mech_begin_round(w.m, &in, &err), -1);
	assert_non_null(strstr(err.msg, "overlapping"));
	w.run[0].ngpus = w.run[1].ngpus = 0;
	/* duplicate ids */
	free(w.p.jobs[1].id);
	w.p.jobs[1].id = strdup("j0");
	assert_int_equal(hs_mech_begin_round(w.m, &in, &err), -1);
	assert_non_null(strstr(err.msg, "twice"));
	free(w.p.jobs[1].id);
	w.p.jobs[1].id = strdup("j1");
	/* schedule without begin_round */
	hs_round_out_t out;
	assert_int_equal(hs_mech_schedule(w.m, &in, NULL, &out, &err), -1);
	hs_round_out_free(&out);
	/* allocation out of range */
	assert_true(hs_mech_begin_round(w.m, &in, &err) >= 0);
	hs_alloc_t a;
	alloc_equal(&a, &w, 1.5);
	assert_int_equal(hs_mech_schedule(w.m, &in, &a, &out, &err), -1);
	assert_non_null(strstr(err.msg, "not in [0, 1]"));
	hs_round_out_free(&out);
	hs_alloc_free(&a);
	/* duplicate server names */
	add_server(&w, "n", 0, 1);
	in.nservers = w.nsrv;
	assert_int_equal(hs_mech_begin_round(w.m, &in, &err), -1);
	assert_non_null(strstr(err.msg, "appears twice"));
	world_free(&w);
}

/* Save/restore: a restored mechanism makes exactly the decisions the
 * original would; garbage is rejected with a message. */
static void save_restore(void **state)
{
	(void)state;
	world_t w;
	world_init(&w, "a:1,b:1", 3, NULL);
	add_server(&w, "na", 0, 1);
	add_server(&w, "nb", 1, 1);
	hs_alloc_t a;
	alloc_equal(&a, &w, 1.0 / 3);
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	hs_round_out_free(&out);
	round_(&w, 360, NULL, &out);
	hs_round_out_free(&out);

	hs_err_t err;
	json_object *st = hs_mech_save(w.m, &err);
	assert_non_null(st);
	const char *text = json_object_to_json_string(st);
	json_object *again = json_tokener_parse(text);
	hs_mech_opts_t o = opts_every_change();
	hs_mech_t *m2 = hs_mech_restore(again, &o, &err);
	if (!m2)
		fail_msg("restore: %s", err.msg);
	json_object *st2 = hs_mech_save(m2, &err);
	assert_string_equal(json_object_to_json_string(st2), text);
	json_object_put(st2);

	/* same next round from both */
	hs_round_in_t in = { .elapsed_s = 360, .problem = &w.p, .run = w.run,
			     .nservers = w.nsrv, .servers = w.srv };
	hs_round_out_t o1, o2;
	assert_true(hs_mech_begin_round(w.m, &in, &err) >= 0);
	assert_int_equal(hs_mech_schedule(w.m, &in, NULL, &o1, &err), 0);
	assert_true(hs_mech_begin_round(m2, &in, &err) >= 0);
	assert_int_equal(hs_mech_schedule(m2, &in, NULL, &o2, &err), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(o1.d[i].action, o2.d[i].action);
		assert_int_equal(o1.d[i].type, o2.d[i].type);
	}
	assert_int_equal(o1.round, o2.round);
	hs_round_out_free(&o1);
	hs_round_out_free(&o2);
	hs_mech_free(m2);

	/* garbage */
	const char *bad[] = {
		"[]",
		"{\"format\": \"other\", \"version\": 1}",
		"{\"format\": \"hetsched-mechanism\", \"version\": 99}",
		NULL,
	};
	for (int i = 0; bad[i]; i++) {
		json_object *b = json_tokener_parse(bad[i]);
		assert_null(hs_mech_restore(b, &o, &err));
		assert_true(strlen(err.msg) > 0);
		json_object_put(b);
	}
	/* valid document with one field broken at a time */
	const char *breaks[][2] = {
		{ "clock_s", "-5" }, { "round", "\"x\"" }, { "rng", "[1,2]" },
		{ "types", "[{\"name\": \"\", \"count_at_reset\": 1}]" },
		{ "jobs", "[{\"id\": \"a\", \"ever_ran\": true}]" },
		{ "entries", "[{\"jobs\": [\"nosuch\"], \"x\": [0,0], \"received_s\": [0,0], \"deficit_s\": [0,0]}]" },
		{ "entries", "[{\"jobs\": [\"j0\"], \"x\": [2,0], \"received_s\": [0,0], \"deficit_s\": [0,0]}]" },
		{ "stats", "{}" },
	};
	for (size_t i = 0; i < sizeof(breaks) / sizeof(breaks[0]); i++) {
		json_object *b = json_tokener_parse(text);
		json_object_object_add(b, breaks[i][0], json_tokener_parse(breaks[i][1]));
		err.msg[0] = '\0';
		hs_mech_t *mm = hs_mech_restore(b, &o, &err);
		if (mm)
			fail_msg("broken '%s' accepted", breaks[i][0]);
		assert_true(strlen(err.msg) > 0);
		json_object_put(b);
	}
	json_object_put(again);
	json_object_put(st);
	hs_alloc_free(&a);
	world_free(&w);
}

/* ---- Damaged state files: random value-level mutations -------------------- */

/* Every value slot of a JSON tree (object member or array element). */
typedef struct slot {
	json_object *parent;
	const char *key;  /* NULL: array element */
	size_t idx;
} slot_t;

static void collect(json_object *o, slot_t *s, int *n, int cap)
{
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v) {
			if (*n < cap)
				s[(*n)++] = (slot_t){ o, k, 0 };
			collect(v, s, n, cap);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			if (*n < cap)
				s[(*n)++] = (slot_t){ o, NULL, i };
			collect(json_object_array_get_idx(o, i), s, n, cap);
		}
	}
}

static json_object *random_value(unsigned short *rng)
{
	switch ((int)(erand48(rng) * 10)) {
	case 0: return NULL;
	case 1: return json_object_new_int(-1);
	case 2: return json_object_new_int64(INT64_MAX);
	case 3: return json_object_new_double(-1e300);
	case 4: return json_object_new_string("");
	case 5: return json_object_new_string("j1");
	case 6: return json_object_new_array();
	case 7: return json_object_new_object();
	case 8: return json_object_new_boolean(1);
	default: return json_object_new_double(1e308 * 10); /* inf */
	}
}

/* A restored mechanism (whatever it holds) runs a round without crashing
 * and saves/restores identically; garbage is refused with a message. */
static void damaged_states(void **state)
{
	(void)state;
	world_t w;
	world_init(&w, "a:1,b:1", 3, NULL);
	add_server(&w, "na", 0, 1);
	add_server(&w, "nb", 1, 1);
	hs_alloc_t a;
	alloc_equal(&a, &w, 1.0 / 3);
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	hs_round_out_free(&out);
	round_(&w, 360, NULL, &out);
	hs_round_out_free(&out);
	hs_err_t err;
	json_object *st = hs_mech_save(w.m, &err);
	const char *text = json_object_to_json_string(st);
	unsigned short rng[3] = { 1, 2, 3 };
	int accepted = 0, refused = 0;
	for (int it = 0; it < 3000; it++) {
		json_object *doc = json_tokener_parse(text);
		slot_t slots[512];
		int n = 0;
		collect(doc, slots, &n, 512);
		int nmut = 1 + (int)(erand48(rng) * 3);
		for (int k = 0; k < nmut && n > 0; k++) {
			slot_t *s = &slots[(int)(erand48(rng) * n)];
			json_object *v = random_value(rng);
			if (s->key)
				json_object_object_add(s->parent, s->key, v);
			else
				json_object_array_put_idx(s->parent, s->idx, v);
			/* the tree changed: recollect before the next mutation */
			n = 0;
			collect(doc, slots, &n, 512);
		}
		err.msg[0] = '\0';
		hs_mech_t *m = hs_mech_restore(doc, NULL, &err);
		if (!m) {
			assert_true(strlen(err.msg) > 0);
			refused++;
		} else {
			accepted++;
			json_object *s1 = hs_mech_save(m, &err);
			hs_mech_t *m2 = hs_mech_restore(s1, NULL, &err);
			assert_non_null(m2);
			json_object *s2 = hs_mech_save(m2, &err);
			assert_string_equal(json_object_to_json_string(s1), json_object_to_json_string(s2));
			hs_round_in_t in = { .elapsed_s = 360, .problem = &w.p, .run = w.run,
					     .nservers = w.nsrv, .servers = w.srv };
			if (hs_mech_begin_round(m, &in, &err) >= 0) {
				hs_round_out_t o;
				if (hs_mech_schedule(m, &in, NULL, &o, &err) == 0)
					assert_true(o.gpus_used <= 2);
				hs_round_out_free(&o);
			}
			json_object_put(s1);
			json_object_put(s2);
			hs_mech_free(m2);
			hs_mech_free(m);
		}
		json_object_put(doc);
	}
	/* both outcomes must actually occur, or the test tests nothing */
	assert_true(accepted > 10);
	assert_true(refused > 10);
	json_object_put(st);
	hs_alloc_free(&a);
	world_free(&w);
}

/* A round with no jobs at all, and jobs that leave: nothing to do, no
 * crash, and a departed job's pair entries go with it. */
static void empty_and_departures(void **state)
{
	(void)state;
	world_t w;
	world_init(&w, "a:2", 2, NULL);
	add_server(&w, "n", 0, 2);
	hs_alloc_t a;
	alloc_equal(&a, &w, 1.0);
	hs_round_out_t out;
	round_(&w, 0, &a, &out);
	assert_int_equal(out.gpus_used, 2);
	hs_round_out_free(&out);
	int njobs = w.p.njobs;
	w.p.njobs = 0;
	assert_int_equal(round_(&w, 360, NULL, &out), 0);
	assert_int_equal(out.njobs, 0);
	assert_int_equal(out.gpus_used, 0);
	hs_round_out_free(&out);
	hs_err_t err;
	json_object *st = hs_mech_save(w.m, &err);
	json_object *jobs;
	json_object_object_get_ex(st, "jobs", &jobs);
	assert_int_equal(json_object_array_length(jobs), 0);
	json_object_object_get_ex(st, "entries", &jobs);
	assert_int_equal(json_object_array_length(jobs), 0);
	json_object_put(st);
	w.p.njobs = njobs;
	hs_alloc_free(&a);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rotation),
		cmocka_unit_test(restart_aware),
		cmocka_unit_test(deficits),
		cmocka_unit_test(lease_extension),
		cmocka_unit_test(early_round_lease),
		cmocka_unit_test(lease_drained),
		cmocka_unit_test(restricted_running_keeps_own),
		cmocka_unit_test(few_servers),
		cmocka_unit_test(pairs_count_once),
		cmocka_unit_test(type_order_and_backfill),
		cmocka_unit_test(reset_interval),
		cmocka_unit_test(bad_input),
		cmocka_unit_test(save_restore),
		cmocka_unit_test(damaged_states),
		cmocka_unit_test(empty_and_departures),
	};
	return cmocka_run_group_tests_name("mechanism", tests, NULL, NULL);
}
