/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pinned.c — admission of jobs that cannot be preempted (see pinned.h). */
#include "core/pinned.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* A claim's weight: invalid weights count as 1 rather than poisoning the
 * sums (the callers validate, this is a second line). */
static double claim(const hs_pin_job_t *j)
{
	double w = j->weight > 0 && isfinite(j->weight) ? j->weight : 1.0;
	return w * (j->sf > 0 ? j->sf : 1);
}

int hs_pin_admit(const hs_pin_job_t *jobs, int n, int total_gpus, unsigned char *admit,
		 hs_pin_result_t *res)
{
	hs_pin_result_t r = { 0 };
	if (n < 0 || (n > 0 && (!jobs || !admit)) || total_gpus < 0)
		return -1;
	double w_all = 0, w_pin = 0;
	long demand_pre = 0;
	for (int k = 0; k < n; k++) {
		admit[k] = 0;
		w_all += claim(&jobs[k]);
		if (jobs[k].pinned) {
			w_pin += claim(&jobs[k]);
			if (jobs[k].running)
				r.held += jobs[k].sf > 0 ? jobs[k].sf : 0;
		} else {
			demand_pre += jobs[k].sf > 0 ? jobs[k].sf : 1;
		}
	}
	r.share = w_all > 0 ? total_gpus * (w_pin / w_all) : 0;
	double slack = (double)total_gpus - (double)demand_pre;
	r.cap = slack > r.share ? slack : r.share;
	int held = r.held, stopped = 0;
	for (int k = 0; k < n; k++) {
		const hs_pin_job_t *j = &jobs[k];
		if (!j->pinned || j->running)
			continue;
		int sf = j->sf > 0 ? j->sf : 1;
		/* held == 0: the group's first job always gets in (its share
		 * may be below its size); never beyond the cluster. */
		int fits = sf <= total_gpus && (held + sf <= r.cap + 1e-9 || held == 0);
		if (stopped || !fits) {
			stopped = 1;
			r.waiting++;
			continue;
		}
		admit[k] = 1;
		held += sf;
		r.admitted++;
	}
	if (res)
		*res = r;
	return r.admitted;
}

int hs_slot_admit(const hs_slot_job_t *jobs, int n, int nowners, int places,
		  unsigned char *admit)
{
	if (n < 0 || nowners < 0 || places < 0 || (n > 0 && (!jobs || !admit || nowners < 1)))
		return -1;
	for (int k = 0; k < n; k++)
		if (jobs[k].owner < 0 || jobs[k].owner >= nowners)
			return -1;
	long *demand = calloc((size_t)nowners + 1, sizeof(long));
	long *held = calloc((size_t)nowners + 1, sizeof(long));
	unsigned char *stopped = calloc((size_t)nowners + 1, 1);
	if (!demand || !held || !stopped) {
		free(demand);
		free(held);
		free(stopped);
		return -1;
	}
	long all = 0;
	int present = 0; /* owners with a job in the list */
	for (int k = 0; k < n; k++) {
		int sf = jobs[k].sf > 0 ? jobs[k].sf : 1;
		present += demand[jobs[k].owner] == 0;
		demand[jobs[k].owner] += sf;
		all += sf;
		held[jobs[k].owner] += jobs[k].held > 0 ? jobs[k].held : 0;
	}
	double budget = present > 0 ? (double)places / present : 0.0;
	int waiting = 0;
	for (int k = 0; k < n; k++) {
		admit[k] = 0;
		const hs_slot_job_t *j = &jobs[k];
		if (!j->gated)
			continue;
		int u = j->owner, sf = j->sf > 0 ? j->sf : 1;
		double slack = (double)places - (double)(all - demand[u]);
		double cap = slack > budget ? slack : budget;
		int fits = sf <= places && (held[u] + sf <= cap + 1e-9 || held[u] == 0);
		if (stopped[u] || !fits) {
			stopped[u] = 1; /* no overtaking within the owner */
			waiting++;
			continue;
		}
		admit[k] = 1;
		held[u] += sf;
	}
	free(demand);
	free(held);
	free(stopped);
	return waiting;
}
