/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report_helper.c — a minimal reporting job for test_listener: reports
 * steps 1..N through libhetsched-report (HS_REPORT_SOCKET from the
 * environment), acknowledges a checkpoint at N, and writes its counters
 * as "sent dropped coalesced noop" on stdout. A separate program (not a
 * fork of the test) so valgrind checks the test without its children.
 *
 * "report_helper fork": reports step 1, forks a child that only calls
 * exit(0), and prints how long the child took to exit (seconds), to check
 * that the library's exit wait runs only in the process that opened the
 * socket. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hetsched/report.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int fork_mode(void)
{
	double t0;
	pid_t pid;
	int status;

	if (hs_report_step(1) != 0)   /* opens the socket, registers the exit wait */
		return 3;
	t0 = mono_s();
	pid = fork();
	if (pid < 0)
		return 4;
	if (pid == 0)
		exit(0);   /* runs the atexit handlers it inherited */
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 5;
	printf("%.3f\n", mono_s() - t0);
	fflush(stdout);   /* before this process's own exit wait */
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec gap = { 0, 2000000 };
	hs_report_stats_t s;
	unsigned long n;
	int rc, bad = 0;

	if (argc != 2)
		return 2;
	if (!strcmp(argv[1], "fork"))
		return fork_mode();
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
