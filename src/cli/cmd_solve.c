/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_solve.c — `hetsched solve --policy NAME PROBLEM.json`: read a policy
 * problem (cluster, jobs, throughputs; see hetsched-solve(1)), solve it
 * with the named policy and print the allocation as JSON on stdout. */
#include "hs_config.h"
#include "cli/commands.h"
#include "core/policy.h"
#include "core/problem_json.h"
#include "core/thrtable.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hetsched solve --policy NAME [OPTIONS] PROBLEM.json\n"
		"       hetsched solve --list\n"
		"Solves a scheduling policy on a problem (cluster + jobs, JSON; '-' = stdin)\n"
		"and prints the allocation as JSON. See hetsched-solve(1).\n\n"
		"  -p, --policy NAME        policy to solve (see --list)\n"
		"  -l, --list               list the policies and exit\n"
		"  -t, --throughputs FILE   Gavel throughput table: job types and pair\n"
		"                           throughputs (and throughputs of jobs that name\n"
		"                           a job_type but give none)\n"
		"      --seed N             random seed (gandiva; POP partitions)\n"
		"      --pop K              POP: split into K random sub-problems (LP policies)\n"
		"      --pack-threshold X   fifo_packed pairing threshold (default 1.5)\n"
		"      --time-limit S       time budget of the solve (all its LPs), seconds\n"
		"      --pretty             indent the output\n"
		"  -v, --verbose            solver messages\n"
		"  -h, --help               this help\n");
}

static int parse_double(const char *s, double *v)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(d))
		return -1;
	*v = d;
	return 0;
}

static int parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;
	errno = 0;
	long l = strtol(s, &end, 10);
	if (!*s || *end || errno || l < lo || l > hi)
		return -1;
	*v = l;
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int hs_cmd_solve(int argc, char **argv)
{
	enum { OPT_SEED = 256, OPT_POP, OPT_PACK, OPT_TLIM, OPT_PRETTY };
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "list", no_argument, NULL, 'l' },
		{ "throughputs", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "pop", required_argument, NULL, OPT_POP },
		{ "pack-threshold", required_argument, NULL, OPT_PACK },
		{ "time-limit", required_argument, NULL, OPT_TLIM },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy = NULL, *table_path = NULL;
	int pretty = 0, list = 0;
	hs_policy_opts_t opts;
	hs_policy_opts_default(&opts);
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "p:lt:vh", longopts, NULL)) != -1) {
		long l;
		switch (c) {
		case 'p':
			policy = optarg;
			break;
		case 'l':
			list = 1;
			break;
		case 't':
			table_path = optarg;
			break;
		case OPT_SEED:
			if (parse_long(optarg, 0, LONG_MAX, &l) < 0) {
				fprintf(stderr, "hetsched solve: --seed needs an integer >= 0\n");
				return 2;
			}
			opts.seed = (unsigned long)l;
			break;
		case OPT_POP:
			if (parse_long(optarg, 1, 1 << 20, &l) < 0) {
				fprintf(stderr, "hetsched solve: --pop needs an integer >= 1\n");
				return 2;
			}
			opts.pop_partitions = (int)l;
			break;
		case OPT_PACK:
			if (parse_double(optarg, &opts.pack_threshold) < 0 || opts.pack_threshold < 0) {
				fprintf(stderr, "hetsched solve: --pack-threshold needs a number >= 0\n");
				return 2;
			}
			break;
		case OPT_TLIM:
			if (parse_double(optarg, &opts.time_limit_s) < 0 || opts.time_limit_s < 0) {
				fprintf(stderr, "hetsched solve: --time-limit needs seconds >= 0\n");
				return 2;
			}
			break;
		case OPT_PRETTY:
			pretty = 1;
			break;
		case 'v':
			opts.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (list) {
		for (int i = 0; i < hs_policy_count(); i++)
			printf("%s%s\n", hs_policy_name(i),
			       hs_policy_is_packed(hs_policy_name(i)) ? " (space sharing)" : "");
		return 0;
	}
	if (!policy || optind != argc - 1) {
		fprintf(stderr, "hetsched solve: %s\n",
			!policy ? "--policy NAME is required" : "exactly one PROBLEM.json is required");
		usage(stderr);
		return 2;
	}
	hs_err_t err = { "" };
	if (!hs_policy_exists(policy)) {
		fprintf(stderr, "hetsched solve: unknown policy '%s' (hetsched solve --list shows them)\n",
			policy);
		return 2;
	}
	hs_thrtable_t table;
	int have_table = 0;
	if (table_path) {
		if (hs_thrtable_load(&table, table_path, &err) < 0) {
			fprintf(stderr, "hetsched solve: %s\n", err.msg);
			return 1;
		}
		have_table = 1;
	}
	int status = 1;
	hs_problem_t p;
	hs_alloc_t a;
	memset(&a, 0, sizeof(a));
	hs_policy_ctx_t *ctx = NULL;
	char *json = NULL;
	if (hs_problem_load_json(&p, argv[optind], have_table ? &table : NULL, &err) < 0) {
		fprintf(stderr, "hetsched solve: %s\n", err.msg);
		goto out;
	}
	ctx = hs_policy_ctx_new(policy, &opts, &err);
	if (!ctx) {
		fprintf(stderr, "hetsched solve: %s\n", err.msg);
		goto out;
	}
	double t0 = now_ms();
	int rc = hs_policy_solve(ctx, &p, &a, &err);
	double ms = now_ms() - t0;
	if (rc < 0) {
		fprintf(stderr, "hetsched solve: %s: %s\n", policy, err.msg);
		goto out;
	}
	if (*hs_policy_ctx_note(ctx))
		fprintf(stderr, "hetsched solve: note: %s\n", hs_policy_ctx_note(ctx));
	json = hs_alloc_to_json(&a, &p, policy, ms, pretty, &err);
	if (!json) {
		fprintf(stderr, "hetsched solve: %s\n", err.msg);
		goto out;
	}
	if (puts(json) == EOF || fflush(stdout) != 0) {
		fprintf(stderr, "hetsched solve: cannot write the output: %s\n", strerror(errno));
		goto out;
	}
	status = 0;
out:
	free(json);
	hs_alloc_free(&a);
	hs_policy_ctx_free(ctx);
	hs_problem_free(&p);
	if (have_table)
		hs_thrtable_free(&table);
	return status;
}
