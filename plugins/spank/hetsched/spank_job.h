/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spank_job.h — the slurmctld side of spank_hetsched in slurmstepd: what
 * the step learns about its job (GPU type on this node, the current
 * measurement record) and how it publishes the record into AdminComment
 * (doc/protocol.md (c)). The only file of the plugin that calls the Slurm
 * RPC API (slurm_load_job, slurm_update_job). */
#ifndef HS_SPANK_JOB_H
#define HS_SPANK_JOB_H

#include <stdint.h>

#include "report/listener.h"
#include "report/record.h"

typedef struct hs_spank_job {
	uint32_t job_id;
	unsigned restart_count;
	int64_t start_t;                 /* unix time the step started */
	char node[256];                  /* this node's name */
	char gpu[HS_RECORD_GPU_MAX];     /* "" = no typed GPU here */
	char key[HS_RECORD_GPU_MAX];     /* record key: gpu[:shared] */
	int shared;
	double seed_sps;                 /* earlier EMA on this key */
	unsigned long seed_n;
	int foreign_logged;              /* AdminComment not ours: said so */
} hs_spank_job_t;

/* Loads the job: GPU type of this node (from the GRES allocation) and the
 * seed of the estimator for that type (from the AdminComment record).
 * Returns 0; -1 (logged) when slurmctld cannot be asked. */
int hs_spank_job_load(hs_spank_job_t *j);

/* The listener's publish callback (arg = hs_spank_job_t *): merges the
 * state into the job's current record and writes it back when changed. */
int hs_spank_job_publish(void *arg, const hs_listener_state_t *st, hs_publish_why_t why);

#endif
