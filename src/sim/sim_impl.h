/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_impl.h — the state of one simulation run, shared by sim.c (the
 * engine's clock) and sim_ideal.c (the fluid reference). Not for other
 * users. */
#ifndef HS_SIM_SIM_IMPL_H
#define HS_SIM_SIM_IMPL_H

#include "sched/engine.h"
#include "sim/sim.h"
#include "sim/world.h"

typedef struct hs_sim {
	const hs_sim_opts_t *o;
	const hs_cluster_t *c;
	const hs_thrtable_t *t;
	hs_workload_t *wl;
	hs_sim_result_t *res;
	hs_world_t *w;
	hs_engine_t *e;            /* NULL in ideal mode */
	double now;
	double last_round;         /* start of the round being recorded */
	int changed;               /* GPU job set changed since the last round */
	double next_ev;            /* the world's next event when next_time
	                            * asked (NAN: ask again) */
	long measured_total, measured_rejected;
	uint32_t *op_ids;
	hs_op_view_t *op_views;
	int cap_ops;
	int errors;                /* engine errors shown */
	double wall0, last_progress;
} hs_sim_t;

double hs_sim_wall(void);
/* Submits every workload job that arrived by `upto` (the world's clock
 * must be there). */
int hs_sim_admit(hs_sim_t *s, double upto, hs_err_t *err);
int hs_sim_all_done(const hs_sim_t *s);
void hs_sim_progress(hs_sim_t *s, int force);
int hs_sim_record_round(hs_sim_result_t *r, double start, double end, double busy,
			hs_err_t *err);
/* sim_ideal.c */
int hs_sim_run_ideal(hs_sim_t *s, hs_err_t *err);

#endif /* HS_SIM_SIM_IMPL_H */
