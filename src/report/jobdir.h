/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobdir.h — the per-job, per-node directory of spank_hetsched
 * (<socket_dir>/<jobid>.<tag>, default /run/hetsched/<jobid>.<tag>; the
 * tag names the slurmd, so that several slurmds on one host, as on a test
 * cluster, never share one), owned by root, where the steps of one job on
 * one node meet:
 *
 *   alive        every step of the job holds a shared flock on it while it
 *                runs; a step that gets it exclusively is the only one, so
 *                what the directory caches may be from an earlier
 *                incarnation of the job (a requeue keeps the job id)
 *   node         what the first step learnt from slurmctld (GPU type here,
 *                restart count), so later steps need no SHOW_DETAIL load
 *   listener.lock  flock held by the step whose listener serves the job on
 *                this node (one listener per job per node; the kernel
 *                drops the lock if that slurmstepd dies)
 *   report       the listener's socket: a filesystem socket owned by the
 *                job's user, mode 0600, so no other user can send to it
 *                (an abstract socket can be reached, and its queue filled,
 *                by anyone on the node)
 *   stepd.<pid>  the start time of the slurmstepd of each other step that
 *                reports through that listener: its processes are the job's
 *
 * The base and the job directory are root's, mode 0711 and checked to be
 * so; the job's user can reach the socket but create nothing. Every name
 * is opened relative to the directory, without following symlinks.
 * Slurm-free, so unit tests use a temporary base. Not thread-safe, except
 * hs_jobdir_is_stepd(), which the listener thread calls.
 */
#ifndef HS_REPORT_JOBDIR_H
#define HS_REPORT_JOBDIR_H

#include <stdint.h>
#include <sys/types.h>

#include "core/model.h"   /* hs_err_t */

/* Longest base directory and tag accepted: the staging name of the socket,
 * "<base>/<jobid>.<tag>/.s<16 hex>/s", must fit in sun_path (108 bytes). */
#define HS_JOBDIR_BASE_MAX 40
#define HS_JOBDIR_TAG_MAX 34
#define HS_JOBDIR_PATH_MAX 128
#define HS_JOBDIR_SOCKET "report"

typedef struct hs_jobdir {
	int dfd;                      /* the job's directory, or -1 */
	char path[HS_JOBDIR_PATH_MAX];/* "<base>/<jobid>.<tag>" */
	int alive_fd;                 /* "alive", flocked while the step runs */
	int owner_fd;                 /* "listener.lock" while we own it */
	ino_t sock_ino;               /* the socket we bound (0: none) */
	pid_t registered;             /* stepd.<pid> we wrote (0: none) */
} hs_jobdir_t;

/* Writes into tag (size > HS_JOBDIR_TAG_MAX) the tag of a slurmd: its
 * node name when it is at most 24 characters of [A-Za-z0-9_-], else a
 * hash of it, then "." and a hash of its configuration path (conf, may be
 * NULL or ""). */
void hs_jobdir_tag(const char *node, const char *conf, char *tag, size_t size);

/* Creates (if needed) and opens <base>/<job_id>.<tag>; base is created
 * when missing (not its parents). Both must be directories owned by this
 * process's effective uid without group or other write permission.
 * Returns 0, or -1 with a message (jd unusable, nothing to close). */
int hs_jobdir_open(hs_jobdir_t *jd, const char *base, uint32_t job_id, const char *tag,
		   hs_err_t *err);

/* Joins the job's steps on this node. Returns 1 when no other step of the
 * job runs here (the cache is stale: it was removed; the caller loads and
 * writes it, then calls hs_jobdir_joined), 0 when others do (the cache,
 * if present, is this incarnation's), -1 on error. Waits up to wait_s
 * while a first step loads. */
int hs_jobdir_join(hs_jobdir_t *jd, double wait_s, hs_err_t *err);
/* After join returned 1: lets the steps that wait in join go on. */
void hs_jobdir_joined(hs_jobdir_t *jd);

/* The cached facts (text, at most size - 1 bytes): 1 read, 0 none. */
int hs_jobdir_cache_read(hs_jobdir_t *jd, char *buf, size_t size);
int hs_jobdir_cache_write(hs_jobdir_t *jd, const char *text, hs_err_t *err);

/* Claims the job's listener on this node: 1 = ours (keep jd open while it
 * runs), 0 = another step's listener runs, -1 on error. */
int hs_jobdir_claim(hs_jobdir_t *jd, hs_err_t *err);

/* Binds the listener's socket (non-blocking, close-on-exec, in *fd) at
 * <dir>/report, owned by uid:gid with mode 0600: it is bound in a private
 * staging directory (root's, mode 0700), given to the user there and
 * renamed into place, so it is never reachable by others, not even for a
 * moment. path receives its name for HS_REPORT_SOCKET. 0, or -1. */
int hs_jobdir_bind(hs_jobdir_t *jd, uid_t uid, gid_t gid, int *fd, char *path, size_t size,
		   hs_err_t *err);

/* Waits up to wait_s for the socket of another step's listener; fills
 * path. 0, or -1 when it never appeared. */
int hs_jobdir_wait_socket(hs_jobdir_t *jd, double wait_s, char *path, size_t size);

/* Registers the slurmstepd pid (with start time start) of a step whose
 * processes report through the job's listener. 0, or -1. */
int hs_jobdir_register(hs_jobdir_t *jd, pid_t pid, unsigned long long start, hs_err_t *err);
/* 1 when pid with that start time registered (a slurmstepd of the job). */
int hs_jobdir_is_stepd(const hs_jobdir_t *jd, pid_t pid, unsigned long long start);

/* Leaves: removes our registration and our socket (if still ours),
 * releases the locks and closes. Safe on a closed or failed jd. */
void hs_jobdir_close(hs_jobdir_t *jd);

/* Removes <base>/<job_id>.<tag> and everything in it (the job epilog: no
 * step of the job runs on the node any more). 0 (also when absent), or -1. */
int hs_jobdir_remove(const char *base, uint32_t job_id, const char *tag, hs_err_t *err);

#endif /* HS_REPORT_JOBDIR_H */
