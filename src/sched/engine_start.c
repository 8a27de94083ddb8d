/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_start.c — expected start times of the round's pending jobs
 * (squeue --start, scontrol show job, `hetsched job`): the problem's jobs
 * with the mechanism's shares, and the eligible jobs the problem could not
 * hold (beyond MaxJobs, waiting for busy GPUs) as jobs without a share,
 * in Slurm's priority order, through hs_start_estimate (start_est.h). */
#include "sched/engine_impl.h"

#include "core/policy_impl.h"
#include "core/start_est.h"

#include <math.h>
#include <stdlib.h>

/* Steps/s of problem job k: on the type it runs on this round, else its
 * allocation's mix of types, else its fastest type. */
static double job_rate(hs_engine_t *e, const hs_round_build_t *b, const hs_snap_t *s,
		       const hs_decision_t *d, int k)
{
	const hs_problem_t *pb = &b->problem;
	const hs_job_t *jb = &pb->jobs[k];
	if (d->type >= 0)
		return jb->thr[d->type];
	const hs_jacct_t *ac = hs_acct_find(e, s->jobs[b->pjob_snap[k]].id);
	double num = 0, den = 0, best = 0;
	for (int j = 0; j < pb->cluster.ntypes; j++) {
		best = jb->thr[j] > best ? jb->thr[j] : best;
		int t = ac ? b->tmap[j] : -1;
		if (t >= 0 && ac->x[t] > 0) {
			num += ac->x[t] * jb->thr[j];
			den += ac->x[t];
		}
	}
	return den > 0 && num > 0 ? num / den : best;
}

/* Finish-time fairness estimate of problem job k (doc/start-times.md):
 * rho = (age + remaining / T_alloc) / (age + remaining / T_iso), T_alloc
 * its throughput under the allocation in force (time fractions times
 * throughputs, alone), T_iso under an equal 1/M share of every type
 * (Gavel's isolated allocation). > 1: worse than an equal share. Also
 * keeps the expected remaining time at its current rate. */
static void job_rho(hs_engine_t *e, const hs_round_build_t *b, const hs_snap_t *s,
		    const double *cap, int k, double rate)
{
	const hs_problem_t *pb = &b->problem;
	const hs_job_t *jb = &pb->jobs[k];
	hs_jacct_t *ac = hs_acct_find(e, s->jobs[b->pjob_snap[k]].id);
	if (!ac)
		return;
	double alloc = 0;
	for (int j = 0; j < pb->cluster.ntypes; j++) {
		int t = b->tmap[j];
		if (t >= 0)
			alloc += ac->x[t] * jb->thr[j];
	}
	double iso = hs_isolated_thr(pb, cap, k);
	ac->remaining_s = rate > 0 ? jb->remaining_steps / rate : -1;
	ac->have_rho = alloc > 0 && iso > 0;
	if (ac->have_rho)
		ac->rho = (jb->age_s + jb->remaining_steps / alloc) /
			  (jb->age_s + jb->remaining_steps / iso);
}

/* Running jobs nobody preempts (HS_ROLE_PINNED) are out of the problem
 * and their GPUs out of the round's usable count, but the queue waits for
 * exactly those GPUs: each joins the estimator as a running job that
 * frees its GPUs when its time limit ends (unlimited: after the unknown
 * duration, an optimistic guess). Without them a cluster whose every GPU
 * is pinned had an empty pool and no job got an estimate. Appends them
 * at jobs[*n] (est_of not set: they are not pending, no plan entry
 * reads their estimate) and returns their GPUs. */
static int add_pinned(const hs_snap_t *s, const hs_round_build_t *b, hs_start_job_t *jobs,
		      int *snap, int *n)
{
	int gpus = 0;
	for (int i = 0; i < s->njobs; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		if (b->role[i] != HS_ROLE_PINNED || sj->nheld <= 0)
			continue;
		double left = -1;
		if (sj->time_limit_min > 0 && sj->start_time > 0)
			left = fmax(1.0, (double)(sj->start_time - s->now) +
						 sj->time_limit_min * 60.0);
		jobs[*n] = (hs_start_job_t){ .gpus = sj->nheld, .running = 1, .remaining_s = left };
		snap[*n] = i;
		(*n)++;
		gpus += sj->nheld;
	}
	return gpus;
}

void hs_plan_start_times(hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			 const hs_round_out_t *out, hs_plan_t *plan)
{
	const hs_problem_t *pb = &b->problem;
	int cap = pb->njobs + s->njobs + 1;
	hs_start_job_t *jobs = calloc((size_t)cap, sizeof(*jobs));
	int *snap = calloc((size_t)cap, sizeof(int)), *order = calloc((size_t)cap, sizeof(int));
	int *est_of = malloc(((size_t)s->njobs + 1) * sizeof(int));
	double *share = calloc((size_t)cap, sizeof(double)), *recv = calloc((size_t)cap, sizeof(double));
	double *start = calloc((size_t)cap, sizeof(double));
	hs_start_job_t *q = calloc((size_t)cap, sizeof(*q));
	double *qstart = calloc((size_t)cap, sizeof(double));
	if (!jobs || !snap || !order || !est_of || !share || !recv || !start || !q || !qstart)
		goto done;
	for (int i = 0; i < s->njobs; i++)
		est_of[i] = -1;
	unsigned char *in_alloc = calloc((size_t)pb->njobs + 1, 1);
	if (!in_alloc)
		goto done;
	hs_mech_shares(e->mech, pb->njobs, share, recv, in_alloc);
	double *tcap = calloc((size_t)pb->cluster.ntypes + 1, sizeof(double));
	for (int j = 0; tcap && j < pb->cluster.ntypes; j++)
		tcap[j] = pb->cluster.count[j];
	int n = 0;
	for (int k = 0; k < pb->njobs && k < out->njobs; k++) {
		const hs_decision_t *d = &out->d[k];
		double rate = job_rate(e, b, s, d, k);
		if (tcap)
			job_rho(e, b, s, tcap, k, rate);
		jobs[n] = (hs_start_job_t){
			.gpus = pb->jobs[k].scale_factor,
			.running = d->action == HS_ACT_START || d->action == HS_ACT_KEEP ||
				   d->action == HS_ACT_MIGRATE,
			.share = share[k] > 0 ? share[k] : 0,
			.recv_s = recv[k] > 0 ? recv[k] : 0,
			.remaining_s = rate > 0 ? pb->jobs[k].remaining_steps / rate : -1,
			.new_job = !in_alloc[k],
		};
		snap[n] = b->pjob_snap[k];
		est_of[snap[n]] = n;
		n++;
	}
	/* eligible jobs outside the problem wait without a share: beyond
	 * MaxJobs, or unpreemptible ones beyond their group's share waiting
	 * for GPUs that jobs nobody preempts hold (PIN_WAIT); the ones that
	 * can never fit (NOFIT, not busy) get no estimate */
	for (int i = 0; i < s->njobs; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		if (sj->state != HS_SJ_PENDING || sj->gpus <= 0 ||
		    !(b->role[i] == HS_ROLE_CUT || b->role[i] == HS_ROLE_PIN_WAIT ||
		      (b->role[i] == HS_ROLE_NOFIT && b->busy[i])))
			continue;
		jobs[n] = (hs_start_job_t){ .gpus = sj->gpus,
					    .remaining_s = sj->time_limit_min > 0
								   ? sj->time_limit_min * 60.0
								   : -1 };
		snap[n] = i;
		est_of[i] = n;
		n++;
	}
	int pinned_gpus = add_pinned(s, b, jobs, snap, &n);
	free(tcap);
	free(in_alloc);
	/* the estimator's queue in Slurm's order; MaxJobs' cut may leave
	 * tens of thousands of jobs here, so qsort, not a quadratic sort */
	hs_queue_key_t *keys = malloc(((size_t)n + 1) * sizeof(*keys));
	if (!keys)
		goto done;
	for (int i = 0; i < n; i++) {
		keys[i] = hs_queue_key(s, snap[i], 0);
		keys[i].snap = i; /* sorted back to the estimator's index */
	}
	qsort(keys, (size_t)n, sizeof(*keys), hs_queue_key_cmp);
	for (int i = 0; i < n; i++)
		order[i] = keys[i].snap;
	free(keys);
	for (int i = 0; i < n; i++)
		q[i] = jobs[order[i]];
	double since = fmax(0.0, hs_mech_clock(e->mech) - hs_mech_last_reset(e->mech));
	hs_start_in_t in = { .now = (double)s->now, .round_s = e->conf.round_s,
			     .since_reset_s = since,
			     .sharing = e->mopts.backfill,
			     .next_reset = (double)s->now - since + e->mopts.min_reset_s,
			     .gpus = out->gpus_usable + pinned_gpus,
			     .unknown_s = e->conf.unknown_steps_s > 0 ? e->conf.unknown_steps_s
									: e->conf.round_s };
	hs_err_t err;
	if (hs_start_estimate(&in, q, n, qstart, &err) < 0) {
		hs_engine_logf(e, HS_LOG_DEBUG, "no start estimates: %s", err.msg);
		goto done;
	}
	for (int i = 0; i < n; i++)
		start[order[i]] = qstart[i];
	for (int p = 0; p < plan->njobs; p++) {
		hs_plan_job_t *pj = &plan->jobs[p];
		if (pj->state != HS_SJ_PENDING || pj->snap < 0 || pj->snap >= s->njobs)
			continue;
		int x = est_of[pj->snap];
		if (x >= 0 && start[x] > 0)
			pj->expected_start = (int64_t)ceil(start[x]);
	}
done:
	free(jobs);
	free(snap);
	free(order);
	free(est_of);
	free(share);
	free(recv);
	free(start);
	free(q);
	free(qstart);
}
