/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshot.c — ownership and consistency checks of hs_snap_t. */
#include "sched/snapshot.h"

#include "sched/sconf.h" /* HS_FAIR_* */

#include <stdlib.h>
#include <string.h>

#include "core/placement.h"

void hs_snap_init(hs_snap_t *s)
{
	memset(s, 0, sizeof(*s));
}

static void free_job(hs_sjob_t *j)
{
	free(j->held);
	if (j->borrowed)
		return; /* the rest is the array record's */
	free(j->gpu_type);
	free(j->parts);
	for (uint32_t i = 0; i < j->nenv; i++)
		free(j->env[i]);
	free(j->env);
	free(j->admin_comment);
	free(j->account);
	free(j->user);
	free(j->name);
	free(j->qos);
	free(j->node_ok);
}

void hs_snap_free(hs_snap_t *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nnodes; i++) {
		free(s->nodes[i].name);
		free(s->nodes[i].gpu_type);
		free(s->nodes[i].gpu_held);
	}
	free(s->nodes);
	for (int i = 0; i < s->nparts; i++) {
		free(s->parts[i].name);
		free(s->parts[i].nodes);
	}
	free(s->parts);
	for (int i = 0; i < s->njobs; i++)
		free_job(&s->jobs[i]);
	free(s->jobs);
	for (int i = 0; i < s->nended; i++)
		free_job(&s->ended[i]);
	free(s->ended);
	for (int i = 0; i < s->nassocs; i++) {
		free(s->assocs[i].account);
		free(s->assocs[i].user);
	}
	free(s->assocs);
	memset(s, 0, sizeof(*s));
}

/* Appends a zeroed job to a growing array (jobs or ended). */
static hs_sjob_t *add_to(hs_sjob_t **a, int *n, int *cap)
{
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 64;
		hs_sjob_t *j = realloc(*a, (size_t)c * sizeof(*j));
		if (!j)
			return NULL;
		*a = j;
		*cap = c;
	}
	hs_sjob_t *j = &(*a)[(*n)++];
	memset(j, 0, sizeof(*j));
	return j;
}

hs_sjob_t *hs_snap_add_job(hs_snap_t *s)
{
	return add_to(&s->jobs, &s->njobs, &s->cap_jobs);
}

hs_sjob_t *hs_snap_add_ended(hs_snap_t *s)
{
	return add_to(&s->ended, &s->nended, &s->cap_ended);
}

hs_sassoc_t *hs_snap_add_assoc(hs_snap_t *s, uint32_t id, int parent, const char *account,
			       const char *user, double shares)
{
	if (s->nassocs == s->cap_assocs) {
		int cap = s->cap_assocs ? s->cap_assocs * 2 : 16;
		hs_sassoc_t *a = realloc(s->assocs, (size_t)cap * sizeof(*a));
		if (!a)
			return NULL;
		s->assocs = a;
		s->cap_assocs = cap;
	}
	hs_sassoc_t *a = &s->assocs[s->nassocs];
	*a = (hs_sassoc_t){ .id = id, .parent = parent, .shares = shares,
			    .account = account ? strdup(account) : NULL,
			    .user = user ? strdup(user) : NULL };
	if ((account && !a->account) || (user && !a->user)) {
		free(a->account);
		free(a->user);
		return NULL;
	}
	s->nassocs++;
	return a;
}

int hs_snap_find_assoc(const hs_snap_t *s, uint32_t id)
{
	for (int i = 0; i < s->nassocs; i++)
		if (s->assocs[i].id == id)
			return i;
	return -1;
}

hs_sjob_t *hs_snap_dup_job(hs_snap_t *s, int from, uint32_t id)
{
	if (from < 0 || from >= s->njobs || !hs_snap_add_job(s))
		return NULL;
	/* the add may have moved the array: index again */
	const hs_sjob_t *o = &s->jobs[from];
	hs_sjob_t *j = &s->jobs[s->njobs - 1];
	/* Shared, not copied (issue 28 item 6a): every slot of a big array
	 * would otherwise copy up to 32 HS_* entries of 2 KB and the
	 * AdminComment. The record outlives its slots (same snapshot), and
	 * nothing changes a snapshot job's data once the snapshot is built. */
	*j = *o;
	j->id = id;
	j->act_id = hs_sjob_act_id(o);
	j->held = NULL;
	j->nheld = 0;
	j->borrowed = 1;
	return j;
}

uint64_t hs_sjob_owner(int fairness, const hs_sjob_t *sj)
{
	if (fairness == HS_FAIR_JOBS)
		return 0;
	if (fairness == HS_FAIR_ACCOUNTS) {
		uint64_t h = 1469598103934665603ULL; /* FNV-1a of the name */
		for (const char *p = sj->account ? sj->account : ""; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		return h | 1;
	}
	return sj->assoc > 0 ? (uint64_t)sj->assoc : (1ULL << 32) | sj->user_id;
}

int hs_owner_index(uint64_t *owners, int *n, uint64_t o)
{
	for (int w = 0; w < *n; w++)
		if (owners[w] == o)
			return w;
	owners[*n] = o;
	return (*n)++;
}

uint32_t hs_sjob_act_id(const hs_sjob_t *j)
{
	return j->act_id ? j->act_id : j->id;
}

int hs_snap_validate(const hs_snap_t *s, hs_err_t *err)
{
	if (s->nnodes < 0 || s->nparts < 0 || s->njobs < 0 || s->nassocs < 0 || s->nended < 0)
		return hs_err_set(err, "snapshot: negative counts");
	for (int i = 0; i < s->nended; i++)
		if (s->ended[i].gpus < 0 || s->ended[i].gpus > 1000000)
			return hs_err_set(err, "snapshot: ended job %u: bad GPU count",
					  s->ended[i].id);
	/* parents before children: the tree cannot loop */
	for (int i = 0; i < s->nassocs; i++)
		if (s->assocs[i].parent < -1 || s->assocs[i].parent >= i || !s->assocs[i].account ||
		    !(s->assocs[i].shares >= 0) || s->assocs[i].shares > 1e9)
			return hs_err_set(err, "snapshot: association %d: bad parent, account or "
					  "shares", i);
	for (int i = 0; i < s->nnodes; i++) {
		const hs_snode_t *n = &s->nodes[i];
		if (!n->name || !*n->name)
			return hs_err_set(err, "snapshot: node %d has no name", i);
		if (n->ngpus < 0 || n->ngpus > HS_MAX_GPUS_PER_SERVER)
			return hs_err_set(err, "snapshot: node %s: %d GPUs", n->name, n->ngpus);
		if (n->ngpus > 0 && (!n->gpu_type || !n->gpu_held))
			return hs_err_set(err, "snapshot: node %s: GPUs without a type", n->name);
	}
	for (int i = 0; i < s->nparts; i++) {
		const hs_spart_t *p = &s->parts[i];
		if (!p->name)
			return hs_err_set(err, "snapshot: partition %d has no name", i);
		for (int k = 0; k < p->nnodes; k++)
			if (p->nodes[k] < 0 || p->nodes[k] >= s->nnodes)
				return hs_err_set(err, "snapshot: partition %s: bad node index",
						  p->name);
	}
	for (int i = 0; i < s->njobs; i++) {
		const hs_sjob_t *j = &s->jobs[i];
		if (j->gpus < 0 || j->gpus > 1000000 || j->gpus_per_node < 0 || j->nodes < 0)
			return hs_err_set(err, "snapshot: job %u: bad GPU request", j->id);
		for (int k = 0; k < j->nparts; k++)
			if (j->parts[k] < 0 || j->parts[k] >= s->nparts)
				return hs_err_set(err, "snapshot: job %u: bad partition index", j->id);
		if (j->nheld < 0 || (j->nheld > 0 && !j->held))
			return hs_err_set(err, "snapshot: job %u: bad GPU list", j->id);
		if (j->assoc < 0 || j->assoc > s->nassocs)
			return hs_err_set(err, "snapshot: job %u: bad association index", j->id);
		for (int k = 0; k < j->nheld; k++) {
			const hs_sgpu_t *g = &j->held[k];
			/* a GPU index the node does not model is the engine's
			 * business (one job and one node left out), not a
			 * reason to fail every round */
			if (g->node < 0 || g->node >= s->nnodes || g->gpu < 0)
				return hs_err_set(err, "snapshot: job %u: holds a GPU of no node",
						  j->id);
		}
	}
	return 0;
}

int hs_sjob_unmodelled(const hs_snap_t *s, const hs_sjob_t *j)
{
	for (int k = 0; k < j->nheld; k++)
		if (j->held[k].gpu >= s->nodes[j->held[k].node].ngpus)
			return k;
	return -1;
}
