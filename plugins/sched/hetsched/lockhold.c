/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lockhold.c — one scheduling pass's hold on slurmctld's locks, given up
 * for a moment whenever it has lasted MaxLockHold milliseconds, as
 * backfill yields its locks every bf_yield_interval: an RPC (sbatch,
 * squeue, a job's completion) then waits for at most about one slice of
 * a round, not for the whole snapshot or apply. The snapshot and the
 * apply call hs_hold_yield() only where they keep no pointer into
 * slurmctld's tables (between jobs, which they find again by id), so
 * whatever changed meanwhile is seen as it is after the yield. */
#include "config.h"

#include <time.h>
#include <unistd.h>

#include "src/slurmctld/locks.h"

#include "hs_plugin.h"

/* How long a yield leaves the locks free. Waiting RPC threads were woken
 * by the unlock; they need to run, not a long pause (backfill's 0.5 s
 * default pause would stretch a 20,000-job snapshot to seconds). */
#define HS_YIELD_PAUSE_US 2000

double hs_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void take(hs_lock_hold_t *h)
{
	slurmctld_lock_t locks = HS_LOCKS_WRITE;
	lock_slurmctld(locks);
	h->since = h->unit_since = hs_now_ms();
}

/* The current unit ends at now. */
static void unit_end(hs_lock_hold_t *h, double now)
{
	double took = now - h->unit_since;
	if (took > h->unit_max_ms) {
		h->unit_max_ms = took;
		h->unit_max_what = h->what;
	}
	h->unit_since = now;
}

static void give_back(hs_lock_hold_t *h)
{
	slurmctld_lock_t locks = HS_LOCKS_WRITE;
	double now = hs_now_ms(), held = now - h->since;
	unit_end(h, now);
	unlock_slurmctld(locks);
	h->total_ms += held;
	if (held > h->longest_ms)
		h->longest_ms = held;
}

void hs_hold_begin(hs_lock_hold_t *h, int max_ms)
{
	*h = (hs_lock_hold_t){ .max_ms = max_ms, .what = "start", .unit_max_what = "-" };
	take(h);
}

void hs_hold_what(hs_lock_hold_t *h, const char *what)
{
	if (!h)
		return;
	unit_end(h, hs_now_ms());
	h->what = what;
}

void hs_hold_end(hs_lock_hold_t *h)
{
	give_back(h);
}

int hs_hold_yield(hs_lock_hold_t *h)
{
	if (!h)
		return 0;
	double now = hs_now_ms();
	unit_end(h, now);
	if (h->max_ms <= 0 || now - h->since < h->max_ms)
		return 0;
	give_back(h);
	usleep(HS_YIELD_PAUSE_US);
	take(h);
	h->yields++;
	return 1;
}
