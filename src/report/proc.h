/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proc.h — what the listener in slurmstepd asks the kernel about a report's
 * sender: is it a descendant of this slurmstepd (the rule that makes "a job
 * reports only for itself" hold), and is it stopped (a suspended job).
 * Reads only <proc_root>/<pid>/stat, a kernel file, with O_NOFOLLOW; the
 * root is a parameter so tests can use a fake tree.
 */
#ifndef HS_REPORT_PROC_H
#define HS_REPORT_PROC_H

#include <sys/types.h>

#define HS_PROC_MAX_DEPTH 64   /* ancestry walk bound */

/* Reads state and parent of pid. Returns 0, or -1 when the process does
 * not exist or its stat file is malformed. */
int hs_proc_stat(const char *proc_root, pid_t pid, char *state, pid_t *ppid);
/* The parsing half of hs_proc_stat: the text of a stat file ("pid (comm)
 * S ppid ...", NUL-terminated; comm is the process's name, which its owner
 * sets and which may hold spaces and parentheses). Returns 0 and sets
 * *state and *ppid, or -1 (outputs untouched) when malformed. */
int hs_proc_stat_parse(const char *text, char *state, pid_t *ppid);

/* 1 when `ancestor` is pid itself or one of its ancestors (within
 * HS_PROC_MAX_DEPTH levels), 0 when not, -1 when pid does not exist. */
int hs_proc_descends(const char *proc_root, pid_t pid, pid_t ancestor);

/* 1 when pid is stopped (state T or t), 0 when not, -1 when gone. */
int hs_proc_stopped(const char *proc_root, pid_t pid);

#endif /* HS_REPORT_PROC_H */
