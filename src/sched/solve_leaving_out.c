/* SPDX-License-Identifier: GPL-2.0-or-later */
/* solve_leaving_out.c — see solve_leaving_out.h: solve, and on failure
 * find the jobs whose data the solver cannot handle by halving, leave
 * them out, solve the rest. */
#include "sched/solve_leaving_out.h"

#include <stdlib.h>
#include <string.h>

typedef struct search {
	hs_solve_fn solve;
	void *arg;
	const hs_problem_t *p;
	hs_job_t *jobs;            /* scratch for sub-problems */
	unsigned char *left_out;
	int nsolves;
	int exhausted;             /* HS_LEAVE_OUT_MAX_SOLVES reached */
} search_t;

/* Does the sub-problem of jobs idx[0..n) solve? */
static int sub_solves(search_t *s, const int *idx, int n)
{
	if (s->nsolves >= HS_LEAVE_OUT_MAX_SOLVES) {
		s->exhausted = 1;
		return 1; /* stop looking: treat as fine */
	}
	s->nsolves++;
	hs_problem_t sub = *s->p; /* shallow: only the job list differs */
	for (int k = 0; k < n; k++)
		s->jobs[k] = s->p->jobs[idx[k]];
	sub.njobs = n;
	sub.jobs = s->jobs;
	hs_alloc_t a;
	hs_err_t e;
	int ok = s->solve(s->arg, &sub, &a, &e) == 0;
	hs_alloc_free(&a);
	return ok;
}

/* idx[0..n) is known to fail: mark the jobs that fail alone. A failure
 * that needs two jobs together in one half is not pinned on either. */
static void find(search_t *s, const int *idx, int n)
{
	if (n == 1) {
		s->left_out[idx[0]] = 1;
		return;
	}
	int h = n / 2;
	if (!sub_solves(s, idx, h))
		find(s, idx, h);
	if (!sub_solves(s, idx + h, n - h))
		find(s, idx + h, n - h);
}

/* The solver's own time-out messages (lp.c): halving would only spend
 * the budget many times over. */
static int timed_out(const hs_err_t *e)
{
	return strstr(e->msg, "time budget") || strstr(e->msg, "time limit");
}

/* out = the allocation a of the jobs not left out, spread back to p. */
static int spread(const hs_problem_t *p, const unsigned char *left_out, const hs_alloc_t *a,
		  hs_alloc_t *out, hs_err_t *err)
{
	const int J = p->cluster.ntypes;
	int *map = malloc(((size_t)p->njobs + 1) * sizeof(*map));
	if (!map)
		return hs_err_set(err, "out of memory");
	int n = 0;
	for (int m = 0; m < p->njobs; m++)
		if (!left_out[m])
			map[n++] = m;
	for (int k = 0; k < n; k++)
		memcpy(&out->x[(size_t)map[k] * J], &a->x[(size_t)k * J], (size_t)J * sizeof(double));
	for (int i = 0; i < a->npairs; i++) {
		int idx = hs_alloc_add_pair(out, map[a->pairs[i].m], map[a->pairs[i].k], err);
		if (idx < 0) {
			free(map);
			return -1;
		}
		memcpy(out->pairs[idx].x, a->pairs[i].x, (size_t)J * sizeof(double));
	}
	out->objective = a->objective;
	free(map);
	return 0;
}

int hs_solve_leaving_out(hs_solve_fn solve, void *arg, const hs_problem_t *p, hs_alloc_t *out,
			 unsigned char *left_out, int *nleft_out, hs_err_t *err)
{
	*nleft_out = 0;
	memset(left_out, 0, (size_t)p->njobs);
	if (solve(arg, p, out, err) == 0)
		return 0;
	if (p->njobs < 1 || timed_out(err))
		return -1;
	search_t s = { .solve = solve, .arg = arg, .p = p, .left_out = left_out };
	int *idx = malloc(((size_t)p->njobs + 1) * sizeof(*idx));
	s.jobs = malloc(((size_t)p->njobs + 1) * sizeof(*s.jobs));
	if (!idx || !s.jobs) {
		free(idx);
		free(s.jobs);
		return -1; /* keep the solver's message */
	}
	for (int m = 0; m < p->njobs; m++)
		idx[m] = m;
	find(&s, idx, p->njobs);
	int n = 0, nl = 0;
	for (int m = 0; m < p->njobs; m++)
		if (left_out[m])
			nl++;
		else
			s.jobs[n++] = p->jobs[m];
	free(idx);
	int rc = -1;
	/* Every job failing alone is no job's data but the problem's (a GPU
	 * type without a price, say): the round fails with the message. */
	if (nl > 0 && nl < p->njobs) {
		hs_problem_t sub = *p;
		sub.njobs = n;
		sub.jobs = s.jobs;
		hs_alloc_t a;
		hs_err_t e;
		if (solve(arg, &sub, &a, &e) == 0) {
			hs_alloc_free(out);
			if (hs_alloc_init(out, p->njobs, p->cluster.ntypes, err) == 0 &&
			    spread(p, left_out, &a, out, err) == 0) {
				*nleft_out = nl;
				rc = 0;
			}
		}
		hs_alloc_free(&a);
	}
	if (rc < 0)
		memset(left_out, 0, (size_t)p->njobs);
	free(s.jobs);
	return rc;
}
