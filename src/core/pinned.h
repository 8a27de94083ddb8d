/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pinned.h — fairness with jobs that cannot be preempted ("pinned" jobs:
 * no checkpoints, HS_NO_PREEMPT, requeue=0, PreemptMode=off ...).
 *
 * Gavel's policies give every job a fraction of time on each GPU type and
 * the round mechanism time-slices jobs to follow it. A pinned job cannot
 * be time-sliced: once started it holds its GPUs until it ends. So:
 *
 *  - A running pinned job is not in the policy's problem; its GPUs are
 *    taken for its remaining time (the callers mark them unusable) and the
 *    preemptible jobs share the rest by the policy (max-min etc.).
 *  - A pending pinned job enters the problem (and may then be started by
 *    the mechanism) only when it is *admitted* by hs_pin_admit below;
 *    otherwise it waits outside the problem, getting no time share it
 *    could not use as a share.
 *
 * Admission rule (one group budget, work conserving): every job k (pinned
 * or not, running or pending) claims w_k * sf_k (weight x GPUs). The pinned
 * jobs' fair part of the G GPUs is
 *     share = G * sum_{pinned} w sf / sum_{all} w sf
 * — what max-min fairness over equal-weight jobs would give them as a
 * group. GPUs the preemptible jobs cannot use anyway (G - their total
 * demand) go to the pinned group too: cap = max(share, G - demand_pre).
 * Pending pinned jobs are taken in the caller's priority order; each is
 * admitted while held + sf <= cap, where held counts GPUs of running and
 * already admitted pinned jobs. The first one that does not fit stops the
 * admission (no overtaking: a big pinned job is not starved by small
 * ones). When no pinned job holds GPUs, the first one is admitted even
 * above cap, so a group share below one job's size never starves it.
 *
 * Consequence: the preemptible jobs' share can dip below max-min only
 * while pinned jobs admitted under a larger cap still run (they cannot be
 * taken back); the budget is not given out again until they end.
 */
#ifndef HS_CORE_PINNED_H
#define HS_CORE_PINNED_H

typedef struct hs_pin_job {
	int sf;          /* GPUs it needs, >= 1 */
	double weight;   /* policy weight, > 0 (others count as 1) */
	int pinned;      /* cannot be preempted once started */
	int running;     /* holds its GPUs now */
} hs_pin_job_t;

typedef struct hs_pin_result {
	double share;    /* the pinned group's fair part of the GPUs */
	double cap;      /* max(share, GPUs the preemptible jobs leave) */
	int held;        /* GPUs held by running pinned jobs */
	int admitted;    /* pending pinned jobs admitted now */
	int waiting;     /* pending pinned jobs not admitted */
} hs_pin_result_t;

/* jobs[n] in priority order (highest first; running jobs anywhere);
 * total_gpus = every GPU of the cluster the jobs may use, including those
 * held by running pinned jobs. admit[n] is set to 1 for the pending pinned
 * jobs admitted, 0 for every other job. Returns the number admitted, -1 on
 * bad arguments. */
int hs_pin_admit(const hs_pin_job_t *jobs, int n, int total_gpus, unsigned char *admit,
		 hs_pin_result_t *res);

/* Time slicing (PreemptMode=suspend with the packing interface): a job
 * that can be suspended but never moved (no checkpoint, --no-requeue,
 * salloc) keeps its place on its GPUs while suspended, for its whole
 * life. Each GPU has two places, the running job and the suspended
 * partner it takes turns with, so a place is half a GPU's time. Without
 * a bound, a user whose jobs cannot be moved collects places as other
 * users' jobs are moved away, until pairs of its own jobs hold whole
 * GPUs (issue 28: 2.8x the GPU time of an honest user, doc/strategic.md).
 *
 * Admission rule, per owner (user or account, Fairness=): an owner's
 * pending unmovable jobs enter the round while the places its resident
 * unmovable jobs hold, plus the job's GPUs, stay within its cap:
 *     budget = places / owners                (equal owners, as the
 *                                              pinned admission's order)
 *     cap    = max(budget, places - the other owners' demand)
 * (work conserving: places the others cannot fill go to it). The owner's
 * first such job always gets in, as in hs_pin_admit; in priority order,
 * the first one that does not fit stops the owner's admission. */
typedef struct hs_slot_job {
	int owner;       /* 0 .. nowners-1 */
	int sf;          /* GPUs, so places, it takes: >= 1 */
	int gated;       /* pending and unmovable: the one this admits or not */
	int held;        /* places it holds now (a resident unmovable job) */
} hs_slot_job_t;

/* jobs[n] in priority order; places = 2 x the GPUs the jobs may use.
 * admit[k] = 1 for the gated jobs admitted, 0 otherwise. Returns the
 * number of gated jobs left waiting, -1 on bad arguments. */
int hs_slot_admit(const hs_slot_job_t *jobs, int n, int nowners, int places,
		  unsigned char *admit);

#endif /* HS_CORE_PINNED_H */
