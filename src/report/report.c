/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c — libhetsched-report: the job-side client of the report
 * protocol (hetsched/report.h, doc/protocol.md (b) and (d)).
 *
 * Process-wide state by necessity: a signal handler can only set a global
 * flag, and the reporter must be callable from anywhere in a training
 * program without threading a handle through it. It is initialised once
 * (pthread_once) and touched afterwards only through atomics. */
#include "hetsched/report.h"
#include "report/wire.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>  /* SIOCOUTQ */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_MIN_INTERVAL_US 10000ULL
#define DEFAULT_HOLD_S 120UL
#define MAX_HOLD_S 86400UL
/* At exit: how long to retry a last report the busy listener refused, then
 * how long to wait for the listener to read what was sent (see
 * flush_at_exit). Bounds, reached only while the listener is stuck. */
#define EXIT_RETRY_MS 2000U
#define EXIT_WAIT_NS 5000000000ULL
#define RETRY_SLICE_NS 10000000L

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int sock = -1;                      /* connected datagram socket */
static uint64_t min_interval_ns;
static atomic_uint_fast64_t last_sent_ns;  /* 0 = never */
static atomic_uint_fast64_t pending_step, pending_samples;
static atomic_int pending;                 /* 0 none, 1 step, 2 step+samples */
static atomic_uint_fast64_t pending_ckpt;  /* an acknowledgement the listener
                                            * refused: step + 1, 0 = none */
static atomic_ulong n_sent, n_coalesced, n_dropped, n_noop;
static volatile sig_atomic_t ckpt_flag;
static pid_t owner_pid;                    /* the process that opened sock */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Parses a decimal environment value in [lo, hi], else returns def. */
static unsigned long long env_ull(const char *name, unsigned long long lo,
				  unsigned long long hi, unsigned long long def)
{
	const char *s = getenv(name);
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || s[0] == '-' || v < lo || v > hi)
		return def;
	return v;
}

static void sleep_slice(void)
{
	struct timespec ts = { 0, RETRY_SLICE_NS };

	nanosleep(&ts, NULL);
}

/* Bytes this process sent that the listener has not read yet (a Unix
 * datagram stays charged to its sender until it is received). */
static int unread_bytes(void)
{
	int n = 0;

	return ioctl(sock, SIOCOUTQ, &n) == 0 ? n : 0;
}

/* The last report must not be lost when the program ends: a pending one
 * the listener refused (its queue was full) is retried for a while, and
 * the exit waits until the listener has read what was sent, because the
 * listener checks in /proc that a report's sender belongs to the job and
 * drops reports of a sender that is already gone (one `hetsched-report`
 * command per step, a program's final report).
 * A forked child (a data loader worker, a shell pipeline) inherits the
 * socket and this handler: it skips both, since it would otherwise wait
 * at its exit for the reports of its parent, which still runs. */
static void flush_at_exit(void)
{
	uint64_t end;

	if (getpid() != owner_pid)
		return;
	(void)hs_report_flush_wait(EXIT_RETRY_MS);
	end = mono_ns() + EXIT_WAIT_NS;
	while (unread_bytes() > 0 && mono_ns() < end)
		sleep_slice();
}

static void init(void)
{
	const char *name = getenv("HS_REPORT_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	min_interval_ns = 1000ULL * env_ull("HS_REPORT_MIN_INTERVAL_US", 0, 60000000ULL,
					     DEFAULT_MIN_INTERVAL_US);
	if (!name || !*name)
		return;
	len = strlen(name);
	if (len > sizeof(sa.sun_path))
		return;
	/* "@name" is the abstract namespace (leading NUL), else a path. */
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	else if (len == sizeof(sa.sun_path))
		return;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0) {
		close(fd);
		return;
	}
	sock = fd;
	owner_pid = getpid();
	/* a coalesced last report must not be lost when the job ends */
	atexit(flush_at_exit);
}

int hs_report_active(void)
{
	pthread_once(&once, init);
	return sock >= 0;
}

static int send_report(const hs_wire_report_t *r)
{
	char buf[HS_WIRE_MAX + 1];
	int n = hs_wire_format(r, buf, sizeof(buf));

	if (n < 0) {
		errno = EINVAL;
		return -1;
	}
	if (send(sock, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n) {
		int e = errno;

		atomic_fetch_add_explicit(&n_dropped, 1, memory_order_relaxed);
		if (e == EAGAIN || e == EWOULDBLOCK) {
			/* The listener is busy (its queue is full): keep what
			 * this datagram said for the next one, unless a newer
			 * report is already waiting (reports are cumulative). */
			if ((r->has & HS_WIRE_HAS_STEP) && !atomic_load(&pending)) {
				atomic_store(&pending_step, r->step);
				atomic_store(&pending_samples, r->samples);
				atomic_store(&pending, (r->has & HS_WIRE_HAS_SAMPLES) ? 2 : 1);
			}
			if (r->has & HS_WIRE_HAS_CKPT)
				atomic_store(&pending_ckpt, r->ckpt + 1);
		}
		errno = e;
		return -1;
	}
	atomic_fetch_add_explicit(&n_sent, 1, memory_order_relaxed);
	return 0;
}

/* Adds a refused checkpoint acknowledgement, if any, to r. */
static int take_pending_ckpt(hs_wire_report_t *r)
{
	uint_fast64_t c = atomic_exchange(&pending_ckpt, 0);

	if (!c)
		return 0;
	r->has |= HS_WIRE_HAS_CKPT;
	r->ckpt = c - 1;
	return 1;
}

/* Takes the pending coalesced (or refused) report, if any, into r. */
static int take_pending(hs_wire_report_t *r)
{
	int p = atomic_exchange(&pending, 0), c = take_pending_ckpt(r);

	if (!p)
		return c;
	r->has |= HS_WIRE_HAS_STEP | (p == 2 ? HS_WIRE_HAS_SAMPLES : 0);
	r->step = atomic_load(&pending_step);
	r->samples = atomic_load(&pending_samples);
	return 1;
}

static int report(uint64_t step, int has_samples, uint64_t samples)
{
	hs_wire_report_t r = { .has = HS_WIRE_HAS_STEP, .step = step };
	uint64_t now, last;

	if (!hs_report_active()) {
		atomic_fetch_add_explicit(&n_noop, 1, memory_order_relaxed);
		return 1;
	}
	if (step > HS_WIRE_VALUE_MAX || (has_samples && samples > HS_WIRE_VALUE_MAX)) {
		errno = ERANGE;
		return -1;
	}
	now = mono_ns();
	last = atomic_load_explicit(&last_sent_ns, memory_order_relaxed);
	if ((last && now - last < min_interval_ns) ||
	    !atomic_compare_exchange_strong(&last_sent_ns, &last, now)) {
		/* Too soon (or another thread is sending): keep the latest
		 * cumulative values; a later call sends them. */
		atomic_store(&pending_step, step);
		atomic_store(&pending_samples, samples);
		atomic_store(&pending, has_samples ? 2 : 1);
		atomic_fetch_add_explicit(&n_coalesced, 1, memory_order_relaxed);
		return 0;
	}
	atomic_store(&pending, 0);
	take_pending_ckpt(&r);
	if (has_samples) {
		r.has |= HS_WIRE_HAS_SAMPLES;
		r.samples = samples;
	}
	return send_report(&r);
}

int hs_report_step(uint64_t step)
{
	return report(step, 0, 0);
}

int hs_report_step_samples(uint64_t step, uint64_t samples)
{
	return report(step, 1, samples);
}

int hs_report_flush(void)
{
	hs_wire_report_t r = { 0 };

	if (!hs_report_active())
		return 1;
	if (!take_pending(&r))
		return 0;
	atomic_store(&last_sent_ns, mono_ns());
	return send_report(&r);
}

int hs_report_flush_wait(unsigned timeout_ms)
{
	uint64_t end = mono_ns() + (uint64_t)timeout_ms * 1000000ULL;
	int rc;

	while ((rc = hs_report_flush()) < 0 && errno == EAGAIN && mono_ns() < end)
		sleep_slice();
	return rc;
}

int hs_report_checkpoint(uint64_t step)
{
	hs_wire_report_t r = { 0 };

	ckpt_flag = 0;
	if (!hs_report_active()) {
		atomic_fetch_add_explicit(&n_noop, 1, memory_order_relaxed);
		return 1;
	}
	if (step > HS_WIRE_VALUE_MAX) {
		errno = ERANGE;
		return -1;
	}
	/* One datagram: the pending progress (if any) and the acknowledgement. */
	take_pending(&r);
	r.has |= HS_WIRE_HAS_CKPT;
	r.ckpt = step;
	return send_report(&r);
}

/* ---- checkpoint signal -------------------------------------------------- */

static void on_ckpt_signal(int sig)
{
	(void)sig;
	ckpt_flag = 1;
}

/* The checkpoint signal: HS_CKPT_SIGNAL when it is a safe choice, else
 * SIGURG (ignored by default, so bystanders survive it). */
static int ckpt_signal(void)
{
	int sig = (int)env_ull("HS_CKPT_SIGNAL", 1, 64, SIGURG);

	switch (sig) {
	case SIGKILL: case SIGSTOP: case SIGTSTP: case SIGCONT: case SIGTERM:
	case SIGINT: case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL:
	case SIGABRT: case SIGCHLD: case SIGPIPE: case SIGTTIN: case SIGTTOU:
		return SIGURG;
	default:
		return sig;
	}
}

int hs_report_ckpt_watch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_ckpt_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	return sigaction(ckpt_signal(), &sa, NULL);
}

int hs_report_ckpt_requested(void)
{
	return ckpt_flag != 0;
}

unsigned hs_report_ckpt_hold(void)
{
	unsigned long hold = env_ull("HS_CKPT_HOLD", 0, MAX_HOLD_S, DEFAULT_HOLD_S);
	uint64_t start = mono_ns(), end = start + hold * 1000000000ULL;

	/* An acknowledgement the busy listener refused is what the scheduler
	 * waits for during the hold: retry it first (bounded). */
	if (atomic_load(&pending_ckpt))
		(void)hs_report_flush_wait(EXIT_RETRY_MS);
	for (;;) {
		uint64_t now = mono_ns();
		struct timespec ts;

		if (now >= end)
			break;
		ts.tv_sec = (time_t)((end - now) / 1000000000ULL);
		ts.tv_nsec = (long)((end - now) % 1000000000ULL);
		if (nanosleep(&ts, NULL) < 0 && errno == EINTR) {
			/* A repeated checkpoint signal keeps holding; any other
			 * caught signal (say SIGTERM with a handler) ends the
			 * hold so the program can act on it. */
			if (!ckpt_flag)
				break;
			ckpt_flag = 0;
		}
	}
	return (unsigned)((mono_ns() - start) / 1000000000ULL);
}

/* ---- environment -------------------------------------------------------- */

static const char *env_nonempty(const char *name)
{
	const char *s = getenv(name);

	return s && *s ? s : NULL;
}

const char *hs_report_gpu_type(void)
{
	return env_nonempty("HS_GPU_TYPE");
}

int hs_report_gpu_shared(void)
{
	return env_ull("HS_GPU_SHARED", 0, 1, 0) == 1;
}

const char *hs_report_ckpt_dir(void)
{
	return env_nonempty("HS_CKPT_DIR");
}

unsigned hs_report_restart_count(void)
{
	return (unsigned)env_ull("HS_RESTART_COUNT", 0, 1000000, 0);
}

void hs_report_get_stats(hs_report_stats_t *s)
{
	s->sent = atomic_load(&n_sent);
	s->coalesced = atomic_load(&n_coalesced);
	s->dropped = atomic_load(&n_dropped);
	s->noop = atomic_load(&n_noop);
}
