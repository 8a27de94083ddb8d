/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hs_pack.h — the space-sharing ("packing") interface of
 * select/hetsched_cons_tres, for code running inside slurmctld (the
 * sched/hetsched plugin): start a pending job on the very GPUs of one
 * running partner job, and ask who is packed with whom. See doc/packing.md.
 *
 * How the call reaches the select plugin: both plugins are dlopen()ed by
 * slurmctld with RTLD_LAZY|RTLD_LOCAL, so neither sees the other's symbols
 * through dlsym(RTLD_DEFAULT). hs_pack_call() (plugins/compat/pack_channel.c)
 * carries the request: up to Slurm 24.11 through Slurm's own select API,
 * select_g_get_info_from_plugin(), with private info codes ("HS" in the
 * high bytes), which Slurm forwards unchanged to the configured select
 * plugin; from 25.05 (that API is gone) by finding the wrapper's exported
 * hetsched_pack_request() in the already-loaded .so. Any other select
 * plugin answers SLURM_ERROR, so a cluster without our select plugin
 * degrades to "no packing", never to a crash. hs_pack_available() checks
 * SelectType first so that case does not even log.
 *
 * Include from a plugin compiled against the configured Slurm tree
 * (plugins/local.mk PLUGIN_CPPFLAGS), e.g. from plugins/sched/hetsched:
 *     #include "../../select/hetsched/hs_pack.h"
 */
#ifndef HS_PACK_H
#define HS_PACK_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "compat/hs_slurm.h"
#include "compat/pack_channel.h"
#include "src/common/read_config.h"
#include "src/slurmctld/slurmctld.h"

#define HS_PACK_API_VERSION 1
#define HS_PACK_SELECT_TYPE "select/hetsched_cons_tres"

/* Request codes; up to 24.11 also private select_plugindata_info codes
 * (Slurm's own are 0..7). */
#define HS_PACK_INFO_VERSION 0x48530001u
#define HS_PACK_INFO_START   0x48530002u
#define HS_PACK_INFO_PARTNER 0x48530003u
#define HS_PACK_INFO_PAIRS   0x48530004u

/* HS_PACK_INFO_START: job_ptr = the pending job B; data = this. */
typedef struct hs_pack_start {
	uint32_t version;        /* in: HS_PACK_API_VERSION */
	uint32_t partner_job_id; /* in: the running job A whose GPUs B joins */
	int error_code;          /* out: SLURM_SUCCESS or an ESLURM_* code */
	char msg[256];           /* out: why B was not started (for the log) */
} hs_pack_start_t;

/* HS_PACK_INFO_PARTNER: job_ptr = any job; data = this. */
typedef struct hs_pack_partner {
	uint32_t version;        /* in: HS_PACK_API_VERSION */
	uint32_t partner_job_id; /* out: the job sharing its GPUs, 0 = none */
} hs_pack_partner_t;

/* HS_PACK_INFO_PAIRS: job_ptr = NULL; data = this. Fills up to max pairs
 * (first job id < second job id), sets count to the number of pairs that
 * exist (may exceed max: call again with more room). */
typedef struct hs_pack_pairs {
	uint32_t version;        /* in: HS_PACK_API_VERSION */
	uint32_t max;            /* in: room in pairs[] */
	uint32_t (*pairs)[2];    /* in: caller's array of max entries */
	uint32_t count;          /* out */
} hs_pack_pairs_t;

/*
 * 1 when SelectType is our wrapper and it speaks this interface version.
 * Call once (e.g. in the sched plugin's first scheduling pass, not in its
 * init(): the select plugin may not be initialised yet) and cache it.
 * Locks: none needed.
 */
static inline int hs_pack_available(void)
{
	uint32_t v = 0;

	if (!slurm_conf.select_type || strcmp(slurm_conf.select_type, HS_PACK_SELECT_TYPE))
		return 0;
	if (hs_pack_call(HS_PACK_INFO_VERSION, NULL, &v) != SLURM_SUCCESS)
		return 0;
	return v == HS_PACK_API_VERSION;
}

/*
 * Start pending job B packed onto the GPUs of running job A: same nodes,
 * same GPU indices (both see the same CUDA_VISIBLE_DEVICES), B's own CPU
 * cores and memory. On success B is RUNNING and launched (batch script sent
 * to its node, or srun/salloc answered), exactly like a job started by
 * backfill. Returns SLURM_SUCCESS or an ESLURM_* code, with a message in
 * msg (len bytes) when not started; B then stays PENDING, untouched.
 *
 * Refused (B stays pending): A not RUNNING, A already has a partner, B or
 * A asks for GRES other than gpu, the GPU counts per node differ, A's GPUs
 * have no indices (gres.conf without File=), B does not fit beside A
 * (cores, memory, partition, limits: everything select_nodes() checks).
 *
 * Locks: the caller holds the locks of select_nodes():
 *   { .conf = READ_LOCK, .job = WRITE_LOCK, .node = WRITE_LOCK,
 *     .part = READ_LOCK, .fed = READ_LOCK }.
 */
static inline int hs_pack_start(job_record_t *job_b, uint32_t job_a_id, char *msg, size_t len)
{
	hs_pack_start_t req = { .version = HS_PACK_API_VERSION, .partner_job_id = job_a_id,
				.error_code = SLURM_ERROR };
	int rc = hs_pack_call(HS_PACK_INFO_START, job_b, &req);

	if (rc != SLURM_SUCCESS && req.error_code == SLURM_SUCCESS)
		req.error_code = SLURM_ERROR;
	if (rc != SLURM_SUCCESS && !req.msg[0])
		snprintf(req.msg, sizeof(req.msg), "%s does not answer (SelectType=%s)",
			 HS_PACK_SELECT_TYPE, slurm_conf.select_type ? slurm_conf.select_type : "?");
	if (msg && len)
		snprintf(msg, len, "%s", req.error_code == SLURM_SUCCESS ? "" : req.msg);
	return req.error_code;
}

/*
 * The job packed with job (sharing at least one GPU on a node), 0 when it
 * runs alone or the select plugin is not ours. Derived from the jobs' GRES
 * allocations, so it is right after a slurmctld restart too.
 * Locks: job READ, node READ (or stronger).
 */
static inline uint32_t hs_pack_partner(job_record_t *job)
{
	hs_pack_partner_t q = { .version = HS_PACK_API_VERSION };

	if (hs_pack_call(HS_PACK_INFO_PARTNER, job, &q) != SLURM_SUCCESS)
		return 0;
	return q.partner_job_id;
}

/*
 * Every packed pair, one scan of the job list (use it when snapshotting a
 * round rather than hs_pack_partner per job). Returns the number of pairs
 * (pairs[0 .. min(count, max)-1] filled), or -1 if the select plugin does
 * not answer.
 * Locks: job READ, node READ (or stronger).
 */
static inline int hs_pack_pairs(uint32_t (*pairs)[2], uint32_t max)
{
	hs_pack_pairs_t q = { .version = HS_PACK_API_VERSION, .max = max, .pairs = pairs };

	if (hs_pack_call(HS_PACK_INFO_PAIRS, NULL, &q) != SLURM_SUCCESS)
		return -1;
	return (int)q.count;
}

#endif
