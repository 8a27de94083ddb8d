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
 * socket.
 *
 * "report_helper flushwait": reports steps until the (never reading)
 * listener refuses one, prints "STEP RC SECONDS" for hs_report_flush_wait
 * (100 ms) on the still full queue, then "RC SECONDS" for
 * hs_report_flush_wait(10 s) while the test drains the queue. */
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

static int flushwait_mode(void)
{
	unsigned long i;
	double t0;
	int rc = 0;

	for (i = 1; i < 1000000 && rc == 0; i++)
		rc = hs_report_step(i);   /* HS_REPORT_MIN_INTERVAL_US=0 */
	if (rc != -1 || errno != EAGAIN)
		return 3;
	i--;                              /* the refused step, now pending */
	t0 = mono_s();
	rc = hs_report_flush_wait(100);
	printf("%lu %d %.3f\n", i, rc == -1 && errno == EAGAIN ? -1 : rc, mono_s() - t0);
	fflush(stdout);
	t0 = mono_s();
	rc = hs_report_flush_wait(10000);
	printf("%d %.3f\n", rc, mono_s() - t0);
	fflush(stdout);
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
	if (!strcmp(argv[1], "flushwait"))
		return flushwait_mode();
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
