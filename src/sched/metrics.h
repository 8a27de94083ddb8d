/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.h — the status document (engine_status.c) as an OpenMetrics
 * 1.0.0 text exposition, for Prometheus scrapes through node_exporter's
 * textfile collector (MetricsFile= in hetsched.conf) and for
 * `hetsched status --format=openmetrics`. Aggregates only (GPUs per type,
 * job counts, round timings, counters): no per-job data, so the output
 * may be world-readable under PrivateData=jobs too; it is the same from
 * the full document and from its public summary. The metric names are
 * listed in doc/metrics.md. Slurm-free.
 */
#ifndef HS_SCHED_METRICS_H
#define HS_SCHED_METRICS_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

#include "core/model.h"

/* Writes the exposition of a status document (ending with "# EOF"). -1
 * when doc is not a status document or the write failed. */
int hs_metrics_write(FILE *out, json_object *doc, hs_err_t *err);

/* The same into a new string (free() it); *len gets its length. NULL on
 * failure. */
char *hs_metrics_text(json_object *doc, size_t *len, hs_err_t *err);

#endif /* HS_SCHED_METRICS_H */
