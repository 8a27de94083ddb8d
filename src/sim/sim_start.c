/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_start.c — predicted start times in the simulator (sim_start.h):
 * the same estimator as sched/hetsched's engine_start.c, fed from the
 * simulator's problem (remaining steps at the rate of the type the job
 * runs on, else its fastest type). */
#include "sim/sim_start.h"

#include <math.h>
#include <stdlib.h>

#include "core/start_est.h"

int hs_sim_predict_starts(const hs_mech_t *m, const hs_problem_t *p, const hs_round_out_t *out,
			  hs_sim_job_t *const *jobs, double now, double round_s, int gpus,
			  const hs_mech_opts_t *mo, hs_err_t *err)
{
	int n = p->njobs < out->njobs ? p->njobs : out->njobs;
	if (n <= 0)
		return 0;
	hs_start_job_t *in = calloc((size_t)n, sizeof(*in));
	double *share = calloc((size_t)p->njobs, sizeof(double));
	double *recv = calloc((size_t)p->njobs, sizeof(double));
	double *start = calloc((size_t)n, sizeof(double));
	unsigned char *in_alloc = calloc((size_t)p->njobs, 1);
	int rc = -1;
	if (!in || !share || !recv || !start || !in_alloc) {
		hs_err_set(err, "out of memory");
		goto done;
	}
	hs_mech_shares(m, p->njobs, share, recv, in_alloc);
	for (int k = 0; k < n; k++) {
		const hs_job_t *jb = &p->jobs[k];
		const hs_decision_t *d = &out->d[k];
		double rate = 0;
		for (int t = 0; t < p->cluster.ntypes; t++)
			rate = jb->thr[t] > rate ? jb->thr[t] : rate;
		if (d->type >= 0 && jb->thr[d->type] > 0)
			rate = jb->thr[d->type];
		in[k] = (hs_start_job_t){ .gpus = jb->scale_factor,
					  .running = d->ngpus > 0,
					  .share = share[k] > 0 ? share[k] : 0,
					  .recv_s = recv[k] > 0 ? recv[k] : 0,
					  .remaining_s = rate > 0 ? jb->remaining_steps / rate : -1,
					  .new_job = !in_alloc[k] };
	}
	double since = fmax(0.0, hs_mech_clock(m) - hs_mech_last_reset(m));
	hs_start_in_t si = { .now = now, .round_s = round_s, .since_reset_s = since,
			     .gpus = gpus, .unknown_s = round_s, .sharing = mo->backfill,
			     .next_reset = now - since + mo->min_reset_s };
	if (hs_start_estimate(&si, in, n, start, err) < 0)
		goto done;
	for (int k = 0; k < n; k++) {
		hs_sim_job_t *j = jobs[k];
		if (j->first_start_s >= 0 || start[k] < 0)
			continue;
		if (j->pred_first_at < 0) {
			j->pred_first_at = now;
			j->pred_first_s = start[k];
		}
		if (j->pred_late_at < 0 && now >= j->arrival_s + round_s) {
			j->pred_late_at = now;
			j->pred_late_s = start[k];
		}
	}
	rc = 0;
done:
	free(in);
	free(share);
	free(recv);
	free(start);
	free(in_alloc);
	return rc;
}
