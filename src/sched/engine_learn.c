/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_learn.c — the engine's side of the learned table (sched/learn.h):
 * each job's kind from its snapshot fields and hints, its reports fed to
 * the table once each (the job memo remembers the newest report time it
 * gave), and the learned or inferred rates its estimate uses
 * (estimate.h rule 4), called only with Learning=yes; and the table
 * alone as JSON (a warm start). */
#include "sched/engine_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void hs_learn_job_kind(const hs_engine_t *e, const hs_sjob_t *sj, const char *model, char *out)
{
	if (out[0])
		return; /* computed earlier this round (it is per job per round) */
	char uid[16];
	/* the uid, not the name: Slurm knows the name only through the
	 * association, which a job may lack, and a kind must not change
	 * with that */
	hs_u32_text(sj->user_id, uid); /* every job every round: not snprintf */
	hs_learn_job_t j = { .scope = (hs_learn_scope_t)e->conf.learn_scope, .user = uid,
			     .account = sj->account, .model = model, .name = sj->name,
			     .array_id = sj->array_id, .id = hs_sjob_act_id(sj) };
	hs_learn_kind(&j, out);
}

/* A job's first report on a type against the learned or inferred
 * estimate it had there in the last round (its units: measured). An
 * inferred estimate of a job with nothing learned or measured anywhere
 * is the relative-speed prior (learn.h), unit-free: not scored. */
static void score_first(hs_engine_t *e, const hs_jacct_t *ac, const hs_record_thr_t *r)
{
	int t = -1;
	for (int x = 0; x < e->ntypes && x < 64 && t < 0; x++)
		if (!strcmp(e->types[x], r->gpu))
			t = x;
	if (!ac || t < 0 || t >= e->acct_tcap || ac->meas[t] > 0)
		return;
	uint64_t bit = 1ull << t;
	int known = ac->src_learned != 0;
	for (int x = 0; x < e->ntypes && x < e->acct_tcap && !known; x++)
		known = ac->meas[x] > 0;
	if ((ac->src_learned & bit) || ((ac->src_inferred & bit) && known))
		hs_learn_score(&e->learn, (ac->src_inferred & bit) != 0, ac->thr[t], r->sps);
}

void hs_learn_job_observe(hs_engine_t *e, const hs_sjob_t *sj, const char *model,
			  const hs_record_t *rec, int64_t now)
{
	if (!rec || rec->nthr <= 0 || sj->gpus <= 0)
		return;
	hs_jmemo_t *m = hs_jmemo_get(e, sj->id);
	if (!m)
		return; /* nowhere to remember what was fed: feed nothing */
	int64_t since = m->learn_t, newest = since;
	const hs_jacct_t *ac = NULL; /* looked up at its first new report */
	char kind[HS_LEARN_KIND_MAX] = "";
	for (int i = 0; i < rec->nthr && i < HS_RECORD_MAX_TYPES; i++) {
		const hs_record_thr_t *r = &rec->thr[i];
		/* "type:shared" is a packed measurement, not the kind's
		 * rate. A report time from the future (a bad clock, a forged
		 * record) stops only that job's later reports. */
		if (r->t <= since || strchr(r->gpu, ':'))
			continue;
		if (!kind[0]) {
			hs_learn_job_kind(e, sj, model, kind);
			ac = hs_acct_find(e, sj->id);
		}
		score_first(e, ac, r);
		(void)hs_learn_observe(&e->learn, kind, sj->gpus, r->gpu, r->sps, now);
		newest = r->t > newest ? r->t : newest;
	}
	m->learn_t = newest;
}

void hs_learn_job_rates(hs_engine_t *e, hs_lmemo_t *memo, int *mix, const hs_sjob_t *sj,
			const char *model, char *lkind, char *const *names, int J, int64_t now,
			double *rate, unsigned char *inferred, double *conf)
{
	hs_learn_src_t src[J > 0 ? J : 1];
	hs_learn_job_kind(e, sj, model, lkind);
	int found;
	*mix = hs_lmemo_find(memo, lkind, sj->gpus, &found);
	if (found) {
		hs_lmemo_get_rates(memo, *mix, rate, inferred, conf);
		return;
	}
	(void)hs_learn_estimate(&e->learn, lkind, sj->gpus, (const char *const *)names, J, now, rate,
				src, conf);
	for (int j = 0; j < J; j++)
		inferred[j] = src[j] == HS_LEARN_INFERRED;
	if (*mix >= 0)
		hs_lmemo_put_rates(memo, *mix, rate, inferred, conf);
}

json_object *hs_engine_learned_save(const hs_engine_t *e)
{
	return hs_learn_save(&e->learn);
}

json_object *hs_engine_learned_export(const hs_engine_t *e, unsigned min_n)
{
	return hs_learn_export(&e->learn, min_n);
}

int hs_engine_learned_load(hs_engine_t *e, json_object *o, hs_err_t *err)
{
	return hs_learn_load(&e->learn, o, err);
}

void hs_engine_learn_stats(const hs_engine_t *e, hs_learn_stats_t *st)
{
	const hs_learn_t *l = &e->learn;
	st->kinds = l->n;
	st->refused = l->refused;
	st->outliers = l->outliers;
	st->explore_gpu_s = e->explore_s;
	st->busy_gpu_s = e->busy_s;
	for (int i = 0; i < 2; i++) {
		st->err_n[i] = l->err_n[i];
		st->err_mean[i] = l->err_n[i] ? l->err_sum[i] / (double)l->err_n[i] : NAN;
	}
}

int hs_learn_explore_on(const hs_engine_t *e)
{
	double f = e->conf.learn_explore;
	/* the share over the engine's life, so a burst is paid back later;
	 * before any GPU time is counted, exploration may start */
	return f > 0 && e->explore_s <= f * e->busy_s + 1e-9;
}

uint64_t hs_learn_optimism(int J, const hs_estimate_source_t *tsrc, const double *conf,
			   double *thr)
{
	uint64_t bits = 0;
	int known = 0;
	for (int j = 0; j < J; j++)
		known |= tsrc[j] == HS_ESTIMATE_MEASURED || tsrc[j] == HS_ESTIMATE_LEARNED;
	if (!known)
		return 0; /* the relative-speed prior everywhere: no type to try
			   * against, wherever it runs first it is measured */
	for (int j = 0; j < J && j < 64; j++) {
		/* an agnostic type of a job measured elsewhere is the least
		 * known of all (confidence 0): the mean of its own rates,
		 * before any kind of its scope has run on two types, so no
		 * speedup can be inferred. Not raising it left every row
		 * incomplete in a scope of one-job kinds (doc/learning.md) */
		double c = tsrc[j] == HS_ESTIMATE_AGNOSTIC ? 0
			 : tsrc[j] == HS_ESTIMATE_INFERRED ? conf[j] : 1;
		if (c < 0.5 && thr[j] > 0) {
			thr[j] *= 1.0 + (1.0 - c);
			bits |= 1ull << j;
		}
	}
	return bits;
}
