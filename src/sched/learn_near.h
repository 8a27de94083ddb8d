/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn_near.h — inference from the nearest kinds (private to learn.c;
 * rules in learn_near.c). */
#ifndef HS_SCHED_LEARN_NEAR_H
#define HS_SCHED_LEARN_NEAR_H

#include "sched/learn.h"

/* Weight of the scope's speedup matrix next to the nearest kinds, in
 * units of one confident kind with the same profile. */
#define HS_LEARN_NEAR_MATRIX 0.5

/* Fills s->near with the entries of the scope's run [lo, hi) of the
 * sorted table that measured three types or more: at most
 * HS_LEARN_NEAR_MAX, the most samples (on their least sampled type,
 * counted up to HS_LEARN_WINDOW) first, then the most recently seen. */
void hs_learn_near_pick(const hs_learn_t *l, int lo, int hi, hs_learn_speedup_t *s);

/* The rate on type t of kind `kind` at `sf` GPUs, whose rates at sf are
 * base[u] (0 = unknown), from the kinds of s->near that measured t and
 * at least two of the kind's types, each weighted by how alike the two
 * kinds' profiles are; entries [self_lo, self_hi) (the kind's own, at
 * any count) left out. *weight gets the summed weight (0: no such kind,
 * and 0 is returned). */
double hs_learn_near(const hs_learn_t *l, const hs_learn_speedup_t *s, int self_lo, int self_hi,
		     int sf, const double *base, int t, double *weight);

#endif /* HS_SCHED_LEARN_NEAR_H */
