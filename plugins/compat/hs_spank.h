/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hs_spank.h — the Slurm compatibility layer of the SPANK plugin, which
 * sees only Slurm's public headers: what changed in them between the
 * series we build against (doc/slurm-versions.md). */
#ifndef HS_SPANK_H
#define HS_SPANK_H

#include <errno.h>
#include <stdint.h>

#include <slurm/slurm.h>

/* The handle slurm_hostlist_create() returns: hostlist_t up to 23.02, an
 * opaque hostlist_t * since 23.11. Taken from the function itself, so no
 * version test is needed (typeof does not evaluate the call). */
typedef __typeof__(slurm_hostlist_create(NULL)) hs_hostlist_t;

/* The errno of the last failed Slurm API call: slurm_get_errno() until
 * 24.05, plain errno since (it was errno in every version). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#define hs_slurm_errno() (errno)
#else
#define hs_slurm_errno() slurm_get_errno()
#endif

/* slurm_load_job() of one job by id: 26.05 takes a slurm_step_id_t (the
 * job-id form needs SLURM_BACKWARD_COMPAT). */
static inline int hs_slurm_load_job(job_info_msg_t **resp, uint32_t job_id, uint16_t flags)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_load_job(resp, id, flags);
#else
	return slurm_load_job(resp, job_id, flags);
#endif
}

/* Which job a slurm_update_job() request is for: job_desc_msg_t's job_id
 * became a step id in 25.11. */
static inline void hs_job_desc_set_id(job_desc_msg_t *desc, uint32_t job_id)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	desc->step_id.job_id = job_id;
#else
	desc->job_id = job_id;
#endif
}

#endif /* HS_SPANK_H */
