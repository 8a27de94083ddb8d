/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn_loo.c — how far learning's inference is from the truth on a
 * throughput table (doc/learning.md, "Inference error"): leave one out.
 * For each job type of the table (model, GPU count) and each GPU type t
 * where it has a rate, a learned table (src/sched/learn.h) holds every
 * other job type measured on every type, and this one on every type but
 * t; its estimate on t is scored as |ln(estimate / table)|. Both
 * inference rules run on the same cases (LearnInference=matrix, then
 * nearest), and the mean and median per GPU count and over all are
 * printed with their ratio.
 *
 * Usage: bench/learn_loo [--samples N] [--cases] TABLE.json
 *   --samples N   reports per learned cell (default 3)
 *   --cases       also print every case: job type, GPU type, the table's
 *                 rate and both estimates
 */
#include "core/thrtable.h"
#include "sched/learn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct errs {
	int n;
	double *v;
} errs_t;

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double mean(const errs_t *e)
{
	double s = 0;
	for (int i = 0; i < e->n; i++)
		s += e->v[i];
	return e->n ? s / e->n : NAN;
}

static double median(errs_t *e)
{
	if (!e->n)
		return NAN;
	qsort(e->v, (size_t)e->n, sizeof(double), cmp_dbl);
	return e->v[e->n / 2];
}

/* Job type jt's estimate on type t with every other job type learned
 * on every type of the table and jt on every type but t; 0 = none. */
static double leave_one_out(const hs_thrtable_t *tb, int jt, int t, int matrix_only, int samples)
{
	hs_learn_t l;
	char kind[32];
	hs_learn_init(&l, 1000000);
	l.matrix_only = matrix_only;
	for (int j = 0; j < tb->njobtypes; j++)
		for (int u = 0; u < tb->ntypes; u++) {
			double r = tb->alone[j * tb->ntypes + u];
			if (!(r > 0) || (j == jt && u == t))
				continue;
			snprintf(kind, sizeof(kind), "s/j%d", j);
			for (int k = 0; k < samples; k++)
				hs_learn_observe(&l, kind, tb->sf[j], tb->types[u], r, 1);
		}
	snprintf(kind, sizeof(kind), "s/j%d", jt);
	const char *ty[1] = { tb->types[t] };
	double rate = 0;
	hs_learn_estimate(&l, kind, tb->sf[jt], ty, 1, 2, &rate, NULL, NULL);
	hs_learn_free(&l);
	return rate;
}

int main(int argc, char **argv)
{
	int samples = 3, cases = 0;
	for (; argc > 2; argc--, argv++) {
		if (!strcmp(argv[1], "--cases")) {
			cases = 1;
		} else if (!strcmp(argv[1], "--samples") && argc > 3) {
			samples = atoi(argv[2]);
			argc--;
			argv++;
		} else {
			break;
		}
	}
	if (argc != 2 || samples < 1) {
		fprintf(stderr, "usage: learn_loo [--samples N] [--cases] TABLE.json\n");
		return 2;
	}
	hs_thrtable_t tb;
	hs_err_t err;
	if (hs_thrtable_load(&tb, argv[1], &err) < 0) {
		fprintf(stderr, "learn_loo: %s\n", err.msg);
		return 1;
	}
	enum { NSF = 5 }; /* GPU counts 1, 2, 4, 8 and all */
	static const int sfs[NSF] = { 1, 2, 4, 8, 0 };
	errs_t e[NSF][2];
	size_t cap = (size_t)tb.njobtypes * (size_t)tb.ntypes + 1;
	for (int s = 0; s < NSF; s++)
		for (int m = 0; m < 2; m++)
			e[s][m] = (errs_t){ 0, calloc(cap, sizeof(double)) };
	for (int jt = 0; jt < tb.njobtypes; jt++)
		for (int t = 0; t < tb.ntypes; t++) {
			double truth = tb.alone[jt * tb.ntypes + t];
			if (!(truth > 0))
				continue;
			double est[2] = { leave_one_out(&tb, jt, t, 1, samples),
					  leave_one_out(&tb, jt, t, 0, samples) };
			if (!(est[0] > 0) || !(est[1] > 0))
				continue; /* nothing to infer from (one type known) */
			if (cases)
				printf("case\t%s\t%d\t%s\t%.4g\t%.4g\t%.4g\n", tb.models[jt],
				       tb.sf[jt], tb.types[t], truth, est[0], est[1]);
			for (int s = 0; s < NSF; s++)
				if (sfs[s] == tb.sf[jt] || !sfs[s])
					for (int m = 0; m < 2; m++)
						e[s][m].v[e[s][m].n++] = fabs(log(est[m] / truth));
		}
	printf("%-6s %5s %12s %12s %12s %12s %7s\n", "GPUs", "cases", "matrix mean",
	       "nearest mean", "matrix med", "nearest med", "ratio");
	for (int s = 0; s < NSF; s++) {
		if (!e[s][0].n)
			continue;
		char label[8];
		snprintf(label, sizeof(label), sfs[s] ? "%d" : "all", sfs[s]);
		double m0 = mean(&e[s][0]), m1 = mean(&e[s][1]);
		printf("%-6s %5d %12.3f %12.3f %12.3f %12.3f %7.2f\n", label, e[s][0].n, m0, m1,
		       median(&e[s][0]), median(&e[s][1]), m1 / m0);
	}
	for (int s = 0; s < NSF; s++)
		for (int m = 0; m < 2; m++)
			free(e[s][m].v);
	hs_thrtable_free(&tb);
	return 0;
}
