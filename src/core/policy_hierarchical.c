/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_hierarchical.c — water-filling max-min fairness and hierarchical
 * policies: max_min_fairness_water_filling (agnostic) and
 * max_min_fairness_water_filling_perf (aware). Without entities every job
 * is its own entity with its own weight (plain water filling); with
 * entities (Slurm associations: accounts, sub-accounts, users, as a
 * forest, model.h) the policy is hierarchical, Fair Tree-like.
 *
 * Plain max-min fairness stops at the first level: once the worst-off jobs
 * are as well off as they can be, the LP leaves everyone else wherever its
 * vertex happens to be. Water filling keeps going (doc/policies.md):
 *
 *   repeat
 *     LP1: maximize z s.t. r_m(X) >= z w'_m for unfrozen jobs (w'_m > 0),
 *          r_m(X) >= level_m for frozen ones, the base constraints
 *          (r_m = s_m thr_m / T^eq_m, the normalized throughput; agnostic:
 *          s_m times the job's time share)
 *     find the unfrozen jobs that cannot do better than z* w'_m without
 *     hurting someone at or below their level, freeze them at z* w'_m
 *   until every job is frozen
 *
 * Hierarchical weights w'_m, recomputed every round over the unfrozen
 * jobs, level by level (fairtree.c): a top-level entity with unfrozen jobs
 * below it gets its Shares (weight), a job without entity its own weight;
 * an entity passes its weight on to its children that still have
 * unfrozen jobs, in proportion to their Shares; a leaf (user) in
 * 'fairness' mode splits its weight among its unfrozen jobs in proportion
 * to their weights, in 'fifo' mode gives it to its oldest unfrozen job
 * (ties: smallest id) while its other jobs wait (w' = 0: no demand yet).
 * So a user's share does not grow with its number of jobs, and an
 * account's does not grow with its number of users. Only ratios matter:
 * multiplying every w' by one factor divides z* by it and leaves every
 * level z* w'_m as it was, so the top level is not normalized (with one
 * level and no parents this is exactly the weighting of before).
 *
 * Jobs with the same throughput row (agnostic: usable types), scale
 * factor, weight and entity are solved as one class (exact, as for
 * max-min fairness); jobs of fifo entities stay distinct.
 *
 * Two methods: the full-LP method (policy_wf_full.c: LP2/LP3 certificates,
 * the reference, --baseline) and the default, below: LP1 on the
 * allocation LP (alloc_lp.c, exact active set) with freezing by duals,
 * probe rounds when entities change the weights, and saturation chains
 * (policy_wf_chain.c) that settle a run of rounds each bounded by one job
 * reaching its maximum with a few check LPs.
 *
 * The objective reported is the first level z*, the max-min value of
 * r_m / w'_m (with no entities: the max_min_fairness objective).
 */
#include "core/policy_wf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int entity_mode(const hs_problem_t *p, int m)
{
	int e = p->jobs[m].entity;
	return e >= 0 ? (int)p->entities.mode[e] : -1;
}

/* Classes: as for max-min fairness, plus the entity; jobs of fifo
 * entities get classes of their own (their age orders them). */
typedef struct wk {
	const hs_problem_t *p;
	const double *cap;
	int aware;
} wk_t;

static unsigned long long wf_hash(const void *v, int m)
{
	const wk_t *k = v;
	const hs_job_t *jb = &k->p->jobs[m];
	if (entity_mode(k->p, m) == HS_ENTITY_FIFO)
		return hs_hash_mix(1, (unsigned long long)m);
	unsigned long long h = hs_hash_mix(0, (unsigned long long)jb->scale_factor);
	h = hs_hash_double(h, jb->weight);
	h = hs_hash_mix(h, (unsigned long long)(jb->entity + 1));
	for (int j = 0; j < k->p->cluster.ntypes; j++)
		h = k->aware ? hs_hash_double(h, jb->thr[j])
			     : hs_hash_mix(h, (unsigned long long)hs_job_usable(k->p, k->cap, m, j));
	return h;
}

static int wf_eq(const void *v, int m, int n)
{
	const wk_t *k = v;
	const hs_job_t *a = &k->p->jobs[m], *b = &k->p->jobs[n];
	if (m == n)
		return 1;
	if (entity_mode(k->p, m) == HS_ENTITY_FIFO || entity_mode(k->p, n) == HS_ENTITY_FIFO)
		return 0;
	if (a->scale_factor != b->scale_factor || a->weight != b->weight || a->entity != b->entity)
		return 0;
	for (int j = 0; j < k->p->cluster.ntypes; j++)
		if (k->aware ? a->thr[j] != b->thr[j]
			     : hs_job_usable(k->p, k->cap, m, j) != hs_job_usable(k->p, k->cap, n, j))
			return 0;
	return 1;
}

/* Marks frozen[c] = 2 for the unfrozen active classes whose demand row
 * has a dual share w'_c y_c above the tolerance (the shares sum to 1 over
 * the unfrozen classes: the z column's dual constraint); when solver noise
 * leaves none above it, the largest share. Returns how many. */
static int freeze_by_dual(hs_wf_t *s, const double *y)
{
	int n = 0, best = -1;
	double bestv = 0.0;
	for (int c = 0; c < s->C; c++) {
		if (s->frozen[c] || s->w[c] <= 0.0)
			continue;
		double share = s->w[c] * y[c];
		if (share > 1e-9) {
			s->frozen[c] = 2;
			n++;
		}
		if (share > bestv) {
			bestv = share;
			best = c;
		}
	}
	if (n == 0 && best >= 0) {
		s->frozen[best] = 2;
		n = 1;
	}
	return n;
}

/* State of the fast method across its rounds. */
typedef struct wf_run {
	long it_seen;             /* alp's counters already added to ctx */
	int solves_seen;
	int saturated;            /* the last freezing round froze a class at rmax */
	int have_z;
	double first_z;           /* the first round's level (the objective) */
	hs_wf_chain_stats_t cs;
} wf_run_t;

/* New weights for the next LP1; after a round that froze a class using
 * all its time, first the chain of saturation rounds that may follow it
 * (policy_wf_chain.c), bounded by what each class reaches on the types
 * still open to it (policy_wf_closed.c). Returns the number of classes
 * with demand (0: every class is frozen or waits), -1 on error. */
static int next_weights(hs_wf_t *s, hs_alp_t *alp, hs_policy_ctx_t *ctx, wf_run_t *r, double *xbest,
			hs_err_t *err)
{
	int active = hs_wf_set_weights(s);
	if (active == 0 || !r->saturated || ctx->no_wf_chains)
		return active;
	int closed = hs_wf_closed_types(s, alp->price, err);
	if (closed < 0)
		return -1;
	ctx->last_wf_closed += closed > 0;
	/* no unfrozen class can use a closed type, in any allocation that
	 * meets the frozen levels, now or after more freezing: its columns
	 * there go (smaller LPs, and alloc_lp's folding is not misled by
	 * prices of types it cannot have) */
	for (int c = 0; closed && c < s->C; c++) {
		if (s->frozen[c])
			continue;
		for (int j = 0; j < s->J; j++)
			if (!s->open[j])
				s->a[(size_t)c * s->J + j] = alp->a[(size_t)c * s->J + j] = 0.0;
		s->rmax[c] = s->rmaxo[c];
	}
	double z0 = 0.0;
	int n = hs_wf_chain(s, alp, ctx, &r->it_seen, &r->solves_seen, &r->cs, xbest, &z0, err);
	if (n <= 0)
		return n < 0 ? -1 : active;
	if (!r->have_z) {
		r->first_z = z0;
		r->have_z = 1;
	}
	return hs_wf_set_weights(s);
}

/* Freezes the classes marked 2 at z w'; notes whether one of them uses
 * all its time in x (the round was bounded by a job's own time, on the
 * types open to it, and the next ones may be too). Returns how many
 * classes are frozen. */
static int freeze_marked(hs_wf_t *s, wf_run_t *r, double z, const double *x)
{
	int nfrozen = 0;
	r->saturated = 0;
	for (int c = 0; c < s->C; c++) {
		if (s->frozen[c] == 2) {
			s->frozen[c] = 1;
			s->level[c] = hs_wf_level(s, c, z);
			double t = 0.0;
			for (int j = 0; j < s->J; j++)
				t += x[(size_t)c * s->J + j];
			r->saturated |= t >= 1.0 - 1e-6;
		}
		nfrozen += s->frozen[c] != 0;
	}
	return nfrozen;
}

/* Water filling on the allocation LP (alloc_lp.c, with its exact active
 * set): LP1 only. Every LP1 has an optimal dual solution whose shares
 * w'_c y_c over the unfrozen classes sum to 1, so at least one class has a
 * nonzero dual and, by complementary slackness, cannot rise above z* w'_c
 * while the others stay at or above theirs: it is frozen there. Classes
 * stuck at z* with a zero dual (degenerate LPs) are found by the next LP1,
 * whose z* is then the same. Frozen classes keep demand alpha 0, beta =
 * their level; the LP is re-solved from its basis with the folds kept.
 * The levels are the same as the full-LP method's (the water-filling
 * levels are unique); the allocation is one of the optimal ones. */
static int waterfill_alp(hs_wf_t *s, hs_policy_ctx_t *ctx, const hs_solve_in_t *in, double *xbest,
			 double *first_z, hs_err_t *err)
{
	const int C = s->C, J = s->J;
	hs_alp_t alp;
	if (hs_alp_init_classes(&alp, &s->cl, s->p, in->cap, ctx, HS_ALP_MAXMIN, err) < 0)
		return -1;
	memcpy(alp.a, s->a, (size_t)C * J * sizeof(double));
	/* the frozen classes fold at the last solution's allocation, which
	 * meets every level at once (xbest always holds the latest) */
	alp.hint = xbest;
	/* tens of alike LPs: half the default sample for their first prices
	 * was 25-50% faster overall (bench/fairtree.sh), as many LPs */
	alp.sample_items = 150;
	wf_run_t r = { 0 };
	int rc = -1, nfrozen = 0, reweight = 1;
	const int entities = s->p->entities.n > 0;
	double zlevel = 0.0;
	/* at most one probe round (no freezing) per freezing round */
	for (int round = 0; nfrozen < C && round <= 2 * C + 2; round++) {
		if (!reweight) { /* no class left with demand under the old weights: new ones */
			int left = 0;
			for (int c = 0; c < C; c++)
				left += !s->frozen[c] && s->w[c] > 0.0;
			reweight = left == 0;
		}
		if (reweight) {
			int active = next_weights(s, &alp, ctx, &r, xbest, err);
			if (active < 0)
				goto out;
			if (active == 0)
				break;
		}
		for (int c = 0; c < C; c++) {
			alp.alpha[c] = s->frozen[c] ? 0.0 : s->w[c];
			/* charged: r >= z w' - q (alloc_lp never folds an item
			 * with a negative beta) */
			alp.beta[c] = s->frozen[c] ? s->level[c] : s->q[c] > 0.0 ? -s->q[c] : 0.0;
		}
		/* fresh after new weights (many demands change), warm for the
		 * probe rounds (a few classes frozen) */
		hs_lp_status_t st = hs_wf_alp_run(&alp, ctx, reweight, &r.it_seen, &r.solves_seen, err);
		if (st != HS_LP_OPTIMAL) {
			if (st != HS_LP_FAILED)
				hs_err_set(err, "water-filling LP is %s (internal error)",
					   st == HS_LP_INFEASIBLE ? "infeasible" : "unbounded");
			goto out;
		}
		if (!r.have_z) {
			r.first_z = alp.z;
			r.have_z = 1;
		}
		memcpy(xbest, alp.x, (size_t)C * J * sizeof(double));
		/* Entities: w' changes once jobs freeze (an entity's share goes to
		 * its other jobs, a fifo entity's next job starts), so a class
		 * stuck at z* w' with a zero dual would not be found by an LP1
		 * with new weights, whose z* may be lower (test_policy's
		 * hierarchical_hand). The weights stay until an LP1 with the same
		 * ones shows z* rising above the level: then every class left can
		 * rise together, none is stuck, and the weights are recomputed. */
		if (entities && !reweight && alp.z > zlevel * (1.0 + 1e-7) + 1e-12) {
			reweight = 1;
			continue;
		}
		zlevel = alp.z;
		reweight = !entities;
		freeze_by_dual(s, alp.dual);
		nfrozen = freeze_marked(s, &r, alp.z, alp.x);
	}
	*first_z = r.first_z;
	ctx->last_lp_items = alp.lp_items;
	ctx->last_wf_chained = r.cs.frozen;
	ctx->last_wf_checks = r.cs.checks;
	ctx->last_wf_checks_given_up = r.cs.checks_given_up;
	rc = 0;
out:
	hs_alp_free(&alp);
	return rc;
}

static void wf_free(hs_wf_t *s)
{
	hs_classes_free(&s->cl);
	free(s->a);
	free(s->rs);
	free(s->w);
	free(s->level);
	free(s->frozen);
	free(s->rmax);
	free(s->rmaxo);
	free(s->open);
	hs_ftree_free(&s->tree);
	free(s->W);
	free(s->wsum);
	free(s->oldest);
	free(s->active);
	free(s->q);
	free(s->Q);
	free(s->col);
	hs_lp_free(s->lp);
}

/* The classes of in->p, their coefficients (s->a, s->rs) and rmax, the
 * entity forest. */
static int wf_init(hs_wf_t *s, const hs_policy_ctx_t *ctx, const hs_solve_in_t *in, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs, E = p->entities.n;
	const hs_policy_desc_t *d = ctx->desc;
	memset(s, 0, sizeof(*s));
	s->p = p;
	s->cap = in->cap;
	s->J = J;
	wk_t key = { p, in->cap, d->aware };
	if (ctx->no_classes ? hs_job_classes(&s->cl, p, in->cap, HS_CK_DISTINCT, err)
			    : hs_classes_build(&s->cl, M, wf_hash, wf_eq, &key, err))
		return -1;
	if (hs_ftree_init(&s->tree, &p->entities, err) < 0)
		return -1;
	const int C = s->C = s->cl.n;
	s->a = calloc((size_t)C * J + 1, sizeof(double));
	s->rs = calloc((size_t)C + 1, sizeof(double));
	s->w = calloc((size_t)C + 1, sizeof(double));
	s->level = calloc((size_t)C + 1, sizeof(double));
	s->frozen = calloc((size_t)C + 1, sizeof(int));
	s->rmax = calloc((size_t)C + 1, sizeof(double));
	s->rmaxo = calloc((size_t)C + 1, sizeof(double));
	s->open = calloc((size_t)J + 1, 1);
	s->col = calloc((size_t)C * J + 1, sizeof(int));
	s->W = calloc((size_t)E + 1, sizeof(double));
	s->wsum = calloc((size_t)E + 1, sizeof(double));
	s->oldest = calloc((size_t)E + 1, sizeof(int));
	s->active = calloc((size_t)E + 1, 1);
	s->q = calloc((size_t)C + 1, sizeof(double));
	s->Q = calloc((size_t)E + 1, sizeof(double));
	for (int e = 0; p->entities.held && e < E; e++)
		s->charged |= p->entities.held[e] > 0.0;
	if (!s->a || !s->rs || !s->w || !s->level || !s->frozen || !s->rmax || !s->rmaxo || !s->open ||
	    !s->col || !s->W || !s->wsum || !s->oldest || !s->active || !s->q || !s->Q)
		return hs_err_set(err, "out of memory");
	memset(s->open, 1, (size_t)J);
	for (int c = 0; c < C; c++) {
		int m = s->cl.rep[c];
		double mx = 0.0;
		for (int j = 0; j < J; j++) {
			/* max-min coefficient times the weight: r_m = sum_j a_mj x_mj */
			double v = hs_maxmin_coef(d, p, in->cap, m, j) * p->jobs[m].weight;
			s->a[(size_t)c * J + j] = v;
			mx = v > mx ? v : mx;
		}
		s->rs[c] = mx > 0.0 ? 1.0 / mx : 1.0;
		s->rmaxo[c] = s->rmax[c] = hs_wf_rmax(s, c, NULL);
		if (s->rmax[c] < 0.0)
			return hs_err_set(err, "out of memory");
	}
	return 0;
}

int hs_policy_waterfill_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			      hs_alloc_t *out, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs;
	if (M == 0) {
		out->objective = 0.0;
		return 0;
	}
	hs_wf_t s;
	int rc = -1;
	double *xbest = NULL;
	if (wf_init(&s, ctx, in, err) < 0)
		goto out;
	xbest = calloc((size_t)s.C * J + 1, sizeof(double));
	if (!xbest) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	if (!ctx->no_active_set) {
		double z0 = 0.0;
		if (waterfill_alp(&s, ctx, in, xbest, &z0, err) < 0)
			goto out;
		out->objective = z0;
	} else if (hs_wf_full(&s, ctx, xbest, out, err) < 0) {
		goto out;
	}
	for (int m = 0; m < M; m++)
		memcpy(&out->x[(size_t)m * J], &xbest[(size_t)s.cl.class_of[m] * J],
		       (size_t)J * sizeof(double));
	ctx->last_items = s.C;
	if (hs_alloc_clean(out, p, in->cap, err) < 0)
		goto out;
	rc = 0;
out:
	free(xbest);
	wf_free(&s);
	return rc;
}
