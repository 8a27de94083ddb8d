/* SPDX-License-Identifier: GPL-2.0-or-later */
/* entitle.h — what each simulated user is entitled to right now (issue
 * 29): the cluster's GPUs split by Shares the way Fairness=tree splits
 * them (accounts by their Shares among the accounts that want GPUs, then
 * each account's part among its users by their Shares), each part capped
 * by its demand (the GPUs its live jobs ask for) and what a cap leaves
 * spread over the others (water filling). A user with one 1-GPU job is
 * entitled to one GPU at most, however large its Shares; integrated over
 * time this is the yardstick for "did every user get its Shares' worth". */
#ifndef HS_SIM_ENTITLE_H
#define HS_SIM_ENTITLE_H

#include "sim/users.h"

/* out[u] = user u's entitled GPUs given demand[u] (GPUs, >= 0) for
 * u < users->nusers and gpus GPUs. -1 on out of memory (out untouched). */
int hs_sim_entitle(const hs_sim_users_t *users, const double *demand, double gpus, double *out);

#endif /* HS_SIM_ENTITLE_H */
