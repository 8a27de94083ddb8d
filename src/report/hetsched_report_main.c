/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hetsched_report_main.c — the `hetsched-report` command: the reporting API
 * for shell jobs (see hetsched-report(1)). Reporting never fails a job:
 * a report that cannot be delivered, or no plugin at all, still exits 0;
 * only a usage error exits 2. */
#include "hs_config.h"
#include "hetsched/report.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hetsched-report step N [SAMPLES]  report N mini-batches done in total\n"
		"       hetsched-report ckpt N            acknowledge a checkpoint up to step N\n"
		"       hetsched-report hold              wait up to $HS_CKPT_HOLD s to be requeued\n"
		"       hetsched-report active            exit 0 when reports reach hetsched, else 1\n"
		"       hetsched-report env               print this job's hetsched settings\n"
		"See hetsched-report(1).\n");
}

/* A cumulative count: decimal digits only, at most 15 of them. */
static int parse_count(const char *s, uint64_t *out)
{
	size_t n = strlen(s);
	char *end;

	if (n == 0 || n > 15 || strspn(s, "0123456789") != n)
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "hetsched-report: %s: '%s' is not a count (0..999999999999999)\n", what, arg);
	return 2;
}

static void show(const char *name)
{
	const char *v = getenv(name);

	printf("%s=%s\n", name, v ? v : "");
}

int main(int argc, char **argv)
{
	uint64_t a, b;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hetsched-report %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "step") && (argc == 3 || argc == 4)) {
		if (parse_count(argv[2], &a))
			return bad("step", argv[2]);
		if (argc == 4 && parse_count(argv[3], &b))
			return bad("samples", argv[3]);
		(void)(argc == 4 ? hs_report_step_samples(a, b) : hs_report_step(a));
		return 0;
	}
	if (!strcmp(argv[1], "ckpt") && argc == 3) {
		if (parse_count(argv[2], &a))
			return bad("ckpt", argv[2]);
		(void)hs_report_checkpoint(a);
		return 0;
	}
	if (!strcmp(argv[1], "hold") && argc == 2) {
		printf("%u\n", hs_report_ckpt_hold());
		return 0;
	}
	if (!strcmp(argv[1], "active") && argc == 2)
		return hs_report_active() ? 0 : 1;
	if (!strcmp(argv[1], "env") && argc == 2) {
		static const char *const vars[] = {
			"HS_REPORT_SOCKET", "HS_GPU_TYPE", "HS_GPU_SHARED", "HS_MODEL",
			"HS_STEPS", "HS_CKPT_DIR", "HS_CKPT_SIGNAL", "HS_CKPT_HOLD",
			"HS_RESTART_COUNT", "HS_NO_PREEMPT", "HS_REPORT_MIN_INTERVAL_US",
		};
		for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
			show(vars[i]);
		printf("active=%d\n", hs_report_active());
		return 0;
	}
	usage(stderr);
	return 2;
}
