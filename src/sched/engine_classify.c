/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_classify.c — the first half of the "snapshot -> problem" stage
 * (hs_build_round, engine_problem.c): what the snapshot's nodes and GPUs
 * are to this round (managed types, owners of each GPU, unmodelled
 * holdings), every job's role (engine_impl.h, hs_role_t) with the GPU
 * types it may use, and the servers with the GPUs the policy may give out.
 * Each step reads the snapshot and the steps before it through the
 * scratch (engine_scratch.h). See engine.h for the rules; the non-obvious
 * choices are commented where they are made.
 */
#include "sched/engine_scratch.h"

#include <stdlib.h>
#include <string.h>

/* Jobs holding GPUs the snapshot does not model (a node with several
 * GPU types or without File=, an index above the node's count): the
 * job is left alone and every GPU of its nodes is unusable this round,
 * instead of failing the round for the whole cluster. */
void hs_classify_unmodelled(hs_engine_t *e, const hs_snap_t *s, hs_round_scratch_t *sc)
{
	for (int i = 0; i < s->njobs; i++) {
		int k = hs_sjob_unmodelled(s, &s->jobs[i]);
		if (k < 0)
			continue;
		sc->unmod[i] = 1;
		for (int x = 0; x < s->jobs[i].nheld; x++)
			sc->node_bad[s->jobs[i].held[x].node] = 1;
		const hs_sgpu_t *g = &s->jobs[i].held[k];
		const hs_snode_t *nd = &s->nodes[g->node];
		if (hs_warn_once(e, s->jobs[i].id, HS_WARN_UNMODELLED))
			hs_engine_logf(e, HS_LOG_ERROR,
				       "job %u holds GPU %d of node %s, which hetsched does not "
				       "model (%s%d): the job is left alone and the GPUs of its "
				       "nodes are not scheduled while it runs", s->jobs[i].id, g->gpu,
				       nd->name, nd->ngpus ? "GPU count " : "several GPU types or "
				       "no File= in gres.conf, GPUs seen ", nd->ngpus);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void hs_classify_types(const hs_snap_t *s, hs_round_scratch_t *sc)
{
	const int N = s->nnodes;
	int J = 0;
	/* Managed nodes: members of a managed partition. */
	for (int p = 0; p < s->nparts; p++)
		if (s->parts[p].managed)
			for (int k = 0; k < s->parts[p].nnodes; k++)
				sc->node_managed[s->parts[p].nodes[k]] = 1;

	/* Types: the GRES types of managed GPU nodes, sorted by name so the
	 * problem is the same whatever the node order. */
	for (int n = 0; n < N; n++) {
		const hs_snode_t *nd = &s->nodes[n];
		if (!sc->node_managed[n] || nd->ngpus <= 0 || !nd->gpu_type)
			continue;
		int found = 0;
		/* nodes of a type usually share one string: pointers first */
		for (int j = 0; j < J && !found; j++)
			found = sc->tnames[j] == nd->gpu_type;
		for (int j = 0; j < J && !found; j++)
			found = !strcmp(sc->tnames[j], nd->gpu_type);
		if (!found)
			sc->tnames[J++] = nd->gpu_type;
	}
	qsort(sc->tnames, (size_t)J, sizeof(*sc->tnames), cmp_str);
	int total_gpus = 0;
	for (int n = 0; n < N; n++) {
		const hs_snode_t *nd = &s->nodes[n];
		sc->node_type[n] = -1;
		sc->node_base[n] = total_gpus;
		if (!sc->node_managed[n] || nd->ngpus <= 0 || !nd->gpu_type)
			continue;
		/* the names are unique: the first match is the only one */
		for (int j = 0; j < J && sc->node_type[n] < 0; j++)
			if (sc->tnames[j] == nd->gpu_type)
				sc->node_type[n] = j;
		for (int j = 0; j < J && sc->node_type[n] < 0; j++)
			if (!strcmp(sc->tnames[j], nd->gpu_type))
				sc->node_type[n] = j;
		total_gpus += nd->ngpus;
	}
	sc->ntypes = J;
	sc->total_gpus = total_gpus;
}

void hs_classify_capacity(const hs_snap_t *s, hs_round_scratch_t *sc)
{
	const int J = sc->ntypes;
	for (int n = 0; n < s->nnodes; n++)
		if (sc->node_type[n] >= 0) {
			int t = sc->node_type[n];
			sc->type_total[t] += s->nodes[n].ngpus;
			if (s->nodes[n].ngpus > sc->type_maxnode[t])
				sc->type_maxnode[t] = s->nodes[n].ngpus;
		}
	for (int p = 0; p < s->nparts; p++)
		for (int k = 0; k < s->parts[p].nnodes; k++) {
			int t = sc->node_type[s->parts[p].nodes[k]];
			if (t >= 0)
				sc->part_types[(size_t)p * J + t] = 1;
		}
}

/* Two jobs may share GPUs only as a packed pair holding exactly the
 * same GPUs (doc/packing.md); anything else makes the GPU nobody's. */
static void check_packed_owners(const hs_snap_t *s, hs_round_scratch_t *sc)
{
	for (int g = 0; g < sc->total_gpus; g++) {
		int a = sc->node_owner[g], c = sc->node_owner2[g];
		if (a < 0 || c < 0)
			continue;
		const hs_sjob_t *ja = &s->jobs[a], *jc = &s->jobs[c];
		int same = ja->nheld == jc->nheld;
		for (int k = 0; k < ja->nheld && same; k++) {
			int found = 0;
			for (int x = 0; x < jc->nheld && !found; x++)
				found = ja->held[k].node == jc->held[x].node &&
					ja->held[k].gpu == jc->held[x].gpu;
			same = found;
		}
		if (!same)
			sc->node_owner[g] = -2;
	}
}

/* Owners of managed GPUs, from the jobs' own GPU lists. */
void hs_classify_owners(const hs_snap_t *s, hs_round_scratch_t *sc)
{
	for (int g = 0; g < sc->total_gpus; g++)
		sc->node_owner[g] = sc->node_owner2[g] = -1;
	for (int i = 0; i < s->njobs; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		for (int k = 0; k < sj->nheld && !sc->unmod[i]; k++) {
			int n = sj->held[k].node;
			/* the node's own allocation bitmap is authoritative: a
			 * stale job record does not make a free GPU busy */
			if (sc->node_type[n] < 0 || !s->nodes[n].gpu_held[sj->held[k].gpu])
				continue;
			int slot = sc->node_base[n] + sj->held[k].gpu;
			if (sc->node_owner[slot] == -1)
				sc->node_owner[slot] = i;
			else if (sc->node_owner[slot] >= 0 && sc->node_owner2[slot] < 0 &&
				 sc->node_owner[slot] != i)
				sc->node_owner2[slot] = i; /* packed partner (checked below) */
			else
				sc->node_owner[slot] = -2; /* three jobs or a duplicate */
		}
	}
	check_packed_owners(s, sc);
}

/* Does job i hold only GPUs of one managed type that it owns (alone or
 * with its packed partner)? *htype: that type (the last seen, -1 none). */
static int holds_ok(const hs_snap_t *s, const hs_round_scratch_t *sc, int i, int *htype)
{
	const hs_sjob_t *sj = &s->jobs[i];
	int ok = sj->nheld > 0;
	*htype = -1;
	for (int k = 0; k < sj->nheld && ok; k++) {
		int t = sc->node_type[sj->held[k].node];
		int slot = sc->node_base[sj->held[k].node] + sj->held[k].gpu;
		if (t < 0 || (*htype >= 0 && t != *htype) ||
		    (sc->node_owner[slot] != i && sc->node_owner2[slot] != i) ||
		    sc->node_owner[slot] == -2)
			ok = 0;
		*htype = t;
	}
	return ok;
}

/* The role of a GPU job of a managed partition from its state, its
 * in-flight op and whether it can be preempted (hints parsed). */
static hs_role_t state_role(hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			    int i, int ok_held, int ours_suspended, int part_up)
{
	const hs_sjob_t *sj = &s->jobs[i];
	const hs_op_t *op = hs_op_find(e, sj->id);
	hs_preempt_rules_t rules = hs_preempt_rules(e, s->now);
	hs_preempt_job_t pjob = hs_preempt_job(b, sj, i);
	hs_role_t role = HS_ROLE_SKIP;
	switch (sj->state) {
	case HS_SJ_RUNNING:
		/* checkpoint in flight, or a requeue a slurmctld crash
		 * lost that the ops repeat (engine_recover.c) */
		if (op && (op->kind == HS_OP_CKPT || (op->kind == HS_OP_REQUEUED && op->restored)) &&
		    op->restart_cnt == sj->restart_cnt)
			role = HS_ROLE_LEAVING;
		else if (ok_held && hs_preempt_able(&rules, &pjob))
			role = HS_ROLE_ACTIVE;
		else
			role = HS_ROLE_PINNED;
		break;
	case HS_SJ_SUSPENDED:
		/* Only jobs hetsched suspended itself are resumed by it;
		 * an administrator's suspend is left alone. */
		if (ours_suspended && ok_held && hs_preempt_able(&rules, &pjob))
			role = HS_ROLE_ACTIVE;
		else if (ours_suspended)
			role = HS_ROLE_RESUME; /* requeue=0, PreemptMode changed... */
		else
			role = HS_ROLE_PINNED;
		break;
	case HS_SJ_PENDING:
		/* A job hetsched requeued stays active while Slurm's
		 * requeue delay runs (it keeps its history and may get
		 * its restart target). */
		if ((sj->eligible || (op && op->kind == HS_OP_REQUEUED)) && sj->shape_ok && part_up)
			role = HS_ROLE_ACTIVE;
		/* its lost start may still run on its node */
		if (hs_recover_held(e, sj->id, s->now))
			role = HS_ROLE_SKIP;
		break;
	case HS_SJ_OTHER:
		if (op && op->kind == HS_OP_REQUEUED && s->now - op->t0 < HS_LEAVING_MAX_S)
			role = HS_ROLE_LEAVING;
		break;
	}
	return role;
}

/* Types job i may use (sc->allowed): the one it asked for, present in
 * one of its managed partitions, with enough GPUs. 1 if any. */
static int allowed_types(const hs_snap_t *s, hs_round_scratch_t *sc, int i, int htype)
{
	const hs_sjob_t *sj = &s->jobs[i];
	const int J = sc->ntypes;
	unsigned char *allowed = &sc->allowed[(size_t)i * J];
	int any = 0;
	for (int j = 0; j < J; j++) {
		int ok = 0;
		for (int k = 0; k < sj->nparts && !ok; k++)
			ok = s->parts[sj->parts[k]].managed &&
			     sc->part_types[(size_t)sj->parts[k] * J + j];
		if (sj->gpu_type && strcmp(sj->gpu_type, sc->tnames[j]))
			ok = 0;
		if (sc->type_total[j] < sj->gpus)
			ok = 0;
		if (sj->gpus_per_node > sc->type_maxnode[j])
			ok = 0;
		if (sj->state == HS_SJ_PENDING && !hs_nodes_have_type(s, sj, sc->node_type, j))
			ok = 0; /* none of its nodes has the type */
		allowed[j] = (unsigned char)ok;
		any |= ok;
	}
	/* A running job is always allowed where it runs. */
	if (sj->state == HS_SJ_RUNNING && htype >= 0 && !allowed[htype]) {
		allowed[htype] = 1;
		any = 1;
	}
	return any;
}

/* A running or suspended job the rounds may suspend but never move
 * (PreemptMode=suspend: no checkpoint, --no-requeue, salloc) is offered
 * only the type it holds, so the mechanism keeps or resumes it there
 * instead of choosing a type it could never get to. */
static void stay_on_type(const hs_engine_t *e, const hs_snap_t *s, hs_round_scratch_t *sc,
			 const hs_round_build_t *b, int i, int htype)
{
	const hs_sjob_t *sj = &s->jobs[i];
	if (sj->nheld <= 0 || htype < 0 || sj->state == HS_SJ_PENDING)
		return;
	hs_preempt_rules_t rules = hs_preempt_rules(e, s->now);
	hs_preempt_job_t pjob = hs_preempt_job(b, sj, i);
	if (hs_preempt_movable(&rules, &pjob))
		return;
	unsigned char *allowed = &sc->allowed[(size_t)i * sc->ntypes];
	for (int j = 0; j < sc->ntypes; j++)
		allowed[j] = j == htype;
}

/* MaxJobs with more candidates than slots. Running and suspended jobs come
 * first (moving them out of the problem would stop them), then pending
 * jobs by priority and age. A strict priority cut would leave the jobs
 * beyond it out of every round — never started even on GPUs no job in
 * the problem can use, without a fair share however long they wait — so
 * a quarter of the slots left to pending jobs (at least one) rotates,
 * round by round, through the jobs beyond the priority part: each
 * eligible job is in the problem at least once every
 * ceil(beyond / rotating) rounds, while the head of the queue keeps
 * three quarters of the slots. `round` is the round being built. */
static void cut_max_jobs(const hs_sconf_t *c, const hs_snap_t *s, hs_round_build_t *b,
			 hs_queue_key_t *cands, int ncand, long round)
{
	/* group 0: running and suspended jobs, 1: pending */
	qsort(cands, (size_t)ncand, sizeof(*cands), hs_queue_key_cmp);
	int nrun = 0;
	while (nrun < ncand && cands[nrun].group == 0)
		nrun++;
	int slots = c->max_jobs - nrun; /* for pending jobs */
	int keep = slots, rot = 0, beyond = 0, first = 0;
	if (slots > 1) {
		rot = slots / 4 > 0 ? slots / 4 : 1;
		keep = slots - rot;
		beyond = ncand - nrun - keep; /* > rot since ncand > max_jobs */
		first = (int)(((round > 0 ? round - 1 : 0) * (long)rot) % beyond);
	}
	for (int k = 0; k < ncand; k++) {
		int in;
		if (k < nrun)
			in = k < c->max_jobs;
		else if (slots <= 0 || k - nrun < keep)
			in = slots > 0;
		else if (rot == 0)
			in = 0;
		else /* position among the jobs beyond, from the rotation's start */
			in = ((k - nrun - keep) - first + beyond) % beyond < rot;
		int i = cands[k].snap;
		if (in || b->role[i] != HS_ROLE_ACTIVE)
			continue;
		/* A job we suspended would sit out the cut suspended,
		 * holding its GPUs: it runs on them instead. */
		b->role[i] = s->jobs[i].state == HS_SJ_SUSPENDED ? HS_ROLE_RESUME : HS_ROLE_CUT;
	}
}

void hs_classify_roles(hs_engine_t *e, const hs_snap_t *s, hs_round_scratch_t *sc,
		       hs_round_build_t *b)
{
	sc->ncand = 0;
	for (int i = 0; i < s->njobs; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		b->snap_pjob[i] = -1;
		int managed = 0, part_up = 0;
		for (int k = 0; k < sj->nparts; k++)
			if (s->parts[sj->parts[k]].managed) {
				managed = 1;
				part_up |= s->parts[sj->parts[k]].up;
			}
		const hs_jacct_t *ac = hs_acct_find(e, sj->id);
		/* A job hetsched suspended is never left suspended: whatever
		 * keeps it out of the rounds now, it is resumed. */
		int ours_suspended = sj->state == HS_SJ_SUSPENDED && ac && ac->suspended_by_us;
		if (managed && part_up && sj->state == HS_SJ_PENDING && sj->eligible &&
		    !sj->shape_ok) {
			b->role[i] = HS_ROLE_SHAPE;
			continue;
		}
		if (!managed || sj->gpus <= 0 || sc->ntypes == 0) {
			b->role[i] = ours_suspended ? HS_ROLE_RESUME : HS_ROLE_SKIP;
			continue;
		}
		if (sc->unmod[i]) {
			b->role[i] = ours_suspended ? HS_ROLE_RESUME : HS_ROLE_UNMODELLED;
			continue;
		}
		hs_jmemo_hints(e, sj, &b->hints[i]);
		b->requeue_kept[i] = (unsigned char)hs_requeue_kept(e, sj);
		int htype;
		int ok_held = holds_ok(s, sc, i, &htype);
		hs_role_t role = state_role(e, s, b, i, ok_held, ours_suspended, part_up);
		if ((role == HS_ROLE_ACTIVE || role == HS_ROLE_LEAVING) &&
		    !allowed_types(s, sc, i, htype))
			role = role == HS_ROLE_LEAVING ? HS_ROLE_LEAVING : HS_ROLE_NOFIT;
		if (role == HS_ROLE_ACTIVE)
			stay_on_type(e, s, sc, b, i, htype);
		b->role[i] = role;
		if (role == HS_ROLE_ACTIVE || role == HS_ROLE_LEAVING)
			sc->cands[sc->ncand++] = hs_queue_key(s, i, sj->state == HS_SJ_PENDING);
	}
	if (sc->ncand > e->conf.max_jobs)
		cut_max_jobs(&e->conf, s, b, sc->cands, sc->ncand, e->rounds + 1);
}

/* Whether GPU g of server node n is the policy's to give out. */
static int gpu_usable(const hs_snap_t *s, const hs_round_scratch_t *sc, const hs_round_build_t *b,
		      int n, int g)
{
	int o = sc->node_owner[sc->node_base[n] + g], o2 = sc->node_owner2[sc->node_base[n] + g];
	if (o >= 0)
		return b->role[o] == HS_ROLE_ACTIVE && (o2 < 0 || b->role[o2] == HS_ROLE_ACTIVE);
	if (o == -2 || hs_node_hold_only(s, sc->node_bad, n))
		return 0; /* an active job's own GPUs there stay usable (it may
		           * stay); the free ones are not given out */
	return !s->nodes[n].gpu_held[g];
}

/* Usable GPUs: on available managed nodes, free or held by an active
 * job; on unavailable nodes only those an active job holds (so it may
 * stay there). Everything else is not ours to give. */
int hs_classify_servers(const hs_snap_t *s, hs_round_scratch_t *sc, hs_round_build_t *b)
{
	const int N = s->nnodes;
	b->owner = malloc(((size_t)sc->total_gpus + 1) * sizeof(int));
	b->owner2 = malloc(((size_t)sc->total_gpus + 1) * sizeof(int));
	b->owner_base = calloc((size_t)N + 1, sizeof(int));
	b->servers = calloc((size_t)N + 1, sizeof(*b->servers));
	b->usable = calloc((size_t)N + 1, sizeof(*b->usable));
	/* every row at its node's slot: managed typed nodes have disjoint
	 * slot ranges of total_gpus (hs_classify_types) */
	b->usable_space = calloc((size_t)sc->total_gpus + 1, 1);
	if (!b->owner || !b->owner2 || !b->owner_base || !b->servers || !b->usable ||
	    !b->usable_space)
		return -1;
	for (int n = 0; n < N; n++) {
		b->node_server[n] = -1;
		if (sc->node_type[n] < 0)
			continue;
		const hs_snode_t *nd = &s->nodes[n];
		int sv = b->nservers;
		b->usable[sv] = b->usable_space + sc->node_base[n];
		b->owner_base[sv] = sc->node_base[n];
		for (int g = 0; g < nd->ngpus; g++) {
			int slot = sc->node_base[n] + g;
			b->owner[slot] = sc->node_owner[slot];
			/* a partner only beside a real owner (not -2: nobody's) */
			b->owner2[slot] = sc->node_owner[slot] >= 0 ? sc->node_owner2[slot] : -1;
			int u = gpu_usable(s, sc, b, n, g);
			b->usable[sv][g] = (unsigned char)u;
			sc->count[sc->node_type[n]] += u;
		}
		b->servers[sv] = (hs_server_t){ .name = nd->name, .type = sc->node_type[n],
						.ngpus = nd->ngpus, .usable = b->usable[sv] };
		b->node_server[n] = sv;
		b->nservers++;
	}
	return 0;
}
