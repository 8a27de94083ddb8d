/* SPDX-License-Identifier: GPL-2.0-or-later */
/* world_impl.h — the simulated Slurm's state (world.h), shared by
 * world.c (jobs, nodes, snapshot), world_exec.c (the executor) and
 * world_run.c (progress, measurements, the clock). Not for other users. */
#ifndef HS_SIM_WORLD_IMPL_H
#define HS_SIM_WORLD_IMPL_H

#include "report/record.h"
#include "sim/world.h"

/* Seconds a job runs alone on a GPU type before it reports the
 * throughput it measured there (the SPANK plugin's EMA settles within a
 * few reports). */
#define HS_WORLD_MEASURE_S 60.0

typedef struct wnode {
	char name[96];
	int type;                  /* cluster type */
	int ngpus;
	int first;                 /* its GPUs in the world's holder arrays */
} wnode_t;

/* A job's Slurm side (its result record is res->jobs[same index]). */
typedef struct wjob {
	hs_sjob_state_t state;     /* HS_SJ_OTHER: not submitted or ended */
	int live;                  /* submitted and not ended */
	unsigned restart_cnt;
	int64_t submit_time, start_time, begin_time;
	int nheld;
	hs_sgpu_t *held;           /* [sf] */
	long partner;              /* packed with this job index, -1 */
	double load_until;         /* restarted: loads its checkpoint until */
	double ack_at;             /* checkpoint acknowledged at, INFINITY */
	double thr;                /* steps/s now (running) */
	double alone_s;            /* seconds run alone on the current type */
	int measured_now;          /* reported the current type already */
	double *meas;              /* [J] reported steps/s, 0 = none */
	int64_t *meas_t;           /* [J] when */
	int has_ckpt;
	double ckpt_step;
	int64_t ckpt_t;
	char *env[4];
	uint32_t nenv;
	const char *name;          /* job name (borrowed model name), NULL */
	hs_record_t *rec;          /* its AdminComment record (live jobs) */
	int comment_dirty;         /* the record changed (not running) */
	int meas_dirty;            /* a measured type was added */
	double fmt_step;           /* step in the record as last written */
	double prog_t;             /* progress accounted up to this time */
	double requeued_at;        /* last requeue (migration = restart at
	                            * the same instant), -1 */
	double iso_base;           /* isolated-share integral at arrival */
	double seg_start;          /* timeline: current run segment */
	const char *seg_event;
	int fill_tried;            /* the fill's pass tried it already */
	int requeue_off;           /* its owner set Requeue=0 once it ran
	                            * (drop-requeue) */
} wjob_t;

struct hs_world {
	hs_world_opts_t o;
	hs_sim_result_t *res;
	int J;
	int *ttype;                /* [J] table type of each cluster type */
	int *max_server;           /* [J] most GPUs of one server */
	int nnodes;
	wnode_t *nodes;
	int ngpus;
	long *holder, *holder2;    /* [ngpus] job index on each GPU (the
	                            * second: its packed partner), -1 */
	long cap;
	wjob_t *wj;                /* [cap], parallel to res->jobs */
	long *live;                /* submitted, not ended: job indices */
	long nlive, cap_live;
	double now;
	int changed;
	unsigned long thr_sets;    /* hs_world_set_thr calls: a rate that
	                            * may have changed (hs_world_advance) */
	double busy;               /* GPU-seconds held by running jobs */
	hs_sjob_t *sjobs;          /* snapshot scratch */
	long cap_sjobs;
	long *ended;               /* jobs retired since the snapshot before
	                            * last, with their record and rates kept
	                            * for the next snapshot's ended list
	                            * (snapshot.h): [0, nlisted) were listed
	                            * once and are freed at the next one */
	long nended, cap_ended, nlisted;
	int snapshots;             /* the engine takes snapshots (not the
	                            * ideal schedule): keep ended jobs' records */
	hs_sjob_t *sended;         /* the ended list's scratch [cap_ended] */
	hs_snode_t *snodes;
	unsigned char *gpu_held_all;
	hs_spart_t part;
	int *part_nodes;
	int part0;                 /* a job's partition list: [0] */
	char qos_name[8];
	hs_sim_users_t own_users;  /* when the options give none */
	hs_sim_users_t *users;
	hs_sassoc_t *sassocs;      /* the snapshot's association tree:
	                            * accounts, then users (names borrowed) */
	int nsassocs;
	/* finish-time fairness: per distinct scale factor, the integral of
	 * min(1 / (M sf), 1 / G) dt over time (M live jobs, G GPUs); a job's
	 * isolated steps are its rate sum times the integral over its life */
	int nsf;
	int sfv[16];
	double iso_int[16];
	double iso_t;              /* integrals accounted up to */
	long measured_done;
	double *user_demand;       /* [cap_users] GPUs its live jobs ask for */
	double *user_entitled;     /* [cap_users] its entitled GPUs now
	                            * (entitle.h), since ent_since */
	double ent_since;
};

/* world.c */
/* GPU index in the holder arrays of GPU g of node n. */
static inline int hs_world_gpu(const hs_world_t *w, int n, int g)
{
	return w->nodes[n].first + g;
}
/* Job index of Slurm job id (index + 1), -1 when no such job. */
long hs_world_job(const hs_world_t *w, uint32_t id);

/* world_run.c */
/* Brings job k's progress up to the world's clock. */
void hs_world_progress(hs_world_t *w, long k);
/* Sets job k's throughput from where it runs now (alone or packed,
 * consolidated or spread); its partner's too. */
void hs_world_set_thr(hs_world_t *w, long k);
/* Job k's rate changed (its partner left, or was suspended or resumed;
 * progress made up to now): a new timeline segment and hs_world_set_thr. */
void hs_world_rate_changed(hs_world_t *w, long k);
/* Job k stops running at the world's clock (requeue, suspend, end):
 * progress first, then the run segment ends. */
void hs_world_stop(hs_world_t *w, long k, const char *why);
/* Job k starts running on the GPUs it holds now (its load time if it
 * restarts from a checkpoint). */
void hs_world_run(hs_world_t *w, long k, const char *event);
/* Job k joins the live jobs now (before it is counted in them): the
 * start of its isolated-share integral. */
void hs_world_iso_join(hs_world_t *w, long k);
/* A live job of user u asking for gpus GPUs arrived (gpus > 0) or ended
 * (gpus < 0): the users' entitled GPU time is accounted up to now, then
 * their entitlements recomputed (entitle.h). -1 on out of memory. */
int hs_world_user_live(hs_world_t *w, int u, double gpus);
/* The isolated-share integrals up to t with the live jobs of now. */
void hs_world_iso_to(hs_world_t *w, double t);
/* Live job i (an index into w->live) ended at the world's clock: its
 * finish time and isolated share recorded, out of the live jobs. Its
 * GPUs must be free (hs_world_release). */
void hs_world_retire(hs_world_t *w, long i);
/* Keeps job k's record and measured rates for the next snapshot's ended
 * list (then freed); -1 on out of memory (the caller frees them). */
int hs_world_ended_push(hs_world_t *w, long k);
/* Frees a job's record and measured rates (an ended job's, once listed). */
void hs_world_drop_record(wjob_t *x);
/* Frees job k's GPUs (and unpacks its partner). */
void hs_world_release(hs_world_t *w, long k);

#endif /* HS_SIM_WORLD_IMPL_H */
