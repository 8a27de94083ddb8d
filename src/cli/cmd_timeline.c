/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_timeline.c — `hetsched timeline`: draws which job ran on which GPU
 * over time as SVG, from `hetsched simulate --timeline` or from sacct (see
 * hetsched-timeline(1)). The drawing is text work that Python's standard
 * library does well (CSV, XML escaping, subprocess for sacct), so this
 * command runs $(pkgdatadir)/hetsched_timeline.py with python3 and passes
 * every argument through; HS_TIMELINE_SCRIPT overrides the script (the
 * build tree's tests use it). */
#include "hs_config.h"
#include "cli/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hs_cmd_timeline(int argc, char **argv)
{
	const char *script = getenv("HS_TIMELINE_SCRIPT");
	if (!script || !*script)
		script = HS_PKGDATADIR "/hetsched_timeline.py";
	/* python3 SCRIPT ARGS... NULL: argv[0] (the subcommand) is replaced
	 * by the two leading words. */
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args) {
		fprintf(stderr, "hetsched timeline: out of memory\n");
		return 1;
	}
	args[0] = "python3";
	args[1] = (char *)script;
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	execvp(args[0], args);
	fprintf(stderr, "hetsched timeline: cannot run python3 %s: %s\n", script,
		strerror(errno));
	free(args);
	return 1;
}
