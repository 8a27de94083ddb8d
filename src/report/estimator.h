/* SPDX-License-Identifier: GPL-2.0-or-later */
/* estimator.h — turns a job's cumulative step reports into a steps/s
 * estimate (doc/protocol.md (b), "Estimator"): intervals between reports
 * are summed into windows of at least window_s seconds of counted time;
 * each window gives one sample folded into an exponential moving average.
 * Intervals during which the job was stopped (Slurm suspend) or that are
 * gaps far longer than the current estimate predicts are excluded, so
 * suspend/resume and pauses never read as slow training.
 *
 * Pure computation on caller-supplied monotonic times: no clock, no I/O,
 * so it is unit-tested directly.
 */
#ifndef HS_REPORT_ESTIMATOR_H
#define HS_REPORT_ESTIMATOR_H

#include <stdint.h>

typedef struct hs_est_params {
	double window_s;    /* counted seconds per sample (default 5) */
	double alpha;       /* EMA weight of a new sample (default 0.5) */
	double gap_min_s;   /* intervals shorter than this are never gaps (1) */
	double gap_factor;  /* a gap is > factor x the predicted time (10) */
	double max_sps;     /* intervals faster than this are excluded (1e6) */
	unsigned reset_after; /* consecutive reports below the base that
	                       * restart it (a restarted loop; default 16) */
} hs_est_params_t;

typedef struct hs_est {
	hs_est_params_t p;
	int have_base;
	uint64_t base_step;
	double base_t;
	int stopped_seen;            /* the job was seen stopped since base_t */
	double win_steps, win_time;  /* the open window */
	double ema;                  /* steps/s, valid when n > 0 */
	unsigned long n;             /* samples behind ema (seeded ones too) */
	unsigned long new_samples;   /* samples made by this estimator */
	unsigned lower_run;          /* consecutive reports below the base */
	/* counters, for logs and tests */
	unsigned long excluded_stop, excluded_gap, excluded_fast, duplicates,
		      lower, resets;
} hs_est_t;

/* Fills p with the defaults above. */
void hs_est_defaults(hs_est_params_t *p);
/* Starts an estimator; p == NULL means defaults. Invalid parameters
 * (non-finite, window <= 0, alpha outside (0, 1], ...) are replaced by the
 * defaults. */
void hs_est_init(hs_est_t *e, const hs_est_params_t *p);
/* Continues an EMA measured earlier on the same GPU type (a restarted
 * job); ignored unless sps is finite and > 0. */
void hs_est_seed(hs_est_t *e, double sps, unsigned long n);
/* A report of cumulative step `step` received at monotonic time t (s).
 * Returns 1 when it completed a window (ema and n changed), else 0. */
int hs_est_report(hs_est_t *e, uint64_t step, double t);
/* The job was observed stopped (SIGSTOP/SIGTSTP) at some moment after the
 * last report: the interval that ends at the next report is excluded. */
void hs_est_stopped(hs_est_t *e);

#endif /* HS_REPORT_ESTIMATOR_H */
