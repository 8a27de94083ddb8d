/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c — JSON summary and per-job CSV of a simulation (see report.h). */
#include "sim/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* q-quantile of sorted v[n] by linear interpolation (numpy's default). */
static double quantile(const double *v, long n, double q)
{
	if (n <= 0)
		return NAN;
	double pos = q * (double)(n - 1);
	long i = (long)floor(pos);
	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

/* json-c prints NaN as a bare NaN token, which is not JSON: use null. */
static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *stats(double *v, long n)
{
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	double sum = 0;
	for (long i = 0; i < n; i++)
		sum += v[i];
	json_object_object_add(o, "n", json_object_new_int64(n));
	json_object_object_add(o, "mean", num(n ? sum / n : NAN));
	json_object_object_add(o, "median", num(quantile(v, n, 0.5)));
	json_object_object_add(o, "p90", num(quantile(v, n, 0.9)));
	json_object_object_add(o, "p99", num(quantile(v, n, 0.99)));
	json_object_object_add(o, "max", num(n ? v[n - 1] : NAN));
	return o;
}

/* Busy GPU-seconds within [a, b] over total GPU-seconds (rounds spread
 * their busy time evenly, a fair approximation for the clipped ends). */
static double utilization(const hs_sim_result_t *r, double a, double b)
{
	if (!(b > a) || r->total_gpus <= 0)
		return NAN;
	double busy = 0.0;
	for (long i = 0; i < r->nrounds; i++) {
		const hs_sim_round_t *x = &r->rounds[i];
		double len = x->end_s - x->start_s;
		double lo = fmax(a, x->start_s), hi = fmin(b, x->end_s);
		if (len > 0 && hi > lo)
			busy += x->busy_gpu_s * (hi - lo) / len;
	}
	return busy / ((b - a) * r->total_gpus);
}

/* Completed measured jobs, pinned (1) or preemptible (0): count, mean JCT,
 * mean FTF rho, and preemptions + migrations (0 for pinned jobs unless
 * pinning was ignored). */
static json_object *by_pinning(const hs_sim_result_t *r, int pinned)
{
	long n = 0, moved = 0;
	double jct = 0, rho = 0;
	for (long i = 0; i < r->njobs; i++) {
		const hs_sim_job_t *j = &r->jobs[i];
		if (!j->measured || j->finish_s < 0 || !j->pinned != !pinned)
			continue;
		n++;
		jct += j->finish_s - j->arrival_s;
		rho += j->iso_steps / j->total_steps;
		moved += j->preemptions + j->migrations;
	}
	json_object *o = json_object_new_object();
	json_object_object_add(o, "jobs", json_object_new_int64(n));
	json_object_object_add(o, "avg_jct_s", num(n ? jct / n : NAN));
	json_object_object_add(o, "ftf_rho_mean", num(n ? rho / n : NAN));
	json_object_object_add(o, "preemptions_migrations", json_object_new_int64(moved));
	return o;
}

/* Start-time estimate error (sim_start.h) over the measured jobs that
 * started and were predicted: absolute error of the first prediction
 * and of the prediction one round after arrival, next to the naive
 * baseline "starts now" (the time the prediction was made). */
/* What the engine learned (sched/learn.h): kinds, refused and outlying
 * reports, and how far learned and inferred estimates were from the
 * jobs' first measurement (mean |ln(estimate / measured)|). */
static json_object *learning(const hs_sim_result_t *r)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "kinds", json_object_new_int64(r->learn.kinds));
	json_object_object_add(o, "refused", json_object_new_int64(r->learn.refused));
	json_object_object_add(o, "outliers", json_object_new_int64(r->learn.outliers));
	json_object_object_add(o, "explore_gpu_s", json_object_new_double(r->learn.explore_gpu_s));
	json_object_object_add(o, "busy_gpu_s", json_object_new_double(r->learn.busy_gpu_s));
	static const char *const names[2] = { "learned", "inferred" };
	for (int i = 0; i < 2; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "n", json_object_new_int64(r->learn.err_n[i]));
		json_object_object_add(x, "mean_abs_log_error", num(r->learn.err_mean[i]));
		json_object_object_add(o, names[i], x);
	}
	return o;
}

static json_object *start_errors(const hs_sim_result_t *r)
{
	double *v[4];
	long n[4] = { 0 };
	for (int k = 0; k < 4; k++)
		v[k] = malloc(((size_t)r->njobs + 1) * sizeof(double));
	json_object *o = json_object_new_object();
	if (!v[0] || !v[1] || !v[2] || !v[3] || !o) {
		for (int k = 0; k < 4; k++)
			free(v[k]);
		json_object_put(o);
		return NULL;
	}
	for (long i = 0; i < r->njobs; i++) {
		const hs_sim_job_t *j = &r->jobs[i];
		if (!j->measured || j->first_start_s < 0)
			continue;
		if (j->pred_first_at >= 0) {
			v[0][n[0]++] = fabs(j->pred_first_s - j->first_start_s);
			v[1][n[1]++] = fabs(j->pred_first_at - j->first_start_s);
		}
		if (j->pred_late_at >= 0) {
			v[2][n[2]++] = fabs(j->pred_late_s - j->first_start_s);
			v[3][n[3]++] = fabs(j->pred_late_at - j->first_start_s);
		}
	}
	static const char *const keys[4] = { "first", "first_baseline_now", "after_one_round",
					     "after_one_round_baseline_now" };
	for (int k = 0; k < 4; k++) {
		json_object_object_add(o, keys[k], stats(v[k], n[k]));
		free(v[k]);
	}
	return o;
}

json_object *hs_sim_summary(const hs_sim_result_t *r, const hs_sim_opts_t *o, hs_err_t *err)
{
	(void)o;
	json_object *s = json_object_new_object();
	double *jct = malloc(((size_t)r->njobs + 1) * sizeof(double));
	double *ftf = malloc(((size_t)r->njobs + 1) * sizeof(double));
	if (!s || !jct || !ftf) {
		free(jct);
		free(ftf);
		json_object_put(s);
		hs_err_set(err, "out of memory");
		return NULL;
	}
	long measured = 0, done = 0, unfair = 0;
	double first_arrival = INFINITY, last_finish = -INFINITY;
	long pre = 0, mig = 0, restarts = 0, keeps = 0, starts = 0;
	double lost = 0.0;
	/* JCT by priority weight: distinct weights, usually 1 and 5. */
	double wsum[16] = { 0 }, wval[16];
	long wn[16] = { 0 };
	int nw = 0;
	for (long i = 0; i < r->njobs; i++) {
		const hs_sim_job_t *j = &r->jobs[i];
		pre += j->preemptions;
		mig += j->migrations;
		restarts += j->restarts;
		keeps += j->keeps;
		starts += j->starts;
		lost += j->lost_s;
		if (!j->measured)
			continue;
		measured++;
		first_arrival = fmin(first_arrival, j->arrival_s);
		if (j->finish_s < 0)
			continue;
		double t = j->finish_s - j->arrival_s;
		jct[done] = t;
		ftf[done] = j->iso_steps / j->total_steps;
		unfair += ftf[done] > 1.0;
		done++;
		last_finish = fmax(last_finish, j->finish_s);
		int w = 0;
		while (w < nw && wval[w] != j->weight)
			w++;
		if (w == nw && nw < 16)
			wval[nw++] = j->weight;
		if (w < nw) {
			wsum[w] += t;
			wn[w]++;
		}
	}
	json_object *byprio = json_object_new_object();
	for (int w = 0; w < nw && byprio; w++) {
		char key[32];
		snprintf(key, sizeof(key), "%g", wval[w]);
		json_object_object_add(byprio, key, num(wsum[w] / wn[w]));
	}
	json_object *jst = stats(jct, done);
	json_object *fst = stats(ftf, done);
	if (fst)
		json_object_object_add(fst, "frac_above_1", num(done ? (double)unfair / done : NAN));
	double makespan = done ? last_finish - first_arrival : NAN;
	json_object_object_add(s, "finished", json_object_new_boolean(r->finished));
	json_object_object_add(s, "jobs_arrived", json_object_new_int64(r->njobs));
	json_object_object_add(s, "jobs_measured", json_object_new_int64(measured));
	json_object_object_add(s, "jobs_completed", json_object_new_int64(done));
	json_object_object_add(s, "jobs_rejected", json_object_new_int64(r->rejected));
	json_object_object_add(s, "avg_jct_s", num(done ? json_object_get_double(
		json_object_object_get(jst, "mean")) : NAN));
	json_object_object_add(s, "jct_s", jst);
	json_object_object_add(s, "avg_jct_s_by_priority", byprio);
	json_object_object_add(s, "makespan_s", num(makespan));
	json_object_object_add(s, "utilization", num(utilization(r, first_arrival, last_finish)));
	json_object_object_add(s, "ftf_rho", fst);
	json_object_object_add(s, "pinned", by_pinning(r, 1));
	json_object_object_add(s, "preemptible", by_pinning(r, 0));
	json_object_object_add(s, "start_estimate_abs_error_s", start_errors(r));
	json_object_object_add(s, "starts", json_object_new_int64(starts));
	json_object_object_add(s, "preemptions", json_object_new_int64(pre));
	json_object_object_add(s, "migrations", json_object_new_int64(mig));
	json_object_object_add(s, "restarts", json_object_new_int64(restarts));
	json_object_object_add(s, "lease_extensions", json_object_new_int64(keeps));
	json_object_object_add(s, "lease_extension_rate",
			       num(r->mech.lease_opportunities
				   ? (double)r->mech.keeps / r->mech.lease_opportunities : NAN));
	json_object_object_add(s, "restart_cost_s", json_object_new_double(lost));
	json_object_object_add(s, "rounds", json_object_new_int64(r->rounds_run));
	json_object_object_add(s, "allocation_resets", json_object_new_int64(r->mech.resets));
	json_object_object_add(s, "solves", json_object_new_int64(r->solves));
	json_object_object_add(s, "solve_s", json_object_new_double(r->solve_s));
	json_object_object_add(s, "solve_failures", json_object_new_int64(r->solve_failures));
	json_object_object_add(s, "learning", learning(r));
	json_object_object_add(s, "simulated_s", json_object_new_double(r->end_s));
	json_object_object_add(s, "wall_s", json_object_new_double(r->wall_s));
	json_object_object_add(s, "cpu_s", json_object_new_double(r->cpu_s));
	json_object *by = hs_sim_summary_users(r, err);
	if (by) {
		json_object_object_add(s, "users", json_object_get(json_object_object_get(by, "users")));
		json_object_object_add(s, "accounts",
				       json_object_get(json_object_object_get(by, "accounts")));
		const char *keys[2] = { "received_over_entitled_min",
					"received_over_entitled_max" };
		for (int k = 0; k < 2; k++)
			json_object_object_add(s, keys[k],
					       json_object_get(json_object_object_get(by, keys[k])));
		json_object_put(by);
	}
	free(jct);
	free(ftf);
	return s;
}

/* CSV field: quoted when it holds a comma, quote or newline. */
static void csv_str(FILE *f, const char *v)
{
	if (!strpbrk(v, ",\"\n\r")) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
	if (v < 0)
		fputs(",", f);
	else
		fprintf(f, ",%.6f", v);
}

int hs_sim_write_csv(FILE *f, const hs_sim_result_t *r, hs_err_t *err)
{
	fputs("id,job_type,scale_factor,weight,arrival_s,first_start_s,finish_s,jct_s,"
	      "total_steps,gpu_s", f);
	for (int t = 0; t < r->ntypes; t++) {
		fputc(',', f);
		csv_str(f, r->type_names[t]);
		fputs("_s", f);
	}
	fputs(",starts,preemptions,migrations,restarts,restart_cost_s,ftf_rho,measured,user,"
	      "account\n", f);
	for (long i = 0; i < r->njobs; i++) {
		const hs_sim_job_t *j = &r->jobs[i];
		fprintf(f, "%s,", j->id);
		csv_str(f, j->model);
		fprintf(f, ",%d,%g,%.6f", j->sf, j->weight, j->arrival_s);
		csv_num(f, j->first_start_s);
		csv_num(f, j->finish_s);
		csv_num(f, j->finish_s >= 0 ? j->finish_s - j->arrival_s : -1);
		fprintf(f, ",%.6f,%.6f", j->total_steps, j->gpu_s);
		for (int t = 0; t < r->ntypes; t++)
			fprintf(f, ",%.6f", j->type_s ? j->type_s[t] : 0.0);
		fprintf(f, ",%ld,%ld,%ld,%ld,%.6f", j->starts, j->preemptions, j->migrations,
			j->restarts, j->lost_s);
		csv_num(f, j->finish_s >= 0 ? j->iso_steps / j->total_steps : -1);
		fprintf(f, ",%d,", j->measured);
		const hs_sim_users_t *us = &r->users;
		if (j->user >= 0 && j->user < us->nusers) {
			csv_str(f, us->users[j->user].name);
			fputc(',', f);
			csv_str(f, us->accounts[us->users[j->user].account].name);
		} else {
			fputc(',', f);
		}
		fputc('\n', f);
	}
	if (ferror(f))
		return hs_err_set(err, "write error on the per-job CSV");
	return 0;
}
