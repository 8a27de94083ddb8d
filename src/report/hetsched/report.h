/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hetsched/report.h — job-side reporting API of hetsched (libhetsched-report).
 *
 * A training job calls hs_report_step() after each mini-batch; under Slurm
 * with the spank_hetsched plugin the report reaches the scheduler, which
 * measures the job's throughput on the GPU type it runs on. Without the
 * plugin (HS_REPORT_SOCKET unset) every call is a no-op. A call never
 * blocks: it costs one clock read and, at most once per
 * HS_REPORT_MIN_INTERVAL_US, one non-blocking datagram send. What a busy
 * listener refuses is kept and sent with the next datagram. At exit the
 * library waits (at most ~7 s, only while the listener is slow) until its
 * last report has been read: see hetsched_report(3).
 *
 * Checkpoints (doc/protocol.md (d)): call hs_report_ckpt_watch() once; when
 * hs_report_ckpt_requested() turns true, save a checkpoint atomically into
 * hs_report_ckpt_dir(), call hs_report_checkpoint(step), then
 * hs_report_ckpt_hold(); the scheduler requeues the job during the hold.
 * Never exit because of a checkpoint request.
 *
 * All functions are thread-safe; the library keeps one process-wide
 * reporter (the checkpoint flag is set by a signal handler, which can only
 * reach process-wide state). See hetsched_report(3).
 */
#ifndef HETSCHED_REPORT_H
#define HETSCHED_REPORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HS_REPORT_API_VERSION 2   /* 2: hs_report_flush_wait */

/* 1 when reports reach a hetsched listener (the plugin is present), else 0. */
int hs_report_active(void);

/* The job has completed `step` mini-batches in total (cumulative, counting
 * steps restored from a checkpoint). Returns 0 when sent or coalesced, 1
 * when reporting is inactive (no-op), -1 when the report was dropped (the
 * listener is busy: errno EAGAIN) — never an error the job must act on. */
int hs_report_step(uint64_t step);
/* The same with the cumulative number of samples processed. */
int hs_report_step_samples(uint64_t step, uint64_t samples);
/* Sends any coalesced report now (e.g. before the job ends). Same returns. */
int hs_report_flush(void);
/* hs_report_flush(), retried every 10 ms while the listener is busy
 * (EAGAIN) for up to timeout_ms milliseconds, e.g. before printing final
 * counters. Same returns (-1 EAGAIN: still busy at the timeout). */
int hs_report_flush_wait(unsigned timeout_ms);

/* Installs a handler for the checkpoint signal (HS_CKPT_SIGNAL, default
 * SIGURG) that only sets a flag. Returns 0, or -1 (errno) on failure. */
int hs_report_ckpt_watch(void);
/* 1 once the checkpoint signal has arrived and until hs_report_checkpoint(). */
int hs_report_ckpt_requested(void);
/* Acknowledges a checkpoint holding every step up to `step` (already
 * durably saved) and clears the request flag. Same returns as
 * hs_report_step(). */
int hs_report_checkpoint(uint64_t step);
/* Sleeps up to HS_CKPT_HOLD seconds (default 120) waiting to be requeued;
 * returns the seconds slept when the hold ends (the scheduler did not
 * requeue the job: continue training). A caught signal other than the
 * checkpoint signal (e.g. SIGTERM with a handler) ends the hold early. */
unsigned hs_report_ckpt_hold(void);

/* The job's environment as set by the plugin; NULL/0 when unset. */
const char *hs_report_gpu_type(void);    /* HS_GPU_TYPE, e.g. "v100" */
int hs_report_gpu_shared(void);          /* HS_GPU_SHARED == 1 */
const char *hs_report_ckpt_dir(void);    /* HS_CKPT_DIR */
unsigned hs_report_restart_count(void);  /* HS_RESTART_COUNT */

typedef struct hs_report_stats {
	unsigned long sent;       /* datagrams sent */
	unsigned long coalesced;  /* reports folded into a later datagram */
	unsigned long dropped;    /* sends that failed (listener busy/gone) */
	unsigned long noop;       /* calls while inactive */
} hs_report_stats_t;

void hs_report_get_stats(hs_report_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif /* HETSCHED_REPORT_H */
