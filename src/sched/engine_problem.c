/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_problem.c — the "snapshot -> problem" stage of the round
 * (hs_build_round): runs the classification (engine_classify.c: types,
 * GPU owners, roles, servers), then builds the core problem from the jobs
 * it admits (types with usable counts; jobs with throughput estimates,
 * weights, entities, remaining work and age) and where active jobs run
 * now. The working arrays live in one scratch (engine_scratch.h) with one
 * init and one free. See engine.h for the rules; the non-obvious choices
 * are commented where they are made.
 */
#include "sched/engine_scratch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hs_build_free(hs_round_build_t *b)
{
	if (!b)
		return;
	hs_problem_free(&b->problem);
	free(b->servers);
	free(b->usable);
	free(b->usable_space);
	free(b->node_server);
	free(b->run);
	free(b->home);
	free(b->run_space);
	free(b->pjob_snap);
	free(b->snap_pjob);
	free(b->role);
	free(b->busy);
	free(b->hints);
	free(b->requeue_kept);
	free(b->owner);
	free(b->owner2);
	free(b->owner_base);
	free(b->src);
	free(b->tsrc);
	free(b->lconf);
	free(b->explore);
	free(b->meas);
	free(b->bounded);
	free(b->tab_maxr);
	free(b->tab_col);
	hs_lmemo_free(b->lmemo);
	free(b->units);
	free(b->tmap);
	if (b->job_servers)
		for (int k = 0; k < b->njob_servers; k++)
			free(b->job_servers[k]);
	free(b->job_servers);
	memset(b, 0, sizeof(*b));
}

/* The table's pair throughputs are in the table's units, a job's
 * estimates (jb->thr) in the job's own: measured steps/s replace table
 * values (estimate.h), and a job measures its table rate times a factor
 * (the emulator's --time-scale, real GPUs against Gavel's), while a job
 * not measured yet is in table units. The packed policies (and FIFO's and
 * Gandiva's packing) compare a pair's throughput with the job's alone
 * throughput, so with mixed units every pair of measured jobs looked that
 * factor slower than time slicing and the policy unpacked them all.
 * Pair rows are per job type, units are per job: so each job of a table
 * job type is put into table units instead, dividing its throughputs AND
 * its remaining steps by its factor r (mean over GPU types of estimate /
 * table-alone). Times (steps / throughput) are unchanged, so are every
 * policy's time-based inputs; max-min fairness normalizes each job by its
 * own throughput anyway; the ratios between GPU types stay the job's. */
static void jobs_in_table_units(const hs_thrtable_t *t, hs_problem_t *pb, const int *tab_jt,
				double *units)
{
	const int J = pb->cluster.ntypes;
	for (int k = 0; k < pb->njobs; k++) {
		hs_job_t *jb = &pb->jobs[k];
		double sum = 0;
		int n = 0;
		if (tab_jt[k] < 0)
			continue;
		for (int j = 0; j < J; j++) {
			double tab = hs_thrtable_alone(t, tab_jt[k], pb->cluster.names[j], 1);
			if (tab > 0 && isfinite(tab) && jb->thr[j] > 0 && isfinite(jb->thr[j])) {
				sum += jb->thr[j] / tab;
				n++;
			}
		}
		double r = n ? sum / n : 1.0;
		/* Estimates are within [1e-6, 1e12) (estimate.c), table rows
		 * too: r is a time scale or a hardware factor. One outside
		 * this band leaves the job in its own units rather than
		 * pushing its numbers towards 0 or infinity. */
		if (!(r >= 1e-6 && r <= 1e6) || r == 1.0)
			continue;
		for (int j = 0; j < J; j++)
			jb->thr[j] /= r;
		jb->remaining_steps /= r;
		if (!(jb->remaining_steps >= 1.0))
			jb->remaining_steps = 1.0;
		units[k] = r;
	}
}

/* Sort keys: job id in the high half, snapshot index in the low. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int hs_scratch_init(hs_round_scratch_t *sc, const hs_snap_t *s)
{
	const size_t N = (size_t)s->nnodes, M = (size_t)s->njobs;
	memset(sc, 0, sizeof(*sc));
	sc->nnodes = s->nnodes;
	sc->njobs = s->njobs;
	sc->nparts = s->nparts;
	sc->node_managed = calloc(N + 1, 1);
	sc->node_bad = calloc(N + 1, 1);
	sc->node_type = malloc((N + 1) * sizeof(int));
	sc->node_base = calloc(N + 1, sizeof(int));
	sc->tnames = calloc(N + 1, sizeof(char *));
	sc->unmod = calloc(M + 1, 1);
	sc->cands = malloc((M + 1) * sizeof(*sc->cands));
	sc->order = malloc((M + 1) * sizeof(int));
	sc->keys = malloc((M + 1) * sizeof(*sc->keys));
	return sc->node_managed && sc->node_bad && sc->node_type && sc->node_base && sc->tnames &&
	       sc->unmod && sc->cands && sc->order && sc->keys ? 0 : -1;
}

int hs_scratch_size_types(hs_round_scratch_t *sc)
{
	const size_t J = (size_t)sc->ntypes, G = (size_t)sc->total_gpus;
	sc->type_total = calloc(J + 1, sizeof(int));
	sc->type_maxnode = calloc(J + 1, sizeof(int));
	sc->count = calloc(J + 1, sizeof(int));
	sc->part_types = calloc((size_t)sc->nparts * J + 1, 1);
	/* at least one column, so a round without types has a valid row */
	sc->allowed = calloc((size_t)sc->njobs * (J ? J : 1) + 1, 1);
	sc->node_owner = malloc((G + 1) * sizeof(int));
	sc->node_owner2 = malloc((G + 1) * sizeof(int));
	return sc->type_total && sc->type_maxnode && sc->count && sc->part_types && sc->allowed &&
	       sc->node_owner && sc->node_owner2 ? 0 : -1;
}

void hs_scratch_free(hs_round_scratch_t *sc)
{
	free(sc->node_managed);
	free(sc->node_bad);
	free(sc->node_type);
	free(sc->node_base);
	free(sc->tnames);
	free(sc->unmod);
	free(sc->cands);
	free(sc->order);
	free(sc->keys);
	free(sc->type_total);
	free(sc->type_maxnode);
	free(sc->count);
	free(sc->part_types);
	free(sc->allowed);
	free(sc->node_owner);
	free(sc->node_owner2);
	memset(sc, 0, sizeof(*sc));
}

/* The per snapshot job arrays of the round build. */
static int build_job_arrays(hs_round_build_t *b, const hs_snap_t *s)
{
	const size_t N = (size_t)s->nnodes, M = (size_t)s->njobs;
	b->role = calloc(M + 1, sizeof(*b->role));
	b->busy = calloc(M + 1, 1);
	b->hints = calloc(M + 1, sizeof(*b->hints));
	b->requeue_kept = calloc(M + 1, 1);
	b->snap_pjob = malloc((M + 1) * sizeof(int));
	b->node_server = malloc((N + 1) * sizeof(int));
	return b->role && b->busy && b->hints && b->requeue_kept && b->snap_pjob && b->node_server ? 0 : -1;
}

/* The jobs of the problem (sc->order, sc->npj), in job id order
 * (deterministic, like the tests). Jobs that cannot fit this round (asked
 * for more GPUs than are usable on every type they may use) stay out of
 * it: the policy needs every job to have a usable type. */
static void select_problem_jobs(const hs_snap_t *s, hs_round_scratch_t *sc, hs_round_build_t *b)
{
	const int J = sc->ntypes;
	int npj = 0;
	for (int i = 0; i < s->njobs; i++) {
		if (b->role[i] != HS_ROLE_ACTIVE && b->role[i] != HS_ROLE_LEAVING)
			continue;
		int fits = 0;
		for (int j = 0; j < J; j++)
			if (sc->allowed[(size_t)i * J + j] &&
			    hs_nodes_usable(b, s, &s->jobs[i], j, sc->count[j]) >= s->jobs[i].gpus)
				fits = 1;
		if (!fits) {
			if (b->role[i] == HS_ROLE_ACTIVE && s->jobs[i].state != HS_SJ_PENDING) {
				/* Running where it is: keep it there. */
				fits = 1;
			} else {
				/* a leaving job with nowhere to go is left out
				 * too (its op continues) */
				if (b->role[i] != HS_ROLE_LEAVING) {
					b->role[i] = HS_ROLE_NOFIT;
					b->busy[i] = 1;
				}
				continue;
			}
		}
		sc->order[npj++] = i;
	}
	int sorted = 1;
	for (int k = 0; k < npj; k++) {
		sc->keys[k] = ((uint64_t)s->jobs[sc->order[k]].id << 32) | (uint32_t)sc->order[k];
		sorted &= k == 0 || sc->keys[k - 1] < sc->keys[k];
	}
	/* snapshots usually list jobs in id order already: then no sort */
	if (!sorted)
		qsort(sc->keys, (size_t)npj, sizeof(*sc->keys), cmp_u64);
	for (int k = 0; k < npj; k++)
		sc->order[k] = (int)(sc->keys[k] & 0xffffffffu);
	sc->npj = npj;
}

/* The problem's cluster (types, usable counts) and room for its jobs,
 * their entities, where they run and their estimates. */
static int init_problem(const hs_snap_t *s, const hs_round_scratch_t *sc, hs_round_build_t *b,
			hs_err_t *err)
{
	const int J = sc->ntypes, npj = sc->npj;
	hs_problem_t *pb = &b->problem;
	if (hs_cluster_init(&pb->cluster, J, err) < 0)
		return -1;
	for (int j = 0; j < J; j++) {
		if (!(pb->cluster.names[j] = strdup(sc->tnames[j])))
			return hs_err_set(err, "out of memory");
		pb->cluster.count[j] = sc->count[j];
	}
	pb->reference_type = -1;
	if (hs_problem_alloc_jobs(pb, npj, err) < 0)
		return -1;
	b->pjob_snap = malloc(((size_t)npj + 1) * sizeof(int));
	b->run = calloc((size_t)npj + 1, sizeof(*b->run));
	b->home = calloc((size_t)npj + 1, sizeof(*b->home));
	/* One entry per GPU held by a running job: up to two jobs per GPU
	 * when packed, so count the holdings, not the cluster's GPUs. */
	size_t nheld_all = 0;
	for (int i = 0; i < s->njobs; i++)
		nheld_all += (size_t)(s->jobs[i].nheld > 0 ? s->jobs[i].nheld : 0);
	b->run_space = malloc((nheld_all + 1) * sizeof(*b->run_space));
	b->src = calloc((size_t)npj + 1, sizeof(*b->src));
	b->meas = calloc((size_t)npj * (size_t)J + 1, sizeof(double));
	b->units = malloc(((size_t)npj + 1) * sizeof(double));
	b->tsrc = calloc((size_t)npj * (size_t)J + 1, 1);
	b->lconf = malloc(((size_t)npj + 1) * sizeof(double));
	b->explore = calloc((size_t)npj + 1, sizeof(uint64_t));
	b->bounded = calloc((size_t)npj + 1, sizeof(unsigned));
	if (!b->pjob_snap || !b->run || !b->home || !b->run_space || !b->src || !b->meas || !b->units ||
	    !b->tsrc || !b->lconf || !b->explore || !b->bounded)
		return hs_err_set(err, "out of memory");
	for (int k = 0; k < npj; k++) {
		b->units[k] = 1.0;
		b->lconf[k] = 1.0;
	}
	return 0;
}

/* The job's AdminComment record (engine_reccache.c: parsed once per
 * text); NULL when it has none or an unreadable one (logged at debug
 * level). */
static const hs_record_t *job_record(hs_engine_t *e, const hs_sjob_t *sj, hs_record_t *rec)
{
	if (sj->record)
		return hs_packmeas_filter(e, sj->id, sj->record, rec);
	if (!sj->admin_comment || !*sj->admin_comment)
		return NULL;
	hs_err_t re = { "" };
	const hs_record_t *r = hs_reccache_get(e, sj->id, sj->admin_comment, rec, &re);
	if (!r)
		hs_engine_logf(e, HS_LOG_DEBUG, "job %u: AdminComment ignored: %s", sj->id, re.msg);
	/* rates sampled while it shared a GPU are not its own */
	return hs_packmeas_filter(e, sj->id, r, rec);
}

/* Problem job k's throughput estimates (jb->thr, b->src, b->meas); a type
 * where the job cannot fit this round is not usable. Returns the mean
 * over the usable types (1 without any). */
static double job_estimates(hs_engine_t *e, const hs_snap_t *s, const hs_round_scratch_t *sc,
			    hs_round_build_t *b, int k, const hs_record_t *recp)
{
	const int J = sc->ntypes, i = sc->order[k];
	const hs_sjob_t *sj = &s->jobs[i];
	hs_problem_t *pb = &b->problem;
	hs_job_t *jb = &pb->jobs[k];
	hs_estimate_in_t ein = { .cluster = &pb->cluster, .tables = &e->tables,
				 .model = b->hints[i].model, .scale_factor = sj->gpus,
				 .rec = recp, .allowed = &sc->allowed[(size_t)i * J],
				 .table_known = 1 };
	ein.table_ti = hs_jmemo_table(e, sj->id, b->hints[i].model, sj->gpus, &ein.table_jt);
	if (ein.table_ti >= 0 && ein.table_ti < e->tables.n)
		ein.table_col = &b->tab_col[(size_t)ein.table_ti * (size_t)J];
	double lrate[J > 0 ? J : 1], lconf[J > 0 ? J : 1];
	unsigned char linf[J > 0 ? J : 1];
	hs_estimate_source_t tsrc[J > 0 ? J : 1];
	char lkind[HS_LEARN_KIND_MAX] = ""; /* the learning kind, once */
	int mix = -1; /* its kind's entry in the round's memo */
	if (e->conf.learning) {
		hs_learn_job_rates(e, b->lmemo, &mix, sj, b->hints[i].model, lkind, pb->cluster.names,
				   J, s->now, lrate, linf, lconf);
		ein.learned = lrate;
		ein.learned_inferred = linf;
	}
	ein.type_src = tsrc;
	/* bounds on what the job reports (sched/bound.h) */
	double kind[J > 0 ? J : 1], maxr[J > 0 ? J * J : 1];
	hs_bound_in_t bin;
	hs_bound_job_in(e, b, mix, sj, b->hints[i].model, lkind, recp && recp->nthr > 0,
			e->conf.learning ? lrate : NULL, linf, lconf, kind, maxr, &bin);
	ein.bound = &bin;
	ein.bounded = &b->bounded[k];
	b->src[k] = hs_estimate(&ein, jb->thr, &b->meas[(size_t)k * J]);
	for (int j = 0; j < J; j++) {
		b->tsrc[(size_t)k * J + j] = (unsigned char)tsrc[j];
		/* learned or inferred only with learning on: lconf is set */
		if ((tsrc[j] == HS_ESTIMATE_LEARNED || tsrc[j] == HS_ESTIMATE_INFERRED) &&
		    e->conf.learning && lconf[j] < b->lconf[k])
			b->lconf[k] = lconf[j];
	}
	/* exploring pays only for a job the rounds can move later */
	hs_preempt_rules_t rules = hs_preempt_rules(e, s->now);
	hs_preempt_job_t pjob = hs_preempt_job(b, sj, i);
	if (e->conf.learning && hs_learn_explore_on(e) && b->hints[i].ckpt &&
	    hs_preempt_movable(&rules, &pjob))
		b->explore[k] = hs_learn_optimism(J, tsrc, lconf, jb->thr);
	int any = 0;
	for (int j = 0; j < J; j++) {
		if (hs_nodes_usable(b, s, sj, j, pb->cluster.count[j]) < sj->gpus)
			jb->thr[j] = 0;
		any |= jb->thr[j] > 0;
	}
	if (!any) {
		/* Only a running job kept where it is gets here: let it
		 * count on its own type. */
		int t = sj->nheld > 0 ? sc->node_type[sj->held[0].node] : -1;
		if (t >= 0 && pb->cluster.count[t] >= sj->gpus)
			jb->thr[t] = 1;
	}
	double thr_mean = 0;
	int nthr = 0;
	for (int j = 0; j < J; j++)
		if (jb->thr[j] > 0) {
			thr_mean += jb->thr[j];
			nthr++;
		}
	return nthr ? thr_mean / nthr : 1;
}

/* Seconds of the job's time limit left (at least 60), 0 = no limit. */
static double time_left(const hs_snap_t *s, const hs_sjob_t *sj)
{
	if (sj->time_limit_min == 0)
		return 0;
	double left = sj->time_limit_min * 60.0;
	if (sj->state == HS_SJ_RUNNING && sj->start_time > 0)
		left -= (double)(s->now - sj->start_time);
	return left < 60 ? 60 : left;
}

/* Remaining work in steps: HS_STEPS less the progress the record shows,
 * at most the time limit left at the job's best rate thr_max (bound.h
 * rule 4: a declared HS_STEPS never makes a job look longer than its
 * time limit); else UnknownJobSeconds (capped by the time limit left) at
 * thr_mean. */
static double remaining_steps(const hs_sconf_t *c, const hs_snap_t *s, const hs_sjob_t *sj,
			      const hs_hints_t *h, const hs_record_t *recp, double thr_mean,
			      double thr_max, unsigned *bounded)
{
	double rem;
	if (h->steps > 0) {
		uint64_t progress = 0;
		if (sj->state == HS_SJ_RUNNING && recp && recp->has_step)
			progress = recp->step;
		else if (recp && recp->has_ckpt)
			progress = recp->ckpt_step;
		if (sj->state != HS_SJ_RUNNING && !h->ckpt && !(recp && recp->has_ckpt))
			progress = 0;
		rem = progress < h->steps ? (double)(h->steps - progress) : 1.0;
		rem = hs_bound_steps(rem, time_left(s, sj), thr_max, bounded);
	} else {
		double secs = c->unknown_steps_s, left = time_left(s, sj);
		if (left > 0 && left < secs)
			secs = left;
		rem = thr_mean * secs;
	}
	if (!(rem >= 1.0) || !isfinite(rem))
		rem = 1.0;
	return rem;
}

/* Age: from the first time hetsched saw the job (Slurm resets the submit
 * time on every requeue). */
static double job_age(const hs_engine_t *e, const hs_snap_t *s, const hs_sjob_t *sj)
{
	const hs_jacct_t *ac = hs_acct_find(e, sj->id);
	int64_t since = sj->submit_time > 0 ? sj->submit_time : s->now;
	if (ac && ac->first_seen > 0 && ac->first_seen < since)
		since = ac->first_seen;
	return s->now > since ? (double)(s->now - since) : 0.0;
}

/* Weight: priority relative to the mean (prio_mean), times the QOS
 * weight, within [1e-3, 1e3]. */
static double job_weight(const hs_sconf_t *c, const hs_sjob_t *sj, double prio_mean)
{
	double w = 1.0;
	if (c->weight_by_priority && sj->priority > 0)
		w = sj->priority / prio_mean;
	w *= hs_wlist_get(&c->qos_weights, sj->qos);
	if (!(w >= 1e-3))
		w = 1e-3;
	if (w > 1e3)
		w = 1e3;
	return w;
}

/* Where problem job k runs now (active running jobs only), or holds the
 * GPUs it can only be resumed on (b->home): its GPUs from b->run_space
 * at *used. */
static void job_run(const hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b, int k, int i,
		    int *used)
{
	const hs_sjob_t *sj = &s->jobs[i];
	hs_job_run_t *r = &b->run[k];
	if (b->role[i] != HS_ROLE_ACTIVE)
		return;
	if (sj->state == HS_SJ_SUSPENDED && hs_nodes_stays_put(e, b, s, i))
		r = &b->home[k];
	else if (sj->state != HS_SJ_RUNNING)
		return;
	r->ngpus = sj->nheld;
	r->gpus = b->run_space + *used;
	for (int g = 0; g < sj->nheld; g++) {
		b->run_space[*used + g].server = b->node_server[sj->held[g].node];
		b->run_space[*used + g].gpu = sj->held[g].gpu;
	}
	*used += sj->nheld;
}

/* Mean priority of the problem's jobs with one (1 if none): weights are
 * relative to it, so the average job weighs 1 whatever the priority
 * plugin's scale. */
static double mean_priority(const hs_snap_t *s, const hs_round_scratch_t *sc)
{
	double sum = 0;
	int n = 0;
	for (int k = 0; k < sc->npj; k++)
		if (s->jobs[sc->order[k]].priority > 0) {
			sum += s->jobs[sc->order[k]].priority;
			n++;
		}
	return n ? sum / n : 1;
}

/* The last reports of the jobs that ended lately (hs_snap_t.ended), into
 * the learned table. Their hints go through the job memo, which keeps
 * the memo (and with it the newest report fed, learn_t) while the job is
 * listed: a job listed in several rounds gives each report once. A job
 * that started and ended between two rounds gets its memo here, and all
 * its reports are new. */
static void observe_ended(hs_engine_t *e, const hs_snap_t *s)
{
	for (int i = 0; i < s->nended && e->conf.learning; i++) {
		const hs_sjob_t *sj = &s->ended[i];
		if (sj->gpus <= 0)
			continue;
		hs_hints_t h;
		hs_jmemo_hints(e, sj, &h);
		hs_record_t rec;
		hs_learn_job_observe(e, sj, h.model, job_record(e, sj, &rec), s->now);
	}
}

/* Every problem job: id, estimates, remaining work, age, weight,
 * entity, where it runs. */
static int fill_problem_jobs(hs_engine_t *e, const hs_snap_t *s,
			     const hs_round_scratch_t *sc, hs_round_build_t *b, hs_err_t *err)
{
	const hs_sconf_t *c = &e->conf;
	hs_problem_t *pb = &b->problem;
	double prio_mean = mean_priority(s, sc);
	int used = 0;
	if (hs_bound_round_init(e, b) < 0)
		return hs_err_set(err, "out of memory");
	/* NULL when out of memory: every job is then answered alone */
	hs_lmemo_free(b->lmemo);
	b->lmemo = c->learning ? hs_lmemo_new(sc->npj, pb->cluster.ntypes) : NULL;
	/* every report first, so that this round's estimates see them all
	 * and the speedup matrix is computed once (learn.c caches it); the
	 * reports of every modelled GPU job, not only the problem's: a job
	 * that cannot be preempted runs outside the policy but its speed
	 * teaches the others */
	for (int i = 0; i < s->njobs && c->learning; i++) {
		if (b->role[i] == HS_ROLE_SKIP || b->role[i] == HS_ROLE_UNMODELLED)
			continue; /* hints not parsed (engine_classify.c) */
		const hs_sjob_t *sj = &s->jobs[i];
		hs_record_t rec;
		hs_learn_job_observe(e, sj, b->hints[i].model, job_record(e, sj, &rec), s->now);
	}
	observe_ended(e, s);
	/* the ids in one block (hs_problem_t.id_block), not a strdup each */
	enum { ID_LEN = 16 }; /* hs_u32_text's room */
	if (!(pb->id_block = malloc((size_t)sc->npj * ID_LEN + 1)))
		return hs_err_set(err, "out of memory");
	for (int k = 0; k < sc->npj; k++) {
		int i = sc->order[k];
		const hs_sjob_t *sj = &s->jobs[i];
		hs_job_t *jb = &pb->jobs[k];
		b->pjob_snap[k] = i;
		b->snap_pjob[i] = k;
		jb->id = pb->id_block + (size_t)k * ID_LEN;
		hs_u32_text(sj->id, jb->id);
		jb->scale_factor = sj->gpus;
		hs_record_t rec;
		const hs_record_t *recp = job_record(e, sj, &rec);
		double thr_mean = job_estimates(e, s, sc, b, k, recp), thr_max = 0;
		for (int j = 0; j < pb->cluster.ntypes; j++)
			thr_max = jb->thr[j] > thr_max ? jb->thr[j] : thr_max;
		jb->remaining_steps = remaining_steps(c, s, sj, &b->hints[i], recp, thr_mean,
						      thr_max, &b->bounded[k]);
		jb->age_s = job_age(e, s, sj);
		jb->weight = job_weight(c, sj, prio_mean);
		job_run(e, s, b, k, i, &used);
	}
	return 0;
}

/* Space sharing: job types from the first table (packed policies), the
 * jobs put into its units. Only the job types of this round's jobs that
 * the table has pair rows for enter the problem: its pair matrix grows
 * with those, not with the table (a table of 6,308 job types made every
 * round build a 1.3 GB matrix, 21 s). */
static int packed_job_types(const hs_engine_t *e, const hs_round_scratch_t *sc,
			    hs_round_build_t *b, hs_err_t *err)
{
	hs_problem_t *pb = &b->problem;
	if (!hs_policy_is_packed(e->conf.policy) || e->tables.n <= 0)
		return 0;
	const hs_thrtable_t *t = &e->tables.t[0];
	int *tab_jt = malloc(((size_t)sc->npj + 1) * sizeof(*tab_jt));
	int *idx = malloc(((size_t)sc->npj + 1) * sizeof(*idx));
	if (!tab_jt || !idx) {
		free(tab_jt);
		free(idx);
		return hs_err_set(err, "out of memory");
	}
	for (int k = 0; k < sc->npj; k++) {
		const char *model = b->hints[sc->order[k]].model;
		tab_jt[k] = model[0] ? hs_thrtable_find(t, model, pb->jobs[k].scale_factor) : -1;
	}
	int rc = hs_thrtable_jobtypes_of(t, &pb->cluster, tab_jt, sc->npj, &pb->jobtypes, idx, err);
	if (rc == 0) {
		for (int k = 0; k < sc->npj; k++)
			pb->jobs[k].job_type = idx[k];
		jobs_in_table_units(t, pb, tab_jt, b->units);
	}
	free(tab_jt);
	free(idx);
	return rc;
}

static void count_roles(const hs_snap_t *s, hs_round_build_t *b)
{
	for (int i = 0; i < s->njobs; i++) {
		switch (b->role[i]) {
		case HS_ROLE_ACTIVE:
			b->nactive++;
			break;
		case HS_ROLE_PINNED:
			b->npinned++;
			break;
		case HS_ROLE_LEAVING:
			b->nleaving++;
			break;
		case HS_ROLE_CUT:
			b->ncut++;
			break;
		case HS_ROLE_NOFIT:
			b->nnofit++;
			break;
		case HS_ROLE_RESUME:
			b->nresume++;
			break;
		case HS_ROLE_UNMODELLED:
			b->nunmodelled++;
			break;
		case HS_ROLE_PIN_WAIT:
			b->npinwait++;
			break;
		case HS_ROLE_SHAPE: /* explained in the plan, placed by the fill */
		case HS_ROLE_SKIP:
			break;
		}
	}
}

/* b->tmap: each problem type's index in the accounting's type table,
 * looked up once a round (the stages after use it per job). */
static int type_map(hs_engine_t *e, hs_round_build_t *b, hs_err_t *err)
{
	const int J = b->problem.cluster.ntypes;
	if (!(b->tmap = malloc(((size_t)J + 1) * sizeof(int))))
		return hs_err_set(err, "out of memory");
	for (int j = 0; j < J; j++)
		if ((b->tmap[j] = hs_acct_type_index(e, b->problem.cluster.names[j])) < 0)
			return hs_err_set(err, "too many GPU types (more than %d)", HS_MAX_TYPES);
	return 0;
}

/* The stage's steps in order; each reads the snapshot and what the steps
 * before it left in sc and b. */
static int build_steps(hs_engine_t *e, const hs_snap_t *s, hs_round_scratch_t *sc,
		       hs_round_build_t *b, hs_err_t *err)
{
	if (hs_scratch_init(sc, s) < 0 || build_job_arrays(b, s) < 0)
		return hs_err_set(err, "out of memory");
	hs_classify_unmodelled(e, s, sc);
	hs_classify_types(s, sc);
	if (hs_scratch_size_types(sc) < 0)
		return hs_err_set(err, "out of memory");
	hs_classify_capacity(s, sc);
	hs_classify_owners(s, sc);
	hs_classify_roles(e, s, sc, b);
	hs_packmeas_note(e, s, sc); /* after the roles: they make the memos */
	if (hs_classify_servers(s, sc, b) < 0 ||
	    hs_pin_filter(e, s, b) < 0 || /* pending jobs that cannot be preempted */
	    hs_unmovable_filter(e, s, b) < 0) /* or moved, under time slicing */
		return hs_err_set(err, "out of memory");
	select_problem_jobs(s, sc, b);
	if (init_problem(s, sc, b, err) < 0 || type_map(e, b, err) < 0 ||
	    fill_problem_jobs(e, s, sc, b, err) < 0 || hs_entities_build(e, s, b, err) < 0)
		return -1;
	if (hs_nodes_build_masks(e, b, s, sc->node_bad, sc->npj) < 0)
		return hs_err_set(err, "out of memory");
	if (packed_job_types(e, sc, b, err) < 0)
		return -1;
	count_roles(s, b);
	return 0;
}

int hs_build_round(hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b, hs_err_t *err)
{
	hs_round_scratch_t sc;
	memset(&sc, 0, sizeof(sc));
	memset(b, 0, sizeof(*b));
	if (hs_snap_validate(s, err) < 0)
		return -1;
	int rc = build_steps(e, s, &sc, b, err);
	if (rc < 0)
		hs_build_free(b);
	hs_scratch_free(&sc);
	return rc;
}
