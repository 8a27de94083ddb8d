/* SPDX-License-Identifier: GPL-2.0-or-later */
/* estimate.c — per-type throughput estimates from tables and measurements
 * (rules in estimate.h). */
#include "sched/estimate.h"

#include <math.h>
#include <string.h>

int hs_tables_load(hs_tables_t *tb, const hs_sconf_t *c, hs_err_t *err)
{
	memset(tb, 0, sizeof(*tb));
	for (int i = 0; i < c->ntables; i++) {
		hs_err_t e;
		if (hs_thrtable_load(&tb->t[i], c->tables[i], &e) < 0) {
			hs_thrtable_free(&tb->t[i]);
			hs_tables_free(tb);
			return hs_err_set(err, "ThroughputTable %s: %s", c->tables[i], e.msg);
		}
		tb->n = i + 1;
	}
	return 0;
}

void hs_tables_free(hs_tables_t *tb)
{
	for (int i = 0; i < tb->n; i++)
		hs_thrtable_free(&tb->t[i]);
	tb->n = 0;
}

int hs_tables_find(const hs_tables_t *tb, const char *model, int sf, int *jt)
{
	if (!tb || !model || !*model)
		return -1;
	for (int i = 0; i < tb->n; i++) {
		int k = hs_thrtable_find(&tb->t[i], model, sf);
		if (k >= 0) {
			*jt = k;
			return i;
		}
	}
	return -1;
}

const char *hs_estimate_source_name(hs_estimate_source_t s)
{
	switch (s) {
	case HS_ESTIMATE_AGNOSTIC:
		return "agnostic";
	case HS_ESTIMATE_TABLE:
		return "table";
	case HS_ESTIMATE_MEASURED:
		return "measured";
	}
	return "?";
}

/* A usable throughput, steps/s. Below one step in 11.6 days it is a
 * broken or hostile report (AdminComment holds what the job says), not a
 * measurement: such values would make the policy's coefficients span more
 * than GLPK can scale, and overflow the table-unit conversion
 * (engine_problem.c) to infinity. */
static int ok_value(double v)
{
	return isfinite(v) && v >= 1e-6 && v < 1e12;
}

hs_estimate_source_t hs_estimate(const hs_estimate_in_t *in, double *thr, double *measured)
{
	const int J = in->cluster->ntypes;
	double tab[J > 0 ? J : 1], mea[J > 0 ? J : 1];
	int jt = in->table_jt;
	int ti = in->table_known ? in->table_ti
				 : hs_tables_find(in->tables, in->model, in->scale_factor, &jt);
	int nm = 0, nt = 0, nboth = 0;
	double sum_m = 0, sum_t = 0, both_m = 0, both_t = 0;

	for (int j = 0; j < J; j++) {
		const char *name = in->cluster->names[j];
		tab[j] = ti >= 0 ? hs_thrtable_alone(&in->tables->t[ti], jt, name, 1) : 0;
		if (!ok_value(tab[j]))
			tab[j] = 0;
		mea[j] = 0;
		if (in->rec) {
			const hs_record_thr_t *r = hs_record_thr_find(in->rec, name);
			if (r && ok_value(r->sps))
				mea[j] = r->sps;
		}
		if (in->allowed && !in->allowed[j])
			continue;
		if (mea[j] > 0) {
			nm++;
			sum_m += mea[j];
		}
		if (tab[j] > 0) {
			nt++;
			sum_t += tab[j];
		}
		if (mea[j] > 0 && tab[j] > 0) {
			nboth++;
			both_m += mea[j];
			both_t += tab[j];
		}
	}
	hs_estimate_source_t src = nm ? HS_ESTIMATE_MEASURED
				 : nt ? HS_ESTIMATE_TABLE : HS_ESTIMATE_AGNOSTIC;
	double scale = nboth ? both_m / both_t : nm ? 0 : 1;
	double guess = nm ? sum_m / nm : nt ? sum_t / nt : 1.0;
	for (int j = 0; j < J; j++) {
		if (measured)
			measured[j] = mea[j];
		if (in->allowed && !in->allowed[j]) {
			thr[j] = 0;
			continue;
		}
		if (mea[j] > 0)
			thr[j] = mea[j];
		else if (tab[j] > 0 && scale > 0)
			thr[j] = tab[j] * scale;
		else
			thr[j] = guess;
	}
	return src;
}
