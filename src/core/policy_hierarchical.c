/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_hierarchical.c — water-filling max-min fairness and hierarchical
 * policies: max_min_fairness_water_filling (agnostic) and
 * max_min_fairness_water_filling_perf (aware). Without entities every job
 * is its own entity with its own weight (plain water filling); with
 * entities (Slurm accounts) the policy is hierarchical.
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
 * Finding them (Gavel uses a MILP): a job whose row has a nonzero dual in
 * LP1 is one (complementary slackness: its row is tight in every optimal
 * solution), which settles most rounds with no further LP. Otherwise LP2
 * maximizes sum_m n_m e_m with
 * r_m >= z* w'_m + e_m, 0 <= e_m <= delta over the unfrozen jobs; a job
 * with e_m > 0 can improve (a certificate). Every job with e_m = 0 is then
 * tested alone (LP3: maximize its e_m); if even that is ~0 it is a
 * bottleneck. The convex combination argument shows at least one job is
 * frozen per round. All three LPs are one GLPK problem whose bounds,
 * objective and z column change, re-solved from the previous basis.
 *
 * Hierarchical weights w'_m, recomputed every round over the unfrozen
 * jobs: a job without entity keeps its own weight; an entity of weight W
 * in 'fairness' mode splits W among its unfrozen jobs in proportion to
 * their weights; in 'fifo' mode W goes to its oldest unfrozen job (ties:
 * smallest id) and its other jobs wait (w' = 0: no demand yet).
 *
 * Jobs with the same throughput row (agnostic: usable types), scale
 * factor, weight and entity are solved as one class (exact, as for
 * max-min fairness); jobs of fifo entities stay distinct.
 *
 * The objective reported is the first level z*, the max-min value of
 * r_m / w'_m (with no entities: the max_min_fairness objective).
 */
#include "core/lp.h"
#include "core/policy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define IMPROVE_TOL 1e-6

typedef struct wf {
	const hs_problem_t *p;
	const double *cap;
	hs_classes_t cl;
	int C, J;
	double *a;        /* [C * J] normalized-throughput coefficients (no weight) */
	double *rs;       /* [C] row normalization */
	double *w;        /* [C] current w' per job of the class */
	double *level;    /* [C] frozen level (r units), valid when frozen */
	int *frozen;      /* [C] */
	int *col;         /* [C * J] x columns, -1 if unusable */
	hs_lp_t *lp;
	int zcol, ecol0, frow0, trow0, caprow0;
} wf_t;

static void wf_free(wf_t *s)
{
	hs_classes_free(&s->cl);
	free(s->a);
	free(s->rs);
	free(s->w);
	free(s->level);
	free(s->frozen);
	free(s->col);
	hs_lp_free(s->lp);
}

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

/* Older first; ties by id (deterministic). */
static int older(const hs_problem_t *p, int m, int n)
{
	if (p->jobs[m].age_s != p->jobs[n].age_s)
		return p->jobs[m].age_s > p->jobs[n].age_s;
	return strcmp(p->jobs[m].id, p->jobs[n].id) < 0;
}

/* w' of every unfrozen class for this round; returns how many have w' > 0. */
static int set_weights(wf_t *s)
{
	const hs_problem_t *p = s->p;
	const int E = p->entities.n;
	double *wsum = calloc((size_t)E + 1, sizeof(double));
	int *oldest = malloc(((size_t)E + 1) * sizeof(int));
	if (!wsum || !oldest) {
		free(wsum);
		free(oldest);
		return -1;
	}
	for (int e = 0; e < E; e++)
		oldest[e] = -1;
	for (int c = 0; c < s->C; c++) {
		if (s->frozen[c])
			continue;
		int m = s->cl.rep[c], e = p->jobs[m].entity;
		if (e < 0)
			continue;
		wsum[e] += s->cl.size[c] * p->jobs[m].weight;
		if (p->entities.mode[e] == HS_ENTITY_FIFO &&
		    (oldest[e] < 0 || older(p, m, s->cl.rep[oldest[e]])))
			oldest[e] = c;
	}
	int active = 0;
	for (int c = 0; c < s->C; c++) {
		s->w[c] = 0.0;
		if (s->frozen[c])
			continue;
		int m = s->cl.rep[c], e = p->jobs[m].entity;
		if (e < 0)
			s->w[c] = p->jobs[m].weight;
		else if (p->entities.mode[e] == HS_ENTITY_FIFO)
			s->w[c] = oldest[e] == c ? p->entities.weight[e] : 0.0;
		else
			s->w[c] = p->entities.weight[e] * p->jobs[m].weight / wsum[e];
		active += s->w[c] > 0.0;
	}
	free(wsum);
	free(oldest);
	return active;
}

static int build(wf_t *s, hs_err_t *err)
{
	const int C = s->C, J = s->J;
	s->lp = hs_lp_new(1, err);
	if (!s->lp)
		return -1;
	int ncols = 1 + C;
	for (int c = 0; c < C; c++)
		for (int j = 0; j < J; j++)
			s->col[(size_t)c * J + j] = s->a[(size_t)c * J + j] > 0.0 ? ncols++ : -1;
	s->zcol = 0;
	s->ecol0 = 1;
	s->frow0 = 0;
	s->trow0 = C;
	s->caprow0 = 2 * C;
	if (hs_lp_add_cols(s->lp, ncols, err) < 0 || hs_lp_add_rows(s->lp, 2 * C + J, err) < 0)
		return -1;
	for (int k = 1 + C; k < ncols; k++)
		if (hs_lp_set_col_bounds(s->lp, k, 0.0, 1.0, err) < 0)
			return -1;
	for (int c = 0; c < C; c++) {
		double ns = s->cl.size[c] * (double)s->p->jobs[s->cl.rep[c]].scale_factor;
		if (hs_lp_add_coef(s->lp, s->frow0 + c, s->ecol0 + c, -1.0, err) < 0 ||
		    hs_lp_set_row_bounds(s->lp, s->trow0 + c, -INFINITY, 1.0, err) < 0)
			return -1;
		for (int j = 0; j < J; j++) {
			int k = s->col[(size_t)c * J + j];
			if (k < 0)
				continue;
			if (hs_lp_add_coef(s->lp, s->frow0 + c, k, s->a[(size_t)c * J + j] * s->rs[c], err) < 0 ||
			    hs_lp_add_coef(s->lp, s->trow0 + c, k, 1.0, err) < 0 ||
			    hs_lp_add_coef(s->lp, s->caprow0 + j, k, ns, err) < 0)
				return -1;
		}
	}
	for (int j = 0; j < J; j++)
		if (hs_lp_set_row_bounds(s->lp, s->caprow0 + j, -INFINITY, s->cap[j], err) < 0)
			return -1;
	return 0;
}

/* Sets the fair rows for this round: unfrozen r_c - w'_c z - e_c >= 0,
 * frozen r_c - e_c >= level_c. */
static int set_round(wf_t *s, hs_err_t *err)
{
	int *rows = malloc(((size_t)s->C + 1) * sizeof(int));
	double *vals = malloc(((size_t)s->C + 1) * sizeof(double));
	if (!rows || !vals) {
		free(rows);
		free(vals);
		return hs_err_set(err, "out of memory");
	}
	for (int c = 0; c < s->C; c++) {
		rows[c] = s->frow0 + c;
		vals[c] = s->frozen[c] ? 0.0 : -s->w[c] * s->rs[c];
	}
	int rc = hs_lp_set_col_coefs(s->lp, s->zcol, s->C, rows, vals, err);
	free(rows);
	free(vals);
	for (int c = 0; c < s->C && rc == 0; c++)
		rc = hs_lp_set_row_bounds(s->lp, s->frow0 + c, s->frozen[c] ? s->level[c] * s->rs[c] : 0.0,
					  INFINITY, err);
	return rc;
}

/* Objective and bounds of the three LPs. which: 1 = max z; 2 = max sum
 * n_c e_c (e_c <= delta_c); 3 = max e_only. */
static int set_phase(wf_t *s, int which, double z, int only, hs_err_t *err)
{
	/* z is held a hair below z* so solver tolerances cannot make LP2/3
	 * infeasible */
	double zf = z * (1.0 - 1e-9);
	if (hs_lp_set_obj(s->lp, s->zcol, which == 1 ? 1.0 : 0.0, err) < 0 ||
	    hs_lp_set_col_bounds(s->lp, s->zcol, which == 1 ? 0.0 : zf, which == 1 ? INFINITY : zf, err) < 0)
		return -1;
	for (int c = 0; c < s->C; c++) {
		double ub = 0.0, obj = 0.0;
		if (which == 2 && !s->frozen[c] && s->w[c] > 0.0) {
			ub = (z > 0.0 ? 0.05 * z * s->w[c] : 1.0) * s->rs[c];
			obj = s->cl.size[c];
		} else if (which == 3 && c == only) {
			ub = INFINITY;
			obj = 1.0;
		}
		if (hs_lp_set_col_bounds(s->lp, s->ecol0 + c, 0.0, ub, err) < 0 ||
		    hs_lp_set_obj(s->lp, s->ecol0 + c, obj, err) < 0)
			return -1;
	}
	return 0;
}

static int solve_lp(wf_t *s, hs_policy_ctx_t *ctx, hs_err_t *err)
{
	long it0 = hs_lp_iterations(s->lp);
	hs_lp_status_t st = hs_lp_solve(s->lp, &ctx->lp_opts, err);
	ctx->last_iterations += hs_lp_iterations(s->lp) - it0;
	ctx->last_lp_solves++;
	if (st == HS_LP_OPTIMAL)
		return 0;
	if (st != HS_LP_FAILED)
		hs_err_set(err, "water-filling LP is %s (internal error)",
			   st == HS_LP_INFEASIBLE ? "infeasible" : "unbounded");
	return -1;
}

/* Marks frozen[c] = 2 for the unfrozen active classes whose demand row
 * has a dual share w'_c y_c above the tolerance (the shares sum to 1 over
 * the unfrozen classes: the z column's dual constraint); when solver noise
 * leaves none above it, the largest share. Returns how many. */
static int freeze_by_dual(wf_t *s, const double *y)
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
static int waterfill_alp(wf_t *s, hs_policy_ctx_t *ctx, const hs_solve_in_t *in, double *xbest,
			 double *first_z, hs_err_t *err)
{
	const int C = s->C, J = s->J;
	hs_alp_t alp;
	if (hs_alp_init_classes(&alp, &s->cl, s->p, in->cap, ctx, HS_ALP_MAXMIN, err) < 0)
		return -1;
	memcpy(alp.a, s->a, (size_t)C * J * sizeof(double));
	int rc = -1, nfrozen = 0, reweight = 1, solves_seen = 0;
	long it_seen = 0;
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
			int active = set_weights(s);
			if (active < 0) {
				hs_err_set(err, "out of memory");
				goto out;
			}
			if (active == 0)
				break;
		}
		for (int c = 0; c < C; c++) {
			alp.alpha[c] = s->frozen[c] ? 0.0 : s->w[c];
			alp.beta[c] = s->frozen[c] ? s->level[c] : 0.0;
		}
		hs_lp_status_t st = round == 0 ? hs_alp_solve(&alp, &ctx->lp_opts, err)
					       : hs_alp_resolve(&alp, &ctx->lp_opts, err);
		/* alp's counters add up over hs_alp_resolve calls (a fresh
		 * hs_alp_solve restarts them) */
		ctx->last_iterations += alp.iterations - (alp.iterations >= it_seen ? it_seen : 0);
		ctx->last_lp_solves += alp.lp_solves - (alp.lp_solves >= solves_seen ? solves_seen : 0);
		it_seen = alp.iterations;
		solves_seen = alp.lp_solves;
		if (st != HS_LP_OPTIMAL) {
			if (st != HS_LP_FAILED)
				hs_err_set(err, "water-filling LP is %s (internal error)",
					   st == HS_LP_INFEASIBLE ? "infeasible" : "unbounded");
			goto out;
		}
		if (round == 0)
			*first_z = alp.z;
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
		nfrozen = 0;
		for (int c = 0; c < C; c++) {
			if (s->frozen[c] == 2) {
				s->frozen[c] = 1;
				s->level[c] = alp.z * s->w[c];
			}
			nfrozen += s->frozen[c];
		}
	}
	ctx->last_lp_items = alp.lp_items;
	rc = 0;
out:
	hs_alp_free(&alp);
	return rc;
}

/* The classes of in->p and their coefficients (s->a, s->rs). */
static int wf_init(wf_t *s, const hs_policy_ctx_t *ctx, const hs_solve_in_t *in, hs_err_t *err)
{
	const hs_problem_t *p = in->p;
	const int J = p->cluster.ntypes, M = p->njobs;
	const hs_policy_desc_t *d = ctx->desc;
	memset(s, 0, sizeof(*s));
	s->p = p;
	s->cap = in->cap;
	s->J = J;
	wk_t key = { p, in->cap, d->aware };
	if (ctx->no_classes ? hs_job_classes(&s->cl, p, in->cap, HS_CK_DISTINCT, err)
			    : hs_classes_build(&s->cl, M, wf_hash, wf_eq, &key, err))
		return -1;
	const int C = s->C = s->cl.n;
	s->a = calloc((size_t)C * J + 1, sizeof(double));
	s->rs = calloc((size_t)C + 1, sizeof(double));
	s->w = calloc((size_t)C + 1, sizeof(double));
	s->level = calloc((size_t)C + 1, sizeof(double));
	s->frozen = calloc((size_t)C + 1, sizeof(int));
	s->col = calloc((size_t)C * J + 1, sizeof(int));
	if (!s->a || !s->rs || !s->w || !s->level || !s->frozen || !s->col)
		return hs_err_set(err, "out of memory");
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
	}
	return 0;
}

/* Freezes class c at level z w'_c. */
static void freeze(wf_t *s, int c, double z)
{
	s->frozen[c] = 1;
	s->level[c] = z * s->w[c];
}

/* Jobs whose fair row has a nonzero dual in LP1 are bottlenecks without
 * further test: by complementary slackness that row is tight in every
 * optimal solution, i.e. the job cannot rise above z* w' while everyone
 * else stays at or above theirs. Freezes them; returns how many. */
static int freeze_by_duals(wf_t *s, double z)
{
	int dual_froze = 0;
	for (int c = 0; c < s->C; c++) {
		if (s->frozen[c] || s->w[c] <= 0.0)
			continue;
		if (fabs(hs_lp_row_dual(s->lp, s->frow0 + c)) > 1e-9) {
			s->frozen[c] = 2; /* frozen this round, level set below */
			dual_froze++;
		}
	}
	for (int c = 0; c < s->C; c++)
		if (s->frozen[c] == 2)
			freeze(s, c, z);
	return dual_froze;
}

/* Is gain e of class c no improvement at level z? */
static int stuck(const wf_t *s, int c, double z, double e)
{
	return e <= IMPROVE_TOL * (z * s->w[c] > 1e-9 ? z * s->w[c] : 1e-9);
}

/* The unfrozen classes LP1's duals did not settle (dual_froze of them
 * were): LP2 finds who can improve together, LP3 tests each of the
 * others alone; those that cannot improve are frozen at z w'. At least
 * one class is frozen per round. */
static int freeze_by_lp(wf_t *s, hs_policy_ctx_t *ctx, double z, int dual_froze, hs_err_t *err)
{
	const int C = s->C;
	if (dual_froze > 0 && set_round(s, err) < 0)
		return -1;
	/* LP2: who can improve together */
	if (set_phase(s, 2, z, -1, err) < 0 || solve_lp(s, ctx, err) < 0)
		return -1;
	int *cand = malloc(((size_t)C + 1) * sizeof(int));
	double *gain = malloc(((size_t)C + 1) * sizeof(double));
	int rc = -1, nc = 0, froze = 0, best = -1;
	if (!cand || !gain) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	for (int c = 0; c < C; c++)
		if (!s->frozen[c] && s->w[c] > 0.0 &&
		    stuck(s, c, z, hs_lp_col_value(s->lp, s->ecol0 + c) / s->rs[c]))
			cand[nc++] = c;
	/* LP3 per candidate: can it improve alone? */
	double bestgain = INFINITY;
	for (int k = 0; k < nc; k++) {
		int c = cand[k];
		if (set_phase(s, 3, z, c, err) < 0 || solve_lp(s, ctx, err) < 0)
			goto out;
		gain[k] = hs_lp_col_value(s->lp, s->ecol0 + c) / s->rs[c];
		if (gain[k] < bestgain) {
			bestgain = gain[k];
			best = k;
		}
	}
	for (int k = 0; k < nc; k++)
		if (stuck(s, cand[k], z, gain[k])) {
			freeze(s, cand[k], z);
			froze++;
		}
	froze += dual_froze;
	if (froze == 0 && best >= 0) {
		/* numerically no one is stuck: freeze the one closest to it */
		freeze(s, cand[best], z);
		froze = 1;
	}
	if (froze == 0) {
		/* every unfrozen job can improve together: impossible at an
		 * optimal z; freeze the active ones to end safely */
		for (int c = 0; c < C; c++)
			if (!s->frozen[c] && s->w[c] > 0.0)
				freeze(s, c, z);
	}
	rc = 0;
out:
	free(cand);
	free(gain);
	return rc;
}

/* One round of the full LP: LP1 (its level in *z, its solution in
 * xbest [C * J]), then the classes it settles are frozen. 1 = no class
 * is active any more (done), -1 = error. */
static int full_round(wf_t *s, hs_policy_ctx_t *ctx, double *xbest, double *z, hs_err_t *err)
{
	const int C = s->C, J = s->J;
	int active = set_weights(s);
	if (active < 0)
		return hs_err_set(err, "out of memory");
	if (active == 0)
		return 1;
	if (set_round(s, err) < 0 || set_phase(s, 1, 0.0, -1, err) < 0 || solve_lp(s, ctx, err) < 0)
		return -1;
	*z = hs_lp_col_value(s->lp, s->zcol);
	for (int c = 0; c < C; c++)
		for (int j = 0; j < J; j++) {
			int k = s->col[(size_t)c * J + j];
			xbest[(size_t)c * J + j] = k < 0 ? 0.0 : hs_lp_col_value(s->lp, k);
		}
	int dual_froze = freeze_by_duals(s, *z);
	/* the others may be stuck at this level too: LP2/LP3 decide */
	int left = 0;
	for (int c = 0; c < C; c++)
		left += !s->frozen[c] && s->w[c] > 0.0;
	if (left == 0)
		return 0;
	return freeze_by_lp(s, ctx, *z, dual_froze, err) < 0 ? -1 : 0;
}

/* The full LP (benchmark baseline, and the reference the fast path is
 * tested against): LP1 plus the LP2/LP3 certificates, round after round
 * until every class is frozen; the objective is the first round's z. */
static int waterfill_full(wf_t *s, hs_policy_ctx_t *ctx, double *xbest, hs_alloc_t *out,
			  hs_err_t *err)
{
	const int C = s->C;
	if (build(s, err) < 0)
		return -1;
	int first = 1, nfrozen = 0;
	for (int round = 0; nfrozen < C && round <= C + 1; round++) {
		double z = 0.0;
		int r = full_round(s, ctx, xbest, &z, err);
		if (r < 0)
			return -1;
		if (r > 0)
			break;
		if (first)
			out->objective = z;
		first = 0;
		nfrozen = 0;
		for (int c = 0; c < C; c++)
			nfrozen += s->frozen[c];
	}
	ctx->last_lp_items = C;
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
	wf_t s;
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
	} else if (waterfill_full(&s, ctx, xbest, out, err) < 0) {
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
