/* SPDX-License-Identifier: GPL-2.0-or-later */
/* start_type.c — a start on any nodes of one GPU type, Slurm choosing
 * which: the fallback when Slurm refused a job on the exact nodes the
 * round planned (apply.c). The round keeps the choice that matters to
 * the policy, the GPU type; Slurm, which knows the rest of the request
 * (CPUs and memory per GPU, node counts, sockets), picks the nodes. A job
 * that can never run on one type is then placed by Slurm on any. */
#include "config.h"

#include <string.h>

#include "compat/hs_slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"

/* The Slurm nodes of the snapshot whose GPUs are of `type`. */
static bitstr_t *type_nodes(const hs_snap_t *s, const char *type)
{
	bitstr_t *b = bit_alloc(node_record_count);
	for (int n = 0; n < s->nnodes; n++) {
		if (!s->nodes[n].gpu_type || strcmp(s->nodes[n].gpu_type, type))
			continue;
		node_record_t *node_ptr = find_node_record(s->nodes[n].name);
		if (node_ptr)
			bit_set(b, node_ptr->index);
	}
	return b;
}

/* Tries partition p, if it is up and, for a job of a managed partition,
 * managed (a job of no managed partition, which only the fill starts, may
 * use any of its partitions): on its nodes of `allowed` (NULL = wherever
 * Slurm likes). */
static int try_partition(const hs_sconf_t *conf, job_record_t *job_ptr, part_record_t *p,
			 bitstr_t *allowed, int managed_job, const char *why)
{
	if (!p || !p->node_bitmap || !(p->state_up & PARTITION_SCHED) ||
	    (managed_job && !hs_sconf_manages(conf, p->name)))
		return ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE;
	if (!allowed)
		return hs_start_within(job_ptr, p, NULL, why);
	bitstr_t *in_part = bit_copy(allowed);
	bit_and(in_part, p->node_bitmap);
	int rc = bit_ffs(in_part) < 0 ? ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE
				      : hs_start_within(job_ptr, p, in_part, why);
	FREE_NULL_BITMAP(in_part);
	return rc;
}

int hs_start_in_partitions(const hs_sconf_t *conf, job_record_t *job_ptr, bitstr_t *allowed,
			   const char *why)
{
	int managed = hs_job_managed(conf, job_ptr);
	if (!job_ptr->part_ptr_list)
		return try_partition(conf, job_ptr, job_ptr->part_ptr, allowed, managed, why);
	int rc = ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE;
	list_itr_t *it = list_iterator_create(job_ptr->part_ptr_list);
	part_record_t *p;
	while ((p = list_next(it))) {
		rc = try_partition(conf, job_ptr, p, allowed, managed, why);
		if (rc == SLURM_SUCCESS || !IS_JOB_PENDING(job_ptr))
			break;
	}
	list_iterator_destroy(it);
	return rc;
}

int hs_start_on_type(const hs_sconf_t *conf, job_record_t *job_ptr, const hs_snap_t *s,
		     const char *type, const char *why)
{
	if (!job_ptr->details)
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	int rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	if (type) {
		bitstr_t *typed = type_nodes(s, type);
		rc = hs_start_in_partitions(conf, job_ptr, typed, why);
		FREE_NULL_BITMAP(typed);
	}
	const char *where = type;
	/* Never runnable on one type (say --nodes=3 where no type has three
	 * nodes), not now on any node of it (its memory or CPUs held by
	 * jobs that stay), or no type given: rather than wait while a GPU
	 * of another type could take it, let Slurm choose among all types,
	 * as it would for any job that did not ask for one (a job that did
	 * is held to it by Slurm itself). */
	if ((rc == ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE || rc == ESLURM_NODES_BUSY) &&
	    IS_JOB_PENDING(job_ptr)) {
		rc = hs_start_in_partitions(conf, job_ptr, NULL, why);
		where = "any GPU type's";
	}
	if (rc == SLURM_SUCCESS)
		info(HS_LOG_PREFIX "%pJ refused on its planned nodes, started by Slurm on %s "
		     "nodes: %s", job_ptr, where, job_ptr->nodes);
	return rc;
}
