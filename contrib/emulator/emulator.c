/* SPDX-License-Identifier: GPL-2.0-or-later */
/* emulator.c — hetsched-emulator: behaves like a deep-learning training job
 * of a model from a Gavel throughput table, so the whole system runs
 * realistically without GPUs (see hetsched-emulator(1)).
 *
 * It runs mini-batches at the table throughput of the GPU type it was
 * placed on (HS_GPU_TYPE, set by spank_hetsched), at the pair throughput
 * while it shares that GPU (HS_GPU_SHARED=1, partner from emu_share.h or
 * --partner), with a time-scale factor so hour-long jobs run in seconds;
 * reports every mini-batch through libhetsched-report; checkpoints on the
 * scheduler's signal (doc/protocol.md (d)) and resumes from its checkpoint;
 * exits 0 when its total steps are done.
 */
#include "hs_config.h"
#include "core/thrtable.h"
#include "emu_ckpt.h"
#include "emu_share.h"
#include "hetsched/report.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Behind schedule by more than this: a stall (suspend), not slowness: do
 * not catch up. Shorter delays (the process was not scheduled on a loaded
 * node) are caught up, so the emulated rate stays the table's. Equal to
 * the estimator's gap_min_s (estimator.h): a longer stall, not caught up,
 * is excluded there as a gap; with 0.5, stalls of 0.5-1 s were neither
 * caught up nor excluded and read as slow training. */
#define STALL_S 1.0

typedef struct opts {
	const char *table, *model, *gpu, *partner, *ckpt_dir, *share_dir;
	int sf, shared, quiet;
	int detect, no_detect;        /* co-tenant detection under Slurm */
	uint64_t steps, ckpt_every;
	double time_scale, progress_s;
} opts_t;

static volatile sig_atomic_t terminated;

static void on_term(int sig)
{
	terminated = sig;
}

static void say(const opts_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const opts_t *o, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet)
		return;
	printf("hetsched-emulator: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hetsched-emulator: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - floor(t)) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !terminated)
		;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* 32-bit FNV-1a: a short, stable tag of a string for file names. */
static unsigned fnv1a(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* "ResNet-50 (batch size 64)" -> 64; 0 when the name has no batch size. */
static uint64_t batch_size(const char *model)
{
	const char *p = strstr(model, "batch size ");
	unsigned long long b;

	return p && sscanf(p + 11, "%llu", &b) == 1 ? b : 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hetsched-emulator [--table FILE] [--model NAME] [--steps N]\n"
		"         [--scale-factor SF] [--time-scale F] [--gpu-type TYPE]\n"
		"         [--shared] [--partner MODEL] [--share-dir DIR]\n"
		"         [--ckpt-dir DIR] [--ckpt-every N] [--progress SECONDS] [--quiet]\n"
		"         [--no-share-detect]\n"
		"Defaults come from HS_THROUGHPUT_TABLE, HS_MODEL, HS_STEPS, HS_GPU_TYPE,\n"
		"HS_GPU_SHARED, HS_CKPT_DIR and HS_EMU_SHARE_DIR. See hetsched-emulator(1).\n");
}

/* The job's GPU count, the default scale factor: the scheduler looks up a
 * job with N GPUs as (model, N) in the table, so the emulator must train at
 * that entry's speed. Slurm sets SLURM_GPUS_ON_NODE and SLURM_JOB_NUM_NODES
 * in every task; outside Slurm, CUDA_VISIBLE_DEVICES's entries; else 1. */
static int job_gpus(void)
{
	const char *g = env("SLURM_GPUS_ON_NODE"), *n = env("SLURM_JOB_NUM_NODES");
	const char *cvd = env("CUDA_VISIBLE_DEVICES");
	long gpus = 0, nodes = 1;
	char *end;

	if (g) {
		gpus = strtol(g, &end, 10);
		if (*end || gpus < 1 || gpus > 1024)
			gpus = 0;
	}
	if (gpus && n) {
		nodes = strtol(n, &end, 10);
		if (*end || nodes < 1 || nodes > 1024)
			nodes = 1;
	}
	if (!gpus && cvd && *cvd) {
		gpus = 1;
		for (; *cvd; cvd++)
			gpus += *cvd == ',';
	}
	if (gpus < 1)
		return 1;
	return gpus * nodes > 1024 ? 1024 : (int)(gpus * nodes);
}

static int parse_opts(int argc, char **argv, opts_t *o)
{
	static const struct option lo[] = {
		{ "table", required_argument, 0, 't' },
		{ "model", required_argument, 0, 'm' },
		{ "steps", required_argument, 0, 'n' },
		{ "scale-factor", required_argument, 0, 's' },
		{ "time-scale", required_argument, 0, 'x' },
		{ "gpu-type", required_argument, 0, 'g' },
		{ "shared", no_argument, 0, 'S' },
		{ "partner", required_argument, 0, 'p' },
		{ "share-dir", required_argument, 0, 'D' },
		{ "ckpt-dir", required_argument, 0, 'c' },
		{ "ckpt-every", required_argument, 0, 'e' },
		{ "progress", required_argument, 0, 'P' },
		{ "quiet", no_argument, 0, 'q' },
		{ "no-share-detect", no_argument, 0, 'N' },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 },
	};
	const char *steps = env("HS_STEPS");
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->table = env("HS_THROUGHPUT_TABLE");
	o->model = env("HS_MODEL");
	o->gpu = env("HS_GPU_TYPE");
	o->shared = env("HS_GPU_SHARED") && !strcmp(env("HS_GPU_SHARED"), "1");
	o->partner = env("HS_EMU_PARTNER");
	o->ckpt_dir = env("HS_CKPT_DIR");
	o->share_dir = env("HS_EMU_SHARE_DIR");
	o->sf = job_gpus();
	o->time_scale = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't': o->table = optarg; break;
		case 'm': o->model = optarg; break;
		case 'n': steps = optarg; break;
		case 's':
			o->sf = (int)strtol(optarg, &end, 10);
			if (*end || o->sf < 1 || o->sf > 1024)
				return die("--scale-factor: '%s' is not in 1..1024", optarg);
			break;
		case 'x':
			o->time_scale = strtod(optarg, &end);
			if (*end || !isfinite(o->time_scale) || o->time_scale <= 0)
				return die("--time-scale: '%s' is not a positive number", optarg);
			break;
		case 'g': o->gpu = optarg; break;
		case 'S': o->shared = 1; break;
		case 'p': o->partner = optarg; o->shared = 1; break;
		case 'D': o->share_dir = optarg; break;
		case 'c': o->ckpt_dir = optarg; break;
		case 'e':
			if (parse_u64(optarg, &o->ckpt_every))
				return die("--ckpt-every: '%s' is not a count", optarg);
			break;
		case 'P':
			o->progress_s = strtod(optarg, &end);
			if (*end || !isfinite(o->progress_s) || o->progress_s < 0)
				return die("--progress: '%s' is not a number of seconds", optarg);
			break;
		case 'q': o->quiet = 1; break;
		case 'N': o->no_detect = 1; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("hetsched-emulator %s\n", PACKAGE_VERSION); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc)
		return die("unexpected argument '%s'", argv[optind]);
	if (!o->table)
		return die("no throughput table: pass --table or set HS_THROUGHPUT_TABLE");
	if (!o->model)
		return die("no model: pass --model or submit with --hs-model (HS_MODEL)");
	if (!steps || parse_u64(steps, &o->steps) || o->steps == 0)
		return die("no total steps: pass --steps N or submit with --hs-steps (HS_STEPS)");
	if (!o->gpu)
		return die("no GPU type: run under spank_hetsched (HS_GPU_TYPE) or pass --gpu-type");
	return 0;
}

typedef struct emu {
	opts_t o;
	hs_thrtable_t table;
	int jt;
	double alone;               /* steps/s alone on o.gpu */
	emu_share_t share;
	int share_on;
	char partner[256];          /* current partner model, "" = alone */
	double rate;                /* current steps/s */
	uint64_t step, last_ckpt, start_step;
} emu_t;

/* Throughput now: alone, or paired with the current partner. */
static double current_rate(emu_t *e)
{
	char model[256] = "";
	int psf = 0, b;

	if (!e->o.shared && !e->o.detect)
		return e->alone;
	if (e->o.partner) {
		snprintf(model, sizeof(model), "%s", e->o.partner);
		psf = e->o.sf;
	} else if (e->share_on) {
		emu_share_touch(&e->share, e->o.model, e->o.sf);
		if (!emu_share_partner(&e->share, model, sizeof(model), &psf))
			model[0] = '\0';
	}
	if (strcmp(model, e->partner)) {
		snprintf(e->partner, sizeof(e->partner), "%s", model);
		say(&e->o, "partner \"%s\" step=%llu", model, (unsigned long long)e->step);
	}
	if (!model[0])
		return e->alone;
	b = hs_thrtable_find(&e->table, model, psf);
	if (b >= 0) {
		double p = hs_thrtable_pair(&e->table, e->jt, b, e->o.gpu);

		if (p > 0)
			return p;
	}
	/* the table says the pair cannot share (or does not know the
	 * partner): assume an even split of the GPU */
	return e->alone / 2;
}

static int checkpoint(emu_t *e, const char *why)
{
	char msg[512];

	if (emu_ckpt_save(e->o.ckpt_dir, e->o.model, e->o.sf, e->step, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "hetsched-emulator: checkpoint failed: %s\n", msg);
		return -1;
	}
	e->last_ckpt = e->step;
	say(&e->o, "ckpt step=%llu (%s)", (unsigned long long)e->step, why);
	return 0;
}

/* The scheduler asked for a checkpoint: save, acknowledge, hold. */
static void on_ckpt_request(emu_t *e)
{
	unsigned held;

	if (!e->o.ckpt_dir) {
		say(&e->o, "checkpoint requested but no checkpoint directory; ignored");
		hs_report_checkpoint(e->last_ckpt);   /* clears the flag */
		return;
	}
	if (checkpoint(e, "requested") < 0)
		return;
	hs_report_checkpoint(e->step);
	say(&e->o, "hold step=%llu", (unsigned long long)e->step);
	held = hs_report_ckpt_hold();
	if (!terminated)
		say(&e->o, "hold ended after %us; continuing", held);
}

static void say_report_stats(const emu_t *e)
{
	hs_report_stats_t s;

	hs_report_get_stats(&s);
	say(&e->o, "reports sent=%lu refused=%lu coalesced=%lu", s.sent, s.dropped, s.coalesced);
}

static int run(emu_t *e)
{
	uint64_t bs = batch_size(e->o.model);
	double t = now_s(), next = t, last_share = -1, last_progress = t;

	e->rate = current_rate(e);
	say(&e->o, "start job=%s rc=%u model=\"%s\" sf=%d gpu=%s shared=%d thr=%.6g "
	    "step=%llu steps=%llu time_scale=%g report=%s",
	    env("SLURM_JOB_ID") ? env("SLURM_JOB_ID") : "-", hs_report_restart_count(),
	    e->o.model, e->o.sf, e->o.gpu, e->o.shared, e->rate,
	    (unsigned long long)e->step, (unsigned long long)e->o.steps, e->o.time_scale,
	    hs_report_active() ? "on" : "off");
	while (e->step < e->o.steps && !terminated) {
		/* one mini-batch of 1/rate emulated seconds */
		next += 1.0 / (e->rate * e->o.time_scale);
		t = now_s();
		if (t > next + STALL_S)
			next = t;          /* stopped or starved: no catch-up burst */
		else if (next > t)
			sleep_until(next);
		if (terminated)
			break;
		e->step++;
		if (bs)
			hs_report_step_samples(e->step, e->step * bs);
		else
			hs_report_step(e->step);
		if (e->o.ckpt_every && e->o.ckpt_dir && e->step % e->o.ckpt_every == 0 &&
		    e->step < e->o.steps)
			checkpoint(e, "periodic");
		if (hs_report_ckpt_requested() && e->step < e->o.steps) {
			on_ckpt_request(e);
			next = now_s();
		}
		t = now_s();
		if ((e->o.shared || e->o.detect) && t - last_share >= 1.0) {
			last_share = t;
			e->rate = current_rate(e);
		}
		if (e->o.progress_s > 0 && t - last_progress >= e->o.progress_s) {
			last_progress = t;
			say(&e->o, "progress step=%llu", (unsigned long long)e->step);
		}
	}
	/* the last report: retried (bounded) while the listener's queue is
	 * full, so the counters below are final */
	(void)hs_report_flush_wait(2000);
	if (terminated) {
		say(&e->o, "terminated by signal %d step=%llu ran=%llu last_ckpt=%llu",
		    (int)terminated, (unsigned long long)e->step,
		    (unsigned long long)(e->step - e->start_step), (unsigned long long)e->last_ckpt);
		say_report_stats(e);
		return 128 + (int)terminated;
	}
	say(&e->o, "done step=%llu ran=%llu", (unsigned long long)e->step,
	    (unsigned long long)(e->step - e->start_step));
	say_report_stats(e);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	hs_err_t err;
	emu_t e;
	char msg[512];
	int rc;

	memset(&e, 0, sizeof(e));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((rc = parse_opts(argc, argv, &e.o)))
		return rc;
	if (hs_thrtable_load(&e.table, e.o.table, &err) < 0)
		return die("%s", err.msg);
	e.jt = hs_thrtable_find(&e.table, e.o.model, e.o.sf);
	if (e.jt < 0) {
		hs_thrtable_free(&e.table);
		return die("('%s', %d) is not in %s", e.o.model, e.o.sf, e.o.table);
	}
	e.alone = hs_thrtable_alone(&e.table, e.jt, e.o.gpu, 1);
	if (!(e.alone > 0)) {
		hs_thrtable_free(&e.table);
		return die("('%s', %d) has no throughput on GPU type '%s' in %s",
			   e.o.model, e.o.sf, e.o.gpu, e.o.table);
	}
	/* Packing (doc/packing.md) double-books GPU indices, so a packed job
	 * looks like one holding a whole GPU: under Slurm with GPUs, always
	 * look for a co-tenant on the same GPUs. */
	if (!e.o.partner && !e.o.no_detect && env("SLURM_JOB_ID") &&
	    (env("SLURM_JOB_GPUS") || env("SLURM_STEP_GPUS") || env("CUDA_VISIBLE_DEVICES")))
		e.o.detect = 1;
	if ((e.o.shared || e.o.detect) && !e.o.partner) {
		char key[512], id[64], base[1024];
		const char *gpus = env("SLURM_STEP_GPUS") ? env("SLURM_STEP_GPUS")
				 : env("SLURM_JOB_GPUS") ? env("SLURM_JOB_GPUS")
				 : env("CUDA_VISIBLE_DEVICES") ? env("CUDA_VISIBLE_DEVICES") : "0";

		snprintf(base, sizeof(base), "%s", e.o.share_dir ? e.o.share_dir : "/tmp/hetsched-emulator-share");
		/* Several clusters with the same name may run on one machine
		 * (test clusters): SLURM_CONF, when set, tells them apart. */
		snprintf(key, sizeof(key), "%s.%08x.%s.%s",
			 env("SLURM_CLUSTER_NAME") ? env("SLURM_CLUSTER_NAME") : "-",
			 fnv1a(env("SLURM_CONF") ? env("SLURM_CONF") : ""),
			 env("SLURMD_NODENAME") ? env("SLURMD_NODENAME") : "local", gpus);
		snprintf(id, sizeof(id), "%s", env("SLURM_JOB_ID") ? env("SLURM_JOB_ID") : "pid");
		if (!env("SLURM_JOB_ID"))
			snprintf(id, sizeof(id), "pid%ld", (long)getpid());
		if (emu_share_open(&e.share, base, key, id, msg, sizeof(msg)) < 0)
			fprintf(stderr, "hetsched-emulator: sharing GPU, partner unknown: %s\n", msg);
		else
			e.share_on = 1;
	}
	if (e.o.ckpt_dir) {
		rc = emu_ckpt_load(e.o.ckpt_dir, e.o.model, e.o.sf, &e.step, msg, sizeof(msg));
		if (rc < 0) {
			hs_thrtable_free(&e.table);
			return die("cannot resume: %s", msg);
		}
		if (rc == 1)
			say(&e.o, "resume step=%llu from %s/%s", (unsigned long long)e.step,
			    e.o.ckpt_dir, EMU_CKPT_FILE);
		if (e.step > e.o.steps)
			e.step = e.o.steps;
		e.last_ckpt = e.start_step = e.step;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (hs_report_ckpt_watch() < 0)
		fprintf(stderr, "hetsched-emulator: cannot watch the checkpoint signal: %s\n", strerror(errno));
	rc = run(&e);
	if (e.share_on)
		emu_share_close(&e.share);
	hs_thrtable_free(&e.table);
	return rc;
}
