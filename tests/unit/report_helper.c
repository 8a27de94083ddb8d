/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report_helper.c — a minimal reporting job for test_listener: reports
 * steps 1..N through libhetsched-report (HS_REPORT_SOCKET from the
 * environment), acknowledges a checkpoint at N, and writes its counters
 * as "sent dropped coalesced noop" on stdout. A separate program (not a
 * fork of the test) so valgrind checks the test without its children. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hetsched/report.h"

int main(int argc, char **argv)
{
	struct timespec gap = { 0, 2000000 };
	hs_report_stats_t s;
	unsigned long n;
	int rc, bad = 0;

	if (argc != 2)
		return 2;
	n = strtoul(argv[1], NULL, 10);
	bad |= !hs_report_active();
	for (unsigned long i = 1; i <= n; i++) {
		rc = hs_report_step_samples(i, 64 * i);
		bad |= rc != 0 && !(rc == -1 && errno == EAGAIN);
		nanosleep(&gap, NULL);
	}
	do {    /* the acknowledgement must get through */
		rc = hs_report_checkpoint(n);
		nanosleep(&gap, NULL);
	} while (rc == -1 && errno == EAGAIN);
	bad |= rc != 0;
	hs_report_get_stats(&s);
	printf("%lu %lu %lu %lu\n", s.sent, s.dropped, s.coalesced, s.noop);
	return bad;
}
