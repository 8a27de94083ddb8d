/* SPDX-License-Identifier: GPL-2.0-or-later */
/* listener.c — the report listener thread of spank_hetsched; see
 * listener.h for its contract and doc/protocol.md (b) for the rules. */
#define _GNU_SOURCE  /* struct ucred, SCM_CREDENTIALS */
#include "report/measure_err.h"
#include "report/listener.h"
#include "report/proc.h"
#include "report/wire.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PEER_CACHE 8
#define PEER_TTL 5.0          /* seconds a validated sender (pid and start
                               * time: one process) stays trusted */
#define START_SLACK 0.05      /* s: start times are whole clock ticks */
#define LOG_EVERY 10.0        /* seconds between drop summaries */
#define FINAL_TRIES 3         /* final publish attempts, ... */
#define FINAL_PAUSE_S 1       /* ... this many seconds apart, */
#define FINAL_BUDGET_S 5.0    /* ... no retry starting later than this */
#define FOREIGN_BATCH 256     /* foreign datagrams read in one drain() before
                               * the periodic work gets a turn */

typedef struct peer {
	pid_t pid;
	unsigned long long start;     /* its start time: the pid's process */
	double until;
} peer_t;

struct hs_listener {
	hs_listener_cfg_t cfg;
	int sock, stopfd;
	int stamped;                  /* SO_TIMESTAMPNS is on: send times */
	pthread_t thread;
	hs_est_t est;
	hs_listener_state_t st;
	hs_listener_counters_t cnt, cnt_logged;
	const char *first_reason;     /* of the drops since the last summary */
	peer_t peers[PEER_CACHE];
	pid_t last_pid;               /* last accepted sender: stop checks */
	double sec_start;             /* rate window */
	unsigned sec_count;
	double last_pub, last_ckpt_pub, last_log;
	double last_ack;              /* monotonic time of the last ckpt report */
	double urgent_start;          /* window of HS_LISTENER_URGENT_MAX */
	unsigned urgent_used;
	double boot_offset;           /* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
	double hz;                    /* clock ticks per second (start times) */
	/* dirty: the record's content changed (published with the periodic
	 * publish); ckpt_dirty: a new acknowledgement (urgent) */
	int dirty, ckpt_dirty, start_pending, first_pending;
	/* after a failed publish no other before retry_at; the pause doubles
	 * from one tick to publish_interval while they keep failing (each
	 * attempt is a load and an update of the job by root: slurmctld
	 * refusing them, e.g. for a job that ended, must not get them every
	 * tick from every step) */
	double retry_at, backoff;
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}


static void logf_(hs_listener_t *l, int is_err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void logf_(hs_listener_t *l, int is_err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!l->cfg.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->cfg.log(l->cfg.arg, is_err, msg);
}

void hs_listener_defaults(hs_listener_cfg_t *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->name_prefix = "hetsched";
	cfg->proc_root = "/proc";
	cfg->max_rate = 1000;
	cfg->publish_interval = 60;
	cfg->ckpt_min_interval = 1;
	cfg->tick = 0.2;
	cfg->fd = -1;
	hs_est_defaults(&cfg->est);
}

/* ---- sender checks ------------------------------------------------------ */

static int is_ancestor(void *arg, pid_t pid, unsigned long long start)
{
	hs_listener_t *l = arg;

	if (pid == l->cfg.ancestor)
		return 1;
	return l->cfg.ancestor_ok && l->cfg.ancestor_ok(l->cfg.arg, pid, start);
}

/* Is the sender a process of the job step (of the job, with ancestor_ok)?
 * Trust is tied to the process, not to its pid: the cache key is the pid
 * with the process's start time, read from /proc for every datagram, so a
 * pid reused by a process of another job (of the same user) is checked
 * anew, and a process that started after the datagram was sent (sent:
 * monotonic) cannot be its sender. Returns NULL when ok, else why not. */
static const char *peer_ok(hs_listener_t *l, const struct ucred *cr, double sent, double now)
{
	hs_proc_info_t in;
	int slot = 0;

	if (cr->uid != l->cfg.uid)
		return "sender is not the job's user";
	if (hs_proc_info(l->cfg.proc_root, cr->pid, &in) < 0)
		return "sender is gone";
	if ((double)in.start / l->hz - l->boot_offset > sent + START_SLACK)
		return "sender's pid was reused after it sent";
	for (int i = 0; i < PEER_CACHE; i++) {
		if (l->peers[i].pid == cr->pid && l->peers[i].start == in.start &&
		    l->peers[i].until > now)
			return NULL;
		if (l->peers[i].until < l->peers[slot].until)
			slot = i;
	}
	if (hs_proc_descends_any(l->cfg.proc_root, cr->pid, is_ancestor, l) != 1)
		return "sender is not a process of this job step";
	l->peers[slot].pid = cr->pid;
	l->peers[slot].start = in.start;
	l->peers[slot].until = now + PEER_TTL;
	return NULL;
}

/* ---- one datagram ------------------------------------------------------- */

static void drop(hs_listener_t *l, unsigned long *counter, const char *why)
{
	(*counter)++;
	if (!l->first_reason)
		l->first_reason = why;
}

/* Is the datagram from a process of this job step? Counts the drop when
 * not. sent: when it was sent, now: when read (monotonic). */
static int sender_ok(hs_listener_t *l, const struct ucred *cr, double sent, double now)
{
	const char *why;

	l->cnt.received++;
	if (!cr) {
		drop(l, &l->cnt.no_creds, "no sender credentials");
		return 0;
	}
	why = peer_ok(l, cr, sent, now);
	if (why) {
		drop(l, &l->cnt.foreign, why);
		return 0;
	}
	return 1;
}

/* A datagram from the job (sender_ok passed). sent: when it was sent (the
 * estimator's clock, see drain()), now: when read.
 *
 * Only news marks the record for publishing, and the times stored are
 * those of the news: a repeated step (data-parallel ranks all report the
 * same one) or a repeated acknowledgement changes nothing, so it costs no
 * RPC (each publish is a load and an update of the job by root). A new
 * checkpoint acknowledgement is urgent (the scheduler waits for it); one
 * of the same step counts (and is urgent) only when it comes more than
 * publish_interval after the previous acknowledgement (a new checkpoint
 * request while the job holds at that step); a repeat sooner is nothing
 * new. */
static void handle(hs_listener_t *l, const char *buf, ssize_t n, int truncated,
		   const struct ucred *cr, double sent, double now)
{
	hs_wire_report_t r;
	const char *why;
	int64_t wall = (int64_t)time(NULL);

	if (truncated)
		return drop(l, &l->cnt.truncated, "report longer than 255 bytes");
	if (hs_wire_parse(buf, (size_t)n, &r, &why) < 0)
		return drop(l, &l->cnt.malformed, why);
	l->cnt.accepted++;
	l->last_pid = cr->pid;
	if (r.has & HS_WIRE_HAS_STEP) {
		if (hs_est_report(&l->est, r.step, sent)) {
			l->st.ema = l->est.ema;
			l->st.n = l->est.n;
			l->st.new_samples = l->est.new_samples;
			l->st.sample_t = wall;
			l->dirty = 1;
			if (l->est.new_samples == 1)
				l->first_pending = 1;
		}
		if (!l->st.has_step || r.step > l->st.step ||
		    (r.step == l->st.step && (r.has & HS_WIRE_HAS_SAMPLES) &&
		     (!l->st.has_samples || r.samples != l->st.samples))) {
			l->st.has_step = 1;
			l->st.step = r.step;
			l->st.step_t = wall;
			l->st.has_samples = (r.has & HS_WIRE_HAS_SAMPLES) != 0;
			l->st.samples = l->st.has_samples ? r.samples : 0;
			l->dirty = 1;
		}
	}
	if (r.has & HS_WIRE_HAS_CKPT) {
		l->cnt.ckpts++;
		if (!l->st.has_ckpt || r.ckpt != l->st.ckpt ||
		    now - l->last_ack > l->cfg.publish_interval) {
			l->st.has_ckpt = 1;
			l->st.ckpt = r.ckpt;
			l->st.ckpt_t = wall;
			l->ckpt_dirty = 1;
		}
		l->last_ack = now;
	}
}

/* ---- control messages --------------------------------------------------- */

void hs_listener_ctl_parse(const void *control, size_t len, double offset, double now,
			   hs_listener_ctl_t *out, void (*passed_fd)(void *arg, int fd),
			   void *arg)
{
	/* the CMSG_* macros walk a msghdr; they only read through it */
	struct msghdr mh = { .msg_control = (void *)control, .msg_controllen = len };

	memset(out, 0, sizeof(*out));
	out->sent = now;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		/* CMSG_FIRSTHDR/NXTHDR only check that a header fits; the
		 * kernel never writes a cmsg_len past the buffer, but nothing
		 * after it is read when one does */
		if (c->cmsg_len > len - (size_t)((const unsigned char *)c -
						 (const unsigned char *)control))
			break;
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
			struct ucred cr;

			memcpy(&cr, CMSG_DATA(c), sizeof(cr));
			out->has_cred = 1;
			out->pid = cr.pid;
			out->uid = cr.uid;
			out->gid = cr.gid;
		} else if (c->cmsg_type == SCM_TIMESTAMPNS &&
			   c->cmsg_len == CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;
			double t;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			t = (double)ts.tv_sec + ts.tv_nsec * 1e-9 - offset;
			if (t <= now && now - t <= HS_LISTENER_MAX_QUEUE_AGE)
				out->sent = t;
		} else if (c->cmsg_type == SCM_RIGHTS) {
			/* the control buffer is sized so the kernel has no room
			 * to install passed descriptors; this is the backstop */
			for (size_t i = 0; CMSG_LEN((i + 1) * sizeof(int)) <= c->cmsg_len; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
				out->passed_fds++;
				if (passed_fd)
					passed_fd(arg, fd);
			}
		}
	}
}

static void close_passed_fd(void *arg, int fd)
{
	(void)arg;
	close(fd);
}

/* Reads every queued datagram, within the per-second budget. Returns 1
 * when the budget is exhausted.
 *
 * Two rules make the estimate independent of when this thread gets to
 * read (it is busy in publish()'s RPCs to slurmctld, or descheduled on a
 * loaded node, for seconds at times):
 *  - reports are timed by the kernel when they were SENT (SO_TIMESTAMPNS,
 *    taken in the sender's send(), so a sender cannot forge it). Timed at
 *    read, a stall of more than gap_min_s read as a gap (excluded) and the
 *    steps queued meanwhile then counted in ~0 s: a 1 s stall put a 1 s
 *    window of v100 reports ~2x too high;
 *  - a datagram is first peeked, its sender checked, and only then
 *    consumed. Senders that exit right after reporting (the hetsched-report
 *    command, a program's last report) wait until their datagrams are
 *    consumed (report.c), so they are still alive when /proc is asked
 *    about them; read first, such reports were dropped as "foreign" when
 *    the sender had exited in between.
 * Only the job's own datagrams count against the per-second budget: the
 * sender is checked first, so other local users cannot spend the job's
 * budget and delay its reports and checkpoint acknowledgements. Foreign
 * datagrams are read and dropped at once (a uid comparison, or one
 * /proc walk for the same user's other processes); after FOREIGN_BATCH
 * of them drain() returns so the periodic work (publishes) still runs
 * under a flood. */
static int drain(hs_listener_t *l)
{
	struct timespec rt, mt, bt;
	double offset;
	unsigned foreign = 0;

	/* realtime - monotonic, once per drain so send times keep their order */
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	offset = ((double)rt.tv_sec + rt.tv_nsec * 1e-9) - ((double)mt.tv_sec + mt.tv_nsec * 1e-9);
	/* process start times count from boot (suspend included) */
	l->boot_offset = ((double)bt.tv_sec + bt.tv_nsec * 1e-9) -
			 ((double)mt.tv_sec + mt.tv_nsec * 1e-9);
	for (;;) {
		char buf[HS_WIRE_MAX + 1], one;
		union {
			struct cmsghdr align;
			char b[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(struct ucred))];
		} ctl;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.b,
			/* exactly what is expected: no room for passed fds */
			.msg_controllen = (l->stamped ? CMSG_SPACE(sizeof(struct timespec)) : 0) +
					  CMSG_SPACE(sizeof(struct ucred)),
		};
		struct ucred crbuf;
		const struct ucred *cr = NULL;
		hs_listener_ctl_t got;
		double now = mono_now(), sent;
		ssize_t n;

		if (now - l->sec_start >= 1.0) {
			l->sec_start = now;
			l->sec_count = 0;
		}
		if (l->sec_count >= l->cfg.max_rate)
			return 1;
		n = recvmsg(l->sock, &mh, MSG_PEEK | MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return 0;  /* EAGAIN, or an error poll will report again */
		}
		hs_listener_ctl_parse(mh.msg_control, mh.msg_controllen, offset, now, &got,
				      close_passed_fd, NULL);
		if (got.has_cred) {
			crbuf.pid = got.pid;
			crbuf.uid = got.uid;
			crbuf.gid = got.gid;
			cr = &crbuf;
		}
		sent = got.sent;
		int ours = sender_ok(l, cr, sent, now);

		if (ours) {
			l->sec_count++;
			handle(l, buf, n, (mh.msg_flags & MSG_TRUNC) != 0, cr, sent, now);
		}
		/* consume it; no control buffer, so nothing more is installed */
		while (recv(l->sock, &one, 1, MSG_DONTWAIT) < 0 && errno == EINTR)
			;
		if (!ours && ++foreign >= FOREIGN_BATCH)
			return 0;
	}
}

/* ---- periodic work ------------------------------------------------------ */

static void log_drops(hs_listener_t *l, double now, int force)
{
	hs_listener_counters_t *c = &l->cnt, *o = &l->cnt_logged;
	unsigned long dropped = (c->malformed - o->malformed) + (c->truncated - o->truncated) +
				(c->foreign - o->foreign) + (c->no_creds - o->no_creds);

	if (!dropped || (!force && now - l->last_log < LOG_EVERY))
		return;
	logf_(l, 1, "dropped %lu report(s): %lu malformed, %lu oversized, %lu from "
	      "foreign senders, %lu without credentials; first: %s",
	      dropped, c->malformed - o->malformed, c->truncated - o->truncated,
	      c->foreign - o->foreign, c->no_creds - o->no_creds,
	      l->first_reason ? l->first_reason : "?");
	*o = *c;
	l->first_reason = NULL;
	l->last_log = now;
}

/* May an urgent publish run now? At most HS_LISTENER_URGENT_MAX per
 * publish_interval, attempts counted (a failed one made its RPCs too). */
static int urgent_allowed(hs_listener_t *l, double now)
{
	if (now - l->urgent_start >= l->cfg.publish_interval) {
		l->urgent_start = now;
		l->urgent_used = 0;
	}
	return l->urgent_used < HS_LISTENER_URGENT_MAX;
}

static void publish(hs_listener_t *l, hs_publish_why_t why, double now)
{
	if (!l->cfg.publish)
		return;
	/* the final publish has its own bounded retries (run()) */
	if (why != HS_PUB_FINAL && now < l->retry_at)
		return;
	if (why == HS_PUB_CKPT)
		l->urgent_used++;
	if (l->cfg.publish(l->cfg.arg, &l->st, why) < 0) {
		double cap = l->cfg.publish_interval > l->cfg.tick ? l->cfg.publish_interval
								    : l->cfg.tick;
		l->backoff = l->backoff > 0 ? 2 * l->backoff : l->cfg.tick;
		if (l->backoff > cap)
			l->backoff = cap;
		l->retry_at = now + l->backoff;
		return;  /* keep the flags: offered again later */
	}
	l->backoff = 0;
	l->retry_at = 0;
	switch (why) {
	case HS_PUB_START:
		l->start_pending = 0;
		break;
	case HS_PUB_CKPT:
		l->ckpt_dirty = 0;
		l->last_ckpt_pub = now;
		break;
	default:
		l->dirty = l->ckpt_dirty = l->first_pending = 0;
		break;
	}
	if (why != HS_PUB_CKPT)
		l->last_pub = now;
}

static void periodic(hs_listener_t *l, double now)
{
	if (l->last_pid > 0 && hs_proc_stopped(l->cfg.proc_root, l->last_pid) == 1)
		hs_est_stopped(&l->est);
	if (l->start_pending && now - l->last_pub >= l->cfg.ckpt_min_interval)
		publish(l, HS_PUB_START, now);
	if (l->ckpt_dirty && now - l->last_ckpt_pub >= l->cfg.ckpt_min_interval &&
	    urgent_allowed(l, now))
		publish(l, HS_PUB_CKPT, now);
	if (l->first_pending && now - l->last_pub >= l->cfg.ckpt_min_interval)
		publish(l, HS_PUB_FIRST, now);
	/* an acknowledgement beyond the urgent budget waits for this one */
	if ((l->dirty || l->ckpt_dirty) && now - l->last_pub >= l->cfg.publish_interval)
		publish(l, HS_PUB_PERIODIC, now);
	log_drops(l, now, 0);
}

static void *run(void *arg)
{
	hs_listener_t *l = arg;
	int throttled = 0;

	l->start_pending = 1;
	l->last_pub = l->last_ckpt_pub = l->last_ack = l->urgent_start = -1e9;
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = l->stopfd, .events = POLLIN },
			{ .fd = throttled ? -1 : l->sock, .events = POLLIN },
		};
		double now = mono_now();
		int ms = (int)(l->cfg.tick * 1000);

		if (throttled) {
			/* wait for the next rate second at most */
			int left = (int)((l->sec_start + 1.0 - now) * 1000) + 1;

			if (left < ms)
				ms = left > 0 ? left : 0;
		}
		if (poll(pfd, 2, ms) < 0 && errno != EINTR) {
			logf_(l, 1, "poll failed: %s; listener stops", strerror(errno));
			break;
		}
		if (pfd[0].revents)
			break;
		throttled = drain(l);
		if (throttled)
			l->cnt.throttled++;
		periodic(l, mono_now());
	}
	/* The final publish has no "later": a failure (slurmctld busy or
	 * slow to answer on a loaded machine) is retried a few times, so the
	 * last step and acknowledgement are not lost. slurmstepd waits for it
	 * before it tells srun the tasks ended, and one attempt can take two
	 * RPCs of up to MessageTimeout each: a retry starts only within
	 * FINAL_BUDGET_S of the first attempt, so an unreachable slurmctld
	 * costs one attempt, not FINAL_TRIES of them. */
	double final_start = mono_now();

	for (int i = 0; i < FINAL_TRIES &&
	     (l->dirty || l->ckpt_dirty || l->first_pending || l->start_pending); i++) {
		if (i) {
			struct timespec pause = { FINAL_PAUSE_S, 0 };

			if (mono_now() + FINAL_PAUSE_S - final_start > FINAL_BUDGET_S)
				break;
			nanosleep(&pause, NULL);
		}
		publish(l, HS_PUB_FINAL, mono_now());
	}
	log_drops(l, mono_now(), 1);
	return NULL;
}

/* ---- start / stop ------------------------------------------------------- */

static int make_socket(hs_listener_t *l, char *name, size_t size, hs_err_t *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned char nonce[8];
	char hex[17];
	int one = 1, rcvbuf = 256 * 1024, n;
	socklen_t len;

	if (l->cfg.fd >= 0) {
		/* bound by the caller (a filesystem socket only the job's user
		 * may write to, see spank_hetsched); only the options here */
		l->sock = l->cfg.fd;
		if (name && size)
			name[0] = '\0';
		if (setsockopt(l->sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
			return hs_measure_err(err, "SO_PASSCRED: %s", strerror(errno));
		(void)setsockopt(l->sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
		l->stamped = setsockopt(l->sock, SOL_SOCKET, SO_TIMESTAMPNS, &one,
					sizeof(one)) == 0;
		return 0;
	}
	if (!name)
		return hs_measure_err(err, "no buffer for the socket name");
	if (getrandom(nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce))
		return hs_measure_err(err, "getrandom: %s", strerror(errno));
	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", nonce[i]);
	/* '@' in the printed name stands for the leading NUL of the
	 * abstract namespace. */
	n = snprintf(name, size, "@%s.%s", l->cfg.name_prefix, hex);
	if (n < 0 || (size_t)n >= size || (size_t)n > sizeof(sa.sun_path))
		return hs_measure_err(err, "socket name too long");
	memcpy(sa.sun_path + 1, name + 1, (size_t)n - 1);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n);
	l->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->sock < 0)
		return hs_measure_err(err, "socket: %s", strerror(errno));
	if (setsockopt(l->sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
		return hs_measure_err(err, "SO_PASSCRED: %s", strerror(errno));
	(void)setsockopt(l->sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* send times (see drain()); without them, read times */
	l->stamped = setsockopt(l->sock, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) == 0;
	if (bind(l->sock, (struct sockaddr *)&sa, len) < 0)
		return hs_measure_err(err, "bind %s: %s", name, strerror(errno));
	return 0;
}

static void free_listener(hs_listener_t *l)
{
	if (l->sock >= 0)
		close(l->sock);
	if (l->stopfd >= 0)
		close(l->stopfd);
	free(l);
}

hs_listener_t *hs_listener_start(const hs_listener_cfg_t *cfg, char *name,
				 size_t size, hs_err_t *err)
{
	hs_listener_t *l = calloc(1, sizeof(*l));
	int rc;

	if (!l) {
		hs_measure_err(err, "out of memory");
		if (cfg->fd >= 0)
			close(cfg->fd);
		return NULL;
	}
	l->cfg = *cfg;
	l->sock = l->stopfd = -1;
	if (!l->cfg.proc_root)
		l->cfg.proc_root = "/proc";
	if (!l->cfg.name_prefix)
		l->cfg.name_prefix = "hetsched";
	if (l->cfg.max_rate == 0)
		l->cfg.max_rate = 1000;
	if (!(l->cfg.tick > 0 && l->cfg.tick <= 10))
		l->cfg.tick = 0.2;
	if (!(l->cfg.publish_interval >= 0) || !isfinite(l->cfg.publish_interval))
		l->cfg.publish_interval = 60;
	if (!(l->cfg.ckpt_min_interval >= 0) || !isfinite(l->cfg.ckpt_min_interval))
		l->cfg.ckpt_min_interval = 1;
	l->hz = (double)sysconf(_SC_CLK_TCK);
	if (!(l->hz > 0))
		l->hz = 100;
	hs_est_init(&l->est, &l->cfg.est);
	hs_est_seed(&l->est, l->cfg.seed_sps, l->cfg.seed_n);
	l->st.ema = l->est.ema;
	l->st.n = l->est.n;
	if (make_socket(l, name, size, err) < 0) {
		free_listener(l);
		return NULL;
	}
	l->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->stopfd < 0) {
		hs_measure_err(err, "eventfd: %s", strerror(errno));
		free_listener(l);
		return NULL;
	}
	l->sec_start = mono_now();
	rc = pthread_create(&l->thread, NULL, run, l);
	if (rc) {
		hs_measure_err(err, "pthread_create: %s", strerror(rc));
		free_listener(l);
		return NULL;
	}
	return l;
}

void hs_listener_stop(hs_listener_t *l, hs_listener_counters_t *counters,
		      hs_listener_state_t *final_state)
{
	uint64_t one = 1;

	if (!l)
		return;
	while (write(l->stopfd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(l->thread, NULL);
	if (counters) {
		*counters = l->cnt;
		counters->excluded_stop = l->est.excluded_stop;
		counters->excluded_gap = l->est.excluded_gap;
		counters->excluded_fast = l->est.excluded_fast;
		counters->duplicates = l->est.duplicates;
	}
	if (final_state)
		*final_state = l->st;
	free_listener(l);
}
