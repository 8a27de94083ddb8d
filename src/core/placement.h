/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placement.h — concrete servers and GPU indices for the round mechanism:
 * which GPUs of which node a job (or a packed pair of jobs) runs on.
 *
 * The caller describes the cluster as it is this round (hs_server_t: node
 * name, accelerator type, GPU count, which GPU indices hetsched may use).
 * The mechanism (mechanism.h) decides how many GPUs of each type every
 * selected job gets; this file turns that into GPU indices:
 *
 *  1. Lease extension first: a request that names the GPUs it held last
 *     round keeps exactly those GPUs when they are all still usable and not
 *     yet taken (no preemption, no restart).
 *  2. Then the remaining requests, biggest first (fewer stranded GPUs):
 *     a request that fits on one server goes to the server with the fewest
 *     free GPUs that still holds it (best fit, keeps big holes for big
 *     jobs); otherwise it takes servers in decreasing order of free GPUs,
 *     which spans the fewest servers possible. GPUs on a server are taken
 *     in increasing index order.
 *
 * Pure functions over caller-owned arrays: no global state, no Slurm.
 */
#ifndef HS_CORE_PLACEMENT_H
#define HS_CORE_PLACEMENT_H

#include "core/model.h"

/* Upper bound on GPUs per node we accept from a caller (sanity check on
 * input; Slurm's own limit on GRES per node is far above real hardware). */
#define HS_MAX_GPUS_PER_SERVER 1024

/* One GPU node as the caller sees it this round. */
typedef struct hs_server {
	const char *name;             /* node name, unique, non-empty */
	int type;                     /* accelerator type index into the
	                               * problem's hs_cluster_t */
	int ngpus;                    /* GPUs of that type on the node; GPU
	                               * indices are 0..ngpus-1 (Slurm GRES
	                               * index order) */
	const unsigned char *usable;  /* [ngpus]: 1 = hetsched may use it (idle,
	                               * or held by a job hetsched manages);
	                               * 0 = unavailable (drained, down, held by
	                               * a job hetsched does not manage).
	                               * NULL = all usable. */
} hs_server_t;

/* One GPU: a server (index into the round's hs_server_t array) and the GPU
 * index on that server. */
typedef struct hs_gpu_ref {
	int server;
	int gpu;
} hs_gpu_ref_t;

/* Checks a server array: unique non-empty names, type in [0, ntypes),
 * 0 <= ngpus <= HS_MAX_GPUS_PER_SERVER. The message names the server. */
int hs_servers_validate(const hs_server_t *s, int n, int ntypes, hs_err_t *err);

/* Free-GPU bookkeeping for one placement pass. */
typedef struct hs_gpu_pool {
	int nservers;
	const hs_server_t *servers;
	unsigned char **taken;        /* [nservers][ngpus]: 1 = not available
	                               * (unusable, or already placed) */
	int *nfree;                   /* [nservers] free GPUs left */
	/* An index so placement finds "fewest (most) free GPUs of type t,
	 * lowest index first" without scanning every server (thousands in a
	 * large simulation): bit s of the bitmap of (t, c) is set iff server
	 * s has type t and exactly c >= 1 free GPUs. NULL when a server has
	 * more than HS_POOL_INDEX_MAXG GPUs (then placement scans). */
	int ntypes, maxg, nwords;
	unsigned long long *bits;     /* [ntypes][maxg + 1][nwords] */
	int *tfree;                   /* [ntypes] free GPUs per type */
	unsigned char *taken_block;   /* storage of every taken[s] */
} hs_gpu_pool_t;

/* Largest server the pool's bitmap index covers. */
#define HS_POOL_INDEX_MAXG 64

/* Builds the pool (validates the servers against ntypes). */
int hs_gpu_pool_init(hs_gpu_pool_t *p, const hs_server_t *s, int n, int ntypes, hs_err_t *err);
/* The same for servers whose names the caller has just checked unique
 * with hs_servers_validate (the mechanism, once per round: the check
 * hashes every name); the other checks still run. */
int hs_gpu_pool_init_unique(hs_gpu_pool_t *p, const hs_server_t *s, int n, int ntypes,
			    hs_err_t *err);
void hs_gpu_pool_free(hs_gpu_pool_t *p);
/* Free GPUs of a type left in the pool. */
int hs_gpu_pool_count(const hs_gpu_pool_t *p, int type);

/* One placement request. */
typedef struct hs_place_req {
	int type;                     /* accelerator type */
	int ngpus;                    /* GPUs wanted, >= 1 */
	const hs_gpu_ref_t *prev;     /* GPUs held last round (lease extension
	                               * candidate) or NULL */
	int nprev;
	const unsigned char *allowed; /* [nservers] 1 = the job may run there
	                               * (the scheduler's answer, e.g. Slurm's
	                               * -w/-x/features/reservations); NULL =
	                               * anywhere */
	/* results */
	hs_gpu_ref_t *gpus;           /* caller-allocated [ngpus], filled in */
	int kept;                     /* 1 = prev kept as is */
	int nservers;                 /* distinct servers used */
	int placed;                   /* 1 = gpus filled; 0 = a request with
	                               * `allowed` found too few free GPUs on
	                               * its servers (it does not run) */
} hs_place_req_t;

/* Places every request (see the file comment for the rules); requests of
 * equal size are served in array order (callers pass priority order).
 * Requests restricted to some servers (`allowed`) are placed before the
 * unrestricted ones of pass 2, which can go anywhere; one that still does
 * not fit is left unplaced (placed = 0), not an error. Fails (message
 * names the request) only when a type has fewer free GPUs than its
 * unrestricted requests need, which callers avoid by checking
 * hs_gpu_pool_count. */
int hs_place(hs_gpu_pool_t *p, hs_place_req_t *reqs, int nreqs, hs_err_t *err);

/* 1 if two GPU lists hold the same set of GPUs (order-insensitive). */
int hs_gpu_set_equal(const hs_gpu_ref_t *a, int na, const hs_gpu_ref_t *b, int nb);

#endif /* HS_CORE_PLACEMENT_H */
