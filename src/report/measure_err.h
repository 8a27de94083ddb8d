/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure_err.h — the measurement library's error helper: the library
 * (record, listener, job directory) links no core library, which would
 * drag GLPK into every sbatch and slurmstepd, so it cannot use
 * hs_err_set. */
#ifndef HS_MEASURE_ERR_H
#define HS_MEASURE_ERR_H

#include "core/model.h" /* hs_err_t (a plain struct, no core code) */

/* Formats into err->msg (when err is not NULL); returns -1. */
int hs_measure_err(hs_err_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
