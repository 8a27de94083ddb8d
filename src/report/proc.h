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

/* What the listener checks of a sender: hs_proc_stat plus the start time
 * (field 22 of the stat file, clock ticks since boot). A pid with its
 * start time names one process for good: a pid reused by another process
 * has another start time. */
typedef struct hs_proc_info {
	char state;
	pid_t ppid;
	unsigned long long start;     /* ticks since boot (sysconf(_SC_CLK_TCK)) */
} hs_proc_info_t;

/* Parses a stat file's text (see hs_proc_stat_parse) including the start
 * time. Returns 0, or -1 (out untouched) when malformed or shorter than 22
 * fields. */
int hs_proc_info_parse(const char *text, hs_proc_info_t *out);
/* Reads <proc_root>/<pid>/stat into *out. 0, or -1 when gone or malformed. */
int hs_proc_info(const char *proc_root, pid_t pid, hs_proc_info_t *out);

/* Ancestry walk with a predicate: 1 when is_anc(arg, p, start) returns
 * non-zero for pid itself or one of its ancestors (within
 * HS_PROC_MAX_DEPTH levels; start is p's start time), 0 when none does,
 * -1 when pid does not exist. The listener accepts a sender that descends
 * from any slurmstepd of the job on this node this way. */
int hs_proc_descends_any(const char *proc_root, pid_t pid,
			 int (*is_anc)(void *arg, pid_t p, unsigned long long start), void *arg);

/* 1 when `ancestor` is pid itself or one of its ancestors (within
 * HS_PROC_MAX_DEPTH levels), 0 when not, -1 when pid does not exist. */
int hs_proc_descends(const char *proc_root, pid_t pid, pid_t ancestor);

/* 1 when pid is stopped (state T or t), 0 when not, -1 when gone. */
int hs_proc_stopped(const char *proc_root, pid_t pid);

#endif /* HS_REPORT_PROC_H */
