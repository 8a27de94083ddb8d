/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_log.c — the round engine's log line: formats a message and hands
 * it to the plugin's logger (debug messages only with Debug=yes). A leaf:
 * every stage of the round logs through it and it calls none of them. */
#include "sched/engine_impl.h"

#include <stdarg.h>
#include <stdio.h>

void hs_engine_logf(const hs_engine_t *e, int level, const char *fmt, ...)
{
	if (!e->log)
		return;
	if (level >= HS_LOG_DEBUG && !e->conf.debug)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	e->log(e->log_arg, level, buf);
}
