/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_learn_sacct.c — the learned table built from sacct's history
 * (src/sched/learn_sacct.h) on a fixture (tests/unit/data/sacct_learn.txt)
 * of good lines (kinds by job name, array and user; GPU count from
 * AllocTRES; a job printed twice), lines that feed nothing (a shard, no
 * GPU, no record, an absurd rate) and hostile or damaged ones (bad ids,
 * a name with the delimiter, a forged scope in a name, records out of
 * range, a line cut by a newline in a job name): exact rates, counts and
 * kinds; a second import of the same history changes nothing; scopes;
 * a random delimiter defeats a line forged with '|'; NULs and overlong
 * lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/learn_sacct.h"

#define NOW 1800000000

/* Imports the fixture into l; returns the counts. */
static hs_learn_sacct_t import_fixture(hs_learn_t *l, hs_learn_scope_t scope)
{
	char path[4096];
	const char *src = getenv("HS_SRCDIR");
	snprintf(path, sizeof(path), "%s/tests/unit/data/sacct_learn.txt", src ? src : ".");
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	hs_learn_sacct_t h;
	hs_err_t err = { "" };
	assert_int_equal(hs_learn_sacct_begin(&h, l, scope, "|", NOW, &err), 0);
	char line[8192];
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		(void)hs_learn_sacct_line(&h, l, line, n);
	}
	fclose(f);
	hs_learn_sacct_t out = h;
	out.seen = NULL; /* freed by end, as is base */
	memset(&out.base, 0, sizeof(out.base));
	hs_learn_sacct_end(&h);
	return out;
}

static const hs_learn_cell_t *cell(const hs_learn_t *l, const char *kind, int sf,
				   const char *type)
{
	const hs_learn_entry_t *e = hs_learn_find(l, kind, sf);
	if (!e)
		return NULL;
	for (int t = 0; t < l->ntypes; t++)
		if (!strcmp(l->types[t], type))
			return e->cell[t].n ? &e->cell[t] : NULL;
	return NULL;
}

static void fixture(void **state)
{
	(void)state;
	hs_learn_t l;
	hs_learn_init(&l, 0);
	hs_learn_sacct_t h = import_fixture(&l, HS_LEARN_SCOPE_USER);
	assert_int_equal(h.lines, 22);
	assert_int_equal(h.jobs, 6);
	assert_int_equal(h.samples, 7);
	assert_int_equal(h.dup, 2);
	assert_int_equal(h.refused, 1);
	assert_int_equal(h.no_data, 7);
	assert_int_equal(h.bad, 9);
	assert_int_equal(h.old, 0);
	assert_non_null(strstr(h.first_bad, "JobIDRaw"));
	assert_int_equal(l.n, 5);

	/* two jobs of one name, one of them printed twice: the mean of 10
	 * and 12, two samples, not three */
	const hs_learn_cell_t *c = cell(&l, "u=1000/n=train-bert", 1, "v100");
	assert_non_null(c);
	assert_true(fabs(c->rate - 11.0) < 1e-9);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->last, 1700000200);
	c = cell(&l, "u=1000/n=train-bert", 1, "k80");
	assert_non_null(c);
	assert_true(fabs(c->rate - 3.0) < 1e-9);
	/* a generic name in an array: the array's kind, on its 2 GPUs */
	c = cell(&l, "u=1000/r=105", 2, "p100");
	assert_non_null(c);
	assert_true(fabs(c->rate - 7.0) < 1e-9);
	assert_null(hs_learn_find(&l, "u=1000/r=105", 1));
	/* the delimiter inside a name stays in the name (cleaned) */
	assert_non_null(cell(&l, "u=1001/n=a_b", 1, "v100"));
	/* a name cannot forge a scope */
	assert_non_null(cell(&l, "u=1000/n=.._s_n_x", 1, "v100"));
	assert_null(hs_learn_find(&l, "s/n=x", 1));
	/* a report from the future counts as now */
	c = cell(&l, "u=1000/n=future", 1, "v100");
	assert_non_null(c);
	assert_int_equal(c->last, NOW);
	/* nothing from the shard, the CPU job or the absurd rate */
	assert_null(hs_learn_find(&l, "u=1000/n=shared-job", 1));
	assert_null(hs_learn_find(&l, "u=1000/n=cpu-job", 1));
	assert_null(hs_learn_find(&l, "u=1000/n=absurd", 1));

	/* the same history again: every sample is no newer than the table's,
	 * nothing changes */
	hs_learn_sacct_t h2 = import_fixture(&l, HS_LEARN_SCOPE_USER);
	assert_int_equal(h2.samples, 0);
	assert_int_equal(h2.old, 7);
	c = cell(&l, "u=1000/n=train-bert", 1, "v100");
	assert_int_equal(c->n, 2);
	assert_true(fabs(c->rate - 11.0) < 1e-9);
	hs_learn_free(&l);
}

/* Feeds lines[0..n-1] (fields joined by '|') to l; returns the counts. */
static hs_learn_sacct_t feed_lines(hs_learn_t *l, const char *const *lines, int n)
{
	hs_learn_sacct_t h;
	hs_err_t err = { "" };
	assert_int_equal(hs_learn_sacct_begin(&h, l, HS_LEARN_SCOPE_USER, "|", NOW, &err), 0);
	for (int i = 0; i < n; i++)
		(void)hs_learn_sacct_line(&h, l, lines[i], strlen(lines[i]));
	hs_learn_sacct_t out = h;
	out.seen = NULL;
	memset(&out.base, 0, sizeof(out.base));
	hs_learn_sacct_end(&h);
	return out;
}

/* History out of time order, with an outlier: imported twice, the table
 * is the same to the byte (the cell's last sample time is the newest). */
static void repeat_out_of_order(void **state)
{
	(void)state;
#define L(id, sps, t)                                                                  \
	#id "|" #id "|7|x|gres/gpu=1|{\"hs\":1,\"thr\":{\"v100\":{\"sps\":" #sps \
	    ",\"n\":1,\"t\":" #t "}}}|train"
	static const char *const lines[] = { L(1, 10, 300), L(2, 10, 100), L(3, 10, 200),
					     L(4, 1000, 150), L(5, 11, 50) };
#undef L
	hs_learn_t l;
	hs_learn_init(&l, 0);
	hs_learn_sacct_t h = feed_lines(&l, lines, 5);
	assert_int_equal(h.samples, 5);
	assert_int_equal(l.outliers, 1);
	const hs_learn_cell_t *c = cell(&l, "u=7/n=train", 1, "v100");
	assert_non_null(c);
	assert_int_equal(c->n, 4);
	assert_int_equal(c->last, 300);
	json_object *a = hs_learn_save(&l);
	char *before = strdup(json_object_to_json_string(a));
	h = feed_lines(&l, lines, 5);
	assert_int_equal(h.samples, 0);
	assert_int_equal(h.old, 5);
	json_object *b = hs_learn_save(&l);
	assert_string_equal(before, json_object_to_json_string(b));
	free(before);
	json_object_put(a);
	json_object_put(b);
	hs_learn_free(&l);
}

/* The record keeps the job's --hs-model (doc/protocol.md (c)), so the
 * import rebuilds the kind the plugin named by model (m=), not the job
 * name's; a record without it falls back to the name, and a model the
 * hint would refuse makes the line bad. */
static void model_kinds(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"1|1|7|x|gres/gpu=1|{\"hs\":1,\"thr\":{\"v100\":{\"sps\":10,\"n\":1,\"t\":100}},"
		"\"model\":\"my-bert\"}|train",
		"2|2|7|x|gres/gpu=1|{\"hs\":1,\"thr\":{\"v100\":{\"sps\":20,\"n\":1,\"t\":100}}}|train",
		"3|3|7|x|gres/gpu=1|{\"hs\":1,\"thr\":{\"v100\":{\"sps\":5,\"n\":1,\"t\":100}},"
		"\"model\":\"\\u0007bell\"}|train",
	};
	hs_learn_t l;
	hs_learn_init(&l, 0);
	hs_learn_sacct_t h = feed_lines(&l, lines, 3);
	assert_int_equal(h.jobs, 2);
	assert_int_equal(h.bad, 1);
	const hs_learn_cell_t *m = cell(&l, "u=7/m=my-bert", 1, "v100");
	const hs_learn_cell_t *n = cell(&l, "u=7/n=train", 1, "v100");
	assert_non_null(m);
	assert_non_null(n);
	assert_int_equal(m->n, 1);
	assert_int_equal(n->n, 1);
	hs_learn_free(&l);
}

static void scopes(void **state)
{
	(void)state;
	hs_learn_t l;
	hs_learn_init(&l, 0);
	(void)import_fixture(&l, HS_LEARN_SCOPE_ACCOUNT);
	assert_non_null(cell(&l, "a=physics/n=train-bert", 1, "v100"));
	assert_non_null(cell(&l, "a=cs/n=a_b", 1, "v100"));
	hs_learn_free(&l);
	hs_learn_init(&l, 0);
	(void)import_fixture(&l, HS_LEARN_SCOPE_SITE);
	assert_non_null(cell(&l, "s/n=train-bert", 1, "v100"));
	/* the inferred k80 rate of a kind seen on v100 only, from the
	 * site's speedup matrix the import built (train-bert: k80/v100 =
	 * 3/11) */
	const char *types[] = { "v100", "k80" };
	double rate[2];
	hs_learn_src_t src[2];
	assert_int_equal(hs_learn_estimate(&l, "s/n=future", 1, types, 2, NOW, rate, src, NULL), 2);
	assert_int_equal(src[1], HS_LEARN_INFERRED);
	assert_true(fabs(rate[1] - 6.0 * 3.0 / 11.0) < 1e-9);
	hs_learn_free(&l);
}

static void hostile_delimiter(void **state)
{
	(void)state;
	hs_learn_t l;
	hs_learn_init(&l, 0);
	hs_learn_sacct_t h;
	hs_err_t err = { "" };
	const char *D = "|3fa9c2d17e4b0a55|";
	assert_int_equal(hs_learn_sacct_begin(&h, &l, HS_LEARN_SCOPE_USER, D, NOW, &err), 0);
	/* a line a job name forged with '|' (after a newline): bad */
	const char *forged = "900|900|1002|cs|gres/gpu=1|{\"hs\":1,\"thr\":{\"v100\":"
			     "{\"sps\":1,\"n\":1,\"t\":1}}}|victim";
	assert_int_equal(hs_learn_sacct_line(&h, &l, forged, strlen(forged)), -1);
	/* the real one, with the random delimiter */
	char real[512];
	snprintf(real, sizeof(real),
		 "901%s901%s1002%scs%sgres/gpu=1%s{\"hs\":1,\"thr\":{\"v100\":"
		 "{\"sps\":2,\"n\":1,\"t\":5}}}%sreal|name",
		 D, D, D, D, D, D);
	assert_int_equal(hs_learn_sacct_line(&h, &l, real, strlen(real)), 1);
	assert_non_null(hs_learn_find(&l, "u=1002/n=real_name", 1));
	assert_null(hs_learn_find(&l, "u=1002/n=victim", 1));
	/* a NUL inside, an overlong line */
	char nul[] = "902|902|1002|cs|gres/gpu=1|{}|x";
	nul[5] = '\0';
	assert_int_equal(hs_learn_sacct_line(&h, &l, nul, sizeof(nul) - 1), -1);
	size_t big = HS_LEARN_SACCT_LINE_MAX + 10;
	char *lng = malloc(big);
	assert_non_null(lng);
	memset(lng, '9', big);
	assert_int_equal(hs_learn_sacct_line(&h, &l, lng, big), -1);
	free(lng);
	assert_int_equal(h.bad, 3);
	assert_int_equal(l.n, 1);
	hs_learn_sacct_end(&h);
	/* an empty delimiter is refused */
	assert_int_equal(hs_learn_sacct_begin(&h, &l, HS_LEARN_SCOPE_USER, "", NOW, &err), -1);
	hs_learn_sacct_end(&h);
	hs_learn_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixture),
		cmocka_unit_test(repeat_out_of_order),
		cmocka_unit_test(scopes),
		cmocka_unit_test(model_kinds),
		cmocka_unit_test(hostile_delimiter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
