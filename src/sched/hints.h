/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hints.h — the submit-time hints a job carries in slurmctld's
 * job_ptr->spank_job_env (doc/protocol.md (a)): HS_MODEL, HS_STEPS,
 * HS_CKPT, HS_NO_PREEMPT, HS_CKPT_SIGNAL. They are untrusted (a user can
 * craft spank_job_env without our client plugin), so every value is
 * re-validated with the protocol's rules, the checks of report/hints.h
 * that sbatch ran; a bad value is ignored and reported in `bad` for one
 * log line, never trusted. Slurm-free (links libhetsched_measure).
 */
#ifndef HS_SCHED_HINTS_H
#define HS_SCHED_HINTS_H

#include <stdint.h>

#include "report/hints.h"

#define HS_JH_MODEL_MAX (HS_HINT_MODEL_MAX + 1)  /* 1..127 bytes + NUL */

typedef struct hs_hints {
	char model[HS_JH_MODEL_MAX];  /* "" = unknown */
	uint64_t steps;                 /* 0 = unknown */
	int ckpt;                       /* HS_CKPT=1: checkpoints on request */
	int no_preempt;                 /* HS_NO_PREEMPT=1 */
	int ckpt_signal;                /* validated signal number */
	char bad[160];                  /* "" or the first rejected entry */
} hs_hints_t;

/* Parses env[0..n-1] ("KEY=value"; the first match of a key wins; NULL
 * entries are skipped). Never fails: unknown or invalid entries are
 * ignored (the first invalid one is described in h->bad). */
void hs_hints_parse(hs_hints_t *h, char *const *env, uint32_t n);

#endif /* HS_SCHED_HINTS_H */
