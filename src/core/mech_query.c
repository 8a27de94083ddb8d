/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mech_query.c — read-only questions to the round mechanism about the
 * allocation in force (mechanism.h): per-job shares for the start-time
 * estimate (start_est.h). */
#include "core/mechanism_impl.h"

#include <string.h>

/* A member's problem index this round, -1 when it is not in the problem
 * (same test as the selection in mechanism.c). */
static int member_index(const hs_mech_t *m, const hs_mjob_t *j, int njobs)
{
	if (!j || j->seen != m->stamp || j->pidx < 0 || j->pidx >= njobs)
		return -1;
	return j->pidx;
}

void hs_mech_shares(const hs_mech_t *m, int njobs, double *share, double *recv_s,
		    unsigned char *in_alloc)
{
	if (njobs <= 0)
		return;
	if (in_alloc) {
		memset(in_alloc, 0, (size_t)njobs);
		for (int k = 0; k < m->njobs; k++) {
			int i = member_index(m, m->jobs[k], njobs);
			if (i >= 0)
				in_alloc[i] = m->jobs[k]->in_alloc != 0;
		}
	}
	memset(share, 0, (size_t)njobs * sizeof(*share));
	memset(recv_s, 0, (size_t)njobs * sizeof(*recv_s));
	for (int k = 0; k < m->nents; k++) {
		const hs_mentry_t *e = m->ents[k];
		double x = 0, r = 0;
		for (int t = 0; t < m->ntypes; t++) {
			x += e->x[t];
			r += e->recv[t];
		}
		int ia = member_index(m, e->ja, njobs), ib = member_index(m, e->jb, njobs);
		if (ia >= 0) {
			share[ia] += x;
			recv_s[ia] += r;
		}
		if (ib >= 0) {
			share[ib] += x;
			recv_s[ib] += r;
		}
	}
}

double hs_mech_clock(const hs_mech_t *m)
{
	return m->clock;
}

double hs_mech_last_reset(const hs_mech_t *m)
{
	return m->last_reset;
}
