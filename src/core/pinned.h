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

#endif /* HS_CORE_PINNED_H */
