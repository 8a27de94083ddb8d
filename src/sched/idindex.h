/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idindex.h — where a job id sits in an array kept sorted by id: the
 * binary search shared by the engine's per-job tables (accounting,
 * parsed records, job memo), which every round consults several times
 * per job (issue 27: 10-15% of a simulation's time went to these
 * searches). A direct-mapped hint sits in front: each slot holds the
 * index at which an id was last found. A hint is only a guess, used
 * after checking that the array holds the id at that index, so inserts
 * and deletes that shift the array need not touch the hints: a stale
 * hint is a miss, never a wrong answer. Slurm-free, no global state. */
#ifndef HS_SCHED_IDINDEX_H
#define HS_SCHED_IDINDEX_H

#include <stddef.h>
#include <stdint.h>

/* Job ids are mostly consecutive: ids of the live jobs seldom collide
 * modulo a power of two larger than the queue. */
#define HS_IDHINT_SLOTS 4096u

typedef struct hs_idhint {
	int ix[HS_IDHINT_SLOTS];
} hs_idhint_t;

/* The index of id in n entries of stride bytes at base, each with its
 * uint32_t id at byte offset off, sorted by id; or -(insertion point) - 1
 * when absent. hint may be NULL (no hint kept). */
int hs_idx_find(const void *base, size_t stride, size_t off, int n, uint32_t id,
		hs_idhint_t *hint);

#endif
