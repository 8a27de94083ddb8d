/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_simulate.c — `hetsched simulate`: runs a policy and the round
 * mechanism over a Gavel trace or a generated workload on a simulated
 * cluster and prints a JSON summary (see hetsched-simulate(1)). */
#include "hs_config.h"
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/policy.h"
#include "core/thrtable.h"
#include "sim/report.h"
#include "sim/sim.h"
#include "sim/trace.h"
#include "sim/workload.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hetsched simulate --throughputs FILE --cluster SPEC\n"
		"                         (--trace FILE | --generate) [OPTIONS]\n"
		"\n"
		"The sched/hetsched plugin's engine on a simulated Slurm: its defaults\n"
		"are an unconfigured site's (hetsched.conf(5)); --conf sets any key.\n"
		"\n"
		"workload:\n"
		"  --trace FILE          Gavel 10-column trace\n"
		"  --generate            Gavel's workload distributions, seeded\n"
		"  --rate JOBS_PER_HOUR  generated arrival rate (0 = all at t=0)\n"
		"  --jobs N              number of generated jobs (default: until the\n"
		"                        window's jobs complete)\n"
		"  --multi-gpu           generated scale factors 1/2/4/8\n"
		"  --multi-priority      20%% of generated jobs get priority weight 5\n"
		"  --reference-type T    GPU type for duration -> steps (default: the\n"
		"                        fastest type of the cluster in the table)\n"
		"  --seed N              workload, policy and mechanism seed (default 0;\n"
		"                        --conf Seed=M gives the engine its own)\n"
		"  --write-trace FILE    also write the workload as a Gavel trace\n"
		"  --pinned-fraction F   mark this fraction of the jobs (evenly spread\n"
		"                        by arrival) as not preemptible (default 0)\n"
		"  --users U@A:F[:S],... generated jobs' users: user U of account A\n"
		"                        submits fraction F of them (evenly spread),\n"
		"                        with Shares S in its account (default 1)\n"
		"  --accounts A:S,...    accounts' Shares (default 1); a trace names\n"
		"                        users and accounts in columns 12 and 13\n"
		"  --strategy U:NAME[=X] user U of --users plays a strategy (repeatable):\n"
		"                        honest, no-preempt, split[=K], ratio-slow[=F],\n"
		"                        ratio-fast[=F], fake-model[=max|min|MODEL],\n"
		"                        inflate-steps[=F], odd-shape (doc/strategic.md)\n"
		"  --pinned-admission M  always (the plugin's default) or share:\n"
		"                        PinnedAdmission=; ignore: pinned jobs\n"
		"                        checkpoint and are preempted like any other\n"
		"  --unknown-models F    the engine is not told the model of this\n"
		"                        fraction of the jobs (evenly spread, seeded):\n"
		"                        no --hs-model, the model as job name, so the\n"
		"                        engine learns their speeds (Learning=)\n"
		"  --anonymous-jobs      those jobs (alone: every job) have no job name\n"
		"                        either: each is its own learned kind\n"
		"  --learned-in FILE     start from this learned table (warm start)\n"
		"  --learned-out FILE    write the learned table at the end there\n"
		"cluster:\n"
		"  --cluster SPEC        e.g. v100:36,p100:36,k80:36\n"
		"  --gpus-per-server N   GPUs per simulated server (default 1)\n"
		"  --consolidation MODE  placement (default): jobs spread over servers\n"
		"                        run at the *_unconsolidated throughput;\n"
		"                        always: consolidated throughput (Gavel)\n"
		"  --throughputs FILE    Gavel throughput table (JSON; default: the installed\n"
		"                        " HS_PKGDATADIR "/gavel/simulation_throughputs.json):\n"
		"                        the jobs' true speeds, and the engine's table\n"
		"                        unless --conf ThroughputTable= names another\n"
		"  --prices SPEC         price per accelerator-hour, e.g.\n"
		"                        v100=2.48,p100=1.46,k80=0.45 (GpuPrices=)\n"
		"engine (hetsched.conf keys; default: the plugin's):\n"
		"  --policy NAME         Policy= (hetsched solve --list)\n"
		"  --round SECONDS       RoundLength= (default %d)\n"
		"  --reset-interval S    MinResetInterval= (default 0; Gavel's 1920)\n"
		"  --preempt-cost S      a restart's checkpoint load takes S seconds,\n"
		"                        and PreemptCost=S (default 0)\n"
		"  --ignore-restart-cost RestartAware=no (Gavel's mechanism: choose\n"
		"                        jobs as if restarts were free)\n"
		"  --conf KEY=VALUE      any hetsched.conf key (repeatable)\n"
		"  --checkpoint-time S   a checkpoint signal is acknowledged S seconds\n"
		"                        later (default 0)\n"
		"  --ideal               run the policy's allocation as a fluid (no\n"
		"                        rounds, no engine): the reference\n"
		"measurement and output:\n"
		"  --window FIRST:LAST   measure only jobs FIRST..LAST (0-based ids)\n"
		"  --max-time SECONDS    stop after this much simulated time (exit 3)\n"
		"  --csv FILE            per-job CSV\n"
		"  --timeline FILE       one CSV line per job per GPU per run segment\n"
		"                        (`hetsched timeline` draws it as SVG)\n"
		"  --trace-acts          on stderr: every round, every act of the engine\n"
		"                        and its outcome, and the engine's log\n"
		"  --save-failed FILE    write the first problem the policy fails to\n"
		"                        solve there (hetsched solve input)\n"
		"  --quiet               no progress on stderr\n", HS_ROUND_S_DEFAULT);
}

static int parse_num(const char *s, double lo, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < lo)
		return -1;
	*out = v;
	return 0;
}

static int parse_long(const char *s, long lo, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo)
		return -1;
	*out = v;
	return 0;
}

static int parse_window(const char *s, long *a, long *b)
{
	const char *colon = strchr(s, ':');
	if (!colon)
		return -1;
	char first[32];
	size_t n = (size_t)(colon - s);
	if (n == 0 || n >= sizeof(first))
		return -1;
	memcpy(first, s, n);
	first[n] = '\0';
	if (parse_long(first, 0, a) < 0 || parse_long(colon + 1, 0, b) < 0 || *b < *a)
		return -1;
	return 0;
}

/* --prices TYPE=PRICE,...: price per accelerator-hour of cluster types
 * (types not named keep price 0). */
static int parse_prices(hs_cluster_t *c, const char *spec, hs_err_t *err)
{
	const char *s = spec;
	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *eq = memchr(s, '=', len);
		char name[128], num[64];
		size_t nl = eq ? (size_t)(eq - s) : 0, vl = eq ? len - nl - 1 : 0;
		if (!eq || nl == 0 || nl >= sizeof(name) || vl == 0 || vl >= sizeof(num))
			return hs_err_set(err, "'%.*s' is not TYPE=PRICE", (int)len, s);
		memcpy(name, s, nl);
		name[nl] = '\0';
		memcpy(num, eq + 1, vl);
		num[vl] = '\0';
		int j = hs_cluster_type_index(c, name);
		if (j < 0)
			return hs_err_set(err, "type '%s' is not in --cluster", name);
		if (parse_num(num, 0.0, &c->price[j]) < 0)
			return hs_err_set(err, "price '%s' of '%s' must be a number >= 0", num, name);
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

/* The cluster type with the highest mean single-GPU throughput. */
static const char *fastest_type(const hs_thrtable_t *t, const hs_cluster_t *c)
{
	const char *best = NULL;
	double best_v = -1.0;
	for (int j = 0; j < c->ntypes; j++) {
		int tj = hs_thrtable_type_index(t, c->names[j]);
		if (tj < 0)
			continue;
		double sum = 0.0;
		for (int a = 0; a < t->njobtypes; a++)
			sum += t->alone[(size_t)a * t->ntypes + tj];
		if (sum > best_v) {
			best_v = sum;
			best = c->names[j];
		}
	}
	return best;
}

static int write_trace(const char *path, const hs_thrtable_t *t, const hs_gen_opts_t *g,
		       double pinned_fraction, const hs_sim_users_t *users, long until,
		       hs_err_t *err)
{
	hs_workload_t w;
	if (hs_workload_generator(&w, t, g, err) < 0)
		return -1;
	w.pinned_fraction = pinned_fraction;
	w.users = users;
	FILE *f = fopen(path, "w");
	if (!f) {
		hs_workload_free(&w);
		return hs_err_set(err, "%s: %s", path, strerror(errno));
	}
	hs_trace_job_t j;
	for (long i = 0; i <= until && hs_workload_next(&w, &j); i++)
		hs_trace_write_job(f, &j);
	hs_workload_free(&w);
	if (fclose(f) != 0)
		return hs_err_set(err, "%s: write error", path);
	return 0;
}

/* --timeline FILE: opened before the run (a bad path fails early), written
 * by the simulator round by round. */
static int open_timeline(hs_sim_opts_t *o, const char *path, hs_err_t *err)
{
	if (o->ideal)
		return hs_err_set(err, "--timeline needs rounds (not --ideal)");
	o->timeline = fopen(path, "w");
	if (!o->timeline)
		return hs_err_set(err, "%s: %s", path, strerror(errno));
	fputs(hs_sim_timeline_header, o->timeline);
	return 0;
}

static int close_timeline(hs_sim_opts_t *o, const char *path, hs_err_t *err)
{
	int bad = ferror(o->timeline) | fclose(o->timeline);
	o->timeline = NULL;
	return bad ? hs_err_set(err, "%s: write error", path) : 0;
}

enum {
	OPT_TRACE = 1000, OPT_GENERATE, OPT_RATE, OPT_JOBS, OPT_MULTI_GPU, OPT_MULTI_PRIO,
	OPT_REFTYPE, OPT_SEED, OPT_WRITE_TRACE, OPT_CLUSTER, OPT_GPS, OPT_CONS,
	OPT_THROUGHPUTS, OPT_POLICY, OPT_ROUND, OPT_RESET, OPT_PREEMPT, OPT_IDEAL,
	OPT_WINDOW, OPT_MAXTIME, OPT_CSV, OPT_QUIET, OPT_HELP, OPT_IGNORE_RESTART, OPT_SAVE_FAILED,
	OPT_PRICES, OPT_TIMELINE, OPT_PIN_FRACTION, OPT_PIN_ADMISSION, OPT_CONF, OPT_CKPT_TIME,
	OPT_TRACE_ACTS, OPT_USERS, OPT_ACCOUNTS, OPT_UNKNOWN_MODELS, OPT_ANONYMOUS,
	OPT_LEARNED_IN, OPT_LEARNED_OUT, OPT_STRATEGY,
};

/* --strategy is repeatable, one user each; more users than this are not
 * a strategic-user experiment. */
#define MAX_STRATEGIES 16

/* What the command line asked for (parse_args, check_args). */
typedef struct sim_args {
	const char *trace_path, *table_path, *cluster_spec, *csv_path, *timeline_path;
	const char *trace_out, *cons, *prices, *pin_adm, *users_spec, *accounts_spec;
	hs_sim_users_t users;
	const char *strategies[MAX_STRATEGIES];
	int nstrategies;
	double pin_frac;
	int generate, weights_set, engine_seed_set;
	long seed, gps;
	hs_gen_opts_t g;
	hs_sim_opts_t o;
} sim_args_t;

/* One hetsched.conf key of the engine; on error the message names the
 * option. */
static int conf_set(sim_args_t *a, const char *opt, const char *key, const char *value)
{
	hs_err_t err;
	if (hs_sconf_set(&a->o.conf, key, value, &err) == 0) {
		if (!strcasecmp(key, "WeightByPriority"))
			a->weights_set = 1;
		/* the engine's own seed, apart from the workload's */
		if (!strcasecmp(key, "Seed") && !strcmp(opt, "--conf"))
			a->engine_seed_set = 1;
		return 0;
	}
	fprintf(stderr, "hetsched simulate: %s: %s\n", opt, err.msg);
	return -1;
}

/* --conf KEY=VALUE */
static int conf_pair(sim_args_t *a, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char key[64];
	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key)) {
		fprintf(stderr, "hetsched simulate: --conf '%s' is not KEY=VALUE\n", kv);
		return -1;
	}
	memcpy(key, kv, (size_t)(eq - kv));
	key[eq - kv] = 0;
	return conf_set(a, "--conf", key, eq + 1);
}

/* An option that is an engine key, or -1 (not one) / -2 (bad value). */
static int engine_option(sim_args_t *a, int c, const char *v)
{
	const char *opt = NULL, *key = NULL;
	switch (c) {
	case OPT_POLICY: opt = "--policy", key = "Policy"; break;
	case OPT_ROUND: opt = "--round", key = "RoundLength"; break;
	case OPT_RESET: opt = "--reset-interval", key = "MinResetInterval"; break;
	case OPT_PREEMPT:
		if (parse_num(v, 0.0, &a->o.restart_s) < 0) {
			fprintf(stderr, "hetsched simulate: invalid value '%s' for --preempt-cost\n", v);
			return -2;
		}
		opt = "--preempt-cost", key = "PreemptCost";
		break;
	case OPT_IGNORE_RESTART:
		return conf_set(a, "--ignore-restart-cost", "RestartAware", "no") < 0 ? -2 : 0;
	case OPT_CONF:
		return conf_pair(a, v) < 0 ? -2 : 0;
	default:
		return -1;
	}
	return conf_set(a, opt, key, v) < 0 ? -2 : 0;
}

static const struct option sim_longopts[] = {
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "generate", no_argument, NULL, OPT_GENERATE },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "multi-gpu", no_argument, NULL, OPT_MULTI_GPU },
	{ "multi-priority", no_argument, NULL, OPT_MULTI_PRIO },
	{ "reference-type", required_argument, NULL, OPT_REFTYPE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "write-trace", required_argument, NULL, OPT_WRITE_TRACE },
	{ "cluster", required_argument, NULL, OPT_CLUSTER },
	{ "gpus-per-server", required_argument, NULL, OPT_GPS },
	{ "consolidation", required_argument, NULL, OPT_CONS },
	{ "throughputs", required_argument, NULL, OPT_THROUGHPUTS },
	{ "prices", required_argument, NULL, OPT_PRICES },
	{ "pinned-fraction", required_argument, NULL, OPT_PIN_FRACTION },
	{ "pinned-admission", required_argument, NULL, OPT_PIN_ADMISSION },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "round", required_argument, NULL, OPT_ROUND },
	{ "reset-interval", required_argument, NULL, OPT_RESET },
	{ "preempt-cost", required_argument, NULL, OPT_PREEMPT },
	{ "ideal", no_argument, NULL, OPT_IDEAL },
	{ "ignore-restart-cost", no_argument, NULL, OPT_IGNORE_RESTART },
	{ "conf", required_argument, NULL, OPT_CONF },
	{ "checkpoint-time", required_argument, NULL, OPT_CKPT_TIME },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "max-time", required_argument, NULL, OPT_MAXTIME },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "trace-acts", no_argument, NULL, OPT_TRACE_ACTS },
	{ "users", required_argument, NULL, OPT_USERS },
	{ "accounts", required_argument, NULL, OPT_ACCOUNTS },
	{ "strategy", required_argument, NULL, OPT_STRATEGY },
	{ "save-failed", required_argument, NULL, OPT_SAVE_FAILED },
	{ "unknown-models", required_argument, NULL, OPT_UNKNOWN_MODELS },
	{ "anonymous-jobs", no_argument, NULL, OPT_ANONYMOUS },
	{ "learned-in", required_argument, NULL, OPT_LEARNED_IN },
	{ "learned-out", required_argument, NULL, OPT_LEARNED_OUT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* The options that are not engine keys; 1 = bad value, 0 = taken. */
static int sim_option(sim_args_t *a, int c, const char *v)
{
	hs_gen_opts_t *g = &a->g;
	hs_sim_opts_t *o = &a->o;
	switch (c) {
	case OPT_TRACE: a->trace_path = v; return 0;
	case OPT_GENERATE: a->generate = 1; return 0;
	case OPT_RATE: return parse_num(v, 0.0, &g->jobs_per_hour) != 0;
	case OPT_JOBS: return parse_long(v, 1, &g->njobs) != 0;
	case OPT_MULTI_GPU: g->multi_gpu = 1; return 0;
	case OPT_MULTI_PRIO: g->multi_priority = 1; return 0;
	case OPT_REFTYPE: g->reference_type = v; return 0;
	case OPT_SEED: return parse_long(v, 0, &a->seed) != 0;
	case OPT_WRITE_TRACE: a->trace_out = v; return 0;
	case OPT_CLUSTER: a->cluster_spec = v; return 0;
	case OPT_GPS: return parse_long(v, 1, &a->gps) || a->gps > HS_MAX_GPUS_PER_SERVER;
	case OPT_CONS: a->cons = v; return 0;
	case OPT_THROUGHPUTS: a->table_path = v; return 0;
	case OPT_PRICES: a->prices = v; return 0;
	case OPT_PIN_FRACTION: return parse_num(v, 0.0, &a->pin_frac) || a->pin_frac > 1;
	case OPT_PIN_ADMISSION: a->pin_adm = v; return 0;
	case OPT_CKPT_TIME: return parse_num(v, 0.0, &o->ckpt_s) != 0;
	case OPT_IDEAL: o->ideal = 1; return 0;
	case OPT_WINDOW: return parse_window(v, &o->window_first, &o->window_last) != 0;
	case OPT_MAXTIME: return parse_num(v, 0.0, &o->max_time_s) != 0;
	case OPT_CSV: a->csv_path = v; return 0;
	case OPT_TIMELINE: a->timeline_path = v; return 0;
	case OPT_SAVE_FAILED: o->save_failed = v; return 0;
	case OPT_QUIET: o->progress = 0; return 0;
	case OPT_TRACE_ACTS: o->trace_acts = stderr; return 0;
	case OPT_USERS: a->users_spec = v; return 0;
	case OPT_ACCOUNTS: a->accounts_spec = v; return 0;
	case OPT_STRATEGY:
		if (a->nstrategies == MAX_STRATEGIES)
			return 1;
		a->strategies[a->nstrategies++] = v;
		return 0;
	case OPT_UNKNOWN_MODELS:
		return parse_num(v, 0.0, &o->unknown_models) || o->unknown_models > 1;
	case OPT_ANONYMOUS: o->anonymous_jobs = 1; return 0;
	case OPT_LEARNED_IN: o->learned_in = v; return 0;
	case OPT_LEARNED_OUT: o->learned_out = v; return 0;
	}
	return 1;
}

/* Parses argv into a; returns -1 to go on, else the exit status (0 after
 * --help, 2 on a bad option or value). */
static int parse_args(int argc, char **argv, sim_args_t *a)
{
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", sim_longopts, NULL)) != -1) {
		if (c == 'h' || c == OPT_HELP) {
			usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "hetsched simulate: unknown option or missing argument "
				"'%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
		int e = engine_option(a, c, optarg);
		if (e == -2)
			return 2;
		if (e == 0)
			continue;
		if (sim_option(a, c, optarg)) {
			fprintf(stderr, "hetsched simulate: invalid value '%s' for %s\n", optarg,
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hetsched simulate: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return -1;
}

/* Checks the combination of options and fills in what follows from them;
 * returns -1 to go on, else 2 after saying what is wrong. */
static int check_args(sim_args_t *a)
{
	hs_sim_opts_t *o = &a->o;
	/* Without --throughputs, the Gavel table `make install` put in
	 * $(pkgdatadir)/gavel (data/gavel in the source tree). */
	if (!a->table_path)
		a->table_path = HS_PKGDATADIR "/gavel/simulation_throughputs.json";
	const char *wrong = NULL;
	if (!a->cluster_spec)
		wrong = "--cluster is required";
	else if (!a->trace_path == !a->generate)
		wrong = "give exactly one of --trace and --generate";
	else if (a->generate && a->g.jobs_per_hour < 0)
		wrong = "--generate needs --rate";
	else if (a->generate && a->g.njobs < 0 && o->window_first < 0)
		wrong = "--generate needs --jobs or --window";
	else if (strcmp(a->cons, "placement") && strcmp(a->cons, "always"))
		wrong = "--consolidation is 'placement' or 'always'";
	else if (strcmp(a->pin_adm, "share") && strcmp(a->pin_adm, "always") &&
		 strcmp(a->pin_adm, "ignore"))
		wrong = "--pinned-admission is 'always', 'share' or 'ignore'";
	if (wrong) {
		fprintf(stderr, "hetsched simulate: %s\n", wrong);
		return 2;
	}
	hs_err_t uerr;
	if (hs_sim_users_parse(&a->users, a->users_spec, a->accounts_spec, &uerr) < 0) {
		fprintf(stderr, "hetsched simulate: %s\n", uerr.msg);
		return 2;
	}
	if (a->users_spec && !a->generate) {
		fprintf(stderr, "hetsched simulate: --users draws generated jobs (a trace names "
			"its users in its 12th column)\n");
		return 2;
	}
	if (a->nstrategies > 0 && !a->users_spec) {
		fprintf(stderr, "hetsched simulate: --strategy names a user of --users\n");
		return 2;
	}
	for (int i = 0; i < a->nstrategies; i++)
		if (hs_sim_users_strategy(&a->users, a->strategies[i], &uerr) < 0) {
			fprintf(stderr, "hetsched simulate: %s\n", uerr.msg);
			return 2;
		}
	o->users = &a->users;
	if (o->anonymous_jobs && !(o->unknown_models > 0))
		o->unknown_models = 1; /* alone it means every job */
	if (!strcmp(a->pin_adm, "ignore"))
		o->pinned_preemptible = 1;
	else if (conf_set(a, "--pinned-admission", "PinnedAdmission", a->pin_adm) < 0)
		return 2;
	char seed[32];
	snprintf(seed, sizeof(seed), "%ld", a->seed);
	if (!a->engine_seed_set && conf_set(a, "--seed", "Seed", seed) < 0)
		return 2;
	o->consolidation = strcmp(a->cons, "always") ? HS_CONS_PLACEMENT : HS_CONS_ALWAYS;
	o->gpus_per_server = (int)a->gps;
	a->g.seed = (unsigned long)a->seed;
	return -1;
}

/* The summary's "config" object: the run's inputs as given, and the
 * engine's whole hetsched.conf. */
static json_object *config_doc(const sim_args_t *a)
{
	const hs_gen_opts_t *g = &a->g;
	const hs_sim_opts_t *o = &a->o;
	json_object *cfg = json_object_new_object();
	json_object_object_add(cfg, "policy", json_object_new_string(o->conf.policy));
	json_object_object_add(cfg, "cluster", json_object_new_string(a->cluster_spec));
	if (a->prices)
		json_object_object_add(cfg, "prices", json_object_new_string(a->prices));
	json_object_object_add(cfg, "workload", json_object_new_string(
		a->generate ? "generated" : a->trace_path));
	if (a->generate) {
		json_object_object_add(cfg, "jobs_per_hour", json_object_new_double(g->jobs_per_hour));
		json_object_object_add(cfg, "multi_gpu", json_object_new_boolean(g->multi_gpu));
		json_object_object_add(cfg, "multi_priority",
				       json_object_new_boolean(g->multi_priority));
		json_object_object_add(cfg, "reference_type",
				       json_object_new_string(g->reference_type));
	}
	json_object_object_add(cfg, "seed", json_object_new_int64(a->seed));
	json_object_object_add(cfg, "round_s", json_object_new_double(o->conf.round_s));
	json_object_object_add(cfg, "reset_interval_s", json_object_new_double(o->conf.min_reset_s));
	json_object_object_add(cfg, "preempt_cost_s", json_object_new_double(o->conf.preempt_cost_s));
	json_object_object_add(cfg, "restart_s", json_object_new_double(o->restart_s));
	json_object_object_add(cfg, "checkpoint_s", json_object_new_double(o->ckpt_s));
	json_object_object_add(cfg, "restart_aware", json_object_new_boolean(o->conf.restart_aware));
	json_object_object_add(cfg, "gpus_per_server", json_object_new_int((int)a->gps));
	json_object_object_add(cfg, "consolidation", json_object_new_string(a->cons));
	json_object_object_add(cfg, "ideal", json_object_new_boolean(o->ideal));
	json_object_object_add(cfg, "pinned_fraction", json_object_new_double(a->pin_frac));
	json_object_object_add(cfg, "pinned_admission", json_object_new_string(a->pin_adm));
	if (o->window_first >= 0) {
		json_object *win = json_object_new_array();
		json_object_array_add(win, json_object_new_int64(o->window_first));
		json_object_array_add(win, json_object_new_int64(o->window_last));
		json_object_object_add(cfg, "window", win);
	}
	if (a->nstrategies > 0) {
		json_object *st = json_object_new_object();
		for (int i = 0; i < a->users.nusers; i++) {
			char buf[HS_STRAT_MODEL_MAX + 32];
			hs_sim_strategy_format(&a->users.users[i].strategy, buf, sizeof(buf));
			json_object_object_add(st, a->users.users[i].name,
					       json_object_new_string(buf));
		}
		json_object_object_add(cfg, "strategies", st);
	}
	char desc[4096];
	hs_sconf_describe(&o->conf, desc, sizeof(desc));
	json_object_object_add(cfg, "hetsched_conf", json_object_new_string(desc));
	return cfg;
}

/* --csv FILE: one line per job; returns 0, or -1 with err set. */
static int write_csv_file(const char *path, const hs_sim_result_t *res, hs_err_t *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return hs_err_set(err, "%s: %s", path, strerror(errno));
	int rc = hs_sim_write_csv(f, res, err);
	if (fclose(f) != 0 && rc == 0)
		rc = hs_err_set(err, "%s: write error", path);
	return rc < 0 ? -1 : 0;
}

/* The workload: generated (and written with --write-trace) or loaded. */
static int load_workload(sim_args_t *a, const hs_thrtable_t *table, const hs_cluster_t *cluster,
			 hs_trace_t *trace, hs_workload_t *w, hs_err_t *err)
{
	hs_gen_opts_t *g = &a->g;
	if (!a->generate) {
		if (hs_trace_load(trace, a->trace_path, err) < 0)
			return -1;
		hs_workload_from_trace(w, trace);
		w->pinned_fraction = a->pin_frac;
		return 0;
	}
	if (!g->reference_type && !(g->reference_type = fastest_type(table, cluster)))
		return hs_err_set(err, "no cluster type is in the throughput table");
	if (hs_workload_generator(w, table, g, err) < 0)
		return -1;
	w->pinned_fraction = a->pin_frac;
	w->users = a->users_spec ? &a->users : NULL;
	if (a->trace_out && write_trace(a->trace_out, table, g, a->pin_frac, w->users,
					g->njobs >= 0 ? g->njobs - 1 : a->o.window_last, err) < 0)
		return -1;
	return 0;
}

/* GpuPrices= from --prices' TYPE=PRICE list (the cluster has them). */
static int prices_conf(sim_args_t *a, const hs_cluster_t *c)
{
	char buf[2048];
	size_t n = 0;
	buf[0] = 0;
	for (int j = 0; j < c->ntypes && n < sizeof(buf); j++)
		if (c->price[j] > 0)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s:%.17g", n ? "," : "",
					      c->names[j], c->price[j]);
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return n == 0 ? 0 : conf_set(a, "--prices", "GpuPrices", buf);
}

/* A workload with priority weights other than 1 means them: the engine
 * weighs jobs by Slurm priority (WeightByPriority=yes) unless --conf said
 * otherwise; a workload without them gives every job the same priority,
 * so the key changes nothing there. */
static int weights_conf(sim_args_t *a, const hs_trace_t *trace)
{
	int weighted = a->g.multi_priority;
	for (int i = 0; trace && i < trace->njobs && !weighted; i++)
		weighted = trace->jobs[i].weight != 1.0;
	if (!weighted || a->weights_set)
		return 0;
	return conf_set(a, "--multi-priority / trace weights", "WeightByPriority", "yes");
}

/* Everything after the options: load, run, print; the exit status. */
static int simulate(sim_args_t *a)
{
	hs_sim_opts_t *o = &a->o;
	hs_err_t err = { "" };
	hs_thrtable_t table;
	hs_cluster_t cluster;
	hs_trace_t trace = { 0 };
	hs_workload_t w = { 0 };
	hs_sim_result_t res = { 0 };
	int rc = 1, have_table = 0, have_cluster = 0;
	if (hs_thrtable_load(&table, a->table_path, &err) < 0)
		goto out;
	have_table = 1;
	if (hs_cluster_parse(&cluster, a->cluster_spec, &err) < 0)
		goto out;
	have_cluster = 1;
	if (a->prices && (parse_prices(&cluster, a->prices, &err) < 0 ||
			  prices_conf(a, &cluster) < 0)) {
		fprintf(stderr, "hetsched simulate: --prices: %s\n", err.msg);
		rc = 2;
		goto out;
	}
	if (load_workload(a, &table, &cluster, &trace, &w, &err) < 0)
		goto out;
	if (weights_conf(a, a->trace_path ? &trace : NULL) < 0) {
		rc = 2;
		goto out;
	}
	/* the whole configuration, as the plugin checks a hetsched.conf */
	if (hs_sconf_check(&o->conf, &err) < 0) {
		fprintf(stderr, "hetsched simulate: %s\n", err.msg);
		rc = 2;
		goto out;
	}
	if (a->timeline_path && open_timeline(o, a->timeline_path, &err) < 0)
		goto out;
	if (hs_sim_run(o, &cluster, &table, &w, &res, &err) < 0)
		goto out;
	if (o->timeline && close_timeline(o, a->timeline_path, &err) < 0)
		goto out;
	json_object *sum = hs_sim_summary(&res, o, &err);
	if (!sum)
		goto out;
	json_object_object_add(sum, "config", config_doc(a));
	printf("%s\n", json_object_to_json_string_ext(sum, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	long unfinished = json_object_get_int64(json_object_object_get(sum, "jobs_measured")) -
			  json_object_get_int64(json_object_object_get(sum, "jobs_completed"));
	json_object_put(sum);
	rc = res.finished ? 0 : 3;
	if (!res.finished)
		fprintf(stderr, "hetsched simulate: stopped at --max-time with %ld measured jobs "
			"unfinished\n", unfinished);
	if (a->csv_path && write_csv_file(a->csv_path, &res, &err) < 0)
		rc = 1;
out:
	if (rc == 1)
		fprintf(stderr, "hetsched simulate: %s\n", err.msg);
	if (o->timeline)
		fclose(o->timeline);
	hs_sim_result_free(&res);
	hs_workload_free(&w);
	hs_trace_free(&trace);
	if (have_cluster)
		hs_cluster_free(&cluster);
	if (have_table)
		hs_thrtable_free(&table);
	return rc;
}

int hs_cmd_simulate(int argc, char **argv)
{
	sim_args_t a = { .cons = "placement", .pin_adm = "always", .gps = 1,
			 .g = { .jobs_per_hour = -1, .njobs = -1 } };
	hs_err_t err;
	if (hs_sim_opts_default(&a.o, &err) < 0) {
		fprintf(stderr, "hetsched simulate: %s\n", err.msg);
		return 1;
	}
	int st = parse_args(argc, argv, &a);
	if (st < 0)
		st = check_args(&a);
	if (st < 0)
		st = simulate(&a);
	hs_sim_opts_free(&a.o);
	hs_sim_users_free(&a.users);
	return st;
}
