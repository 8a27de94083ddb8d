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
	case HS_ESTIMATE_LEARNED:
		return "learned";
	case HS_ESTIMATE_INFERRED:
		return "inferred";
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

/* The learned rate of type j when it is usable (0 otherwise). */
static double learned_at(const hs_estimate_in_t *in, int j)
{
	return in->learned && ok_value(in->learned[j]) ? in->learned[j] : 0;
}

/* thr[j] of an allowed type from the sums of hs_estimate, and its
 * source (rules 2-5 of estimate.h). */
static hs_estimate_source_t pick(const hs_estimate_in_t *in, int j, double mea, double tab,
				 double scale, double lscale, double guess, double *thr)
{
	double lv = learned_at(in, j);
	if (mea > 0) {
		*thr = mea;
		return HS_ESTIMATE_MEASURED;
	}
	if (tab > 0 && scale > 0) {
		*thr = tab * scale;
		return HS_ESTIMATE_TABLE;
	}
	if (lv > 0) {
		*thr = lv * lscale;
		return in->learned_inferred && in->learned_inferred[j] ? HS_ESTIMATE_INFERRED
								       : HS_ESTIMATE_LEARNED;
	}
	*thr = guess;
	return HS_ESTIMATE_AGNOSTIC;
}

hs_estimate_source_t hs_estimate(const hs_estimate_in_t *in, double *thr, double *measured)
{
	const int J = in->cluster->ntypes;
	double tab[J > 0 ? J : 1], mea[J > 0 ? J : 1];
	int jt = in->table_jt;
	int ti = in->table_known ? in->table_ti
				 : hs_tables_find(in->tables, in->model, in->scale_factor, &jt);
	int nm = 0, nt = 0, nboth = 0, nlboth = 0, nl = 0, ninf = 0;
	double sum_m = 0, sum_t = 0, both_m = 0, both_t = 0, lboth_m = 0, lboth_l = 0;

	double raw[J > 0 ? J : 1];
	/* the job's model is in a table that has the type and says 0: it
	 * cannot run there (Gavel's tables: out of memory, e.g. ResNet-50 at
	 * batch 128 on 2+ K80s). Not a gap for the other rules to fill with
	 * a guess: a heterogeneity-agnostic policy (FIFO) placed such jobs
	 * there and they never progressed. */
	unsigned char cannot[J > 0 ? J : 1];
	for (int j = 0; j < J; j++) {
		const char *name = in->cluster->names[j];
		const hs_thrtable_t *t = ti >= 0 ? &in->tables->t[ti] : NULL;
		const int col = !t ? -1 : in->table_col ? in->table_col[j]
							: hs_thrtable_type_index(t, name);
		tab[j] = t ? hs_thrtable_alone_at(t, jt, col, 1) : 0;
		cannot[j] = t && tab[j] == 0.0 && col >= 0;
		if (!ok_value(tab[j]))
			tab[j] = 0;
		mea[j] = 0;
		if (in->rec) {
			const hs_record_thr_t *r = hs_record_thr_find(in->rec, name);
			if (r && ok_value(r->sps))
				mea[j] = r->sps;
		}
		raw[j] = mea[j];
	}
	/* ... unless that leaves the job no type at all (it asked for only
	 * such types, or a site table says so everywhere): a job with no
	 * usable type in the problem would hold every job's max-min level
	 * at 0, so it keeps the other rules' estimates, as before */
	int left = 0;
	for (int j = 0; j < J; j++)
		left += (!in->allowed || in->allowed[j]) && !cannot[j];
	for (int j = 0; !left && j < J; j++)
		cannot[j] = 0;
	unsigned bits = 0;
	if (in->bound) {
		hs_bound_in_t bi = *in->bound;
		bi.ntypes = J;
		bi.table = tab;
		bits |= hs_bound_measured(&bi, mea);
	}
	for (int j = 0; j < J; j++) {
		if (in->allowed && !in->allowed[j])
			continue;
		double lv = learned_at(in, j);
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
		if (mea[j] > 0 && lv > 0) {
			nlboth++;
			lboth_m += mea[j];
			lboth_l += lv;
		}
		if (lv > 0 && in->learned_inferred && in->learned_inferred[j])
			ninf++;
		else if (lv > 0)
			nl++;
	}
	hs_estimate_source_t src = nm ? HS_ESTIMATE_MEASURED
				 : nt ? HS_ESTIMATE_TABLE
				 : nl ? HS_ESTIMATE_LEARNED
				 : ninf ? HS_ESTIMATE_INFERRED : HS_ESTIMATE_AGNOSTIC;
	double scale = nboth ? both_m / both_t : nm ? 0 : 1;
	/* learned rates are in the units of the kind's reports, which a
	 * job's own measurements may differ from (another input size) */
	double lscale = nlboth ? lboth_m / lboth_l : 1;
	double guess = nm ? sum_m / nm : nt ? sum_t / nt : 1.0;
	for (int j = 0; j < J; j++) {
		if (measured)
			measured[j] = raw[j];
		hs_estimate_source_t ts = HS_ESTIMATE_AGNOSTIC;
		if (in->allowed && !in->allowed[j]) {
			thr[j] = 0;
		} else if (cannot[j] && !(mea[j] > 0)) { /* a measurement says it can */
			thr[j] = 0;
			ts = HS_ESTIMATE_TABLE;
		} else {
			ts = pick(in, j, mea[j], tab[j], scale, lscale, guess, &thr[j]);
		}
		if (in->type_src)
			in->type_src[j] = ts;
	}
	if (in->bound) {
		hs_bound_in_t bi = *in->bound;
		bi.ntypes = J;
		bits |= hs_bound_ratios(&bi, thr);
	}
	if (in->bounded)
		*in->bounded = bits;
	return src;
}
