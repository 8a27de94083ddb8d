/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_unmovable.c — under time slicing (PreemptMode=suspend with the
 * packing interface), which pending jobs that can be suspended but never
 * moved may enter this round (core/pinned.h, hs_slot_admit). Once started
 * such a job keeps one of its GPUs' two time-slice places until it ends,
 * suspended or not; a job left out waits as HS_ROLE_PIN_WAIT until its
 * owner's resident ones hold fewer places than its share. Jobs that can
 * be moved (checkpoint and requeue) are never held back here: the rounds
 * take their places back whenever the policy says so. */
#include "sched/engine_impl.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/pinned.h"

/* Usable GPUs of the managed nodes: each gives two places. */
static int usable_gpus(const hs_round_build_t *b)
{
	int n = 0;
	for (int sv = 0; sv < b->nservers; sv++)
		for (int g = 0; g < b->servers[sv].ngpus; g++)
			n += b->usable[sv][g] != 0;
	return n;
}

/* The round's jobs as hs_slot_admit sees them, in priority order:
 * cand[k] is the snapshot job of jobs[k]; its group carries whether the
 * job can be moved (0) or not (1), decided once (the order within an
 * owner, all that the admission reads, is the priority order either
 * way). Returns how many, or -1 when none is gated (nothing to decide). */
static int slot_jobs(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
		     hs_queue_key_t *cand, hs_slot_job_t *jobs, uint64_t *owners, int *nowners)
{
	hs_preempt_rules_t rules = hs_preempt_rules(e, s->now);
	int n = 0, ngated = 0;
	for (int i = 0; i < s->njobs; i++) {
		hs_role_t r = b->role[i];
		if (r != HS_ROLE_ACTIVE && r != HS_ROLE_LEAVING)
			continue;
		hs_preempt_job_t pj = hs_preempt_job(b, &s->jobs[i], i);
		int unmovable = !hs_preempt_movable(&rules, &pj);
		ngated += unmovable && r == HS_ROLE_ACTIVE && s->jobs[i].state == HS_SJ_PENDING;
		cand[n++] = hs_queue_key(s, i, unmovable);
	}
	if (ngated == 0)
		return -1;
	qsort(cand, (size_t)n, sizeof(*cand), hs_queue_key_cmp);
	for (int k = 0; k < n; k++) {
		const hs_sjob_t *sj = &s->jobs[cand[k].snap];
		int unmovable = cand[k].group, pending = sj->state == HS_SJ_PENDING;
		jobs[k] = (hs_slot_job_t){
			.owner = hs_owner_index(owners, nowners, hs_sjob_owner(e->conf.fairness, sj)),
			.sf = sj->gpus > 0 ? sj->gpus : 1,
			.gated = unmovable && pending && b->role[cand[k].snap] == HS_ROLE_ACTIVE,
			.held = unmovable && !pending ? sj->nheld : 0,
		};
	}
	return n;
}

int hs_unmovable_filter(const hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b)
{
	if (!hs_preempt_rules(e, s->now).slice || e->conf.pinned_always)
		return 0;
	const size_t M = (size_t)s->njobs + 1;
	hs_queue_key_t *cand = malloc(M * sizeof(*cand));
	hs_slot_job_t *jobs = malloc(M * sizeof(*jobs));
	uint64_t *owners = malloc(M * sizeof(*owners));
	unsigned char *admit = malloc(M);
	int rc = -1, nowners = 0;
	if (!cand || !jobs || !owners || !admit)
		goto done;
	int n = slot_jobs(e, s, b, cand, jobs, owners, &nowners);
	rc = 0;
	if (n < 0)
		goto done;
	int waiting = hs_slot_admit(jobs, n, nowners, 2 * usable_gpus(b), admit);
	if (waiting < 0) {
		rc = -1;
		goto done;
	}
	for (int k = 0; k < n; k++)
		if (jobs[k].gated && !admit[k])
			b->role[cand[k].snap] = HS_ROLE_PIN_WAIT;
	if (waiting > 0)
		hs_engine_logf(e, HS_LOG_DEBUG,
			       "time slicing: %d pending jobs that cannot be moved wait for their "
			       "owners' share of the GPUs' places", waiting);
done:
	free(cand);
	free(jobs);
	free(owners);
	free(admit);
	return rc;
}
