/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_learn.c — the engine's side of the learned table (sched/learn.h):
 * each job's kind from its snapshot fields and hints, its reports fed to
 * the table once each (the job memo remembers the newest report time it
 * gave), and the learned or inferred rates its estimate uses
 * (estimate.h rule 4), called only with Learning=yes; and the table
 * alone as JSON (a warm start). */
#include "sched/engine_impl.h"

#include <stdio.h>
#include <string.h>

void hs_learn_job_kind(const hs_engine_t *e, const hs_sjob_t *sj, const char *model, char *out)
{
	char uid[16];
	snprintf(uid, sizeof(uid), "%u", sj->user_id);
	hs_learn_job_t j = { .scope = (hs_learn_scope_t)e->conf.learn_scope,
			     .user = sj->user && *sj->user ? sj->user : uid,
			     .account = sj->account, .model = model, .name = sj->name,
			     .array_id = sj->array_id, .id = hs_sjob_act_id(sj) };
	hs_learn_kind(&j, out);
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
	char kind[HS_LEARN_KIND_MAX];
	kind[0] = '\0';
	for (int i = 0; i < rec->nthr && i < HS_RECORD_MAX_TYPES; i++) {
		const hs_record_thr_t *r = &rec->thr[i];
		/* "type:shared" is a packed measurement, not the kind's
		 * rate. A report time from the future (a bad clock, a forged
		 * record) stops only that job's later reports. */
		if (r->t <= since || strchr(r->gpu, ':'))
			continue;
		if (!kind[0])
			hs_learn_job_kind(e, sj, model, kind);
		(void)hs_learn_observe(&e->learn, kind, sj->gpus, r->gpu, r->sps, now);
		newest = r->t > newest ? r->t : newest;
	}
	m->learn_t = newest;
}

void hs_learn_job_rates(hs_engine_t *e, const hs_sjob_t *sj, const char *model,
			char *const *names, int J, int64_t now, double *rate,
			unsigned char *inferred, double *conf)
{
	hs_learn_src_t src[J > 0 ? J : 1];
	char kind[HS_LEARN_KIND_MAX];
	hs_learn_job_kind(e, sj, model, kind);
	(void)hs_learn_estimate(&e->learn, kind, sj->gpus, (const char *const *)names, J, now, rate,
				src, conf);
	for (int j = 0; j < J; j++)
		inferred[j] = src[j] == HS_LEARN_INFERRED;
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
