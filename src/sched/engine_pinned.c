/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_pinned.c — jobs hetsched cannot preempt: which jobs
 * those are, and which pending ones may enter this round's problem
 * (core/pinned.h; doc/policies.md "Jobs that cannot be preempted"). A
 * running one is already out of the problem (HS_ROLE_PINNED, its GPUs not
 * usable); a pending one left out here waits as HS_ROLE_PIN_WAIT instead
 * of getting a time share it could not give back once started. */
#include "sched/engine_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pinned.h"

/* GPUs of the managed nodes the jobs may use: usable now, or held by a
 * pinned job (taken for its remaining time, but part of the cluster the
 * group share is a part of). */
static int total_gpus(const hs_round_build_t *b)
{
	int n = 0;
	for (int sv = 0; sv < b->nservers; sv++)
		for (int g = 0; g < b->servers[sv].ngpus; g++) {
			int o = b->owner[b->owner_base[sv] + g];
			n += b->usable[sv][g] || (o >= 0 && b->role[o] == HS_ROLE_PINNED);
		}
	return n;
}

/* GPUs the problem may give pending job sj: usable GPUs of the nodes its
 * mask leaves (every usable GPU without a mask). Fewer than it asks for:
 * it cannot start this round whatever the admission says, e.g. -w a
 * node a pinned job holds. */
static int usable_for(const hs_round_build_t *b, const hs_snap_t *s, const hs_sjob_t *sj)
{
	int cnt = 0;
	for (int n = 0; n < s->nnodes; n++) {
		int sv = b->node_server[n];
		if (sv < 0 || (sj->node_ok && !sj->node_ok[n]))
			continue;
		for (int g = 0; g < b->servers[sv].ngpus; g++)
			cnt += b->usable[sv][g];
	}
	return cnt;
}

/* Orders the pending pinned jobs c[0..n) (in priority order) for the
 * admission, fair between owners (hs_sjob_owner): each next place goes to the
 * owner with the fewest GPUs so far (running pinned jobs' GPUs, then the
 * places already given; ties: the owner whose next job comes first in
 * priority order), its next job in priority order. Without it one user's
 * many pending pinned jobs (a job array) took every admission before
 * another user's first one (sched_array_users.sh). Equal owners: Shares
 * size the policy's shares among the admitted jobs, not the admission.
 * 0, or -1 on out of memory (then priority order). */
static int interleave_owners(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			     hs_queue_key_t *c, int n)
{
	if (e->conf.fairness == HS_FAIR_JOBS || n < 2)
		return 0;
	uint64_t *owner = malloc((size_t)n * sizeof(*owner));
	double *load = malloc((size_t)n * sizeof(*load));
	int *head = malloc((size_t)n * sizeof(int)), *next = malloc((size_t)n * sizeof(int));
	int *tail = malloc((size_t)n * sizeof(int));
	hs_queue_key_t *out = malloc((size_t)n * sizeof(*out));
	int rc = -1, no = 0;
	if (!owner || !load || !head || !next || !tail || !out)
		goto done;
	for (int k = 0; k < n; k++) { /* owners, each with its jobs linked */
		int known = no;
		int w = hs_owner_index(owner, &no, hs_sjob_owner(e->conf.fairness, &s->jobs[c[k].snap]));
		if (no > known) {
			load[w] = 0.0;
			head[w] = k;
		} else {
			next[tail[w]] = k;
		}
		tail[w] = k;
		next[k] = -1;
	}
	for (int i = 0; i < s->njobs; i++) { /* GPUs their running pinned jobs hold */
		if (b->role[i] != HS_ROLE_PINNED || s->jobs[i].nheld <= 0)
			continue;
		uint64_t o = hs_sjob_owner(e->conf.fairness, &s->jobs[i]);
		for (int w = 0; w < no; w++)
			if (owner[w] == o)
				load[w] += s->jobs[i].nheld;
	}
	for (int m = 0; m < n; m++) {
		int best = -1;
		for (int w = 0; w < no; w++)
			if (head[w] >= 0 && (best < 0 || load[w] < load[best] ||
					     (load[w] == load[best] && head[w] < head[best])))
				best = w;
		int k = head[best];
		out[m] = c[k];
		head[best] = next[k];
		load[best] += s->jobs[c[k].snap].gpus > 0 ? s->jobs[c[k].snap].gpus : 1;
	}
	memcpy(c, out, (size_t)n * sizeof(*c));
	rc = 0;
done:
	free(owner);
	free(load);
	free(head);
	free(next);
	free(tail);
	free(out);
	return rc;
}

/* A pending job that no single GPU type can hold and that asked for no
 * type: Slurm may place it across types (HS_PLAN_SLURM), after which the
 * round cannot model it and it holds its GPUs to its end, checkpoints or
 * not. It is admitted like a pinned job (issue 28 item 3c). */
static int spans_types(const hs_snap_t *s, const hs_round_build_t *b, int i)
{
	const hs_sjob_t *sj = &s->jobs[i];
	return b->role[i] == HS_ROLE_NOFIT && !b->busy[i] && !sj->gpu_type &&
	       sj->state == HS_SJ_PENDING && sj->eligible;
}

int hs_pin_filter(const hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b)
{
	const hs_sconf_t *c = &e->conf;
	hs_preempt_rules_t rules = hs_preempt_rules(e, s->now);
	if (c->pinned_always)
		return 0; /* the old behaviour: every pending job in the problem */
	const int M = s->njobs;
	hs_queue_key_t *cand = malloc(((size_t)M + 1) * sizeof(*cand));
	hs_pin_job_t *pj = malloc(((size_t)M + 1) * sizeof(*pj));
	unsigned char *admit = malloc((size_t)M + 1);
	if (!cand || !pj || !admit) {
		free(cand);
		free(pj);
		free(admit);
		return -1;
	}
	int n = 0, npending = 0;
	for (int i = 0; i < M; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		hs_role_t r = b->role[i];
		int running_pinned = r == HS_ROLE_PINNED && sj->nheld > 0;
		int span = spans_types(s, b, i);
		if (r != HS_ROLE_ACTIVE && r != HS_ROLE_LEAVING && !running_pinned && !span)
			continue;
		hs_preempt_job_t pjob = hs_preempt_job(b, sj, i);
		int pp = span || (r == HS_ROLE_ACTIVE && sj->state == HS_SJ_PENDING &&
				  hs_preempt_holds(&rules, &pjob));
		/* Work conservation: a pinned job that cannot start now (too
		 * few usable GPUs on its nodes) neither claims a place in the
		 * group's share nor, in priority order, holds back the ones
		 * behind it; it stays in the problem as under `always` and
		 * is admitted the round its nodes free up. */
		if (pp && usable_for(b, s, sj) < (sj->gpus > 0 ? sj->gpus : 1))
			continue;
		npending += pp;
		/* the other jobs first (only their claims matter), then the
		 * pending pinned ones in priority order (group 1) */
		cand[n++] = hs_queue_key(s, i, pp);
	}
	if (npending > 0) {
		qsort(cand, (size_t)n, sizeof(*cand), hs_queue_key_cmp);
		/* the pending pinned jobs (group 1) come last */
		(void)interleave_owners(e, s, b, cand + (n - npending), npending);
		/* Every job claims its GPU count (weight 1): Slurm priorities
		 * order the queue, they do not size shares here. */
		for (int k = 0; k < n; k++) {
			const hs_sjob_t *sj = &s->jobs[cand[k].snap];
			int running_pinned = b->role[cand[k].snap] == HS_ROLE_PINNED;
			pj[k] = (hs_pin_job_t){ .sf = sj->gpus > 0 ? sj->gpus : 1, .weight = 1.0,
						.pinned = cand[k].group || running_pinned,
						.running = running_pinned };
		}
		hs_pin_result_t res;
		hs_pin_admit(pj, n, total_gpus(b), admit, &res);
		for (int k = 0; k < n; k++)
			if (cand[k].group && !admit[k])
				b->role[cand[k].snap] = HS_ROLE_PIN_WAIT;
		if (res.waiting > 0)
			hs_engine_logf(e, HS_LOG_DEBUG,
				       "jobs that cannot be preempted: %d GPUs held, group share "
				       "%.2f, cap %.2f, %d admitted, %d waiting", res.held, res.share,
				       res.cap, res.admitted, res.waiting);
	}
	free(cand);
	free(pj);
	free(admit);
	return 0;
}
