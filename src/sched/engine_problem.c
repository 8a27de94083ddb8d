/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_problem.c — translates a snapshot into the round's input: roles
 * of jobs, the core problem (types, usable counts, jobs with throughput
 * estimates, weights, entities, remaining work), servers with their
 * usable GPUs, and where active jobs run now. See engine.h for the rules;
 * the non-obvious choices are commented where they are made.
 */
#include "sched/engine_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hs_build_free(hs_round_build_t *b)
{
	if (!b)
		return;
	hs_problem_free(&b->problem);
	free(b->servers);
	if (b->usable)
		for (int i = 0; i < b->nservers; i++)
			free(b->usable[i]);
	free(b->usable);
	free(b->node_server);
	free(b->run);
	free(b->run_space);
	free(b->pjob_snap);
	free(b->snap_pjob);
	free(b->role);
	free(b->busy);
	free(b->hints);
	free(b->owner);
	free(b->owner_base);
	free(b->src);
	free(b->meas);
	free(b->units);
	if (b->job_servers)
		for (int k = 0; k < b->njob_servers; k++)
			free(b->job_servers[k]);
	free(b->job_servers);
	memset(b, 0, sizeof(*b));
}

/* The table's pair throughputs are in the table's units, a job's
 * estimates (jb->thr) in the job's own: measured steps/s replace table
 * values (estimate.h), and a job measures its table rate times a factor
 * (the emulator's --time-scale, real GPUs against Gavel's), while a job
 * not measured yet is in table units. The packed policies (and FIFO's and
 * Gandiva's packing) compare a pair's throughput with the job's alone
 * throughput, so with mixed units every pair of measured jobs looked that
 * factor slower than time slicing and the policy unpacked them all.
 * Pair rows are per job type, units are per job: so each job of a table
 * job type is put into table units instead, dividing its throughputs AND
 * its remaining steps by its factor r (mean over GPU types of estimate /
 * table-alone). Times (steps / throughput) are unchanged, so are every
 * policy's time-based inputs; max-min fairness normalizes each job by its
 * own throughput anyway; the ratios between GPU types stay the job's. */
static void jobs_in_table_units(const hs_thrtable_t *t, hs_problem_t *pb, double *units)
{
	const int J = pb->cluster.ntypes;
	for (int k = 0; k < pb->njobs; k++) {
		hs_job_t *jb = &pb->jobs[k];
		double sum = 0;
		int n = 0;
		if (jb->job_type < 0)
			continue;
		for (int j = 0; j < J; j++) {
			double tab = hs_thrtable_alone(t, jb->job_type, pb->cluster.names[j], 1);
			if (tab > 0 && isfinite(tab) && jb->thr[j] > 0 && isfinite(jb->thr[j])) {
				sum += jb->thr[j] / tab;
				n++;
			}
		}
		double r = n ? sum / n : 1.0;
		/* Estimates are within [1e-6, 1e12) (estimate.c), table rows
		 * too: r is a time scale or a hardware factor. One outside
		 * this band leaves the job in its own units rather than
		 * pushing its numbers towards 0 or infinity. */
		if (!(r >= 1e-6 && r <= 1e6) || r == 1.0)
			continue;
		for (int j = 0; j < J; j++)
			jb->thr[j] /= r;
		jb->remaining_steps /= r;
		if (!(jb->remaining_steps >= 1.0))
			jb->remaining_steps = 1.0;
		units[k] = r;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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

/* Sort keys: job id in the high half, snapshot index in the low. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int hs_build_round(hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b, hs_err_t *err)
{
	const hs_sconf_t *c = &e->conf;
	const int N = s->nnodes, M = s->njobs, P = s->nparts;
	int rc = -1;
	unsigned char *node_managed = NULL, *part_types = NULL, *allowed = NULL;
	char **tnames = NULL;
	int *node_type = NULL, *type_total = NULL, *type_maxnode = NULL, *node_base = NULL;
	int *node_owner = NULL, *node_owner2 = NULL, *count = NULL;
	unsigned char *unmod = NULL, *node_bad = NULL;
	hs_queue_key_t *cands = NULL;
	int *order = NULL;
	uint64_t *keys = NULL;
	int J = 0;

	memset(b, 0, sizeof(*b));
	if (hs_snap_validate(s, err) < 0)
		return -1;
	node_managed = calloc((size_t)N + 1, 1);
	node_type = malloc(((size_t)N + 1) * sizeof(int));
	node_base = calloc((size_t)N + 1, sizeof(int));
	b->role = calloc((size_t)M + 1, sizeof(*b->role));
	b->busy = calloc((size_t)M + 1, 1);
	b->hints = calloc((size_t)M + 1, sizeof(*b->hints));
	b->snap_pjob = malloc(((size_t)M + 1) * sizeof(int));
	b->node_server = malloc(((size_t)N + 1) * sizeof(int));
	tnames = calloc((size_t)N + 1, sizeof(char *));
	unmod = calloc((size_t)M + 1, 1);
	node_bad = calloc((size_t)N + 1, 1);
	if (!node_managed || !node_type || !node_base || !b->role || !b->busy || !b->hints ||
	    !b->snap_pjob || !b->node_server || !tnames || !unmod || !node_bad)
		goto oom;

	/* Jobs holding GPUs the snapshot does not model (a node with several
	 * GPU types or without File=, an index above the node's count): the
	 * job is left alone and every GPU of its nodes is unusable this
	 * round, instead of failing the round for the whole cluster. */
	for (int i = 0; i < M; i++) {
		int k = hs_sjob_unmodelled(s, &s->jobs[i]);
		if (k < 0)
			continue;
		unmod[i] = 1;
		for (int x = 0; x < s->jobs[i].nheld; x++)
			node_bad[s->jobs[i].held[x].node] = 1;
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

	/* Managed nodes: members of a managed partition. */
	for (int p = 0; p < P; p++)
		if (s->parts[p].managed)
			for (int k = 0; k < s->parts[p].nnodes; k++)
				node_managed[s->parts[p].nodes[k]] = 1;

	/* Types: the GRES types of managed GPU nodes, sorted by name so the
	 * problem is the same whatever the node order. */
	for (int n = 0; n < N; n++) {
		const hs_snode_t *nd = &s->nodes[n];
		if (!node_managed[n] || nd->ngpus <= 0 || !nd->gpu_type)
			continue;
		int found = 0;
		for (int j = 0; j < J && !found; j++)
			found = !strcmp(tnames[j], nd->gpu_type);
		if (!found)
			tnames[J++] = nd->gpu_type;
	}
	qsort(tnames, (size_t)J, sizeof(*tnames), cmp_str);
	int total_gpus = 0;
	for (int n = 0; n < N; n++) {
		const hs_snode_t *nd = &s->nodes[n];
		node_type[n] = -1;
		node_base[n] = total_gpus;
		if (!node_managed[n] || nd->ngpus <= 0 || !nd->gpu_type)
			continue;
		for (int j = 0; j < J; j++)
			if (!strcmp(tnames[j], nd->gpu_type))
				node_type[n] = j;
		total_gpus += nd->ngpus;
	}
	type_total = calloc((size_t)J + 1, sizeof(int));
	type_maxnode = calloc((size_t)J + 1, sizeof(int));
	part_types = calloc((size_t)P * (size_t)J + 1, 1);
	node_owner = malloc(((size_t)total_gpus + 1) * sizeof(int));
	node_owner2 = malloc(((size_t)total_gpus + 1) * sizeof(int));
	if (!type_total || !type_maxnode || !part_types || !node_owner || !node_owner2)
		goto oom;
	for (int g = 0; g < total_gpus; g++)
		node_owner[g] = node_owner2[g] = -1;
	for (int n = 0; n < N; n++)
		if (node_type[n] >= 0) {
			int t = node_type[n];
			type_total[t] += s->nodes[n].ngpus;
			if (s->nodes[n].ngpus > type_maxnode[t])
				type_maxnode[t] = s->nodes[n].ngpus;
		}
	for (int p = 0; p < P; p++)
		for (int k = 0; k < s->parts[p].nnodes; k++) {
			int t = node_type[s->parts[p].nodes[k]];
			if (t >= 0)
				part_types[(size_t)p * J + t] = 1;
		}

	/* Owners of managed GPUs, from the jobs' own GPU lists. */
	for (int i = 0; i < M; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		for (int k = 0; k < sj->nheld && !unmod[i]; k++) {
			int n = sj->held[k].node;
			/* the node's own allocation bitmap is authoritative: a
			 * stale job record does not make a free GPU busy */
			if (node_type[n] < 0 || !s->nodes[n].gpu_held[sj->held[k].gpu])
				continue;
			int slot = node_base[n] + sj->held[k].gpu;
			if (node_owner[slot] == -1)
				node_owner[slot] = i;
			else if (node_owner[slot] >= 0 && node_owner2[slot] < 0 &&
				 node_owner[slot] != i)
				node_owner2[slot] = i; /* packed partner (checked below) */
			else
				node_owner[slot] = -2; /* three jobs or a duplicate */
		}
	}
	/* Two jobs may share GPUs only as a packed pair holding exactly the
	 * same GPUs (doc/packing.md); anything else makes the GPU nobody's. */
	for (int g = 0; g < total_gpus; g++) {
		int a = node_owner[g], c = node_owner2[g];
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
			node_owner[g] = -2;
	}

	/* Roles. */
	allowed = calloc((size_t)M * (size_t)(J ? J : 1) + 1, 1);
	if (!allowed)
		goto oom;
	int ncand = 0;
	cands = malloc(((size_t)M + 1) * sizeof(*cands));
	if (!cands)
		goto oom;
	for (int i = 0; i < M; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		hs_role_t role = HS_ROLE_SKIP;
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
		if (!managed || sj->gpus <= 0 || J == 0) {
			b->role[i] = ours_suspended ? HS_ROLE_RESUME : HS_ROLE_SKIP;
			continue;
		}
		if (unmod[i]) {
			b->role[i] = ours_suspended ? HS_ROLE_RESUME : HS_ROLE_UNMODELLED;
			continue;
		}
		hs_hints_parse(&b->hints[i], sj->env, sj->nenv);
		const hs_op_t *op = hs_op_find(e, sj->id);
		int holds_ok = sj->nheld > 0;
		int htype = -1;
		for (int k = 0; k < sj->nheld && holds_ok; k++) {
			int t = node_type[sj->held[k].node];
			int slot = node_base[sj->held[k].node] + sj->held[k].gpu;
			if (t < 0 || (htype >= 0 && t != htype) ||
			    (node_owner[slot] != i && node_owner2[slot] != i) || node_owner[slot] == -2)
				holds_ok = 0;
			htype = t;
		}
		switch (sj->state) {
		case HS_SJ_RUNNING:
			/* checkpoint in flight, or a requeue a slurmctld crash
			 * lost that the ops repeat (engine_recover.c) */
			if (op && (op->kind == HS_OP_CKPT ||
				   (op->kind == HS_OP_REQUEUED && op->restored)) &&
			    op->restart_cnt == sj->restart_cnt)
				role = HS_ROLE_LEAVING;
			else if (holds_ok && hs_job_preemptible(c, &b->hints[i], sj))
				role = HS_ROLE_ACTIVE;
			else
				role = HS_ROLE_PINNED;
			break;
		case HS_SJ_SUSPENDED:
			/* Only jobs hetsched suspended itself are resumed by it;
			 * an administrator's suspend is left alone. */
			if (ours_suspended && holds_ok && hs_job_preemptible(c, &b->hints[i], sj))
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
			if ((sj->eligible || (op && op->kind == HS_OP_REQUEUED)) && sj->shape_ok &&
			    part_up)
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
		if (role == HS_ROLE_ACTIVE || role == HS_ROLE_LEAVING) {
			/* Types the job may use: the one it asked for, present in
			 * one of its managed partitions, with enough GPUs. */
			int any = 0;
			for (int j = 0; j < J; j++) {
				int ok = 0;
				for (int k = 0; k < sj->nparts && !ok; k++)
					ok = s->parts[sj->parts[k]].managed &&
					     part_types[(size_t)sj->parts[k] * J + j];
				if (sj->gpu_type && strcmp(sj->gpu_type, tnames[j]))
					ok = 0;
				if (type_total[j] < sj->gpus)
					ok = 0;
				if (sj->gpus_per_node > type_maxnode[j])
					ok = 0;
				if (sj->state == HS_SJ_PENDING &&
				    !hs_nodes_have_type(s, sj, node_type, j))
					ok = 0; /* none of its nodes has the type */
				allowed[(size_t)i * J + j] = (unsigned char)ok;
				any |= ok;
			}
			/* A running job is always allowed where it runs. */
			if (sj->state == HS_SJ_RUNNING && htype >= 0 && !allowed[(size_t)i * J + htype]) {
				allowed[(size_t)i * J + htype] = 1;
				any = 1;
			}
			if (!any)
				role = role == HS_ROLE_LEAVING ? HS_ROLE_LEAVING : HS_ROLE_NOFIT;
		}
		b->role[i] = role;
		if (role == HS_ROLE_ACTIVE || role == HS_ROLE_LEAVING)
			cands[ncand++] = hs_queue_key(s, i, sj->state == HS_SJ_PENDING);
	}

	if (ncand > c->max_jobs)
		cut_max_jobs(c, s, b, cands, ncand, e->rounds + 1);

	/* Usable GPUs: on available managed nodes, free or held by an
	 * active job; on unavailable nodes only those an active job holds
	 * (so it may stay there). Everything else is not ours to give. */
	b->owner = malloc(((size_t)total_gpus + 1) * sizeof(int));
	b->owner_base = calloc((size_t)N + 1, sizeof(int));
	b->servers = calloc((size_t)N + 1, sizeof(*b->servers));
	b->usable = calloc((size_t)N + 1, sizeof(*b->usable));
	if (!b->owner || !b->owner_base || !b->servers || !b->usable)
		goto oom;
	count = calloc((size_t)J + 1, sizeof(int));
	if (!count)
		goto oom;
	for (int n = 0; n < N; n++) {
		b->node_server[n] = -1;
		if (node_type[n] < 0)
			continue;
		const hs_snode_t *nd = &s->nodes[n];
		int sv = b->nservers;
		b->usable[sv] = calloc((size_t)nd->ngpus + 1, 1);
		if (!b->usable[sv])
			goto oom;
		b->owner_base[sv] = node_base[n];
		for (int g = 0; g < nd->ngpus; g++) {
			int o = node_owner[node_base[n] + g], o2 = node_owner2[node_base[n] + g];
			b->owner[node_base[n] + g] = o;
			int u;
			if (o >= 0)
				u = b->role[o] == HS_ROLE_ACTIVE &&
				    (o2 < 0 || b->role[o2] == HS_ROLE_ACTIVE);
			else if (o == -2 || node_bad[n])
				u = 0; /* an active job's own GPUs there stay usable (it
				        * may stay); the free ones are not given out */
			else
				u = nd->avail && !nd->gpu_held[g];
			b->usable[sv][g] = (unsigned char)u;
			count[node_type[n]] += u;
		}
		b->servers[sv] = (hs_server_t){ .name = nd->name, .type = node_type[n],
						.ngpus = nd->ngpus, .usable = b->usable[sv] };
		b->node_server[n] = sv;
		b->nservers++;
	}

	/* Pending jobs that cannot be preempted: only within their share. */
	if (hs_pin_filter(e, s, b) < 0)
		goto oom;

	/* Jobs that cannot fit this round (asked for more GPUs than are
	 * usable on every type they may use) stay out of the problem: the
	 * policy needs every job to have a usable type. */
	int npj = 0;
	order = malloc(((size_t)M + 1) * sizeof(int));
	if (!order)
		goto oom;
	for (int i = 0; i < M; i++) {
		if (b->role[i] != HS_ROLE_ACTIVE && b->role[i] != HS_ROLE_LEAVING)
			continue;
		int fits = 0;
		for (int j = 0; j < J; j++)
			if (allowed[(size_t)i * J + j] &&
			    hs_nodes_usable(b, s, &s->jobs[i], j, count[j]) >= s->jobs[i].gpus)
				fits = 1;
		if (!fits) {
			if (b->role[i] == HS_ROLE_ACTIVE && s->jobs[i].state != HS_SJ_PENDING) {
				/* Running where it is: keep it there. */
				fits = 1;
			} else {
				/* a leaving job with nowhere to go is left out
				 * too (its op continues) */
				if (b->role[i] != HS_ROLE_LEAVING) {
					b->role[i] = HS_ROLE_NOFIT;
					b->busy[i] = 1;
				}
				continue;
			}
		}
		order[npj++] = i;
	}
	/* Problem jobs in job id order (deterministic, like the tests). */
	keys = malloc(((size_t)npj + 1) * sizeof(*keys));
	if (!keys)
		goto oom;
	for (int k = 0; k < npj; k++)
		keys[k] = ((uint64_t)s->jobs[order[k]].id << 32) | (uint32_t)order[k];
	qsort(keys, (size_t)npj, sizeof(*keys), cmp_u64);
	for (int k = 0; k < npj; k++)
		order[k] = (int)(keys[k] & 0xffffffffu);

	/* The problem. */
	hs_problem_t *pb = &b->problem;
	if (hs_cluster_init(&pb->cluster, J, err) < 0)
		goto fail;
	for (int j = 0; j < J; j++) {
		if (!(pb->cluster.names[j] = strdup(tnames[j])))
			goto oom;
		pb->cluster.count[j] = count[j];
	}
	pb->reference_type = -1;
	if (hs_problem_alloc_jobs(pb, npj, err) < 0)
		goto fail;
	b->pjob_snap = malloc(((size_t)npj + 1) * sizeof(int));
	b->run = calloc((size_t)npj + 1, sizeof(*b->run));
	/* One entry per GPU held by a running job: up to two jobs per GPU
	 * when packed, so count the holdings, not the cluster's GPUs. */
	size_t nheld_all = 0;
	for (int i = 0; i < M; i++)
		nheld_all += (size_t)(s->jobs[i].nheld > 0 ? s->jobs[i].nheld : 0);
	b->run_space = malloc((nheld_all + 1) * sizeof(*b->run_space));
	b->src = calloc((size_t)npj + 1, sizeof(*b->src));
	b->meas = calloc((size_t)npj * (size_t)J + 1, sizeof(double));
	b->units = malloc(((size_t)npj + 1) * sizeof(double));
	if (!b->pjob_snap || !b->run || !b->run_space || !b->src || !b->meas || !b->units)
		goto oom;
	for (int k = 0; k < npj; k++)
		b->units[k] = 1.0;

	/* Entities: the accounts of the active jobs. */
	int nent = 0;
	char **enames = calloc((size_t)npj + 1, sizeof(char *));
	if (!enames)
		goto oom;
	pb->entities.names = enames;
	pb->entities.weight = calloc((size_t)npj + 1, sizeof(double));
	pb->entities.mode = calloc((size_t)npj + 1, sizeof(hs_entity_mode_t));
	if (!pb->entities.weight || !pb->entities.mode)
		goto oom;

	/* Weights from priority: relative to the mean active priority, so
	 * the average job weighs 1 whatever the priority plugin's scale. */
	double prio_sum = 0;
	int prio_n = 0;
	for (int k = 0; k < npj; k++)
		if (s->jobs[order[k]].priority > 0) {
			prio_sum += s->jobs[order[k]].priority;
			prio_n++;
		}
	double prio_mean = prio_n ? prio_sum / prio_n : 1;

	int used = 0;
	for (int k = 0; k < npj; k++) {
		int i = order[k];
		const hs_sjob_t *sj = &s->jobs[i];
		hs_job_t *jb = &pb->jobs[k];
		b->pjob_snap[k] = i;
		b->snap_pjob[i] = k;
		char id[16];
		snprintf(id, sizeof(id), "%u", sj->id);
		if (!(jb->id = strdup(id)))
			goto oom;
		jb->scale_factor = sj->gpus;

		hs_record_t rec, *recp = NULL;
		hs_record_init(&rec);
		if (sj->admin_comment && *sj->admin_comment) {
			hs_err_t re;
			if (hs_record_parse(&rec, sj->admin_comment, &re) == 0)
				recp = &rec;
			else
				hs_engine_logf(e, HS_LOG_DEBUG, "job %u: AdminComment ignored: %s",
					       sj->id, re.msg);
		}
		hs_estimate_in_t ein = { .cluster = &pb->cluster, .tables = &e->tables,
				    .model = b->hints[i].model, .scale_factor = sj->gpus,
				    .rec = recp, .allowed = &allowed[(size_t)i * J] };
		b->src[k] = hs_estimate(&ein, jb->thr, &b->meas[(size_t)k * J]);
		/* A type where the job cannot fit this round is not usable. */
		int any = 0;
		for (int j = 0; j < J; j++) {
			if (hs_nodes_usable(b, s, sj, j, pb->cluster.count[j]) < sj->gpus)
				jb->thr[j] = 0;
			any |= jb->thr[j] > 0;
		}
		if (!any) {
			/* Only a running job kept where it is gets here: let it
			 * count on its own type. */
			int t = sj->nheld > 0 ? node_type[sj->held[0].node] : -1;
			if (t >= 0 && pb->cluster.count[t] >= sj->gpus)
				jb->thr[t] = 1;
		}

		double thr_mean = 0;
		int nthr = 0;
		for (int j = 0; j < J; j++)
			if (jb->thr[j] > 0) {
				thr_mean += jb->thr[j];
				nthr++;
			}
		thr_mean = nthr ? thr_mean / nthr : 1;

		/* Remaining work. */
		const hs_hints_t *h = &b->hints[i];
		if (h->steps > 0) {
			uint64_t progress = 0;
			if (sj->state == HS_SJ_RUNNING && recp && recp->has_step)
				progress = recp->step;
			else if (recp && recp->has_ckpt)
				progress = recp->ckpt_step;
			if (sj->state != HS_SJ_RUNNING && !h->ckpt && !(recp && recp->has_ckpt))
				progress = 0;
			jb->remaining_steps = progress < h->steps ? (double)(h->steps - progress) : 1.0;
		} else {
			double secs = c->unknown_steps_s;
			if (sj->time_limit_min > 0) {
				double left = sj->time_limit_min * 60.0;
				if (sj->state == HS_SJ_RUNNING && sj->start_time > 0)
					left -= (double)(s->now - sj->start_time);
				if (left < 60)
					left = 60;
				if (left < secs)
					secs = left;
			}
			jb->remaining_steps = thr_mean * secs;
		}
		if (!(jb->remaining_steps >= 1.0) || !isfinite(jb->remaining_steps))
			jb->remaining_steps = 1.0;

		/* Age: from the first time hetsched saw the job (Slurm resets
		 * the submit time on every requeue). */
		const hs_jacct_t *ac = hs_acct_find(e, sj->id);
		int64_t since = sj->submit_time > 0 ? sj->submit_time : s->now;
		if (ac && ac->first_seen > 0 && ac->first_seen < since)
			since = ac->first_seen;
		jb->age_s = s->now > since ? (double)(s->now - since) : 0.0;

		/* Weight. */
		double w = 1.0;
		if (c->weight_by_priority && sj->priority > 0)
			w = sj->priority / prio_mean;
		w *= hs_wlist_get(&c->qos_weights, sj->qos);
		if (!(w >= 1e-3))
			w = 1e-3;
		if (w > 1e3)
			w = 1e3;
		jb->weight = w;

		/* Entity = account. */
		const char *acct = sj->account && *sj->account ? sj->account : "(none)";
		int en = -1;
		for (int x = 0; x < nent; x++)
			if (!strcmp(enames[x], acct))
				en = x;
		if (en < 0) {
			if (!(enames[nent] = strdup(acct)))
				goto oom;
			double ew = c->account_shares
					    ? (sj->account_shares >= 1 ? sj->account_shares : 1.0)
					    : hs_wlist_get(&c->account_weights, acct);
			pb->entities.weight[nent] = ew;
			pb->entities.mode[nent] = c->entity_fifo ? HS_ENTITY_FIFO : HS_ENTITY_FAIRNESS;
			en = nent++;
			pb->entities.n = nent;
		}
		jb->entity = en;

		/* Where it runs now (active running jobs only). */
		if (b->role[i] == HS_ROLE_ACTIVE && sj->state == HS_SJ_RUNNING) {
			b->run[k].ngpus = sj->nheld;
			b->run[k].gpus = b->run_space + used;
			for (int g = 0; g < sj->nheld; g++) {
				b->run_space[used + g].server = b->node_server[sj->held[g].node];
				b->run_space[used + g].gpu = sj->held[g].gpu;
			}
			used += sj->nheld;
		}
	}

	if (hs_nodes_build_masks(b, s, npj) < 0)
		goto oom;

	/* Space sharing: job types from the first table (packed policies). */
	if (hs_policy_is_packed(c->policy) && e->tables.n > 0) {
		if (hs_thrtable_to_jobtypes(&e->tables.t[0], &pb->cluster, &pb->jobtypes, err) < 0)
			goto fail;
		for (int k = 0; k < npj; k++) {
			const char *model = b->hints[order[k]].model;
			if (model[0])
				pb->jobs[k].job_type = hs_thrtable_find(&e->tables.t[0], model,
									pb->jobs[k].scale_factor);
		}
		jobs_in_table_units(&e->tables.t[0], pb, b->units);
	}

	for (int i = 0; i < M; i++) {
		switch (b->role[i]) {
		case HS_ROLE_ACTIVE:
			b->nactive++;
			break;
		case HS_ROLE_PINNED:
			b->npinned++;
			break;
		case HS_ROLE_LEAVING:
			b->nleaving++;
			break;
		case HS_ROLE_CUT:
			b->ncut++;
			break;
		case HS_ROLE_NOFIT:
			b->nnofit++;
			break;
		case HS_ROLE_RESUME:
			b->nresume++;
			break;
		case HS_ROLE_UNMODELLED:
			b->nunmodelled++;
			break;
		case HS_ROLE_PIN_WAIT:
			b->npinwait++;
			break;
		case HS_ROLE_SKIP:
			break;
		}
	}
	rc = 0;
	goto done;
oom:
	hs_err_set(err, "out of memory");
fail:
	hs_build_free(b);
done:
	free(node_managed);
	free(part_types);
	free(allowed);
	free(tnames);
	free(node_type);
	free(type_total);
	free(type_maxnode);
	free(node_base);
	free(node_owner);
	free(node_owner2);
	free(cands);
	free(order);
	free(keys);
	free(count);
	free(unmod);
	free(node_bad);
	return rc;
}
