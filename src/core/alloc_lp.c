/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alloc_lp.c — the allocation LP over items (see alloc_lp.h), with an
 * exact active-set method for large instances.
 *
 * Why: the plain LP has 2n + J rows; GLPK's simplex brings every item's
 * variable into the basis one pivot at a time, so it needs about n
 * iterations of O(n) work each, which is ~10 s at n = 10,000. Yet only J
 * (3-4) capacity rows couple the items. Given capacity prices pi_j, an
 * item's best use of time is clear for most items:
 *
 *  MAXMIN  reach its demand alpha_i z + beta_i on the type k maximizing
 *          a_ik / pi_k (throughput per unit of price), with
 *          x_ik = (alpha_i z + beta_i) / a_ik;
 *  LINEAR  run all the time on the type maximizing c_ik - pi_k s_i if that
 *          is positive, else not at all.
 *
 * Such an item is "folded": its variables leave the LP and its capacity use
 * becomes a term of the z column (MAXMIN) or a constant (both) in the
 * capacity rows. Items with near-ties keep their own rows ("free"). After
 * solving the small LP, its capacity duals pi are checked against every
 * folded item: if each folded choice is still optimal under pi (and its
 * time share stays <= 1), the duals of the small LP extend to a dual
 * feasible solution of the full LP with the same objective — i.e. the
 * folded solution is optimal for the full LP (LP duality; the fold keeps
 * primal feasibility by construction). Items that fail the check are
 * unfolded (rows added, warm simplex from the previous basis) and the loop
 * repeats; it ends at the latest when every item is free, so the result is
 * always the exact optimum. The first prices come from the same LP on a
 * random sample of the items with proportionally scaled capacities (POP's
 * observation that random sub-problems look like the whole), refined by
 * price-balancing passes over all items in which every item takes its
 * cheapest strategy: one type, or — when its demand needs more than all
 * its time on the cheapest type — a full-time mix of two types, whose
 * loads are affine in z and fold just as well (on Gavel-like instances
 * about 5% of the jobs end up time-bound and split).
 *
 * Exact ties: an item whose coefficients are equal on several types (the
 * heterogeneity-agnostic policies see every usable type alike) is
 * indifferent among them, so it is folded into a "group" of those types:
 * the group's items need a total time that the LP may place on any of the
 * group's types (one column per type, one balance row per group); each
 * item then gets the group's split in proportion. A group of one type is
 * just a term of that type's capacity row.
 */
#include "core/alloc_lp.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FREE_ITEM (-2)
#define FOLD_NONE (-1)
#define ACTIVE_MIN_ITEMS 400   /* below this, solve the full LP directly */
#define SAMPLE_ITEMS 300
#define INIT_MARGIN 0.005      /* initial fold: the runner-up costs 0.5% more */
#define INIT_TIME_LIMIT 0.97   /* initial fold: 3% time slack on one type */
#define VERIFY_TOL 1e-7        /* relative tolerance of the dual check */
#define MAX_ROUNDS 40
#define MAX_GROUP_TYPES 64     /* tie groups are bit masks */

typedef struct group {
	int type;                /* the single type, or -1 for a tie group */
	int type2;               /* a mix: the faster second type, else -1 */
	uint64_t mask;           /* tie group: its types */
	int row;                 /* tie group: balance row in the LP, or -1 */
	int col0;                /* tie group: first of its columns (one per type) */
	double lz, lb;           /* scratch: z coefficient and constant of its load */
} group_t;

struct hs_alp_work {
	hs_lp_t *lp;
	int *state;      /* [n] FREE_ITEM, FOLD_NONE, or a group index */
	int *col;        /* [n * J] column of a free item's x_ij, or -1 */
	int *frow;       /* [n] fair/SLO row of a free item, or -1 */
	int *trow;       /* [n] time row of a free item, or -1 */
	double *rs;      /* [n] row normalization 1 / max_j a_ij */
	group_t *g;
	int ng, capg;
	int zcol;        /* MAXMIN z (LINEAR: a fixed dummy column) */
	int caprow0;
	int built;
	double *pi;      /* [J] capacity prices */
	int *zrows;      /* scratch for the z column */
	double *zvals;
};

int hs_alp_init(hs_alp_t *alp, int n, int J, hs_alp_mode_t mode, hs_err_t *err)
{
	memset(alp, 0, sizeof(*alp));
	if (n < 0 || J <= 0)
		return hs_err_set(err, "allocation LP: invalid size");
	alp->n = n;
	alp->J = J;
	alp->mode = mode;
	alp->active_set = 1;
	alp->seed = 1;
	alp->zmax = INFINITY;
	size_t nj = (size_t)n * J + 1;
	alp->cap = calloc((size_t)J, sizeof(double));
	alp->mult = calloc((size_t)n + 1, sizeof(double));
	alp->scale = calloc((size_t)n + 1, sizeof(double));
	alp->a = calloc(nj, sizeof(double));
	alp->alpha = calloc((size_t)n + 1, sizeof(double));
	alp->beta = calloc((size_t)n + 1, sizeof(double));
	alp->c = calloc(nj, sizeof(double));
	alp->x = calloc(nj, sizeof(double));
	alp->dual = calloc((size_t)n + 1, sizeof(double));
	alp->price = calloc((size_t)J, sizeof(double));
	if (!alp->dual || !alp->price || !alp->cap || !alp->mult || !alp->scale || !alp->a || !alp->alpha || !alp->beta ||
	    !alp->c || !alp->x) {
		hs_alp_free(alp);
		return hs_err_set(err, "out of memory");
	}
	for (int i = 0; i < n; i++)
		alp->mult[i] = alp->scale[i] = 1.0;
	return 0;
}

static void work_free(hs_alp_work_t *w)
{
	if (!w)
		return;
	hs_lp_free(w->lp);
	free(w->state);
	free(w->col);
	free(w->frow);
	free(w->trow);
	free(w->rs);
	free(w->g);
	free(w->pi);
	free(w->zrows);
	free(w->zvals);
	free(w);
}

void hs_alp_free(hs_alp_t *alp)
{
	if (!alp)
		return;
	free(alp->cap);
	free(alp->mult);
	free(alp->scale);
	free(alp->a);
	free(alp->alpha);
	free(alp->beta);
	free(alp->c);
	free(alp->x);
	free(alp->dual);
	free(alp->price);
	work_free(alp->work);
	memset(alp, 0, sizeof(*alp));
}

static hs_alp_work_t *work_new(const hs_alp_t *alp, hs_err_t *err)
{
	const size_t n = (size_t)alp->n, J = (size_t)alp->J;
	hs_alp_work_t *w = calloc(1, sizeof(*w));
	if (!w) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	w->state = malloc((n + 1) * sizeof(int));
	w->col = malloc((n * J + 1) * sizeof(int));
	w->frow = malloc((n + 1) * sizeof(int));
	w->trow = malloc((n + 1) * sizeof(int));
	w->rs = malloc((n + 1) * sizeof(double));
	w->pi = calloc(J, sizeof(double));
	if (!w->state || !w->col || !w->frow || !w->trow || !w->rs || !w->pi) {
		work_free(w);
		hs_err_set(err, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		double mx = 0.0;
		for (size_t j = 0; j < J; j++)
			if (alp->a[i * J + j] > mx)
				mx = alp->a[i * J + j];
		w->rs[i] = mx > 0.0 ? 1.0 / mx : 1.0;
		w->state[i] = FREE_ITEM;
	}
	return w;
}

/* The group of a single type or of a tie mask (found or added); -1 if out
 * of memory. */
static int group_get(hs_alp_work_t *w, int type, int type2, uint64_t mask)
{
	for (int k = 0; k < w->ng; k++)
		if (w->g[k].type == type && w->g[k].type2 == type2 && w->g[k].mask == mask)
			return k;
	if (w->ng == w->capg) {
		int cap = w->capg ? 2 * w->capg : 16;
		group_t *ng = realloc(w->g, (size_t)cap * sizeof(*ng));
		if (!ng)
			return -1;
		w->g = ng;
		w->capg = cap;
	}
	w->g[w->ng] = (group_t){ .type = type, .type2 = type2, .mask = mask, .row = -1, .col0 = -1 };
	return w->ng++;
}

static int in_group(const group_t *g, int j)
{
	if (g->type2 >= 0)
		return j == g->type || j == g->type2;
	return g->type >= 0 ? j == g->type : (int)((g->mask >> j) & 1);
}

typedef struct margin {
	double m;
	int i;
} margin_t;

static int cmp_margin(const void *x, const void *y)
{
	double a = ((const margin_t *)x)->m, b = ((const margin_t *)y)->m;
	return a < b ? -1 : a > b;
}

/* ---- folding rules ------------------------------------------------------------ */

/* The cheapest way for MAXMIN item i to deliver d = alpha z + beta under
 * prices pi (the item's own 2-row LP: min sum_j pi_j x_j s.t. a.x >= d,
 * sum x <= 1, whose vertices are one type j with x_j = d / a_j, or a
 * full-time mix of a slower k and a faster l). Returns the cost (INFINITY
 * if d is out of reach) with the choice in *k, *l (l = -1: one type), and
 * the runner-up's cost in *second. Mixes are enumerated for J <= 16. */
static double strategy(const hs_alp_t *alp, const double *pi, int i, double z, int *k, int *l,
		       double *second)
{
	const int J = alp->J;
	const double *a = &alp->a[(size_t)i * J];
	double d = alp->alpha[i] * z + alp->beta[i];
	double best = INFINITY, next = INFINITY;
	*k = *l = -1;
	for (int j = 0; j < J; j++) {
		if (a[j] <= 0.0 || d > a[j])
			continue;
		double c = pi[j] * d / a[j];
		if (c < best) {
			next = best;
			best = c;
			*k = j;
			*l = -1;
		} else if (c < next) {
			next = c;
		}
	}
	for (int j = 0; J <= 16 && j < J; j++) {
		if (a[j] <= 0.0 || a[j] >= d)
			continue;
		for (int h = 0; h < J; h++) {
			if (a[h] <= d)
				continue;
			double xl = (d - a[j]) / (a[h] - a[j]);
			double c = pi[j] * (1.0 - xl) + pi[h] * xl;
			if (c < best) {
				next = best;
				best = c;
				*k = j;
				*l = h;
			} else if (c < next) {
				next = c;
			}
		}
	}
	*second = next;
	return best;
}

/* Initial fold of a MAXMIN item under the balanced prices: its cheapest
 * strategy (one type, or a mix of two) if the runner-up costs at least
 * the margin more; a single type joins the types exactly tied with it
 * (equal a_ij) in a tie group. FREE_ITEM otherwise. */
static int maxmin_fold(const hs_alp_t *alp, hs_alp_work_t *w, const double *pi, int i, double z)
{
	const int J = alp->J;
	const double *a = &alp->a[(size_t)i * J];
	int k, l;
	double second, best = strategy(alp, pi, i, z, &k, &l, &second);
	if (k < 0 || !isfinite(best))
		return FREE_ITEM;
	double d = alp->alpha[i] * z + alp->beta[i];
	/* a negative beta (water filling's charged items: r >= z w' - q)
	 * makes the demand negative below some z, where a fold's time
	 * (affine in z) would go negative: fold only with room to move, as
	 * the 3% time margin below (verify() unfolds one whose time is
	 * negative at the LP's value) */
	if (alp->beta[i] < 0.0 && !(d >= 0.03 * a[k]))
		return FREE_ITEM;
	/* the time margins leave room for z to move; a fixed demand (alpha
	 * 0: water filling's frozen items) does not move, and may take all
	 * the item's time (verify() then checks the fold with its time row
	 * tight) */
	const int fixed = alp->alpha[i] == 0.0 || alp->fold_full;
	const double lo = fixed ? 1e-9 : 0.03, hi = fixed ? 1.0 - 1e-9 : 0.97;
	if (l >= 0) {
		double xl = (d - a[k]) / (a[l] - a[k]);
		if (second < best * (1.0 + INIT_MARGIN) || xl < lo || xl > hi)
			return FREE_ITEM;
		int g = group_get(w, k, l, 0);
		return g < 0 ? FREE_ITEM : g;
	}
	if (d / a[k] > (fixed ? 1.0 + 1e-12 : INIT_TIME_LIMIT))
		return FREE_ITEM;
	uint64_t mask = 0;
	int nt = 0;
	for (int j = 0; j < J; j++) {
		if (a[j] <= 0.0)
			continue;
		if (a[j] == a[k]) {
			if (J > MAX_GROUP_TYPES && j != k)
				return FREE_ITEM;
			if (J <= MAX_GROUP_TYPES)
				mask |= (uint64_t)1 << j;
			nt++;
		}
	}
	/* exact ties cost the same at equal prices: the margin is checked
	 * against the strategies outside the tie group only */
	if (nt == 1 && second < best * (1.0 + INIT_MARGIN))
		return FREE_ITEM;
	if (nt > 1)
		for (int j = 0; j < J; j++)
			if (a[j] > 0.0 && a[j] != a[k] && a[j] * pi[k] * (1.0 + INIT_MARGIN) >= a[k] * pi[j])
				return FREE_ITEM;
	int g = nt == 1 ? group_get(w, k, -1, 0) : group_get(w, -1, -1, mask);
	return g < 0 ? FREE_ITEM : g;
}

static double linear_value(const hs_alp_t *alp, const double *pi, int i, int j)
{
	return alp->c[(size_t)i * alp->J + j] - pi[j] * alp->scale[i];
}

/* Best LINEAR choice: a type, FOLD_NONE (not worth running), or
 * FREE_ITEM when the relative margin rel does not separate the choices. */
static int linear_choice(const hs_alp_t *alp, const double *pi, int i, double rel)
{
	const int J = alp->J;
	double cmax = 0.0;
	int k = -1;
	for (int j = 0; j < J; j++) {
		if (alp->a[(size_t)i * J + j] <= 0.0)
			continue;
		double c = fabs(alp->c[(size_t)i * J + j]);
		if (c > cmax)
			cmax = c;
		if (k < 0 || linear_value(alp, pi, i, j) > linear_value(alp, pi, i, k))
			k = j;
	}
	if (k < 0)
		return FOLD_NONE;
	double tol = rel * (cmax > 0.0 ? cmax : 1.0);
	double vk = linear_value(alp, pi, i, k);
	if (vk < -tol)
		return FOLD_NONE;
	if (vk < tol)
		return FREE_ITEM;
	for (int j = 0; j < J; j++)
		if (j != k && alp->a[(size_t)i * J + j] > 0.0 && linear_value(alp, pi, i, j) > vk - tol)
			return FREE_ITEM;
	return k;
}

/* The coefficient a folded MAXMIN item has on its group's types. */
static double group_coef(const hs_alp_t *alp, const group_t *g, int i)
{
	const double *a = &alp->a[(size_t)i * alp->J];
	if (g->type >= 0)
		return a[g->type];
	for (int j = 0; j < alp->J; j++)
		if (in_group(g, j))
			return a[j];
	return 0.0;
}

/* Time share a folded MAXMIN item needs at value z. */
static double fold_need(const hs_alp_t *alp, const group_t *g, int i, double z)
{
	return (alp->alpha[i] * z + alp->beta[i]) / group_coef(alp, g, i);
}

/* ---- building and updating the LP ------------------------------------------------ */

static int add_free_item(hs_alp_t *alp, hs_alp_work_t *w, int i, hs_err_t *err)
{
	const int J = alp->J;
	hs_lp_t *lp = w->lp;
	int ncol = 0;
	for (int j = 0; j < J; j++)
		ncol += alp->a[(size_t)i * J + j] > 0.0;
	int need_frow = alp->mode == HS_ALP_MAXMIN || alp->beta[i] > 0.0;
	int c0 = hs_lp_add_cols(lp, ncol, err);
	int r0 = hs_lp_add_rows(lp, 1 + need_frow, err);
	if (c0 < 0 || r0 < 0)
		return -1;
	w->state[i] = FREE_ITEM;
	w->trow[i] = r0;
	w->frow[i] = need_frow ? r0 + 1 : -1;
	if (hs_lp_set_row_bounds(lp, r0, -INFINITY, 1.0, err) < 0)
		return -1;
	if (need_frow && hs_lp_set_row_bounds(lp, r0 + 1, alp->beta[i] * w->rs[i], INFINITY, err) < 0)
		return -1;
	int c = c0;
	for (int j = 0; j < J; j++) {
		double aij = alp->a[(size_t)i * J + j];
		if (aij <= 0.0) {
			w->col[(size_t)i * J + j] = -1;
			continue;
		}
		w->col[(size_t)i * J + j] = c;
		if (hs_lp_set_col_bounds(lp, c, 0.0, 1.0, err) < 0 ||
		    hs_lp_add_coef(lp, r0, c, 1.0, err) < 0 ||
		    hs_lp_add_coef(lp, w->caprow0 + j, c, alp->mult[i] * alp->scale[i], err) < 0 ||
		    (need_frow && hs_lp_add_coef(lp, r0 + 1, c, aij * w->rs[i], err) < 0))
			return -1;
		if (alp->mode == HS_ALP_LINEAR &&
		    hs_lp_set_obj(lp, c, alp->mult[i] * alp->c[(size_t)i * J + j], err) < 0)
			return -1;
		c++;
	}
	return 0;
}

/* A tie group's balance row and columns: sum_j l_j - lz z = lb. */
static int add_group(hs_alp_t *alp, hs_alp_work_t *w, group_t *g, hs_err_t *err)
{
	int nt = 0;
	for (int j = 0; j < alp->J; j++)
		nt += in_group(g, j);
	g->row = hs_lp_add_rows(w->lp, 1, err);
	g->col0 = hs_lp_add_cols(w->lp, nt, err);
	if (g->row < 0 || g->col0 < 0)
		return -1;
	for (int j = 0, c = g->col0; j < alp->J; j++) {
		if (!in_group(g, j))
			continue;
		if (hs_lp_add_coef(w->lp, g->row, c, 1.0, err) < 0 ||
		    hs_lp_add_coef(w->lp, w->caprow0 + j, c, 1.0, err) < 0)
			return -1;
		c++;
	}
	return 0;
}

/* Rewrites everything the folded items and the alphas/betas determine:
 * the z column, the capacity and group bounds, the fair rows' bounds. */
static int update_folds(hs_alp_t *alp, hs_alp_work_t *w, hs_err_t *err)
{
	const int J = alp->J, n = alp->n;
	size_t nzmax = (size_t)n + (size_t)J + (size_t)w->ng + 1;
	int *zrows = malloc(nzmax * sizeof(int));
	double *zvals = malloc(nzmax * sizeof(double));
	double *zcap = calloc((size_t)J * 2, sizeof(double)), *cb = zcap + J;
	int rc = -1;
	if (!zrows || !zvals || !zcap) {
		hs_err_set(err, "out of memory");
		goto out;
	}
	for (int j = 0; j < J; j++)
		cb[j] = alp->cap[j];
	for (int k = 0; k < w->ng; k++)
		w->g[k].lz = w->g[k].lb = 0.0;
	int nz = 0;
	for (int i = 0; i < n; i++) {
		int s = w->state[i];
		double ns = alp->mult[i] * alp->scale[i];
		if (s == FREE_ITEM) {
			if (alp->mode == HS_ALP_MAXMIN) {
				zrows[nz] = w->frow[i];
				zvals[nz] = -alp->alpha[i] * w->rs[i];
				nz++;
			}
			if (w->frow[i] >= 0 &&
			    hs_lp_set_row_bounds(w->lp, w->frow[i], alp->beta[i] * w->rs[i], INFINITY, err) < 0)
				goto out;
		} else if (s >= 0) {
			group_t *g = &w->g[s];
			if (alp->mode == HS_ALP_MAXMIN && g->type2 >= 0) {
				/* full-time mix: x_l = (alpha z + beta - a_k) / D */
				const double *ai = &alp->a[(size_t)i * J];
				double D = ai[g->type2] - ai[g->type];
				double c0 = (alp->beta[i] - ai[g->type]) / D, c1 = alp->alpha[i] / D;
				zcap[g->type2] += ns * c1;
				zcap[g->type] -= ns * c1;
				cb[g->type2] -= ns * c0;
				cb[g->type] -= ns * (1.0 - c0);
			} else if (alp->mode == HS_ALP_MAXMIN) {
				double a = group_coef(alp, g, i);
				if (g->type >= 0) {
					zcap[g->type] += ns * alp->alpha[i] / a;
					cb[g->type] -= ns * alp->beta[i] / a;
				} else {
					g->lz += ns * alp->alpha[i] / a;
					g->lb += ns * alp->beta[i] / a;
				}
			} else {
				cb[g->type] -= ns;
			}
		}
	}
	for (int k = 0; k < w->ng; k++) {
		group_t *g = &w->g[k];
		if (g->row < 0)
			continue;
		if (hs_lp_set_row_bounds(w->lp, g->row, g->lb, g->lb, err) < 0)
			goto out;
		zrows[nz] = g->row;
		zvals[nz] = -g->lz;
		nz++;
	}
	if (alp->mode == HS_ALP_MAXMIN) {
		for (int j = 0; j < J; j++) {
			zrows[nz] = w->caprow0 + j;
			zvals[nz] = zcap[j];
			nz++;
		}
		if (hs_lp_set_col_coefs(w->lp, w->zcol, nz, zrows, zvals, err) < 0 ||
		    hs_lp_set_col_bounds(w->lp, w->zcol, 0.0, alp->zmax, err) < 0)
			goto out;
	}
	/* a folded overload makes the LP infeasible; the caller then unfolds */
	for (int j = 0; j < J; j++)
		if (hs_lp_set_row_bounds(w->lp, w->caprow0 + j, -INFINITY, cb[j], err) < 0)
			goto out;
	rc = 0;
out:
	free(zrows);
	free(zvals);
	free(zcap);
	return rc;
}

static int build(hs_alp_t *alp, hs_alp_work_t *w, hs_err_t *err)
{
	const int J = alp->J;
	hs_lp_free(w->lp);
	w->lp = hs_lp_new(1, err);
	if (!w->lp)
		return -1;
	w->zcol = hs_lp_add_cols(w->lp, 1, err);
	w->caprow0 = hs_lp_add_rows(w->lp, J, err);
	if (w->zcol < 0 || w->caprow0 < 0)
		return -1;
	if (alp->mode == HS_ALP_MAXMIN) {
		if (hs_lp_set_col_bounds(w->lp, w->zcol, 0.0, alp->zmax, err) < 0 ||
		    hs_lp_set_obj(w->lp, w->zcol, 1.0, err) < 0)
			return -1;
	} else if (hs_lp_set_col_bounds(w->lp, w->zcol, 0.0, 0.0, err) < 0) {
		return -1; /* a placeholder so the LP never has zero columns */
	}
	for (int k = 0; k < w->ng; k++) {
		w->g[k].row = w->g[k].col0 = -1;
		if (w->g[k].type < 0 && add_group(alp, w, &w->g[k], err) < 0)
			return -1;
	}
	for (int i = 0; i < alp->n; i++)
		if (w->state[i] == FREE_ITEM && add_free_item(alp, w, i, err) < 0)
			return -1;
	if (update_folds(alp, w, err) < 0)
		return -1;
	w->built = 1;
	return 0;
}

/* ---- the active-set loop -------------------------------------------------------- */

static void read_prices(hs_alp_work_t *w, int J)
{
	double mx = 0.0;
	for (int j = 0; j < J; j++) {
		double d = hs_lp_row_dual(w->lp, w->caprow0 + j);
		w->pi[j] = d > 0.0 ? d : 0.0;
		if (w->pi[j] > mx)
			mx = w->pi[j];
	}
	for (int j = 0; j < J; j++) /* solver noise on slack rows */
		if (w->pi[j] < 1e-11 * mx)
			w->pi[j] = 0.0;
}

/* Is the fold of MAXMIN item i into group g still optimal under the
 * prices, with its time share <= 1? */
/* A full-time mix of k and l is optimal for the item under the prices if
 * both shares are in [0, 1] at z and the dual values that make both
 * columns tight, lambda = (pi_l - pi_k) / (a_l - a_k) >= 0 for the demand
 * row and v = lambda a_k - pi_k >= 0 for the time row, price every other
 * type out: lambda a_j - pi_j <= v. */
static int mix_fold_ok(const hs_alp_t *alp, const hs_alp_work_t *w, const group_t *g, int i, double z)
{
	const double *a = &alp->a[(size_t)i * alp->J];
	const double *pi = w->pi;
	int k = g->type, l = g->type2;
	double D = a[l] - a[k];
	double xl = (alp->alpha[i] * z + alp->beta[i] - a[k]) / D;
	if (xl < -1e-9 || xl > 1.0 + 1e-9)
		return 0;
	double lambda = (pi[l] - pi[k]) / D, v = lambda * a[k] - pi[k];
	double scale = pi[k] + pi[l] + fabs(lambda * a[l]);
	if (lambda < -VERIFY_TOL * scale / (a[l] > 0.0 ? a[l] : 1.0) || v < -VERIFY_TOL * scale)
		return 0;
	for (int j = 0; j < alp->J; j++)
		if (j != k && j != l && a[j] > 0.0 &&
		    lambda * a[j] - pi[j] > v + VERIFY_TOL * (scale + fabs(lambda * a[j]) + pi[j]))
			return 0;
	return 1;
}

/* A single-type fold that takes all the item's time (a fixed demand
 * equal to a_k: water filling's class frozen at its maximum) is optimal
 * under the prices if some demand dual y >= pi_k n s / a_k (time dual v =
 * y a_k - pi_k n s >= 0) prices every other type out: y (a_k - a_j) >= n s
 * (pi_k - pi_j) for each usable j. Returns that smallest y (>= 0), or -1
 * if there is none. Unlike the slack-time rule below, a type that would
 * deliver the demand more cheaply but not within the item's time does not
 * break the fold. */
static double full_time_dual(const hs_alp_t *alp, const hs_alp_work_t *w, int i, int k)
{
	const double *a = &alp->a[(size_t)i * alp->J];
	const double *pi = w->pi;
	double ns = alp->mult[i] * alp->scale[i];
	double lo = pi[k] * ns / a[k], hi = INFINITY;
	for (int j = 0; j < alp->J; j++) {
		if (j == k || a[j] <= 0.0)
			continue;
		double gap = ns * (pi[k] - pi[j]), da = a[k] - a[j];
		if (da > 0.0)
			lo = gap / da > lo ? gap / da : lo;
		else if (da < 0.0)
			hi = gap / da < hi ? gap / da : hi;
		else if (gap > VERIFY_TOL * ns * (pi[k] + pi[j]))
			return -1.0; /* an equal type that is cheaper */
	}
	return lo <= hi * (1.0 + VERIFY_TOL) + 1e-12 ? lo : -1.0;
}

/* Does a fold take all the item's time at value z (a fixed demand, one
 * type)? */
static int full_time_fold(const hs_alp_t *alp, const group_t *g, int i, double z)
{
	double need = g->type >= 0 && g->type2 < 0 ? fold_need(alp, g, i, z) : 0.0;
	return alp->alpha[i] == 0.0 && need > 1.0 - 1e-9 && need <= 1.0 + 1e-9;
}

static int maxmin_fold_ok(const hs_alp_t *alp, const hs_alp_work_t *w, const group_t *g, int i, double z)
{
	if (g->type2 >= 0)
		return mix_fold_ok(alp, w, g, i, z);
	if (full_time_fold(alp, g, i, z))
		return full_time_dual(alp, w, i, g->type) >= 0.0;
	const double *a = &alp->a[(size_t)i * alp->J];
	double ag = group_coef(alp, g, i);
	if (fold_need(alp, g, i, z) > 1.0 + 1e-9)
		return 0;
	/* the group's price: the cheapest of its types (used types have equal
	 * prices, unused ones are no cheaper) */
	double pg = INFINITY;
	for (int j = 0; j < alp->J; j++)
		if (in_group(g, j) && w->pi[j] < pg)
			pg = w->pi[j];
	for (int j = 0; j < alp->J; j++)
		if (!in_group(g, j) && a[j] > 0.0 && a[j] * pg > ag * w->pi[j] * (1.0 + VERIFY_TOL))
			return 0;
	return 1;
}

static int linear_fold_ok(const hs_alp_t *alp, const hs_alp_work_t *w, int s, int i)
{
	const int J = alp->J;
	if (s == FOLD_NONE) {
		for (int j = 0; j < J; j++)
			if (alp->a[(size_t)i * J + j] > 0.0 &&
			    linear_value(alp, w->pi, i, j) > VERIFY_TOL * fabs(alp->c[(size_t)i * J + j]) + 1e-12)
				return 0;
		return 1;
	}
	int k = w->g[s].type;
	double vk = linear_value(alp, w->pi, i, k);
	double tol = VERIFY_TOL * fabs(alp->c[(size_t)i * J + k]) + 1e-12;
	if (vk < -tol)
		return 0;
	for (int j = 0; j < J; j++)
		if (j != k && alp->a[(size_t)i * J + j] > 0.0 && linear_value(alp, w->pi, i, j) > vk + tol)
			return 0;
	return 1;
}

/* Is item i's fold (state s) still right at value z: optimal under the
 * prices, or (primal_only) just feasible, its time within 1? */
static int fold_ok(const hs_alp_t *alp, const hs_alp_work_t *w, int s, int i, double z, int primal_only)
{
	if (alp->mode == HS_ALP_LINEAR)
		return linear_fold_ok(alp, w, s, i);
	if (s == FOLD_NONE)
		return alp->alpha[i] == 0.0 && alp->beta[i] == 0.0;
	const group_t *g = &w->g[s];
	/* a negative beta: the demand, and so a one-type fold's time, is
	 * negative below some value (maxmin_fold) */
	if (g->type2 < 0 && alp->beta[i] < 0.0 && fold_need(alp, g, i, z) < 0.0)
		return 0;
	if (!primal_only)
		return maxmin_fold_ok(alp, w, g, i, z);
	if (g->type2 >= 0) {
		const double *a = &alp->a[(size_t)i * alp->J];
		double xl = (alp->alpha[i] * z + alp->beta[i] - a[g->type]) / (a[g->type2] - a[g->type]);
		return xl >= -1e-9 && xl <= 1.0 + 1e-9;
	}
	return fold_need(alp, g, i, z) <= 1.0 + 1e-9;
}

/* Checks every folded item against the current prices and value (only
 * its time when primal_only); unfolds the ones that fail when unfold is
 * set. Returns how many failed, or -1. */
static int verify(hs_alp_t *alp, hs_alp_work_t *w, double z, int primal_only, int unfold, hs_err_t *err)
{
	int bad = 0;
	for (int i = 0; i < alp->n; i++) {
		int s = w->state[i];
		if (s == FREE_ITEM || fold_ok(alp, w, s, i, z, primal_only))
			continue;
		if (unfold && add_free_item(alp, w, i, err) < 0)
			return -1;
		bad++;
	}
	return bad;
}

static int unfold_all(hs_alp_t *alp, hs_alp_work_t *w, hs_err_t *err)
{
	for (int i = 0; i < alp->n; i++)
		if (w->state[i] != FREE_ITEM && add_free_item(alp, w, i, err) < 0)
			return -1;
	return 0;
}

/* MAXMIN: the dual of item i's demand row (unscaled units, >= 0). A free
 * item's comes from the LP (its row is scaled by rs). A folded item's is
 * the one that makes its chosen columns' reduced costs zero under the
 * capacity prices, as verify() checks: one type or tie group at price p,
 * y = p n s / a; a full-time mix of k and l, y = n s lambda with
 * lambda = (pi_l - pi_k) / (a_l - a_k). With the small LP's duals these
 * form the dual solution whose objective equals the LP's, so they are
 * optimal for the full LP. */
static double item_dual(const hs_alp_t *alp, const hs_alp_work_t *w, int i)
{
	int s = w->state[i];
	if (s == FREE_ITEM)
		return w->frow[i] >= 0 ? fabs(hs_lp_row_dual(w->lp, w->frow[i])) * w->rs[i] : 0.0;
	if (s < 0)
		return 0.0;
	const group_t *g = &w->g[s];
	const double *a = &alp->a[(size_t)i * alp->J];
	double ns = alp->mult[i] * alp->scale[i];
	if (g->type2 >= 0) {
		double lambda = (w->pi[g->type2] - w->pi[g->type]) / (a[g->type2] - a[g->type]);
		return lambda > 0.0 ? ns * lambda : 0.0;
	}
	if (full_time_fold(alp, g, i, hs_lp_col_value(w->lp, w->zcol))) {
		double y = full_time_dual(alp, w, i, g->type);
		return y > 0.0 ? y : 0.0;
	}
	double pg = INFINITY;
	for (int j = 0; j < alp->J; j++)
		if (in_group(g, j) && w->pi[j] < pg)
			pg = w->pi[j];
	double ag = group_coef(alp, g, i);
	return ag > 0.0 && isfinite(pg) ? pg * ns / ag : 0.0;
}

static void extract(hs_alp_t *alp, hs_alp_work_t *w)
{
	const int J = alp->J;
	double zl = alp->mode == HS_ALP_MAXMIN ? hs_lp_col_value(w->lp, w->zcol) : 0.0;
	double obj = alp->mode == HS_ALP_MAXMIN ? zl : hs_lp_obj_value(w->lp);
	double split[MAX_GROUP_TYPES];
	memcpy(alp->price, w->pi, (size_t)J * sizeof(double));
	for (int i = 0; i < alp->n; i++) {
		double *x = &alp->x[(size_t)i * J];
		int s = w->state[i];
		alp->dual[i] = alp->mode == HS_ALP_MAXMIN ? item_dual(alp, w, i) : 0.0;
		for (int j = 0; j < J; j++)
			x[j] = s == FREE_ITEM && w->col[(size_t)i * J + j] >= 0
			       ? hs_lp_col_value(w->lp, w->col[(size_t)i * J + j]) : 0.0;
		if (s < 0)
			continue;
		const group_t *g = &w->g[s];
		if (alp->mode == HS_ALP_LINEAR) {
			x[g->type] = 1.0;
			obj += alp->mult[i] * alp->c[(size_t)i * J + g->type];
			continue;
		}
		if (g->type2 >= 0) {
			const double *ai = &alp->a[(size_t)i * J];
			double xl = (alp->alpha[i] * zl + alp->beta[i] - ai[g->type]) / (ai[g->type2] - ai[g->type]);
			xl = xl < 0.0 ? 0.0 : xl > 1.0 ? 1.0 : xl;
			x[g->type2] = xl;
			x[g->type] = 1.0 - xl;
			continue;
		}
		double need = fold_need(alp, g, i, zl);
		need = need < 0.0 ? 0.0 : need > 1.0 ? 1.0 : need;
		if (g->type >= 0) {
			x[g->type] = need;
			continue;
		}
		/* a tie group: the item's share split like the group's load */
		double tot = 0.0;
		for (int j = 0, c = g->col0; j < J; j++)
			if (in_group(g, j)) {
				split[j] = hs_lp_col_value(w->lp, c++);
				split[j] = split[j] > 0.0 ? split[j] : 0.0;
				tot += split[j];
			}
		for (int j = 0; j < J; j++)
			if (in_group(g, j))
				x[j] = tot > 0.0 ? need * split[j] / tot : 0.0;
	}
	alp->z = obj;
}

/* Prices from the same LP on a random sample of the items. Returns 0 and
 * fills pi and *z, or -1 (then everything stays free). */
static int sample_prices(hs_alp_t *alp, const hs_lp_opts_t *o, double *pi, double *z)
{
	const int n = alp->n, J = alp->J;
	int *idx = malloc((size_t)n * sizeof(int));
	double *held = calloc((size_t)J, sizeof(double));
	hs_alp_t sub;
	hs_err_t err;
	if (!idx || !held) {
		free(idx);
		free(held);
		return -1;
	}
	/* MAXMIN with a hint: the fixed-demand items keep the capacity their
	 * hinted allocation holds, and the sample is drawn from the others
	 * over what is left (a sample that drew fixed items at random was
	 * often infeasible: water filling's frozen items fill some types) */
	const int by_hint = alp->mode == HS_ALP_MAXMIN && alp->hint;
	int pool = 0;
	for (int i = 0; i < n; i++) {
		if (by_hint && alp->alpha[i] == 0.0) {
			for (int j = 0; j < J; j++)
				held[j] += alp->mult[i] * alp->scale[i] * alp->hint[(size_t)i * J + j];
			continue;
		}
		idx[pool++] = i;
	}
	/* half the items when tests fold LPs smaller than the sample */
	const int cap = alp->sample_items > 0 ? alp->sample_items : SAMPLE_ITEMS;
	const int S = pool > cap ? cap : pool / 2;
	if (S < 2 || hs_alp_init(&sub, S, J, alp->mode, &err) < 0) {
		free(idx);
		free(held);
		return -1;
	}
	sub.active_set = 0;
	sub.zmax = alp->zmax;
	unsigned long long st = alp->seed;
	double tot = 0.0, part = 0.0;
	for (int k = 0; k < pool; k++)
		tot += alp->mult[idx[k]] * alp->scale[idx[k]];
	for (int k = 0; k < S; k++) { /* partial Fisher-Yates, splitmix64 */
		unsigned long long r = (st += 0x9e3779b97f4a7c15ULL);
		r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ULL;
		r = (r ^ (r >> 27)) * 0x94d049bb133111ebULL;
		r ^= r >> 31;
		int pick = k + (int)(r % (unsigned long long)(pool - k));
		int t = idx[k];
		idx[k] = idx[pick];
		idx[pick] = t;
		int i = idx[k];
		sub.mult[k] = alp->mult[i];
		sub.scale[k] = alp->scale[i];
		sub.alpha[k] = alp->alpha[i];
		sub.beta[k] = alp->beta[i];
		memcpy(&sub.a[(size_t)k * J], &alp->a[(size_t)i * J], (size_t)J * sizeof(double));
		memcpy(&sub.c[(size_t)k * J], &alp->c[(size_t)i * J], (size_t)J * sizeof(double));
		part += alp->mult[i] * alp->scale[i];
	}
	for (int j = 0; j < J; j++) {
		double left = alp->cap[j] > held[j] ? alp->cap[j] - held[j] : 0.0;
		sub.cap[j] = tot > 0.0 ? left * part / tot : left;
	}
	int rc = -1;
	if (hs_alp_solve(&sub, o, &err) == HS_LP_OPTIMAL) {
		memcpy(pi, sub.work->pi, (size_t)J * sizeof(double));
		*z = alp->mode == HS_ALP_MAXMIN ? sub.z : 0.0;
		rc = 0;
	}
	alp->lp_solves += sub.lp_solves;
	alp->iterations += sub.iterations;
	hs_alp_free(&sub);
	free(idx);
	free(held);
	return rc;
}

/* MAXMIN: refines sampled prices so that the items' best types load the
 * types evenly (cheap price-adjustment passes over all items, O(n J)
 * each): raise the price of overloaded types, lower the others. The sample
 * alone estimates price ratios to a few percent, which is enough to
 * misplace whole groups of items; balanced prices leave the small LP only
 * the near-ties to sort out. Returns the value estimate. */
/* Loads of every item's cheapest strategy at value z, affine in z:
 * L_j z + B_j. */
static void strategy_loads(const hs_alp_t *alp, const double *pi, double z, double *L, double *B)
{
	const int n = alp->n, J = alp->J;
	for (int j = 0; j < J; j++)
		L[j] = B[j] = 0.0;
	for (int i = 0; i < n; i++) {
		if (alp->alpha[i] == 0.0 && alp->beta[i] == 0.0)
			continue;
		int k, l;
		double second;
		if (!isfinite(strategy(alp, pi, i, z, &k, &l, &second)) || k < 0)
			continue;
		const double *ai = &alp->a[(size_t)i * J];
		double ns = alp->mult[i] * alp->scale[i];
		if (l < 0) {
			L[k] += ns * alp->alpha[i] / ai[k];
			B[k] += ns * alp->beta[i] / ai[k];
		} else {
			double D = ai[l] - ai[k], c0 = (alp->beta[i] - ai[k]) / D, c1 = alp->alpha[i] / D;
			L[l] += ns * c1;
			L[k] -= ns * c1;
			B[l] += ns * c0;
			B[k] += ns * (1.0 - c0);
		}
	}
}

static double balance_prices(const hs_alp_t *alp, double *pi, double z)
{
	const int J = alp->J;
	double *L = calloc((size_t)J * 3, sizeof(double)), *B = L + J, *bestpi = L + 2 * J;
	if (!L)
		return z;
	/* a zero price would make a type infinitely attractive: start types
	 * the sample left unpriced at half the smallest positive price; when
	 * the sample priced nothing (its value was bounded by one job's own
	 * time, not by capacity), start from each type's mean usefulness */
	double pmax = 0.0, pmin = INFINITY;
	for (int j = 0; j < J; j++) {
		pmax = pi[j] > pmax ? pi[j] : pmax;
		if (pi[j] > 0.0 && pi[j] < pmin)
			pmin = pi[j];
	}
	if (pmax <= 0.0 || pmin < 1e-9 * pmax) {
		for (int j = 0; j < J; j++)
			pi[j] = 0.0;
		for (int i = 0; i < alp->n; i++)
			for (int j = 0; j < J; j++)
				pi[j] += alp->mult[i] * alp->a[(size_t)i * J + j];
		pmax = pmin = 0.0;
		for (int j = 0; j < J; j++)
			pmax = pi[j] > pmax ? pi[j] : pmax;
		for (int j = 0; j < J; j++)
			pi[j] = pmax > 0.0 && pi[j] > 0.0 ? pi[j] / pmax : 1.0;
	} else {
		for (int j = 0; j < J; j++)
			pi[j] = (pi[j] > 1e-3 * pmax ? pi[j] : 0.5 * pmin) / pmax;
	}
	/* no z beyond what every item reaches on its fastest type full time
	 * (makespan-like LPs are often bounded by the longest job, not by
	 * capacity) */
	double zitem = INFINITY;
	for (int i = 0; i < alp->n; i++) {
		if (alp->alpha[i] <= 0.0)
			continue;
		double amax = 0.0;
		for (int j = 0; j < J; j++)
			amax = alp->a[(size_t)i * J + j] > amax ? alp->a[(size_t)i * J + j] : amax;
		double zi = (amax - alp->beta[i]) / alp->alpha[i];
		zitem = zi < zitem ? zi : zitem;
	}
	zitem = zitem < alp->zmax ? zitem : alp->zmax;
	double bestspread = INFINITY, bestz = z;
	int best_it = 0;
	memcpy(bestpi, pi, (size_t)J * sizeof(double));
	for (int it = 0; it < 150; it++) {
		strategy_loads(alp, pi, z, L, B);
		/* the value at which the whole cluster is used: overloaded types
		 * then show u > 1, idle ones u < 1, and prices move both ways */
		double sl = 0.0, sb = 0.0, sc = 0.0;
		for (int j = 0; j < J; j++) {
			sl += L[j];
			sb += B[j];
			sc += alp->cap[j];
		}
		double zz = sl > 0.0 ? (sc - sb) / sl : INFINITY;
		/* strategies depend on z: move it halfway (keep it when the
		 * estimate is unusable, e.g. no item can reach the current z) */
		if (zz > zitem)
			zz = zitem;
		if (isfinite(zz) && zz > 0.0)
			z = it == 0 || !(z > 0.0) ? zz : 0.5 * (z + zz);
		else
			zz = z;
		if (!(z > 0.0))
			break;
		double umin = INFINITY, umax = 0.0, mx = 0.0;
		for (int j = 0; j < J; j++) {
			if (alp->cap[j] <= 0.0)
				continue;
			double u = (L[j] * z + B[j]) / alp->cap[j];
			umin = u < umin ? u : umin;
			umax = u > umax ? u : umax;
		}
		/* keep the best-balanced prices seen (the iteration may cycle
		 * when many items flip between near-proportional types) */
		double spread = umax - umin + fabs(zz - z) / z;
		if (spread < bestspread * (1.0 - 1e-3))
			best_it = it; /* a real improvement */
		if (spread < bestspread) {
			bestspread = spread;
			bestz = z;
			memcpy(bestpi, pi, (size_t)J * sizeof(double));
		}
		/* balanced; or, with hinted fixed demands (water filling's
		 * frozen items, which fill some types to the last accelerator
		 * and keep the loads from balancing), no better for 25 passes:
		 * the rest of the 150 would be wasted. Without them balancing is
		 * slow but steady, and stopping early costs more in the LP
		 * (max-min fairness at 10,000 jobs: 0.16 s -> 0.6 s) */
		if (spread < 0.002 || (alp->hint && it - best_it > 25))
			break;
		/* damped, bounded steps: whole groups of alike items flip
		 * between types, so big steps oscillate */
		double step = 0.3 / (1.0 + it / 10.0);
		for (int j = 0; j < J; j++) {
			if (alp->cap[j] <= 0.0)
				continue;
			double u = (L[j] * z + B[j]) / alp->cap[j];
			double f = pow(u > 1e-3 ? u : 1e-3, step);
			pi[j] *= f < 0.5 ? 0.5 : f > 2.0 ? 2.0 : f;
			mx = pi[j] > mx ? pi[j] : mx;
		}
		for (int j = 0; j < J && mx > 0.0; j++) /* keep the scale near 1 */
			pi[j] /= mx;
	}
	memcpy(pi, bestpi, (size_t)J * sizeof(double));
	free(L);
	return bestz;
}

/* MAXMIN: the folded items' loads at the estimated value must leave room
 * (3%) on every type, or the small LP may be infeasible or lopsided;
 * unfold the items with the narrowest margins on overloaded types. */
static void repair_maxmin(const hs_alp_t *alp, hs_alp_work_t *w, const double *pi, double z)
{
	const int n = alp->n, J = alp->J;
	double *load = calloc((size_t)J, sizeof(double));
	margin_t *c = malloc(((size_t)n + 1) * sizeof(*c));
	if (!load || !c) {
		free(load);
		free(c);
		return;
	}
	/* per item: its load on each type, summed per type */
	for (int pass = 0; pass < 2; pass++) {
		for (int j = 0; j < J; j++)
			load[j] = 0.0;
		for (int i = 0; i < n; i++) {
			int s = w->state[i];
			if (s < 0)
				continue;
			const group_t *g = &w->g[s];
			const double *ai = &alp->a[(size_t)i * J];
			double ns = alp->mult[i] * alp->scale[i], d = alp->alpha[i] * z + alp->beta[i];
			if (g->type2 >= 0) {
				double xl = (d - ai[g->type]) / (ai[g->type2] - ai[g->type]);
				load[g->type2] += ns * xl;
				load[g->type] += ns * (1.0 - xl);
			} else if (g->type >= 0) {
				load[g->type] += ns * d / ai[g->type];
			}
		}
		int any = 0;
		for (int j = 0; j < J; j++) {
			if (load[j] <= 0.97 * alp->cap[j])
				continue;
			any = 1;
			int nc = 0;
			for (int i = 0; i < n; i++) {
				int s = w->state[i];
				if (s < 0 || !in_group(&w->g[s], j) || w->g[s].type < 0)
					continue;
				if (alp->hint && alp->alpha[i] == 0.0)
					continue; /* at a feasible allocation's loads */
				int k, l;
				double second, best = strategy(alp, pi, i, z, &k, &l, &second);
				c[nc++] = (margin_t){ best > 0.0 ? second / best : INFINITY, i };
			}
			qsort(c, (size_t)nc, sizeof(*c), cmp_margin);
			for (int q = 0; q < nc && load[j] > 0.97 * alp->cap[j]; q++) {
				int i = c[q].i;
				const group_t *g = &w->g[w->state[i]];
				const double *ai = &alp->a[(size_t)i * J];
				double ns = alp->mult[i] * alp->scale[i], d = alp->alpha[i] * z + alp->beta[i];
				if (g->type2 >= 0) {
					double xl = (d - ai[g->type]) / (ai[g->type2] - ai[g->type]);
					load[g->type2] -= ns * xl;
					load[g->type] -= ns * (1.0 - xl);
				} else {
					load[g->type] -= ns * d / ai[g->type];
				}
				w->state[i] = FREE_ITEM;
			}
		}
		if (!any)
			break;
	}
	free(load);
	free(c);
}

/* LINEAR: price adjustment until the items' best choices (c_ij - pi_j s_i,
 * when positive) fit the capacities: raise the prices of overloaded
 * types, lower (down to 0) those of types with room. */
static void balance_linear(const hs_alp_t *alp, double *pi)
{
	const int n = alp->n, J = alp->J;
	double *L = calloc((size_t)J, sizeof(double));
	if (!L)
		return;
	double unit = 0.0; /* typical value per accelerator, the step's scale */
	for (int i = 0; i < n; i++) {
		double mx = 0.0;
		for (int j = 0; j < J; j++)
			if (alp->a[(size_t)i * J + j] > 0.0 && alp->c[(size_t)i * J + j] > mx)
				mx = alp->c[(size_t)i * J + j];
		unit += mx / alp->scale[i];
	}
	unit = n > 0 ? unit / n : 1.0;
	for (int it = 0; it < 100; it++) {
		for (int j = 0; j < J; j++)
			L[j] = 0.0;
		for (int i = 0; i < n; i++) {
			int k = -1;
			double vk = 0.0;
			for (int j = 0; j < J; j++)
				if (alp->a[(size_t)i * J + j] > 0.0 && linear_value(alp, pi, i, j) > vk) {
					vk = linear_value(alp, pi, i, j);
					k = j;
				}
			if (k >= 0)
				L[k] += alp->mult[i] * alp->scale[i];
		}
		double worst = 0.0, step = 0.5 / (1.0 + it / 5.0);
		for (int j = 0; j < J; j++) {
			double ex = (L[j] - alp->cap[j]) / (alp->cap[j] > 1.0 ? alp->cap[j] : 1.0);
			if (ex > 0.0 || pi[j] > 0.0)
				worst = fabs(ex) > worst ? fabs(ex) : worst;
			pi[j] += step * unit * ex;
			pi[j] = pi[j] > 0.0 ? pi[j] : 0.0;
		}
		if (worst < 0.005)
			break;
	}
	free(L);
}

/* LINEAR: folded items run full time, so their load is a constant; if it
 * would exceed a type's capacity (the prices are estimates), unfold the
 * items with the narrowest margins until it fits with 1% to spare. */
static void repair_linear(const hs_alp_t *alp, hs_alp_work_t *w, const double *pi)
{
	const int n = alp->n, J = alp->J;
	margin_t *c = malloc(((size_t)n + 1) * sizeof(*c));
	for (int j = 0; j < J; j++) {
		double load = 0.0;
		int nc = 0;
		for (int i = 0; i < n; i++)
			if (w->state[i] >= 0 && w->g[w->state[i]].type == j) {
				load += alp->mult[i] * alp->scale[i];
				if (c)
					c[nc++] = (margin_t){ linear_value(alp, pi, i, j) / alp->scale[i], i };
			}
		if (load <= 0.99 * alp->cap[j])
			continue;
		if (!c) { /* no memory to rank them: unfold them all */
			for (int i = 0; i < n; i++)
				if (w->state[i] >= 0 && w->g[w->state[i]].type == j)
					w->state[i] = FREE_ITEM;
			continue;
		}
		qsort(c, (size_t)nc, sizeof(*c), cmp_margin);
		for (int k = 0; k < nc && load > 0.99 * alp->cap[j]; k++) {
			w->state[c[k].i] = FREE_ITEM;
			load -= alp->mult[c[k].i] * alp->scale[c[k].i];
		}
	}
	free(c);
}

/* MAXMIN: the fold of fixed-demand item i at its hinted allocation: one
 * type that delivers beta within the item's time, or two types used full
 * time around beta; FREE_ITEM otherwise. */
static int hint_fold(const hs_alp_t *alp, hs_alp_work_t *w, int i)
{
	const int J = alp->J;
	const double *x = &alp->hint[(size_t)i * J], *a = &alp->a[(size_t)i * J];
	const double d = alp->beta[i];
	int k = -1, l = -1, n = 0;
	double t = 0.0;
	for (int j = 0; j < J; j++) {
		if (!(x[j] > 1e-9) || a[j] <= 0.0)
			continue;
		t += x[j];
		if (n++ == 0)
			k = j;
		else
			l = j;
	}
	int g = FREE_ITEM;
	if (n == 1 && d <= a[k] * (1.0 + 1e-12)) {
		g = group_get(w, k, -1, 0);
	} else if (n == 2 && t >= 1.0 - 1e-9) {
		if (a[k] > a[l]) {
			int tmp = k;
			k = l;
			l = tmp;
		}
		if (a[k] < d && d < a[l])
			g = group_get(w, k, l, 0);
	}
	return g < 0 ? FREE_ITEM : g;
}

/* MAXMIN: item i's fold before any LP: none without demand, a fixed
 * demand at its hinted allocation, else its cheapest strategy under pi
 * at value z. */
static int maxmin_first_fold(const hs_alp_t *alp, hs_alp_work_t *w, const double *pi, int i, double z)
{
	if (alp->alpha[i] == 0.0 && alp->beta[i] == 0.0)
		return FOLD_NONE;
	if (alp->hint && alp->alpha[i] == 0.0)
		return hint_fold(alp, w, i);
	return maxmin_fold(alp, w, pi, i, z);
}

static void initial_folds(hs_alp_t *alp, hs_alp_work_t *w, const hs_lp_opts_t *o)
{
	const int n = alp->n;
	for (int i = 0; i < n; i++)
		w->state[i] = FREE_ITEM;
	if (!alp->active_set || n < (alp->active_min > 0 ? alp->active_min : ACTIVE_MIN_ITEMS))
		return;
	double *pi = calloc((size_t)alp->J, sizeof(double)), z = 0.0;
	if (!pi)
		return;
	/* MAXMIN: a sample whose fixed demands (beta) do not fit its share
	 * of the capacity is infeasible; balancing from the types' mean
	 * usefulness still gives prices worth folding with (not folding at
	 * all made water filling's LPs of 4,000 items take 1-3 s each) */
	int sampled = sample_prices(alp, o, pi, &z) == 0;
	if (!sampled && alp->mode == HS_ALP_MAXMIN) {
		memset(pi, 0, (size_t)alp->J * sizeof(double));
		z = 0.0;
		sampled = 1;
	}
	if (sampled) {
		if (alp->mode == HS_ALP_MAXMIN)
			z = balance_prices(alp, pi, z);
		else
			balance_linear(alp, pi);
		for (int i = 0; i < n; i++) {
			if (alp->mode == HS_ALP_MAXMIN) {
				w->state[i] = maxmin_first_fold(alp, w, pi, i, z);
			} else if (alp->beta[i] <= 0.0) {
				int k = linear_choice(alp, pi, i, INIT_MARGIN);
				w->state[i] = k >= 0 ? group_get(w, k, -1, 0) : k;
				if (k >= 0 && w->state[i] < 0)
					w->state[i] = FREE_ITEM;
			}
		}
		if (alp->mode == HS_ALP_LINEAR)
			repair_linear(alp, w, pi);
		else
			repair_maxmin(alp, w, pi, z);
	}
	free(pi);
}

/* MAXMIN: unfolds the folded items that load the types at z = 0: those
 * with a fixed demand beta > 0 and full-time mixes (whose loads do not
 * vanish with z). Every other fold needs nothing at z = 0, so once these
 * are free the folded LP is infeasible only if the full LP is. Returns
 * how many were unfolded, or -1. */
static int unfold_fixed(hs_alp_t *alp, hs_alp_work_t *w, hs_err_t *err)
{
	int n = 0;
	for (int i = 0; i < alp->n; i++) {
		int s = w->state[i];
		if (s < 0 || (alp->beta[i] <= 0.0 && w->g[s].type2 < 0))
			continue;
		if (add_free_item(alp, w, i, err) < 0)
			return -1;
		n++;
	}
	return n;
}

/* MAXMIN: folds every item again, from the LP's own prices and value
 * balanced over all items as for a first fold (balance_prices). When a
 * verify would unfold most folds, the value moved far from where the
 * items were folded (water filling's probe rounds, after the bottleneck
 * moved); unfolding them all makes an LP of thousands of rows, folding
 * them again keeps it small. */
static void refold(hs_alp_t *alp, hs_alp_work_t *w, double z)
{
	const int J = alp->J;
	double *p = malloc((size_t)J * sizeof(double));
	if (!p)
		return;
	memcpy(p, w->pi, (size_t)J * sizeof(double));
	z = balance_prices(alp, p, z);
	for (int i = 0; i < alp->n; i++)
		w->state[i] = maxmin_first_fold(alp, w, p, i, z);
	repair_maxmin(alp, w, p, z);
	free(p);
}

static hs_lp_status_t run(hs_alp_t *alp, const hs_lp_opts_t *o, int rebuild, hs_err_t *err)
{
	hs_alp_work_t *w = alp->work;
	int fixed_unfolded = 0, refolds = 0;
	for (int round = 0;; round++) {
		if (rebuild) {
			if (build(alp, w, err) < 0)
				return HS_LP_FAILED;
			rebuild = 0;
		} else if (update_folds(alp, w, err) < 0) {
			return HS_LP_FAILED;
		}
		long it0 = hs_lp_iterations(w->lp);
		hs_lp_status_t st = hs_lp_solve(w->lp, o, err);
		alp->lp_solves++;
		alp->iterations += hs_lp_iterations(w->lp) - it0;
		int nfolded = 0;
		for (int i = 0; i < alp->n; i++)
			nfolded += w->state[i] != FREE_ITEM;
		if (st == HS_LP_INFEASIBLE && nfolded > 0) {
			/* folding may have been too rigid (fixed levels): unfold
			 * what loads the types at z = 0 first (water filling's
			 * frozen items: unfolding all of them made 4,000-row LPs
			 * of 1-5 s), everything if that was not it */
			int n = 0;
			if (alp->mode == HS_ALP_MAXMIN) {
				/* once those are free, infeasible is final: every
				 * other fold needs nothing at z = 0, so the full LP
				 * is infeasible too */
				if (fixed_unfolded)
					return st;
				fixed_unfolded = 1;
				n = unfold_fixed(alp, w, err);
			}
			if (n < 0 || (n == 0 && unfold_all(alp, w, err) < 0))
				return HS_LP_FAILED;
			continue;
		}
		if (st != HS_LP_OPTIMAL)
			return st;
		read_prices(w, alp->J);
		int bad = 0;
		if (nfolded > 0) {
			double z = alp->mode == HS_ALP_MAXMIN ? hs_lp_col_value(w->lp, w->zcol) : 0.0;
			/* z at its cap: no fold can raise it, so a feasible fold
			 * (time within 1) is all it takes for the full LP's
			 * optimum */
			int capped = alp->mode == HS_ALP_MAXMIN && isfinite(alp->zmax) &&
				     z >= alp->zmax * (1.0 - 1e-12);
			bad = verify(alp, w, z, capped, 0, err);
			if (alp->mode == HS_ALP_MAXMIN && refolds < 1 && bad > 64 && bad > nfolded / 4) {
				refolds++;
				refold(alp, w, z);
				rebuild = 1;
				continue;
			}
			if (bad > 0)
				bad = verify(alp, w, z, capped, 1, err);
			if (bad < 0)
				return HS_LP_FAILED;
			if (bad > 0 && round >= MAX_ROUNDS && unfold_all(alp, w, err) < 0)
				return HS_LP_FAILED;
		}
		if (bad == 0) {
			extract(alp, w);
			alp->lp_items = alp->n - nfolded;
			return HS_LP_OPTIMAL;
		}
	}
}

/* The simplex variant measured fastest per form (bench/solve.sh): dual
 * for MAXMIN, primal for LINEAR (3-7x faster there). */
static const hs_lp_opts_t *pick_method(const hs_alp_t *alp, const hs_lp_opts_t *o, hs_lp_opts_t *buf)
{
	if (!o) {
		hs_lp_opts_default(buf);
		o = buf;
	}
	if (o->method != HS_LP_AUTO)
		return o;
	if (o != buf)
		*buf = *o;
	buf->method = alp->mode == HS_ALP_LINEAR ? HS_LP_PRIMAL : HS_LP_DUAL;
	return buf;
}

hs_lp_status_t hs_alp_solve(hs_alp_t *alp, const hs_lp_opts_t *o, hs_err_t *err)
{
	hs_lp_opts_t def;
	o = pick_method(alp, o, &def);
	alp->lp_solves = 0;
	alp->iterations = 0;
	work_free(alp->work);
	alp->work = work_new(alp, err);
	if (!alp->work)
		return HS_LP_FAILED;
	initial_folds(alp, alp->work, o);
	return run(alp, o, 1, err);
}

hs_lp_status_t hs_alp_resolve(hs_alp_t *alp, const hs_lp_opts_t *o, hs_err_t *err)
{
	hs_lp_opts_t def;
	o = pick_method(alp, o, &def);
	if (!alp->work || !alp->work->built)
		return hs_alp_solve(alp, o, err);
	/* items folded to nothing (alpha = beta = 0) may have gained a demand */
	for (int i = 0; i < alp->n; i++)
		if (alp->work->state[i] == FOLD_NONE && alp->mode == HS_ALP_MAXMIN &&
		    (alp->alpha[i] != 0.0 || alp->beta[i] != 0.0) &&
		    add_free_item(alp, alp->work, i, err) < 0)
			return HS_LP_FAILED;
	return run(alp, o, 0, err);
}
