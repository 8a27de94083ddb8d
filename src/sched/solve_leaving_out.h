/* SPDX-License-Identifier: GPL-2.0-or-later */
/* solve_leaving_out.h — a policy solve that one job's data cannot stop:
 * when the whole problem fails, the jobs that make it fail are found by
 * halving and left out (zero rows in the allocation), and the rest is
 * solved. Used by the round engine (engine.c); the solver is a callback
 * so tests can make any job fail. */
#ifndef HS_SCHED_SOLVE_LEAVING_OUT_H
#define HS_SCHED_SOLVE_LEAVING_OUT_H

#include "core/model.h"

typedef int (*hs_solve_fn)(void *arg, const hs_problem_t *p, hs_alloc_t *out, hs_err_t *err);

/* Most solves one call may make while looking for offenders (each may
 * take up to the policy's time budget). */
#define HS_LEAVE_OUT_MAX_SOLVES 48

/* Solves p with solve(arg, ...). On failure (unless it ran out of time:
 * halving would multiply that), a set of jobs that fails is split in
 * two and each half that fails is split again; a job that fails alone is
 * left out (left_out[m] = 1, left_out is [p->njobs], zeroed here). If some
 * but not all were found, the problem without them is solved and out gets all of
 * p's jobs, those left out with nothing. Returns 0 (out initialized,
 * *nleft_out jobs left out) or -1 with the first failure's message (out
 * initialized anyway: hs_alloc_free it). */
int hs_solve_leaving_out(hs_solve_fn solve, void *arg, const hs_problem_t *p, hs_alloc_t *out,
			 unsigned char *left_out, int *nleft_out, hs_err_t *err);

#endif /* HS_SCHED_SOLVE_LEAVING_OUT_H */
