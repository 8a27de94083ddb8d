/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_view.c — the per-job view of the status document (job_view.h).
 * Every field is optional (older documents lack the newer ones): a line
 * whose data is missing is left out rather than printed as zero. */
#include "sched/job_view.h"

#include <math.h>
#include <string.h>

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;
	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static const char *str(json_object *o, const char *k)
{
	json_object *v = get(o, k);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

static int has_num(json_object *o, const char *k, double *v)
{
	json_object *x = get(o, k);
	if (!x || !(json_object_is_type(x, json_type_double) || json_object_is_type(x, json_type_int)))
		return 0;
	*v = json_object_get_double(x);
	return isfinite(*v);
}

json_object *hs_job_view_find(json_object *doc, int64_t id)
{
	json_object *jobs = get(doc, "jobs");
	if (!jobs || !json_object_is_type(jobs, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i), *v = get(j, "id");
		if (v && json_object_is_type(v, json_type_int) && json_object_get_int64(v) == id)
			return j;
	}
	return NULL;
}

/* "1 h 05 min", "12 min", "40 s". */
static void duration(char *buf, size_t len, double s)
{
	if (s < 0)
		s = 0;
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%ld h %02ld min", t / 3600, (t % 3600) / 60);
	else if (t >= 60)
		snprintf(buf, len, "%ld min", t / 60);
	else
		snprintf(buf, len, "%ld s", t);
}

/* "v100 50%, k80 25%" of a {"type": fraction} object (as_time 0), or
 * "v100 15 min, k80 3 min" of a {"type": seconds} one (as_time 1);
 * returns the number of entries printed (0: none). */
static int print_per_type(FILE *out, json_object *o, int as_time)
{
	int n = 0;
	if (!o || !json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach(o, type, v)
	{
		double x = json_object_get_double(v);
		if (!(x > 0))
			continue;
		char d[32];
		if (as_time)
			duration(d, sizeof(d), x);
		else
			snprintf(d, sizeof(d), "%.0f%%", 100.0 * x);
		fprintf(out, "%s%s %s", n ? ", " : "", type, d);
		n++;
	}
	return n;
}

/* Why a job waits, in plain words, from its state and the plan's op;
 * the scheduler's own reason follows. */
static const char *why(json_object *j)
{
	const char *state = str(j, "state"), *op = str(j, "op");
	if (!strcmp(state, "pending"))
		return !strcmp(op, "start") ? "it is being started on the GPUs this round chose"
					    : "it waits for GPUs";
	if (!strcmp(state, "suspended"))
		return !strcmp(op, "resume") ? "it is being resumed"
					     : "it is suspended: another job has its GPUs this round";
	if (!strcmp(op, "checkpoint") || !strcmp(op, "requeue"))
		return "it is being stopped (checkpoint and requeue): another job gets its GPUs";
	if (!strcmp(op, "suspend"))
		return "it is being suspended: another job gets its GPUs this round";
	return NULL;
}

static void print_throughput(FILE *out, json_object *j)
{
	json_object *thr = get(j, "throughput"), *meas = get(j, "measured");
	json_object *srcs = get(j, "estimates");
	if (!thr || !json_object_is_type(thr, json_type_object) ||
	    json_object_object_length(thr) == 0)
		return;
	fprintf(out, "  throughput (steps/s, %s estimate):", *str(j, "estimate") ? str(j, "estimate")
										     : "table");
	json_object_object_foreach(thr, type, v)
	{
		double t = json_object_get_double(v), m = 0;
		fprintf(out, " %s %.3g", type, t);
		if (has_num(meas, type, &m) && m > 0)
			fprintf(out, " (measured %.3g%s)", m, "");
		/* a rate learned for the job's kind, or inferred for it
		 * (sched/learn.h): said, since no measurement backs it */
		json_object *sv = srcs ? get(srcs, type) : NULL;
		const char *src = sv && json_object_is_type(sv, json_type_string)
				  ? json_object_get_string(sv) : "";
		if (!strcmp(src, "learned") || !strcmp(src, "inferred"))
			fprintf(out, " (%s)", src);
	}
	fprintf(out, "\n");
	/* sched/bound.h: the estimates or remaining work are not what the
	 * job reported; said, so a user with a broken report sees why */
	if (*str(j, "bounded"))
		fprintf(out, "  bounded (%s): what the job reported was held to what the site "
			     "has seen (hetsched.conf(5), RateRatioTolerance)\n",
			str(j, "bounded"));
}

int hs_job_view_print(FILE *out, json_object *doc, json_object *j, time_t now)
{
	double v;
	fprintf(out, "job %lld: %s", (long long)json_object_get_int64(get(j, "id")), str(j, "state"));
	if (has_num(j, "user_id", &v))
		fprintf(out, ", user %lld", (long long)v);
	if (*str(j, "account"))
		fprintf(out, ", account %s", str(j, "account"));
	if (has_num(j, "gpus", &v))
		fprintf(out, ", %lld GPU%s", (long long)v, v == 1 ? "" : "s");
	fprintf(out, " (policy %s, round %lld)\n", str(doc, "policy"),
		(long long)json_object_get_int64(get(doc, "round")));
	const char *w = why(j);
	if (w)
		fprintf(out, "  why: %s\n", w);
	if (*str(j, "reason"))
		fprintf(out, "  scheduler says: %s\n", str(j, "reason"));
	if (has_num(j, "expected_start", &v) && v > 0) {
		time_t t = (time_t)v;
		char when[64], in[32];
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
		duration(in, sizeof(in), v - (double)now);
		fprintf(out, "  expected start: %s (%s %s; an estimate, see hetsched-job(1))\n", when,
			v >= (double)now ? "in" : "due", v >= (double)now ? in : "now");
	}
	if (*str(j, "type")) {
		json_object *nodes = get(j, "nodes");
		fprintf(out, "  runs on: %s", str(j, "type"));
		for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++)
			fprintf(out, "%s%s", i ? "," : " (", json_object_get_string(
							    json_object_array_get_idx(nodes, i)));
		fprintf(out, "%s\n", nodes && json_object_array_length(nodes) ? ")" : "");
	}
	/* a job outside the policy (pinned) has no share and no accounting:
	 * the reason above says why, the rest would only read "none" */
	if (json_object_get_boolean(get(j, "outside_policy")))
		return ferror(out) ? -1 : 0;
	fprintf(out, "  share in the current allocation: ");
	if (!print_per_type(out, get(j, "target"), 0))
		fprintf(out, "none");
	fprintf(out, "\n");
	if (has_num(j, "active_s", &v) && v > 0) {
		char d[32];
		duration(d, sizeof(d), v);
		fprintf(out, "  received since the allocation began (%s ago): ", d);
		if (!print_per_type(out, get(j, "received"), 0))
			fprintf(out, "nothing");
		fprintf(out, "\n");
	}
	fprintf(out, "  has run: ");
	if (!print_per_type(out, get(j, "received_total_s"), 1))
		fprintf(out, "not yet");
	if (has_num(j, "active_total_s", &v) && v > 0) {
		char d[32];
		duration(d, sizeof(d), v);
		fprintf(out, " (in %s under hetsched)", d);
	}
	fprintf(out, "\n");
	print_throughput(out, j);
	if (has_num(j, "ftf_rho", &v))
		fprintf(out, "  finish-time fairness: rho %.2f (%s an equal share of the cluster)\n", v,
			v > 1.005 ? "finishes later than with" : "finishes no later than with");
	if (has_num(j, "remaining_s", &v) && v > 0) {
		char d[32];
		duration(d, sizeof(d), v);
		fprintf(out, "  work left: about %s at its current rate\n", d);
	}
	return ferror(out) ? -1 : 0;
}
