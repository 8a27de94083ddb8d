/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshot.h — a plain copy of what the scheduler needs from slurmctld for
 * one round: GPU nodes, partitions and jobs. The sched plugin fills it
 * under slurmctld locks (backfill's), copying raw fields and Slurm's own
 * answer to whether each pending job may start now and where (strings
 * are duplicated, nothing is parsed there, so lock hold time stays small);
 * everything else — parsing hints and AdminComment records, estimating
 * throughputs, building the policy problem — happens on the copy with no
 * lock held (engine.h). Tests build snapshots by hand.
 *
 * All memory is malloc'd and owned by the snapshot (hs_snap_free).
 */
#ifndef HS_SCHED_SNAPSHOT_H
#define HS_SCHED_SNAPSHOT_H

#include <stdint.h>

#include "core/model.h"

typedef enum hs_sjob_state {
	HS_SJ_PENDING = 0,
	HS_SJ_RUNNING,
	HS_SJ_SUSPENDED,
	HS_SJ_OTHER,      /* completing, configuring, ...: hetsched waits */
} hs_sjob_state_t;

/* One node. GPU indices are Slurm's GRES indices on that node. */
typedef struct hs_snode {
	char *name;
	char *gpu_type;            /* the node's one GPU type (typeless GPUs:
	                            * "gpu"); NULL = no GPUs or several types */
	int ngpus;                 /* GPUs of gpu_type */
	unsigned char *gpu_held;   /* [ngpus] 1 = allocated to some job */
	int avail;                 /* 1 = up and accepting jobs (not down,
	                            * drained, draining, failing, powered off) */
} hs_snode_t;

typedef struct hs_spart {
	char *name;
	int managed;               /* listed in Partitions= (or all) */
	int up;                    /* state UP */
	int nnodes;
	int *nodes;                /* [nnodes] indices into hs_snap_t.nodes */
} hs_spart_t;

/* One association of Slurm's tree (an account, or a user within an
 * account) with its Shares: the tree fairness between accounts and users
 * is built from these (Slurm's association manager, read in the
 * snapshot). A parent comes before its children in the table. */
typedef struct hs_sassoc {
	uint32_t id;               /* Slurm's association id (0: made up) */
	int parent;                /* index of the parent in hs_snap_t.assocs,
	                            * -1 = directly under the root */
	char *account;             /* its account */
	char *user;                /* a user's association: the user; NULL for
	                            * an account's */
	double shares;             /* raw Shares (>= 1); 0 = none given */
	int use_parent;            /* Fairshare=parent: no level of its own,
	                            * its jobs count as its parent's */
} hs_sassoc_t;

/* A GPU a job holds: node index into the snapshot, GPU index on it. */
typedef struct hs_sgpu {
	int node;
	int gpu;
} hs_sgpu_t;

typedef struct hs_sjob {
	uint32_t id;
	uint32_t user_id;          /* owner (status document under
	                            * PrivateData=jobs) */
	hs_sjob_state_t state;
	int eligible;              /* pending and allowed to start now
	                            * (priority > 0, begin time passed, no
	                            * unmet dependency, not held; in Slurm:
	                            * what its scheduler asks, e.g. QOS and
	                            * association limits, reservations) */
	int gpus;                  /* GPUs the job needs in total, 0 = none */
	int gpus_per_node;         /* > 0: exactly this many on each of
	                            * `nodes` nodes (--gres=gpu:N) */
	int nodes;                 /* node count for per-node requests */
	int shape_ok;              /* 0: a GPU request hetsched cannot place
	                            * (e.g. --gpus-per-socket) */
	char *gpu_type;            /* type the job asked for, NULL = any */
	int nparts;
	int *parts;                /* [nparts] indices into hs_snap_t.parts */
	uint32_t nenv;
	char **env;                /* HS_* entries of spank_job_env (copies) */
	char *admin_comment;       /* raw AdminComment, NULL = none */
	const struct hs_record *record; /* the same, already parsed, when the
	                            * snapshot's maker has it (the simulator's
	                            * jobs): used instead of admin_comment;
	                            * borrowed, never freed by the snapshot */
	char *account;
	char *user;                /* owner's name (status; NULL = unknown) */
	char *name;                /* job name (learned kinds; NULL = none) */
	uint32_t array_id;         /* its array's job id, 0 = not an array
	                            * task (learned kinds) */
	int assoc;                 /* its association: index + 1 into
	                            * hs_snap_t.assocs, 0 = none known */
	char *qos;
	double account_shares;     /* association shares, 0 = unknown */
	uint32_t priority;
	int64_t submit_time;
	int64_t start_time;        /* running: when this incarnation started */
	int64_t begin_time;        /* earliest start (0 = none) */
	uint32_t time_limit_min;   /* 0 = unlimited */
	int batch;                 /* batch job (can be requeued) */
	int requeue_ok;            /* requeue allowed (--requeue/JobRequeue) */
	unsigned restart_cnt;      /* Slurm's count of requeues */
	int nheld;
	hs_sgpu_t *held;           /* [nheld] GPUs held (running/suspended) */
	unsigned char *node_ok;    /* pending: [snapshot nnodes] 1 = Slurm
	                            * lets the job use the node now (its
	                            * partitions, -w/-x, --constraint,
	                            * reservation, up); NULL = no restriction
	                            * beyond its partitions */
	uint32_t act_id;           /* the Slurm record to act on when it is
	                            * not `id`: for the extra task slots of a
	                            * pending job array (hs_snap_dup_job), the
	                            * array's pending record; 0 = id */
	unsigned char borrowed;    /* a task slot (hs_snap_dup_job): its
	                            * strings, env, parts and node_ok are the
	                            * array record's, freed with that record */
} hs_sjob_t;

typedef struct hs_snap {
	int64_t now;               /* unix time of the snapshot */
	int nnodes;
	hs_snode_t *nodes;
	int nparts;
	hs_spart_t *parts;
	int njobs, cap_jobs;
	hs_sjob_t *jobs;
	int nassocs, cap_assocs;
	hs_sassoc_t *assocs;       /* the associations of the jobs' paths to
	                            * the root (the root itself left out) */
	/* GPU jobs that ended lately (the plugin: ended since shortly before
	 * its previous snapshot; the simulator: since its previous one),
	 * for the learned table only: a job's last reports (the final one is
	 * written as its tasks exit) would otherwise be lost whenever it
	 * ended between two rounds, and with them the measurement of the
	 * type it ran on last, often the one the scheduler moved it to
	 * (learn.h). Only id, user_id, gpus, env, admin_comment or record,
	 * account, name and array_id are set. A job may be listed in
	 * several rounds: the engine feeds each report once (job memo). */
	int nended, cap_ended;
	hs_sjob_t *ended;
} hs_snap_t;

void hs_snap_init(hs_snap_t *s);
void hs_snap_free(hs_snap_t *s);
/* Appends a zeroed job (NULL on out of memory). */
hs_sjob_t *hs_snap_add_job(hs_snap_t *s);
/* Appends a zeroed ended job (hs_snap_t.ended; NULL on out of memory). */
hs_sjob_t *hs_snap_add_ended(hs_snap_t *s);
/* Appends a copy of job `from` with id `id` and act_id = the original's
 * Slurm record (a pending job array counts as one job per pending task:
 * each slot starts one task). The copy shares the original's strings,
 * env, parts and node_ok (borrowed: a slot costs one hs_sjob_t, not a
 * copy of the user's data); it holds no GPUs. NULL on out of memory (the
 * snapshot stays valid). */
hs_sjob_t *hs_snap_dup_job(hs_snap_t *s, int from, uint32_t id);
/* The Slurm record a snapshot job acts on (act_id, else id). */
uint32_t hs_sjob_act_id(const hs_sjob_t *j);

/* Whom a job's turn belongs to where the scheduler deals places fairly
 * outside the policy (array task slots, admission of jobs that cannot be
 * preempted), by Fairness= (hs_sconf_t.fairness, HS_FAIR_*): its
 * association (without accounting its user) under tree, its account
 * under accounts; 0 for every job under jobs (priority order alone). */
uint64_t hs_sjob_owner(int fairness, const hs_sjob_t *sj);
/* Index of owner o in owners[0..*n), appended (and *n raised) when new;
 * owners has room for one more. A linear scan: the owners with jobs in
 * one round. */
int hs_owner_index(uint64_t *owners, int *n, uint64_t o);
/* Appends an association (strings copied; NULL on out of memory). */
hs_sassoc_t *hs_snap_add_assoc(hs_snap_t *s, uint32_t id, int parent, const char *account,
			       const char *user, double shares);
/* Index of the association with Slurm id `id`, or -1. */
int hs_snap_find_assoc(const hs_snap_t *s, uint32_t id);
/* Checks internal consistency (indices in range, GPU counts sane); the
 * engine calls it before trusting a snapshot. A job holding a GPU index
 * its node does not model (a node with several GPU types or without
 * File=, so ngpus = 0, or an index above the count) is valid here: the
 * engine leaves that job and that node out (hs_sjob_unmodelled). */
int hs_snap_validate(const hs_snap_t *s, hs_err_t *err);
/* The index of a GPU job j holds that its node does not model, or -1. */
int hs_sjob_unmodelled(const hs_snap_t *s, const hs_sjob_t *j);

#endif /* HS_SCHED_SNAPSHOT_H */
