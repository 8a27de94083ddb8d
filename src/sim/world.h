/* SPDX-License-Identifier: GPL-2.0-or-later */
/* world.h — the simulator's Slurm: nodes with GPUs of one type each, one
 * managed partition, and the jobs of a workload with Slurm's states
 * (pending, running, suspended, ended), incarnations (restart_cnt) and
 * AdminComment records. It is the engine's world in a simulation, as
 * slurmctld is in the plugin:
 *   - hs_world_snapshot() gives the engine the snapshot slurmctld would
 *     (snapshot.h), from which the engine's round decides;
 *   - hs_world_exec() is the executor of the engine's acts (exec.h): it
 *     starts (where the act says, refusing as Slurm does when GPUs are
 *     held or a node cannot hold the job), signals checkpoints, requeues,
 *     suspends and resumes, and writes each outcome;
 *   - hs_world_views() shows the in-flight ops' jobs (hs_op_view_t);
 *   - hs_world_advance() moves the clock: running jobs progress at their
 *     true throughput on the GPUs they hold (the table's, alone or packed,
 *     consolidated or spread), checkpoints are acknowledged, jobs end.
 * Jobs report what the plugin's jobs report through the SPANK plugin:
 * their step, checkpoints, and the throughput they measured on each GPU
 * type (the AdminComment record, doc/protocol.md (c)); they declare their
 * model and steps as submit hints (HS_MODEL, HS_STEPS, HS_CKPT). So every
 * decision is the engine's, from what the plugin would see.
 */
#ifndef HS_SIM_WORLD_H
#define HS_SIM_WORLD_H

#include "sched/exec.h"
#include "sim/sim.h"
#include "sim/users.h"

typedef struct hs_world hs_world_t;

/* The unix time of simulated second 0: Slurm's times (submit, start,
 * begin, the records' times) are unix times for the engine, which gives
 * time 0 a meaning ("no round yet"). Every int64_t time of this API is
 * one of those; the simulator's clock (double) counts from 0. */
#define HS_SIM_EPOCH INT64_C(1700000000)

typedef struct hs_world_opts {
	const hs_cluster_t *cluster;
	const hs_thrtable_t *table;    /* true throughputs */
	int gpus_per_server;
	hs_consolidation_t consolidation;
	double restart_s;              /* seconds a restarted job loads its
	                                * checkpoint before it progresses */
	double ckpt_s;                 /* seconds from a checkpoint signal to
	                                * its acknowledgement */
	int pinned_preemptible;        /* pinned jobs checkpoint anyway
	                                * (--pinned-admission ignore) */
	int measure;                   /* jobs report measured throughputs */
	double unknown_models;         /* hs_sim_opts_t's */
	int anonymous_jobs;
	unsigned long seed;            /* the spread's phase */
	FILE *timeline;                /* run segments (hs_sim_timeline_header) */
	FILE *trace;                   /* every act and its outcome (--trace-acts) */
	hs_sim_users_t *users;         /* users and accounts (users.h); NULL:
	                                * every job user "user" of account
	                                * "sim". Borrowed; users met in a trace
	                                * are added to it. */
} hs_world_opts_t;

hs_world_t *hs_world_new(const hs_world_opts_t *o, hs_sim_result_t *res, hs_err_t *err);
void hs_world_free(hs_world_t *w);

/* A job of the workload arrives (submitted at its arrival time): it is
 * recorded in res->jobs; 0, or 1 when no type could ever run it (counted
 * rejected, never submitted), -1 on out of memory. */
int hs_world_submit(hs_world_t *w, const hs_trace_job_t *tj, int measured, hs_err_t *err);

/* The snapshot of now (borrowing the world's strings: release it with
 * hs_world_snapshot_done, not hs_snap_free). */
int hs_world_snapshot(hs_world_t *w, int64_t now, hs_snap_t *s, hs_err_t *err);
void hs_world_snapshot_done(hs_snap_t *s);

/* The executor: does every act of b at time now. */
void hs_world_exec(hs_world_t *w, hs_acts_t *b, int64_t now);

/* The plugin's fill of jobs the rounds do not place (cpujobs.c): every
 * pending job of a user whose strategy is odd-shape (shape_ok = 0), in
 * priority order, started on any free GPUs, one that does not fit not
 * blocking the others. The plugin runs it after each round's apply and
 * every second; GPUs free up only at the clock's stops, so once per
 * stop after the round or tick is the same. */
void hs_world_fill(hs_world_t *w, int64_t now);

/* Views of the jobs ids[0..n-1] for an ops pass at now (their
 * AdminComment records brought up to date). */
void hs_world_views(hs_world_t *w, const uint32_t *ids, int n, hs_op_view_t *v, int64_t now);

/* Moves the clock from the world's time to `to`: progress, checkpoint
 * acknowledgements, and jobs that end (their GPUs freed). Returns how
 * many jobs ended. first: hs_world_next_event's answer for the world as
 * it is now (a caller that has just asked saves a pass over the jobs),
 * or NAN to ask here. */
long hs_world_advance(hs_world_t *w, double to, double first);
/* The earliest time after now at which something happens by itself (a
 * job ends, a checkpoint is acknowledged, a restart's load is over),
 * or INFINITY. */
double hs_world_next_event(const hs_world_t *w);
/* The users and accounts the jobs belong to (valid while w lives). */
const hs_sim_users_t *hs_world_users(const hs_world_t *w);
/* Jobs submitted and not ended. */
long hs_world_active(const hs_world_t *w);
/* Measured jobs (hs_world_submit's flag) that ended. */
long hs_world_measured_done(const hs_world_t *w);
/* GPU-seconds busy (held by running jobs) since the last call. */
double hs_world_take_busy(hs_world_t *w);
/* Did the GPU job set change (arrivals, departures) since the last call? */
int hs_world_take_changed(hs_world_t *w);
/* Records what a round's plan says of each job: its expected start
 * (predictions: the first, and the first made at least one round of
 * round_s after its arrival) and whether it was kept. */
void hs_world_predictions(hs_world_t *w, const hs_plan_t *p, int64_t now, double round_s);
/* Ends every run segment at `now` (the timeline's last lines). */
void hs_world_close(hs_world_t *w, double now);

#endif /* HS_SIM_WORLD_H */
