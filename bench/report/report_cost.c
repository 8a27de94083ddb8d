/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report_cost.c — what one hs_report_step() call costs a training loop, in
 * one mode per run (the library keeps process-wide state):
 *   baseline   a clock_gettime(CLOCK_MONOTONIC) per iteration (what any
 *              loop that times itself pays)
 *   noop       hs_report_step() without the plugin (HS_REPORT_SOCKET unset)
 *   coalesced  with a listener, default coalescing (one datagram / 10 ms)
 *   every      with a listener, a datagram per call (min interval 0)
 *   busy       a datagram per call to a socket nobody reads (EAGAIN)
 * Prints "MODE ns_per_call datagrams_sent". The listener is the plugin's own
 * (src/report/listener.h) on a thread of this process. Driven by
 * bench/report/report_cost.sh, which reports ratios to the baseline. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hetsched/report.h"
#include "report/listener.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "noop";
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	hs_listener_t *l = NULL;
	hs_listener_counters_t c = { 0 };
	hs_report_stats_t s = { 0 };
	char name[HS_SOCKNAME_MAX];
	volatile double sink = 0;
	int deaf = -1;
	double t0, t1;

	unsetenv("HS_REPORT_SOCKET");
	if (!strcmp(mode, "coalesced") || !strcmp(mode, "every")) {
		hs_listener_cfg_t cfg;
		hs_err_t err;

		hs_listener_defaults(&cfg);
		cfg.uid = getuid();
		cfg.ancestor = getpid();
		cfg.max_rate = 100000;
		l = hs_listener_start(&cfg, name, sizeof(name), &err);
		if (!l) {
			fprintf(stderr, "listener: %s\n", err.msg);
			return 1;
		}
		setenv("HS_REPORT_SOCKET", name, 1);
		setenv("HS_REPORT_MIN_INTERVAL_US", !strcmp(mode, "every") ? "0" : "10000", 1);
	} else if (!strcmp(mode, "busy")) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		const char *nm = "hetsched.bench.deaf";

		deaf = socket(AF_UNIX, SOCK_DGRAM, 0);
		memcpy(sa.sun_path + 1, nm, strlen(nm));
		if (bind(deaf, (struct sockaddr *)&sa,
			 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(nm))) < 0)
			return 1;
		setenv("HS_REPORT_SOCKET", "@hetsched.bench.deaf", 1);
		setenv("HS_REPORT_MIN_INTERVAL_US", "0", 1);
	}
	hs_report_step(0);   /* initialise outside the timed loop */
	t0 = now();
	if (!strcmp(mode, "baseline")) {
		for (long i = 1; i <= n; i++)
			sink += now();
	} else {
		for (long i = 1; i <= n; i++)
			hs_report_step((uint64_t)i);
	}
	t1 = now();
	hs_report_get_stats(&s);
	if (l)
		hs_listener_stop(l, &c, NULL);
	if (deaf >= 0)
		close(deaf);
	printf("%s %.1f %lu %lu\n", mode, (t1 - t0) / (double)n * 1e9, s.sent, c.accepted);
	(void)sink;
	return 0;
}
