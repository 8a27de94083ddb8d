/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_job.c — `hetsched job ID`: one job as its user sees it (job_view.h),
 * from the status document sched/hetsched writes every round (found as
 * `hetsched status` finds it). Under PrivateData=jobs a user who cannot
 * read the full document reads their own per-user document
 * (status_private.h); a reader who is neither root nor the full
 * document's owner sees only their own jobs either way. */
#include "hs_config.h"
#include "cli/commands.h"
#include "sched/job_view.h"
#include "sched/statefile.h"
#include "sched/status_private.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: hetsched job [--file PATH] [--json] JOBID\n"
		     "Shows one job: its share per GPU type, where it has run and for how long,\n"
		     "measured vs table throughput, finish-time fairness, expected start, and\n"
		     "why it waits. See hetsched-job(1).\n"
		     "  -f, --file PATH   status document (default: as hetsched status finds it)\n"
		     "  -j, --json        print the job's entry as JSON\n");
}

/* The document this reader may see: the full one if readable (filtered
 * to the reader's jobs under PrivateData=jobs unless root or owner),
 * else their per-user document. NULL with a message. */
static json_object *load(const char *path, char *msg, size_t len)
{
	json_object *doc = NULL;
	hs_err_t err;
	uid_t me = getuid();
	if (access(path, R_OK) == 0) {
		int r = hs_json_read(path, &doc, &err);
		if (r <= 0) {
			snprintf(msg, len, "%s", r == 0 ? "no status document yet" : err.msg);
			return NULL;
		}
		json_object *pv = NULL;
		struct stat st;
		if (json_object_object_get_ex(doc, "private_jobs", &pv) && json_object_get_boolean(pv) &&
		    me != 0 && !(stat(path, &st) == 0 && st.st_uid == me))
			hs_status_keep_user(doc, (uint32_t)me);
		return doc;
	}
	if (errno != EACCES) {
		snprintf(msg, len, "%s: %s (has sched/hetsched run a round yet?)", path,
			 strerror(errno));
		return NULL;
	}
	char dir[4200], file[4300];
	if (hs_status_users_dir(path, dir, sizeof(dir)) < 0) {
		snprintf(msg, len, "path too long");
		return NULL;
	}
	snprintf(file, sizeof(file), "%s/%u.json", dir, (unsigned)me);
	int r = hs_json_read(file, &doc, &err);
	if (r <= 0) {
		/* no file: this user has no job sched/hetsched looks at */
		snprintf(msg, len, "%s", r == 0 || errno == ENOENT ? "" : err.msg);
		return NULL;
	}
	return doc;
}

int hs_cmd_job(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *path = NULL;
	int json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:jh", longopts, NULL)) != -1) {
		if (c == 'f') {
			free(path);
			path = strdup(optarg);
		} else if (c == 'j') {
			json = 1;
		} else {
			usage(c == 'h' ? stdout : stderr);
			free(path);
			return c == 'h' ? 0 : 2;
		}
	}
	char *end = NULL;
	long long id = optind + 1 == argc ? strtoll(argv[optind], &end, 10) : -1;
	if (id <= 0 || !end || *end) {
		usage(stderr);
		free(path);
		return 2;
	}
	if (!path && !(path = hs_status_default_path())) {
		fprintf(stderr, "hetsched job: no status file: give --file, set HS_STATUS_FILE, "
				"or SLURM_CONF to a slurm.conf with StateSaveLocation\n");
		return 1;
	}
	char msg[512] = "";
	json_object *doc = load(path, msg, sizeof(msg));
	json_object *j = doc ? hs_job_view_find(doc, id) : NULL;
	int rc = 0;
	if (!j) {
		/* the same answer for a job that does not exist and one that
		 * is someone else's under PrivateData=jobs */
		if (*msg)
			fprintf(stderr, "hetsched job: %s\n", msg);
		fprintf(stderr, "hetsched job: no job %lld among the jobs sched/hetsched shows you "
				"(finished, not a GPU job it schedules, or not yours)\n", id);
		rc = 1;
	} else if (json) {
		printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (hs_job_view_print(stdout, doc, j, time(NULL)) < 0 || fflush(stdout) != 0) {
		rc = 1;
	}
	json_object_put(doc);
	free(path);
	return rc;
}
