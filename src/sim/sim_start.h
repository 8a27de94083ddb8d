/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_start.h — the simulator's record of predicted start times: each
 * round, the start-time estimate the plugin gives Slurm (start_est.h) for
 * every job that has not started yet; kept per job is the first
 * prediction and the first made at least one round after arrival
 * (hs_sim_job_t.pred_*), for the error report (report.c). */
#ifndef HS_SIM_SIM_START_H
#define HS_SIM_SIM_START_H

#include "core/mechanism.h"
#include "sim/sim.h"

/* After hs_mech_schedule(m, ...) on problem p with decisions out;
 * jobs[p->njobs] the problem's jobs in queue (arrival) order; mo the
 * mechanism's options (backfill = sharing policy, min_reset_s). */
int hs_sim_predict_starts(const hs_mech_t *m, const hs_problem_t *p, const hs_round_out_t *out,
			  hs_sim_job_t *const *jobs, double now, double round_s, int gpus,
			  const hs_mech_opts_t *mo, hs_err_t *err);

#endif /* HS_SIM_SIM_START_H */
