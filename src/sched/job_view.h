/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_view.h — one job as its user sees it (`hetsched job ID`, format in
 * hetsched-job(1)), from the status document's entry for the job: its
 * share per GPU type in the allocation in force, where it has run and
 * for how long, measured vs table throughput, its finish-time-fairness
 * estimate, its expected start, and why it waits in plain words.
 * Slurm-free. */
#ifndef HS_SCHED_JOB_VIEW_H
#define HS_SCHED_JOB_VIEW_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* The entry of job id in doc's "jobs", or NULL. */
json_object *hs_job_view_find(json_object *doc, int64_t id);
/* Prints the view of job entry j (doc for the round's time, policy and
 * round length) as of now. 0, or -1 on a write error. */
int hs_job_view_print(FILE *out, json_object *doc, json_object *j, time_t now);

#endif /* HS_SCHED_JOB_VIEW_H */
