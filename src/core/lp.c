/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp.c — the GLPK wrapper (see lp.h): argument checks, triplet merging,
 * quiet solves with warm starts and fallbacks. */
#include "core/lp.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Generation of this thread's GLPK environment: bumped whenever a GLPK
 * internal error made hs_lp_solve free the environment, which frees every
 * glp_prob of the thread. An hs_lp_t of an older generation must never
 * touch its glp_prob again. The one piece of mutable static state of the
 * core, and on purpose: it mirrors GLPK's own per-thread environment,
 * which GLPK gives no way to query. */
static _Thread_local unsigned long glpk_generation;

typedef struct triplet {
	int row, col;
	double val;
} triplet_t;

struct hs_lp {
	glp_prob *P;
	int loaded;            /* the matrix has been handed to GLPK */
	int scaled;
	int have_basis;        /* a previous simplex solve left a basis */
	int last_interior;     /* the last solution came from glp_interior */
	triplet_t *tr;         /* pending coefficients */
	size_t ntr, captr;
	long iterations;
	unsigned long gen;     /* glpk_generation at creation */
#ifdef HS_LP_FAULT_INJECTION
	int inject;            /* hs_lp_inject_glpk_error */
#endif
};

/* P was freed with the GLPK environment after an internal error. */
static int dead(const hs_lp_t *lp)
{
	return lp->gen != glpk_generation;
}

#define DEAD_MSG "LP discarded after a GLPK internal error"

double hs_clock_monotonic(void *arg)
{
	(void)arg;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void hs_lp_opts_default(hs_lp_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->method = HS_LP_AUTO;
	o->presolve = 0;
	o->scale = HS_LP_SCALE_EXACT;
	o->warm = 1;
}

hs_lp_t *hs_lp_new(int maximize, hs_err_t *err)
{
	hs_lp_t *lp = calloc(1, sizeof(*lp));
	if (!lp) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	lp->P = glp_create_prob();
	lp->gen = glpk_generation;
	glp_set_obj_dir(lp->P, maximize ? GLP_MAX : GLP_MIN);
	return lp;
}

void hs_lp_free(hs_lp_t *lp)
{
	if (!lp)
		return;
	if (!dead(lp))
		glp_delete_prob(lp->P);
	free(lp->tr);
	free(lp);
}

/* GLPK stores sizes as int and aborts beyond ~1e8 rows/columns; stay well
 * below that. */
#define HS_LP_MAX_DIM 50000000

int hs_lp_add_cols(hs_lp_t *lp, int n, hs_err_t *err)
{
	if (dead(lp))
		return hs_err_set(err, DEAD_MSG);
	int first = glp_get_num_cols(lp->P);
	if (n < 0 || n > HS_LP_MAX_DIM - first)
		return hs_err_set(err, "LP too large (%d columns)", first + n);
	if (n == 0)
		return first;
	glp_add_cols(lp->P, n);
	for (int c = first + 1; c <= first + n; c++)
		glp_set_col_bnds(lp->P, c, GLP_LO, 0.0, 0.0);
	return first;
}

int hs_lp_add_rows(hs_lp_t *lp, int n, hs_err_t *err)
{
	if (dead(lp))
		return hs_err_set(err, DEAD_MSG);
	int first = glp_get_num_rows(lp->P);
	if (n < 0 || n > HS_LP_MAX_DIM - first)
		return hs_err_set(err, "LP too large (%d rows)", first + n);
	if (n == 0)
		return first;
	glp_add_rows(lp->P, n);
	return first;
}

/* The GLPK bound type for [lb, ub]; -1 if invalid. */
static int bound_type(double lb, double ub)
{
	if (isnan(lb) || isnan(ub) || lb > ub || lb == INFINITY || ub == -INFINITY)
		return -1;
	int hl = lb > -INFINITY, hu = ub < INFINITY;
	if (hl && hu)
		return lb == ub ? GLP_FX : GLP_DB;
	if (hl)
		return GLP_LO;
	if (hu)
		return GLP_UP;
	return GLP_FR;
}

int hs_lp_set_col_bounds(hs_lp_t *lp, int col, double lb, double ub, hs_err_t *err)
{
	if (dead(lp))
		return hs_err_set(err, DEAD_MSG);
	int t = bound_type(lb, ub);
	if (col < 0 || col >= glp_get_num_cols(lp->P))
		return hs_err_set(err, "LP: column %d out of range", col);
	if (t < 0)
		return hs_err_set(err, "LP: invalid bounds [%g, %g] on column %d", lb, ub, col);
	glp_set_col_bnds(lp->P, col + 1, t, isfinite(lb) ? lb : 0.0, isfinite(ub) ? ub : 0.0);
	return 0;
}

int hs_lp_set_row_bounds(hs_lp_t *lp, int row, double lb, double ub, hs_err_t *err)
{
	if (dead(lp))
		return hs_err_set(err, DEAD_MSG);
	int t = bound_type(lb, ub);
	if (row < 0 || row >= glp_get_num_rows(lp->P))
		return hs_err_set(err, "LP: row %d out of range", row);
	if (t < 0)
		return hs_err_set(err, "LP: invalid bounds [%g, %g] on row %d", lb, ub, row);
	glp_set_row_bnds(lp->P, row + 1, t, isfinite(lb) ? lb : 0.0, isfinite(ub) ? ub : 0.0);
	return 0;
}

int hs_lp_set_obj(hs_lp_t *lp, int col, double coef, hs_err_t *err)
{
	if (dead(lp))
		return hs_err_set(err, DEAD_MSG);
	if (col < 0 || col >= glp_get_num_cols(lp->P))
		return hs_err_set(err, "LP: column %d out of range", col);
	if (!isfinite(coef))
		return hs_err_set(err, "LP: non-finite objective coefficient on column %d", col);
	glp_set_obj_coef(lp->P, col + 1, coef);
	return 0;
}

static int glpk_stat(hs_lp_stat_t s)
{
	return s == HS_LP_BASIC ? GLP_BS : s == HS_LP_AT_UPPER ? GLP_NU : GLP_NL;
}

int hs_lp_set_start_basis(hs_lp_t *lp, int nrows, const hs_lp_stat_t *row, int ncols,
			  const hs_lp_stat_t *col, hs_err_t *err)
{
	if (dead(lp))
		return hs_err_set(err, DEAD_MSG);
	if (nrows != glp_get_num_rows(lp->P) || ncols != glp_get_num_cols(lp->P))
		return hs_err_set(err, "LP: basis for %d x %d, LP is %d x %d", nrows, ncols,
				  glp_get_num_rows(lp->P), glp_get_num_cols(lp->P));
	for (int i = 0; i < nrows; i++)
		glp_set_row_stat(lp->P, i + 1, glpk_stat(row[i]));
	for (int i = 0; i < ncols; i++)
		glp_set_col_stat(lp->P, i + 1, glpk_stat(col[i]));
	lp->have_basis = 1;
	return 0;
}

int hs_lp_add_coef(hs_lp_t *lp, int row, int col, double val, hs_err_t *err)
{
	if (dead(lp))
		return hs_err_set(err, DEAD_MSG);
	if (row < 0 || row >= glp_get_num_rows(lp->P) || col < 0 || col >= glp_get_num_cols(lp->P))
		return hs_err_set(err, "LP: coefficient (%d, %d) out of range", row, col);
	if (!isfinite(val))
		return hs_err_set(err, "LP: non-finite coefficient at (%d, %d)", row, col);
	if (val == 0.0)
		return 0;
	if (lp->ntr == lp->captr) {
		size_t cap = lp->captr ? 2 * lp->captr : 1024;
		triplet_t *n = realloc(lp->tr, cap * sizeof(*n));
		if (!n)
			return hs_err_set(err, "out of memory");
		lp->tr = n;
		lp->captr = cap;
	}
	lp->tr[lp->ntr++] = (triplet_t){ row, col, val };
	return 0;
}

/* Groups the pending triplets by row (counting sort) and merges entries
 * with the same (row, column). On return, rowstart[r]..rowstart[r+1]
 * indexes the merged entries of row r in lp->tr (zeros may remain where
 * duplicates cancelled; they are skipped by the callers). */
static int group_pending(hs_lp_t *lp, int **rowstart_out, hs_err_t *err)
{
	int R = glp_get_num_rows(lp->P), C = glp_get_num_cols(lp->P);
	int *rowstart = calloc((size_t)R + 2, sizeof(*rowstart));
	triplet_t *sorted = malloc((lp->ntr + 1) * sizeof(*sorted));
	int *mark = malloc(((size_t)C + 1) * sizeof(*mark));
	if (!rowstart || !sorted || !mark) {
		free(rowstart);
		free(sorted);
		free(mark);
		return hs_err_set(err, "out of memory");
	}
	for (size_t i = 0; i < lp->ntr; i++)
		rowstart[lp->tr[i].row + 1]++;
	for (int r = 0; r < R; r++)
		rowstart[r + 1] += rowstart[r];
	int *fill = mark; /* reuse as a cursor first: needs R entries */
	if ((size_t)R > (size_t)C) {
		fill = malloc(((size_t)R + 1) * sizeof(*fill));
		if (!fill) {
			free(rowstart);
			free(sorted);
			free(mark);
			return hs_err_set(err, "out of memory");
		}
	}
	memcpy(fill, rowstart, (size_t)R * sizeof(*fill));
	for (size_t i = 0; i < lp->ntr; i++)
		sorted[fill[lp->tr[i].row]++] = lp->tr[i];
	if (fill != mark)
		free(fill);
	/* merge duplicates within each row; mark[col] = position + 1 in the row */
	for (int c = 0; c < C; c++)
		mark[c] = -1;
	int out = 0;
	int start = 0;
	for (int r = 0; r < R; r++) {
		int end = rowstart[r + 1];
		int rs = out;
		for (int i = start; i < end; i++) {
			int c = sorted[i].col;
			if (mark[c] >= rs) {
				sorted[mark[c]].val += sorted[i].val;
			} else {
				mark[c] = out;
				sorted[out++] = sorted[i];
			}
		}
		start = end;
		rowstart[r] = rs;
	}
	rowstart[R] = out;
	free(mark);
	free(lp->tr);
	lp->tr = sorted;
	lp->ntr = (size_t)out;
	lp->captr = lp->ntr + 1;
	*rowstart_out = rowstart;
	return 0;
}

/* Hands pending coefficients to GLPK: glp_load_matrix the first time,
 * row-wise merges into the existing rows afterwards. */
static int flush(hs_lp_t *lp, hs_err_t *err)
{
	if (lp->ntr == 0 && lp->loaded)
		return 0;
	int *rowstart = NULL;
	if (group_pending(lp, &rowstart, err) < 0)
		return -1;
	int R = glp_get_num_rows(lp->P), C = glp_get_num_cols(lp->P);
	int rc = 0;
	if (!lp->loaded) {
		int ne = 0;
		int *ia = malloc((lp->ntr + 1) * sizeof(*ia));
		int *ja = malloc((lp->ntr + 1) * sizeof(*ja));
		double *ar = malloc((lp->ntr + 1) * sizeof(*ar));
		if (!ia || !ja || !ar) {
			rc = hs_err_set(err, "out of memory");
		} else {
			for (int r = 0; r < R; r++)
				for (int i = rowstart[r]; i < rowstart[r + 1]; i++) {
					if (lp->tr[i].val == 0.0)
						continue;
					ne++;
					ia[ne] = r + 1;
					ja[ne] = lp->tr[i].col + 1;
					ar[ne] = lp->tr[i].val;
				}
			glp_load_matrix(lp->P, ne, ia, ja, ar);
			lp->loaded = 1;
		}
		free(ia);
		free(ja);
		free(ar);
	} else {
		int *ind = malloc(((size_t)C + 1) * sizeof(*ind));
		double *val = malloc(((size_t)C + 1) * sizeof(*val));
		int *pos = malloc(((size_t)C + 1) * sizeof(*pos));
		if (!ind || !val || !pos) {
			rc = hs_err_set(err, "out of memory");
		} else {
			for (int c = 0; c <= C; c++)
				pos[c] = 0;
			for (int r = 0; r < R; r++) {
				if (rowstart[r] == rowstart[r + 1])
					continue;
				int len = glp_get_mat_row(lp->P, r + 1, ind, val);
				for (int k = 1; k <= len; k++)
					pos[ind[k]] = k;
				for (int i = rowstart[r]; i < rowstart[r + 1]; i++) {
					int c = lp->tr[i].col + 1;
					if (pos[c])
						val[pos[c]] += lp->tr[i].val;
					else {
						len++;
						ind[len] = c;
						val[len] = lp->tr[i].val;
						pos[c] = len;
					}
				}
				/* drop entries that became zero; reset pos */
				int n = 0;
				for (int k = 1; k <= len; k++) {
					pos[ind[k]] = 0;
					if (val[k] != 0.0) {
						n++;
						ind[n] = ind[k];
						val[n] = val[k];
					}
				}
				glp_set_mat_row(lp->P, r + 1, n, ind, val);
			}
		}
		free(ind);
		free(val);
		free(pos);
	}
	free(rowstart);
	lp->ntr = 0;
	return rc;
}

int hs_lp_set_coef(hs_lp_t *lp, int row, int col, double val, hs_err_t *err)
{
	if (dead(lp))
		return hs_err_set(err, DEAD_MSG);
	int R = glp_get_num_rows(lp->P), C = glp_get_num_cols(lp->P);
	if (row < 0 || row >= R || col < 0 || col >= C)
		return hs_err_set(err, "LP: coefficient (%d, %d) out of range", row, col);
	if (!isfinite(val))
		return hs_err_set(err, "LP: non-finite coefficient at (%d, %d)", row, col);
	if (flush(lp, err) < 0)
		return -1;
	int *ind = malloc(((size_t)C + 2) * sizeof(*ind));
	double *v = malloc(((size_t)C + 2) * sizeof(*v));
	if (!ind || !v) {
		free(ind);
		free(v);
		return hs_err_set(err, "out of memory");
	}
	int len = glp_get_mat_row(lp->P, row + 1, ind, v);
	int found = 0, n = 0;
	for (int k = 1; k <= len; k++) {
		if (ind[k] == col + 1) {
			found = 1;
			v[k] = val;
		}
		if (v[k] != 0.0) {
			n++;
			ind[n] = ind[k];
			v[n] = v[k];
		}
	}
	if (!found && val != 0.0) {
		n++;
		ind[n] = col + 1;
		v[n] = val;
	}
	glp_set_mat_row(lp->P, row + 1, n, ind, v);
	free(ind);
	free(v);
	return 0;
}

int hs_lp_set_col_coefs(hs_lp_t *lp, int col, int len, const int *rows, const double *vals,
			hs_err_t *err)
{
	if (dead(lp))
		return hs_err_set(err, DEAD_MSG);
	int R = glp_get_num_rows(lp->P), C = glp_get_num_cols(lp->P);
	if (col < 0 || col >= C || len < 0 || len > R)
		return hs_err_set(err, "LP: column %d out of range", col);
	if (flush(lp, err) < 0)
		return -1;
	int *ind = malloc(((size_t)len + 1) * sizeof(*ind));
	double *v = malloc(((size_t)len + 1) * sizeof(*v));
	char *seen = calloc((size_t)R + 1, 1);
	int rc = 0, n = 0;
	if (!ind || !v || !seen) {
		rc = hs_err_set(err, "out of memory");
		goto out;
	}
	for (int k = 0; k < len; k++) {
		if (rows[k] < 0 || rows[k] >= R || seen[rows[k]] || !isfinite(vals[k])) {
			rc = hs_err_set(err, "LP: bad coefficient for row %d of column %d", rows[k], col);
			goto out;
		}
		seen[rows[k]] = 1;
		if (vals[k] != 0.0) {
			n++;
			ind[n] = rows[k] + 1;
			v[n] = vals[k];
		}
	}
	glp_set_mat_col(lp->P, col + 1, n, ind, v);
out:
	free(ind);
	free(v);
	free(seen);
	return rc;
}

/* glp_simplex failures that another start may avoid. */
static int retryable(int rc)
{
	return rc == GLP_EBADB || rc == GLP_ESING || rc == GLP_ECOND || rc == GLP_EFAIL;
}

/* GLPK's time limit for the next solver call in ms (INT_MAX = none), or
 * -1 when the budget is used up: with a shared budget, what is left of
 * it; otherwise the per-call time_limit_s. */
static int time_left_ms(const hs_lp_opts_t *o)
{
	double left_s;
	if (o->budget) {
		const hs_lp_budget_t *b = o->budget;
		left_s = b->deadline - (b->clock ? b->clock : hs_clock_monotonic)(b->clock_arg);
		if (!(left_s > 0.0))
			return -1;
	} else if (o->time_limit_s > 0) {
		left_s = o->time_limit_s;
	} else {
		return INT_MAX;
	}
	double ms = ceil(left_s * 1000.0);
	return ms < INT_MAX ? (int)ms : INT_MAX;
}

static hs_lp_status_t time_out(const hs_lp_opts_t *o, hs_err_t *err)
{
	if (o->budget)
		hs_err_set(err, "LP solver: the time budget of the policy solve (%.3g s) is used up",
			   o->budget->limit_s);
	else
		hs_err_set(err, "LP solver hit its time limit (%.3g s)", o->time_limit_s);
	return HS_LP_FAILED;
}

static hs_lp_status_t simplex(hs_lp_t *lp, const hs_lp_opts_t *o, hs_err_t *err)
{
	glp_smcp parm;
	glp_init_smcp(&parm);
	parm.msg_lev = o->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
	parm.meth = o->method == HS_LP_PRIMAL ? GLP_PRIMAL : GLP_DUALP; /* AUTO: dual */
	parm.presolve = o->presolve ? GLP_ON : GLP_OFF;
	if ((parm.tm_lim = time_left_ms(o)) < 0)
		return time_out(o, err);
	if (o->iter_limit > 0)
		parm.it_lim = o->iter_limit;
	/* Without the presolver GLPK needs a valid basis: the standard one
	 * (all rows basic) when we have none or do not want the old one. */
	int cold = !o->warm || !lp->have_basis;
	if (!o->presolve && cold)
		glp_std_basis(lp->P);
	int it0 = glp_get_it_cnt(lp->P);
	int rc = glp_simplex(lp->P, &parm);
	/* Numerical failure (a singular or ill-conditioned basis, or GLPK's
	 * "tcol[p] = 0.0": a pivot that vanished when recomputed). glp_simplex
	 * is deterministic, so repeating the same method from the same basis
	 * fails the same way: a failed warm start is retried from the standard
	 * basis, then (or at once, after a cold start) the other simplex
	 * variant is tried from the standard basis. */
	for (int attempt = cold; !o->presolve && attempt < 2 && retryable(rc); attempt++) {
		if (attempt == 1)
			parm.meth = parm.meth == GLP_PRIMAL ? GLP_DUALP : GLP_PRIMAL;
		if ((parm.tm_lim = time_left_ms(o)) < 0) {
			rc = GLP_ETMLIM;
			break;
		}
		glp_std_basis(lp->P);
		rc = glp_simplex(lp->P, &parm);
	}
	lp->iterations += glp_get_it_cnt(lp->P) - it0 > 0 ? glp_get_it_cnt(lp->P) - it0 : 0;
	lp->last_interior = 0;
	lp->have_basis = !o->presolve && rc == 0;
	switch (rc) {
	case 0:
		break;
	case GLP_ENOPFS:
		return HS_LP_INFEASIBLE;
	case GLP_ENODFS:
		return HS_LP_UNBOUNDED; /* or infeasible; the policies' LPs are bounded */
	case GLP_ETMLIM:
		return time_out(o, err);
	case GLP_EITLIM:
		hs_err_set(err, "LP solver stopped at the iteration limit (%d)", o->iter_limit);
		return HS_LP_ITLIM;
	default:
		hs_err_set(err, "LP solver failed (GLPK glp_simplex code %d)", rc);
		return HS_LP_FAILED;
	}
	switch (glp_get_status(lp->P)) {
	case GLP_OPT:
		return HS_LP_OPTIMAL;
	case GLP_NOFEAS:
	case GLP_INFEAS:
		return HS_LP_INFEASIBLE;
	case GLP_UNBND:
		return HS_LP_UNBOUNDED;
	default:
		hs_err_set(err, "LP solver stopped without an optimal solution");
		return HS_LP_FAILED;
	}
}

static hs_lp_status_t interior(hs_lp_t *lp, const hs_lp_opts_t *o, hs_err_t *err)
{
	if (time_left_ms(o) < 0) /* glp_interior has no time limit of its own */
		return time_out(o, err);
	glp_iptcp parm;
	glp_init_iptcp(&parm);
	parm.msg_lev = o->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
	int rc = glp_interior(lp->P, &parm);
	lp->last_interior = 1;
	lp->have_basis = 0;
	if (rc == GLP_EFAIL && glp_get_num_rows(lp->P) == 0) {
		hs_err_set(err, "LP has no rows");
		return HS_LP_FAILED;
	}
	if (rc == GLP_ENOFEAS)
		return HS_LP_INFEASIBLE;
	if (rc != 0) {
		/* glp_interior gives up on some degenerate LPs: fall back to simplex */
		hs_lp_opts_t so = *o;
		so.method = HS_LP_DUAL;
		so.warm = 0;
		return simplex(lp, &so, err);
	}
	switch (glp_ipt_status(lp->P)) {
	case GLP_OPT:
		return HS_LP_OPTIMAL;
	case GLP_NOFEAS:
	case GLP_INFEAS:
		return HS_LP_INFEASIBLE;
	default:
		hs_err_set(err, "interior-point solver stopped without an optimal solution");
		return HS_LP_FAILED;
	}
}

/* hs_lp_solve inside the error guard. */
static hs_lp_status_t solve_guarded(hs_lp_t *lp, const hs_lp_opts_t *o, hs_err_t *err)
{
#ifdef HS_LP_FAULT_INJECTION
	if (lp->inject) {
		lp->inject = 0;
		glp_set_col_bnds(lp->P, 0, GLP_FX, 0.0, 0.0); /* no column 0: glp_error */
	}
#endif
	if (glp_get_num_cols(lp->P) == 0) {
		hs_err_set(err, "LP has no variables");
		return HS_LP_FAILED;
	}
	if (flush(lp, err) < 0)
		return HS_LP_FAILED;
	if (o->scale != HS_LP_SCALE_NONE && !lp->scaled) {
		/* glp_scale_prob reports on GLPK's terminal whatever the
		 * message level; mute it for this call only (the setting is
		 * GLPK's per-thread environment, restored right away). */
		int old = o->verbose ? GLP_ON : glp_term_out(GLP_OFF);
		/* GLP_SF_AUTO's factors (geometric mean + equilibration) with
		 * every factor rounded to a power of two (GLP_SF_2N), so scaling
		 * only shifts exponents and is exact. With inexact factors,
		 * coefficients that cancel exactly in the LP (a basis that is
		 * singular, a pivot that is 0) leave rounding noise that GLPK's
		 * dual simplex can take for a pivot; it then fails with "tcol[p]
		 * = 0.0", glp_simplex code 5) or report a feasible LP infeasible
		 * (tests/unit/test_regressions.c: an FTF and a water-filling
		 * problem captured from simulations). */
		glp_scale_prob(lp->P, o->scale == HS_LP_SCALE_GLPK_AUTO ? GLP_SF_AUTO
				      : GLP_SF_GM | GLP_SF_EQ | GLP_SF_2N | GLP_SF_SKIP);
		if (!o->verbose)
			glp_term_out(old);
		lp->scaled = 1;
	}
	if (o->method == HS_LP_INTERIOR && glp_get_num_rows(lp->P) > 0)
		return interior(lp, o, err);
	return simplex(lp, o, err);
}

/* GLPK calls this from glp_error instead of aborting (it aborts when the
 * hook returns): back into hs_lp_solve. */
typedef struct glpk_guard {
	jmp_buf jb;
} glpk_guard_t;

static void glpk_error_hook(void *info)
{
	longjmp(((glpk_guard_t *)info)->jb, 1);
}

/* lp, o and err are never modified here: valid after the longjmp. */
static hs_lp_status_t solve_with_hook(hs_lp_t *lp, const hs_lp_opts_t *o, hs_err_t *err)
{
	glpk_guard_t guard;
	if (setjmp(guard.jb)) {
		/* GLPK's manual (glp_error_hook): once glp_error has called the
		 * hook, the environment must be freed with glp_free_env before
		 * GLPK is used again. That frees every glp_prob of this thread. */
		glp_free_env();
		glpk_generation++;
		hs_err_set(err, "LP solver failed: GLPK internal error (GLPK printed the "
			   "reason on standard output); the solve is abandoned");
		return HS_LP_FAILED;
	}
	glp_error_hook(glpk_error_hook, &guard);
	hs_lp_status_t st = solve_guarded(lp, o, err);
	glp_error_hook(NULL, NULL);
	return st;
}

hs_lp_status_t hs_lp_solve(hs_lp_t *lp, const hs_lp_opts_t *o, hs_err_t *err)
{
	hs_lp_opts_t def;
	if (!o) {
		hs_lp_opts_default(&def);
		o = &def;
	}
	if (dead(lp)) {
		hs_err_set(err, DEAD_MSG);
		return HS_LP_FAILED;
	}
	return solve_with_hook(lp, o, err);
}

unsigned long hs_lp_generation(void)
{
	return glpk_generation;
}

#ifdef HS_LP_FAULT_INJECTION
void hs_lp_inject_glpk_error(hs_lp_t *lp)
{
	lp->inject = 1;
}
#endif

double hs_lp_obj_value(const hs_lp_t *lp)
{
	if (dead(lp))
		return 0.0;
	return lp->last_interior ? glp_ipt_obj_val(lp->P) : glp_get_obj_val(lp->P);
}

double hs_lp_col_value(const hs_lp_t *lp, int col)
{
	if (dead(lp))
		return 0.0;
	if (col < 0 || col >= glp_get_num_cols(lp->P))
		return 0.0;
	return lp->last_interior ? glp_ipt_col_prim(lp->P, col + 1) : glp_get_col_prim(lp->P, col + 1);
}

double hs_lp_row_dual(const hs_lp_t *lp, int row)
{
	if (dead(lp))
		return 0.0;
	if (row < 0 || row >= glp_get_num_rows(lp->P))
		return 0.0;
	return lp->last_interior ? glp_ipt_row_dual(lp->P, row + 1) : glp_get_row_dual(lp->P, row + 1);
}

long hs_lp_iterations(const hs_lp_t *lp)
{
	return lp->iterations;
}
