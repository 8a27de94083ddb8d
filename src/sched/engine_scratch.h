/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_scratch.h — the working arrays of one hs_build_round (the
 * "snapshot -> problem" stage of the round) and the classification steps
 * that fill them. Shared by engine_problem.c (the stage's driver and the
 * problem's jobs) and engine_classify.c (types, GPU owners, roles,
 * servers); not for other users. Nothing here outlives the call: what the
 * later stages need is in hs_round_build_t (engine_impl.h).
 */
#ifndef HS_SCHED_ENGINE_SCRATCH_H
#define HS_SCHED_ENGINE_SCRATCH_H

#include <stdint.h>

#include "sched/engine_impl.h"

typedef struct hs_round_scratch {
	int nnodes, njobs, nparts; /* the snapshot's */
	int ntypes;                /* GPU types of the managed nodes (J) */
	int total_gpus;            /* GPUs of the managed typed nodes */
	/* per snapshot node [nnodes] */
	unsigned char *node_managed; /* member of a managed partition */
	unsigned char *node_bad;   /* a job holds GPUs there the snapshot does
	                            * not model: no free GPU of it is given out */
	int *node_type;            /* type index, -1 = not a managed GPU node */
	int *node_base;            /* its first GPU's slot in node_owner */
	char **tnames;             /* [ntypes] type names, sorted (the
	                            * snapshot's strings, not copies) */
	/* per snapshot job [njobs] */
	unsigned char *unmod;      /* holds GPUs the snapshot does not model */
	hs_queue_key_t *cands;     /* [ncand] active and leaving jobs, for MaxJobs */
	int ncand;
	int *order;                /* [npj] problem job -> snapshot job */
	int npj;
	uint64_t *keys;            /* [npj] sort keys of order */
	/* per type, sized once the types are known */
	int *type_total;           /* [ntypes] GPUs of the type */
	int *type_maxnode;         /* [ntypes] most GPUs of the type on one node */
	int *count;                /* [ntypes] usable GPUs of the type */
	unsigned char *part_types; /* [nparts * ntypes] partition has the type */
	unsigned char *allowed;    /* [njobs * ntypes] job may use the type */
	/* per managed GPU [total_gpus], slot node_base[n] + gpu */
	int *node_owner;           /* snapshot job holding it, -1 none, -2 nobody's */
	int *node_owner2;          /* its packed partner, -1 none */
} hs_round_scratch_t;

/* Snapshot-sized arrays (the rest stay NULL until
 * hs_scratch_size_types); -1 = out of memory (free it anyway). */
int hs_scratch_init(hs_round_scratch_t *sc, const hs_snap_t *s);
/* Type- and GPU-sized arrays, once ntypes and total_gpus are known. */
int hs_scratch_size_types(hs_round_scratch_t *sc);
/* Frees both; safe on a zeroed or partly initialized scratch. */
void hs_scratch_free(hs_round_scratch_t *sc);

/* engine_classify.c, in the order the stage runs them: */
/* Jobs holding GPUs the snapshot does not model (unmod, node_bad; logged
 * once per job). */
void hs_classify_unmodelled(hs_engine_t *e, const hs_snap_t *s, hs_round_scratch_t *sc);
/* Managed nodes, the sorted type names, each node's type and GPU slots:
 * sets ntypes and total_gpus. */
void hs_classify_types(const hs_snap_t *s, hs_round_scratch_t *sc);
/* Per type: GPUs, largest node, partitions having it (sized scratch). */
void hs_classify_capacity(const hs_snap_t *s, hs_round_scratch_t *sc);
/* Owners of the managed GPUs (packed pairs checked). */
void hs_classify_owners(const hs_snap_t *s, hs_round_scratch_t *sc);
/* Every job's role (b->role, b->hints, b->snap_pjob = -1), the types it
 * may use, then the MaxJobs cut. */
void hs_classify_roles(hs_engine_t *e, const hs_snap_t *s, hs_round_scratch_t *sc,
		       hs_round_build_t *b);
/* Servers and their usable GPUs (b->servers, usable, owner, owner2,
 * node_server), usable GPUs per type (sc->count); -1 = out of memory. */
int hs_classify_servers(const hs_snap_t *s, hs_round_scratch_t *sc, hs_round_build_t *b);

#endif /* HS_SCHED_ENGINE_SCRATCH_H */
