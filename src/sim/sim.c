/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim.c — the simulator's event loop (see sim.h): admits jobs from the
 * workload, builds the same hs_problem_t the plugin builds, asks the
 * mechanism who runs where each round, and advances a clock instead of
 * acting on Slurm. Also the fluid "ideal" mode used as the reference. */
#include "sim/sim.h"
#include "sim/sim_start.h"

#include "core/pinned.h"
#include "core/problem_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Steps within this relative distance of the total count as finished
 * (floating-point progress). */
#define HS_DONE_EPS 1e-9

void hs_sim_opts_default(hs_sim_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	hs_policy_opts_default(&o->popts);
	hs_mech_opts_default(&o->mopts);
	o->gpus_per_server = 1;
	o->consolidation = HS_CONS_PLACEMENT;
	o->window_first = o->window_last = -1;
	o->progress = 1;
}

typedef struct sim {
	const hs_sim_opts_t *o;
	const hs_cluster_t *c;
	const hs_thrtable_t *t;
	hs_workload_t *w;
	hs_sim_result_t *res;
	int J;
	int packed;
	int *ttype;               /* [J] table type index of each cluster type */
	int *max_server;          /* [J] most GPUs on one server of the type */
	int nservers;
	hs_server_t *servers;
	char **server_names;
	hs_problem_t p;           /* cluster + job types owned; jobs borrowed */
	long *active;             /* job indices */
	long nactive, cap_active;
	hs_job_run_t *run;
	hs_policy_ctx_t *pol;
	hs_mech_t *mech;
	double now;
	long cap_jobs;
	long measured_total, measured_done, measured_rejected;
	double *ends;             /* [cap_active] scratch for apply_round */
	/* jobs that cannot be preempted (pinned.h); the arrays are
	 * [cap_active] like ends */
	hs_sim_pin_t pin_mode;    /* ideal mode: HS_SIM_PIN_IGNORE */
	unsigned char **usable;   /* [nservers][ngpus] usable this round */
	long *pidx;               /* problem job -> active index */
	long *aidx;               /* active index -> problem job, -1 = out */
	double *thr_round;        /* [cap_active * J] throughputs this round */
	hs_pin_job_t *pin;
	unsigned char *admit;
	hs_decision_t *dec;       /* per active job, this round */
	double wall0, last_progress;
} sim_t;

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of the process: on a shared machine a fairer speed figure than
 * wall time. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void hs_sim_result_free(hs_sim_result_t *res)
{
	if (!res)
		return;
	for (long i = 0; i < res->njobs; i++) {
		hs_sim_job_t *j = &res->jobs[i];
		free(j->thr_cons);
		free(j->thr_uncons);
		free(j->thr_policy);
		free(j->gpus);
		free(j->type_s);
	}
	free(res->jobs);
	free(res->rounds);
	memset(res, 0, sizeof(*res));
}

/* ---- Setup ------------------------------------------------------------------ */

/* Servers: per type, ceil(count / gpus_per_server) nodes "<type>-<k>". */
static int build_servers(sim_t *s, hs_err_t *err)
{
	const int gps = s->o->gpus_per_server;
	int n = 0;
	for (int j = 0; j < s->J; j++)
		n += (s->c->count[j] + gps - 1) / gps;
	s->servers = calloc((size_t)n + 1, sizeof(*s->servers));
	s->usable = calloc((size_t)n + 1, sizeof(*s->usable));
	s->server_names = calloc((size_t)n + 1, sizeof(*s->server_names));
	s->max_server = calloc((size_t)s->J + 1, sizeof(*s->max_server));
	if (!s->servers || !s->server_names || !s->max_server || !s->usable)
		return hs_err_set(err, "out of memory");
	for (int j = 0; j < s->J; j++) {
		for (int left = s->c->count[j], k = 0; left > 0; left -= gps, k++) {
			char name[128];
			snprintf(name, sizeof(name), "%.100s-%d", s->c->names[j], k);
			s->server_names[s->nservers] = strdup(name);
			if (!s->server_names[s->nservers])
				return hs_err_set(err, "out of memory");
			int g = left < gps ? left : gps, i = s->nservers++;
			if (!(s->usable[i] = malloc((size_t)g)))
				return hs_err_set(err, "out of memory");
			memset(s->usable[i], 1, (size_t)g);
			s->servers[i] = (hs_server_t){ .name = s->server_names[i], .type = j,
						       .ngpus = g, .usable = s->usable[i] };
			if (g > s->max_server[j])
				s->max_server[j] = g;
		}
	}
	return 0;
}

static int setup(sim_t *s, hs_err_t *err)
{
	s->J = s->c->ntypes;
	s->ttype = calloc((size_t)s->J + 1, sizeof(*s->ttype));
	if (!s->ttype)
		return hs_err_set(err, "out of memory");
	for (int j = 0; j < s->J; j++) {
		s->ttype[j] = hs_thrtable_type_index(s->t, s->c->names[j]);
		if (s->ttype[j] < 0)
			return hs_err_set(err, "GPU type '%s' is not in the throughput table",
					  s->c->names[j]);
	}
	if (build_servers(s, err) < 0)
		return -1;
	/* The problem owns a copy of the cluster (and the job types when the
	 * policy packs); its jobs array is refilled every round. */
	if (hs_cluster_init(&s->p.cluster, s->J, err) < 0)
		return -1;
	for (int j = 0; j < s->J; j++) {
		s->p.cluster.names[j] = strdup(s->c->names[j]);
		if (!s->p.cluster.names[j])
			return hs_err_set(err, "out of memory");
		s->p.cluster.count[j] = s->c->count[j];
		s->p.cluster.price[j] = s->c->price[j];
	}
	s->p.reference_type = -1;
	s->pin_mode = s->o->ideal ? HS_SIM_PIN_IGNORE : s->o->pinned_admission;
	s->packed = hs_policy_is_packed(s->o->policy);
	if (s->packed && hs_thrtable_to_jobtypes(s->t, &s->p.cluster, &s->p.jobtypes, err) < 0)
		return -1;
	s->pol = hs_policy_ctx_new(s->o->policy, &s->o->popts, err);
	if (!s->pol)
		return -1;
	if (!s->o->ideal && !(s->mech = hs_mech_new(&s->o->mopts, err)))
		return -1;
	return 0;
}

static void teardown(sim_t *s)
{
	hs_mech_free(s->mech);
	hs_policy_ctx_free(s->pol);
	free(s->p.jobs);
	s->p.jobs = NULL;
	s->p.njobs = 0;
	hs_problem_free(&s->p);
	for (int i = 0; i < s->nservers; i++) {
		free(s->server_names[i]);
		free(s->usable ? s->usable[i] : NULL);
	}
	free(s->server_names);
	free(s->usable);
	free(s->pidx);
	free(s->aidx);
	free(s->thr_round);
	free(s->pin);
	free(s->admit);
	free(s->dec);
	free(s->servers);
	free(s->max_server);
	free(s->ttype);
	free(s->active);
	free(s->run);
	free(s->ends);
}

/* ---- Jobs --------------------------------------------------------------------- */

static double iso_thr(const sim_t *s, const hs_sim_job_t *j, long M);

static int in_window(const hs_sim_opts_t *o, long index)
{
	if (o->window_first < 0)
		return 1;
	return index >= o->window_first && index <= o->window_last;
}

/* The per-active-job scratch of pinned.h's bookkeeping, for cap jobs. */
static int grow_pin_scratch(sim_t *s, long cap)
{
	long *p = realloc(s->pidx, (size_t)cap * sizeof(*p));
	if (p)
		s->pidx = p;
	long *a = realloc(s->aidx, (size_t)cap * sizeof(*a));
	if (a)
		s->aidx = a;
	double *t = realloc(s->thr_round, (size_t)cap * ((size_t)s->J + 1) * sizeof(*t));
	if (t)
		s->thr_round = t;
	hs_pin_job_t *pj = realloc(s->pin, (size_t)cap * sizeof(*pj));
	if (pj)
		s->pin = pj;
	unsigned char *ad = realloc(s->admit, (size_t)cap);
	if (ad)
		s->admit = ad;
	hs_decision_t *d = realloc(s->dec, (size_t)cap * sizeof(*d));
	if (d)
		s->dec = d;
	return p && a && t && pj && ad && d ? 0 : -1;
}

/* Admits the next workload job: table lookups, throughputs per type. */
static int admit(sim_t *s, const hs_trace_job_t *tj, hs_err_t *err)
{
	hs_sim_result_t *r = s->res;
	int jt = hs_thrtable_find(s->t, tj->model, tj->scale_factor);
	if (jt < 0) {
		if (tj->line > 0)
			return hs_err_set(err, "trace line %d: job type ('%s', %d) is not in the "
					  "throughput table", tj->line, tj->model, tj->scale_factor);
		return hs_err_set(err, "job type ('%s', %d) is not in the throughput table",
				  tj->model, tj->scale_factor);
	}
	if (r->njobs == s->cap_jobs) {
		long cap = s->cap_jobs ? 2 * s->cap_jobs : 1024;
		hs_sim_job_t *nj = realloc(r->jobs, (size_t)cap * sizeof(*nj));
		if (!nj)
			return hs_err_set(err, "out of memory");
		r->jobs = nj;
		s->cap_jobs = cap;
	}
	hs_sim_job_t *j = &r->jobs[r->njobs];
	memset(j, 0, sizeof(*j));
	j->index = r->njobs++;
	snprintf(j->id, sizeof(j->id), "%ld", j->index);
	j->model = tj->model;
	j->jt = jt;
	j->sf = tj->scale_factor;
	j->weight = tj->weight;
	j->slo = tj->slo;
	j->total_steps = tj->total_steps;
	j->arrival_s = tj->arrival_s;
	j->line = tj->line;
	j->pinned = tj->pinned;
	j->first_start_s = j->finish_s = -1.0;
	j->pred_first_s = j->pred_first_at = j->pred_late_s = j->pred_late_at = -1.0;
	j->type = -1;
	j->partner = -1;
	j->measured = in_window(s->o, j->index);
	const size_t J = (size_t)s->J;
	j->thr_cons = calloc(J + 1, sizeof(double));
	j->thr_uncons = calloc(J + 1, sizeof(double));
	j->thr_policy = calloc(J + 1, sizeof(double));
	j->type_s = calloc(J + 1, sizeof(double));
	j->gpus = calloc((size_t)j->sf + 1, sizeof(*j->gpus));
	if (!j->thr_cons || !j->thr_uncons || !j->thr_policy || !j->type_s || !j->gpus)
		return hs_err_set(err, "out of memory");
	int usable = 0;
	for (int k = 0; k < s->J; k++) {
		const char *tn = s->c->names[k];
		j->thr_cons[k] = hs_thrtable_alone(s->t, jt, tn, 1);
		j->thr_uncons[k] = s->o->consolidation == HS_CONS_ALWAYS
				   ? j->thr_cons[k] : hs_thrtable_alone(s->t, jt, tn, 0);
		/* What the policy sees: consolidated if one server can hold it. */
		j->thr_policy[k] = s->max_server[k] >= j->sf ? j->thr_cons[k] : j->thr_uncons[k];
		if (s->c->count[k] < j->sf)
			j->thr_policy[k] = 0.0;
		usable |= j->thr_policy[k] > 0.0;
	}
	if (j->measured)
		s->measured_total++;
	if (!usable) {
		/* No type can ever run it: count it and leave it out. */
		r->rejected++;
		s->measured_rejected += j->measured;
		j->finish_s = -1.0;
		return 0;
	}
	if (s->nactive == s->cap_active) {
		long cap = s->cap_active ? 2 * s->cap_active : 256;
		long *na = realloc(s->active, (size_t)cap * sizeof(*na));
		if (na)
			s->active = na;
		hs_job_run_t *nr = realloc(s->run, (size_t)cap * sizeof(*nr));
		if (nr)
			s->run = nr;
		double *ne = realloc(s->ends, (size_t)cap * sizeof(*ne));
		if (ne)
			s->ends = ne;
		if (!na || !nr || !ne || grow_pin_scratch(s, cap) < 0)
			return hs_err_set(err, "out of memory");
		s->cap_active = cap;
	}
	s->active[s->nactive++] = j->index;
	/* A job waiting for the round boundary is already owed its isolated
	 * share since arrival (see rho in sim.h). */
	if (s->now > j->arrival_s)
		j->iso_steps += iso_thr(s, j, s->nactive) * (s->now - j->arrival_s);
	return 0;
}

/* Admits every job that arrived by `now`. */
static int admit_arrivals(sim_t *s, hs_err_t *err)
{
	for (;;) {
		double a = hs_workload_peek(s->w);
		if (a < 0 || a > s->now)
			return 0;
		hs_trace_job_t tj;
		hs_workload_next(s->w, &tj);
		if (admit(s, &tj, err) < 0)
			return -1;
	}
}

/* A pinned job that runs keeps its GPUs until it ends (pinned.h). */
static int running_pinned(const sim_t *s, const hs_sim_job_t *j)
{
	return j->pinned && j->ngpus > 0 && s->pin_mode != HS_SIM_PIN_IGNORE;
}

/* The GPUs of running pinned jobs leave the problem: not usable, and the
 * problem's counts drop by them. */
static void pin_take_gpus(sim_t *s)
{
	for (int i = 0; i < s->nservers; i++)
		memset(s->usable[i], 1, (size_t)s->servers[i].ngpus);
	for (int t = 0; t < s->J; t++)
		s->p.cluster.count[t] = s->c->count[t];
	for (long k = 0; k < s->nactive; k++) {
		const hs_sim_job_t *j = &s->res->jobs[s->active[k]];
		if (!running_pinned(s, j))
			continue;
		for (int g = 0; g < j->ngpus; g++)
			s->usable[j->gpus[g].server][j->gpus[g].gpu] = 0;
		s->p.cluster.count[j->type] -= j->ngpus;
	}
}

/* Is active job k in this round's problem? Not when it is a running
 * pinned job, a pending pinned job hs_pin_admit did not admit, or a job
 * no type has room for after the pinned GPUs left (thr_round filled). */
static int in_problem(sim_t *s, long k)
{
	const hs_sim_job_t *j = &s->res->jobs[s->active[k]];
	if (running_pinned(s, j))
		return 0;
	if (j->pinned && s->pin_mode == HS_SIM_PIN_SHARE && !s->admit[k])
		return 0;
	double *thr = &s->thr_round[(size_t)k * (size_t)s->J];
	int any = 0;
	for (int t = 0; t < s->J; t++) {
		thr[t] = s->p.cluster.count[t] >= j->sf ? j->thr_policy[t] : 0.0;
		any |= thr[t] > 0;
	}
	return any;
}

/* Fills the problem's jobs from the active list (borrowing ids; the
 * throughputs are this round's copy): every active job but the pinned
 * ones pinned.h keeps out. */
static int build_problem(sim_t *s, hs_err_t *err)
{
	if (s->nactive > s->p.njobs || !s->p.jobs) {
		hs_job_t *nj = realloc(s->p.jobs, ((size_t)s->cap_active + 1) * sizeof(*nj));
		if (!nj)
			return hs_err_set(err, "out of memory");
		s->p.jobs = nj;
	}
	pin_take_gpus(s);
	for (long k = 0; k < s->nactive; k++) {
		const hs_sim_job_t *j = &s->res->jobs[s->active[k]];
		s->pin[k] = (hs_pin_job_t){ .sf = j->sf, .weight = j->weight,
					    .pinned = j->pinned, .running = j->ngpus > 0 };
		s->admit[k] = 0;
	}
	/* Arrival order is the priority order of the simulator. */
	if (s->pin_mode == HS_SIM_PIN_SHARE &&
	    hs_pin_admit(s->pin, (int)s->nactive, hs_cluster_total(s->c), s->admit, NULL) < 0)
		return hs_err_set(err, "pinned job admission failed");
	int n = 0;
	for (long k = 0; k < s->nactive; k++) {
		s->aidx[k] = -1;
		if (!in_problem(s, k))
			continue;
		hs_sim_job_t *j = &s->res->jobs[s->active[k]];
		hs_job_t *pj = &s->p.jobs[n];
		memset(pj, 0, sizeof(*pj));
		pj->id = j->id;
		pj->scale_factor = j->sf;
		pj->weight = j->weight;
		pj->remaining_steps = fmax(j->total_steps - j->done_steps,
					   j->total_steps * HS_DONE_EPS);
		pj->age_s = fmax(0.0, s->now - j->arrival_s);
		pj->slo_s = j->slo > 0 ? j->arrival_s + j->slo - s->now : -1.0;
		pj->thr = &s->thr_round[(size_t)k * (size_t)s->J];
		pj->job_type = s->packed ? j->jt : -1;
		pj->entity = -1;
		s->run[n] = (hs_job_run_t){ .ngpus = j->ngpus, .gpus = j->gpus };
		s->pidx[n] = k;
		s->aidx[k] = n++;
	}
	s->p.njobs = n;
	return 0;
}

/* Per active job, the round's decision: the mechanism's for problem jobs
 * (partner as an active index), keep for running pinned jobs, none for
 * the rest. */
static void round_decisions(sim_t *s, const hs_round_out_t *out)
{
	for (long k = 0; k < s->nactive; k++) {
		hs_sim_job_t *j = &s->res->jobs[s->active[k]];
		hs_decision_t *d = &s->dec[k];
		long pk = s->aidx[k];
		if (pk >= 0) {
			*d = out->d[pk];
			if (d->partner >= 0)
				d->partner = (int)s->pidx[d->partner];
		} else if (running_pinned(s, j)) {
			*d = (hs_decision_t){ .action = HS_ACT_KEEP, .type = j->type,
					      .ngpus = j->ngpus, .gpus = j->gpus,
					      .nservers = j->nservers, .partner = -1 };
		} else {
			*d = (hs_decision_t){ .action = HS_ACT_NONE, .type = -1, .partner = -1 };
		}
	}
}

/* Writes this round's problem to o->save_failed (hetsched solve's input
 * format) so a failing solve can be replayed alone; a write error is
 * appended to msg, the solve's own error, rather than replacing it. */
static void save_problem(const sim_t *s, char *msg, size_t len)
{
	hs_err_t e = { "" };
	char *text = hs_problem_to_json(&s->p, &e);
	FILE *f = text ? fopen(s->o->save_failed, "w") : NULL;
	int ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	free(text);
	size_t n = strlen(msg);
	if (n + 1 < len)
		snprintf(msg + n, len - n, ok ? " (problem saved to %s)"
					      : " (could not save the problem to %s%s%s)",
			 s->o->save_failed, e.msg[0] ? ": " : "", e.msg);
}

static int solve(sim_t *s, hs_alloc_t *a, hs_err_t *err)
{
	double t0 = wall_now();
	/* Every job may be pinned or waiting: an empty allocation, as the
	 * plugin does. */
	int rc = s->p.njobs == 0 ? hs_alloc_init(a, 0, s->J, err)
				 : hs_policy_solve(s->pol, &s->p, a, err);
	s->res->solve_s += wall_now() - t0;
	s->res->solves++;
	if (rc < 0) {
		char msg[HS_ERRLEN];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		if (s->o->save_failed && s->res->solve_failures == 0)
			save_problem(s, msg, sizeof(msg));
		return hs_err_set(err, "policy '%s' failed at t=%.0f s with %ld jobs: %s",
				  s->o->policy, s->now, s->nactive, msg);
	}
	return 0;
}

/* Isolated-share throughput of a job with M active jobs: X_j = N_j/(M sf),
 * the row scaled to sum <= 1 (Gavel's isolated policy). */
static double iso_thr(const sim_t *s, const hs_sim_job_t *j, long M)
{
	double sum = 0.0, thr = 0.0;
	for (int k = 0; k < s->J; k++) {
		double x = (double)s->c->count[k] / ((double)M * j->sf);
		sum += x;
		thr += j->thr_policy[k] * x;
	}
	return sum > 1.0 ? thr / sum : thr;
}

/* Credits the isolated-share progress of every active job for [from, to]
 * (clipped to each job's arrival). */
static void credit_iso(sim_t *s, double from, double to)
{
	if (s->nactive == 0)
		return;
	for (long k = 0; k < s->nactive; k++) {
		hs_sim_job_t *j = &s->res->jobs[s->active[k]];
		double a = fmax(from, j->arrival_s);
		double b = j->finish_s >= 0 ? fmin(to, j->finish_s) : to;
		if (b > a)
			j->iso_steps += iso_thr(s, j, s->nactive) * (b - a);
	}
}

static int record_round(sim_t *s, double start, double end, double busy, hs_err_t *err)
{
	hs_sim_result_t *r = s->res;
	if (r->nrounds == r->cap_rounds) {
		long cap = r->cap_rounds ? 2 * r->cap_rounds : 1024;
		hs_sim_round_t *nr = realloc(r->rounds, (size_t)cap * sizeof(*nr));
		if (!nr)
			return hs_err_set(err, "out of memory");
		r->rounds = nr;
		r->cap_rounds = cap;
	}
	r->rounds[r->nrounds++] = (hs_sim_round_t){ .start_s = start, .end_s = end,
						    .busy_gpu_s = busy };
	return 0;
}

/* Removes finished jobs from the active list. */
static void retire_finished(sim_t *s)
{
	long w = 0;
	for (long k = 0; k < s->nactive; k++) {
		hs_sim_job_t *j = &s->res->jobs[s->active[k]];
		if (j->finish_s >= 0) {
			if (j->measured)
				s->measured_done++;
			continue;
		}
		s->active[w++] = s->active[k];
	}
	s->nactive = w;
}

static void progress(sim_t *s, int force)
{
	if (!s->o->progress)
		return;
	double now = wall_now();
	if (!force && now - s->last_progress < 2.0)
		return;
	s->last_progress = now;
	fprintf(stderr, "simulate: %s t=%.1f h, %ld active, %ld/%ld measured jobs done, "
		"%ld rounds, %ld solves (%.1f s), %.1f s wall\n", s->o->policy, s->now / 3600.0,
		s->nactive, s->measured_done, s->measured_total, s->res->nrounds, s->res->solves,
		s->res->solve_s, now - s->wall0);
}

/* Done when every measured job has finished (or was rejected); without a
 * window, when the workload is exhausted and nothing is active. */
static int all_done(const sim_t *s)
{
	const hs_sim_opts_t *o = s->o;
	if (o->window_first >= 0) {
		long size = hs_workload_size(s->w), last = o->window_last;
		if (size >= 0 && size - 1 < last)
			last = size - 1;
		if (last >= o->window_first) {
			if (s->res->njobs <= last)
				return 0;
			return s->measured_done + s->measured_rejected >= last - o->window_first + 1;
		}
	}
	return s->nactive == 0 && hs_workload_peek(s->w) < 0;
}

/* ---- Rounds ----------------------------------------------------------------------- */

/* Throughput of job j running as decided (alone or with partner). */
static double exec_thr(const sim_t *s, const hs_sim_job_t *j, const hs_decision_t *d)
{
	int spread = d->nservers > 1 && s->o->consolidation == HS_CONS_PLACEMENT;
	double alone = spread ? j->thr_uncons[d->type] : j->thr_cons[d->type];
	if (d->partner < 0)
		return alone;
	const hs_sim_job_t *o = &s->res->jobs[s->active[d->partner]];
	const hs_thrtable_t *t = s->t;
	double pair = hs_thrtable_pair_at(t, j->jt, o->jt, s->ttype[d->type]);
	/* No pair data for spread placements: scale by the alone slowdown. */
	if (spread && j->thr_cons[d->type] > 0)
		pair *= j->thr_uncons[d->type] / j->thr_cons[d->type];
	return pair;
}

const char hs_sim_timeline_header[] =
	"job,model,type,node,gpu,start_s,end_s,event,partner\n";

/* The timeline line(s) of job j this round: one per GPU it holds. The
 * event is the mechanism's action, with "resume" for a START from a
 * checkpoint (a restart, like "migrate"). */
static void log_timeline(const sim_t *s, const hs_sim_job_t *j, const hs_decision_t *d,
			 double end)
{
	const char *ev = d->action == HS_ACT_START && d->resume ? "resume"
							       : hs_action_name(d->action);
	const char *partner = d->partner >= 0 ? s->res->jobs[s->active[d->partner]].id : "";
	for (int g = 0; g < d->ngpus; g++)
		fprintf(s->o->timeline, "%s,\"%s\",%s,%s,%d,%.3f,%.3f,%s,%s\n", j->id, j->model,
			s->c->names[d->type], s->server_names[d->gpus[g].server], d->gpus[g].gpu,
			s->now, end, ev, partner);
}

/* Applies one round's decisions from `now`: progress, finish times,
 * counters. Returns the round's end time, or -1 if nothing ran. */
static double apply_round(sim_t *s, const hs_round_out_t *out, double *busy)
{
	const double R = s->o->mopts.round_s;
	round_decisions(s, out);
	double end_max = -1.0;
	int full = 0;
	double *ends = s->ends;
	for (long k = 0; k < s->nactive; k++) {
		hs_sim_job_t *j = &s->res->jobs[s->active[k]];
		const hs_decision_t *d = &s->dec[k];
		ends[k] = s->now;
		switch (d->action) {
		case HS_ACT_START:
			j->starts++;
			j->restarts += d->resume;
			break;
		case HS_ACT_MIGRATE:
			j->migrations++;
			j->restarts++;
			break;
		case HS_ACT_PREEMPT:
			j->preemptions++;
			break;
		case HS_ACT_KEEP:
			j->keeps++;
			break;
		case HS_ACT_NONE:
			break;
		}
		j->ngpus = d->ngpus;
		j->type = d->type;
		j->nservers = d->nservers;
		if (d->ngpus > 0 && d->gpus != j->gpus)
			memcpy(j->gpus, d->gpus, (size_t)d->ngpus * sizeof(*j->gpus));
		if (d->ngpus == 0)
			continue;
		if (j->first_start_s < 0)
			j->first_start_s = s->now;
		double lost = fmin(d->cost_s, R);
		j->lost_s += lost;
		double thr = exec_thr(s, j, d);
		double left = j->total_steps - j->done_steps;
		double end;
		if (thr > 0 && left <= thr * (R - lost) * (1 + HS_DONE_EPS)) {
			end = s->now + lost + left / thr;
			j->done_steps = j->total_steps;
			j->finish_s = end;
		} else {
			end = s->now + R;
			j->done_steps += thr * (R - lost);
			full = 1;
		}
		ends[k] = end;
		if (s->o->timeline)
			log_timeline(s, j, d, end);
		j->gpu_s += d->ngpus * (end - s->now);
		j->type_s[d->type] += end - s->now;
		end_max = fmax(end_max, end);
	}
	/* GPU busy time: a pair's GPUs are busy until its later member ends. */
	*busy = 0.0;
	for (long k = 0; k < s->nactive; k++) {
		const hs_decision_t *d = &s->dec[k];
		if (d->ngpus == 0 || (d->partner >= 0 && d->partner < k))
			continue;
		double e = ends[k];
		if (d->partner >= 0)
			e = fmax(e, ends[d->partner]);
		*busy += d->ngpus * (e - s->now);
	}
	if (end_max < 0)
		return -1.0;
	/* Gavel: the round ends when its last job does, at most after R. */
	return full ? s->now + R : end_max;
}

/* Predicted starts of the jobs that wait (sim_start.h), before this
 * round's decisions are applied. */
static int predict_starts(sim_t *s, const hs_round_out_t *out, hs_err_t *err)
{
	hs_sim_job_t **jobs = malloc(((size_t)s->nactive + 1) * sizeof(*jobs));
	if (!jobs)
		return hs_err_set(err, "out of memory");
	for (long k = 0; k < s->nactive; k++)
		jobs[k] = &s->res->jobs[s->active[k]];
	int rc = hs_sim_predict_starts(s->mech, &s->p, out, jobs, s->now, s->o->mopts.round_s,
				       s->res->total_gpus, &s->o->mopts, err);
	free(jobs);
	return rc;
}

static int run_rounds(sim_t *s, hs_err_t *err)
{
	double last_round = s->now;
	int force_solve = 0;
	for (;;) {
		if (admit_arrivals(s, err) < 0)
			return -1;
		if (all_done(s))
			return 0;
		if (s->o->max_time_s > 0 && s->now > s->o->max_time_s) {
			s->res->finished = 0;
			return 0;
		}
		if (s->nactive == 0) {
			double a = hs_workload_peek(s->w);
			if (a < 0)
				return 0;
			s->now = fmax(s->now, a);
			continue;
		}
		if (build_problem(s, err) < 0)
			return -1;
		hs_round_in_t in = { .elapsed_s = s->now - last_round, .problem = &s->p,
				     .run = s->run, .nservers = s->nservers, .servers = s->servers };
		int need = hs_mech_begin_round(s->mech, &in, err);
		if (need < 0)
			return -1;
		hs_alloc_t alloc;
		int have = 0;
		if (need || force_solve) {
			if (solve(s, &alloc, err) < 0) {
				/* As the plugin does: keep the allocation in force and
				 * ask again next round; the summary counts failures. */
				hs_alloc_free(&alloc);
				if (s->res->solve_failures++ == 0 && s->o->progress)
					fprintf(stderr, "simulate: %s (keeping the previous "
						"allocation; failures are counted)\n", err->msg);
			} else {
				have = 1;
			}
		}
		hs_round_out_t out;
		int rc = hs_mech_schedule(s->mech, &in, have ? &alloc : NULL, &out, err);
		if (have)
			hs_alloc_free(&alloc);
		if (rc == 0)
			rc = predict_starts(s, &out, err);
		if (rc < 0) {
			hs_round_out_free(&out);
			return -1;
		}
		double busy = 0.0;
		double end = apply_round(s, &out, &busy);
		int reset = out.reset;
		hs_round_out_free(&out);
		last_round = s->now;
		if (end < 0) {
			/* Nothing could run: wait for the next arrival, or give
			 * the policy one fresh chance before declaring a stall. */
			double a = hs_workload_peek(s->w);
			if (a >= 0) {
				s->now = fmax(s->now, a);
				continue;
			}
			if (reset)
				return hs_err_set(err, "%ld jobs are active at t=%.0f s but none can be "
						  "scheduled (policy '%s' gives them nothing)",
						  s->nactive, s->now, s->o->policy);
			force_solve = 1;
			continue;
		}
		force_solve = 0;
		credit_iso(s, s->now, end);
		if (record_round(s, s->now, end, busy, err) < 0)
			return -1;
		s->now = end;
		retire_finished(s);
		progress(s, 0);
	}
}

/* ---- Ideal (fluid) mode ----------------------------------------------------------------- */

static int run_ideal(sim_t *s, hs_err_t *err)
{
	for (;;) {
		if (admit_arrivals(s, err) < 0)
			return -1;
		if (all_done(s))
			return 0;
		if (s->o->max_time_s > 0 && s->now > s->o->max_time_s) {
			s->res->finished = 0;
			return 0;
		}
		double next_arrival = hs_workload_peek(s->w);
		if (s->nactive == 0) {
			if (next_arrival < 0)
				return 0;
			s->now = fmax(s->now, next_arrival);
			continue;
		}
		if (build_problem(s, err) < 0)
			return -1;
		hs_alloc_t a;
		if (solve(s, &a, err) < 0) {
			hs_alloc_free(&a);
			return -1;
		}
		/* Advance to the next completion or arrival. */
		double dt = INFINITY;
		double *rate = calloc((size_t)s->nactive + 1, sizeof(*rate));
		if (!rate) {
			hs_alloc_free(&a);
			return hs_err_set(err, "out of memory");
		}
		for (long k = 0; k < s->nactive; k++) {
			hs_sim_job_t *j = &s->res->jobs[s->active[k]];
			rate[k] = hs_alloc_effective_thr(&a, &s->p, (int)k);
			if (rate[k] > 0)
				dt = fmin(dt, (j->total_steps - j->done_steps) / rate[k]);
		}
		if (next_arrival >= 0)
			dt = fmin(dt, next_arrival - s->now);
		if (!isfinite(dt)) {
			free(rate);
			hs_alloc_free(&a);
			return hs_err_set(err, "%ld jobs are active at t=%.0f s but policy '%s' "
					  "gives them nothing", s->nactive, s->now, s->o->policy);
		}
		dt = fmax(dt, 0.0);
		double busy = 0.0;
		for (long k = 0; k < s->nactive; k++) {
			hs_sim_job_t *j = &s->res->jobs[s->active[k]];
			double share = 0.0;
			for (int t = 0; t < s->J; t++) {
				double x = a.x[(size_t)k * s->J + t];
				share += x;
				j->type_s[t] += x * dt;
			}
			busy += j->sf * share * dt;
			j->gpu_s += j->sf * share * dt;
			if (rate[k] > 0 && j->first_start_s < 0)
				j->first_start_s = s->now;
			j->done_steps += rate[k] * dt;
		}
		for (int q = 0; q < a.npairs; q++) {
			double share = 0.0;
			for (int t = 0; t < s->J; t++) {
				share += a.pairs[q].x[t];
				s->res->jobs[s->active[a.pairs[q].m]].type_s[t] += a.pairs[q].x[t] * dt;
				s->res->jobs[s->active[a.pairs[q].k]].type_s[t] += a.pairs[q].x[t] * dt;
			}
			busy += s->p.jobs[a.pairs[q].m].scale_factor * share * dt;
		}
		double end = s->now + dt;
		for (long k = 0; k < s->nactive; k++) {
			hs_sim_job_t *j = &s->res->jobs[s->active[k]];
			if (j->done_steps >= j->total_steps * (1 - HS_DONE_EPS)) {
				j->done_steps = j->total_steps;
				j->finish_s = end;
			}
		}
		free(rate);
		hs_alloc_free(&a);
		credit_iso(s, s->now, end);
		if (record_round(s, s->now, end, busy, err) < 0)
			return -1;
		s->now = end;
		retire_finished(s);
		progress(s, 0);
	}
}

int hs_sim_run(const hs_sim_opts_t *o, const hs_cluster_t *c, const hs_thrtable_t *t,
	       hs_workload_t *w, hs_sim_result_t *res, hs_err_t *err)
{
	memset(res, 0, sizeof(*res));
	if (!o->policy)
		return hs_err_set(err, "no policy given");
	if (!isfinite(o->mopts.round_s) || o->mopts.round_s <= 0)
		return hs_err_set(err, "the round length must be > 0 seconds");
	if (o->gpus_per_server < 1 || o->gpus_per_server > HS_MAX_GPUS_PER_SERVER)
		return hs_err_set(err, "GPUs per server must be in [1, %d]", HS_MAX_GPUS_PER_SERVER);
	if (o->window_first >= 0 && o->window_last < o->window_first)
		return hs_err_set(err, "the measurement window is empty");
	if (!isfinite(o->max_time_s) || o->max_time_s < 0)
		return hs_err_set(err, "the time limit must be >= 0");
	if (c->ntypes < 1 || hs_cluster_total(c) < 1)
		return hs_err_set(err, "the cluster has no GPUs");
	if (o->window_first < 0 && hs_workload_size(w) < 0)
		return hs_err_set(err, "an unbounded workload needs a measurement window "
				  "(or a number of jobs)");
	sim_t s = { .o = o, .c = c, .t = t, .w = w, .res = res };
	s.wall0 = s.last_progress = wall_now();
	double cpu0 = cpu_now();
	res->ntypes = c->ntypes;
	res->type_names = c->names;
	res->total_gpus = hs_cluster_total(c);
	res->finished = 1;
	int rc = setup(&s, err);
	if (rc == 0) {
		double first = hs_workload_peek(w);
		s.now = first > 0 ? first : 0.0;
		rc = o->ideal ? run_ideal(&s, err) : run_rounds(&s, err);
	}
	if (rc == 0) {
		res->end_s = s.now;
		res->wall_s = wall_now() - s.wall0;
		res->cpu_s = cpu_now() - cpu0;
		if (s.mech)
			hs_mech_get_stats(s.mech, &res->mech);
		progress(&s, 1);
	}
	teardown(&s);
	return rc;
}
