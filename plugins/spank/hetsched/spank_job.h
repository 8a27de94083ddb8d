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
	int seeded;                      /* seed_* read from AdminComment */
	int foreign_logged;              /* AdminComment not ours: said so */
	char model[HS_RECORD_MODEL_MAX]; /* the step's --hs-model, "" = none */
} hs_spank_job_t;

/* Loads the job with SHOW_DETAIL: GPU type of this node (from the GRES
 * allocation), the restart count and the seed of the estimator for that
 * type (from the AdminComment record). Returns 0; -1 (logged) when
 * slurmctld cannot be asked. */
int hs_spank_job_load(hs_spank_job_t *j);

/* Only the seed (a load without SHOW_DETAIL): for the step that starts
 * the job's listener on this node when the GPU type came from the cache
 * (report/jobdir.h). 0, or -1 (logged; the estimator starts unseeded). */
int hs_spank_job_seed(hs_spank_job_t *j);

/* What a step learnt from hs_spank_job_load, as the one line cached for
 * the job's other steps on this node ("hs1 rc=N shared=0|1 gpu=TYPE"),
 * and back. format: 0, or -1 when it does not fit; parse: 0, or -1 (j
 * untouched) when the text is not such a line. */
int hs_spank_job_cache_format(const hs_spank_job_t *j, char *buf, size_t size);
int hs_spank_job_cache_parse(hs_spank_job_t *j, const char *text);

/* The listener's publish callback (arg = hs_spank_job_t *): merges the
 * state into the job's current record and writes it back when changed. */
int hs_spank_job_publish(void *arg, const hs_listener_state_t *st, hs_publish_why_t why);

#endif
