/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_learned.c — `hetsched learned`: the throughputs sched/hetsched
 * learned (sched/learn.h), from its state file (hetsched_state.json in
 * StateSaveLocation, key "learned") or a table `hetsched simulate
 * --learned-out` wrote, printed in Gavel's throughput-table format for an
 * administrator to review and load as a ThroughputTable (or as it is
 * stored, --raw). The file is validated as the plugin validates it.
 * --from-sacct builds a table from accounting (cmd_learned_sacct.c). */
#include "cli/commands.h"
#include "sched/learn.h"
#include "sched/statefile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: hetsched learned [--min-samples N] [--raw] FILE\n"
		   "       hetsched learned --from-sacct [FILE|-] ... (--from-sacct --help)\n"
		   "  FILE             StateSaveLocation/" HS_STATE_FILE " or a table of\n"
		   "                   `hetsched simulate --learned-out`\n"
		   "  --min-samples N  only rates resting on N reports or more (default 1)\n"
		   "  --raw            the learned table as stored (kinds, samples, outliers)\n");
}

int hs_cmd_learned(int argc, char **argv)
{
	long min_n = 1;
	int raw = 0;
	const char *path = NULL;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--from-sacct"))
			return hs_cmd_learned_sacct(argc, argv);
	for (int i = 1; i < argc; i++) {
		char *end;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--raw")) {
			raw = 1;
		} else if (!strcmp(argv[i], "--min-samples") && i + 1 < argc) {
			errno = 0;
			min_n = strtol(argv[++i], &end, 10);
			if (errno || *end || min_n < 1 || min_n > 1000000000) {
				fprintf(stderr, "hetsched learned: bad --min-samples '%s'\n", argv[i]);
				return 2;
			}
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	json_object *doc = NULL, *l = NULL;
	hs_err_t err = { "" };
	int r = hs_json_read(path, &doc, &err);
	if (r <= 0) {
		fprintf(stderr, "hetsched learned: %s: %s\n", path, r ? err.msg : "no such file");
		return 1;
	}
	/* a state file holds the table under "learned"; a table is one */
	if (!json_object_object_get_ex(doc, "learned", &l))
		l = doc;
	hs_learn_t t;
	hs_learn_init(&t, 1000000);
	int rc = 1;
	if (hs_learn_load(&t, l, &err) < 0) {
		fprintf(stderr, "hetsched learned: %s: %s\n", path, err.msg);
	} else {
		json_object *out = raw ? hs_learn_save(&t) : hs_learn_export(&t, (unsigned)min_n);
		if (out) {
			puts(json_object_to_json_string_ext(
				out, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
			rc = fflush(stdout) == 0 ? 0 : 1;
		}
		json_object_put(out);
	}
	hs_learn_free(&t);
	json_object_put(doc);
	return rc;
}
