/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.h — where a job is to be started: the nodes with the GPUs it
 * gets on each, and the job it is packed with. The one description of a
 * placement target from the round's plan (hs_plan_job_t) through an
 * in-flight op that restarts a job later (engine_impl.h's hs_op_t, saved
 * in the state file) to the plugin's start (apply.c, ops.c, refill.c).
 * A target owns its node names, so it outlives the snapshot it was made
 * from.
 */
#ifndef HS_SCHED_TARGET_H
#define HS_SCHED_TARGET_H

#include <stdint.h>

typedef struct hs_target_node {
	int node;                  /* index into the snapshot of the round that
	                            * made the target; -1 = no snapshot (an op's
	                            * copy, which outlives the round) */
	char *name;                /* node name (owned) */
	int gpus;                  /* GPUs on that node */
} hs_target_node_t;

typedef struct hs_target {
	int nnodes;                /* 0 = no target */
	hs_target_node_t *nodes;   /* [nnodes], each node once */
	uint32_t partner;          /* start packed onto this running job's
	                            * GPUs, 0 = alone */
} hs_target_t;

/* Adds one GPU on node `node` named `name` (a new node entry, or one
 * more GPU on an entry of that node); `cap` is the most nodes the target
 * will hold (its array is allocated at the first add). -1 = out of
 * memory (the target stays valid). */
int hs_target_add_gpu(hs_target_t *t, int cap, int node, const char *name);
/* Frees the node list (nnodes = 0); the partner stays. */
void hs_target_drop_nodes(hs_target_t *t);
/* Frees everything: an empty target, partner 0. Safe on a zeroed one. */
void hs_target_free(hs_target_t *t);
/* dst (freed first) becomes a copy of src with no snapshot indices
 * (node = -1); -1 = out of memory (dst left empty). */
int hs_target_copy(hs_target_t *dst, const hs_target_t *src);
#endif /* HS_SCHED_TARGET_H */
