/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack_gres.h — GPU bookkeeping for space sharing inside slurmctld: which
 * GPU indices a job holds on a node, which running jobs share GPUs, and
 * the node-side counters (gres_node_state_t) kept right when two jobs hold
 * the same GPU. Runs under the slurmctld locks of its caller (job and
 * node WRITE for changes, READ for queries). See doc/packing.md.
 */
#ifndef HS_PACK_GRES_H
#define HS_PACK_GRES_H

#include <stdbool.h>
#include <stdint.h>

#include "compat/hs_slurm.h"
#include "src/common/bitstring.h"
#include "src/slurmctld/slurmctld.h"

/* The node's gres/gpu state, NULL if the node has no GPUs. */
gres_node_state_t *hs_node_gpu(int node_inx);

/* Why packing is impossible on this node ("" = possible): GPUs without
 * device indices, or gpu linked with shard/mps. */
const char *hs_node_gpu_unpackable(int node_inx);

/* True for a job that holds its resources now: RUNNING or SUSPENDED and
 * not completing. */
bool hs_job_holds(job_record_t *job);

/* The GPU indices job holds on node node_inx, as a new bitmap (caller
 * bit_free()s), or NULL when none. From the allocation (gres_list_alloc);
 * with from_select, from cons_tres's selection for a job being started
 * (gres_list_req's gres_bit_select) when it has no allocation yet. */
bitstr_t *hs_job_gpu_bits(job_record_t *job, int node_inx, bool from_select);

/* True when job's GRES request (or allocation) names no GRES but gpu. */
bool hs_job_gres_only_gpu(job_record_t *job);

/* The first other job holding a GPU that job holds (0 = none). If
 * shared_on is not NULL, *shared_on becomes a new node bitmap of the
 * nodes where that happens (NULL when none). */
uint32_t hs_job_partner(job_record_t *job, bitstr_t **shared_on);

/* The union of the GPUs on node_inx of every job holding resources that
 * shares at least one GPU there with job (job itself excluded); NULL if
 * none. */
bitstr_t *hs_partner_bits(job_record_t *job, int node_inx);

/* Node counters: mark the GPUs in bits allocated (sign +1) or free (-1),
 * only those not already in that state, updating gres_bit_alloc,
 * gres_cnt_alloc, topo_gres_cnt_alloc and type_cnt_alloc the way
 * gres_ctld_job_alloc/dealloc do; never below zero. */
void hs_node_gpu_mark(gres_node_state_t *ns, bitstr_t *bits, int sign);

/* Node counters recomputed from gres_bit_alloc alone: every GPU counted
 * once (the rule for nodes with a shared GPU). */
void hs_node_gpu_normalize(gres_node_state_t *ns);

/* A saved copy of a node's GPU counters, for a temporary change. */
typedef struct hs_gpu_saved {
	bool valid;      /* something was saved */
	bitstr_t *bits;
	uint64_t cnt;
	uint64_t *topo;  /* [topo_cnt] */
	uint64_t *type;  /* [type_cnt] */
	uint16_t topo_cnt, type_cnt;
} hs_gpu_saved_t;

void hs_node_gpu_save(gres_node_state_t *ns, hs_gpu_saved_t *s);
/* Puts the saved counters back (if the node's arrays kept their sizes)
 * and frees the copy. */
void hs_node_gpu_restore(gres_node_state_t *ns, hs_gpu_saved_t *s);

#endif
