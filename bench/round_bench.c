/* SPDX-License-Identifier: GPL-2.0-or-later */
/* round_bench.c — the sched plugin's round without Slurm, at the size of
 * bench/scale.sh: what slurmctld's hetsched thread does outside the locks
 * (engine round on a snapshot, saved state, status document, metrics),
 * with the time and the process's memory after each stage. For
 * bench/round.sh, which runs one queue length per process so that the
 * peak (VmHWM) is that queue's.
 *
 * The snapshot is bench/scale.sh's -p set-up: NODES nodes of 16 GPUs of
 * four types (a100, v100, p100, k80 in equal parts), W whole-node jobs
 * and R one-GPU jobs running and not requeueable (pinned), and Q pending
 * preemptible one-GPU jobs, each with its own model in a generated
 * throughput table (so class aggregation cannot help), as scale.sh's
 * single jobs. The jobs of a round are not started between rounds (no
 * Slurm): every round solves the same queue, which is what the memory
 * and time of one round need.
 *
 * Output: one "stage=... ms=... rss_mb=... hwm_mb=..." line per stage,
 * then a summary line with the peak.
 */
#include "sched/engine.h"
#include "sched/metrics.h"
#include "sched/statefile.h"
#include "sched/status_private.h"

#include <getopt.h>
#include <json-c/json.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const types[] = { "a100", "v100", "p100", "k80" };
enum { NTYPES = 4, GPUS_PER_NODE = 16 };

typedef struct opts {
	int nodes, whole, running, queue, rounds, max_jobs, trim;
	int users, accounts; /* 0 users: no association tree (per-job fairness) */
	const char *dir;           /* table, state, status files */
	const char *policy;
} opts_t;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* VmRSS and VmHWM of this process in MB (/proc/self/status). */
static void mem_mb(double *rss, double *hwm)
{
	*rss = *hwm = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return;
	char line[256];
	long kb;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			*rss = kb / 1024.0;
		else if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			*hwm = kb / 1024.0;
	}
	fclose(f);
}

static void stage(const char *name, double t0)
{
	double rss, hwm;
	mem_mb(&rss, &hwm);
	printf("stage=%s ms=%.1f rss_mb=%.1f hwm_mb=%.1f\n", name, now_ms() - t0, rss, hwm);
	fflush(stdout);
}

/* The throughput table: one model per job (m0 .. m<n-1>), faster types
 * faster by a job-specific factor, like scale.sh's generator. */
static int write_table(const char *path, int n)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	unsigned s = 12;
	fputc('{', f);
	for (int t = 0; t < NTYPES; t++) {
		fprintf(f, "%s\"%s\": {", t ? ", " : "", types[t]);
		for (int k = 0; k < n; k++) {
			double base = 1 + 99.0 * rand_r(&s) / RAND_MAX;
			double v = base * (0.3 + 0.7 * rand_r(&s) / RAND_MAX) * (NTYPES - t);
			fprintf(f, "%s\"('m%d', 1)\": {\"null\": %.4f}", k ? ", " : "", k, v);
		}
		fputc('}', f);
	}
	fputs("}\n", f);
	return fclose(f);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		fprintf(stderr, "round_bench: out of memory\n");
		exit(1);
	}
	return d;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);
	if (!p) {
		fprintf(stderr, "round_bench: out of memory\n");
		exit(1);
	}
	return p;
}

static void add_nodes(hs_snap_t *s, int nodes)
{
	s->nnodes = nodes;
	s->nodes = xcalloc((size_t)nodes, sizeof(*s->nodes));
	s->nparts = 1;
	s->parts = xcalloc(1, sizeof(*s->parts));
	s->parts[0].name = xstrdup("gpu");
	s->parts[0].managed = s->parts[0].up = 1;
	s->parts[0].nnodes = nodes;
	s->parts[0].nodes = xcalloc((size_t)nodes, sizeof(int));
	for (int n = 0; n < nodes; n++) {
		hs_snode_t *nd = &s->nodes[n];
		int t = n * NTYPES / nodes;
		char name[64];
		snprintf(name, sizeof(name), "%s-%d", types[t], n + 1);
		nd->name = xstrdup(name);
		nd->gpu_type = xstrdup(types[t]);
		nd->ngpus = GPUS_PER_NODE;
		nd->gpu_held = xcalloc(GPUS_PER_NODE, 1);
		nd->avail = 1;
		s->parts[0].nodes[n] = n;
	}
}

/* A job with the fields every snapshot job has; `model` < 0: none. */
static hs_sjob_t *add_job(hs_snap_t *s, uint32_t id, hs_sjob_state_t st, int gpus, int model)
{
	hs_sjob_t *j = hs_snap_add_job(s);
	if (!j) {
		fprintf(stderr, "round_bench: out of memory\n");
		exit(1);
	}
	j->id = id;
	j->user_id = 1000 + id % 16;
	j->state = st;
	j->eligible = st == HS_SJ_PENDING;
	j->gpus = gpus;
	j->nodes = 1;
	j->shape_ok = 1;
	j->nparts = 1;
	j->parts = xcalloc(1, sizeof(int));
	j->env = xcalloc(2, sizeof(char *));
	if (model >= 0) {
		char buf[64];
		snprintf(buf, sizeof(buf), "HS_MODEL=m%d", model);
		j->env[j->nenv++] = xstrdup(buf);
	}
	j->account = xstrdup(id % 2 ? "lab-a" : "lab-b");
	j->qos = xstrdup("normal");
	j->priority = 1000;
	j->submit_time = s->now - 600 + id % 600;
	j->batch = 1;
	j->requeue_ok = st == HS_SJ_PENDING;
	return j;
}

/* Running job j holds `n` GPUs of node `node` from GPU `first`. */
static void hold(hs_snap_t *s, hs_sjob_t *j, int node, int first, int n)
{
	j->held = xcalloc((size_t)n, sizeof(*j->held));
	j->nheld = n;
	j->start_time = s->now - 300;
	for (int g = 0; g < n; g++) {
		j->held[g].node = node;
		j->held[g].gpu = first + g;
		s->nodes[node].gpu_held[first + g] = 1;
	}
}

/* Node `k` in an order that alternates the types (a100-1, v100-1, p100-1,
 * k80-1, a100-2, ...), so the pinned jobs leave free GPUs of every type
 * and the policy has four types to share, as on the live cluster. */
static int interleaved(int k, int nodes)
{
	int per = nodes / NTYPES;
	return (k % NTYPES) * per + k / NTYPES;
}

/* The association tree of --users/--accounts: the accounts under the
 * root, then user k in account k % accounts; every Shares 1. */
static void add_assocs(hs_snap_t *s, const opts_t *o)
{
	char acct[32], user[32];
	for (int a = 0; a < o->accounts; a++) {
		snprintf(acct, sizeof(acct), "acct%d", a);
		if (!hs_snap_add_assoc(s, (uint32_t)(a + 2), -1, acct, NULL, 1))
			exit(1);
	}
	for (int u = 0; u < o->users; u++) {
		snprintf(acct, sizeof(acct), "acct%d", u % o->accounts);
		snprintf(user, sizeof(user), "u%d", u);
		if (!hs_snap_add_assoc(s, (uint32_t)(o->accounts + u + 2), u % o->accounts, acct, user, 1))
			exit(1);
	}
}

/* With --users: job `id` belongs to user id % users. */
static void set_owner(hs_sjob_t *j, const opts_t *o)
{
	if (o->users <= 0)
		return;
	int u = (int)(j->id % (uint32_t)o->users);
	char name[32];
	snprintf(name, sizeof(name), "u%d", u);
	j->user_id = 1000 + (uint32_t)u;
	j->user = xstrdup(name);
	free(j->account);
	snprintf(name, sizeof(name), "acct%d", u % o->accounts);
	j->account = xstrdup(name);
	j->assoc = o->accounts + u + 1; /* index + 1 */
}

static void build_snapshot(hs_snap_t *s, const opts_t *o)
{
	hs_snap_init(s);
	s->now = 1800000000;
	add_nodes(s, o->nodes);
	if (o->users > 0)
		add_assocs(s, o);
	uint32_t id = 1;
	int model = 0;
	for (int w = 0; w < o->whole; w++)
		hold(s, add_job(s, id++, HS_SJ_RUNNING, GPUS_PER_NODE, model++),
		     interleaved(w, o->nodes), 0, GPUS_PER_NODE);
	/* the one-GPU jobs round robin over the other nodes */
	int rest = o->nodes - o->whole;
	for (int r = 0; r < o->running; r++) {
		int node = interleaved(o->whole + r % rest, o->nodes);
		hold(s, add_job(s, id++, HS_SJ_RUNNING, 1, model++), node, r / rest, 1);
	}
	for (int q = 0; q < o->queue; q++)
		add_job(s, id++, HS_SJ_PENDING, 1, model++);
	for (int k = 0; k < s->njobs; k++)
		set_owner(&s->jobs[k], o);
}

static void log_fn(void *arg, int level, const char *msg)
{
	(void)arg;
	if (level == HS_LOG_ERROR)
		fprintf(stderr, "engine: %s\n", msg);
}

/* What the plugin does after a round (agent.c save_state, write_status,
 * write_metrics), into o->dir. */
static int after_round(hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *p, const opts_t *o,
		       hs_err_t *err)
{
	char path[4096];
	double t0 = now_ms();
	snprintf(path, sizeof(path), "%s/state.json", o->dir);
	json_object *st = hs_engine_save_lazy(e, err); /* as agent.c saves */
	int rc = st ? hs_json_write_atomic(path, st, 0600, err) : -1;
	json_object_put(st);
	if (rc < 0)
		return -1;
	stage("state", t0);
	t0 = now_ms();
	hs_round_stats_t rs;
	memset(&rs, 0, sizeof(rs));
	json_object *doc = hs_engine_status_lazy(e, s, p, &rs, s->now, err); /* as agent.c */
	stage("status_doc", t0);
	snprintf(path, sizeof(path), "%s/status.json", o->dir);
	if (!doc || hs_status_write(path, doc, 0, err) < 0) {
		json_object_put(doc);
		return -1;
	}
	stage("status_write", t0);
	size_t len = 0;
	char *text = hs_metrics_text(doc, &len, err);
	json_object_put(doc);
	free(text);
	stage("metrics", t0);
	return text ? 0 : -1;
}

static int run(const opts_t *o)
{
	double t0 = now_ms();
	stage("start", t0);
	char table[4096], conf[8192];
	snprintf(table, sizeof(table), "%s/table.json", o->dir);
	if (write_table(table, o->whole + o->running + o->queue) < 0) {
		fprintf(stderr, "round_bench: cannot write %s\n", table);
		return 1;
	}
	snprintf(conf, sizeof(conf),
		 "Policy=%s\nThroughputTable=%s\nMaxJobs=%d\nRequeueWithoutCheckpoint=yes\n%s\n",
		 o->policy, table, o->max_jobs,
		 getenv("HS_ROUND_CONF") ? getenv("HS_ROUND_CONF") : ""); /* e.g. Learning=no */
	t0 = now_ms(); /* the configuration loads the table */
	hs_sconf_t c;
	hs_err_t err;
	hs_engine_t *e = NULL;
	if (hs_sconf_defaults(&c, &err) == 0 && hs_sconf_parse_text(&c, conf, &err) == 0)
		e = hs_engine_new(&c, log_fn, NULL, &err);
	hs_sconf_free(&c);
	if (!e) {
		fprintf(stderr, "round_bench: %s\n", err.msg);
		return 1;
	}
	stage("engine_new", t0);
	/* --trim: hand the table parse's freed heap back first, so that each
	 * later stage's RSS growth is that stage's own memory (glibc would
	 * otherwise reuse the parse's free chunks and hide it) */
	if (o->trim) {
		t0 = now_ms();
		malloc_trim(0);
		stage("trim", t0);
	}
	double peak_round = 0;
	for (int r = 0; r < o->rounds; r++) {
		hs_snap_t s;
		hs_plan_t p;
		t0 = now_ms();
		build_snapshot(&s, o);
		stage("snapshot", t0);
		t0 = now_ms();
		if (hs_engine_round(e, &s, &p, &err) < 0) {
			fprintf(stderr, "round_bench: round failed: %s\n", err.msg);
			hs_snap_free(&s);
			hs_engine_free(e);
			return 1;
		}
		double ms = now_ms() - t0;
		peak_round = ms > peak_round ? ms : peak_round;
		printf("round=%d active=%d starts=%d solve_ms=%.1f\n", r + 1, p.nactive, p.nstart,
		       p.solve_ms);
		stage("round", t0);
		int rc = after_round(e, &s, &p, o, &err);
		hs_plan_free(&p);
		hs_snap_free(&s);
		if (rc < 0) {
			fprintf(stderr, "round_bench: %s\n", err.msg);
			hs_engine_free(e);
			return 1;
		}
	}
	hs_engine_free(e);
	double rss, hwm;
	mem_mb(&rss, &hwm);
	printf("summary queue=%d max_jobs=%d rounds=%d round_max_ms=%.1f hwm_mb=%.1f\n", o->queue,
	       o->max_jobs, o->rounds, peak_round, hwm);
	return 0;
}

int main(int argc, char **argv)
{
	opts_t o = { .nodes = 128, .whole = 118, .running = 128, .queue = 5000, .rounds = 3,
		     .max_jobs = 2000, .dir = NULL, .policy = "max_min_fairness" };
	static const struct option lo[] = {
		{ "nodes", 1, 0, 'n' }, { "whole", 1, 0, 'w' }, { "running", 1, 0, 'r' },
		{ "queue", 1, 0, 'q' }, { "rounds", 1, 0, 'k' }, { "max-jobs", 1, 0, 'm' },
		{ "dir", 1, 0, 'd' },   { "policy", 1, 0, 'p' }, { "trim", 0, 0, 't' },
		{ "users", 1, 0, 'u' }, { "accounts", 1, 0, 'a' },
		{ 0, 0, 0, 0 },
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case 'n': o.nodes = atoi(optarg); break;
		case 'w': o.whole = atoi(optarg); break;
		case 'r': o.running = atoi(optarg); break;
		case 'q': o.queue = atoi(optarg); break;
		case 'k': o.rounds = atoi(optarg); break;
		case 'm': o.max_jobs = atoi(optarg); break;
		case 'd': o.dir = optarg; break;
		case 'p': o.policy = optarg; break;
		case 't': o.trim = 1; break;
		case 'u': o.users = atoi(optarg); break;
		case 'a': o.accounts = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: round_bench --dir DIR [--nodes N] [--whole W] "
					"[--running R] [--queue Q] [--rounds K] [--max-jobs M] "
					"[--policy P] [--trim] [--users U [--accounts A]]\n");
			return 2;
		}
	}
	if (!o.dir || o.nodes < 4 || o.whole < 0 || o.running < 0 || o.queue < 0 ||
	    o.rounds < 1 || o.max_jobs < 1 || o.nodes % NTYPES || o.whole >= o.nodes ||
	    o.users < 0 || o.accounts < 0 || (o.users > 0 && o.accounts < 1) ||
	    o.running > (o.nodes - o.whole) * GPUS_PER_NODE) {
		fprintf(stderr, "round_bench: --dir is required, --nodes a multiple of 4, and "
				"the running jobs must fit the nodes with one node left\n");
		return 2;
	}
	return run(&o);
}
