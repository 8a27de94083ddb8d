/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_classlp.c — the allocation LP over job classes, built the same
 * way by the non-packed LP families (max-min fairness, makespan,
 * finish-time fairness, throughput and cost): interchangeable jobs form a
 * class (exact, see policy_maxmin.c), each class is one item of the LP
 * (alloc_lp.h) with its size as multiplicity and its scale factor, and
 * after the solve every job gets its class's row. The families fill the
 * coefficients and choose what to solve in between. */
#include "core/policy_impl.h"

#include <string.h>

int hs_alp_init_classes(hs_alp_t *alp, const hs_classes_t *cl, const hs_problem_t *p,
			const double *cap, const hs_policy_ctx_t *ctx, hs_alp_mode_t mode,
			hs_err_t *err)
{
	const int J = p->cluster.ntypes;
	if (hs_alp_init(alp, cl->n, J, mode, err) < 0)
		return -1;
	memcpy(alp->cap, cap, (size_t)J * sizeof(double));
	alp->seed = ctx->opts.seed;
	alp->active_min = ctx->active_min_items;
	for (int c = 0; c < cl->n; c++) {
		alp->mult[c] = cl->size[c];
		alp->scale[c] = p->jobs[cl->rep[c]].scale_factor;
	}
	return 0;
}

int hs_class_lp_init(hs_class_lp_t *s, hs_policy_ctx_t *ctx, const hs_solve_in_t *in, int flags,
		     hs_alp_mode_t mode, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	memset(s, 0, sizeof(*s));
	if (hs_job_classes(&s->cl, p, in->cap, ctx->no_classes ? HS_CK_DISTINCT : flags, err) < 0)
		return -1;
	if (hs_alp_init_classes(&s->alp, &s->cl, p, in->cap, ctx, mode, err) < 0) {
		hs_class_lp_free(s);
		return -1;
	}
	s->alp.active_set = !ctx->no_active_set;
	return 0;
}

int hs_class_lp_finish(hs_class_lp_t *s, hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
		       hs_lp_status_t st, const double *xc, const char *what, hs_alloc_t *out,
		       hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes;
	if (st == HS_LP_INFEASIBLE || st == HS_LP_UNBOUNDED)
		return hs_err_set(err, "%s LP is %s (internal error)", what,
				  st == HS_LP_INFEASIBLE ? "infeasible" : "unbounded");
	if (st != HS_LP_OPTIMAL)
		return -1; /* the solver's message is in err */
	hs_policy_note_lp(ctx, &s->alp);
	for (int m = 0; m < p->njobs; m++)
		memcpy(&out->x[(size_t)m * J], &xc[(size_t)s->cl.class_of[m] * J],
		       (size_t)J * sizeof(double));
	return hs_alloc_clean(out, p, in->cap, err);
}

void hs_class_lp_free(hs_class_lp_t *s)
{
	hs_alp_free(&s->alp);
	hs_classes_free(&s->cl);
}
