/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_listener.c — the report listener (src/report/listener.h) driven
 * in-process: reports from this process and from children (the real client
 * library), drops of malformed/oversized/foreign datagrams, the per-second
 * budget, stop detection of a SIGSTOPped reporter, and the publish
 * callbacks. Assertions on rates compare with the sender's own clock and
 * allow wide margins: they check correctness, not speed. */
#define _GNU_SOURCE  /* SCM_CREDENTIALS, struct ucred */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hetsched/report.h"
#include "report/listener.h"

typedef struct pubs {
	pthread_mutex_t mu;
	int count[HS_PUB_FINAL + 1];
	int fail_first;
	int fail_all;                   /* every publish but the final fails,
	                                 * counted in failed */
	int failed;
	int fail_final;                 /* every final publish fails ... */
	double final_s;                 /* ... after this long (slurmctld
	                                 * unreachable: RPC timeouts) */
	int final_tries;
	hs_listener_state_t last;
	char log[512];
	int logs;
	unsigned long dropped_logged;   /* sum of "dropped N" over log lines */
	int stall_why;                  /* publishes of this kind ... */
	double stall_s;                 /* ... first sleep this long (a slow
	                                 * slurmctld), 0 = never */
	double ema_min, ema_max;        /* over publishes after the first sample */
} pubs_t;

static int on_publish(void *arg, const hs_listener_state_t *st, hs_publish_why_t why)
{
	pubs_t *p = arg;
	int rc = 0;

	double stall = 0;

	pthread_mutex_lock(&p->mu);
	if (p->fail_final && why == HS_PUB_FINAL) {
		p->final_tries++;
		stall = p->final_s;
		rc = -1;
	} else if (p->fail_first) {
		p->fail_first = 0;
		rc = -1;
	} else if (p->fail_all && why != HS_PUB_FINAL) {
		p->failed++;
		rc = -1;
	} else {
		p->count[why]++;
		p->last = *st;
		if (st->new_samples > 0) {
			if (p->ema_max == 0 || st->ema > p->ema_max)
				p->ema_max = st->ema;
			if (p->ema_min == 0 || st->ema < p->ema_min)
				p->ema_min = st->ema;
		}
		if (p->stall_s > 0 && (int)why == p->stall_why) {
			stall = p->stall_s;
			p->stall_s = 0;
		}
	}
	pthread_mutex_unlock(&p->mu);
	if (stall > 0) {
		struct timespec ts = { (time_t)stall, (long)((stall - (double)(time_t)stall) * 1e9) };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	return rc;
}

static void on_log(void *arg, int err, const char *msg)
{
	pubs_t *p = arg;
	(void)err;
	pthread_mutex_lock(&p->mu);
	unsigned long n;

	snprintf(p->log, sizeof(p->log), "%s", msg);
	p->logs++;
	if (sscanf(msg, "dropped %lu report", &n) == 1)
		p->dropped_logged += n;
	pthread_mutex_unlock(&p->mu);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Whether to check a rate the listener measured against the sender's own
 * clock. contrib/test.sh runs the sanitizer and valgrind builds at nice 19
 * next to a busy cluster (HS_TIMING_LAX=1), where the sender can be starved
 * for whole estimation windows: there these tests check memory and the
 * counters, and the rates are checked by the plain build at normal
 * priority. */
static bool rates_checked(void)
{
	const char *lax = getenv("HS_TIMING_LAX");

	if (lax && *lax && strcmp(lax, "0") != 0) {
		printf("# HS_TIMING_LAX: rate against the sender's clock not checked\n");
		return false;
	}
	return true;
}

/* Starts a listener reporting to p, which the caller has set up. */
static hs_listener_t *start_with(pubs_t *p, hs_listener_cfg_t *cfg, char *name)
{
	hs_err_t err;
	hs_listener_t *l;

	pthread_mutex_init(&p->mu, NULL);
	cfg->publish = on_publish;
	cfg->log = on_log;
	cfg->arg = p;
	l = hs_listener_start(cfg, name, HS_SOCKNAME_MAX, &err);
	if (!l)
		fail_msg("listener: %s", err.msg);
	assert_true(name[0] == '@');
	return l;
}

static hs_listener_t *start(pubs_t *p, hs_listener_cfg_t *cfg, char *name)
{
	memset(p, 0, sizeof(*p));
	return start_with(p, cfg, name);
}

static void base_cfg(hs_listener_cfg_t *cfg)
{
	hs_listener_defaults(cfg);
	cfg->name_prefix = "hetsched.test";
	cfg->uid = getuid();
	cfg->ancestor = getpid();
	cfg->publish_interval = 0;
	cfg->tick = 0.05;
	cfg->est.window_s = 0.3;
}

/* Sends len bytes to the abstract socket "@..." named name. */
static int send_raw(const char *name, const void *buf, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), rc;

	memcpy(sa.sun_path, name, n);
	sa.sun_path[0] = '\0';
	rc = (int)sendto(fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&sa,
			 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	close(fd);
	return rc;
}

static void accept_and_estimate(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX], msg[64];
	double t0 = 0, t1 = 0, sender_rate;
	pubs_t p;
	hs_listener_t *l;
	(void)state;

	base_cfg(&cfg);
	l = start(&p, &cfg, name);
	for (int i = 1; i <= 60; i++) {
		int n = snprintf(msg, sizeof(msg), "hs1 step=%d samples=%d", i, 32 * i);

		if (i == 1)
			t0 = now_s();
		t1 = now_s();
		assert_int_equal(send_raw(name, msg, (size_t)n), n);
		sleep_s(0.02);
	}
	assert_int_equal(send_raw(name, "hs1 ckpt=60", 11), 11);
	sleep_s(0.2);
	hs_listener_stop(l, &c, &st);
	assert_int_equal(c.received, 61);
	assert_int_equal(c.accepted, 61);
	assert_int_equal(c.ckpts, 1);
	assert_true(st.has_step && st.step == 60 && st.has_samples && st.samples == 1920);
	assert_true(st.has_ckpt && st.ckpt == 60);
	assert_true(st.n >= 1 && st.new_samples == st.n);
	sender_rate = 59.0 / (t1 - t0);
	printf("# listener estimate %.2f steps/s, sender clock %.2f steps/s\n", st.ema, sender_rate);
	if (rates_checked())
		assert_true(st.ema > 0.5 * sender_rate && st.ema < 1.5 * sender_rate);
	assert_true(p.count[HS_PUB_START] == 1);
	assert_true(p.count[HS_PUB_FIRST] + p.count[HS_PUB_PERIODIC] >= 1);
	assert_true(p.count[HS_PUB_CKPT] + p.count[HS_PUB_FINAL] >= 1);
	assert_true(p.last.has_ckpt);
	pthread_mutex_destroy(&p.mu);
}

static void drops(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX], big[4000];
	pubs_t p;
	hs_listener_t *l;
	(void)state;

	base_cfg(&cfg);
	l = start(&p, &cfg, name);
	memset(big, '7', sizeof(big));
	memcpy(big, "hs1 step=", 9);
	assert_true(send_raw(name, big, sizeof(big)) > 0);           /* truncated */
	assert_true(send_raw(name, big, 256) > 0);                   /* 256 bytes */
	assert_true(send_raw(name, "hs1 step=-1", 11) > 0);
	assert_true(send_raw(name, "hs1 job=42 step=1", 17) > 0);    /* for another job */
	assert_true(send_raw(name, "\0\0\0\0", 4) > 0);
	assert_true(send_raw(name, "", 0) == 0);
	assert_true(send_raw(name, "hs1 step=5", 10) > 0);           /* the only good one */
	sleep_s(0.2);
	hs_listener_stop(l, &c, &st);
	assert_int_equal(c.received, 7);
	assert_int_equal(c.accepted, 1);
	assert_int_equal(c.truncated, 1);
	assert_int_equal(c.malformed, 5);
	assert_true(st.step == 5);
	assert_true(p.logs >= 1);
	/* summaries are rate-limited, not lost: together they count all 6 */
	assert_int_equal(p.dropped_logged, 6);
	pthread_mutex_destroy(&p.mu);
}

static void foreign_senders(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	pid_t other;
	int status;
	(void)state;

	/* another uid */
	base_cfg(&cfg);
	cfg.uid = getuid() + 1;
	l = start(&p, &cfg, name);
	assert_true(send_raw(name, "hs1 step=1", 10) > 0);
	sleep_s(0.1);
	hs_listener_stop(l, &c, NULL);
	assert_int_equal(c.foreign, 1);
	assert_int_equal(c.accepted, 0);
	pthread_mutex_destroy(&p.mu);

	/* same uid, not a descendant of the step (another job of the user) */
	other = fork();
	assert_true(other >= 0);
	if (other == 0) {
		pause();
		_exit(0);
	}
	base_cfg(&cfg);
	cfg.ancestor = other;
	l = start(&p, &cfg, name);
	assert_true(send_raw(name, "hs1 step=1", 10) > 0);
	sleep_s(0.1);
	hs_listener_stop(l, &c, NULL);
	assert_int_equal(c.foreign, 1);
	assert_int_equal(c.accepted, 0);
	kill(other, SIGKILL);
	waitpid(other, &status, 0);
	pthread_mutex_destroy(&p.mu);
}

/* Another process of the same user floods the socket (up to 200 datagrams
 * as fast as the queue takes them, a budget of 10/s) just before the job
 * acknowledges a checkpoint. Foreign datagrams must not spend the job's
 * budget: the acknowledgement is published and the listener never
 * throttles. (When they counted, the flood was read at 10/s, throttled
 * every second, and the acknowledgement waited behind it.) */
static void foreign_flood_spends_no_budget(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	pid_t job;
	int status, go[2], sent = 0, published = 0;
	(void)state;

	assert_int_equal(pipe(go), 0);
	base_cfg(&cfg);
	cfg.max_rate = 10;
	job = fork();
	assert_true(job >= 0);
	if (job == 0) {
		char sock[HS_SOCKNAME_MAX] = "";

		close(go[1]);
		/* the job step's process: told the socket's name, acknowledges
		 * and stays alive so the listener can check it in /proc */
		if (read(go[0], sock, sizeof(sock) - 1) <= 1)
			_exit(1);
		/* the queue may still be full of the flood */
		for (int i = 0; i < 3000; i++) {
			if (send_raw(sock, "hs1 ckpt=7", 10) == 10)
				pause();
			sleep_s(0.001);
		}
		_exit(1);
	}
	close(go[0]);
	cfg.ancestor = job;
	l = start(&p, &cfg, name);
	/* the kernel queue holds few datagrams (net.unix.max_dgram_qlen):
	 * a full queue is retried, for 3 s at most */
	for (double end = now_s() + 3; sent < 200 && now_s() < end;) {
		if (send_raw(name, "hs1 step=1", 10) > 0)
			sent++;
		else
			sleep_s(0.001);
	}
	assert_int_equal(write(go[1], name, strlen(name) + 1), (ssize_t)(strlen(name) + 1));
	for (int i = 0; i < 100 && !published; i++) {
		sleep_s(0.05);
		pthread_mutex_lock(&p.mu);
		published = p.count[HS_PUB_CKPT] > 0;
		pthread_mutex_unlock(&p.mu);
	}
	hs_listener_stop(l, &c, &st);
	kill(job, SIGKILL);
	waitpid(job, &status, 0);
	close(go[1]);
	printf("# flood: sent %d, foreign %lu, throttled %lu, ckpts %lu\n", sent, c.foreign,
	       c.throttled, c.ckpts);
	assert_true(sent > 2 * (int)cfg.max_rate);
	assert_true(published);
	assert_int_equal(c.ckpts, 1);
	assert_true(st.has_ckpt && st.ckpt == 7);
	assert_int_equal(c.foreign, (unsigned long)sent);
	assert_int_equal(c.throttled, 0);
	pthread_mutex_destroy(&p.mu);
}

static void rate_budget(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	int sent = 0;
	(void)state;

	base_cfg(&cfg);
	cfg.max_rate = 20;
	l = start(&p, &cfg, name);
	/* Senders never block: once the budget is spent the kernel queue
	 * (net.unix.max_dgram_qlen datagrams) fills and sends fail EAGAIN. */
	for (int i = 1; i <= 200; i++) {
		if (send_raw(name, "hs1 step=1", 10) > 0)
			sent++;
		sleep_s(0.001);
	}
	hs_listener_stop(l, &c, NULL);
	printf("# sent %d of 200, received %lu with a budget of 20/s\n", sent, c.received);
	assert_true(sent >= 20 && sent < 200);
	assert_true(c.received <= 40);   /* at most two budget seconds */
	assert_true(c.throttled >= 1);
	pthread_mutex_destroy(&p.mu);
}

/* The real client library in a child: every report arrives, the
 * checkpoint acknowledgement too. */
static void client_library(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	hs_report_stats_t s;
	pid_t child;
	int status, fds[2];
	(void)state;

	base_cfg(&cfg);
	l = start(&p, &cfg, name);
	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char helper[1024];
		const char *bd = getenv("HS_BUILDDIR");

		snprintf(helper, sizeof(helper), "%s/tests/unit/report_helper", bd ? bd : ".");
		dup2(fds[1], 1);
		setenv("HS_REPORT_SOCKET", name, 1);
		setenv("HS_REPORT_MIN_INTERVAL_US", "0", 1);
		execl(helper, helper, "50", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	{
		char out[256] = "";
		ssize_t n = read(fds[0], out, sizeof(out) - 1);

		assert_true(n > 0);
		out[n] = '\0';
		assert_int_equal(sscanf(out, "%lu %lu %lu %lu", &s.sent, &s.dropped,
					&s.coalesced, &s.noop), 4);
	}
	close(fds[0]);
	assert_int_equal(s.noop, 0);
	assert_int_equal(s.coalesced, 0);
	sleep_s(0.2);
	hs_listener_stop(l, &c, &st);
	printf("# client sent %lu, dropped %lu (busy listener)\n", s.sent, s.dropped);
	assert_true(s.sent >= 2);
	assert_int_equal(c.accepted, s.sent);    /* every datagram sent arrived */
	assert_int_equal(c.ckpts, 1);
	assert_true(st.ckpt == 50);
	assert_true(st.has_step && st.step <= 50 && st.samples == 64 * st.step);
	pthread_mutex_destroy(&p.mu);
}

/* Binds a receiving socket that reads only when the test says so (a
 * stand-in for a stuck listener); fills name. */
static int stuck_socket(char *name, size_t len, const char *tag)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int rx;

	snprintf(name, len, "@hetsched.test.%s.%d", tag, (int)getpid());
	memcpy(sa.sun_path, name, strlen(name));
	sa.sun_path[0] = '\0';
	rx = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(rx >= 0);
	assert_int_equal(bind(rx, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name))), 0);
	return rx;
}

/* Runs report_helper MODE against the socket name; its stdout is *out. */
static pid_t run_helper(const char *mode, const char *name, const char *min_us, FILE **out)
{
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char cmd[1024];
		const char *bd = getenv("HS_BUILDDIR");

		snprintf(cmd, sizeof(cmd), "%s/tests/unit/report_helper", bd ? bd : ".");
		dup2(fds[1], 1);
		setenv("HS_REPORT_SOCKET", name, 1);
		if (min_us)
			setenv("HS_REPORT_MIN_INTERVAL_US", min_us, 1);
		execl(cmd, cmd, mode, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	*out = fdopen(fds[0], "r");
	assert_non_null(*out);
	return pid;
}

/* A reporting process forks (a data loader worker, a shell pipeline) and
 * the child exits: the child shares the socket, so it must not run the
 * library's exit wait for the parent's unread reports (up to seconds per
 * child). The receiving socket here never reads, so the parent's report
 * stays unread while the child exits; the parent itself still waits
 * until the socket is closed. */
static void forked_child_no_exit_wait(void **state)
{
	char name[64];
	double child_s = -1;
	FILE *out;
	pid_t helper;
	int rx, status;
	(void)state;

	rx = stuck_socket(name, sizeof(name), "fork");
	helper = run_helper("fork", name, NULL, &out);
	assert_int_equal(fscanf(out, "%lf", &child_s), 1);   /* the child exited */
	fclose(out);
	/* the report is still unread, so the parent is still in its exit wait */
	assert_int_equal(waitpid(helper, &status, WNOHANG), 0);
	close(rx);   /* drops the unread report: the parent's wait ends */
	assert_int_equal(waitpid(helper, &status, 0), helper);
	printf("# forked child exited in %.3f s\n", child_s);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the exit wait is 5 s (EXIT_WAIT_NS); a child that skips it is far
	 * below 1 s even on a loaded machine */
	assert_true(child_s >= 0 && child_s < 1.0);
}

/* hs_report_flush_wait: bounded while the listener stays busy, and the
 * refused report gets through once the listener reads again. */
static void flush_wait(void **state)
{
	char name[64], msg[64], want[64];
	struct timeval tv = { 0, 300000 };
	unsigned long step = 0;
	double s1 = -1, s2 = -1;
	int rx, rc1 = 1, rc2 = 1, status, last_ok = 0;
	ssize_t n;
	FILE *out;
	pid_t helper;
	(void)state;

	rx = stuck_socket(name, sizeof(name), "flushwait");
	helper = run_helper("flushwait", name, "0", &out);
	assert_int_equal(fscanf(out, "%lu %d %lf", &step, &rc1, &s1), 3);
	/* the listener reads again: drain until the helper has nothing more */
	setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	snprintf(want, sizeof(want), "hs1 step=%lu", step);
	while ((n = recv(rx, msg, sizeof(msg) - 1, 0)) > 0) {
		msg[n] = '\0';
		last_ok = !strcmp(msg, want);
	}
	assert_int_equal(fscanf(out, "%d %lf", &rc2, &s2), 2);
	fclose(out);
	close(rx);
	assert_int_equal(waitpid(helper, &status, 0), helper);
	printf("# queue full at step %lu; busy: rc %d after %.3f s; drained: rc %d after %.3f s\n",
	       step, rc1, s1, rc2, s2);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(rc1, -1);              /* still busy at the timeout */
	assert_true(s1 >= 0.09 && s1 < 5.0);    /* waited, and bounded */
	assert_int_equal(rc2, 0);
	assert_true(last_ok);                   /* the refused step arrived last */
}

/* A reporter stopped for 0.6 s (shorter than any gap rule) and resumed:
 * the stopped interval is excluded, as for a Slurm suspend. */
static void stopped_reporter(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	pid_t child;
	int status;
	(void)state;

	base_cfg(&cfg);
	l = start(&p, &cfg, name);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		setenv("HS_REPORT_SOCKET", name, 1);
		setenv("HS_REPORT_MIN_INTERVAL_US", "0", 1);
		for (uint64_t i = 1;; i++) {
			hs_report_step(i);
			sleep_s(0.01);
		}
	}
	/* At nice 19 under valgrind (HS_TIMING_LAX) the listener's thread
	 * can miss a 0.6 s stop altogether; there the stop lasts past the
	 * gap rule (1 s), so that the interval is excluded either way. */
	bool strict = rates_checked();
	sleep_s(0.5);
	kill(child, SIGSTOP);
	assert_int_equal(waitpid(child, &status, WUNTRACED), child);
	sleep_s(strict ? 0.6 : 1.5);
	kill(child, SIGCONT);
	sleep_s(0.5);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	hs_listener_stop(l, &c, &st);
	printf("# excluded: %lu stopped, %lu gaps; ema %.1f steps/s\n",
	       c.excluded_stop, c.excluded_gap, st.ema);
	if (strict)
		assert_true(c.excluded_stop >= 1);
	else
		assert_true(c.excluded_stop + c.excluded_gap >= 1);
	assert_true(st.n >= 1);
	pthread_mutex_destroy(&p.mu);
}

/* The listener thread is stuck for 1.5 s in a publish (an RPC to a slow
 * slurmctld) while the job keeps reporting: its queue fills, later reports
 * are refused. Reports are timed when sent, so every window still gives
 * the sender's rate. (Timed when read, the stall was excluded as a gap and
 * the steps queued or refused meanwhile were counted in ~0 s: the window
 * after the stall read ~2.5x the rate.) */
static void stalled_listener(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX], msg[64];
	double t0, t1, sender_rate;
	pubs_t p;
	hs_listener_t *l;
	int i = 0;
	(void)state;

	base_cfg(&cfg);
	cfg.est.window_s = 1;
	cfg.est.alpha = 1;            /* every published ema is one window */
	cfg.ckpt_min_interval = 0;
	memset(&p, 0, sizeof(p));
	p.stall_why = HS_PUB_FIRST;
	p.stall_s = 1.5;
	l = start_with(&p, &cfg, name);
	t0 = t1 = now_s();
	while (t1 - t0 < 4.5) {
		int n = snprintf(msg, sizeof(msg), "hs1 step=%d", ++i);

		(void)send_raw(name, msg, (size_t)n);   /* refused while stalled */
		sleep_s(0.005);
		t1 = now_s();
	}
	sleep_s(0.2);
	hs_listener_stop(l, &c, &st);
	sender_rate = (i - 1) / (t1 - t0);
	printf("# sender %.1f steps/s; published window rates %.1f..%.1f; %lu gap(s)\n",
	       sender_rate, p.ema_min, p.ema_max, c.excluded_gap);
	assert_int_equal(p.count[HS_PUB_FIRST], 1);
	assert_true(st.n >= 2);
	if (rates_checked())
		assert_true(p.ema_min > 0.6 * sender_rate && p.ema_max < 1.4 * sender_rate);
	pthread_mutex_destroy(&p.mu);
}

/* A sender that exits right after reporting (one hetsched-report command
 * per step) while the listener is busy: the library waits at exit until
 * its report is read, and the listener checks the sender before it
 * consumes the datagram, so the report is accepted, not dropped as coming
 * from a process that is no longer part of the job. */
static void exiting_reporter(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	pid_t child;
	int status;
	double t0;
	(void)state;

	base_cfg(&cfg);
	memset(&p, 0, sizeof(p));
	p.stall_why = HS_PUB_START;
	p.stall_s = 1.0;
	l = start_with(&p, &cfg, name);
	for (int busy = 0; !busy; sleep_s(0.01)) {   /* until it is stuck */
		pthread_mutex_lock(&p.mu);
		busy = p.count[HS_PUB_START] == 1;
		pthread_mutex_unlock(&p.mu);
	}
	t0 = now_s();
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char cmd[1024];
		const char *bd = getenv("HS_BUILDDIR");

		snprintf(cmd, sizeof(cmd), "%s/hetsched-report", bd ? bd : ".");
		setenv("HS_REPORT_SOCKET", name, 1);
		execl(cmd, cmd, "step", "7", (char *)NULL);
		_exit(127);
	}
	/* reaped at once: once it has exited, /proc knows nothing of it */
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (now_s() < t0 + 1.3)   /* the listener reads it after its stall */
		sleep_s(t0 + 1.3 - now_s());
	hs_listener_stop(l, &c, &st);
	printf("# accepted %lu, foreign %lu\n", c.accepted, c.foreign);
	assert_int_equal(c.foreign, 0);
	assert_int_equal(c.accepted, 1);
	assert_true(st.has_step && st.step == 7);
	pthread_mutex_destroy(&p.mu);
}

/* The final publish fails once (slurmctld busy): it is retried, so the
 * last step is not lost. */
static void final_publish_retried(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	(void)state;

	base_cfg(&cfg);
	cfg.publish_interval = 100;   /* only START and FINAL publish */
	cfg.ckpt_min_interval = 100;
	l = start(&p, &cfg, name);
	for (int started = 0; !started; sleep_s(0.01)) {
		pthread_mutex_lock(&p.mu);
		started = p.count[HS_PUB_START] == 1;
		pthread_mutex_unlock(&p.mu);
	}
	assert_int_equal(send_raw(name, "hs1 step=5", 10), 10);
	sleep_s(0.2);
	pthread_mutex_lock(&p.mu);
	p.fail_first = 1;
	pthread_mutex_unlock(&p.mu);
	hs_listener_stop(l, &c, &st);
	assert_int_equal(c.accepted, 1);
	assert_int_equal(p.count[HS_PUB_FINAL], 1);
	assert_true(p.last.has_step && p.last.step == 5);
	pthread_mutex_destroy(&p.mu);
}

/* slurmctld unreachable at the step's end: each final publish fails only
 * after its RPC timeouts. slurmstepd waits for the listener before it
 * tells srun the tasks ended, so no retry starts after the budget: one
 * attempt of 5.5 s, not three of them (17.5 s with the pauses). */
static void final_publish_bounded(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	(void)state;

	base_cfg(&cfg);
	cfg.publish_interval = 100;
	l = start(&p, &cfg, name);
	assert_int_equal(send_raw(name, "hs1 step=5", 10), 10);
	sleep_s(0.2);
	pthread_mutex_lock(&p.mu);
	p.fail_final = 1;
	p.final_s = 5.5;
	pthread_mutex_unlock(&p.mu);
	hs_listener_stop(l, &c, &st);
	assert_int_equal(p.final_tries, 1);
	pthread_mutex_destroy(&p.mu);
}

/* No report at all: the step start is still published (history), and a
 * failed publish is retried. */
static void silent_job(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	(void)state;

	base_cfg(&cfg);
	cfg.ckpt_min_interval = 0;
	l = start(&p, &cfg, name);
	pthread_mutex_lock(&p.mu);
	p.fail_first = 1;
	pthread_mutex_unlock(&p.mu);
	sleep_s(0.3);
	hs_listener_stop(l, &c, &st);
	assert_int_equal(p.count[HS_PUB_START], 1);
	assert_int_equal(c.received, 0);
	assert_false(st.has_step);
	pthread_mutex_destroy(&p.mu);
}

/* slurmctld refuses every publish (the job ended, say): the listener
 * backs off, doubling its pause from one tick (0.05 s) up to
 * publish_interval (0.4 s): over 1.2 s that is at most 7 attempts
 * (0, .05, .15, .35, .75, 1.15 s), against 24 at one per tick. */
static void failing_publish_backs_off(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	(void)state;

	base_cfg(&cfg);
	cfg.ckpt_min_interval = 0;
	cfg.publish_interval = 0.4;
	memset(&p, 0, sizeof(p));
	p.fail_all = 1;
	l = start_with(&p, &cfg, name);
	sleep_s(1.2);
	hs_listener_stop(l, &c, &st);
	pthread_mutex_lock(&p.mu);
	int failed = p.failed;
	pthread_mutex_unlock(&p.mu);
	if (failed < 1 || failed > 7)
		fail_msg("%d failed attempts in 1.2 s", failed);
	pthread_mutex_destroy(&p.mu);
}

/* Waits until the START publish happened. */
static void wait_started(pubs_t *p)
{
	for (int started = 0; !started; sleep_s(0.01)) {
		pthread_mutex_lock(&p->mu);
		started = p->count[HS_PUB_START] == 1;
		pthread_mutex_unlock(&p->mu);
	}
}

/* Waits (up to 5 s: a listener thread starved at nice 19 under valgrind)
 * until there were at least n publishes of kind why; returns the count. */
static int wait_pubs(pubs_t *p, hs_publish_why_t why, int n)
{
	int got = 0;

	for (int i = 0; i < 250; i++) {
		pthread_mutex_lock(&p->mu);
		got = p->count[why];
		pthread_mutex_unlock(&p->mu);
		if (got >= n)
			break;
		sleep_s(0.02);
	}
	return got;
}

/* A job repeats the same report (data-parallel ranks, a loop that
 * re-sends, a hostile job): nothing new, so no publish. Every publish is
 * two RPCs by root to slurmctld (load + update), so duplicates must not
 * cause any. (When each duplicate refreshed the report's time, every
 * publish_interval published a "changed" record.) */
static void duplicates_publish_nothing(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	(void)state;

	base_cfg(&cfg);
	cfg.publish_interval = 0.3;
	l = start(&p, &cfg, name);
	wait_started(&p);
	for (double end = now_s() + 2; now_s() < end; sleep_s(0.02))
		(void)send_raw(name, "hs1 step=5 samples=80", 21);
	sleep_s(0.5);
	hs_listener_stop(l, &c, &st);
	printf("# %lu duplicate reports: %d periodic, %d final publish(es)\n", c.accepted,
	       p.count[HS_PUB_PERIODIC], p.count[HS_PUB_FINAL]);
	assert_true(c.accepted >= 20);
	assert_true(st.step == 5 && st.samples == 80);
	/* the first report is news, published once; the rest are not */
	assert_int_equal(p.count[HS_PUB_PERIODIC] + p.count[HS_PUB_FINAL], 1);
	pthread_mutex_destroy(&p.mu);
}

/* A job acknowledges the same checkpoint over and over: it is urgent once
 * (the first acknowledgement, published at once), the repeats are not
 * (at most merged into the periodic publish). A new checkpoint is urgent
 * again. (Before, every repeat was published at once, one load and one
 * update per second for as long as the job kept sending.) */
static void repeated_ack_urgent_once(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	int ckpt_pubs, urgent = 0;
	(void)state;

	base_cfg(&cfg);
	cfg.publish_interval = 30;     /* no periodic publish in this test */
	cfg.ckpt_min_interval = 0.2;
	l = start(&p, &cfg, name);
	wait_started(&p);
	for (double end = now_s() + 2; now_s() < end; sleep_s(0.02))
		(void)send_raw(name, "hs1 ckpt=5", 10);
	(void)wait_pubs(&p, HS_PUB_CKPT, 1);
	sleep_s(0.3);   /* a second urgent publish would come now */
	pthread_mutex_lock(&p.mu);
	ckpt_pubs = p.count[HS_PUB_CKPT];
	pthread_mutex_unlock(&p.mu);
	/* a new checkpoint: published within a tick or two */
	assert_int_equal(send_raw(name, "hs1 ckpt=9", 10), 10);
	for (int i = 0; i < 250 && !urgent; i++) {
		sleep_s(0.02);
		pthread_mutex_lock(&p.mu);
		urgent = p.count[HS_PUB_CKPT] == ckpt_pubs + 1 && p.last.ckpt == 9;
		pthread_mutex_unlock(&p.mu);
	}
	hs_listener_stop(l, &c, &st);
	printf("# %lu acknowledgements of checkpoint 5: %d urgent publish(es)\n", c.ckpts - 1,
	       ckpt_pubs);
	assert_true(c.ckpts >= 20);
	assert_int_equal(ckpt_pubs, 1);
	assert_true(urgent);
	assert_true(st.has_ckpt && st.ckpt == 9);
	pthread_mutex_destroy(&p.mu);
}

/* The same checkpoint step acknowledged again after a quiet
 * publish_interval: a new checkpoint request while the job held at that
 * step. The scheduler waits for a fresh ckpt.t: urgent again. */
static void reack_after_quiet(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX];
	pubs_t p;
	hs_listener_t *l;
	int pubs = 0;
	int64_t t1;
	(void)state;

	base_cfg(&cfg);
	cfg.publish_interval = 0.5;
	cfg.ckpt_min_interval = 0.1;
	l = start(&p, &cfg, name);
	wait_started(&p);
	assert_int_equal(send_raw(name, "hs1 ckpt=5", 10), 10);
	assert_int_equal(wait_pubs(&p, HS_PUB_CKPT, 1), 1);
	sleep_s(1.2);   /* quiet for more than publish_interval; ckpt.t moves */
	pthread_mutex_lock(&p.mu);
	t1 = p.last.ckpt_t;
	pthread_mutex_unlock(&p.mu);
	assert_int_equal(send_raw(name, "hs1 ckpt=5", 10), 10);
	pubs = wait_pubs(&p, HS_PUB_CKPT, 2);
	hs_listener_stop(l, &c, &st);
	assert_int_equal(pubs, 2);
	assert_true(st.ckpt_t > t1);
	pthread_mutex_destroy(&p.mu);
}

/* A job acknowledging ever new checkpoints as fast as it can (a hostile
 * job: a real one acknowledges once per checkpoint request) gets at most
 * HS_LISTENER_URGENT_MAX urgent publishes per publish_interval; the rest
 * wait for the periodic publish. */
static void urgent_publishes_bounded(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX], msg[32];
	pubs_t p;
	hs_listener_t *l;
	int i = 0, pubs;
	(void)state;

	base_cfg(&cfg);
	cfg.publish_interval = 30;
	cfg.ckpt_min_interval = 0.05;
	l = start(&p, &cfg, name);
	wait_started(&p);
	for (double end = now_s() + 1.5; now_s() < end; sleep_s(0.01)) {
		int n = snprintf(msg, sizeof(msg), "hs1 ckpt=%d", ++i);

		(void)send_raw(name, msg, (size_t)n);
	}
	(void)wait_pubs(&p, HS_PUB_CKPT, 1);
	pthread_mutex_lock(&p.mu);
	pubs = p.count[HS_PUB_CKPT];
	pthread_mutex_unlock(&p.mu);
	hs_listener_stop(l, &c, &st);
	printf("# %d new checkpoints in 1.5 s: %d urgent publish(es)\n", i, pubs);
	assert_true(i >= 50);
	assert_true(pubs >= 1 && pubs <= HS_LISTENER_URGENT_MAX);
	/* nothing is lost: the final publish carries the last one */
	assert_true(p.last.has_ckpt && p.last.ckpt == st.ckpt);
	pthread_mutex_destroy(&p.mu);
}

/* Writes a fake <root>/<pid>/stat: parent ppid, start time start (ticks
 * since boot), state S. */
static void fake_stat(const char *root, pid_t pid, pid_t ppid, unsigned long long start)
{
	char path[512], text[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", root, (int)pid);
	(void)mkdir(path, 0755);
	snprintf(text, sizeof(text), "%d (proc) S %d 1 1 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0 %llu "
		 "1000 100 0\n", (int)pid, (int)ppid, start);
	snprintf(path, sizeof(path), "%s/%d/stat.new", root, (int)pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	{
		char to[512];

		snprintf(to, sizeof(to), "%s/%d/stat", root, (int)pid);
		assert_int_equal(rename(path, to), 0);
	}
}

/* Ticks since boot now, as /proc/PID/stat counts a start time. */
static unsigned long long boot_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (unsigned long long)ts.tv_sec * (unsigned long long)sysconf(_SC_CLK_TCK) +
	       (unsigned long long)ts.tv_nsec / (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK));
}

/* Trust is tied to the process, not to its pid. A fake /proc says the
 * sender (this process, the pid the kernel attaches) descends from the
 * step's slurmstepd (pid 4242); then the pid is "reused" by a process of
 * the same user's other job (another start time, not a descendant): its
 * report is foreign at once, not trusted because the pid was validated
 * a moment ago. And a process that started after the datagram was sent
 * cannot have sent it. */
static void pid_reuse_not_trusted(void **state)
{
	hs_listener_cfg_t cfg;
	hs_listener_counters_t c;
	hs_listener_state_t st;
	char name[HS_SOCKNAME_MAX], root[] = "/tmp/hs-fakeproc-XXXXXX", cmd[600];
	unsigned long long t = boot_ticks();
	pubs_t p;
	hs_listener_t *l;
	(void)state;

	assert_non_null(mkdtemp(root));
	fake_stat(root, 4242, 1, t > 1000 ? t - 1000 : 0);          /* the slurmstepd */
	fake_stat(root, getpid(), 4242, t > 500 ? t - 500 : 0);     /* its task */
	base_cfg(&cfg);
	cfg.proc_root = root;
	cfg.ancestor = 4242;
	l = start(&p, &cfg, name);
	assert_int_equal(send_raw(name, "hs1 step=1", 10), 10);
	/* read (and published) while /proc still says it is the task */
	assert_true(wait_pubs(&p, HS_PUB_PERIODIC, 1) >= 1);
	/* the pid now belongs to another job's process */
	fake_stat(root, getpid(), 1, t > 100 ? t - 100 : 0);
	assert_int_equal(send_raw(name, "hs1 step=2", 10), 10);
	sleep_s(0.2);
	/* a descendant again, but one that started 5 s from now: a reused
	 * pid, the sender of the datagram is gone */
	fake_stat(root, getpid(), 4242, boot_ticks() + 5 * (unsigned long long)sysconf(_SC_CLK_TCK));
	assert_int_equal(send_raw(name, "hs1 step=3", 10), 10);
	sleep_s(0.2);
	hs_listener_stop(l, &c, &st);
	printf("# accepted %lu, foreign %lu\n", c.accepted, c.foreign);
	assert_int_equal(c.accepted, 1);
	assert_int_equal(c.foreign, 2);
	assert_true(st.step == 1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	pthread_mutex_destroy(&p.mu);
}

static void count_fd(void *arg, int fd)
{
	(void)fd;
	(*(unsigned *)arg)++;
}

/* Control-buffer decoding (hs_listener_ctl_parse) on buffers the kernel
 * never writes: a message whose cmsg_len claims more bytes than the buffer
 * holds is not read past the buffer's end. The bytes after `len` belong to
 * the same array here, so reading them is seen as extra descriptors or
 * credentials rather than as a crash (found by tests/fuzz/fuzz_listener.c,
 * where ASan saw the read). */
static void control_bounds(void **state)
{
	union {
		struct cmsghdr align;
		unsigned char b[256];
	} m;
	struct cmsghdr h = { .cmsg_level = SOL_SOCKET };
	struct ucred cr = { .pid = 42, .uid = 1000, .gid = 100 };
	size_t off = CMSG_SPACE(sizeof(cr)), len = off + CMSG_SPACE(2 * sizeof(int));
	hs_listener_ctl_t got;
	unsigned fds = 0;
	(void)state;

	memset(m.b, 7, sizeof(m.b));
	h.cmsg_len = CMSG_LEN(sizeof(cr));
	h.cmsg_type = SCM_CREDENTIALS;
	memcpy(m.b, &h, sizeof(h));
	memcpy(m.b + CMSG_LEN(0), &cr, sizeof(cr));
	h.cmsg_len = CMSG_LEN(2 * sizeof(int));
	h.cmsg_type = SCM_RIGHTS;
	memcpy(m.b + off, &h, sizeof(h));
	/* well-formed: credentials, then two descriptors */
	hs_listener_ctl_parse(m.b, len, 0, 100, &got, count_fd, &fds);
	assert_true(got.has_cred);
	assert_int_equal(got.pid, 42);
	assert_int_equal(got.uid, 1000);
	assert_int_equal(got.gid, 100);
	assert_int_equal(got.passed_fds, 2);
	assert_int_equal(fds, 2);
	assert_true(got.sent == 100);
	/* SCM_RIGHTS claiming 16 descriptors, 2 in the buffer */
	h.cmsg_len = CMSG_LEN(16 * sizeof(int));
	memcpy(m.b + off, &h, sizeof(h));
	fds = 0;
	hs_listener_ctl_parse(m.b, len, 0, 100, &got, count_fd, &fds);
	assert_true(got.has_cred);
	assert_int_equal(got.passed_fds, 0);
	assert_int_equal(fds, 0);
	/* credentials cut short: the header says 28 bytes, 24 are there */
	hs_listener_ctl_parse(m.b, CMSG_LEN(sizeof(cr)) - 4, 0, 100, &got, count_fd, &fds);
	assert_false(got.has_cred);
	/* too short for a header, or empty */
	hs_listener_ctl_parse(m.b, sizeof(struct cmsghdr) - 1, 0, 100, &got, NULL, NULL);
	assert_false(got.has_cred);
	hs_listener_ctl_parse(m.b, 0, 0, 100, &got, NULL, NULL);
	assert_false(got.has_cred);
	assert_true(got.sent == 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(control_bounds),
		cmocka_unit_test(accept_and_estimate),
		cmocka_unit_test(drops),
		cmocka_unit_test(final_publish_bounded),
		cmocka_unit_test(foreign_senders),
		cmocka_unit_test(rate_budget),
		cmocka_unit_test(foreign_flood_spends_no_budget),
		cmocka_unit_test(client_library),
		cmocka_unit_test(stopped_reporter),
		cmocka_unit_test(failing_publish_backs_off),
		cmocka_unit_test(silent_job),
		cmocka_unit_test(stalled_listener),
		cmocka_unit_test(exiting_reporter),
		cmocka_unit_test(final_publish_retried),
		cmocka_unit_test(forked_child_no_exit_wait),
		cmocka_unit_test(flush_wait),
		cmocka_unit_test(duplicates_publish_nothing),
		cmocka_unit_test(repeated_ack_urgent_once),
		cmocka_unit_test(reack_after_quiet),
		cmocka_unit_test(urgent_publishes_bounded),
		cmocka_unit_test(pid_reuse_not_trusted),
	};
	return cmocka_run_group_tests_name("listener", tests, NULL, NULL);
}
