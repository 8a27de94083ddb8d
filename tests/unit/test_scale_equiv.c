/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_scale_equiv.c — the fast paths added for large simulations give
 * exactly what the simple ones gave (doc/scale.md, "Simulator at
 * production size"), on random inputs:
 *  - placement: the bitmap index (requests without a server mask) against
 *    the linear scan (the same requests, each with an all-servers mask);
 *  - start estimates: the heap-based GPU pool against a copy of the
 *    previous sorted-array pool (qsort after every job). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "core/placement.h"
#include "core/start_est.h"

/* A small LCG: the test is the same on every run and platform. */
static unsigned long rnd(unsigned long *s)
{
	*s = *s * 6364136223846793005UL + 1442695040888963407UL;
	return (*s >> 33) & 0x7fffffff;
}

#define MAXS 300
#define MAXR 400

static void test_place_index_equals_scan(void **state)
{
	(void)state;
	static const int sizes[] = { 1, 2, 4, 8 };
	unsigned long seed = 12345;
	static char names[MAXS][16];
	static unsigned char usable[MAXS][8], all[MAXS];
	static hs_server_t srv[MAXS];
	static hs_place_req_t a[MAXR], b[MAXR];
	/* a request asks for up to 10 GPUs (its lease as many) */
	static hs_gpu_ref_t ga[MAXS * 8], gb[MAXS * 8], prev[MAXR][10];
	memset(all, 1, sizeof(all));
	for (int iter = 0; iter < 300; iter++) {
		int T = 1 + (int)(rnd(&seed) % 3), n = 1 + (int)(rnd(&seed) % MAXS);
		int uniform = rnd(&seed) % 2; /* all servers one size (the simulator) */
		int size0 = sizes[rnd(&seed) % 4];
		for (int s = 0; s < n; s++) {
			snprintf(names[s], sizeof(names[s]), "n%d", s);
			int g = uniform ? size0 : sizes[rnd(&seed) % 4];
			for (int k = 0; k < g; k++)
				usable[s][k] = rnd(&seed) % 10 != 0;
			srv[s] = (hs_server_t){ .name = names[s], .type = (int)(rnd(&seed) % T),
						.ngpus = g, .usable = usable[s] };
		}
		hs_gpu_pool_t pa, pb;
		hs_err_t err = { "" };
		assert_int_equal(hs_gpu_pool_init(&pa, srv, n, T, &err), 0);
		assert_int_equal(hs_gpu_pool_init_unique(&pb, srv, n, T, &err), 0);
		/* requests that fit in each type's free GPUs; some with a lease
		 * (GPUs of the right type, taken in server order) */
		int left[3], nr = 0, used = 0;
		for (int t = 0; t < T; t++)
			left[t] = hs_gpu_pool_count(&pa, t);
		while (nr < MAXR) {
			int t = (int)(rnd(&seed) % T), g = 1 + (int)(rnd(&seed) % 10);
			if (g > left[t]) {
				if (rnd(&seed) % 8 == 0)
					break;
				continue;
			}
			left[t] -= g;
			hs_place_req_t r = { .type = t, .ngpus = g };
			if (rnd(&seed) % 3 == 0) {
				int np = 0, s0 = (int)(rnd(&seed) % n);
				for (int s = s0; s < n && np < g; s++)
					for (int k = 0; k < srv[s].ngpus && np < g; k++)
						if (srv[s].type == t && usable[s][k] && rnd(&seed) % 2)
							prev[nr][np++] = (hs_gpu_ref_t){ s, k };
				r.prev = prev[nr];
				r.nprev = np;
			}
			a[nr] = r;
			a[nr].gpus = ga + used;
			b[nr] = r;
			b[nr].gpus = gb + used;
			b[nr].allowed = all; /* every server: the scanning path */
			used += g;
			nr++;
		}
		assert_int_equal(hs_place(&pa, a, nr, &err), 0);
		assert_int_equal(hs_place(&pb, b, nr, &err), 0);
		for (int i = 0; i < nr; i++) {
			assert_int_equal(a[i].placed, b[i].placed);
			assert_int_equal(a[i].kept, b[i].kept);
			assert_int_equal(a[i].nservers, b[i].nservers);
			assert_memory_equal(a[i].gpus, b[i].gpus, (size_t)a[i].ngpus * sizeof(*ga));
		}
		for (int t = 0; t < T; t++) {
			int sum = 0;
			for (int s = 0; s < n; s++)
				sum += srv[s].type == t ? pa.nfree[s] : 0;
			assert_int_equal(hs_gpu_pool_count(&pa, t), sum);
			assert_int_equal(hs_gpu_pool_count(&pb, t), sum);
		}
		hs_gpu_pool_free(&pa);
		hs_gpu_pool_free(&pb);
	}
}

/* ---- the previous estimator's pool, for reference ------------------------ */

static int cmp_dbl(const void *x, const void *y)
{
	double u = *(const double *)x, v = *(const double *)y;
	return u < v ? -1 : u > v;
}

static double ref_rounds_until(const hs_start_in_t *in, double t)
{
	double n = ceil((t - in->now) / in->round_s - 1e-6);
	return n < 1 ? 1 : n;
}

static double ref_occupy(double *pool, int npool, int g, double at, double dur, int forced,
			 const hs_start_in_t *in, int round_up)
{
	double t = pool[g - 1] > at ? pool[g - 1] : at;
	if (forced)
		t = at;
	else if (round_up)
		t = in->now + ref_rounds_until(in, t) * in->round_s;
	for (int k = 0; k < g; k++)
		pool[k] = (pool[k] > t ? pool[k] : t) + dur;
	qsort(pool, (size_t)npool, sizeof(*pool), cmp_dbl);
	return t;
}

static void ref_estimate(const hs_start_in_t *in, const hs_start_job_t *jobs, int njobs,
			 double *start)
{
	double *pool = malloc(((size_t)in->gpus + 1) * sizeof(*pool));
	assert_non_null(pool);
	for (int k = 0; k < in->gpus; k++)
		pool[k] = in->now;
	for (int pass = 0; pass < 3; pass++) {
		for (int i = 0; i < njobs; i++) {
			const hs_start_job_t *j = &jobs[i];
			int shared = j->share > 0 || (in->sharing && j->new_job);
			int mine = pass == 0 ? j->running
				 : pass == 1 ? !j->running && shared : !j->running && !shared;
			if (!mine)
				continue;
			if (j->gpus > in->gpus) {
				start[i] = j->running ? in->now : -1;
				continue;
			}
			double dur = j->remaining_s > 0 && isfinite(j->remaining_s) ? j->remaining_s
										  : in->unknown_s;
			if (pass == 0) {
				ref_occupy(pool, in->gpus, j->gpus, in->now, dur, 1, in, 0);
				start[i] = in->now;
			} else if (pass == 1) {
				double f = j->share > 1 ? 1 : j->share;
				/* Gavel's rule: received and elapsed both seeded
				 * with half a round (start_est.c share_start) */
				const double half = 0.5 * in->round_s;
				double n = ceil(((j->recv_s + half) / f - in->since_reset_s - half) /
						in->round_s - 1e-6);
				if (!(n >= 1))
					n = 1;
				start[i] = j->share > 0 ? in->now + n * in->round_s
					   : in->now + ref_rounds_until(in, in->next_reset) * in->round_s;
				ref_occupy(pool, in->gpus, j->gpus, start[i], dur, 1, in, 0);
			} else {
				start[i] = ref_occupy(pool, in->gpus, j->gpus, in->now + in->round_s, dur,
						      0, in, 1);
			}
		}
	}
	free(pool);
}

static void test_start_heap_equals_sorted(void **state)
{
	(void)state;
	unsigned long seed = 777;
	static hs_start_job_t jobs[600];
	static double s1[600], s2[600];
	for (int iter = 0; iter < 200; iter++) {
		int n = 1 + (int)(rnd(&seed) % 600);
		hs_start_in_t in = { .now = 3600.0 * (double)(rnd(&seed) % 100), .round_s = 360,
				     .since_reset_s = (double)(rnd(&seed) % 2000),
				     .gpus = 1 + (int)(rnd(&seed) % 300), .unknown_s = 360,
				     .sharing = (int)(rnd(&seed) % 2) };
		in.next_reset = in.now - in.since_reset_s + 1920;
		for (int i = 0; i < n; i++) {
			int g = 1 << (rnd(&seed) % 4);
			double share = rnd(&seed) % 3 == 0 ? (double)(rnd(&seed) % 100) / 100.0 : 0.0;
			jobs[i] = (hs_start_job_t){ .gpus = g, .running = rnd(&seed) % 3 == 0,
						    .share = share,
						    .recv_s = (double)(rnd(&seed) % 1000),
						    .remaining_s = rnd(&seed) % 10 == 0 ? -1
								  : 1.0 + (double)(rnd(&seed) % 100000) / 7.0,
						    .new_job = rnd(&seed) % 4 == 0 };
		}
		hs_err_t err = { "" };
		assert_int_equal(hs_start_estimate(&in, jobs, n, s1, &err), 0);
		ref_estimate(&in, jobs, n, s2);
		assert_memory_equal(s1, s2, (size_t)n * sizeof(*s1));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_index_equals_scan),
		cmocka_unit_test(test_start_heap_equals_sorted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
