/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status_private.h — the status document under slurm.conf's
 * PrivateData=jobs (see hetsched-status(1)). Slurm then shows users only
 * their own jobs; the status document must not show them more:
 *   - the full document (every job, with "user_id") is written mode 0600,
 *     readable by slurmctld's user (SlurmUser) and root only, and says
 *     "private_jobs": true;
 *   - beside it a public summary "<name>.public.json" (mode 0644): the
 *     same document without "jobs" and "ops" (cluster, round and total
 *     counts only);
 *   - per user with jobs, "<name>.users/<uid>.json" (mode 0600, owned
 *     by that user; only when slurmctld runs as root): the document
 *     with only that user's jobs, for `hetsched job` and `hetsched
 *     status`;
 *   - `hetsched status` reads the full document when it can, and shows a
 *     reader who is neither root nor the file's owner only their own jobs
 *     (e.g. when an administrator made it group-readable); else the summary.
 * Without PrivateData=jobs the full document is world-readable (0644), as
 * before, and no summary is left behind. Slurm-free.
 */
#ifndef HS_SCHED_STATUS_PRIVATE_H
#define HS_SCHED_STATUS_PRIVATE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

#define HS_STATUS_MODE_PUBLIC 0644
#define HS_STATUS_MODE_PRIVATE 0600

/* "<path minus .json>.public.json" (or path + ".public.json"). */
int hs_status_public_path(const char *path, char *buf, size_t len);


/* Writes the status document: private_jobs = 0: doc at path, mode 0644,
 * and any old summary removed; 1: doc (marked "private_jobs": true) at
 * path mode 0600, the summary beside it mode 0644. */
int hs_status_write(const char *path, json_object *doc, int private_jobs, hs_err_t *err);

/* "<path minus .json>.users" (or path + ".users"): the directory of the
 * per-user documents under PrivateData=jobs. */
int hs_status_users_dir(const char *path, char *buf, size_t len);

/* Under PrivateData=jobs, when running as root: per user with jobs in
 * doc, "<users dir>/<uid>.json", the document with only that user's jobs
 * and ops, mode 0600 owned by the user (the directory 0755); files of
 * users without jobs any more are removed. Without root nothing is
 * written (users then see the public summary only) and 1 is returned. */
int hs_status_write_users(const char *path, json_object *doc, hs_err_t *err);

/* Keeps only the jobs (and in-flight ops) of user uid; returns how many
 * jobs were removed. */
int hs_status_keep_user(json_object *doc, uint32_t uid);

#endif /* HS_SCHED_STATUS_PRIVATE_H */
