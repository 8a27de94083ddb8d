/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fairtree.h — the entity forest of a problem (hs_entities_t, model.h)
 * as the hierarchical policies use it: every entity's effective weight,
 * given which leaves still have jobs that want more (doc/policies.md,
 * "Fair tree"). Slurm's association tree (accounts, sub-accounts, users,
 * each with its Shares) maps onto it one to one, its root left out.
 */
#ifndef HS_CORE_FAIRTREE_H
#define HS_CORE_FAIRTREE_H

#include "core/model.h"

typedef struct hs_ftree {
	int n;
	const double *shares;    /* [n] the entities' weights (borrowed) */
	const int *parent;       /* [n] borrowed; NULL = every entity top-level */
	int *order;              /* [n] entities, every parent before its children */
	char *inner;             /* [n] 1 = the entity has children */
	double *childsum;        /* [n] scratch: Shares of the active children */
	const double *held;      /* [n] borrowed, or NULL: GPUs held outside the
	                          * problem (model.h) */
	double *hsub;            /* [n] scratch: held in the subtree */
	double *hact;            /* [n] scratch: hsub of the active children */
} hs_ftree_t;

/* Prepares the forest of es (which must have passed hs_problem_validate:
 * no cycles). es must outlive t. */
int hs_ftree_init(hs_ftree_t *t, const hs_entities_t *es, hs_err_t *err);
void hs_ftree_free(hs_ftree_t *t);

/* Effective weights. On entry active[e] != 0 for the leaves that have
 * jobs wanting more (unfrozen, in water filling); entries of inner
 * entities are overwritten: an inner entity is active when one of its
 * children is. W[e] of an active entity: a top-level one its Shares; any
 * other its parent's W times its Shares over the Shares of its parent's
 * active children (itself included); an inactive entity 0. O(n).
 *
 * Top-level weights are not normalized: jobs without an entity take part
 * at the top level with their own weight, and water filling's levels do
 * not change when every weight is multiplied by one factor, so only the
 * ratios matter (see policy_hierarchical.c). */
void hs_ftree_weights(hs_ftree_t *t, char *active, double *W);

/* Charges of the GPUs held outside the problem (es->held; pinned jobs),
 * after hs_ftree_weights with the same active[]. Q[e] of an
 * active entity is what its unfrozen jobs' total falls short of z W[e]:
 * a top-level one the GPUs held in its subtree; any other the GPUs held
 * in its subtree plus its part (its Shares over those of its parent's
 * active children) of what its parent is charged beyond the active
 * children's own holdings (GPUs held below an inactive sibling, or
 * passed down from above). Summed over an active entity's active
 * children it is the entity's own Q: a held GPU is charged once, to the
 * active entities on its path (up to the first inactive one, which
 * passes it to its active siblings); one held below an inactive
 * top-level entity is charged to nobody. 0 for inactive entities, and for
 * every entity when es->held is NULL. O(n). */
void hs_ftree_charges(hs_ftree_t *t, const char *active, double *Q);

#endif /* HS_CORE_FAIRTREE_H */
