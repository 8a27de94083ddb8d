/* SPDX-License-Identifier: GPL-2.0-or-later */
/* statefile.h — files the sched plugin keeps in StateSaveLocation: its
 * state (hetsched_state.json) and the status document
 * (hetsched_status.json). Writes are atomic (temporary file in the same
 * directory, fsync, rename, fsync of the directory), so a crash at any
 * moment leaves the old or the new file, never a torn one. Reads are
 * bounded and never follow a symlink. A file that cannot be trusted
 * (unparsable, foreign format, wrong version) is moved aside to
 * "<file>.bad-<unix time>" so an administrator can inspect it.
 * Slurm-free.
 */
#ifndef HS_SCHED_STATEFILE_H
#define HS_SCHED_STATEFILE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

#define HS_STATE_FILE "hetsched_state.json"
#define HS_STATUS_FILE "hetsched_status.json"
/* Largest state/status file read back (bytes). */
#define HS_STATEFILE_MAX (256L << 20)

/* Writes text atomically to path with the given mode. */
int hs_file_write_atomic(const char *path, const char *text, size_t len, int mode,
			 hs_err_t *err);
/* Serializes o (compact) and writes it atomically. */
int hs_json_write_atomic(const char *path, json_object *o, int mode, hs_err_t *err);

/* Reads a regular file of at most max bytes (opened without following a
 * symlink) into *out, NUL-terminated (malloc'd), its length in *len:
 * 1 = read, 0 = the file does not exist, -1 = unreadable, not a regular
 * file or too big (message in err). */
int hs_file_read_small(const char *path, long max, char **out, size_t *len, hs_err_t *err);

/* Reads a JSON file: 1 = parsed into *out, 0 = the file does not exist,
 * -1 = unreadable or not JSON (message in err). */
int hs_json_read(const char *path, json_object **out, hs_err_t *err);

/* Renames path to "<path>.bad-<now>"; fills `moved` with the new name. */
int hs_file_set_aside(const char *path, int64_t now, char *moved, size_t len, hs_err_t *err);

/* Joins dir and name into buf (fails when it does not fit). */
int hs_path_join(char *buf, size_t len, const char *dir, const char *name);

#endif /* HS_SCHED_STATEFILE_H */
