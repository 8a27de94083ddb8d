/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.h — reads job traces in Gavel's 10-column format, one job per line,
 * tab-separated:
 *
 *   job type (model)  command  working dir  steps argument  needs data dir
 *   (0/1)  total steps  scale factor  priority weight  SLO (-1 = none)
 *   arrival (seconds)  [preemptible (0/1, optional, default 1)
 *   [user [account]]]
 *
 * (the last three are ours: users.h for user and account names)
 *
 * e.g. "ResNet-50 (batch size 64)\tpython3 main.py ...\timage_classification/
 * imagenet\t--num_minibatches\t1\t2931\t1\t1\t-1.000000\t0".
 *
 * Every field is validated; an error names the file, the line number and
 * the field. Blank lines are skipped. Arrival times must not decrease
 * (Gavel's simulator asserts the same). The command, working directory and
 * steps argument are kept only for round-tripping; the simulator does not
 * run anything.
 */
#ifndef HS_SIM_TRACE_H
#define HS_SIM_TRACE_H

#include <stdio.h>

#include "core/model.h"

/* Longest line accepted (bytes, without the newline). */
#define HS_TRACE_MAX_LINE 65536

typedef struct hs_trace_job {
	char *model;          /* job type, e.g. "ResNet-50 (batch size 64)" */
	char *command;
	char *workdir;
	char *steps_arg;
	int needs_data_dir;   /* 0 or 1 */
	double total_steps;   /* > 0 */
	int scale_factor;     /* >= 1 */
	double weight;        /* > 0 */
	double slo;           /* -1 = none, else > 0: seconds after arrival */
	double arrival_s;     /* >= 0 */
	int pinned;           /* 11th column "0": cannot be preempted */
	char *user;           /* 12th column, NULL = none (users.h) */
	char *account;        /* 13th column, NULL = none */
	int line;             /* line number in the file (1-based) */
	/* not in the file: a generated job a strategic user split into an
	 * array (strategy.h "split"): its task number, and the array's
	 * size (0 = not an array) */
	int array_task, array_tasks;
} hs_trace_job_t;

typedef struct hs_trace {
	int njobs, cap;
	hs_trace_job_t *jobs;
} hs_trace_t;

/* Reads a whole trace; name is used in messages. t is initialized here;
 * hs_trace_free it also on failure. */
int hs_trace_read(hs_trace_t *t, FILE *f, const char *name, hs_err_t *err);
int hs_trace_load(hs_trace_t *t, const char *path, hs_err_t *err);
void hs_trace_free(hs_trace_t *t);
/* Writes one job in the same format (no trailing newline check needed:
 * writes exactly one line). */
int hs_trace_write_job(FILE *f, const hs_trace_job_t *j);

#endif /* HS_SIM_TRACE_H */
