/* SPDX-License-Identifier: GPL-2.0-or-later */
/* listener.h — the report listener that spank_hetsched runs inside
 * slurmstepd: a Unix datagram socket (a filesystem socket bound by the
 * caller, see jobdir.h; or an abstract one, for tests) plus one thread that
 * receives reports (wire.h), checks who sent them (proc.h), feeds the
 * estimator (estimator.h) and calls a publish callback at a bounded rate.
 *
 * Robustness rules (it runs as root inside slurmstepd):
 *  - the socket is non-blocking and close-on-exec; every datagram is read
 *    into a fixed buffer; oversized, malformed or foreign ones are dropped
 *    and counted, and a summary is logged at most once per 10 s;
 *  - a sender is the job's when its uid is the job's and it descends
 *    from the step's slurmstepd (or a registered one), checked by pid and
 *    process start time; only news is published, with a bounded number of
 *    urgent publishes (HS_LISTENER_URGENT_MAX);
 *  - at most max_rate datagrams from the job step's own processes are
 *    processed per second; beyond that the socket is not read until the
 *    next second (senders see EAGAIN). The sender is checked before a
 *    datagram counts, so foreign senders cannot spend the job's budget;
 *  - nothing here opens a path; the only files read are /proc/<pid>/stat;
 *  - hs_listener_stop() wakes the thread through an eventfd, lets it make
 *    the final publish (retried up to 3 times, 1 s apart, when it fails)
 *    and joins it, so no code runs after the plugin is
 *    unloaded.
 * Slurm-free: the plugin supplies the publish and log callbacks, and unit
 * tests drive it in-process.
 */
#ifndef HS_REPORT_LISTENER_H
#define HS_REPORT_LISTENER_H

#include <stdint.h>
#include <sys/types.h>

#include "core/model.h"       /* hs_err_t */
#include "report/estimator.h"

#define HS_SOCKNAME_MAX 108   /* sizeof(sun_path), '@' and NUL included */

/* What the listener knows, handed to the publish callback. Times are unix
 * seconds. */
typedef struct hs_listener_state {
	double ema;                   /* steps/s, valid when n > 0 */
	unsigned long n;              /* samples behind ema (seed included) */
	unsigned long new_samples;    /* samples measured by this step */
	int64_t sample_t;             /* time of the last sample */
	int has_step, has_samples;
	uint64_t step, samples;       /* highest cumulative step reported */
	int64_t step_t;
	int has_ckpt;
	uint64_t ckpt;                /* last acknowledged checkpoint */
	int64_t ckpt_t;
} hs_listener_state_t;

typedef enum hs_publish_why {
	HS_PUB_START,                 /* the step started (history entry) */
	HS_PUB_FIRST,                 /* the first sample of this step */
	HS_PUB_PERIODIC,              /* publish_interval elapsed, news to tell */
	HS_PUB_CKPT,                  /* a checkpoint acknowledgement */
	HS_PUB_FINAL,                 /* the step ends */
} hs_publish_why_t;

typedef struct hs_listener_counters {
	unsigned long received;       /* datagrams read */
	unsigned long accepted;       /* valid reports from the job */
	unsigned long malformed, truncated, foreign, no_creds;  /* dropped */
	unsigned long throttled;      /* times the per-second budget ran out */
	unsigned long ckpts;          /* checkpoint acknowledgements */
	/* estimator: intervals excluded (stopped, gap, too fast), duplicates */
	unsigned long excluded_stop, excluded_gap, excluded_fast, duplicates;
} hs_listener_counters_t;

typedef struct hs_listener_cfg {
	const char *name_prefix;      /* e.g. "hetsched.123.0"; a random
	                               * nonce is appended */
	uid_t uid;                    /* only this sender uid is accepted */
	pid_t ancestor;               /* senders must descend from this pid ... */
	/* ... or from a process for which this returns non-zero (may be
	 * NULL): the slurmstepd of another step of the same job on this node
	 * that shares this listener (start = its start time, see proc.h) */
	int (*ancestor_ok)(void *arg, pid_t pid, unsigned long long start);
	int fd;                       /* a bound SOCK_DGRAM socket to listen on
	                               * (taken over, closed at stop), or -1
	                               * (default): an abstract socket named
	                               * name_prefix + nonce */
	const char *proc_root;        /* "/proc" */
	unsigned max_rate;            /* datagrams per second (default 1000) */
	double publish_interval;      /* seconds (default 60) */
	double ckpt_min_interval;     /* seconds between urgent publishes (1) */
	double tick;                  /* seconds between stop checks (0.2) */
	hs_est_params_t est;
	double seed_sps;              /* earlier EMA on this GPU type, 0 = none */
	unsigned long seed_n;
	/* Called from the listener thread. Returns 0 when published; on -1 the
	 * same news is offered again at the next interval. */
	int (*publish)(void *arg, const hs_listener_state_t *st, hs_publish_why_t why);
	/* Log line from the listener thread; err != 0 for errors. */
	void (*log)(void *arg, int err, const char *msg);
	void *arg;
} hs_listener_cfg_t;

typedef struct hs_listener hs_listener_t;

/* A send time older than this (s) or in the future is a clock step: the
 * read time is used instead. */
#define HS_LISTENER_MAX_QUEUE_AGE 60.0

/* Urgent publishes (a checkpoint acknowledgement, published at once
 * rather than with the periodic publish) allowed per publish_interval:
 * a real job acknowledges once per checkpoint request, so this only
 * bounds what a job that sends acknowledgements in a loop costs root and
 * slurmctld (two RPCs per publish). */
#define HS_LISTENER_URGENT_MAX 2

/* What the kernel attached to one datagram, decoded from its control
 * buffer by hs_listener_ctl_parse(). */
typedef struct hs_listener_ctl {
	int has_cred;                 /* SCM_CREDENTIALS of the right size */
	pid_t pid;                    /* the sender's, when has_cred */
	uid_t uid;
	gid_t gid;
	double sent;                  /* send time (SCM_TIMESTAMPNS) on the
	                               * monotonic clock when it is within
	                               * HS_LISTENER_MAX_QUEUE_AGE before now,
	                               * else now */
	unsigned passed_fds;          /* descriptors found in SCM_RIGHTS */
} hs_listener_ctl_t;

/* Decodes the control buffer [control, control + len) that recvmsg()
 * filled for one datagram (aligned as a struct cmsghdr), read at monotonic
 * time now; offset = realtime - monotonic clock. Each descriptor a sender
 * passed (SCM_RIGHTS) is handed to passed_fd (the listener closes it; may
 * be NULL). No socket, no clock: the listener thread uses it and
 * tests/fuzz/fuzz_listener.c fuzzes it. Fills *out whatever the bytes. */
void hs_listener_ctl_parse(const void *control, size_t len, double offset, double now,
			   hs_listener_ctl_t *out, void (*passed_fd)(void *arg, int fd),
			   void *arg);

/* Fills cfg with defaults (no callbacks, proc_root "/proc"). */
void hs_listener_defaults(hs_listener_cfg_t *cfg);

/* Creates the socket (or takes cfg->fd) and starts the thread. name
 * receives the abstract socket's name as put in HS_REPORT_SOCKET ("@..."),
 * size >= HS_SOCKNAME_MAX; with cfg->fd, name may be NULL and is set to "".
 * Returns NULL with a message on failure (nothing left behind; cfg->fd is
 * closed). */
hs_listener_t *hs_listener_start(const hs_listener_cfg_t *cfg, char *name,
				 size_t size, hs_err_t *err);

/* Stops the thread (after its final publish), closes the socket, copies
 * the counters if wanted, and frees everything. NULL is a no-op. */
void hs_listener_stop(hs_listener_t *l, hs_listener_counters_t *counters,
		      hs_listener_state_t *final_state);

#endif /* HS_REPORT_LISTENER_H */
