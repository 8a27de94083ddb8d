/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mechanism.c — the round mechanism (see mechanism.h): time accounting and
 * allocation resets, priorities, per-type greedy selection, and the
 * resulting per-job actions. Placement onto GPUs is placement.c; saving and
 * restoring the state is mech_state.c. */
#include "core/mechanism_impl.h"
#include "core/policy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Allocation values within this of [0, 1] are clamped (LP round-off). */
#define HS_ALLOC_TOL 1e-6

const char *hs_action_name(hs_action_t a)
{
	switch (a) {
	case HS_ACT_NONE: return "none";
	case HS_ACT_START: return "start";
	case HS_ACT_KEEP: return "keep";
	case HS_ACT_MIGRATE: return "migrate";
	case HS_ACT_PREEMPT: return "preempt";
	}
	return "?";
}

void hs_mech_opts_default(hs_mech_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->min_reset_s = 1920.0;
	o->preempt_cost_s = 0.0;
	o->backfill = 1;
	o->shuffle_types = 0;
	o->seed = 0;
	o->round_s = HS_ROUND_S_DEFAULT;
	o->restart_aware = 1;
}

void hs_mech_opts_for_policy(hs_mech_opts_t *o, const char *name)
{
	if (!name)
		return;
	/* What a policy is (aware, queue order) is the registry's fact. */
	o->shuffle_types = !hs_policy_is_aware(name);
	o->backfill = hs_policy_backfills(name);
}

int hs_mech_id_ok(const char *id)
{
	if (!id || !*id)
		return 0;
	size_t n = 0;
	for (const unsigned char *s = (const unsigned char *)id; *s; s++, n++)
		if (*s < 0x20 || *s == 0x7f || n >= 255)
			return 0;
	return 1;
}

/* ---- Records -------------------------------------------------------------- */

static void mjob_free(hs_mjob_t *j)
{
	if (!j)
		return;
	for (int i = 0; i < j->nplace; i++)
		free(j->pserver[i]);
	free(j->pserver);
	free(j->pgpu);
	free(j->partner);
	free(j->id);
	free(j);
}

static void mentry_free(hs_mentry_t *e)
{
	if (!e)
		return;
	free(e->key);
	free(e->a);
	free(e->b);
	free(e->x);
	free(e->recv);
	free(e->def);
	free(e);
}

int hs_mjob_set_place(hs_mjob_t *j, int ptype, int nplace, const char *const *servers,
		      const int *gpus, const char *partner)
{
	/* Unchanged (a kept lease, or still not running): nothing to copy. */
	if (nplace == j->nplace && (nplace <= 0 || ptype == j->ptype) &&
	    !partner == !j->partner && (!partner || !strcmp(partner, j->partner))) {
		int same = 1;
		for (int i = 0; i < nplace && same; i++)
			same = gpus[i] == j->pgpu[i] && !strcmp(servers[i], j->pserver[i]);
		if (same)
			return 0;
	}
	for (int i = 0; i < j->nplace; i++)
		free(j->pserver[i]);
	free(j->pserver);
	free(j->pgpu);
	free(j->partner);
	j->pserver = NULL;
	j->pgpu = NULL;
	j->partner = NULL;
	j->nplace = 0;
	j->ptype = -1;
	if (nplace <= 0)
		return 0;
	j->pserver = calloc((size_t)nplace, sizeof(*j->pserver));
	j->pgpu = calloc((size_t)nplace, sizeof(*j->pgpu));
	if (!j->pserver || !j->pgpu)
		return -1;
	j->nplace = nplace;
	for (int i = 0; i < nplace; i++) {
		j->pserver[i] = strdup(servers[i]);
		if (!j->pserver[i])
			return -1;
		j->pgpu[i] = gpus[i];
	}
	if (partner && !(j->partner = strdup(partner)))
		return -1;
	j->ptype = ptype;
	return 0;
}

hs_mech_t *hs_mech_alloc(const hs_mech_opts_t *o, hs_err_t *err)
{
	hs_mech_t *m = calloc(1, sizeof(*m));
	if (!m) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	if (o)
		m->o = *o;
	else
		hs_mech_opts_default(&m->o);
	if (!isfinite(m->o.min_reset_s) || m->o.min_reset_s < 0 ||
	    !isfinite(m->o.preempt_cost_s) || m->o.preempt_cost_s < 0 ||
	    !isfinite(m->o.round_s) || m->o.round_s < 0) {
		hs_err_set(err, "mechanism options: min_reset_s, preempt_cost_s and round_s "
			   "must be >= 0");
		free(m);
		return NULL;
	}
	m->jobmap = lh_kchar_table_new(64, NULL);
	m->entmap = lh_kchar_table_new(64, NULL);
	if (!m->jobmap || !m->entmap) {
		hs_mech_free(m);
		hs_err_set(err, "out of memory");
		return NULL;
	}
	/* Seeded like srand48: high 32 bits of the 48-bit state from the seed. */
	hs_rng_seed(&m->rng, m->o.seed);
	return m;
}

hs_mech_t *hs_mech_new(const hs_mech_opts_t *o, hs_err_t *err)
{
	return hs_mech_alloc(o, err);
}

void hs_mech_free(hs_mech_t *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->njobs; i++)
		mjob_free(m->jobs[i]);
	for (int i = 0; i < m->nents; i++)
		mentry_free(m->ents[i]);
	free(m->jobs);
	free(m->ents);
	if (m->jobmap)
		lh_table_free(m->jobmap);
	if (m->entmap)
		lh_table_free(m->entmap);
	for (int j = 0; j < m->ntypes; j++)
		free(m->tnames[j]);
	free(m->tnames);
	free(m->tcount);
	free(m->tmap);
	free(m->prec);
	free(m);
}

/* Grows every entry's per-type arrays to hold cap types. */
static int grow_types(hs_mech_t *m, int cap)
{
	if (cap <= m->cap_types)
		return 0;
	char **tn = realloc(m->tnames, (size_t)cap * sizeof(*tn));
	if (!tn)
		return -1;
	m->tnames = tn;
	int *tc = realloc(m->tcount, (size_t)cap * sizeof(*tc));
	if (!tc)
		return -1;
	m->tcount = tc;
	for (int i = 0; i < m->nents; i++) {
		hs_mentry_t *e = m->ents[i];
		double **arr[3] = { &e->x, &e->recv, &e->def };
		for (int k = 0; k < 3; k++) {
			double *v = realloc(*arr[k], (size_t)cap * sizeof(double));
			if (!v)
				return -1;
			for (int j = m->cap_types; j < cap; j++)
				v[j] = 0.0;
			*arr[k] = v;
		}
	}
	m->cap_types = cap;
	return 0;
}

int hs_mech_type_index(hs_mech_t *m, const char *name, int create, hs_err_t *err)
{
	for (int j = 0; j < m->ntypes; j++)
		if (!strcmp(m->tnames[j], name))
			return j;
	if (!create)
		return -1;
	if (m->ntypes == m->cap_types && grow_types(m, m->cap_types ? 2 * m->cap_types : 4) < 0)
		return hs_err_set(err, "out of memory");
	m->tnames[m->ntypes] = strdup(name);
	if (!m->tnames[m->ntypes])
		return hs_err_set(err, "out of memory");
	m->tcount[m->ntypes] = -1;
	return m->ntypes++;
}

hs_mjob_t *hs_mech_job_get(hs_mech_t *m, const char *id, int create, hs_err_t *err)
{
	void *v = NULL;
	if (lh_table_lookup_ex(m->jobmap, id, &v))
		return v;
	if (!create)
		return NULL;
	if (m->njobs == m->cap_jobs) {
		int cap = m->cap_jobs ? 2 * m->cap_jobs : 64;
		hs_mjob_t **nj = realloc(m->jobs, (size_t)cap * sizeof(*nj));
		if (!nj)
			goto oom;
		m->jobs = nj;
		m->cap_jobs = cap;
	}
	hs_mjob_t *j = calloc(1, sizeof(*j));
	if (!j)
		goto oom;
	j->id = strdup(id);
	j->ptype = -1;
	j->pidx = -1;
	j->run_since = -1.0;
	if (!j->id || lh_table_insert(m->jobmap, j->id, j) != 0) {
		mjob_free(j);
		goto oom;
	}
	m->jobs[m->njobs++] = j;
	return j;
oom:
	hs_err_set(err, "out of memory");
	return NULL;
}

/* Builds the entry key of a job alone (b NULL) or a pair (sorted ids). */
static char *entry_key(const char *a, const char *b)
{
	if (!b)
		return strdup(a);
	if (strcmp(a, b) > 0) {
		const char *t = a;
		a = b;
		b = t;
	}
	size_t la = strlen(a), lb = strlen(b);
	char *k = malloc(la + lb + 2);
	if (!k)
		return NULL;
	memcpy(k, a, la);
	k[la] = HS_PAIR_SEP;
	memcpy(k + la + 1, b, lb + 1);
	return k;
}

hs_mentry_t *hs_mech_entry_get(hs_mech_t *m, const char *a, const char *b, int create,
			       hs_err_t *err)
{
	char *key = entry_key(a, b);
	if (!key) {
		hs_err_set(err, "out of memory");
		return NULL;
	}
	void *v = NULL;
	if (lh_table_lookup_ex(m->entmap, key, &v) || !create) {
		free(key);
		return v;
	}
	if (m->nents == m->cap_ents) {
		int cap = m->cap_ents ? 2 * m->cap_ents : 64;
		hs_mentry_t **ne = realloc(m->ents, (size_t)cap * sizeof(*ne));
		if (!ne) {
			free(key);
			goto oom;
		}
		m->ents = ne;
		m->cap_ents = cap;
	}
	hs_mentry_t *e = calloc(1, sizeof(*e));
	if (!e) {
		free(key);
		goto oom;
	}
	e->key = key;
	int swap = b && strcmp(a, b) > 0;
	e->a = strdup(swap ? b : a);
	e->b = b ? strdup(swap ? a : b) : NULL;
	size_t cap = (size_t)(m->cap_types > 0 ? m->cap_types : 1);
	e->x = calloc(cap, sizeof(double));
	e->recv = calloc(cap, sizeof(double));
	e->def = calloc(cap, sizeof(double));
	e->ia = e->ib = -1;
	e->ja = e->a ? hs_mech_job_get(m, e->a, 0, NULL) : NULL;
	e->jb = e->b ? hs_mech_job_get(m, e->b, 0, NULL) : NULL;
	if (!e->ja || (b && !e->jb)) {
		mentry_free(e);
		hs_err_set(err, "internal error: entry for an unknown job");
		return NULL;
	}
	if (!e->a || (b && !e->b) || !e->x || !e->recv || !e->def ||
	    lh_table_insert(m->entmap, e->key, e) != 0) {
		mentry_free(e);
		goto oom;
	}
	if (!b)
		e->ja->single = e;
	m->ents[m->nents++] = e;
	return e;
oom:
	hs_err_set(err, "out of memory");
	return NULL;
}

/* Drops every entry involving a job not seen this round, then the
 * records of those jobs. */
static void drop_departed(hs_mech_t *m, long stamp)
{
	int w = 0;
	for (int i = 0; i < m->nents; i++) {
		hs_mentry_t *e = m->ents[i];
		if (e->ja->seen == stamp && (!e->jb || e->jb->seen == stamp)) {
			m->ents[w++] = e;
			continue;
		}
		lh_table_delete(m->entmap, e->key);
		mentry_free(e);
	}
	m->nents = w;
	w = 0;
	for (int i = 0; i < m->njobs; i++) {
		hs_mjob_t *j = m->jobs[i];
		if (j->seen == stamp) {
			m->jobs[w++] = j;
			continue;
		}
		if (j->in_alloc)
			m->departed++;
		lh_table_delete(m->jobmap, j->id);
		mjob_free(j);
	}
	m->njobs = w;
}

/* ---- Input validation ----------------------------------------------------- */

/* run or home (may be NULL): every GPU exists, one type per job. */
static int validate_gpus(const hs_round_in_t *in, const hs_job_run_t *runs, const char *what,
			 hs_err_t *err)
{
	const hs_problem_t *p = in->problem;
	for (int i = 0; runs && i < p->njobs; i++) {
		const hs_job_run_t *r = &runs[i];
		if (r->ngpus == 0)
			continue;
		if (r->ngpus < 0 || !r->gpus)
			return hs_err_set(err, "job '%s': invalid %s", p->jobs[i].id, what);
		int type = -1;
		for (int g = 0; g < r->ngpus; g++) {
			int s = r->gpus[g].server;
			if (s < 0 || s >= in->nservers || r->gpus[g].gpu < 0 ||
			    r->gpus[g].gpu >= in->servers[s].ngpus)
				return hs_err_set(err, "job '%s': %s names a GPU that does not exist",
						  p->jobs[i].id, what);
			if (type >= 0 && in->servers[s].type != type)
				return hs_err_set(err, "job '%s': %s mixes accelerator types",
						  p->jobs[i].id, what);
			type = in->servers[s].type;
		}
	}
	return 0;
}

static int validate_in(const hs_round_in_t *in, hs_err_t *err)
{
	if (!in || !in->problem)
		return hs_err_set(err, "round input has no problem");
	const hs_problem_t *p = in->problem;
	const hs_cluster_t *c = &p->cluster;
	if (!isfinite(in->elapsed_s) || in->elapsed_s < 0)
		return hs_err_set(err, "elapsed time must be a number >= 0");
	if (c->ntypes <= 0 || !c->names)
		return hs_err_set(err, "the cluster has no accelerator types");
	for (int j = 0; j < c->ntypes; j++) {
		if (!c->names[j] || !hs_mech_id_ok(c->names[j]))
			return hs_err_set(err, "accelerator type %d has an invalid name", j);
		for (int k = 0; k < j; k++)
			if (!strcmp(c->names[k], c->names[j]))
				return hs_err_set(err, "accelerator type '%s' appears twice", c->names[j]);
	}
	if (p->njobs < 0 || (p->njobs > 0 && !p->jobs))
		return hs_err_set(err, "invalid job list");
	for (int i = 0; i < p->njobs; i++) {
		const hs_job_t *jb = &p->jobs[i];
		if (!hs_mech_id_ok(jb->id))
			return hs_err_set(err, "job %d has a missing or invalid id", i);
		if (jb->scale_factor < 1)
			return hs_err_set(err, "job '%s': scale_factor must be >= 1", jb->id);
		for (int j = 0; j < c->ntypes; j++)
			if (!jb->thr || !isfinite(jb->thr[j]) || jb->thr[j] < 0)
				return hs_err_set(err, "job '%s': invalid throughput on '%s'",
						  jb->id, c->names[j]);
		if (jb->job_type < -1 || jb->job_type >= p->jobtypes.n)
			return hs_err_set(err, "job '%s': job type index out of range", jb->id);
	}
	if (hs_servers_validate(in->servers, in->nservers, c->ntypes, err) < 0)
		return -1;
	if (validate_gpus(in, in->run, "current placement", err) < 0)
		return -1;
	return validate_gpus(in, in->home, "home placement", err);
}

/* Two running jobs may hold the same GPUs only as a packed pair (exactly
 * the same set); any other overlap is inconsistent input. */
static int check_overlaps(const hs_round_in_t *in, hs_err_t *err)
{
	if (!in->run)
		return 0;
	const hs_problem_t *p = in->problem;
	int *base = calloc((size_t)in->nservers + 1, sizeof(*base));
	if (!base)
		return hs_err_set(err, "out of memory");
	int total = 0;
	for (int s = 0; s < in->nservers; s++) {
		base[s] = total;
		total += in->servers[s].ngpus;
	}
	int *owner = malloc(((size_t)total + 1) * sizeof(*owner));
	if (!owner) {
		free(base);
		return hs_err_set(err, "out of memory");
	}
	for (int g = 0; g < total; g++)
		owner[g] = -1;
	int rc = 0;
	for (int i = 0; i < p->njobs && rc == 0; i++) {
		const hs_job_run_t *r = &in->run[i];
		for (int g = 0; g < r->ngpus && rc == 0; g++) {
			int slot = base[r->gpus[g].server] + r->gpus[g].gpu;
			int o = owner[slot];
			if (o < 0) {
				owner[slot] = i;
			} else if (o == i) {
				rc = hs_err_set(err, "job '%s': current placement lists a GPU twice",
						p->jobs[i].id);
			} else if (!hs_gpu_set_equal(r->gpus, r->ngpus, in->run[o].gpus,
						     in->run[o].ngpus)) {
				rc = hs_err_set(err, "jobs '%s' and '%s' are reported on overlapping "
						"but different GPUs", p->jobs[o].id, p->jobs[i].id);
			}
		}
	}
	free(owner);
	free(base);
	return rc;
}

/* ---- begin_round ------------------------------------------------------------ */

static int run_type(const hs_round_in_t *in, int i)
{
	if (!in->run || in->run[i].ngpus <= 0)
		return -1;
	return in->servers[in->run[i].gpus[0].server].type;
}

/* The partner a running job shares its GPUs with this round, or -1: the
 * partner we placed it with, if both are reported on the same GPUs. */
static int running_partner(hs_mech_t *m, const hs_round_in_t *in, int i, long stamp)
{
	hs_mjob_t *j = m->prec[i];
	if (!j->partner)
		return -1;
	hs_mjob_t *k = hs_mech_job_get(m, j->partner, 0, NULL);
	if (!k || k->seen != stamp || k->pidx < 0)
		return -1;
	const hs_job_run_t *a = &in->run[i], *b = &in->run[k->pidx];
	if (b->ngpus <= 0 || !hs_gpu_set_equal(a->gpus, a->ngpus, b->gpus, b->ngpus))
		return -1;
	return k->pidx;
}

int hs_mech_begin_round(hs_mech_t *m, const hs_round_in_t *in, hs_err_t *err)
{
	m->in_round = 0;
	if (validate_in(in, err) < 0 || check_overlaps(in, err) < 0)
		return -1;
	const hs_problem_t *p = in->problem;
	const int J = p->cluster.ntypes;
	if (J > m->cap_tmap) {
		int *t = realloc(m->tmap, (size_t)J * sizeof(*t));
		if (!t)
			return hs_err_set(err, "out of memory");
		m->tmap = t;
		m->cap_tmap = J;
	}
	if (p->njobs > m->cap_prec) {
		hs_mjob_t **r = realloc(m->prec, (size_t)p->njobs * sizeof(*r));
		if (!r)
			return hs_err_set(err, "out of memory");
		m->prec = r;
		m->cap_prec = p->njobs;
	}
	/* Match jobs by id; a stamp unique to this call marks who is here.
	 * A duplicate id fails here, before anything that matters changed
	 * (records made for new ids are dropped unseen next time). */
	const long stamp = ++m->stamp;
	int arrivals = 0, allocated = 0;
	for (int i = 0; i < p->njobs; i++) {
		hs_mjob_t *j = hs_mech_job_get(m, p->jobs[i].id, 1, err);
		if (!j)
			return -1;
		if (j->seen == stamp)
			return hs_err_set(err, "job id '%s' appears twice", p->jobs[i].id);
		j->seen = stamp;
		j->pidx = i;
		m->prec[i] = j;
		arrivals += !j->in_alloc;
		allocated += j->in_alloc;
	}
	for (int j = 0; j < J; j++)
		if ((m->tmap[j] = hs_mech_type_index(m, p->cluster.names[j], 1, err)) < 0)
			return -1;
	m->clock += in->elapsed_s;
	drop_departed(m, stamp);
	/* A job found running that we did not see start (started outside a
	 * round, or state from before leases) began at the latest at the
	 * previous round. */
	for (int i = 0; i < p->njobs; i++) {
		hs_mjob_t *j = m->prec[i];
		if (!in->run || in->run[i].ngpus <= 0)
			j->run_since = -1.0;
		else if (j->run_since < 0.0)
			j->run_since = fmax(0.0, m->clock - in->elapsed_s);
	}

	/* Credit the time just elapsed to what ran (a pair once). */
	if (in->run && in->elapsed_s > 0) {
		for (int i = 0; i < p->njobs; i++) {
			int t = run_type(in, i);
			if (t < 0)
				continue;
			int k = running_partner(m, in, i, stamp);
			if (k >= 0 && strcmp(p->jobs[i].id, p->jobs[k].id) > 0)
				continue; /* credited with the other member */
			hs_mentry_t *e = k < 0 && m->prec[i]->single ? m->prec[i]->single
					 : hs_mech_entry_get(m, p->jobs[i].id,
							     k >= 0 ? p->jobs[k].id : NULL, 1, err);
			if (!e)
				return -1;
			e->recv[m->tmap[t]] += in->elapsed_s;
		}
	}

	int cluster_changed = 0;
	for (int j = 0; j < J; j++)
		cluster_changed |= m->tcount[m->tmap[j]] != p->cluster.count[j];
	int changed = arrivals > 0 || m->departed > 0 || cluster_changed;
	int need = 0;
	if (p->njobs > 0) {
		need = !m->have_alloc || allocated == 0 ||
		       (changed && m->clock - m->last_reset >= m->o.min_reset_s);
	}
	m->round_problem = p;
	m->round_servers = in->servers;
	m->round_nservers = in->nservers;
	m->in_round = 1;
	return need;
}

/* ---- schedule ----------------------------------------------------------------- */

static int install_alloc(hs_mech_t *m, const hs_round_in_t *in, const hs_alloc_t *a,
			 hs_err_t *err)
{
	const hs_problem_t *p = in->problem;
	const int J = p->cluster.ntypes;
	if (a->njobs != p->njobs || a->ntypes != J || (a->njobs * J > 0 && !a->x))
		return hs_err_set(err, "allocation is %dx%d but the problem has %d jobs and %d types",
				  a->njobs, a->ntypes, p->njobs, J);
	/* Check everything before touching the state. */
	for (int i = 0; i < p->njobs * J; i++)
		if (!isfinite(a->x[i]) || a->x[i] < -HS_ALLOC_TOL || a->x[i] > 1 + HS_ALLOC_TOL)
			return hs_err_set(err, "allocation of job '%s' on '%s' is %g, not in [0, 1]",
					  p->jobs[i / J].id, p->cluster.names[i % J], a->x[i]);
	for (int q = 0; q < a->npairs; q++) {
		const hs_pair_alloc_t *pr = &a->pairs[q];
		if (pr->m < 0 || pr->k < 0 || pr->m >= p->njobs || pr->k >= p->njobs || pr->m == pr->k)
			return hs_err_set(err, "allocation pair %d names invalid jobs", q);
		for (int j = 0; j < J; j++)
			if (!isfinite(pr->x[j]) || pr->x[j] < -HS_ALLOC_TOL || pr->x[j] > 1 + HS_ALLOC_TOL)
				return hs_err_set(err, "allocation of pair ('%s', '%s') on '%s' "
						  "is not in [0, 1]", p->jobs[pr->m].id,
						  p->jobs[pr->k].id, p->cluster.names[j]);
	}
	/* Reset: carry deficits, forget time received, clear old shares. */
	const double since = m->clock - m->last_reset;
	for (int i = 0; i < m->nents; i++) {
		hs_mentry_t *e = m->ents[i];
		for (int j = 0; j < m->ntypes; j++) {
			e->def[j] += e->x[j] * since - e->recv[j];
			e->recv[j] = 0.0;
			e->x[j] = 0.0;
		}
	}
	for (int i = 0; i < p->njobs; i++) {
		hs_mentry_t *e = m->prec[i]->single;
		if (!e && !(e = hs_mech_entry_get(m, p->jobs[i].id, NULL, 1, err)))
			return -1;
		for (int j = 0; j < J; j++)
			e->x[m->tmap[j]] = fmin(1.0, fmax(0.0, a->x[(size_t)i * J + j]));
		m->prec[i]->in_alloc = 1;
	}
	for (int q = 0; q < a->npairs; q++) {
		const hs_pair_alloc_t *pr = &a->pairs[q];
		int any = 0;
		for (int j = 0; j < J; j++)
			any |= pr->x[j] > 0.0;
		if (!any)
			continue;
		hs_mentry_t *e = hs_mech_entry_get(m, p->jobs[pr->m].id, p->jobs[pr->k].id, 1, err);
		if (!e)
			return -1;
		for (int j = 0; j < J; j++)
			e->x[m->tmap[j]] += fmin(1.0, fmax(0.0, pr->x[j]));
	}
	for (int j = 0; j < J; j++)
		m->tcount[m->tmap[j]] = p->cluster.count[j];
	m->last_reset = m->clock;
	m->have_alloc = 1;
	m->departed = 0;
	m->st.resets++;
	return 0;
}

/* One schedulable (entry, type) with its sort keys. */
typedef struct cand {
	int ia, ib;          /* problem job indices (ib -1 alone) */
	double prio, def, x;
} cand_t;

static int cmp_cand(const void *pa, const void *pb)
{
	const cand_t *a = pa, *b = pb;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if (a->def != b->def)
		return a->def > b->def ? -1 : 1;
	if (a->x != b->x)
		return a->x > b->x ? -1 : 1;
	if (a->ia != b->ia)
		return a->ia < b->ia ? -1 : 1;
	return a->ib < b->ib ? -1 : a->ib > b->ib;
}

/* How far the entry is behind its allocation: its lag, the time it
 * should have had minus the time it had, counting the deficit carried
 * across resets, def + X E - received (E the time since the reset),
 * in half rounds, u = lag / (R/2), mapped onto a positive scale
 * (1 + u when behind, 1 / (1 - u) when ahead: monotone, 1 on track), so
 * 0 still means "no allocation" and the restart-aware discount still
 * scales it. Largest lag first, not Gavel's X / (received + R/2): Gavel
 * seeds every job's time with R/2 whatever its X, so a job that has not
 * run ranks at X (E + R/2) / (R/2), proportional to X, and a user who
 * splits his work into many small-share jobs (or simply has many small
 * jobs) ranked below every few-large-share job of another user until
 * those had run rounds ahead of their allocation (doc/strategic.md:
 * no GPU in the first hour although entitled to half). Any ratio of
 * should-have over had favours one side: seeding the received time
 * with X R/2 instead ranks every job that has not run above every job
 * that has, and the user with few large jobs waits (bench/fairness.sh:
 * 0.50-0.80 of his entitlement). A lag is additive: a user's lag is the
 * sum of his jobs' lags however he splits the work, and taking the
 * largest first keeps every job within about a round of its allocation.
 * A job that has not run since the reset no longer ranks high by itself:
 * its lag is its carried deficit plus X E (issue 29's "never ran first"
 * stays out). */
static double priority(const hs_mech_t *m, double x, double def, double recv, double since)
{
	if (x <= 0.0)
		return 0.0;
	const double half = 0.5 * (m->o.round_s > 0.0 ? m->o.round_s : HS_ROUND_S_DEFAULT);
	const double u = (def + x * since - recv) / half;
	return u >= 0.0 ? 1.0 + u : 1.0 / (1.0 - u);
}

/* Order in which types pick jobs: fastest first (by each job's throughput
 * relative to its best type, summed), or shuffled. */
static void type_order(hs_mech_t *m, const hs_problem_t *p, int *order)
{
	const int J = p->cluster.ntypes;
	for (int j = 0; j < J; j++)
		order[j] = j;
	if (m->o.shuffle_types) {
		for (int j = J - 1; j > 0; j--) {
			int k = (int)(hs_rng_uniform01(&m->rng) * (j + 1));
			int t = order[j];
			order[j] = order[k];
			order[k] = t;
		}
		return;
	}
	double *score = calloc((size_t)J, sizeof(*score));
	if (!score)
		return; /* index order is still a valid order */
	for (int i = 0; i < p->njobs; i++) {
		double best = 0.0;
		for (int j = 0; j < J; j++)
			best = fmax(best, p->jobs[i].thr[j]);
		if (best > 0.0)
			for (int j = 0; j < J; j++)
				score[j] += p->jobs[i].thr[j] / best;
	}
	for (int a = 1; a < J; a++) {
		int v = order[a], k = a;
		while (k > 0 && score[order[k - 1]] < score[v]) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = v;
	}
	free(score);
}

/* Is entry (ia, ib) runnable on problem type j? */
static int runnable(const hs_problem_t *p, int ia, int ib, int j)
{
	if (ib < 0)
		return p->jobs[ia].thr[j] > 0.0;
	if (p->jobs[ia].scale_factor != p->jobs[ib].scale_factor)
		return 0;
	return hs_job_pair_thr(p, ia, p->jobs[ib].job_type, j) > 0.0 &&
	       hs_job_pair_thr(p, ib, p->jobs[ia].job_type, j) > 0.0;
}

typedef struct pick {
	int ia, ib, type;
	double prio, x;
} pick_t;

/* Builds the candidates of type j (problem index) into c; returns count.
 * single[i] is job i's own entry (NULL if it has none yet). */
/* Restart-aware choice: the share of a round job i would still use on
 * type j after paying the checkpoint + restart cost. 1 when it keeps
 * running there, has never run (nothing to restore), or the cost is
 * ignored; (R - cost) / R otherwise. Priorities are scaled by it, so a
 * running job is displaced only by a job whose need outweighs the time
 * the switch wastes. */
static double useful_share(const hs_mech_t *m, const hs_round_in_t *in, int i, int j)
{
	const double cost = m->o.preempt_cost_s, R = m->o.round_s;
	if (!m->o.restart_aware || cost <= 0.0 || !(R > 0.0) || !m->prec[i]->ever_ran)
		return 1.0;
	if (in->run && in->run[i].ngpus == in->problem->jobs[i].scale_factor &&
	    run_type(in, i) == j)
		return 1.0;
	return cost >= R ? 0.0 : (R - cost) / R;
}

static int candidates(hs_mech_t *m, const hs_round_in_t *in, hs_mentry_t **single, int j,
		      const char *done, cand_t *c)
{
	const hs_problem_t *p = in->problem;
	const int it = m->tmap[j];
	const double since = m->clock - m->last_reset;
	int n = 0;
	/* A job picked on an earlier type is left out: the heap would only
	 * pop and skip it (its order among the others is a total one, so
	 * the others come out the same). */
	for (int i = 0; i < p->njobs; i++) {
		if (done[i] || !runnable(p, i, -1, j))
			continue;
		hs_mentry_t *e = single[i];
		double x = e ? e->x[it] : 0.0;
		if (x <= 0.0 && !m->o.backfill)
			continue;
		double prio = e ? priority(m, x, e->def[it], e->recv[it], since) : 0.0;
		c[n++] = (cand_t){ .ia = i, .ib = -1, .x = x,
				   .prio = prio * useful_share(m, in, i, j),
				   .def = e ? e->def[it] : 0.0 };
	}
	for (int q = 0; q < m->nents; q++) {
		hs_mentry_t *e = m->ents[q];
		if (!e->b || e->x[it] <= 0.0 || e->ia < 0 || e->ib < 0 || done[e->ia] ||
		    done[e->ib] || !runnable(p, e->ia, e->ib, j))
			continue;
		double share = fmin(useful_share(m, in, e->ia, j), useful_share(m, in, e->ib, j));
		c[n++] = (cand_t){ .ia = e->ia < e->ib ? e->ia : e->ib,
				   .ib = e->ia < e->ib ? e->ib : e->ia, .x = e->x[it],
				   .prio = priority(m, e->x[it], e->def[it], e->recv[it], since) * share,
				   .def = e->def[it] };
	}
	return n;
}

/* Candidates form a binary heap with the best (cmp_cand first) on top:
 * a round takes only as many as fit, so popping them (k log n) beats
 * sorting all n when most active jobs wait. */
static void sift_down(cand_t *c, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, best = i;
		if (l < n && cmp_cand(&c[l], &c[best]) < 0)
			best = l;
		if (r < n && cmp_cand(&c[r], &c[best]) < 0)
			best = r;
		if (best == i)
			return;
		cand_t t = c[i];
		c[i] = c[best];
		c[best] = t;
		i = best;
	}
}

static void heapify(cand_t *c, int n)
{
	for (int i = n / 2 - 1; i >= 0; i--)
		sift_down(c, n, i);
}

/* Removes the best candidate into *top; returns the new size. */
static int heap_pop(cand_t *c, int n, cand_t *top)
{
	*top = c[0];
	c[0] = c[n - 1];
	sift_down(c, n - 1, 0);
	return n - 1;
}

/* May the entry (job ia, partner ib or -1) run on server s? */
static int entry_server_ok(const hs_round_in_t *in, int ia, int ib, int s)
{
	if (!in->job_servers)
		return 1;
	const unsigned char *a = in->job_servers[ia];
	const unsigned char *b = ib >= 0 ? in->job_servers[ib] : NULL;
	return (!a || a[s]) && (!b || b[s]);
}

static int entry_restricted(const hs_round_in_t *in, int ia, int ib)
{
	return in->job_servers && (in->job_servers[ia] || (ib >= 0 && in->job_servers[ib]));
}

/* Selection of a restricted entry (some servers only): room on its
 * servers of type j, counting GPUs earlier restricted picks reserved
 * (cfree: free GPUs per server not reserved yet). Reserves sf GPUs (best
 * fit first, then the fullest servers) and returns 1, or 0 without room.
 * Unrestricted picks go anywhere, so the per-type count covers them; the
 * placement then places restricted requests first. */
static int reserve_restricted(const hs_round_in_t *in, int ia, int ib, int j, int sf,
			      int *cfree)
{
	int room = 0, best = -1;
	for (int s = 0; s < in->nservers; s++) {
		if (in->servers[s].type != j || !entry_server_ok(in, ia, ib, s))
			continue;
		room += cfree[s];
		if (cfree[s] >= sf && (best < 0 || cfree[s] < cfree[best]))
			best = s;
	}
	if (room < sf)
		return 0;
	if (best >= 0) {
		cfree[best] -= sf;
		return 1;
	}
	while (sf > 0) {
		int most = -1;
		for (int s = 0; s < in->nservers; s++)
			if (in->servers[s].type == j && entry_server_ok(in, ia, ib, s) &&
			    cfree[s] > 0 && (most < 0 || cfree[s] > cfree[most]))
				most = s;
		int take = cfree[most] < sf ? cfree[most] : sf;
		cfree[most] -= take;
		sf -= take;
	}
	return 1;
}

/* Does job i run on exactly its scale factor on type j? */
static int runs_on(const hs_round_in_t *in, int i, int j)
{
	return in->run && in->run[i].ngpus == in->problem->jobs[i].scale_factor &&
	       run_type(in, i) == j;
}

/* The type job i runs on if it is within its lease (opts.lease_s): it
 * runs on exactly its scale factor and began less than lease_s ago; -1
 * otherwise. The tolerance keeps a caller whose rounds are exactly lease_s
 * apart (the simulator's) from keeping a job a second round on a rounding
 * error of the clock. */
static int leased_type(const hs_mech_t *m, const hs_round_in_t *in, int i)
{
	const hs_mjob_t *j = m->prec[i];
	int t = run_type(in, i);
	if (!(m->o.lease_s > 0.0) || j->run_since < 0.0 || t < 0 || !runs_on(in, i, t) ||
	    m->clock - j->run_since >= m->o.lease_s - 1e-6)
		return -1;
	return t;
}

/* Takes job i's own GPUs off cfree if each is usable and the entry may
 * stay on its server; 1 if taken, 0 (cfree unchanged) if not. */
static int hold_own_gpus(const hs_round_in_t *in, const hs_gpu_pool_t *pool, int i, int ib,
			 int *cfree)
{
	const hs_job_run_t *r = &in->run[i];
	int g = 0;
	for (; g < r->ngpus; g++) {
		int s = r->gpus[g].server;
		if (pool->taken[s][r->gpus[g].gpu] || cfree[s] <= 0 ||
		    !entry_server_ok(in, i, ib, s))
			break;
		cfree[s]--;
	}
	if (g == r->ngpus)
		return 1;
	while (g-- > 0)
		cfree[r->gpus[g].server]++;
	return 0;
}

/* Picks the jobs within their lease first, each on the type and GPUs it
 * runs on (a running pair together), before any priority is compared: an
 * early round does not undo what the round before it just started.
 * Updates tfree (per type), cfree (per server) and done; returns the
 * number of picks. */
static int pick_leased(hs_mech_t *m, const hs_round_in_t *in, const hs_gpu_pool_t *pool,
		       hs_mentry_t **single, int *tfree, int *cfree, char *done, pick_t *picks)
{
	const hs_problem_t *p = in->problem;
	const double since = m->clock - m->last_reset;
	int n = 0;
	for (int i = 0; i < p->njobs; i++) {
		int j = leased_type(m, in, i);
		if (j < 0 || done[i])
			continue;
		int k = running_partner(m, in, i, m->stamp);
		int ia = k >= 0 && k < i ? k : i, ib = k < 0 ? -1 : (k < i ? i : k);
		int sf = p->jobs[i].scale_factor;
		if (!runnable(p, ia, ib, j) || sf > tfree[j] || !hold_own_gpus(in, pool, ia, ib, cfree))
			continue;
		hs_mentry_t *e = ib < 0 ? single[i]
				 : hs_mech_entry_get(m, p->jobs[ia].id, p->jobs[ib].id, 0, NULL);
		const int it = m->tmap[j];
		double x = e ? e->x[it] : 0.0;
		tfree[j] -= sf;
		done[ia] = 1;
		if (ib >= 0)
			done[ib] = 1;
		picks[n++] = (pick_t){ .ia = ia, .ib = ib, .type = j, .x = x,
				       .prio = e ? priority(m, x, e->def[it], e->recv[it], since) : 0.0 };
	}
	return n;
}

/* Greedy selection over types; returns the number of picks or -1. */
static int select_jobs(hs_mech_t *m, const hs_round_in_t *in, const hs_gpu_pool_t *pool,
		       pick_t *picks, hs_err_t *err)
{
	const hs_problem_t *p = in->problem;
	const int J = p->cluster.ntypes;
	int npairs = 0;
	hs_mentry_t **single = calloc((size_t)p->njobs + 1, sizeof(*single));
	int *order = malloc((size_t)J * sizeof(*order));
	char *done = calloc((size_t)p->njobs + 1, 1);
	int *cfree = malloc(((size_t)in->nservers + 1) * sizeof(*cfree));
	int *tfree = malloc(((size_t)J + 1) * sizeof(*tfree));
	if (!single || !order || !done || !cfree || !tfree)
		goto oom;
	for (int j = 0; j < J; j++)
		tfree[j] = hs_gpu_pool_count(pool, j);
	for (int s = 0; s < in->nservers; s++)
		cfree[s] = pool->nfree[s];
	/* Where this round's jobs are: entries' member indices, own entries. */
	for (int q = 0; q < m->nents; q++) {
		hs_mentry_t *e = m->ents[q];
		e->ia = e->ja->seen == m->stamp ? e->ja->pidx : -1;
		e->ib = e->jb && e->jb->seen == m->stamp ? e->jb->pidx : -1;
		npairs += e->b != NULL;
	}
	for (int i = 0; i < p->njobs; i++)
		single[i] = m->prec[i]->single;
	cand_t *c = malloc(((size_t)p->njobs + (size_t)npairs + 1) * sizeof(*c));
	if (!c)
		goto oom;
	type_order(m, p, order);
	int npicks = pick_leased(m, in, pool, single, tfree, cfree, done, picks);
	for (int t = 0; t < J; t++) {
		const int j = order[t];
		int free_gpus = tfree[j];
		if (free_gpus <= 0)
			continue;
		int n = candidates(m, in, single, j, done, c);
		heapify(c, n);
		while (n > 0 && free_gpus > 0) {
			cand_t top;
			n = heap_pop(c, n, &top);
			if (done[top.ia] || (top.ib >= 0 && done[top.ib]))
				continue;
			int sf = p->jobs[top.ia].scale_factor; /* a pair counts once */
			if (sf > free_gpus)
				continue;
			/* A restricted job running on this type counts its own
			 * GPUs (placement keeps them), not the best fit's. */
			if (entry_restricted(in, top.ia, top.ib) &&
			    !(runs_on(in, top.ia, j) && hold_own_gpus(in, pool, top.ia, top.ib, cfree)) &&
			    !reserve_restricted(in, top.ia, top.ib, j, sf, cfree))
				continue;
			free_gpus -= sf;
			done[top.ia] = 1;
			if (top.ib >= 0)
				done[top.ib] = 1;
			picks[npicks++] = (pick_t){ .ia = top.ia, .ib = top.ib, .type = j,
						    .prio = top.prio, .x = top.x };
		}
	}
	free(single);
	free(order);
	free(done);
	free(cfree);
	free(tfree);
	free(c);
	return npicks;
oom:
	free(single);
	free(order);
	free(done);
	free(cfree);
	free(tfree);
	return hs_err_set(err, "out of memory");
}

/* GPUs the entry held last round on type j that it may keep: the first
 * member running there with exactly its scale factor. */
static const hs_job_run_t *lease_of(const hs_round_in_t *in, const pick_t *pk)
{
	int members[2] = { pk->ia, pk->ib };
	for (int k = 0; k < 2 && in->run; k++) {
		int i = members[k];
		if (i < 0)
			continue;
		const hs_job_run_t *r = &in->run[i];
		if (r->ngpus == in->problem->jobs[i].scale_factor && run_type(in, i) == pk->type)
			return r;
	}
	/* a suspended job that can only be resumed where it is: its GPUs,
	 * when no member runs (its server mask keeps it to their nodes; on
	 * a node with several GPUs of the type this picks the right ones) */
	for (int k = 0; k < 2 && in->home; k++) {
		int i = members[k];
		if (i < 0)
			continue;
		const hs_job_run_t *h = &in->home[i];
		if (h->ngpus == in->problem->jobs[i].scale_factor && h->ngpus > 0 &&
		    in->servers[h->gpus[0].server].type == pk->type)
			return h;
	}
	return NULL;
}

void hs_round_out_free(hs_round_out_t *out)
{
	if (!out)
		return;
	free(out->gpu_block); /* every d[i].gpus points into it */
	free(out->d);
	memset(out, 0, sizeof(*out));
}

/* Fills the decision of job i from its pick and placement. */
static void decide(hs_mech_t *m, const hs_round_in_t *in, const pick_t *pk,
		   const hs_place_req_t *r, int i, int partner, hs_decision_t *d)
{
	const hs_job_run_t *run = in->run ? &in->run[i] : NULL;
	hs_mjob_t *j = m->prec[i];
	d->type = pk->type;
	d->ngpus = r->ngpus;
	d->gpus = r->gpus; /* the round's placement space, out->gpu_block */
	d->nservers = r->nservers;
	d->partner = partner;
	d->priority = pk->prio;
	d->x = pk->x;
	if (run && run->ngpus > 0) {
		if (hs_gpu_set_equal(run->gpus, run->ngpus, r->gpus, r->ngpus)) {
			d->action = HS_ACT_KEEP;
		} else {
			d->action = HS_ACT_MIGRATE;
			d->resume = 1;
		}
	} else {
		d->action = HS_ACT_START;
		d->resume = j->ever_ran;
	}
	if (d->resume)
		d->cost_s = m->o.preempt_cost_s;
}

/* Remembers the decisions (placements by node name, partners) and counts. */
static int remember(hs_mech_t *m, const hs_round_in_t *in, hs_round_out_t *out)
{
	const hs_problem_t *p = in->problem;
	int cap = 0;
	for (int i = 0; i < p->njobs; i++)
		cap = out->d[i].ngpus > cap ? out->d[i].ngpus : cap;
	const char **names = malloc(((size_t)cap + 1) * sizeof(*names));
	int *gpus = malloc(((size_t)cap + 1) * sizeof(*gpus));
	if (!names || !gpus) {
		free(names);
		free(gpus);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < p->njobs && rc == 0; i++) {
		const hs_decision_t *d = &out->d[i];
		hs_mjob_t *j = m->prec[i];
		for (int g = 0; g < d->ngpus; g++) {
			names[g] = in->servers[d->gpus[g].server].name;
			gpus[g] = d->gpus[g].gpu;
		}
		rc = hs_mjob_set_place(j, d->type >= 0 ? m->tmap[d->type] : -1, d->ngpus, names,
				       gpus, d->partner >= 0 ? p->jobs[d->partner].id : NULL);
		if (d->ngpus > 0)
			j->ever_ran = 1;
		if (d->action == HS_ACT_START || d->action == HS_ACT_MIGRATE)
			j->run_since = m->clock;
		else if (d->action != HS_ACT_KEEP)
			j->run_since = -1.0;
		switch (d->action) {
		case HS_ACT_START:
			out->nstart++;
			m->st.starts++;
			m->st.resumes += d->resume;
			break;
		case HS_ACT_KEEP:
			out->nkeep++;
			m->st.keeps++;
			break;
		case HS_ACT_MIGRATE:
			out->nmigrate++;
			m->st.migrations++;
			break;
		case HS_ACT_PREEMPT:
			out->npreempt++;
			m->st.preemptions++;
			break;
		case HS_ACT_NONE:
			break;
		}
		m->st.cost_s += d->cost_s;
		if (in->run && in->run[i].ngpus > 0)
			m->st.lease_opportunities++;
	}
	free(names);
	free(gpus);
	return rc;
}

/* Per pick, the servers its request may use (NULL = any): the job's
 * own, or for a pair of two restricted jobs both combined (in *owned).
 * NULL on out of memory. */
static const unsigned char **pick_masks(const hs_round_in_t *in, const pick_t *picks, int n,
					unsigned char **owned)
{
	const unsigned char **masks = calloc((size_t)n + 1, sizeof(*masks));
	if (!masks || !in->job_servers)
		return masks;
	for (int k = 0; k < n; k++) {
		const unsigned char *a = in->job_servers[picks[k].ia];
		const unsigned char *b = picks[k].ib >= 0 ? in->job_servers[picks[k].ib] : NULL;
		masks[k] = a ? a : b;
		if (!a || !b)
			continue;
		if (!*owned && !(*owned = calloc((size_t)n * (size_t)in->nservers + 1, 1))) {
			free(masks);
			return NULL;
		}
		unsigned char *both = *owned + (size_t)k * (size_t)in->nservers;
		for (int s = 0; s < in->nservers; s++)
			both[s] = a[s] && b[s];
		masks[k] = both;
	}
	return masks;
}

int hs_mech_schedule(hs_mech_t *m, const hs_round_in_t *in, const hs_alloc_t *alloc,
		     hs_round_out_t *out, hs_err_t *err)
{
	memset(out, 0, sizeof(*out));
	if (!m->in_round || !in || in->problem != m->round_problem)
		return hs_err_set(err, "hs_mech_schedule must follow hs_mech_begin_round "
				  "with the same round input");
	m->in_round = 0;
	const hs_problem_t *p = in->problem;
	out->round = m->round;
	out->njobs = p->njobs;
	out->d = calloc((size_t)p->njobs + 1, sizeof(*out->d));
	if (!out->d)
		return hs_err_set(err, "out of memory");
	for (int i = 0; i < p->njobs; i++) {
		out->d[i].type = -1;
		out->d[i].partner = -1;
	}
	if (alloc) {
		if (install_alloc(m, in, alloc, err) < 0)
			return -1;
		out->reset = 1;
	}

	hs_gpu_pool_t pool;
	const int checked = in->servers == m->round_servers && in->nservers == m->round_nservers;
	if ((checked ? hs_gpu_pool_init_unique(&pool, in->servers, in->nservers, p->cluster.ntypes,
					       err)
		     : hs_gpu_pool_init(&pool, in->servers, in->nservers, p->cluster.ntypes, err)) < 0)
		return -1;
	for (int s = 0; s < in->nservers; s++)
		out->gpus_usable += pool.nfree[s];
	int rc = -1;
	int total = out->gpus_usable;
	const unsigned char **masks = NULL;
	unsigned char *owned = NULL;
	pick_t *picks = malloc(((size_t)p->njobs + 1) * sizeof(*picks));
	hs_place_req_t *reqs = calloc((size_t)p->njobs + 1, sizeof(*reqs));
	hs_gpu_ref_t *space = malloc(((size_t)total + 1) * sizeof(*space));
	out->gpu_block = space; /* the decisions' GPUs stay there */
	if (!picks || !reqs || !space) {
		hs_err_set(err, "out of memory");
		goto done;
	}
	int npicks = select_jobs(m, in, &pool, picks, err);
	if (npicks < 0)
		goto done;
	masks = pick_masks(in, picks, npicks, &owned);
	if (!masks) {
		hs_err_set(err, "out of memory");
		goto done;
	}
	int used = 0;
	for (int k = 0; k < npicks; k++) {
		const hs_job_run_t *lease = lease_of(in, &picks[k]);
		reqs[k].type = picks[k].type;
		reqs[k].ngpus = p->jobs[picks[k].ia].scale_factor;
		reqs[k].prev = lease ? lease->gpus : NULL;
		reqs[k].nprev = lease ? lease->ngpus : 0;
		reqs[k].allowed = masks[k];
		reqs[k].gpus = space + used;
		used += reqs[k].ngpus;
	}
	if (hs_place(&pool, reqs, npicks, err) < 0)
		goto done;
	for (int k = 0; k < npicks; k++)
		if (!reqs[k].placed)
			used -= reqs[k].ngpus; /* its servers filled up: not this round */
	out->gpus_used = used;
	for (int k = 0; k < npicks; k++) {
		const pick_t *pk = &picks[k];
		if (!reqs[k].placed)
			continue;
		decide(m, in, pk, &reqs[k], pk->ia, pk->ib, &out->d[pk->ia]);
		if (pk->ib >= 0)
			decide(m, in, pk, &reqs[k], pk->ib, pk->ia, &out->d[pk->ib]);
	}
	for (int i = 0; i < p->njobs; i++)
		if (out->d[i].ngpus == 0 && in->run && in->run[i].ngpus > 0)
			out->d[i].action = HS_ACT_PREEMPT;
	if (remember(m, in, out) < 0) {
		hs_err_set(err, "out of memory");
		goto done;
	}
	m->round++;
	m->st.rounds++;
	rc = 0;
done:
	free(masks);
	free(owned);
	free(picks);
	free(reqs);
	hs_gpu_pool_free(&pool);
	return rc;
}

void hs_mech_get_stats(const hs_mech_t *m, hs_mech_stats_t *s)
{
	*s = m->st;
}

