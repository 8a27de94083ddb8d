/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_player.c — hetsched-trace-play: replays a Gavel-format job trace on
 * a Slurm cluster, submitting every job with sbatch at its (time-scaled)
 * arrival time with hetsched-emulator as the training job, then collects
 * each job's completion time from sacct. See hetsched-trace-play(1).
 *
 * The trace is read by the simulator's reader (src/sim/trace.h), so the
 * player and `hetsched simulate` accept exactly the same files.
 */
#define _XOPEN_SOURCE 700  /* strptime */
#define _DEFAULT_SOURCE
#include "hs_config.h"
#include "sim/trace.h"
#include "tp_run.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_EXTRA 32

typedef struct opts {
	const char *trace, *table, *emulator, *out, *log_dir;
	double time_scale, timeout, poll;
	int limit, gpus_per_node, ckpt, dry_run;
	int nextra;
	const char *extra[MAX_EXTRA];
} opts_t;

typedef struct tjob {
	long id;              /* Slurm job id, 0 = not submitted */
	double submit_wall;   /* unix time sbatch returned */
	double end_wall;
	char state[64];
	int incarnations;
	int done;             /* 1 finished; -1 finished in sacct, to confirm with squeue */
} tjob_t;

static double now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hetsched-trace-play: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hetsched-trace-play [options] TRACE\n"
		"  --time-scale F      trace seconds per wall second [1]\n"
		"  --table FILE        throughput table for the emulator [$HS_THROUGHPUT_TABLE]\n"
		"  --emulator PATH     the emulated job [hetsched-emulator beside this program]\n"
		"  --out FILE          per-job CSV of completion times [stdout]\n"
		"  --log-dir DIR       job outputs and checkpoints [./hs-trace.PID]\n"
		"  --limit N           play only the first N jobs\n"
		"  --gpus-per-node G   spread jobs of more than G GPUs over several nodes\n"
		"  --no-ckpt           do not opt the jobs into checkpointing\n"
		"  --sbatch-arg ARG    pass ARG to every sbatch (repeatable)\n"
		"  --timeout S         stop waiting after S wall seconds\n"
		"  --poll S            sacct polling interval [2]\n"
		"  --dry-run           print the sbatch commands, submit nothing\n"
		"See hetsched-trace-play(1).\n");
}

/* The emulator: --emulator, else hetsched-emulator beside us, else PATH. */
static const char *find_emulator(const char *argv0, char *buf, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	(void)argv0;
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash && (size_t)(slash - self) + 20 < size) {
			memcpy(buf, self, (size_t)(slash - self));
			memcpy(buf + (slash - self), "/hetsched-emulator", 19);
			if (access(buf, X_OK) == 0)
				return buf;
		}
	}
	return "hetsched-emulator";
}

static int parse_opts(int argc, char **argv, opts_t *o)
{
	static const struct option lo[] = {
		{ "time-scale", 1, 0, 'x' }, { "table", 1, 0, 't' }, { "emulator", 1, 0, 'e' },
		{ "out", 1, 0, 'o' }, { "log-dir", 1, 0, 'l' }, { "limit", 1, 0, 'n' },
		{ "gpus-per-node", 1, 0, 'g' }, { "no-ckpt", 0, 0, 'C' }, { "sbatch-arg", 1, 0, 's' },
		{ "timeout", 1, 0, 'T' }, { "poll", 1, 0, 'p' }, { "dry-run", 0, 0, 'd' },
		{ "help", 0, 0, 'h' }, { "version", 0, 0, 'V' }, { 0, 0, 0, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->time_scale = 1;
	o->poll = 2;
	o->ckpt = 1;
	o->table = getenv("HS_THROUGHPUT_TABLE");
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'x':
			o->time_scale = strtod(optarg, &end);
			if (*end || !isfinite(o->time_scale) || o->time_scale <= 0)
				return die("--time-scale: '%s' is not a positive number", optarg);
			break;
		case 't': o->table = optarg; break;
		case 'e': o->emulator = optarg; break;
		case 'o': o->out = optarg; break;
		case 'l': o->log_dir = optarg; break;
		case 'n':
			o->limit = (int)strtol(optarg, &end, 10);
			if (*end || o->limit < 1)
				return die("--limit: '%s' is not a positive count", optarg);
			break;
		case 'g':
			o->gpus_per_node = (int)strtol(optarg, &end, 10);
			if (*end || o->gpus_per_node < 1 || o->gpus_per_node > 1024)
				return die("--gpus-per-node: '%s' is not in 1..1024", optarg);
			break;
		case 'C': o->ckpt = 0; break;
		case 's':
			if (o->nextra == MAX_EXTRA)
				return die("at most %d --sbatch-arg", MAX_EXTRA);
			o->extra[o->nextra++] = optarg;
			break;
		case 'T':
			o->timeout = strtod(optarg, &end);
			if (*end || !isfinite(o->timeout) || o->timeout <= 0)
				return die("--timeout: '%s' is not a positive number of seconds", optarg);
			break;
		case 'p':
			o->poll = strtod(optarg, &end);
			if (*end || !isfinite(o->poll) || o->poll < 0.1 || o->poll > 600)
				return die("--poll: '%s' is not in 0.1..600 seconds", optarg);
			break;
		case 'd': o->dry_run = 1; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("hetsched-trace-play %s\n", PACKAGE_VERSION); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	o->trace = argv[optind];
	if (!o->table)
		return die("no throughput table: pass --table or set HS_THROUGHPUT_TABLE");
	return 0;
}

/* Builds and runs (or prints) the sbatch command of trace job i. */
static int submit(const opts_t *o, const hs_trace_job_t *tj, int i, const char *emu, tjob_t *job)
{
	char name[64], out[PATH_MAX + 64], gres[64], nodes[64], model[1024], steps[64];
	char ckpt[PATH_MAX + 64], wrap[3 * PATH_MAX], sf[16], scale[64], res[256];
	char *argv[32 + MAX_EXTRA];
	int a = 0, per = tj->scale_factor, n = 1, rc;
	unsigned long long total = (unsigned long long)ceil(tj->total_steps);
	char *endp;

	if (o->gpus_per_node && per > o->gpus_per_node) {
		n = (per + o->gpus_per_node - 1) / o->gpus_per_node;
		per = o->gpus_per_node;
	}
	snprintf(name, sizeof(name), "--job-name=hs-trace-%d", i);
	snprintf(out, sizeof(out), "--output=%s/job-%d.out", o->log_dir, i);
	snprintf(gres, sizeof(gres), "--gres=gpu:%d", per);
	snprintf(nodes, sizeof(nodes), "--nodes=%d", n);
	snprintf(model, sizeof(model), "--hs-model=%s", tj->model);
	snprintf(steps, sizeof(steps), "--hs-steps=%llu", total ? total : 1);
	snprintf(ckpt, sizeof(ckpt), "--hs-ckpt-dir=%s/ckpt/%%j", o->log_dir);
	snprintf(sf, sizeof(sf), "%d", tj->scale_factor);
	snprintf(scale, sizeof(scale), "%.17g", o->time_scale);
	wrap[0] = '\0';
	if (tp_shell_quote(wrap, sizeof(wrap), emu) || tp_shell_quote(wrap, sizeof(wrap), "--table") ||
	    tp_shell_quote(wrap, sizeof(wrap), o->table) ||
	    tp_shell_quote(wrap, sizeof(wrap), "--time-scale") || tp_shell_quote(wrap, sizeof(wrap), scale) ||
	    tp_shell_quote(wrap, sizeof(wrap), "--scale-factor") || tp_shell_quote(wrap, sizeof(wrap), sf))
		return die("job %d: command line too long", i);
	argv[a++] = "sbatch";
	argv[a++] = "--parsable";
	argv[a++] = name;
	argv[a++] = "--requeue";
	argv[a++] = "--open-mode=append";
	argv[a++] = out;
	argv[a++] = gres;
	argv[a++] = nodes;
	argv[a++] = model;
	argv[a++] = steps;
	if (o->ckpt)
		argv[a++] = ckpt;
	for (int k = 0; k < o->nextra; k++)
		argv[a++] = (char *)o->extra[k];
	argv[a++] = "--wrap";
	argv[a++] = wrap;
	argv[a] = NULL;
	if (o->dry_run) {
		char line[4 * PATH_MAX] = "";

		for (int k = 0; k < a; k++)
			tp_shell_quote(line, sizeof(line), argv[k]);
		printf("%.3f %s\n", tj->arrival_s / o->time_scale, line);
		return 0;
	}
	rc = tp_run(argv, res, sizeof(res));
	job->submit_wall = now_wall();
	job->id = strtol(res, &endp, 10);
	if (rc != 0 || job->id <= 0 || (*endp && *endp != '\n' && *endp != ';')) {
		job->id = 0;
		job->done = 1;
		snprintf(job->state, sizeof(job->state), "SUBMIT_FAILED");
		fprintf(stderr, "hetsched-trace-play: job %d (%s, %d GPUs): sbatch failed\n", i,
			tj->model, tj->scale_factor);
		return -1;
	}
	return 0;
}

static int final_state(const char *s)
{
	static const char *const live[] = { "PENDING", "RUNNING", "REQUEUED", "SUSPENDED",
					     "COMPLETING", "CONFIGURING", "RESIZING", "REQUEUE_HOLD",
					     "REQUEUE_FED", "SIGNALING", "STAGE_OUT" };

	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (!strncmp(s, live[i], strlen(live[i])))
			return 0;
	return *s != '\0';
}

/* A requeued job's last sacct row is the finished incarnation (PREEMPTED,
 * NODE_FAIL, ...) until slurmdbd has the new one, which can take a poll
 * or more: sacct alone would call it done. So a job whose sacct state is
 * final is marked -1 (to confirm) and confirm_done() asks slurmctld:
 * done only when squeue does not list it in a live state (a job purged
 * from slurmctld, or listed as finished, is done). */
static int confirm_done(tjob_t *jobs, int n)
{
	char *argv[] = { "squeue", "-h", "-t", "all", "-o", "%i|%T", NULL };
	size_t size = 4 << 20;
	char *out, *line, *save;
	int any = 0;

	for (int i = 0; i < n; i++)
		any |= jobs[i].done < 0;
	if (!any)
		return 0;
	out = malloc(size);
	if (!out || tp_run(argv, out, size) != 0) {
		free(out);   /* slurmctld busy: confirm at the next poll */
		for (int i = 0; i < n; i++)
			if (jobs[i].done < 0)
				jobs[i].done = 0;
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char state[64] = "";
		long id = strtol(line, NULL, 10);

		if (sscanf(line, "%*[0-9]|%63s", state) < 1 || final_state(state))
			continue;
		for (int i = 0; i < n; i++)
			if (jobs[i].id == id && jobs[i].done < 0) {
				jobs[i].done = 0;   /* requeued: live again */
				snprintf(jobs[i].state, sizeof(jobs[i].state), "%s", state);
			}
	}
	free(out);
	for (int i = 0; i < n; i++)
		if (jobs[i].done < 0)
			jobs[i].done = 1;
	return 0;
}

/* One sacct query for every unfinished job: state, end time, incarnations
 * (sacct -D lists every requeued incarnation). */
static int poll_jobs(tjob_t *jobs, int n)
{
	char ids[65536] = "", *out, *line, *save;
	char *argv[] = { "sacct", "-D", "-X", "-n", "-P", "-o", "JobIDRaw,State,End", "-j", ids, NULL };
	size_t pos = 0, size = 4 << 20;
	int pending = 0;

	for (int i = 0; i < n; i++) {
		if (jobs[i].done || !jobs[i].id)
			continue;
		pos += (size_t)snprintf(ids + pos, sizeof(ids) - pos, "%s%ld", pos ? "," : "", jobs[i].id);
		jobs[i].incarnations = 0;
		pending++;
		if (pos > sizeof(ids) - 32)
			break;
	}
	if (!pending)
		return 0;
	out = malloc(size);
	if (!out)
		return -1;
	if (tp_run(argv, out, size) != 0) {
		free(out);
		return -1;   /* slurmdbd busy: try again at the next poll */
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char state[64] = "", end[64] = "";
		long id = strtol(line, NULL, 10);
		struct tm tm;

		if (sscanf(line, "%*[0-9]|%63[^|]|%63s", state, end) < 1)
			continue;
		for (int i = 0; i < n; i++) {
			if (jobs[i].id != id || jobs[i].done)
				continue;
			/* rows come oldest first: the last one is the current run */
			jobs[i].incarnations++;
			snprintf(jobs[i].state, sizeof(jobs[i].state), "%s", state);
			memset(&tm, 0, sizeof(tm));
			tm.tm_isdst = -1;
			if (strptime(end, "%Y-%m-%dT%H:%M:%S", &tm))
				jobs[i].end_wall = (double)mktime(&tm);
		}
	}
	free(out);
	for (int i = 0; i < n; i++)
		if (jobs[i].id && !jobs[i].done && jobs[i].incarnations && final_state(jobs[i].state))
			jobs[i].done = -1;
	return confirm_done(jobs, n);
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	char emubuf[PATH_MAX], logbuf[PATH_MAX];
	const char *emu;
	hs_trace_t tr;
	hs_err_t err;
	opts_t o;
	tjob_t *jobs;
	FILE *csv = stdout;
	double t0, last_progress, first_submit = 0, last_end = 0, sum_jct = 0;
	int n, rc, submitted = 0, completed = 0, failed = 0;

	if ((rc = parse_opts(argc, argv, &o)))
		return rc;
	emu = o.emulator ? o.emulator : find_emulator(argv[0], emubuf, sizeof(emubuf));
	if (hs_trace_load(&tr, o.trace, &err) < 0) {
		hs_trace_free(&tr);
		return die("%s", err.msg);
	}
	n = o.limit && o.limit < tr.njobs ? o.limit : tr.njobs;
	if (!o.log_dir) {
		char cwd[PATH_MAX - 32];

		if (!getcwd(cwd, sizeof(cwd)))
			snprintf(cwd, sizeof(cwd), ".");
		snprintf(logbuf, sizeof(logbuf), "%s/hs-trace.%ld", cwd, (long)getpid());
		o.log_dir = logbuf;
	}
	if (!o.dry_run && mkdir(o.log_dir, 0755) < 0 && errno != EEXIST) {
		hs_trace_free(&tr);
		return die("mkdir %s: %s", o.log_dir, strerror(errno));
	}
	jobs = calloc((size_t)(n ? n : 1), sizeof(*jobs));
	if (!jobs) {
		hs_trace_free(&tr);
		return die("out of memory");
	}
	if (o.out && !o.dry_run && !(csv = fopen(o.out, "w"))) {
		free(jobs);
		hs_trace_free(&tr);
		return die("%s: %s", o.out, strerror(errno));
	}
	fprintf(stderr, "hetsched-trace-play: %d job(s) from %s, time scale %g, logs in %s\n",
		n, o.trace, o.time_scale, o.log_dir);

	/* Submit at the arrival times; poll sacct while waiting. */
	t0 = last_progress = now_mono();
	for (int i = 0; i < n; i++) {
		double due = t0 + tr.jobs[i].arrival_s / o.time_scale;

		while (!o.dry_run && now_mono() < due) {
			sleep_s(fmin(o.poll, due - now_mono()));
			if (now_mono() - last_progress >= 10) {
				last_progress = now_mono();
				fprintf(stderr, "hetsched-trace-play: %.0fs: submitted %d/%d\n",
					last_progress - t0, submitted, n);
			}
		}
		if (submit(&o, &tr.jobs[i], i, emu, &jobs[i]) == 0 && !o.dry_run)
			submitted++;
		if (submitted == 1 && !first_submit)
			first_submit = jobs[i].submit_wall;
	}
	if (o.dry_run) {
		free(jobs);
		hs_trace_free(&tr);
		return 0;
	}
	/* Wait for every job to finish. */
	for (;;) {
		int left = 0, running = 0;

		poll_jobs(jobs, n);
		for (int i = 0; i < n; i++) {
			left += !jobs[i].done;
			running += !jobs[i].done && !strcmp(jobs[i].state, "RUNNING");
		}
		if (!left)
			break;
		if (o.timeout > 0 && now_mono() - t0 > o.timeout) {
			fprintf(stderr, "hetsched-trace-play: timeout: %d job(s) not finished\n", left);
			break;
		}
		if (now_mono() - last_progress >= 10) {
			last_progress = now_mono();
			fprintf(stderr, "hetsched-trace-play: %.0fs: %d/%d finished, %d running\n",
				last_progress - t0, n - left, n, running);
		}
		sleep_s(o.poll);
	}
	fprintf(csv, "index,job_id,model,scale_factor,total_steps,arrival_s,state,incarnations,"
		     "submit_wall,end_wall,jct_wall_s,jct_trace_s\n");
	for (int i = 0; i < n; i++) {
		tjob_t *j = &jobs[i];
		double jct = j->done && j->end_wall > 0 ? j->end_wall - floor(j->submit_wall) : NAN;

		if (!strcmp(j->state, "COMPLETED")) {
			completed++;
			sum_jct += jct * o.time_scale;
			if (j->end_wall > last_end)
				last_end = j->end_wall;
		} else {
			failed++;
		}
		fprintf(csv, "%d,%ld,\"%s\",%d,%.17g,%.17g,%s,%d,%.0f,%.0f,%.0f,%.1f\n", i, j->id,
			tr.jobs[i].model, tr.jobs[i].scale_factor, tr.jobs[i].total_steps,
			tr.jobs[i].arrival_s, j->state[0] ? j->state : "UNKNOWN", j->incarnations,
			j->submit_wall, j->end_wall, jct, jct * o.time_scale);
	}
	if (csv != stdout)
		fclose(csv);
	fprintf(stderr, "hetsched-trace-play: %d completed, %d not; mean JCT %.1f trace-s; "
		"makespan %.1f trace-s\n", completed, failed, completed ? sum_jct / completed : 0.0,
		completed ? (last_end - floor(first_submit)) * o.time_scale : 0.0);
	free(jobs);
	hs_trace_free(&tr);
	return failed ? 1 : 0;
}
