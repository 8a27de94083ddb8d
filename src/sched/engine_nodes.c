/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_nodes.c — the nodes a pending job may use (hs_sjob_t.node_ok:
 * the scheduler's own answer, e.g. Slurm's partition, -w/-x, features,
 * reservation and up nodes) applied to a round: which GPU types it can
 * get, how many usable GPUs it can reach, and the per-job server masks
 * the mechanism selects and places with (hs_round_in_t.job_servers). */
#include <stdlib.h>

#include "sched/engine_impl.h"

int hs_nodes_have_type(const hs_snap_t *s, const hs_sjob_t *sj, const int *node_type, int j)
{
	if (!sj->node_ok)
		return 1;
	for (int n = 0; n < s->nnodes; n++)
		if (sj->node_ok[n] && node_type[n] == j)
			return 1;
	return 0;
}

int hs_nodes_usable(const hs_round_build_t *b, const hs_snap_t *s, const hs_sjob_t *sj, int j,
		    int all)
{
	if (!sj->node_ok)
		return all;
	int cnt = 0;
	for (int n = 0; n < s->nnodes; n++) {
		int sv = b->node_server[n];
		if (!sj->node_ok[n] || sv < 0 || b->servers[sv].type != j)
			continue;
		for (int g = 0; g < b->servers[sv].ngpus; g++)
			cnt += b->usable[sv][g];
	}
	return cnt;
}

int hs_nodes_build_masks(hs_round_build_t *b, const hs_snap_t *s, int npj)
{
	b->job_servers = calloc((size_t)npj + 1, sizeof(*b->job_servers));
	if (!b->job_servers)
		return -1;
	b->njob_servers = npj;
	for (int k = 0; k < npj; k++) {
		const hs_sjob_t *sj = &s->jobs[b->pjob_snap[k]];
		/* running jobs stay where they are: only pending ones are
		 * restricted */
		if (!sj->node_ok || sj->state != HS_SJ_PENDING)
			continue;
		unsigned char *m = calloc((size_t)b->nservers + 1, 1);
		if (!m)
			return -1;
		for (int n = 0; n < s->nnodes; n++)
			if (b->node_server[n] >= 0)
				m[b->node_server[n]] = sj->node_ok[n];
		b->job_servers[k] = m;
	}
	return 0;
}
