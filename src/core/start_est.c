/* SPDX-License-Identifier: GPL-2.0-or-later */
/* start_est.c — expected start times from the mechanism's state and a
 * list-scheduling pass over the GPU pool (start_est.h). */
#include "core/start_est.h"

#include <math.h>
#include <stdlib.h>

/* Tolerance when rounding times to round boundaries: a time a hair past
 * a boundary (floating point) belongs to that boundary. */
#define EST_EPS 1e-6

/* The pool of GPU free times is a binary min-heap: every query is "the g
 * earliest", so only the multiset matters, and popping g and pushing g back
 * costs O(g log G) per job instead of re-sorting all G GPUs (O(G log G)),
 * which dominated large simulations (doc/scale.md). The values computed
 * are the same as with a sorted array, so the estimates are too. */
static void heap_push(double *h, int *n, double v)
{
	int i = (*n)++;
	while (i > 0) {
		int up = (i - 1) / 2;
		if (h[up] <= v)
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = v;
}

/* Puts v into the hole at i of a heap of n values, moving smaller
 * children up: the sift-down shared by pop and heapify. */
static void heap_sift_down(double *h, int n, int i, double v)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, c = l;
		if (l >= n)
			break;
		if (r < n && h[r] < h[l])
			c = r;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

static double heap_pop(double *h, int *n)
{
	double top = h[0], v = h[--*n];
	if (*n > 0)
		heap_sift_down(h, *n, 0, v);
	return top;
}

/* Rounds after `now` until t, at least 1. */
static double rounds_until(const hs_start_in_t *in, double t)
{
	double n = ceil((t - in->now) / in->round_s - EST_EPS);
	return n < 1 ? 1 : n;
}

/* The g earliest-free GPUs of the pool (a heap of npool free times) are
 * busy from max(at, when they free up) for dur seconds; returns that
 * start. With `forced`, the job starts at `at` anyway (the mechanism
 * preempts others to give a share job its time) and only the pool's load
 * moves. taken[g] is scratch. */
static double occupy(double *pool, int npool, int g, double at, double dur, int forced,
		     const hs_start_in_t *in, int round_up, double *taken)
{
	int n = npool;
	for (int k = 0; k < g; k++)
		taken[k] = heap_pop(pool, &n); /* ascending: taken[g - 1] is the g-th */
	double t = taken[g - 1] > at ? taken[g - 1] : at;
	if (forced)
		t = at;
	else if (round_up)
		t = in->now + rounds_until(in, t) * in->round_s;
	for (int k = 0; k < g; k++)
		heap_push(pool, &n, (taken[k] > t ? taken[k] : t) + dur);
	return t;
}

static double duration(const hs_start_in_t *in, const hs_start_job_t *j)
{
	return j->remaining_s > 0 && isfinite(j->remaining_s) ? j->remaining_s : in->unknown_s;
}

static void heapify(double *h, int n)
{
	for (int i = n / 2 - 1; i >= 0; i--)
		heap_sift_down(h, n, i, h[i]);
}

/* Pass 0 at once: when the running jobs hold no more GPUs than the pool
 * has (no packed pair counted twice), each of their GPUs is one taken at
 * `now` (only `now` entries are popped before the last) and pushed back
 * at now + its job's duration; the pool is that multiset, and every
 * later pop depends on the multiset alone, so one O(G) heap build gives
 * the same estimates as G pops and pushes (which were most of a large
 * simulation's estimate time). Returns 0 when the pass must run job by
 * job. */
static int running_pool(const hs_start_in_t *in, const hs_start_job_t *jobs, int njobs,
			double *pool, double *start)
{
	long held = 0;
	for (int i = 0; i < njobs; i++)
		if (jobs[i].running && jobs[i].gpus <= in->gpus)
			held += jobs[i].gpus;
	if (held > in->gpus)
		return 0;
	int n = 0;
	for (int i = 0; i < njobs; i++) {
		const hs_start_job_t *j = &jobs[i];
		if (!j->running)
			continue;
		if (j->gpus > in->gpus) {
			start[i] = in->now;
			continue;
		}
		const double end = in->now + duration(in, j);
		for (int k = 0; k < j->gpus; k++)
			pool[n++] = end;
		start[i] = in->now;
	}
	while (n < in->gpus)
		pool[n++] = in->now;
	heapify(pool, n);
	return 1;
}

/* The share job's next round: the first n >= 1 with
 * (recv + R/2) / (E + n R + R/2) <= f, priority 1 (start_est.h). */
static double share_start(const hs_start_in_t *in, const hs_start_job_t *j)
{
	double f = j->share > 1 ? 1 : j->share;
	const double half = 0.5 * in->round_s;
	double n = ceil(((j->recv_s + half) / f - in->since_reset_s - half) / in->round_s - EST_EPS);
	if (!(n >= 1))
		n = 1;
	return in->now + n * in->round_s;
}

int hs_start_estimate(const hs_start_in_t *in, const hs_start_job_t *jobs, int njobs,
		      double *start, hs_err_t *err)
{
	if (!in || njobs < 0 || (njobs > 0 && (!jobs || !start)))
		return hs_err_set(err, "start estimate: bad arguments");
	if (!(in->round_s > 0) || !isfinite(in->now) || !(in->since_reset_s >= 0) ||
	    !(in->unknown_s > 0) || in->gpus < 0)
		return hs_err_set(err, "start estimate: bad round parameters");
	for (int i = 0; i < njobs; i++)
		if (jobs[i].gpus < 1 || !(jobs[i].share >= 0) || !(jobs[i].recv_s >= 0))
			return hs_err_set(err, "start estimate: job %d: bad input", i);
	double *pool = malloc(((size_t)in->gpus + 1) * 2 * sizeof(*pool));
	if (!pool)
		return hs_err_set(err, "out of memory");
	double *taken = pool + in->gpus + 1;
	for (int k = 0; k < in->gpus; k++)
		pool[k] = in->now; /* all equal: already a heap */
	/* pass 0: running jobs hold their GPUs; 1: share jobs come back at
	 * their round; 2: the queue of jobs without a share */
	const int first = running_pool(in, jobs, njobs, pool, start) ? 1 : 0;
	for (int pass = first; pass < 3; pass++) {
		for (int i = 0; i < njobs; i++) {
			const hs_start_job_t *j = &jobs[i];
			int shared = j->share > 0 || (in->sharing && j->new_job);
			int mine = pass == 0 ? j->running
				 : pass == 1 ? !j->running && shared
					     : !j->running && !shared;
			if (!mine)
				continue;
			if (j->gpus > in->gpus) {
				start[i] = j->running ? in->now : -1;
				continue;
			}
			if (pass == 0) {
				(void)occupy(pool, in->gpus, j->gpus, in->now, duration(in, j), 1, in, 0,
					     taken);
				start[i] = in->now;
			} else if (pass == 1) {
				start[i] = j->share > 0 ? share_start(in, j)
							 : in->now + rounds_until(in, in->next_reset) *
									     in->round_s;
				(void)occupy(pool, in->gpus, j->gpus, start[i], duration(in, j), 1, in,
					     0, taken);
			} else {
				start[i] = occupy(pool, in->gpus, j->gpus, in->now + in->round_s,
						  duration(in, j), 0, in, 1, taken);
			}
		}
	}
	free(pool);
	return 0;
}
