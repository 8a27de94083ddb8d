/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_status.c — `hetsched status`: what sched/hetsched decided in its last
 * round, from the status document the plugin writes atomically after
 * every round (format in hetsched-status(1)): GPU types, round statistics
 * (solve time, time under slurmctld locks, jobs started / preempted /
 * migrated), and per job its allocation share X per type next to the
 * share of time it received since the last reset, its throughput
 * estimates and measurements, and the decision with its reason.
 *
 * Finding the file without talking to slurmctld: --file, else
 * $HS_STATUS_FILE, else StatusFile= in hetsched.conf, else
 * StateSaveLocation from slurm.conf ($SLURM_CONF, default
 * /etc/slurm/slurm.conf) + hetsched_status.json. hetsched.conf is read
 * by the plugin's own Slurm-free reader (sched/sconf.h, the key table),
 * so StatusFile means here what it means to the plugin; its Include lines
 * are not followed. slurm.conf gets a minimal Key=Value scan (the CLI
 * stays Slurm-free and must work while slurmctld is down).
 *
 * Under slurm.conf's PrivateData=jobs the plugin writes the full document
 * mode 0600 and a summary without jobs beside it (status_private.h): a
 * user who cannot read the full document gets the summary; one who can
 * but is neither root nor its owner sees only their own jobs.
 *
 * --format=openmetrics prints the document's aggregates as an OpenMetrics
 * text exposition instead (sched/metrics.h), the same text the plugin
 * writes to MetricsFile=.
 */
#include "hs_config.h"
#include "cli/commands.h"
#include "sched/metrics.h"
#include "sched/sconf.h"
#include "sched/statefile.h"
#include "sched/status_private.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hetsched status [--file PATH] [--json | --format=FORMAT] [--jobs-only]\n"
		"Shows the last round of sched/hetsched: GPU types, round statistics,\n"
		"each job's target share X vs the share it received, its throughput.\n"
		"  -f, --file PATH   status document (default: see hetsched-status(1))\n"
		"  -j, --json        print the document as JSON (--format=json)\n"
		"      --format=F    text (default), json, or openmetrics (the aggregates as\n"
		"                    an OpenMetrics exposition, see doc/metrics.md)\n"
		"      --jobs-only   only the job table\n");
}

/* Value of Key= in slurm.conf (first match), or NULL. */
static char *conf_value(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char line[4096];
	char *found = NULL;
	size_t klen = strlen(key);
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (strncasecmp(p, key, klen) || p[klen] != '=')
			continue;
		char *v = p + klen + 1, *e = v;
		while (*e && !isspace((unsigned char)*e) && *e != '#')
			e++;
		*e = 0;
		if (*v)
			found = strdup(v);
	}
	fclose(f);
	return found;
}

/* StatusFile of hetsched.conf at `path`, or NULL (no file, no StatusFile,
 * or a file the plugin would refuse too, said on stderr). Include lines
 * are skipped: the CLI does not follow them. */
static char *conf_status_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char line[4096], *text = NULL, *found = NULL;
	size_t len = 0;
	int oom = 0;
	while (!oom && fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " \t");
		if (!strncasecmp(p, "Include", 7) && isspace((unsigned char)p[7]))
			continue;
		size_t n = strlen(line);
		char *t = realloc(text, len + n + 1);
		oom = !t;
		if (t) {
			memcpy(t + len, line, n + 1);
			text = t;
			len += n;
		}
	}
	fclose(f);
	hs_sconf_t c;
	hs_err_t err;
	if (!oom && text && hs_sconf_defaults(&c, &err) == 0) {
		if (hs_sconf_parse_text(&c, text, &err) < 0)
			fprintf(stderr, "hetsched status: %s: %s (its StatusFile is ignored)\n", path,
				err.msg);
		else if (c.status_file)
			found = strdup(c.status_file);
		hs_sconf_free(&c);
	}
	free(text);
	return found;
}

char *hs_status_default_path(void)
{
	const char *env = getenv("HS_STATUS_FILE");
	if (env && *env)
		return strdup(env);
	const char *sc = getenv("SLURM_CONF");
	char slurm_conf[4096];
	snprintf(slurm_conf, sizeof(slurm_conf), "%s", sc && *sc ? sc : "/etc/slurm/slurm.conf");
	char dir[4096], hconf[4200];
	snprintf(dir, sizeof(dir), "%s", slurm_conf);
	snprintf(hconf, sizeof(hconf), "%s/hetsched.conf", dirname(dir));
	char *v = conf_status_file(hconf);
	if (v)
		return v;
	char *ssl = conf_value(slurm_conf, "StateSaveLocation");
	if (!ssl)
		return NULL;
	char *path = malloc(strlen(ssl) + sizeof(HS_STATUS_FILE) + 2);
	if (path)
		sprintf(path, "%s/%s", ssl, HS_STATUS_FILE);
	free(ssl);
	return path;
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;
	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static double num(json_object *o, const char *k)
{
	json_object *v = get(o, k);
	return v ? json_object_get_double(v) : 0.0;
}

static long inum(json_object *o, const char *k)
{
	json_object *v = get(o, k);
	return v ? (long)json_object_get_int64(v) : 0;
}

static const char *str(json_object *o, const char *k)
{
	json_object *v = get(o, k);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

static void print_header(json_object *st, time_t now)
{
	time_t t = (time_t)inum(st, "time");
	char when[64];
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
	printf("hetsched: round %ld at %s (%lds ago), policy %s, rounds of %ld s, preemption %s\n",
	       inum(st, "round"), when, (long)(now - t), str(st, "policy"), inum(st, "round_length"),
	       str(st, "preempt_mode"));
	if (now - t > 3 * inum(st, "round_length") + 60)
		printf("warning: this status is old: is slurmctld running sched/hetsched?\n");
	json_object *types = get(st, "types");
	printf("GPU types:");
	for (size_t i = 0; types && i < json_object_array_length(types); i++) {
		json_object *ty = json_object_array_get_idx(types, i);
		printf("  %s %ld (available %ld, busy %ld)", str(ty, "name"), inum(ty, "gpus"),
		       inum(ty, "available"), inum(ty, "busy"));
	}
	printf("\n");
	json_object *rs = get(st, "round_stats"), *pl = get(rs, "planned"), *dn = get(rs, "done");
	printf("last round: %ld active jobs (%ld not preemptible, %ld checkpointing), %s"
	       "solve %.1f ms, engine %.1f ms, under locks %.2f ms snapshot + %.2f ms apply\n",
	       inum(rs, "active"), inum(rs, "pinned"), inum(rs, "leaving"),
	       inum(rs, "reset") ? "new allocation, " : "", num(rs, "solve_ms"),
	       num(rs, "engine_ms"), num(rs, "snapshot_lock_ms"), num(rs, "apply_lock_ms"));
	if (get(rs, "lock_hold_max_ms"))
		printf("  longest lock hold %.2f ms, locks yielded %ld times\n",
		       num(rs, "lock_hold_max_ms"), inum(rs, "lock_yields"));
	printf("  planned: start %ld, keep %ld, checkpoint %ld, requeue %ld (migrations %ld), "
	       "suspend %ld, resume %ld\n",
	       inum(pl, "start"), inum(pl, "keep"), inum(pl, "checkpoint"), inum(pl, "requeue"),
	       inum(pl, "migrate"), inum(pl, "suspend"), inum(pl, "resume"));
	printf("  done: started %ld, deferred %ld, failed %ld, requeued %ld, checkpoint signals %ld, "
	       "suspended %ld, resumed %ld, changed meanwhile %ld\n",
	       inum(dn, "started"), inum(dn, "deferred"), inum(dn, "start_failed"),
	       inum(dn, "requeued"), inum(dn, "checkpointing"), inum(dn, "suspended"),
	       inum(dn, "resumed"), inum(dn, "vanished"));
	json_object *tot = get(st, "totals");
	printf("totals: started %ld, preempted %ld, migrated %ld, suspended %ld, resumed %ld, "
	       "checkpoints %ld (acknowledged %ld), allocation resets %ld\n",
	       inum(tot, "started"), inum(tot, "preempted"), inum(tot, "migrated"),
	       inum(tot, "suspended"), inum(tot, "resumed"), inum(tot, "checkpoints"),
	       inum(tot, "checkpoints_acked"), inum(tot, "mech_resets"));
}

/* "v100 0.50/0.48" cells for every type in the document's type list. */
static void print_jobs(json_object *st)
{
	json_object *types = get(st, "types"), *jobs = get(st, "jobs");
	size_t nt = types ? json_object_array_length(types) : 0;
	printf("\n%-8s %-9s %-4s %-7s %-10s", "JOBID", "STATE", "GPUS", "ON", "OP");
	for (size_t t = 0; t < nt; t++)
		printf(" %-19s", str(json_object_array_get_idx(types, t), "name"));
	printf(" %-9s REASON\n", "ESTIMATE");
	printf("%-8s %-9s %-4s %-7s %-10s", "", "", "", "", "");
	for (size_t t = 0; t < nt; t++)
		printf(" %-19s", "X/recv thr(meas)");
	printf("\n");
	for (size_t i = 0; jobs && i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		printf("%-8ld %-9s %-4ld %-7s %-10s", inum(j, "id"), str(j, "state"), inum(j, "gpus"),
		       *str(j, "type") ? str(j, "type") : "-", str(j, "op"));
		for (size_t t = 0; t < nt; t++) {
			const char *name = str(json_object_array_get_idx(types, t), "name");
			char cell[64];
			double x = num(get(j, "target"), name), r = num(get(j, "received"), name);
			double thr = num(get(j, "throughput"), name), m = num(get(j, "measured"), name);
			if (m > 0)
				snprintf(cell, sizeof(cell), "%.2f/%.2f %.3g(%.3g)", x, r, thr, m);
			else
				snprintf(cell, sizeof(cell), "%.2f/%.2f %.3g", x, r, thr);
			printf(" %-19s", cell);
		}
		printf(" %-9s %s\n", str(j, "estimate"), str(j, "reason"));
	}
	json_object *ops = get(st, "ops");
	if (ops && json_object_array_length(ops) > 0) {
		printf("\nin flight:");
		for (size_t i = 0; i < json_object_array_length(ops); i++) {
			json_object *o = json_object_array_get_idx(ops, i);
			printf(" %ld:%s", inum(o, "id"), str(o, "kind"));
		}
		printf("\n");
	}
}

/* Accounts and users (the document's "entities"), indented under their
 * parents: Shares, the share they are entitled to among the busy ones,
 * what the allocation gives them and what they received since the reset
 * (compare sshare's RawShares, NormShares and EffectvUsage). */
static void print_entity(json_object *ents, size_t i, int depth)
{
	json_object *x = json_object_array_get_idx(ents, i);
	printf("%*s%-*s %8.4g %10.3f %8.3f %9.3f %5ld\n", 2 * depth, "", 28 - 2 * depth,
	       str(x, "name"), num(x, "shares"), num(x, "norm_shares"), num(x, "target"),
	       num(x, "received"), inum(x, "jobs"));
	size_t n = json_object_array_length(ents);
	for (size_t k = i + 1; depth < 32 && k < n; k++) /* parents come first */
		if (inum(json_object_array_get_idx(ents, k), "parent") == (long)i)
			print_entity(ents, k, depth + 1);
}

static void print_entities(json_object *st)
{
	json_object *ents = get(st, "entities");
	size_t n = ents && json_object_is_type(ents, json_type_array)
			   ? json_object_array_length(ents) : 0;
	if (n == 0)
		return;
	printf("\n%-28s %8s %10s %8s %9s %5s\n", "ACCOUNT/USER", "SHARES", "NORMSHARES",
	       "TARGET", "RECEIVED", "JOBS");
	for (size_t i = 0; i < n; i++)
		if (inum(json_object_array_get_idx(ents, i), "parent") < 0)
			print_entity(ents, i, 0);
}

/* PrivateData=jobs (the document says "private_jobs"): a reader other
 * than root and the file's owner (slurmctld's user) sees only their own
 * jobs. Returns the line telling the user so, or NULL. */
static const char *private_view(json_object *st, const char *path, int summary)
{
	json_object *v = get(st, "private_jobs");
	if (!v || !json_object_get_boolean(v))
		return NULL;
	if (summary || get(st, "summary"))
		return "jobs: private (PrivateData=jobs); squeue shows your own jobs";
	struct stat fst;
	uid_t me = getuid();
	if (me == 0 || (stat(path, &fst) == 0 && fst.st_uid == me))
		return NULL;
	hs_status_keep_user(st, (uint32_t)me);
	return "jobs: only your own (PrivateData=jobs)";
}

int hs_cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "jobs-only", no_argument, NULL, 'J' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *path = NULL;
	int json = 0, jobs_only = 0, openmetrics = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			free(path);
			path = strdup(optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'J':
			jobs_only = 1;
			break;
		case 'F':
			json = !strcmp(optarg, "json");
			openmetrics = !strcmp(optarg, "openmetrics");
			if (json || openmetrics || !strcmp(optarg, "text"))
				break;
			fprintf(stderr, "hetsched status: --format=%s: expected text, json or "
					"openmetrics\n", optarg);
			free(path);
			return 2;
		case 'h':
			usage(stdout);
			free(path);
			return 0;
		default:
			usage(stderr);
			free(path);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		free(path);
		return 2;
	}
	if (!path && !(path = hs_status_default_path())) {
		fprintf(stderr, "hetsched status: no status file: give --file, set HS_STATUS_FILE, "
				"or SLURM_CONF to a slurm.conf with StateSaveLocation\n");
		return 1;
	}
	/* PrivateData=jobs: the full document is not ours to read; the
	 * public summary beside it is */
	int summary = 0;
	if (access(path, R_OK) < 0 && errno == EACCES) {
		char pub[4200];
		if (hs_status_public_path(path, pub, sizeof(pub)) == 0 && access(pub, R_OK) == 0) {
			free(path);
			path = strdup(pub);
			summary = 1;
		}
	}
	json_object *st = NULL;
	hs_err_t err;
	int r = path ? hs_json_read(path, &st, &err) : -1;
	if (!path)
		snprintf(err.msg, sizeof(err.msg), "out of memory");
	if (r <= 0) {
		if (r == 0)
			fprintf(stderr, "hetsched status: %s does not exist (has sched/hetsched run "
					"a round yet?)\n", path);
		else
			fprintf(stderr, "hetsched status: %s\n", err.msg);
		free(path);
		return 1;
	}
	if (strcmp(str(st, "format"), "hetsched-status") || inum(st, "version") != 1) {
		fprintf(stderr, "hetsched status: %s is not a version 1 hetsched status document\n",
			path);
		json_object_put(st);
		free(path);
		return 1;
	}
	if (openmetrics) {
		/* aggregates only: the same for every reader, no private_view */
		int r2 = hs_metrics_write(stdout, st, &err);
		if (r2 < 0 || fflush(stdout) != 0)
			fprintf(stderr, "hetsched status: %s\n",
				r2 < 0 ? err.msg : "cannot write the metrics");
		json_object_put(st);
		free(path);
		return r2 < 0 || ferror(stdout) ? 1 : 0;
	}
	const char *note = private_view(st, path, summary);
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(st, JSON_C_TO_STRING_PRETTY |
								      JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		if (!jobs_only) {
			print_header(st, time(NULL));
			print_entities(st);
		}
		if (note)
			printf("%s\n", note);
		if (!summary)
			print_jobs(st);
	}
	json_object_put(st);
	free(path);
	return 0;
}
