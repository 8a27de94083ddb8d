/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_wf_common.c — the steps of water filling that every method
 * shares (policy_wf.h): the age order of a fifo entity's jobs, the
 * hierarchical weights and charges of the unfrozen classes for a round,
 * a class's level, and one run of the allocation LP with its statistics.
 * Apart from the methods (policy_hierarchical.c, policy_wf_full.c,
 * policy_wf_chain.c) so that they call down into it, never into each
 * other in a circle. */
#include "core/policy_wf.h"

#include <string.h>

int hs_wf_older(const hs_problem_t *p, int m, int n)
{
	if (p->jobs[m].age_s != p->jobs[n].age_s)
		return p->jobs[m].age_s > p->jobs[n].age_s;
	return strcmp(p->jobs[m].id, p->jobs[n].id) < 0;
}

int hs_wf_set_weights(hs_wf_t *s)
{
	const hs_problem_t *p = s->p;
	const int E = p->entities.n;
	for (int e = 0; e < E; e++) {
		s->wsum[e] = 0.0;
		s->oldest[e] = -1;
		s->active[e] = 0;
	}
	for (int c = 0; c < s->C; c++) {
		if (s->frozen[c])
			continue;
		int m = s->cl.rep[c], e = p->jobs[m].entity;
		if (e < 0)
			continue;
		s->active[e] = 1;
		s->wsum[e] += s->cl.size[c] * p->jobs[m].weight;
		if (p->entities.mode[e] == HS_ENTITY_FIFO &&
		    (s->oldest[e] < 0 || hs_wf_older(p, m, s->cl.rep[s->oldest[e]])))
			s->oldest[e] = c;
	}
	hs_ftree_weights(&s->tree, s->active, s->W);
	if (s->charged)
		hs_ftree_charges(&s->tree, s->active, s->Q);
	int active = 0;
	for (int c = 0; c < s->C; c++) {
		s->w[c] = s->q[c] = 0.0;
		if (s->frozen[c])
			continue;
		int m = s->cl.rep[c], e = p->jobs[m].entity;
		if (e < 0) {
			s->w[c] = p->jobs[m].weight;
		} else {
			/* a job's part of its entity's charge goes with its
			 * part of the entity's weight: summed over the
			 * entity's unfrozen jobs, the demands are z W - Q */
			double part = p->entities.mode[e] == HS_ENTITY_FIFO
					      ? (s->oldest[e] == c ? 1.0 : 0.0)
					      : p->jobs[m].weight / s->wsum[e];
			s->w[c] = s->W[e] * part;
			if (s->charged)
				s->q[c] = s->Q[e] * part;
		}
		active += s->w[c] > 0.0;
	}
	return active;
}

double hs_wf_level(const hs_wf_t *s, int c, double z)
{
	double l = z * s->w[c] - s->q[c];
	return l > 0.0 ? l : 0.0;
}

/* Adds alp's statistics since the last call to ctx (alp's counters add
 * up over hs_alp_resolve calls; a fresh solve restarts them). */
static void note_alp(const hs_alp_t *alp, hs_policy_ctx_t *ctx, long *it_seen, int *solves_seen)
{
	ctx->last_iterations += alp->iterations - *it_seen;
	ctx->last_lp_solves += alp->lp_solves - *solves_seen;
	*it_seen = alp->iterations;
	*solves_seen = alp->lp_solves;
}

hs_lp_status_t hs_wf_alp_run(hs_alp_t *alp, hs_policy_ctx_t *ctx, int fresh, long *it_seen,
			     int *solves_seen, hs_err_t *err)
{
	if (fresh)
		*it_seen = *solves_seen = 0;
	hs_lp_status_t st = fresh ? hs_alp_solve(alp, &ctx->lp_opts, err)
				  : hs_alp_resolve(alp, &ctx->lp_opts, err);
	note_alp(alp, ctx, it_seen, solves_seen);
	if (st == HS_LP_INFEASIBLE && !fresh) {
		/* a warm basis can mislead the simplex on these degenerate
		 * LPs: the same demands were feasible a moment ago */
		*it_seen = *solves_seen = 0;
		st = hs_alp_solve(alp, &ctx->lp_opts, err);
		note_alp(alp, ctx, it_seen, solves_seen);
	}
	return st;
}
