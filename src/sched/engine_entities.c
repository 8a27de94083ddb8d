/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_entities.c — who the round's problem shares the GPUs between
 * (Fairness=, hetsched.conf(5); issue 29): the problem's entities and
 * each job's, for the hierarchical policies (src/core/policy_hierarchical.c).
 *   tree      Slurm's association tree as the snapshot copied it: every
 *             account and user association on a problem job's path to
 *             the root becomes an entity with its parent, weight = its
 *             Shares (AccountWeights=, when a list, for accounts); a
 *             user with Fairshare=parent has no level of its own. Jobs
 *             without an association (no accounting) are grouped by
 *             account name, then by user: the same shape, equal weights.
 *   accounts  one level: the account, weight from AccountWeights (a list,
 *             or the association's Shares with AccountWeights=shares).
 *   jobs      no entities: every job for itself.
 * The lowest entity of a job splits its share among its jobs as
 * EntityMode says. */
#include "sched/engine_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ents {
	hs_entities_t *e;
	int cap;
	int *of_assoc;             /* [snapshot nassocs] entity or -2 = not yet */
} ents_t;

static int grow(ents_t *x)
{
	hs_entities_t *e = x->e;
	if (e->n < x->cap)
		return 0;
	int cap = x->cap ? 2 * x->cap : 32;
	char **n = realloc(e->names, (size_t)cap * sizeof(*n));
	if (n)
		e->names = n;
	double *w = realloc(e->weight, (size_t)cap * sizeof(*w));
	if (w)
		e->weight = w;
	hs_entity_mode_t *m = realloc(e->mode, (size_t)cap * sizeof(*m));
	if (m)
		e->mode = m;
	int *p = realloc(e->parent, (size_t)cap * sizeof(*p));
	if (p)
		e->parent = p;
	if (!n || !w || !m || !p)
		return -1;
	x->cap = cap;
	return 0;
}

/* A new entity; its index, or -1 on out of memory. */
static int add(ents_t *x, const hs_sconf_t *c, const char *name, double weight, int parent)
{
	if (grow(x) < 0)
		return -1;
	hs_entities_t *e = x->e;
	if (!(e->names[e->n] = strdup(name)))
		return -1;
	e->weight[e->n] = weight >= 1e-9 && weight <= 1e9 ? weight : 1.0;
	e->mode[e->n] = c->entity_fifo ? HS_ENTITY_FIFO : HS_ENTITY_FAIRNESS;
	e->parent[e->n] = parent;
	return e->n++;
}

static int find(const hs_entities_t *e, const char *name, int parent)
{
	for (int i = 0; i < e->n; i++)
		if (e->parent[i] == parent && !strcmp(e->names[i], name))
			return i;
	return -1;
}

/* An account's weight: AccountWeights' list when it is one, else its
 * Shares (0 = none given: 1). */
static double account_weight(const hs_sconf_t *c, const char *acct, double shares)
{
	if (c->account_weights.n > 0)
		return hs_wlist_get(&c->account_weights, acct);
	return shares > 0 ? shares : 1.0;
}

/* The entity of association a and, first, of its parents. */
static int of_assoc(ents_t *x, const hs_sconf_t *c, const hs_snap_t *s, int a)
{
	if (x->of_assoc[a] != -2)
		return x->of_assoc[a];
	const hs_sassoc_t *as = &s->assocs[a];
	int parent = as->parent >= 0 ? of_assoc(x, c, s, as->parent) : -1;
	if (as->parent >= 0 && parent < 0 && x->of_assoc[as->parent] == -2)
		return -1; /* out of memory above */
	int ent;
	if (as->user && as->use_parent && parent >= 0) {
		ent = parent; /* Fairshare=parent: no level of its own */
	} else {
		char name[160];
		if (as->user)
			snprintf(name, sizeof(name), "%s@%s", as->user, as->account);
		else
			snprintf(name, sizeof(name), "%s", as->account);
		double w = as->user ? (as->shares > 0 ? as->shares : 1.0)
				    : account_weight(c, as->account, as->shares);
		ent = add(x, c, name, w, parent);
	}
	x->of_assoc[a] = ent;
	return ent;
}

/* A job Slurm has no association for: its account, then its user. */
static int made_up(ents_t *x, const hs_sconf_t *c, const hs_sjob_t *sj)
{
	const char *acct = sj->account && *sj->account ? sj->account : "(none)";
	int a = find(x->e, acct, -1);
	if (a < 0 && (a = add(x, c, acct, account_weight(c, acct, 0), -1)) < 0)
		return -1;
	char user[160];
	if (sj->user && *sj->user)
		snprintf(user, sizeof(user), "%s@%s", sj->user, acct);
	else
		snprintf(user, sizeof(user), "uid%u@%s", sj->user_id, acct);
	int u = find(x->e, user, a);
	return u >= 0 ? u : add(x, c, user, 1.0, a);
}

/* One level, the account (Fairness=accounts; the old behaviour). */
static int by_account(ents_t *x, const hs_sconf_t *c, const hs_sjob_t *sj)
{
	const char *acct = sj->account && *sj->account ? sj->account : "(none)";
	int a = find(x->e, acct, -1);
	if (a >= 0)
		return a;
	double w = c->account_shares ? (sj->account_shares >= 1 ? sj->account_shares : 1.0)
				     : hs_wlist_get(&c->account_weights, acct);
	return add(x, c, acct, w, -1);
}

/* The entity of snapshot job sj (Fairness=tree or accounts); -1 on out
 * of memory. */
static int entity_of(ents_t *x, const hs_sconf_t *c, const hs_snap_t *s, const hs_sjob_t *sj)
{
	if (c->fairness == HS_FAIR_ACCOUNTS)
		return by_account(x, c, sj);
	if (sj->assoc > 0)
		return of_assoc(x, c, s, sj->assoc - 1);
	return made_up(x, c, sj);
}

/* The GPUs running jobs that cannot be preempted hold (HS_ROLE_PINNED:
 * outside the problem, their GPUs out of the cluster's counts), charged
 * to their entities (x->e->held; model.h): the water-filling policies
 * count them against the entity's and its parents' shares, so a user's
 * pinned jobs leave its other jobs (and the admission of its pending
 * pinned ones) that much less, and everyone else that much more. Adds
 * the entity of a pinned job that has no job in the problem (a user
 * whose only jobs are pinned is still charged, through its account).
 * held stays NULL when no pinned job runs. PinnedCharge=no leaves it
 * NULL (the behaviour before: their GPUs only left the cluster). */
static int held_gpus(ents_t *x, const hs_sconf_t *c, const hs_snap_t *s,
		     const hs_round_build_t *b)
{
	hs_entities_t *es = x->e;
	double *held = NULL;
	int size = 0; /* entries of held */
	for (int i = 0; i < s->njobs; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		if (b->role[i] != HS_ROLE_PINNED || sj->nheld <= 0)
			continue;
		int ent = entity_of(x, c, s, sj);
		if (ent < 0) {
			free(held);
			return -1;
		}
		if (es->n > size) { /* the forest may have grown */
			int nsize = x->cap > es->n ? x->cap : es->n;
			double *h = realloc(held, (size_t)nsize * sizeof(*h));
			if (!h) {
				free(held);
				return -1;
			}
			for (int e = size; e < nsize; e++)
				h[e] = 0.0;
			held = h;
			size = nsize;
		}
		held[ent] += sj->nheld;
	}
	es->held = held;
	return 0;
}

int hs_entities_build(const hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b,
		      hs_err_t *err)
{
	const hs_sconf_t *c = &e->conf;
	hs_problem_t *pb = &b->problem;
	ents_t x = { .e = &pb->entities };
	for (int k = 0; k < pb->njobs; k++)
		pb->jobs[k].entity = -1;
	if (c->fairness == HS_FAIR_JOBS)
		return 0;
	x.of_assoc = malloc(((size_t)s->nassocs + 1) * sizeof(int));
	if (!x.of_assoc)
		return hs_err_set(err, "out of memory");
	for (int a = 0; a < s->nassocs; a++)
		x.of_assoc[a] = -2;
	int rc = 0;
	for (int k = 0; k < pb->njobs && rc == 0; k++) {
		const hs_sjob_t *sj = &s->jobs[b->pjob_snap[k]];
		int ent = entity_of(&x, c, s, sj);
		if (ent < 0)
			rc = hs_err_set(err, "out of memory");
		pb->jobs[k].entity = ent;
	}
	if (rc == 0 && c->pinned_charge && held_gpus(&x, c, s, b) < 0)
		rc = hs_err_set(err, "out of memory");
	free(x.of_assoc);
	return rc;
}
