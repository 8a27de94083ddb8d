/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_nodes.c — the nodes a pending job may use (hs_sjob_t.node_ok:
 * the scheduler's own answer, e.g. Slurm's partition, -w/-x, features,
 * reservation and up nodes) applied to a round: which GPU types it can
 * get, how many usable GPUs it can reach, and the per-job server masks
 * the mechanism selects and places with (hs_round_in_t.job_servers). */
#include <stdlib.h>

#include "sched/engine_impl.h"

int hs_node_hold_only(const hs_snap_t *s, const unsigned char *node_bad, int n)
{
	return !s->nodes[n].avail || (node_bad && node_bad[n]);
}

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

/* Does snapshot job sj hold a GPU on node n? */
static int holds_on(const hs_sjob_t *sj, int n)
{
	for (int x = 0; x < sj->nheld; x++)
		if (sj->held[x].node == n)
			return 1;
	return 0;
}

/* A running or suspended job the rounds may suspend but never move
 * (time slicing, PreemptMode=suspend) can run only where it holds its
 * GPUs: stay_on_type offers it only that type, this keeps it to those
 * nodes, and its home (hs_round_in_t.home) to those GPUs. Without them,
 * with two nodes of a type each holding a suspended pair, the mechanism
 * placed each pair's job on the other pair's node, where it could not
 * go: all four stayed suspended, round after round, with both GPUs idle
 * (bench/strategic.sh --conf PreemptMode=suspend, seed 1). */
int hs_nodes_stays_put(const hs_engine_t *e, const hs_round_build_t *b, const hs_snap_t *s, int i)
{
	const hs_sjob_t *sj = &s->jobs[i];
	if (sj->state == HS_SJ_PENDING || sj->nheld <= 0)
		return 0;
	hs_preempt_rules_t rules = hs_preempt_rules(e, s->now);
	hs_preempt_job_t pj = hs_preempt_job(b, sj, i);
	return rules.slice && !hs_preempt_movable(&rules, &pj);
}

int hs_nodes_build_masks(const hs_engine_t *e, hs_round_build_t *b, const hs_snap_t *s,
			 const unsigned char *node_bad, int npj)
{
	b->job_servers = calloc((size_t)npj + 1, sizeof(*b->job_servers));
	if (!b->job_servers)
		return -1;
	b->njob_servers = npj;
	int any_hold_only = 0;
	for (int n = 0; n < s->nnodes && !any_hold_only; n++)
		any_hold_only = b->node_server[n] >= 0 && hs_node_hold_only(s, node_bad, n);
	for (int k = 0; k < npj; k++) {
		const hs_sjob_t *sj = &s->jobs[b->pjob_snap[k]];
		/* Pending jobs go where Slurm would start them (node_ok). A
		 * GPU on a hold-only node is usable only for the job on it:
		 * when that job is preempted, no other job, pending or
		 * migrating, may be placed there. */
		const unsigned char *ok = sj->state == HS_SJ_PENDING ? sj->node_ok : NULL;
		int here = hs_nodes_stays_put(e, b, s, b->pjob_snap[k]);
		if (!ok && !any_hold_only && !here)
			continue;
		unsigned char *m = calloc((size_t)b->nservers + 1, 1);
		if (!m)
			return -1;
		for (int n = 0; n < s->nnodes; n++) {
			int sv = b->node_server[n];
			if (sv >= 0)
				m[sv] = (!ok || ok[n]) && (!here || holds_on(sj, n)) &&
					(!hs_node_hold_only(s, node_bad, n) || holds_on(sj, n));
		}
		b->job_servers[k] = m;
	}
	return 0;
}
