/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure_err.c — see measure_err.h. */
#include "report/measure_err.h"

#include <stdarg.h>
#include <stdio.h>

int hs_measure_err(hs_err_t *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}
