/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_order.c — the one queue order of the engine (engine_impl.h):
 * MaxJobs' cut, the admission of jobs that cannot be preempted and the
 * start-time estimate all sort by it. */
#include "sched/engine_impl.h"

hs_queue_key_t hs_queue_key(const hs_snap_t *s, int i, int group)
{
	const hs_sjob_t *sj = &s->jobs[i];
	return (hs_queue_key_t){ .snap = i, .group = group, .prio = sj->priority,
				 .submit = sj->submit_time, .id = sj->id };
}

int hs_queue_key_cmp(const void *a, const void *b)
{
	const hs_queue_key_t *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}
