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

#endif /* HS_CORE_FAIRTREE_H */
