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

#include "core/policy.h"
#include "core/thrtable.h"
#include "sim/report.h"
#include "sim/sim.h"
#include "sim/trace.h"
#include "sim/workload.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hetsched simulate --policy NAME --throughputs FILE --cluster SPEC\n"
		"                         (--trace FILE | --generate) [OPTIONS]\n"
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
		"  --seed N              workload, policy and mechanism seed (default 0)\n"
		"  --write-trace FILE    also write the workload as a Gavel trace\n"
		"  --pinned-fraction F   mark this fraction of the jobs (evenly spread\n"
		"                        by arrival) as not preemptible (default 0)\n"
		"  --pinned-admission M  share (default): a pending pinned job enters the\n"
		"                        policy within its group's fair share; always:\n"
		"                        at once (the old behaviour); ignore: pinned\n"
		"                        jobs are preempted like any other\n"
		"cluster and policy:\n"
		"  --cluster SPEC        e.g. v100:36,p100:36,k80:36\n"
		"  --gpus-per-server N   GPUs per simulated server (default 1)\n"
		"  --consolidation MODE  placement (default): jobs spread over servers\n"
		"                        run at the *_unconsolidated throughput;\n"
		"                        always: consolidated throughput (Gavel)\n"
		"  --throughputs FILE    Gavel throughput table (JSON; default: the installed\n"
		"                        " HS_PKGDATADIR "/gavel/simulation_throughputs.json)\n"
		"  --prices SPEC         price per accelerator-hour, e.g.\n"
		"                        v100=2.48,p100=1.46,k80=0.45 (min_cost)\n"
		"  --policy NAME         scheduling policy (hetsched solve --list)\n"
		"mechanism:\n"
		"  --round SECONDS       round length (default %d)\n"
		"  --reset-interval S    minimum seconds between allocation resets\n"
		"                        (default 1920, Gavel's)\n"
		"  --preempt-cost S      checkpoint + restart seconds per restart (0)\n"
		"  --ignore-restart-cost choose jobs as if restarts were free (Gavel's\n"
		"                        mechanism; the cost is still charged)\n"
		"  --ideal               run the allocation as a fluid (no rounds)\n"
		"measurement and output:\n"
		"  --window FIRST:LAST   measure only jobs FIRST..LAST (0-based ids)\n"
		"  --max-time SECONDS    stop after this much simulated time (exit 3)\n"
		"  --csv FILE            per-job CSV\n"
		"  --timeline FILE       one CSV line per job per GPU per round (where\n"
		"                        it ran; `hetsched timeline` draws it as SVG)\n"
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
		       double pinned_fraction, long until, hs_err_t *err)
{
	hs_workload_t w;
	if (hs_workload_generator(&w, t, g, err) < 0)
		return -1;
	w.pinned_fraction = pinned_fraction;
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
	OPT_PRICES, OPT_TIMELINE, OPT_PIN_FRACTION, OPT_PIN_ADMISSION,
};

/* What the command line asked for (parse_args, check_args). */
typedef struct sim_args {
	const char *trace_path, *table_path, *cluster_spec, *csv_path, *timeline_path;
	const char *trace_out, *cons, *prices, *pin_adm;
	double pin_frac, reset, preempt;
	int generate, restart_aware;
	long seed, gps;
	hs_gen_opts_t g;
	hs_sim_opts_t o;
} sim_args_t;

/* Parses argv into a; returns -1 to go on, else the exit status (0 after
 * --help, 2 on a bad option or value). */
static int parse_args(int argc, char **argv, sim_args_t *a)
{
	static const struct option longopts[] = {
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
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "max-time", required_argument, NULL, OPT_MAXTIME },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "timeline", required_argument, NULL, OPT_TIMELINE },
		{ "save-failed", required_argument, NULL, OPT_SAVE_FAILED },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	hs_gen_opts_t *g = &a->g;
	hs_sim_opts_t *o = &a->o;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case OPT_TRACE: a->trace_path = optarg; break;
		case OPT_GENERATE: a->generate = 1; break;
		case OPT_RATE: bad = parse_num(optarg, 0.0, &g->jobs_per_hour); break;
		case OPT_JOBS: bad = parse_long(optarg, 1, &g->njobs); break;
		case OPT_MULTI_GPU: g->multi_gpu = 1; break;
		case OPT_MULTI_PRIO: g->multi_priority = 1; break;
		case OPT_REFTYPE: g->reference_type = optarg; break;
		case OPT_SEED: bad = parse_long(optarg, 0, &a->seed); break;
		case OPT_WRITE_TRACE: a->trace_out = optarg; break;
		case OPT_CLUSTER: a->cluster_spec = optarg; break;
		case OPT_GPS: bad = parse_long(optarg, 1, &a->gps) || a->gps > HS_MAX_GPUS_PER_SERVER; break;
		case OPT_CONS: a->cons = optarg; break;
		case OPT_THROUGHPUTS: a->table_path = optarg; break;
		case OPT_PRICES: a->prices = optarg; break;
		case OPT_PIN_FRACTION: bad = parse_num(optarg, 0.0, &a->pin_frac) || a->pin_frac > 1; break;
		case OPT_PIN_ADMISSION: a->pin_adm = optarg; break;
		case OPT_POLICY: o->policy = optarg; break;
		case OPT_ROUND: bad = parse_num(optarg, 0.0, &o->mopts.round_s) || o->mopts.round_s <= 0; break;
		case OPT_RESET: bad = parse_num(optarg, 0.0, &a->reset); break;
		case OPT_PREEMPT: bad = parse_num(optarg, 0.0, &a->preempt); break;
		case OPT_IDEAL: o->ideal = 1; break;
		case OPT_IGNORE_RESTART: a->restart_aware = 0; break;
		case OPT_WINDOW: bad = parse_window(optarg, &o->window_first, &o->window_last); break;
		case OPT_MAXTIME: bad = parse_num(optarg, 0.0, &o->max_time_s); break;
		case OPT_CSV: a->csv_path = optarg; break;
		case OPT_TIMELINE: a->timeline_path = optarg; break;
		case OPT_SAVE_FAILED: o->save_failed = optarg; break;
		case OPT_QUIET: o->progress = 0; break;
		case 'h':
		case OPT_HELP: usage(stdout); return 0;
		default:
			fprintf(stderr, "hetsched simulate: unknown option or missing argument "
				"'%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
		if (bad) {
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

/* Checks the combination of options and fills in what follows from them
 * (defaults, enums, the mechanism's per-policy conventions); returns -1 to
 * go on, else 2 after saying what is wrong. */
static int check_args(sim_args_t *a)
{
	hs_sim_opts_t *o = &a->o;
	/* Without --throughputs, the Gavel table `make install` put in
	 * $(pkgdatadir)/gavel (data/gavel in the source tree). */
	if (!a->table_path)
		a->table_path = HS_PKGDATADIR "/gavel/simulation_throughputs.json";
	const char *missing = !o->policy ? "--policy" : !a->cluster_spec ? "--cluster" : NULL;
	const char *wrong = NULL;
	if (missing) {
		fprintf(stderr, "hetsched simulate: %s is required\n", missing);
		return 2;
	}
	if (!a->trace_path == !a->generate)
		wrong = "give exactly one of --trace and --generate";
	else if (a->generate && a->g.jobs_per_hour < 0)
		wrong = "--generate needs --rate";
	else if (a->generate && a->g.njobs < 0 && o->window_first < 0)
		wrong = "--generate needs --jobs or --window";
	else if (strcmp(a->cons, "placement") && strcmp(a->cons, "always"))
		wrong = "--consolidation is 'placement' or 'always'";
	if (wrong) {
		fprintf(stderr, "hetsched simulate: %s\n", wrong);
		return 2;
	}
	if (!hs_policy_exists(o->policy)) {
		fprintf(stderr, "hetsched simulate: unknown policy '%s'; policies:", o->policy);
		for (int i = 0; i < hs_policy_count(); i++)
			fprintf(stderr, " %s", hs_policy_name(i));
		fputc('\n', stderr);
		return 2;
	}
	if (!strcmp(a->pin_adm, "share"))
		o->pinned_admission = HS_SIM_PIN_SHARE;
	else if (!strcmp(a->pin_adm, "always"))
		o->pinned_admission = HS_SIM_PIN_ALWAYS;
	else if (!strcmp(a->pin_adm, "ignore"))
		o->pinned_admission = HS_SIM_PIN_IGNORE;
	else {
		fprintf(stderr, "hetsched simulate: --pinned-admission is 'share', 'always' or "
			"'ignore'\n");
		return 2;
	}
	o->consolidation = strcmp(a->cons, "always") ? HS_CONS_PLACEMENT : HS_CONS_ALWAYS;
	o->gpus_per_server = (int)a->gps;
	/* Gavel's per-policy mechanism conventions, then the options. */
	hs_mech_opts_for_policy(&o->mopts, o->policy);
	o->mopts.min_reset_s = a->reset;
	o->mopts.preempt_cost_s = a->preempt;
	o->mopts.restart_aware = a->restart_aware;
	o->mopts.seed = (unsigned long)a->seed;
	o->popts.seed = (unsigned long)a->seed;
	a->g.seed = (unsigned long)a->seed;
	return -1;
}

/* The summary's "config" object: the run's inputs as given. */
static json_object *config_doc(const sim_args_t *a)
{
	const hs_gen_opts_t *g = &a->g;
	const hs_sim_opts_t *o = &a->o;
	json_object *cfg = json_object_new_object();
	json_object_object_add(cfg, "policy", json_object_new_string(o->policy));
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
	json_object_object_add(cfg, "round_s", json_object_new_double(o->mopts.round_s));
	json_object_object_add(cfg, "reset_interval_s", json_object_new_double(a->reset));
	json_object_object_add(cfg, "preempt_cost_s", json_object_new_double(a->preempt));
	json_object_object_add(cfg, "restart_aware", json_object_new_boolean(a->restart_aware));
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
	if (a->trace_out && write_trace(a->trace_out, table, g, a->pin_frac,
					g->njobs >= 0 ? g->njobs - 1 : a->o.window_last, err) < 0)
		return -1;
	return 0;
}

int hs_cmd_simulate(int argc, char **argv)
{
	sim_args_t a = { .cons = "placement", .pin_adm = "share", .restart_aware = 1, .gps = 1,
			 .g = { .jobs_per_hour = -1, .njobs = -1 } };
	hs_sim_opts_default(&a.o);
	a.reset = a.o.mopts.min_reset_s;
	int st = parse_args(argc, argv, &a);
	if (st < 0)
		st = check_args(&a);
	if (st >= 0)
		return st;
	hs_sim_opts_t *o = &a.o;

	hs_err_t err = { "" };
	hs_thrtable_t table;
	hs_cluster_t cluster;
	hs_trace_t trace = { 0 };
	hs_workload_t w = { 0 };
	hs_sim_result_t res = { 0 };
	int rc = 1, have_table = 0, have_cluster = 0;
	if (hs_thrtable_load(&table, a.table_path, &err) < 0)
		goto out;
	have_table = 1;
	if (hs_cluster_parse(&cluster, a.cluster_spec, &err) < 0)
		goto out;
	have_cluster = 1;
	if (a.prices && parse_prices(&cluster, a.prices, &err) < 0) {
		fprintf(stderr, "hetsched simulate: --prices: %s\n", err.msg);
		rc = 2;
		goto out;
	}
	if (load_workload(&a, &table, &cluster, &trace, &w, &err) < 0)
		goto out;
	if (a.timeline_path && open_timeline(o, a.timeline_path, &err) < 0)
		goto out;
	if (hs_sim_run(o, &cluster, &table, &w, &res, &err) < 0)
		goto out;
	if (o->timeline && close_timeline(o, a.timeline_path, &err) < 0)
		goto out;
	json_object *sum = hs_sim_summary(&res, o, &err);
	if (!sum)
		goto out;
	json_object_object_add(sum, "config", config_doc(&a));
	printf("%s\n", json_object_to_json_string_ext(sum, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	long unfinished = json_object_get_int64(json_object_object_get(sum, "jobs_measured")) -
			  json_object_get_int64(json_object_object_get(sum, "jobs_completed"));
	json_object_put(sum);
	rc = res.finished ? 0 : 3;
	if (!res.finished)
		fprintf(stderr, "hetsched simulate: stopped at --max-time with %ld measured jobs "
			"unfinished\n", unfinished);
	if (a.csv_path && write_csv_file(a.csv_path, &res, &err) < 0)
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
