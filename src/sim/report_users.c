/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report_users.c — the summary's per-user and per-account part (issue
 * 29): each user's and account's jobs, GPU time, the GPU time its Shares
 * entitled it to given what it asked for (entitle.h) and the ratio of
 * the two, and the JCT and finish-time fairness of its measured jobs,
 * and the JCT of its submissions (a split array as one, strategy.h);
 * over all users, the lowest and highest ratio. */
#include "sim/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct agg {
	long jobs, done;
	double gpu_s, entitled_s, jct, rho;
	long works;                /* submissions: an array of split tasks
	                            * (strategy.h) counts once */
	double work_jct;           /* their JCT: arrival to the last task's end */
} agg_t;

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *agg_doc(const agg_t *a, double tot_gpu)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "jobs", json_object_new_int64(a->jobs));
	json_object_object_add(o, "jobs_completed", json_object_new_int64(a->done));
	json_object_object_add(o, "gpu_s", num(a->gpu_s));
	json_object_object_add(o, "gpu_share", num(tot_gpu > 0 ? a->gpu_s / tot_gpu : NAN));
	json_object_object_add(o, "gpu_s_entitled", num(a->entitled_s));
	json_object_object_add(o, "received_over_entitled",
			       num(a->entitled_s > 0 ? a->gpu_s / a->entitled_s : NAN));
	json_object_object_add(o, "avg_jct_s", num(a->done ? a->jct / a->done : NAN));
	json_object_object_add(o, "ftf_rho_mean", num(a->done ? a->rho / a->done : NAN));
	json_object_object_add(o, "works_completed", json_object_new_int64(a->works));
	json_object_object_add(o, "avg_work_jct_s", num(a->works ? a->work_jct / a->works : NAN));
	return o;
}

/* The JCT of the submission starting at job i (its array's tasks are
 * the jobs after it, submitted together): arrival to the end of its last
 * task; -1 when a task is unmeasured or did not finish. */
static double work_jct(const hs_sim_result_t *r, long i)
{
	long n = r->jobs[i].array_tasks > 1 ? r->jobs[i].array_tasks : 1;
	double end = -1;
	for (long k = i; k < i + n; k++) {
		if (k >= r->njobs || r->jobs[k].group != i || !r->jobs[k].measured ||
		    r->jobs[k].finish_s < 0)
			return -1;
		end = end > r->jobs[k].finish_s ? end : r->jobs[k].finish_s;
	}
	return end - r->jobs[i].arrival_s;
}

/* Sums of the jobs of each user (u[], [nusers]) and account (a[]). */
static void sum_jobs(const hs_sim_result_t *r, agg_t *u, agg_t *a)
{
	const hs_sim_users_t *us = &r->users;
	for (long i = 0; i < r->njobs; i++) {
		const hs_sim_job_t *j = &r->jobs[i];
		if (j->user < 0 || j->user >= us->nusers)
			continue;
		agg_t *x[2] = { &u[j->user], &a[us->users[j->user].account] };
		for (int k = 0; k < 2; k++) {
			x[k]->jobs++;
			if (j->measured && j->finish_s >= 0) {
				x[k]->done++;
				x[k]->jct += j->finish_s - j->arrival_s;
				x[k]->rho += j->iso_steps / j->total_steps;
			}
		}
	}
	for (long i = 0; i < r->njobs; i++) {
		const hs_sim_job_t *j = &r->jobs[i];
		double jct;
		if (j->group == i && j->user >= 0 && j->user < us->nusers &&
		    (jct = work_jct(r, i)) >= 0) {
			u[j->user].works++;
			u[j->user].work_jct += jct;
			a[us->users[j->user].account].works++;
			a[us->users[j->user].account].work_jct += jct;
		}
	}
	for (int i = 0; i < us->nusers && i < r->cap_users; i++) {
		agg_t *acct = &a[us->users[i].account];
		u[i].gpu_s = r->user_gpu_s[i];
		u[i].entitled_s = r->user_gpu_entitled[i];
		acct->gpu_s += u[i].gpu_s;
		acct->entitled_s += u[i].entitled_s;
	}
}

json_object *hs_sim_summary_users(const hs_sim_result_t *r, hs_err_t *err)
{
	const hs_sim_users_t *us = &r->users;
	agg_t *u = calloc((size_t)us->nusers + 1, sizeof(*u));
	agg_t *a = calloc((size_t)us->naccounts + 1, sizeof(*a));
	json_object *o = json_object_new_object();
	if (!u || !a || !o) {
		free(u);
		free(a);
		json_object_put(o);
		hs_err_set(err, "out of memory");
		return NULL;
	}
	sum_jobs(r, u, a);
	double tot = 0, lo = NAN, hi = NAN;
	for (int i = 0; i < us->nusers; i++) {
		tot += u[i].gpu_s;
		if (u[i].entitled_s > 0) {
			double q = u[i].gpu_s / u[i].entitled_s;
			lo = isnan(lo) || q < lo ? q : lo;
			hi = isnan(hi) || q > hi ? q : hi;
		}
	}
	json_object *ju = json_object_new_object(), *ja = json_object_new_object();
	for (int i = 0; i < us->nusers; i++) {
		char name[2 * HS_USER_NAME_MAX + 2];
		snprintf(name, sizeof(name), "%s@%s", us->users[i].name,
			 us->accounts[us->users[i].account].name);
		json_object_object_add(ju, name, agg_doc(&u[i], tot));
	}
	for (int i = 0; i < us->naccounts; i++)
		json_object_object_add(ja, us->accounts[i].name, agg_doc(&a[i], tot));
	json_object_object_add(o, "users", ju);
	json_object_object_add(o, "accounts", ja);
	json_object_object_add(o, "received_over_entitled_min", num(lo));
	json_object_object_add(o, "received_over_entitled_max", num(hi));
	free(u);
	free(a);
	return o;
}
