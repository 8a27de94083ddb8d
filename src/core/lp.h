/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp.h — a thin wrapper around GLPK for the policy engine: build an LP
 * with 0-based rows and columns, solve it quietly, read the solution, and
 * change bounds/coefficients between solves so the next solve can start
 * from the previous basis (warm start).
 *
 * Why a wrapper at all: GLPK aborts the process on invalid arguments
 * (duplicate matrix entries, out-of-range indices, inverted bounds). The
 * policies run inside slurmctld, so every call is checked here and turned
 * into an hs_err_t instead. Matrix entries are collected as triplets and
 * merged (duplicates summed, zeros dropped) before glp_load_matrix.
 *
 * GLPK's own internal errors (glp_error) abort the process through its
 * error hook unless the hook jumps away: hs_lp_solve installs a hook that
 * longjmps back into it, frees GLPK's environment as GLPK's manual
 * requires (which frees every GLPK problem object of the thread) and
 * returns HS_LP_FAILED. Every hs_lp_t created before that is dead from
 * then on: its calls fail with an error (or return 0), hs_lp_free frees
 * only the wrapper.
 *
 * GLPK prints to stdout by default; every solver call here sets its own
 * message level (GLP_MSG_OFF unless verbose, which goes to GLPK's terminal
 * output), and nothing touches GLPK's per-thread environment, so the
 * wrapper adds no global state.
 */
#ifndef HS_CORE_LP_H
#define HS_CORE_LP_H

#include "core/model.h"

typedef struct hs_lp hs_lp_t;

typedef enum hs_lp_method {
	HS_LP_PRIMAL = 0,     /* primal simplex */
	HS_LP_DUAL = 1,       /* dual simplex (falls back to primal) */
	HS_LP_INTERIOR = 2,   /* interior point (no basis; no warm start) */
	HS_LP_AUTO = 3,       /* the caller's measured choice (bench/solve.sh):
	                       * the wrapper itself treats it as HS_LP_DUAL */
} hs_lp_method_t;

typedef enum hs_lp_scale {
	HS_LP_SCALE_NONE = 0,
	HS_LP_SCALE_EXACT = 1,      /* GLPK's automatic factors rounded to
	                             * powers of two: exact (the default) */
	HS_LP_SCALE_GLPK_AUTO = 2,  /* GLPK's GLP_SF_AUTO as is (inexact
	                             * factors); for comparison and tests */
} hs_lp_scale_t;

/* A monotonic clock in seconds (CLOCK_MONOTONIC unless a test injects
 * its own). */
typedef double (*hs_clock_fn)(void *arg);
double hs_clock_monotonic(void *arg);

/* A deadline shared by several solves (a policy's one solve may call the
 * simplex many times: water filling, hierarchical rounds). A solve that
 * starts at or after the deadline fails at once; one that starts before
 * gets what is left as GLPK's time limit. */
typedef struct hs_lp_budget {
	double deadline;      /* on clock */
	double limit_s;       /* the whole budget (for messages) */
	hs_clock_fn clock;    /* NULL = hs_clock_monotonic */
	void *clock_arg;
} hs_lp_budget_t;

typedef struct hs_lp_opts {
	hs_lp_method_t method;
	int presolve;         /* GLPK's LP presolver (discards any warm basis) */
	int scale;            /* scaling before the first solve: an
	                       * hs_lp_scale_t (0 = none) */
	int warm;             /* reuse the basis left by the previous solve */
	double time_limit_s;  /* per hs_lp_solve call, 0 = none (ignored when
	                       * budget is set) */
	int iter_limit;       /* simplex iterations per hs_lp_solve call,
	                       * 0 = none; reaching it is HS_LP_ITLIM: no
	                       * answer, but unlike a time limit the same on
	                       * every machine (water filling's optional
	                       * checks, policy_wf_chain.c) */
	const hs_lp_budget_t *budget; /* shared deadline, NULL = none */
	int verbose;          /* GLPK messages (on GLPK's terminal, stdout) */
} hs_lp_opts_t;

/* The defaults: method HS_LP_AUTO (each LP family picks the simplex
 * variant measured fastest for it in bench/solve.sh; dual otherwise), no
 * presolve, exact automatic scaling (without scaling some
 * finish-time-fairness LPs took 60x longer), warm start. */
void hs_lp_opts_default(hs_lp_opts_t *o);

typedef enum hs_lp_status {
	HS_LP_OPTIMAL = 0,
	HS_LP_INFEASIBLE = 1,  /* no primal feasible solution */
	HS_LP_UNBOUNDED = 2,
	HS_LP_FAILED = 3,      /* numerical trouble / time limit / GLPK
	                        * internal error; message set */
	HS_LP_ITLIM = 4,       /* the caller's iter_limit was reached before
	                        * an answer; message set */
} hs_lp_status_t;

hs_lp_t *hs_lp_new(int maximize, hs_err_t *err);
void hs_lp_free(hs_lp_t *lp);


/* Appends n columns / rows; returns the index of the first, or -1. New
 * columns are [0, +inf) with objective 0; new rows are free. */
int hs_lp_add_cols(hs_lp_t *lp, int n, hs_err_t *err);
int hs_lp_add_rows(hs_lp_t *lp, int n, hs_err_t *err);

/* Bounds: use -INFINITY / INFINITY for "none"; lb == ub fixes. */
int hs_lp_set_col_bounds(hs_lp_t *lp, int col, double lb, double ub, hs_err_t *err);
int hs_lp_set_row_bounds(hs_lp_t *lp, int row, double lb, double ub, hs_err_t *err);
int hs_lp_set_obj(hs_lp_t *lp, int col, double coef, hs_err_t *err);

/* Adds a matrix coefficient (before the first solve; entries with the same
 * row and column are summed). */
int hs_lp_add_coef(hs_lp_t *lp, int row, int col, double val, hs_err_t *err);
/* Changes one coefficient after the matrix was loaded (the first solve
 * loads it); the basis is kept. */
int hs_lp_set_coef(hs_lp_t *lp, int row, int col, double val, hs_err_t *err);

/* Replaces column col's coefficients with rows[k] -> vals[k] (k < len;
 * rows distinct); the basis is kept. */
int hs_lp_set_col_coefs(hs_lp_t *lp, int col, int len, const int *rows, const double *vals,
			hs_err_t *err);

/* A starting basis for the next hs_lp_solve (with o->warm), e.g. one
 * built from a known solution: stat[i] for every row (nrows) and column
 * (ncols), which must be the LP's current counts. A nonbasic status that
 * does not fit a row's or column's bounds is replaced by one that does
 * (GLPK's rule). The basis need not be primal feasible, only valid: a
 * wrong count of basic variables or a singular basis makes hs_lp_solve
 * fall back to the standard basis. */
typedef enum hs_lp_stat {
	HS_LP_BASIC = 0,
	HS_LP_AT_LOWER = 1,
	HS_LP_AT_UPPER = 2,
} hs_lp_stat_t;
int hs_lp_set_start_basis(hs_lp_t *lp, int nrows, const hs_lp_stat_t *row, int ncols,
			  const hs_lp_stat_t *col, hs_err_t *err);

/* Solves; returns the status, or HS_LP_FAILED with err filled. After a
 * numerical failure of the simplex (singular or ill-conditioned basis),
 * a warm start is retried from the standard basis and then the other
 * simplex variant (primal <-> dual) from the standard basis. */
hs_lp_status_t hs_lp_solve(hs_lp_t *lp, const hs_lp_opts_t *o, hs_err_t *err);

/* The solution of the last HS_LP_OPTIMAL solve. */
double hs_lp_obj_value(const hs_lp_t *lp);
double hs_lp_col_value(const hs_lp_t *lp, int col);
/* Dual value (shadow price) of a row: d objective / d bound. */
double hs_lp_row_dual(const hs_lp_t *lp, int row);
/* Simplex iterations used by the solves so far (bench/diagnostics). */
long hs_lp_iterations(const hs_lp_t *lp);

/* Generation of this thread's GLPK environment: changes when a GLPK
 * internal error discarded every LP of the thread (see above), so owners
 * of long-lived LPs know to rebuild them. */
unsigned long hs_lp_generation(void);

#ifdef HS_LP_FAULT_INJECTION
/* Test builds only (tests/unit/test_lp_guard): the next hs_lp_solve makes
 * an invalid GLPK call inside its guarded region. */
void hs_lp_inject_glpk_error(hs_lp_t *lp);
#endif

#endif /* HS_CORE_LP_H */
