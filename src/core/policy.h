/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.h — the policy engine's interface: turn a problem (cluster, jobs,
 * throughputs) into an allocation X (fraction of time each job should spend
 * on each accelerator type, alone or in pairs) under a named policy.
 *
 * A policy context lives across rounds: it keeps what a policy may reuse
 * (the previous LP basis for warm starts, a random generator for Gandiva,
 * the previous allocation for FIFO-like heuristics), so there is no global
 * state and two schedulers in one process never interfere.
 */
#ifndef HS_CORE_POLICY_H
#define HS_CORE_POLICY_H

#include "core/model.h"

typedef struct hs_policy_opts {
	unsigned long seed;       /* random choices (gandiva); same seed, same answers */
	double pack_threshold;    /* fifo_packed: minimum normalized pair
	                           * throughput to pack (Gavel: 1.5) */
	int pop_partitions;       /* POP-style partitioning into k sub-problems;
	                           * <= 1 = off (exact) */
	double time_limit_s;      /* time budget of one hs_policy_solve (all
	                           * its LP solves together), 0 = none */
	int verbose;              /* solver messages on stderr */
	/* monotonic seconds for the budget; NULL = CLOCK_MONOTONIC (tests
	 * inject a clock of their own) */
	double (*clock)(void *arg);
	void *clock_arg;
} hs_policy_opts_t;

void hs_policy_opts_default(hs_policy_opts_t *o);

typedef struct hs_policy_ctx hs_policy_ctx_t;

/* Number of registered policies and their names (stable order). */
int hs_policy_count(void);
const char *hs_policy_name(int i);
/* Non-zero if the named policy exists / uses space sharing (pairs). */
int hs_policy_exists(const char *name);
int hs_policy_is_packed(const char *name);
/* Is it solved as LPs, so that POP partitioning applies? */
int hs_policy_is_lp(const char *name);
/* Non-zero if the named policy is heterogeneity-aware: its allocation
 * already says which type each job should use, so the round mechanism
 * visits types fastest first; for an agnostic policy (0, also for unknown
 * names) it visits them in a random order, as Gavel's does. */
int hs_policy_is_aware(const char *name);
/* Non-zero if the named policy's allocation does not change when one
 * job's throughputs on all types are multiplied by one factor: the
 * policies that use throughputs only normalized by the job's own (max-min
 * fairness and water filling: T_mj / T^eq_m; FIFO, packing: fastest type,
 * pair over alone) or not at all (the agnostic makespan takes every usable
 * throughput as 1). 0 for those that compare throughputs between jobs or
 * turn them into times (finish-time fairness, the aware makespan, summed
 * throughput, cost, SLOs, AlloX) and for unknown names. The engine
 * recomputes the allocation on a job's uniform slowdown only for the
 * latter (EstimateResolveFactor, engine_resolve.c). */
int hs_policy_is_scale_free(const char *name);
/* Non-zero if jobs the named policy gives no time may still use GPUs
 * nobody with an allocation wants (the mechanism's backfill). 0 for the
 * FIFO policies, whose allocation is the queue order itself, and for
 * unknown names. */
int hs_policy_backfills(const char *name);

hs_policy_ctx_t *hs_policy_ctx_new(const char *name, const hs_policy_opts_t *o, hs_err_t *err);
void hs_policy_ctx_free(hs_policy_ctx_t *ctx);
const char *hs_policy_ctx_name(const hs_policy_ctx_t *ctx);
/* A remark on the last successful solve worth telling the user (e.g.
 * "the SLOs cannot all be met; solved without SLO constraints"), or "". */
const char *hs_policy_ctx_note(const hs_policy_ctx_t *ctx);

/* Solves the problem; out must be uninitialized and is initialized here
 * (hs_alloc_free it afterwards, also on failure). Validates the problem
 * first. Jobs are matched to earlier rounds by id, not by index. */
int hs_policy_solve(hs_policy_ctx_t *ctx, const hs_problem_t *p, hs_alloc_t *out, hs_err_t *err);

#endif /* HS_CORE_POLICY_H */
