/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h — what a simulation produced, for people and scripts: a JSON
 * summary (average/percentile JCT, JCT by priority, makespan, utilization,
 * finish-time fairness, preemptions, migrations, lease extensions, solver
 * time) and a per-job CSV. Only measured jobs (the --window) enter the
 * JCT, makespan and FTF figures; counters of the mechanism cover the run. */
#ifndef HS_SIM_REPORT_H
#define HS_SIM_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "sim/sim.h"

/* The summary; the caller adds its own configuration keys. NULL on OOM. */
json_object *hs_sim_summary(const hs_sim_result_t *r, const hs_sim_opts_t *o, hs_err_t *err);
/* The per-user and per-account part (report_users.c). */
json_object *hs_sim_summary_users(const hs_sim_result_t *r, hs_err_t *err);
/* One line per job, with a header line. */
int hs_sim_write_csv(FILE *f, const hs_sim_result_t *r, hs_err_t *err);

#endif /* HS_SIM_REPORT_H */
