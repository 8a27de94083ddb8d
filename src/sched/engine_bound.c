/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_bound.c — the engine's side of sched/bound.h: each job's bound
 * inputs (its kind's confident learned rates, the ratios between types
 * the tables and its learning scope have shown) and the log line when a
 * bound applies to a job. */
#include "sched/engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* Learned cells with at least HS_LEARN_CONFIDENT samples: learn.c's
 * confidence n / (n + 2) at that n. */
#define CONF_MIN ((double)HS_LEARN_CONFIDENT / (HS_LEARN_CONFIDENT + 2.0))

int hs_bound_round_init(const hs_engine_t *e, hs_round_build_t *b)
{
	const int J = b->problem.cluster.ntypes;
	free(b->tab_maxr);
	free(b->tab_col);
	b->tab_maxr = calloc((size_t)J * (size_t)J + 1, sizeof(double));
	b->tab_col = malloc(((size_t)e->tables.n * (size_t)J + 1) * sizeof(int));
	if (!b->tab_maxr || !b->tab_col)
		return -1;
	/* the tables' columns by name once a round, not per job and type */
	for (int t = 0; t < e->tables.n; t++)
		for (int j = 0; j < J; j++)
			b->tab_col[t * J + j] =
				hs_thrtable_type_index(&e->tables.t[t], b->problem.cluster.names[j]);
	/* once per round: every row of every table, not per job */
	hs_bound_table_ratios(e->tables.t, e->tables.n,
			      (const char *const *)b->problem.cluster.names, J, b->tab_maxr);
	return 0;
}

void hs_bound_job_in(hs_engine_t *e, const hs_round_build_t *b, int mix, const hs_sjob_t *sj,
		     const char *model, char *lkind, int measured, const double *lrate,
		     const unsigned char *linf, const double *lconf, double *kind, double *maxr,
		     hs_bound_in_t *bi)
{
	const int J = b->problem.cluster.ntypes;
	memcpy(maxr, b->tab_maxr, (size_t)J * (size_t)J * sizeof(double));
	*bi = (hs_bound_in_t){ .ntypes = J, .maxr = maxr,
			       .table_factor = e->conf.rate_table_factor,
			       .ratio_tol = e->conf.rate_ratio_tol,
			       .ratio_max = e->conf.rate_ratio_max };
	if (!e->conf.learning || !lrate)
		return;
	int learned = 0;
	for (int j = 0; j < J; j++) {
		kind[j] = !linf[j] && lconf[j] >= CONF_MIN - 1e-12 ? lrate[j] : 0;
		learned |= lrate[j] > 0;
	}
	bi->kind = kind;
	bi->kind_factor = HS_LEARN_OUTLIER;
	/* a job that reported nothing and has nothing learned has table or
	 * agnostic estimates only, which the tables' ratios and the ceiling
	 * bound: the scope's ratios (a speedup-cache lookup per job, a
	 * miss when users alternate) are not needed for it */
	if (!measured && !learned)
		return;
	hs_learn_job_kind(e, sj, model, lkind);
	/* only the job's own scope: LearnScope decides whose reports may
	 * widen another user's bound */
	if (mix >= 0)
		hs_lmemo_ratios(b->lmemo, mix, &e->learn, lkind, sj->gpus,
				(const char *const *)b->problem.cluster.names, maxr);
	else
		hs_learn_max_ratios(&e->learn, lkind, sj->gpus,
				    (const char *const *)b->problem.cluster.names, J, maxr);
}

void hs_bound_note(hs_engine_t *e, uint32_t id, unsigned prev, unsigned now)
{
	if (!(now & ~prev))
		return; /* logged when a bound starts to apply, not every round */
	char names[64];
	hs_bound_names(now, names, sizeof(names));
	hs_engine_logf(e, HS_LOG_INFO,
		       "job %u: its reported throughput or remaining work is bounded (%s)", id,
		       names);
}
