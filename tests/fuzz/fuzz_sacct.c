/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_sacct.c — libFuzzer target for the sacct history `hetsched
 * learned --from-sacct` reads (src/sched/learn_sacct.h): job names and
 * much of the records come from users. Input: the first byte picks the
 * scope (mod 3) and the delimiter (bit 2: "|" or "|ab|"); the rest is
 * sacct's output, lines separated by '\n'. Properties:
 *  - every line is one of fed (1), nothing to feed (0) or bad (-1), and
 *    the counts add up: jobs + no_data + bad = lines;
 *  - every cell of the table is within the bounds (rate in [1e-6, 1e12),
 *    samples >= 1, last sample no later than now), every kind starts
 *    with the scope's prefix and holds only [A-Za-z0-9._+@-/=];
 *  - importing the same input again feeds nothing and leaves the table
 *    the same to the byte (the merge rule);
 *  - every kind's estimates at its own and other GPU counts (inference
 *    across types and counts) are within the bounds, with a source and a
 *    confidence in [0, 1] exactly where there is a rate.
 * Run with tests/fuzz/run.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sched/learn_sacct.h"

#define NOW 1800000000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

/* One import of the lines of text[0..len-1]; returns the counts. */
static hs_learn_sacct_t import(hs_learn_t *l, hs_learn_scope_t scope, const char *delim,
			       const char *text, size_t len)
{
	hs_learn_sacct_t h;
	hs_err_t err = { "" };
	check(hs_learn_sacct_begin(&h, l, scope, delim, NOW, &err) == 0);
	long calls = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		int rc = hs_learn_sacct_line(&h, l, text + i, n);
		check(rc >= -1 && rc <= 1);
		calls++;
		i += n + 1;
	}
	check(h.lines == calls);
	check(h.jobs + h.no_data + h.bad == h.lines);
	hs_learn_sacct_t out = h;
	out.seen = NULL;
	memset(&out.base, 0, sizeof(out.base));
	hs_learn_sacct_end(&h);
	return out;
}

static void check_table(const hs_learn_t *l, const char *prefix)
{
	for (int i = 0; i < l->n; i++) {
		const hs_learn_entry_t *e = &l->e[i];
		check(!strncmp(e->kind, prefix, strlen(prefix)) && e->sf > 0);
		for (const char *p = e->kind; *p; p++)
			check((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9') || strchr("._+@-/=", *p));
		for (int t = 0; t < l->ntypes; t++) {
			const hs_learn_cell_t *c = &e->cell[t];
			if (c->n)
				check(c->rate >= 1e-6 && c->rate < 1e12 && c->last <= NOW);
		}
	}
}

/* Estimates of every kind at a few GPU counts on the table's types and
 * one it does not know. */
static void check_estimates(hs_learn_t *l)
{
	static const int counts[] = { 1, 2, 3, 8, 1024 };
	const char *types[HS_LEARN_TYPES + 1];
	int n = 0;
	for (int t = 0; t < l->ntypes; t++)
		types[n++] = l->types[t];
	types[n++] = "no-such-type";
	for (int i = 0; i < l->n && i < 64; i++)
		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			double rate[HS_LEARN_TYPES + 1], conf[HS_LEARN_TYPES + 1];
			hs_learn_src_t src[HS_LEARN_TYPES + 1];
			char kind[HS_LEARN_KIND_MAX];
			memcpy(kind, l->e[i].kind, sizeof(kind));
			int got = hs_learn_estimate(l, kind, counts[k], types, n, NOW, rate, src,
						    conf);
			int have = 0;
			for (int j = 0; j < n; j++) {
				if (rate[j] > 0) {
					have++;
					check(rate[j] >= 1e-6 && rate[j] < 1e12 &&
					      src[j] != HS_LEARN_NONE && conf[j] >= 0 && conf[j] <= 1);
				} else {
					check(rate[j] == 0 && src[j] == HS_LEARN_NONE && conf[j] == 0);
				}
			}
			check(got == have && rate[n - 1] == 0);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefix[] = { "u=", "a=", "s/" };
	if (size < 1)
		return 0;
	hs_learn_scope_t scope = (hs_learn_scope_t)(data[0] % 3);
	const char *delim = data[0] & 4 ? "|ab|" : "|";
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	hs_learn_t l;
	hs_learn_init(&l, 0);
	(void)import(&l, scope, delim, text, len);
	check_table(&l, prefix[scope]);
	json_object *a = hs_learn_save(&l);
	char *before = a ? strdup(json_object_to_json_string(a)) : NULL;
	hs_learn_sacct_t h = import(&l, scope, delim, text, len);
	check(h.samples == 0);
	json_object *b = hs_learn_save(&l);
	if (before && b)
		check(!strcmp(before, json_object_to_json_string(b)));
	free(before);
	json_object_put(a);
	json_object_put(b);
	/* after the comparison: an estimate marks its kind seen */
	check_estimates(&l);
	hs_learn_free(&l);
	return 0;
}
