/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runnable.c — Slurm's own answer to "could this pending job start now,
 * and where?", asked the way sched/backfill asks it (22.05 backfill.c,
 * _attempt_backfill) instead of re-implementing Slurm's rules:
 *   job_independent()        dependencies, begin time, holds, array task
 *                            limits, reservation start
 *   assoc_mgr_validate_assoc_id(), hs_job_qos_invalid() -> job_fail_qos()
 *                            the association still exists and may still
 *                            use the job's QOS (issue #29: an admin's
 *                            sacctmgr change after submission)
 *   acct_policy_job_runnable_pre_select()/_post_select()
 *                            QOS and association limits (post_select with
 *                            the job's own TRES request: per-user GPU
 *                            limits such as MaxTRESPerUser=gres/gpu=N)
 *   license_job_test()       licenses (-L) free now (hs_licenses_free)
 *   job_limits_check()       partition limits, per partition
 *   job_test_resv()          reservations: nodes usable now
 *   partition nodes ∩ available nodes ∩ node owner filter ∩ -x ∩ -w
 *   job_req_node_filter()    --constraint features, node size
 * A job Slurm would not start keeps the reason Slurm set on it; the
 * nodes it may use constrain where the round places it.
 * These functions update job records (state_reason, begin_time,
 * dependencies, a failed QOS): the caller holds backfill's locks, {READ
 * conf, WRITE job, WRITE node, READ part, READ fed}, and no assoc_mgr
 * lock: the accounting functions take their own, as backfill lets them
 * (assoc_mgr locks come after slurmctld's; job_fail_qos() takes the
 * assoc and qos write locks, so nothing here may hold a read lock then). */
#include "config.h"

#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/acct_policy.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/reservation.h"

#include "hs_plugin.h"

/* Nodes of partition part the job may use now (NULL: none, or Slurm
 * would not start it in that partition now). job_ptr->part_ptr must be
 * part (the called functions read it). *limit is set to the partition
 * limit that refuses the job (job_limits_check()), else left alone. */
static bitstr_t *part_nodes(job_record_t *job_ptr, part_record_t *part, time_t now, int w_short,
			    int *limit)
{
	job_details_t *d = job_ptr->details;
	if (!(part->state_up & PARTITION_SCHED) || !part->node_bitmap)
		return NULL;
	int lim = job_limits_check(&job_ptr, true);
	if (lim != WAIT_NO_REASON) {
		*limit = lim;
		return NULL;
	}
	time_t when = now;
	bitstr_t *avail = NULL;
	bool overlap = false;
	/* usable now, not at some later start */
	int rc = hs_job_test_resv_nodes(job_ptr, &when, &avail, &overlap);
	if (rc != SLURM_SUCCESS || !avail) {
		FREE_NULL_BITMAP(avail);
		return NULL;
	}
	bit_and(avail, part->node_bitmap);
	if (avail_node_bitmap)
		bit_and(avail, avail_node_bitmap); /* up, not drained/failing */
	filter_by_node_owner(job_ptr, avail);
	if (d->exc_node_bitmap)
		bit_and_not(avail, d->exc_node_bitmap);
	if (d->req_node_bitmap) {
		if (!bit_super_set(d->req_node_bitmap, avail)) {
			FREE_NULL_BITMAP(avail);
			return NULL;
		}
		/* -w naming every node it needs: exactly those. Slurm adds
		 * nodes to the -w ones when they cannot hold the job's GPUs
		 * (sbatch --gpus=5 -w a 4-GPU node runs on two nodes; SchedMD's
		 * test39.13), unless -N caps the node count; such a job may
		 * use other nodes too (apply.c keeps its -w nodes). */
		int req_cnt = bit_set_count(d->req_node_bitmap);
		int capped = d->max_nodes && req_cnt >= (int)d->max_nodes;
		if (req_cnt >= (int)d->min_nodes &&
		    (!w_short || capped))
			bit_and(avail, d->req_node_bitmap);
	}
	if (job_req_node_filter(job_ptr, avail, true) != SLURM_SUCCESS ||
	    bit_set_count(avail) < (int)(d->min_nodes ? d->min_nodes : 1)) {
		FREE_NULL_BITMAP(avail);
		return NULL;
	}
	return avail;
}

/* Are the job's association and QOS still valid? The two tests Slurm
 * makes before starting a pending job, with the reasons it sets:
 * schedule()'s assoc_mgr_validate_assoc_id() (reason InvalidAccount) and
 * backfill's and schedule()'s QOS-against-association test
 * (hs_job_qos_invalid(), then job_fail_qos(): reason InvalidQOS, the
 * job's accrue time and QOS usage given back). Either reason then keeps
 * the job out until it is updated (job_independent() refuses both), in
 * Slurm and here (snapshot.c's blocked_reason). */
static int assoc_qos_valid(job_record_t *job_ptr)
{
	/* without ENFORCE_ASSOCS Slurm's answer is always yes */
	if ((accounting_enforce & ACCOUNTING_ENFORCE_ASSOCS) &&
	    assoc_mgr_validate_assoc_id(acct_db_conn, job_ptr->assoc_id, accounting_enforce) !=
		    SLURM_SUCCESS) {
		info(HS_LOG_PREFIX "%pJ has an invalid account or association", job_ptr);
		job_ptr->state_reason = FAIL_ACCOUNT;
		xfree(job_ptr->state_desc);
		last_job_update = time(NULL);
		return 0;
	}
	if (hs_job_qos_invalid(job_ptr)) {
		/* logs "ineligible due to invalid qos" with our function name */
		job_fail_qos(job_ptr, __func__, false);
		last_job_update = time(NULL);
		return 0;
	}
	return 1;
}

/* Slurm's accounting limits on the job as it stands (its own reason set
 * when they hold it). */
static int limits_allow(job_record_t *job_ptr)
{
	if (!acct_policy_job_runnable_pre_select(job_ptr, false))
		return 0;
	if (job_ptr->tres_req_cnt && job_ptr->part_ptr &&
	    !acct_policy_job_runnable_post_select(job_ptr, job_ptr->tres_req_cnt, false))
		return 0;
	return 1;
}

/* Why a pending job got no node, the way schedule() says it: a partition
 * limit's own reason (PartitionTimeLimit, ..., what _job_runnable_test2()
 * sets from job_limits_check(); from 25.11 nothing else sets it before
 * the job's first test), else "no node available now". Only over
 * reasons that say nothing more specific (the generic ones, or a
 * partition limit that no longer holds). */
static int is_part_limit(int r)
{
	return r == WAIT_PART_NODE_LIMIT || r == WAIT_PART_TIME_LIMIT || r == WAIT_PART_CONFIG ||
	       r == WAIT_PART_DOWN || r == WAIT_PART_INACTIVE;
}

static void set_no_node_reason(job_record_t *job_ptr, int limit, time_t now)
{
	int r = job_ptr->state_reason;
	if (!IS_JOB_PENDING(job_ptr) ||
	    !(r == WAIT_NO_REASON || r == WAIT_RESOURCES || r == WAIT_PRIORITY ||
	      r == WAIT_NODE_NOT_AVAIL || is_part_limit(r)))
		return;
	int want = limit != WAIT_NO_REASON ? limit : WAIT_NODE_NOT_AVAIL;
	if (r == want && (want != WAIT_NODE_NOT_AVAIL || job_ptr->state_desc))
		return;
	job_ptr->state_reason = want;
	xfree(job_ptr->state_desc);
	if (want == WAIT_NODE_NOT_AVAIL) /* like schedule() when no node can take it now */
		job_ptr->state_desc = xstrdup("no node the job may use is available now "
					      "(partition, -w/-x, --constraint, reservation, "
					      "node state)");
	last_job_update = now;
}

bitstr_t *hs_job_runnable_nodes(const hs_sconf_t *conf, job_record_t *job_ptr, int w_short)
{
	if (job_ptr->priority == 0 || !job_ptr->details || !job_ptr->part_ptr)
		return NULL;
	if (!job_independent(job_ptr))
		return NULL;
	if (!assoc_qos_valid(job_ptr)) /* before the limits, as in backfill */
		return NULL;
	if (!limits_allow(job_ptr))
		return NULL;
	if (!hs_licenses_free(job_ptr))
		return NULL;
	time_t now = time(NULL);
	bitstr_t *nodes = NULL;
	int limit = WAIT_NO_REASON;
	part_record_t *orig = job_ptr->part_ptr;
	if (job_ptr->part_ptr_list) {
		list_itr_t *it = list_iterator_create(job_ptr->part_ptr_list);
		part_record_t *p;
		while ((p = list_next(it))) {
			if (!hs_sconf_manages(conf, p->name))
				continue;
			job_ptr->part_ptr = p; /* as backfill does per partition */
			bitstr_t *b = part_nodes(job_ptr, p, now, w_short, &limit);
			if (b && nodes) {
				bit_or(nodes, b);
				FREE_NULL_BITMAP(b);
			} else if (b) {
				nodes = b;
			}
		}
		list_iterator_destroy(it);
		job_ptr->part_ptr = orig;
	} else if (hs_sconf_manages(conf, orig->name)) {
		nodes = part_nodes(job_ptr, orig, now, w_short, &limit);
	}
	if (!nodes)
		set_no_node_reason(job_ptr, limit, now);
	return nodes;
}

