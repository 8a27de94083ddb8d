/* SPDX-License-Identifier: GPL-2.0-or-later */
/* array_slots.h — how many task slots each pending job array gets in a
 * round's snapshot (issue 28 item 6). A pending array is one Slurm record;
 * the snapshot shows the policy one job per task it could start now (a
 * slot, a copy of the record that shares its data: hs_snap_dup_job).
 * Slots cost time and a job entry each, and are only useful up to the
 * GPUs free now, so the snapshot hands out one budget of free GPUs over all
 * arrays, one slot at a time, round-robin over the arrays' owners (hs_sjob_owner: the
 * association under Fairness=tree; within an owner, to its arrays in
 * queue order). So one user's many arrays
 * cannot take every slot and leave another user's array one task per
 * round, and memory is bounded by the free GPUs, not by the number of
 * arrays times their tasks. Slurm-free: the sched plugin fills the
 * candidates, the unit tests call it directly. */
#ifndef HS_SCHED_ARRAY_SLOTS_H
#define HS_SCHED_ARRAY_SLOTS_H

#include <stdint.h>

typedef struct hs_array_cand {
	uint64_t owner;   /* hs_sjob_owner: the round-robin goes over these */
	uint32_t prio;    /* Slurm priority (higher first) */
	int64_t submit;   /* then submit time (earlier first) */
	uint32_t id;      /* then job id */
	int idx;          /* the caller's (the snapshot job); not read */
	int per;          /* GPUs per task (>= 1) */
	int want;         /* extra tasks beyond the record itself (>= 0) */
	int slots;        /* out: extra slots dealt (0..want) */
} hs_array_cand_t;

/* Deals at most budget GPUs worth of slots over c[0..n) (reordered into
 * queue order: priority, submit time, id). Each turn gives one slot to
 * the next user in the rotation, on that user's first array in queue
 * order that still wants one and fits in what is left of the budget. A
 * user's first turn comes in the queue order of their best array.
 * Returns the slots dealt, or -1 when out of memory (then none). */
int hs_array_slots_deal(hs_array_cand_t *c, int n, int budget);

#endif /* HS_SCHED_ARRAY_SLOTS_H */
