/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp_run.h — runs a command (argv, no shell) and captures its standard
 * output; for the trace player's calls to sbatch and sacct. */
#ifndef HS_TP_RUN_H
#define HS_TP_RUN_H

#include <stddef.h>

/* Runs argv[0] (searched in PATH) with argv; its stdout goes into out
 * (NUL-terminated, truncated to size - 1), stderr passes through. Returns
 * the exit status (0..255), or -1 when it could not run or was killed. */
int tp_run(char *const argv[], char *out, size_t size);

/* Appends arg to a shell command line, single-quoted ('\'' for quotes). */
int tp_shell_quote(char *buf, size_t size, const char *arg);

#endif
