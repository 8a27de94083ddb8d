/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c — writes a status document (engine_status.c) as an
 * OpenMetrics 1.0.0 text exposition (metrics.h): one family per metric,
 * its "# TYPE", "# UNIT" (durations and timestamps in seconds) and
 * "# HELP" lines before its samples, counters as "<family>_total",
 * label values escaped, "# EOF" last; no type node_exporter's textfile
 * collector would refuse (it reads the counters as untyped: the values
 * and rate() are the same). A value the document does not have
 * (older plugins wrote fewer fields) leaves its family out rather than
 * claiming a zero.
 */
#include "sched/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;
	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static int is_num(json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double));
}

static double num(json_object *o, const char *k)
{
	json_object *v = get(o, k);
	return is_num(v) ? json_object_get_double(v) : 0.0;
}

static const char *str(json_object *o, const char *k)
{
	json_object *v = get(o, k);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

static void put_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else
		fprintf(f, "%.15g", v);
}

/* A label value: backslash, double quote and line feed escaped. */
static void put_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type, const char *unit,
		   const char *help)
{
	fprintf(f, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(f, "# UNIT %s %s\n", name, unit);
	fprintf(f, "# HELP %s %s\n", name, help);
}

/* name[suffix]{label="lval"} v (no label when label is NULL). */
static void sample(FILE *f, const char *name, const char *suffix, const char *label,
		   const char *lval, double v)
{
	fprintf(f, "%s%s", name, suffix ? suffix : "");
	if (label) {
		fprintf(f, "{%s=", label);
		put_label(f, lval);
		fputc('}', f);
	}
	fputc(' ', f);
	put_num(f, v);
	fputc('\n', f);
}

/* A gauge with one unlabelled sample, when the document has the value. */
static void gauge1(FILE *f, json_object *o, const char *key, double scale, const char *name,
		   const char *unit, const char *help)
{
	if (!is_num(get(o, key)))
		return;
	family(f, name, "gauge", unit, help);
	sample(f, name, NULL, NULL, NULL, num(o, key) * scale);
}

static void config_info(FILE *f, json_object *doc)
{
	/* a gauge, not the OpenMetrics info type: node_exporter's textfile
	 * collector (Prometheus text format 0.0.4) rejects the whole file
	 * for a type it does not know */
	family(f, "hetsched_config_info", "gauge", NULL,
	       "Configuration of sched/hetsched in its last round (always 1).");
	fputs("hetsched_config_info{policy=", f);
	put_label(f, str(doc, "policy"));
	fputs(",preempt_mode=", f);
	put_label(f, str(doc, "preempt_mode"));
	fputs("} 1\n", f);
}

/* One gauge family over the GPU types: value of key per type ("idle"
 * falls back to available - busy for documents without it). */
static void gpu_family(FILE *f, json_object *types, const char *key, const char *name,
		       const char *help)
{
	size_t n = json_object_array_length(types);
	int have = 0;
	for (size_t i = 0; i < n; i++)
		have |= is_num(get(json_object_array_get_idx(types, i), key));
	if (!have && strcmp(key, "idle"))
		return;
	family(f, name, "gauge", NULL, help);
	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(types, i);
		double v = num(t, key);
		if (!have) {
			v = num(t, "available") - num(t, "busy");
			v = v > 0 ? v : 0;
		}
		sample(f, name, NULL, "type", str(t, "name"), v);
	}
}

static void gpus(FILE *f, json_object *doc)
{
	json_object *types = get(doc, "types");
	if (!types || !json_object_is_type(types, json_type_array))
		return;
	gpu_family(f, types, "gpus", "hetsched_gpus", "GPUs of each type on managed nodes.");
	gpu_family(f, types, "available", "hetsched_gpus_available",
		   "GPUs of each type on nodes that are up and accept jobs.");
	gpu_family(f, types, "busy", "hetsched_gpus_allocated",
		   "GPUs of each type allocated to jobs.");
	gpu_family(f, types, "idle", "hetsched_gpus_idle",
		   "GPUs of each type on available nodes allocated to no job.");
	gpu_family(f, types, "shared", "hetsched_gpus_shared",
		   "GPUs of each type shared by two or more jobs (packing).");
}

/* GPU jobs by Slurm state: the document's "gpu_jobs" counts, else
 * counted from its job list (older plugins). */
static void jobs_by_state(FILE *f, json_object *doc)
{
	static const char *const states[] = { "pending", "running", "suspended", "other" };
	json_object *counts = get(doc, "gpu_jobs"), *jobs = get(doc, "jobs");
	if (!counts && (!jobs || !json_object_is_type(jobs, json_type_array)))
		return;
	family(f, "hetsched_jobs", "gauge", NULL, "GPU jobs by Slurm state.");
	for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++) {
		double v = 0;
		if (counts) {
			v = num(counts, states[s]);
		} else {
			for (size_t i = 0; i < json_object_array_length(jobs); i++)
				v += !strcmp(str(json_object_array_get_idx(jobs, i), "state"),
					     states[s]);
		}
		sample(f, "hetsched_jobs", NULL, "state", states[s], v);
	}
}

/* Jobs by their role in the last round (round_stats). */
static void jobs_by_role(FILE *f, json_object *rs)
{
	static const char *const roles[][2] = {
		{ "active", "active" },
		{ "pinned", "pinned" },
		{ "leaving", "leaving" },
		{ "waiting_outside", "outside" },
	};
	if (!is_num(get(rs, "active")))
		return;
	family(f, "hetsched_round_jobs", "gauge", NULL,
	       "Jobs in the last round by role: active (in the policy's problem), pinned "
	       "(running, not preemptible), leaving (checkpoint in flight), outside (eligible "
	       "but not in the problem).");
	for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++)
		sample(f, "hetsched_round_jobs", NULL, "role", roles[r][1], num(rs, roles[r][0]));
}

static void round_stats(FILE *f, json_object *rs)
{
	gauge1(f, rs, "round_ms", 1e-3, "hetsched_round_duration_seconds", "seconds",
	       "Wall time of the last round (snapshot, solve, apply).");
	gauge1(f, rs, "solve_ms", 1e-3, "hetsched_solve_duration_seconds", "seconds",
	       "Time the policy's solve took in the last round (0 when it did not solve).");
	gauge1(f, rs, "engine_ms", 1e-3, "hetsched_engine_duration_seconds", "seconds",
	       "Time of the scheduling engine in the last round, no lock held.");
	if (is_num(get(rs, "snapshot_lock_ms"))) {
		const char *n = "hetsched_lock_hold_seconds";
		family(f, n, "gauge", "seconds",
		       "Time the last round held slurmctld's locks, by phase.");
		sample(f, n, NULL, "phase", "snapshot", num(rs, "snapshot_lock_ms") * 1e-3);
		sample(f, n, NULL, "phase", "apply", num(rs, "apply_lock_ms") * 1e-3);
	}
	gauge1(f, rs, "lock_hold_max_ms", 1e-3, "hetsched_lock_hold_longest_seconds", "seconds",
	       "Longest single hold of slurmctld's locks in the last round (MaxLockHold).");
	gauge1(f, rs, "lock_yields", 1, "hetsched_lock_yields", NULL,
	       "Times the last round gave slurmctld's locks back to waiting RPCs.");
	gauge1(f, rs, "solved", 1, "hetsched_round_solved",
	       NULL, "1 when the policy was solved in the last round.");
	gauge1(f, rs, "solve_failed", 1, "hetsched_round_solve_failed", NULL,
	       "1 when the policy's solve failed in the last round (the old allocation stays).");
	gauge1(f, rs, "gpus_usable", 1, "hetsched_round_gpus_usable", NULL,
	       "GPUs the last round could place jobs on.");
	gauge1(f, rs, "gpus_used", 1, "hetsched_round_gpus_used", NULL,
	       "GPUs the last round's placement used.");
	jobs_by_role(f, rs);
}

/* Counters from the document's "totals" (since the state was created). */
static void totals(FILE *f, json_object *tot)
{
	static const char *const counters[][3] = {
		{ "started", "hetsched_job_starts", "Jobs started by hetsched." },
		{ "start_failed", "hetsched_job_start_failures",
		  "Job starts that Slurm refused." },
		{ "preempted", "hetsched_preemptions", "Running jobs preempted." },
		{ "migrated", "hetsched_migrations",
		  "Jobs moved to other GPUs (checkpoint, requeue, restart)." },
		{ "requeued", "hetsched_requeues",
		  "Jobs requeued (each restarts later, from its checkpoint if it has one)." },
		{ "suspended", "hetsched_suspensions", "Jobs suspended (time slicing)." },
		{ "resumed", "hetsched_resumptions", "Suspended jobs resumed." },
		{ "checkpoints", "hetsched_checkpoint_requests", "Checkpoint signals sent." },
		{ "checkpoints_acked", "hetsched_checkpoints_acknowledged",
		  "Checkpoints the jobs acknowledged." },
		{ "mech_resets", "hetsched_allocation_resets",
		  "New allocations installed by the round mechanism." },
		{ "solve_failed", "hetsched_solve_failures", "Failed solves of the policy." },
	};
	for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
		if (!is_num(get(tot, counters[c][0])))
			continue;
		family(f, counters[c][1], "counter", NULL, counters[c][2]);
		double v = num(tot, counters[c][0]);
		sample(f, counters[c][1], "_total", NULL, NULL, v > 0 ? v : 0);
	}
}

/* One gauge family over the accounts and users (the status document's
 * "entities", engine_entstatus.c), labelled by entity name; the
 * parent's name too, so a dashboard can sum or nest them. */
static void entity_family(FILE *f, json_object *ents, const char *key, const char *name,
			  const char *help)
{
	size_t n = json_object_array_length(ents);
	family(f, name, "gauge", NULL, help);
	for (size_t i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(ents, i);
		long p = (long)num(x, "parent");
		json_object *par = p >= 0 && (size_t)p < n ? json_object_array_get_idx(ents, (size_t)p)
							   : NULL;
		fprintf(f, "%s{entity=", name);
		put_label(f, str(x, "name"));
		fputs(",parent=", f);
		put_label(f, par ? str(par, "name") : "");
		fputs("} ", f);
		put_num(f, num(x, key));
		fputc('\n', f);
	}
}

static void entities(FILE *f, json_object *doc)
{
	json_object *ents = get(doc, "entities");
	if (!ents || !json_object_is_type(ents, json_type_array) ||
	    json_object_array_length(ents) == 0)
		return;
	entity_family(f, ents, "norm_shares", "hetsched_entity_norm_shares",
		      "Share of the GPUs an account or user is entitled to: its Shares over its "
		      "busy siblings', times its parent's.");
	entity_family(f, ents, "target", "hetsched_entity_target_share",
		      "Share of the usable GPUs the allocation in force gives the account's or "
		      "user's jobs.");
	entity_family(f, ents, "received", "hetsched_entity_received_share",
		      "Share of the usable GPU time the account's or user's jobs ran since the "
		      "last allocation reset.");
	entity_family(f, ents, "jobs", "hetsched_entity_jobs",
		      "Jobs of the account or user in the last round's problem.");
}

/* The learned throughputs (sched/learn.h): kinds kept, and how far
 * learned and inferred estimates were from the jobs' first measurement
 * (mean |ln(estimate / measured)|; 0.1 is about 10% off). Gauges: the
 * counts restart with slurmctld. */
static void learning(FILE *f, json_object *ln)
{
	gauge1(f, ln, "kinds", 1, "hetsched_learned_kinds", NULL,
	       "Kinds of job (and GPU counts) in the learned throughput table.");
	gauge1(f, ln, "outliers", 1, "hetsched_learn_outliers", NULL,
	       "Throughput reports left out of the learned table as outliers since start.");
	gauge1(f, ln, "explore_gpu_s", 1, "hetsched_learn_explore_gpu_seconds", "seconds",
	       "GPU time jobs ran on types they were sent to try (LearnExplore) since start.");
	if (!is_num(get(ln, "learned_error")) && !is_num(get(ln, "inferred_error")))
		return;
	const char *n = "hetsched_learn_estimate_error";
	family(f, n, "gauge", NULL,
	       "Mean |ln(estimate / first measurement)| of learned and inferred estimates.");
	if (is_num(get(ln, "learned_error")))
		sample(f, n, NULL, "source", "learned", num(ln, "learned_error"));
	if (is_num(get(ln, "inferred_error")))
		sample(f, n, NULL, "source", "inferred", num(ln, "inferred_error"));
}

int hs_metrics_write(FILE *out, json_object *doc, hs_err_t *err)
{
	if (!doc || strcmp(str(doc, "format"), "hetsched-status"))
		return hs_err_set(err, "not a hetsched status document");
	config_info(out, doc);
	if (is_num(get(doc, "rounds"))) {
		family(out, "hetsched_rounds", "counter", NULL, "Rounds run by sched/hetsched.");
		sample(out, "hetsched_rounds", "_total", NULL, NULL, num(doc, "rounds"));
	}
	gauge1(out, doc, "time", 1, "hetsched_last_round_timestamp_seconds", "seconds",
	       "Unix time of the last round.");
	gauge1(out, doc, "last_reset", 1, "hetsched_last_reset_timestamp_seconds", "seconds",
	       "Unix time of the last allocation reset.");
	gauge1(out, doc, "round_length", 1, "hetsched_round_length_seconds", "seconds",
	       "Configured round length (RoundLength).");
	gauge1(out, doc, "objective", 1, "hetsched_policy_objective", NULL,
	       "The policy's objective value in its last successful solve.");
	json_object *eq = get(doc, "vs_equal_share");
	gauge1(out, eq, "min", 1, "hetsched_equal_share_ratio_min", NULL,
	       "Lowest effective throughput of a job over its throughput with an equal share "
	       "of the cluster, in the policy's last successful solve.");
	gauge1(out, eq, "mean", 1, "hetsched_equal_share_ratio_mean", NULL,
	       "Mean over the jobs of effective throughput over equal-share throughput, in the "
	       "policy's last successful solve.");
	gpus(out, doc);
	jobs_by_state(out, doc);
	entities(out, doc);
	json_object *rs = get(doc, "round_stats");
	if (rs)
		round_stats(out, rs);
	json_object *tot = get(doc, "totals");
	if (tot)
		totals(out, tot);
	json_object *ln = get(doc, "learning");
	if (ln)
		learning(out, ln);
	fputs("# EOF\n", out);
	if (ferror(out))
		return hs_err_set(err, "cannot write the metrics");
	return 0;
}

char *hs_metrics_text(json_object *doc, size_t *len, hs_err_t *err)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	int r = hs_metrics_write(f, doc, err);
	if (fclose(f) != 0 && r == 0)
		r = hs_err_set(err, "out of memory");
	if (r < 0) {
		free(buf);
		return NULL;
	}
	if (len)
		*len = n;
	return buf;
}
