/* SPDX-License-Identifier: GPL-2.0-or-later */
/* start.c — the plugin's one way to start a job, and its one "may this
 * job start now" gate. Every start goes through hs_start(): the round's
 * planned starts, the engine's fallbacks and refills (exec.c), restarts
 * of in-flight ops (ops.c) and the fill of jobs the rounds do not place
 * (cpujobs.c). Where, the caller says (exec.h's hs_where_t); Slurm's
 * select_nodes() places the job within that, as backfill's _start_job()
 * does: exclude every other node, select_nodes(), restore, launch. */
#include "config.h"

#include <string.h>

#include "compat/hs_slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"
#include "../../select/hetsched/hs_pack.h"

hs_outcome_t hs_may_start(job_record_t *job_ptr, int *rc)
{
	*rc = SLURM_SUCCESS;
	if (!IS_JOB_PENDING(job_ptr))
		return HS_OUT_GONE;
	if (!hs_job_startable(job_ptr)) {
		/* a requeued job Slurm has not cleaned up yet: its old nodes,
		 * resources and GRES are still attached */
		*rc = ESLURM_NODES_BUSY;
		return HS_OUT_WAIT;
	}
	if (job_ptr->priority == 0 || !job_independent(job_ptr)) {
		/* held, or not eligible (dependency, begin time) any more */
		*rc = ESLURM_DEPENDENCY;
		return HS_OUT_REFUSED;
	}
	return HS_OUT_DONE;
}

/* Starts the job in partition part on nodes of `allowed` only (every
 * other node excluded for this call, its -w nodes kept in; NULL: no
 * exclusion beyond the job's own). A Slurm error code. */
static int start_within(job_record_t *job_ptr, part_record_t *part, bitstr_t *allowed,
			const char *why)
{
	part_record_t *orig_part = job_ptr->part_ptr;
	job_ptr->part_ptr = part;
	bitstr_t *orig_exc = job_ptr->details->exc_node_bitmap;
	if (allowed) {
		bitstr_t *exc = bit_copy(allowed);
		bit_not(exc);
		/* -w nodes stay in: a job that outgrows them (runnable.c)
		 * may be planned elsewhere, and Slurm must still include
		 * them */
		if (job_ptr->details->req_node_bitmap)
			bit_and_not(exc, job_ptr->details->req_node_bitmap);
		if (orig_exc)
			bit_or(exc, orig_exc);
		job_ptr->details->exc_node_bitmap = exc;
	}
	bool is_array_head = job_ptr->array_recs != NULL;
	int rc = hs_select_nodes(job_ptr, NULL);
	if (allowed && is_array_head && job_ptr->details) {
		/* A split array copied our exclusion into the new pending
		 * record: give it the job's own back. */
		job_record_t *base = find_job_record(job_ptr->array_job_id);
		if (base && base != job_ptr && base->array_recs && base->details) {
			FREE_NULL_BITMAP(base->details->exc_node_bitmap);
			if (orig_exc)
				base->details->exc_node_bitmap = bit_copy(orig_exc);
		}
	}
	if (allowed && job_ptr->details) { /* select_nodes() may reset it */
		FREE_NULL_BITMAP(job_ptr->details->exc_node_bitmap);
		job_ptr->details->exc_node_bitmap = orig_exc;
	} else if (allowed) {
		FREE_NULL_BITMAP(orig_exc);
	}
	if (rc != SLURM_SUCCESS) {
		if (IS_JOB_PENDING(job_ptr))
			job_ptr->part_ptr = orig_part;
		return rc;
	}
	info(HS_LOG_PREFIX "started %pJ on %s (%s)", job_ptr, job_ptr->nodes, why);
	hs_launch_started_job(job_ptr);
	return SLURM_SUCCESS;
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
		return start_within(job_ptr, p, NULL, why);
	bitstr_t *in_part = bit_copy(allowed);
	bit_and(in_part, p->node_bitmap);
	int rc = bit_ffs(in_part) < 0 ? ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE
				      : start_within(job_ptr, p, in_part, why);
	FREE_NULL_BITMAP(in_part);
	return rc;
}

/* Each usable partition of the job in turn, Slurm placing it on nodes
 * of `allowed` (NULL = any). */
static int in_partitions(const hs_sconf_t *conf, job_record_t *job_ptr, bitstr_t *allowed,
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

/* The partition to start a job on exactly `target` in: one of its
 * partitions hetsched manages that contains every target node. */
static part_record_t *target_partition(job_record_t *job_ptr, bitstr_t *target)
{
	if (job_ptr->part_ptr_list) {
		part_record_t *p, *found = NULL;
		list_itr_t *it = list_iterator_create(job_ptr->part_ptr_list);
		while ((p = list_next(it)) && !found)
			if (p->node_bitmap && (p->state_up & PARTITION_SCHED) &&
			    bit_super_set(target, p->node_bitmap))
				found = p;
		list_iterator_destroy(it);
		return found;
	}
	part_record_t *p = job_ptr->part_ptr;
	if (p && p->node_bitmap && bit_super_set(target, p->node_bitmap))
		return p;
	return NULL;
}

static int on_nodes(job_record_t *job_ptr, const hs_target_t *t, const char *why)
{
	if (!t || t->nnodes <= 0)
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	bitstr_t *target = bit_alloc(node_record_count);
	for (int k = 0; k < t->nnodes; k++) {
		node_record_t *node_ptr = find_node_record(t->nodes[k].name);
		if (!node_ptr) {
			FREE_NULL_BITMAP(target);
			return ESLURM_INVALID_NODE_NAME;
		}
		bit_set(target, node_ptr->index);
	}
	part_record_t *part = target_partition(job_ptr, target);
	int rc = part ? start_within(job_ptr, part, target, why)
		      : ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE;
	FREE_NULL_BITMAP(target);
	return rc;
}

/* Onto the GPUs of the running partner (select/hetsched_cons_tres);
 * HS_ESLURM_PARTNER_GONE when it does not run. */
static int packed(job_record_t *job_ptr, const hs_target_t *t, const char *why)
{
	uint32_t partner = t ? t->partner : 0;
	job_record_t *pp = partner ? find_job_record(partner) : NULL;
	if (!pp || !IS_JOB_RUNNING(pp) || IS_JOB_COMPLETING(pp))
		return HS_ESLURM_PARTNER_GONE;
	char msg[256];
	int rc = hs_pack_start(job_ptr, partner, msg, sizeof(msg));
	if (rc == SLURM_SUCCESS) {
		last_job_update = time(NULL);
		info(HS_LOG_PREFIX "started %pJ packed with JobId=%u (%s)", job_ptr, partner, why);
	} else {
		verbose(HS_LOG_PREFIX "could not pack %pJ with JobId=%u: %s", job_ptr, partner, msg);
	}
	return rc;
}

/* The Slurm nodes whose GPUs are of `type` (hs_node_gpu_type). */
static bitstr_t *type_nodes(const char *type)
{
	bitstr_t *b = bit_alloc(node_record_count);
	node_record_t *node_ptr;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		const char *t = hs_node_gpu_type(node_ptr, NULL);
		if (t && !strcmp(t, type))
			bit_set(b, node_ptr->index);
	}
	return b;
}

/* Takes the nodes an act leaves out (the engine's names; an unknown
 * name is skipped) out of `b`. */
static void leave_out(bitstr_t *b, const char *const *avoid, int navoid)
{
	for (int i = 0; avoid && i < navoid; i++) {
		node_record_t *node_ptr = avoid[i] ? find_node_record((char *)avoid[i]) : NULL;
		if (node_ptr)
			bit_clear(b, node_ptr->index);
	}
}

int hs_start(const hs_sconf_t *conf, job_record_t *job_ptr, hs_where_t where,
	     const hs_target_t *target, const char *type, const char *const *avoid, int navoid,
	     const char *why)
{
	if (!job_ptr->details)
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	int rc;
	bitstr_t *allowed = NULL;
	switch (where) {
	case HS_WHERE_NODES:
		return on_nodes(job_ptr, target, why);
	case HS_WHERE_PACKED:
		return packed(job_ptr, target, why);
	case HS_WHERE_TYPE:
		if (!type)
			return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		allowed = type_nodes(type);
		break;
	case HS_WHERE_ANY:
		if (avoid && navoid > 0) {
			allowed = bit_alloc(node_record_count);
			bit_set_all(allowed);
		}
		break;
	default:
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	if (allowed)
		leave_out(allowed, avoid, navoid);
	rc = in_partitions(conf, job_ptr, allowed, why);
	FREE_NULL_BITMAP(allowed);
	return rc;
}
