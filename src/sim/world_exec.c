/* SPDX-License-Identifier: GPL-2.0-or-later */
/* world_exec.c — the simulated Slurm as the executor of the engine's acts
 * (exec.h), doing what slurmctld does for the plugin's executor
 * (plugins/sched/hetsched/exec.c): find the job, check it is what the
 * act expects, pass the start gate, start where the act says or refuse
 * as Slurm would (the target's GPUs held: "nodes busy"; no node of a
 * type could ever hold the job: "requested node configuration is not
 * available"; a packed start whose partner stopped), signal a
 * checkpoint (acknowledged ckpt_s later), requeue (the work since the
 * last checkpoint is lost), suspend, resume. */
#include "sim/world_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Takes `want` free GPUs of node n for job k (into x->held from *nh);
 * returns how many it found (the holders are set only by commit). */
static int find_free(const hs_world_t *w, int n, int want, hs_sgpu_t *held, int *nh)
{
	int got = 0;
	for (int g = 0; g < w->nodes[n].ngpus && got < want; g++) {
		int i = hs_world_gpu(w, n, g), dup = 0;
		if (w->holder[i] >= 0)
			continue;
		for (int h = 0; h < *nh; h++)
			dup |= held[h].node == n && held[h].gpu == g;
		if (dup)
			continue;
		held[(*nh)++] = (hs_sgpu_t){ .node = n, .gpu = g };
		got++;
	}
	return got;
}

static void commit(hs_world_t *w, long k, const hs_sgpu_t *held, int nh)
{
	wjob_t *x = &w->wj[k];
	for (int g = 0; g < nh; g++) {
		x->held[g] = held[g];
		w->holder[hs_world_gpu(w, held[g].node, held[g].gpu)] = k;
	}
	x->nheld = nh;
}

/* The node `name` if it is the k-th node of some type ("<type>-<k>",
 * world.c builds the nodes type by type, so node types never decrease
 * along the array): per type, its first node by binary search, plus k,
 * checked by name; -1 otherwise. An op's restart used to compare the name
 * with every node (2,100 strcmp a start, 7% of a large simulation). */
static int node_by_index_name(const hs_world_t *w, const char *name)
{
	const char *dash = strrchr(name, '-');
	if (!dash || dash[1] < '0' || dash[1] > '9')
		return -1;
	char *end;
	long k = strtol(dash + 1, &end, 10);
	if (*end || k < 0 || k >= w->nnodes)
		return -1;
	for (int j = 0; j < w->J; j++) {
		int lo = 0, hi = w->nnodes;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			if (w->nodes[mid].type < j)
				lo = mid + 1;
			else
				hi = mid;
		}
		long n = lo + k;
		if (n < w->nnodes && w->nodes[n].type == j && !strcmp(w->nodes[n].name, name))
			return (int)n;
	}
	return -1;
}

/* A target node: by its snapshot index when it has one (the plan's), else
 * by name (an op's copy outlives the snapshot), as slurmctld finds it. */
static int node_named(const hs_world_t *w, int n, const char *name)
{
	if (n >= 0 && n < w->nnodes && !strcmp(w->nodes[n].name, name))
		return n;
	if ((n = node_by_index_name(w, name)) >= 0)
		return n;
	for (n = 0; n < w->nnodes; n++)
		if (!strcmp(w->nodes[n].name, name))
			return n;
	return -1;
}

static hs_refusal_t on_nodes(hs_world_t *w, long k, const hs_target_t *t, hs_sgpu_t *held,
			     int *nh)
{
	int total = 0;
	if (!t || t->nnodes <= 0)
		return HS_REFUSE_CONFIG;
	for (int i = 0; i < t->nnodes; i++) {
		int n = node_named(w, t->nodes[i].node, t->nodes[i].name);
		if (n < 0)
			return HS_REFUSE_OTHER; /* no such node */
		if (find_free(w, n, t->nodes[i].gpus, held, nh) < t->nodes[i].gpus)
			return HS_REFUSE_BUSY;
		total += t->nodes[i].gpus;
	}
	return total == w->res->jobs[k].sf ? HS_REFUSE_NONE : HS_REFUSE_CONFIG;
}

/* Is node n one of those the act leaves out? */
static int avoided(const hs_world_t *w, int n, const hs_act_t *a)
{
	for (int i = 0; i < a->navoid; i++)
		if (!strcmp(w->nodes[n].name, a->avoid[i]))
			return 1;
	return 0;
}

/* Slurm placing the job on free GPUs of nodes of type `type` (-1: any),
 * fullest fit first within the order of the nodes, leaving out the nodes
 * the act names. */
static hs_refusal_t placed(hs_world_t *w, long k, int type, const hs_act_t *a, hs_sgpu_t *held,
			   int *nh)
{
	int need = w->res->jobs[k].sf, exist = 0;
	for (int n = 0; n < w->nnodes; n++)
		if (type < 0 || w->nodes[n].type == type)
			exist += w->nodes[n].ngpus;
	if (exist < need)
		return HS_REFUSE_CONFIG;
	for (int n = 0; n < w->nnodes && need > 0; n++)
		if ((type < 0 || w->nodes[n].type == type) && !(a->navoid && avoided(w, n, a)))
			need -= find_free(w, n, need, held, nh);
	return need > 0 ? HS_REFUSE_BUSY : HS_REFUSE_NONE;
}

static hs_refusal_t packed(hs_world_t *w, long k, const hs_target_t *t, hs_sgpu_t *held,
			   int *nh)
{
	long p = t ? hs_world_job(w, t->partner) : -1;
	if (p < 0 || w->wj[p].state != HS_SJ_RUNNING || w->wj[p].partner >= 0)
		return HS_REFUSE_PARTNER;
	const wjob_t *px = &w->wj[p];
	if (px->nheld != w->res->jobs[k].sf)
		return HS_REFUSE_CONFIG;
	for (int g = 0; g < px->nheld; g++)
		held[(*nh)++] = px->held[g];
	return HS_REFUSE_NONE;
}

static void do_start(hs_world_t *w, long k, hs_act_t *a, int64_t now)
{
	wjob_t *x = &w->wj[k];
	hs_sim_job_t *j = &w->res->jobs[k];
	if (x->state != HS_SJ_PENDING) {
		a->out = HS_OUT_GONE;
		return;
	}
	if (x->begin_time > now) {
		a->out = HS_OUT_REFUSED;
		a->refusal = HS_REFUSE_HELD;
		snprintf(a->msg, sizeof(a->msg), "Job's begin time has not come yet");
		return;
	}
	hs_sgpu_t held[64];
	int nh = 0, type = a->type ? hs_cluster_type_index(w->o.cluster, a->type) : -1;
	hs_refusal_t r = HS_REFUSE_CONFIG;
	if (j->sf > (int)(sizeof(held) / sizeof(held[0]))) {
		r = HS_REFUSE_CONFIG;
	} else if (a->where == HS_WHERE_NODES) {
		r = on_nodes(w, k, a->target, held, &nh);
	} else if (a->where == HS_WHERE_PACKED) {
		r = packed(w, k, a->target, held, &nh);
	} else if (a->where == HS_WHERE_TYPE) {
		r = type >= 0 ? placed(w, k, type, a, held, &nh) : HS_REFUSE_CONFIG;
	} else {
		r = placed(w, k, -1, a, held, &nh);
	}
	if (r != HS_REFUSE_NONE) {
		a->out = HS_OUT_REFUSED;
		a->refusal = r;
		snprintf(a->msg, sizeof(a->msg), "%s",
			 r == HS_REFUSE_BUSY ? "Requested nodes are busy"
			 : r == HS_REFUSE_PARTNER ? "Job is not running (partner)"
			 : "Requested node configuration is not available");
		return;
	}
	if (a->where == HS_WHERE_PACKED) {
		long p = hs_world_job(w, a->target->partner);
		for (int g = 0; g < nh; g++)
			w->holder2[hs_world_gpu(w, held[g].node, held[g].gpu)] = k;
		memcpy(x->held, held, (size_t)nh * sizeof(*held));
		x->nheld = nh;
		hs_world_progress(w, p);
		x->partner = p;
		w->wj[p].partner = k;
	} else {
		commit(w, k, held, nh);
	}
	/* a job that ran before restarts from its checkpoint (a migration
	 * when its requeue was this very moment) */
	const char *event = "start";
	j->starts++;
	if (j->done_steps > 0 || x->restart_cnt > 0) {
		j->restarts++;
		x->load_until = w->now + w->o.restart_s;
		/* restarted within seconds of its requeue: the round moved it */
		event = w->now - x->requeued_at <= 10 ? "migrate" : "resume";
		j->starts -= event[0] == 'm'; /* a move, counted as a migration */
	}
	x->start_time = now;
	x->comment_dirty = 1;
	a->out = HS_OUT_DONE;
	hs_world_run(w, k, event);
}

/* The work since the last checkpoint of this incarnation is lost. */
static void do_requeue(hs_world_t *w, long k, hs_act_t *a)
{
	wjob_t *x = &w->wj[k];
	hs_sim_job_t *j = &w->res->jobs[k];
	if (x->state != HS_SJ_RUNNING && x->state != HS_SJ_SUSPENDED) {
		a->out = HS_OUT_FAILED;
		snprintf(a->msg, sizeof(a->msg), "Job is not running");
		return;
	}
	/* sbatch --no-requeue: Slurm refuses (the engine never asks); Requeue=0
	 * set once it ran: refused unless the executor puts back the flag it
	 * was admitted with (plugins/sched/hetsched/exec.c), after which it
	 * stays off */
	int restored = a->restore_requeue && a->restart_cnt == x->restart_cnt;
	if (!hs_sim_strategy_requeue_ok(&w->users->users[j->user].strategy) ||
	    (x->requeue_off && !restored)) {
		a->out = HS_OUT_FAILED;
		snprintf(a->msg, sizeof(a->msg), "Requested operation is presently disabled");
		return;
	}
	if (x->state == HS_SJ_RUNNING)
		hs_world_stop(w, k, "requeue");
	hs_world_release(w, k);
	j->done_steps = x->has_ckpt ? fmin(j->done_steps, x->ckpt_step) : 0.0;
	if (j->pinned && !w->o.pinned_preemptible && !x->has_ckpt)
		j->done_steps = 0.0;
	x->state = HS_SJ_PENDING;
	x->restart_cnt++;
	x->begin_time = HS_SIM_EPOCH + (int64_t)ceil(w->now);
	x->ack_at = INFINITY;
	x->requeued_at = w->now;
	x->comment_dirty = 1;
	a->out = HS_OUT_DONE;
}

static void do_signal(hs_world_t *w, long k, hs_act_t *a)
{
	wjob_t *x = &w->wj[k];
	if (x->state != HS_SJ_RUNNING) {
		a->out = HS_OUT_FAILED;
		return;
	}
	a->out = HS_OUT_DONE;
	if (w->res->jobs[k].pinned && !w->o.pinned_preemptible)
		return; /* it does not checkpoint */
	x->ack_at = w->now + w->o.ckpt_s;
	if (w->o.ckpt_s <= 0) {
		/* acknowledged at once: the record the engine reads */
		hs_world_progress(w, k);
		x->ack_at = INFINITY;
		x->has_ckpt = 1;
		x->ckpt_step = w->res->jobs[k].done_steps;
		x->ckpt_t = HS_SIM_EPOCH + (int64_t)ceil(w->now);
		x->comment_dirty = 1;
	}
}

static void do_suspend(hs_world_t *w, long k, hs_act_t *a, int resume)
{
	wjob_t *x = &w->wj[k];
	if (x->state != (resume ? HS_SJ_SUSPENDED : HS_SJ_RUNNING)) {
		a->out = HS_OUT_FAILED;
		return;
	}
	a->out = HS_OUT_DONE;
	x->comment_dirty = 1;
	if (resume) {
		hs_world_run(w, k, "resume");
		return;
	}
	hs_world_stop(w, k, "suspend");
	x->state = HS_SJ_SUSPENDED;
	long p = x->partner;
	if (p >= 0 && w->wj[p].state == HS_SJ_RUNNING) {
		/* its time-slice partner has the GPUs alone from now on */
		hs_world_progress(w, p);
		hs_world_rate_changed(w, p);
	}
}

/* Is the job still what the act expects? */
static long refind(const hs_world_t *w, const hs_act_t *a)
{
	long k = hs_world_job(w, a->id);
	if (k < 0 || !a->check_state)
		return k;
	const wjob_t *x = &w->wj[k];
	if (x->restart_cnt != a->restart_cnt || x->state != a->state)
		return -1;
	if (a->state == HS_SJ_RUNNING && x->start_time != a->start_time)
		return -1;
	return k;
}

void hs_world_exec(hs_world_t *w, hs_acts_t *b, int64_t now)
{
	for (int i = 0; i < b->n; i++) {
		hs_act_t *a = &b->a[i];
		long k = refind(w, a);
		a->out = HS_OUT_DONE;
		if (k < 0) {
			a->out = HS_OUT_GONE;
			if (w->o.trace)
				fprintf(w->o.trace, "t=%lld %s job %u: gone\n",
					(long long)(now - HS_SIM_EPOCH),
					hs_act_kind_name(a->kind), a->id);
			continue;
		}
		switch (a->kind) {
		case HS_DO_START:
			do_start(w, k, a, now);
			break;
		case HS_DO_CKPT_SIGNAL:
			do_signal(w, k, a);
			break;
		case HS_DO_REQUEUE:
			do_requeue(w, k, a);
			break;
		case HS_DO_SUSPEND:
			do_suspend(w, k, a, 0);
			break;
		case HS_DO_RESUME:
			do_suspend(w, k, a, 1);
			break;
		case HS_DO_CLEAR_BEGIN:
			w->wj[k].begin_time = a->begin;
			break;
		}
		if (w->o.trace)
			fprintf(w->o.trace, "t=%lld %s job %u (%s): %s %s\n",
				(long long)(now - HS_SIM_EPOCH),
				hs_act_kind_name(a->kind), a->id, hs_where_name(a->where),
				hs_outcome_name(a->out), a->msg);
	}
}

/* Fill order: the plugin's (hs_prio_order): priority, then submit time,
 * then id. */
static int fill_before(const hs_world_t *w, long a, long b)
{
	double pa = w->res->jobs[a].weight, pb = w->res->jobs[b].weight;
	if (pa != pb)
		return pa > pb;
	if (w->wj[a].submit_time != w->wj[b].submit_time)
		return w->wj[a].submit_time < w->wj[b].submit_time;
	return a < b;
}

void hs_world_fill(hs_world_t *w, int64_t now)
{
	/* few candidates (one strategic user's pending jobs): a selection
	 * of the next one each time instead of a sort */
	int any = 0;
	for (int u = 0; u < w->users->nusers; u++)
		any |= !hs_sim_strategy_shape_ok(&w->users->users[u].strategy);
	while (any) {
		long best = -1;
		for (long i = 0; i < w->nlive; i++) {
			long k = w->live[i];
			const wjob_t *x = &w->wj[k];
			const hs_sim_job_t *j = &w->res->jobs[k];
			if (x->state != HS_SJ_PENDING || x->begin_time > now || x->fill_tried ||
			    hs_sim_strategy_shape_ok(&w->users->users[j->user].strategy))
				continue;
			if (best < 0 || fill_before(w, k, best))
				best = k;
		}
		if (best < 0)
			break;
		/* Slurm places it on any free GPUs of the partition; one
		 * that does not fit does not block the ones behind it */
		hs_act_t a = { .kind = HS_DO_START, .id = (uint32_t)best + 1,
			       .job = (uint32_t)best + 1, .plan = -1, .where = HS_WHERE_ANY,
			       .why = "GPU shape placed by Slurm" };
		w->wj[best].fill_tried = 1;
		do_start(w, best, &a, now);
		if (w->o.trace && a.out != HS_OUT_REFUSED) /* refusals: every stop */
			fprintf(w->o.trace, "t=%lld fill job %ld: %s %s\n",
				(long long)(now - HS_SIM_EPOCH), best + 1,
				hs_outcome_name(a.out), a.msg);
	}
	for (long i = 0; any && i < w->nlive; i++)
		w->wj[w->live[i]].fill_tried = 0;
}
