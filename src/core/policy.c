/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.c — the policy registry (the one table of policy names) and the
 * generic part of a solve: validation, the capacity vector, optional
 * POP-style partitioning, and cleaning the result (see policy.h). */
#include "core/policy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The one table of policies and their properties. aware (see
 * hs_policy_is_aware): the allocation depends on the types' throughputs,
 * as in Gavel's "_Perf" and "_Packing" policies and AlloX ("AlloX_Perf").
 * Not aware: isolated, FIFO and the plain LAS/FTF/makespan/water-filling
 * LPs, and gandiva, whose time shares ignore the types (it looks at
 * throughputs only to drop bad pairs): the Gavel paper's heterogeneity-
 * agnostic "LAS w/ Gandiva SS" baseline. scale_free: see
 * hs_policy_is_scale_free (policy.h). */
static const hs_policy_desc_t registry[] = {
	{ .name = "isolated", .scale_free = 1, .solve = hs_policy_isolated_solve },
	{ .name = "fifo", .scale_free = 1, .solve = hs_policy_fifo_solve, .no_backfill = 1, .variant = 0,
	  .state_free = hs_typemem_free },
	{ .name = "fifo_perf", .scale_free = 1, .solve = hs_policy_fifo_solve, .aware = 1, .no_backfill = 1,
	  .variant = 1, .state_free = hs_typemem_free },
	{ .name = "fifo_packed", .scale_free = 1, .solve = hs_policy_fifo_solve, .aware = 1, .packed = 1,
	  .no_backfill = 1, .variant = 2, .state_free = hs_typemem_free },
	{ .name = "gandiva", .scale_free = 1, .solve = hs_policy_gandiva_solve, .packed = 1,
	  .state_free = hs_policy_gandiva_state_free },
	{ .name = "allox", .solve = hs_policy_allox_solve, .aware = 1,
	  .state_free = hs_typemem_free },
	{ .name = "max_min_fairness", .scale_free = 1, .solve = hs_policy_maxmin_solve, .lp = 1,
	  .evaluate = hs_maxmin_evaluate },
	{ .name = "max_min_fairness_perf", .scale_free = 1, .solve = hs_policy_maxmin_solve, .aware = 1, .lp = 1,
	  .evaluate = hs_maxmin_evaluate },
	{ .name = "max_min_fairness_packed", .scale_free = 1, .solve = hs_policy_packed_solve, .aware = 1, .packed = 1,
	  .lp = 1, .variant = 0, .evaluate = hs_packed_evaluate },
	{ .name = "max_min_fairness_water_filling", .scale_free = 1, .solve = hs_policy_waterfill_solve },
	{ .name = "max_min_fairness_water_filling_perf", .scale_free = 1, .solve = hs_policy_waterfill_solve,
	  .aware = 1 },
	{ .name = "finish_time_fairness", .solve = hs_policy_ftf_solve, .lp = 1,
	  .evaluate = hs_ftf_evaluate },
	{ .name = "finish_time_fairness_perf", .solve = hs_policy_ftf_solve, .aware = 1, .lp = 1,
	  .evaluate = hs_ftf_evaluate },
	{ .name = "finish_time_fairness_packed", .solve = hs_policy_packed_solve, .aware = 1,
	  .packed = 1, .lp = 1, .variant = 1, .evaluate = hs_packed_evaluate },
	{ .name = "min_total_duration", .scale_free = 1, .solve = hs_policy_makespan_solve, .lp = 1,
	  .evaluate = hs_makespan_evaluate },
	{ .name = "min_total_duration_perf", .solve = hs_policy_makespan_solve, .aware = 1, .lp = 1,
	  .evaluate = hs_makespan_evaluate },
	{ .name = "min_total_duration_packed", .solve = hs_policy_packed_solve, .aware = 1,
	  .packed = 1, .lp = 1, .variant = 2, .evaluate = hs_packed_evaluate },
	{ .name = "max_sum_throughput_perf", .solve = hs_policy_throughput_solve, .aware = 1, .lp = 1,
	  .variant = 0, .evaluate = hs_throughput_value },
	{ .name = "min_cost", .solve = hs_policy_throughput_solve, .aware = 1, .lp = 1,
	  .variant = 1, .evaluate = hs_throughput_value },
	{ .name = "min_cost_slo", .solve = hs_policy_throughput_solve, .aware = 1, .lp = 1,
	  .variant = 2, .evaluate = hs_throughput_value },
};
#define NPOLICIES ((int)(sizeof(registry) / sizeof(registry[0])))

static const hs_policy_desc_t *find(const char *name)
{
	if (!name)
		return NULL;
	for (int i = 0; i < NPOLICIES; i++)
		if (!strcmp(registry[i].name, name))
			return &registry[i];
	return NULL;
}

int hs_policy_count(void)
{
	return NPOLICIES;
}

const char *hs_policy_name(int i)
{
	return i >= 0 && i < NPOLICIES ? registry[i].name : NULL;
}

int hs_policy_exists(const char *name)
{
	return find(name) != NULL;
}

int hs_policy_is_packed(const char *name)
{
	const hs_policy_desc_t *d = find(name);
	return d && d->packed;
}

int hs_policy_is_lp(const char *name)
{
	const hs_policy_desc_t *d = find(name);
	return d && d->lp;
}

int hs_policy_is_aware(const char *name)
{
	const hs_policy_desc_t *d = find(name);
	return d && d->aware;
}

int hs_policy_is_scale_free(const char *name)
{
	const hs_policy_desc_t *d = find(name);
	return d && d->scale_free;
}

int hs_policy_backfills(const char *name)
{
	const hs_policy_desc_t *d = find(name);
	return d && !d->no_backfill;
}

void hs_policy_opts_default(hs_policy_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->pack_threshold = 1.5;
	o->pop_partitions = 1;
	o->time_limit_s = 0.0;
	o->verbose = 0;
}

hs_policy_ctx_t *hs_policy_ctx_new(const char *name, const hs_policy_opts_t *o, hs_err_t *err)
{
	const hs_policy_desc_t *d = find(name);
	if (!d) {
		hs_err_set(err, "unknown policy '%s' (see 'hetsched solve --list')", name ? name : "");
		return NULL;
	}
	hs_policy_opts_t def;
	if (!o) {
		hs_policy_opts_default(&def);
		o = &def;
	}
	if (!isfinite(o->pack_threshold) || o->pack_threshold < 0.0) {
		hs_err_set(err, "pack threshold must be a number >= 0");
		return NULL;
	}
	if (!isfinite(o->time_limit_s) || o->time_limit_s < 0.0) {
		hs_err_set(err, "time limit must be >= 0 seconds");
		return NULL;
	}
	if (o->pop_partitions > 1 && !d->lp) {
		hs_err_set(err, "policy '%s' is not an LP: POP partitioning does not apply", d->name);
		return NULL;
	}
	hs_policy_ctx_t *ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	ctx->desc = d;
	ctx->opts = *o;
	ctx->rng = o->seed;
	hs_lp_opts_default(&ctx->lp_opts);
	/* SolverTimeLimit is per policy solve: every LP of one solve draws
	 * on one deadline (set in hs_policy_solve), not a fresh limit each */
	ctx->lp_opts.time_limit_s = 0.0;
	ctx->budget.limit_s = o->time_limit_s;
	ctx->budget.clock = o->clock;
	ctx->budget.clock_arg = o->clock_arg;
	ctx->lp_opts.budget = o->time_limit_s > 0.0 ? &ctx->budget : NULL;
	ctx->lp_opts.verbose = o->verbose;
	return ctx;
}

void hs_policy_ctx_free(hs_policy_ctx_t *ctx)
{
	if (!ctx)
		return;
	if (ctx->state && ctx->desc->state_free)
		ctx->desc->state_free(ctx->state);
	free(ctx);
}

const char *hs_policy_ctx_name(const hs_policy_ctx_t *ctx)
{
	return ctx->desc->name;
}

const char *hs_policy_ctx_note(const hs_policy_ctx_t *ctx)
{
	return ctx->note;
}

/* ---- POP partitioning ---------------------------------------------------- */

/* POP (Narayanan et al., SOSP 2021): split the jobs into k random groups
 * and give each group 1/k of every accelerator type, solve the k small
 * LPs independently and put the rows back together. The result is always
 * feasible (each sub-problem respects its share of the capacity) and close
 * to optimal when the groups are large and alike; a job whose scale factor
 * exceeds its group's share of every type it can use gets nothing, so use
 * it only with many jobs per partition. The objective is re-evaluated on
 * the whole allocation with the family's evaluate function. */
static int pop_solve(hs_policy_ctx_t *ctx, const hs_problem_t *p, const double *cap,
		     hs_alloc_t *out, hs_err_t *err)
{
	const int M = p->njobs, J = p->cluster.ntypes;
	int k = ctx->opts.pop_partitions;
	if (k > M)
		k = M > 0 ? M : 1;
	int *perm = malloc(((size_t)M + 1) * sizeof(*perm));
	hs_job_t *sub_jobs = malloc(((size_t)M + 1) * sizeof(*sub_jobs));
	double *sub_cap = malloc(((size_t)J + 1) * sizeof(*sub_cap));
	if (!perm || !sub_jobs || !sub_cap) {
		free(perm);
		free(sub_jobs);
		free(sub_cap);
		return hs_err_set(err, "out of memory");
	}
	for (int m = 0; m < M; m++)
		perm[m] = m;
	for (int m = M - 1; m > 0; m--) { /* Fisher-Yates with the ctx's generator */
		int r = (int)(hs_rng64_next(&ctx->rng) % (unsigned long long)(m + 1));
		int t = perm[m];
		perm[m] = perm[r];
		perm[r] = t;
	}
	for (int j = 0; j < J; j++)
		sub_cap[j] = cap[j] / k;
	int rc = 0;
	for (int part = 0; part < k && rc == 0; part++) {
		/* group part = positions part, part + k, ... of the permutation */
		int n = 0;
		for (int i = part; i < M; i += k)
			sub_jobs[n++] = p->jobs[perm[i]];
		hs_problem_t sub = *p;
		sub.njobs = n;
		sub.jobs = sub_jobs;
		hs_solve_in_t in = { &sub, sub_cap };
		hs_alloc_t sa;
		if (hs_alloc_init(&sa, n, J, err) < 0) {
			rc = -1;
			break;
		}
		rc = ctx->desc->solve(ctx, &in, &sa, err);
		if (rc == 0) {
			int *map = malloc(((size_t)n + 1) * sizeof(*map));
			if (!map) {
				rc = hs_err_set(err, "out of memory");
			} else {
				for (int i = part, s = 0; i < M; i += k, s++)
					map[s] = perm[i];
				for (int s = 0; s < n; s++)
					memcpy(&out->x[(size_t)map[s] * J], &sa.x[(size_t)s * J],
					       (size_t)J * sizeof(double));
				for (int i = 0; i < sa.npairs && rc == 0; i++) {
					int idx = hs_alloc_add_pair(out, map[sa.pairs[i].m], map[sa.pairs[i].k], err);
					if (idx < 0)
						rc = -1;
					else
						memcpy(out->pairs[idx].x, sa.pairs[i].x, (size_t)J * sizeof(double));
				}
				free(map);
			}
		}
		hs_alloc_free(&sa);
	}
	free(perm);
	free(sub_jobs);
	free(sub_cap);
	return rc;
}

int hs_policy_solve(hs_policy_ctx_t *ctx, const hs_problem_t *p, hs_alloc_t *out, hs_err_t *err)
{
	memset(out, 0, sizeof(*out));
	if (!ctx || !p)
		return hs_err_set(err, "no policy context or problem");
	if (hs_problem_validate(p, err) < 0)
		return -1;
	const int J = p->cluster.ntypes;
	if (hs_alloc_init(out, p->njobs, J, err) < 0)
		return -1;
	double *cap = malloc(((size_t)J + 1) * sizeof(*cap));
	if (!cap)
		return hs_err_set(err, "out of memory");
	for (int j = 0; j < J; j++)
		cap[j] = p->cluster.count[j];
	hs_solve_in_t in = { p, cap };
	int rc;
	if (ctx->lp_opts.budget)
		ctx->budget.deadline =
			(ctx->budget.clock ? ctx->budget.clock : hs_clock_monotonic)(ctx->budget.clock_arg) +
			ctx->budget.limit_s;
	unsigned long gen = hs_lp_generation();
	ctx->last_iterations = 0;
	ctx->last_lp_solves = 0;
	ctx->last_warm_start = 0;
	ctx->last_wf_chained = 0;
	ctx->last_wf_checks = 0;
	ctx->last_wf_checks_given_up = 0;
	ctx->last_wf_closed = 0;
	ctx->last_lp_items = 0;
	ctx->last_items = 0;
	ctx->note[0] = '\0';
	if (ctx->opts.pop_partitions > 1 && ctx->desc->lp && p->njobs > 1) {
		rc = pop_solve(ctx, p, cap, out, err);
		if (rc == 0 && ctx->desc->evaluate)
			out->objective = ctx->desc->evaluate(ctx, &in, out);
	} else {
		rc = ctx->desc->solve(ctx, &in, out, err);
	}
	if (hs_lp_generation() != gen && ctx->state && ctx->desc->state_free) {
		/* a GLPK internal error discarded every LP of the thread,
		 * also those kept in the family's state: start afresh */
		ctx->desc->state_free(ctx->state);
		ctx->state = NULL;
	}
	if (rc == 0)
		rc = hs_alloc_clean(out, p, cap, err);
	free(cap);
	return rc;
}
