/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c — `hetsched SUBCOMMAND ...`: dispatches to one subcommand. */
#include "hs_config.h"
#include "cli/commands.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	hs_cmd_fn fn;
	const char *summary;
} commands[] = {
	/* subcommands register here, one line each */
	{ "solve", hs_cmd_solve, "solve a scheduling policy on a problem (JSON)" },
	{ "simulate", hs_cmd_simulate, "simulate a policy and the round mechanism on a trace" },
	{ "status", hs_cmd_status, "what sched/hetsched decided in its last round" },
	{ "timeline", hs_cmd_timeline, "draw which job ran on which GPU over time (SVG)" },
	{ "job", hs_cmd_job, "one job: its share, where it ran, why it waits" },
	{ "learned", hs_cmd_learned, "the throughputs the scheduler learned, as a Gavel table" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: hetsched COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
	for (int i = 0; commands[i].name; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'hetsched COMMAND --help' describes one command; "
		     "see also hetsched(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hetsched %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (int i = 0; commands[i].name; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "hetsched: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
