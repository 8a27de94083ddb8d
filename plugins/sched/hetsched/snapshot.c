/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshot.c — copies what the round engine needs out of slurmctld into a
 * plain hs_snap_t, under backfill's locks (job and node write: asking
 * Slurm whether a pending job may start updates its reason, runnable.c).
 * Only raw copies and those questions happen here (no parsing, no
 * allocation beyond the copies) to keep lock hold time low:
 * nodes with their GPU type, count and allocated GPU indices (from the
 * node's gres/gpu state), partitions, and GPU jobs of managed partitions
 * with their request, hints (HS_* entries of spank_job_env), AdminComment,
 * priority, account, QOS, the GPUs they hold (gres_bit_alloc per node
 * of the job) and, for pending ones, whether Slurm would start them now
 * and on which nodes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "compat/hs_slurm.h"
#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/slurmctld/slurmctld.h"

#include "hs_plugin.h"
#include "sched/array_slots.h"

/* AdminComment longer than this is not a hetsched record (max 1000). */
#define HS_MAX_COMMENT 4096
/* Caps on copies of user-controlled data. */
#define HS_MAX_ENV 32
#define HS_MAX_ENV_LEN 2048

static uint32_t gpu_plugin_id(void)
{
	static uint32_t id; /* constant once computed */
	if (!id)
		id = gres_build_id("gpu");
	return id;
}

/* Index of the first set bit at or after `from`, -1 if none. */
static int next_set(bitstr_t *b, int from)
{
	int n = (int)bit_size(b);
	for (int i = from < 0 ? 0 : from; i < n; i++)
		if (bit_test(b, i))
			return i;
	return -1;
}

static char *dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

int hs_job_wants_gpus(job_record_t *job_ptr)
{
	if (!job_ptr->gres_list_req)
		return 0;
	int found = 0;
	list_itr_t *it = list_iterator_create(job_ptr->gres_list_req);
	gres_state_t *gs;
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;
		if (gs->plugin_id == gpu_plugin_id() && js &&
		    (js->gres_per_job || js->gres_per_node || js->gres_per_task ||
		     js->gres_per_socket))
			found = 1;
	}
	list_iterator_destroy(it);
	return found;
}

int hs_job_startable(job_record_t *job_ptr)
{
	return IS_JOB_PENDING(job_ptr) && !IS_JOB_COMPLETING(job_ptr) && job_ptr->details &&
	       !job_ptr->node_bitmap && !job_ptr->job_resrcs && !job_ptr->gres_list_alloc;
}

int hs_job_managed(const hs_sconf_t *conf, job_record_t *job_ptr)
{
	if (job_ptr->part_ptr_list) {
		int m = 0;
		list_itr_t *it = list_iterator_create(job_ptr->part_ptr_list);
		part_record_t *p;
		while ((p = list_next(it)))
			m |= hs_sconf_manages(conf, p->name);
		list_iterator_destroy(it);
		return m;
	}
	return job_ptr->part_ptr && hs_sconf_manages(conf, job_ptr->part_ptr->name);
}

const char *hs_node_gpu_type(node_record_t *node_ptr, void **gres_ns)
{
	const char *type = NULL;
	if (!node_ptr->gres_list)
		return NULL;
	list_itr_t *it = list_iterator_create(node_ptr->gres_list);
	gres_state_t *gs;
	while ((gs = list_next(it))) {
		if (gs->plugin_id != gpu_plugin_id())
			continue;
		gres_node_state_t *ns = gs->gres_data;
		if (!ns || ns->gres_cnt_avail == 0 || ns->gres_cnt_avail > 1024 || !ns->gres_bit_alloc ||
		    bit_size(ns->gres_bit_alloc) < (int)ns->gres_cnt_avail)
			break;
		if (ns->type_cnt == 1 && ns->type_name && ns->type_name[0])
			type = ns->type_name[0];
		else if (ns->type_cnt == 0)
			type = "gpu";
		if (type && gres_ns)
			*gres_ns = ns;
		break;
	}
	list_iterator_destroy(it);
	return type;
}

/* The node's GPUs: its one type (hs_node_gpu_type), count and allocated
 * bitmap. */
static void node_gpus(node_record_t *node_ptr, hs_snode_t *nd)
{
	void *p = NULL;
	const char *type = hs_node_gpu_type(node_ptr, &p);
	gres_node_state_t *ns = p;
	if (!type || !ns)
		return;
	int n = (int)ns->gres_cnt_avail;
	nd->gpu_type = strdup(type);
	nd->gpu_held = calloc((size_t)n + 1, 1);
	if (!nd->gpu_type || !nd->gpu_held) {
		free(nd->gpu_type);
		free(nd->gpu_held);
		nd->gpu_type = NULL;
		nd->gpu_held = NULL;
		return;
	}
	nd->ngpus = n;
	for (int g = 0; g < n; g++)
		nd->gpu_held[g] = bit_test(ns->gres_bit_alloc, g) ? 1 : 0;
}

/* The job's GPU request: total, per node, type; shape_ok = 0 for shapes
 * hetsched does not place (per socket, several GPU entries). */
static void job_request(job_record_t *job_ptr, hs_sjob_t *sj)
{
	int entries = 0;
	uint64_t total = 0;
	list_itr_t *it = list_iterator_create(job_ptr->gres_list_req);
	gres_state_t *gs;
	uint32_t min_nodes = job_ptr->details ? job_ptr->details->min_nodes : 1;
	if (min_nodes < 1)
		min_nodes = 1;
	sj->shape_ok = 1;
	sj->nodes = (int)min_nodes;
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;
		if (gs->plugin_id != gpu_plugin_id() || !js)
			continue;
		entries++;
		if (js->type_name && !sj->gpu_type)
			sj->gpu_type = strdup(js->type_name);
		if (js->gres_per_job) {
			total = js->gres_per_job;
		} else if (js->gres_per_node) {
			total = js->gres_per_node * min_nodes;
			sj->gpus_per_node = (int)(js->gres_per_node > 1024 ? 1024 : js->gres_per_node);
		} else if (js->gres_per_task) {
			uint32_t tasks = job_ptr->details && job_ptr->details->num_tasks
						 ? job_ptr->details->num_tasks : 1;
			total = js->gres_per_task * tasks;
		} else {
			sj->shape_ok = 0; /* --gpus-per-socket */
		}
	}
	list_iterator_destroy(it);
	if (entries != 1)
		sj->shape_ok = 0;
	if (total > 4096) {
		total = 4096;
		sj->shape_ok = 0;
	}
	sj->gpus = (int)total;
}

int hs_job_gpu_shape_ok(job_record_t *job_ptr)
{
	hs_sjob_t sj;
	memset(&sj, 0, sizeof(sj));
	if (!job_ptr->gres_list_req)
		return 1;
	job_request(job_ptr, &sj);
	free(sj.gpu_type);
	return sj.shape_ok;
}

/* GPUs held: for the i-th node of the job's node_bitmap, the set bits of
 * gres_bit_alloc[i] of every gres/gpu allocation entry. */
static void job_held(job_record_t *job_ptr, const int *node_map, int nmap, hs_sjob_t *sj)
{
	if (!job_ptr->gres_list_alloc || !job_ptr->node_bitmap)
		return;
	int cap = 0;
	list_itr_t *it = list_iterator_create(job_ptr->gres_list_alloc);
	gres_state_t *gs;
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;
		if (gs->plugin_id != gpu_plugin_id() || !js || !js->gres_bit_alloc)
			continue;
		int n = 0;
		for (int i = 0; (i = next_set(job_ptr->node_bitmap, i)) >= 0; i++) {
			if (n >= (int)js->node_cnt)
				break;
			bitstr_t *b = js->gres_bit_alloc[n++];
			int sn = i < nmap ? node_map[i] : -1;
			if (!b || sn < 0)
				continue;
			for (int g = 0; (g = next_set(b, g)) >= 0; g++) {
				if (sj->nheld == cap) {
					int nc = cap ? cap * 2 : 8;
					hs_sgpu_t *h = realloc(sj->held, (size_t)nc * sizeof(*h));
					if (!h)
						goto out;
					sj->held = h;
					cap = nc;
				}
				sj->held[sj->nheld++] = (hs_sgpu_t){ .node = sn, .gpu = g };
			}
		}
	}
out:
	list_iterator_destroy(it);
}

static int blocked_reason(uint32_t r)
{
	switch (r) {
	case WAIT_DEPENDENCY:
	case WAIT_DEP_INVALID:
	case WAIT_HELD:
	case WAIT_HELD_USER:
	case WAIT_MAX_REQUEUE:
	case WAIT_RESV_DELETED:
	case FAIL_BURST_BUFFER_OP:
	case FAIL_ACCOUNT:
	case FAIL_QOS:
	case FAIL_BAD_CONSTRAINTS:
		return 1;
	default:
		return 0;
	}
}

static void copy_env(job_record_t *job_ptr, hs_sjob_t *sj)
{
	if (!job_ptr->spank_job_env || job_ptr->spank_job_env_size == 0)
		return;
	uint32_t n = job_ptr->spank_job_env_size;
	for (uint32_t i = 0; i < n && sj->nenv < HS_MAX_ENV; i++) {
		const char *e = job_ptr->spank_job_env[i];
		if (!e || strncmp(e, "HS_", 3) || strnlen(e, HS_MAX_ENV_LEN) >= HS_MAX_ENV_LEN)
			continue;
		if (!sj->env && !(sj->env = calloc(HS_MAX_ENV, sizeof(char *))))
			return;
		if (!(sj->env[sj->nenv] = strdup(e)))
			return;
		sj->nenv++;
	}
}

/* Asks Slurm (runnable.c) whether the pending job may start now: no ->
 * not eligible (Slurm's reason stays on the job); yes -> node_ok = the
 * nodes it may use. -1 on out of memory. */
static int runnable_on(const hs_sconf_t *conf, job_record_t *job_ptr, const int *node_map,
		       int nmap, const hs_snap_t *s, hs_sjob_t *sj)
{
	/* do its -w nodes hold its GPUs? (the snapshot's GPU count per
	 * node, already read: no second walk of the nodes' GRES) */
	int w_short = 0;
	bitstr_t *req = job_ptr->details ? job_ptr->details->req_node_bitmap : NULL;
	if (sj->gpus > 0 && req) {
		int held = 0;
		for (int i = 0; (i = next_set(req, i)) >= 0; i++)
			if (i < nmap && node_map[i] >= 0)
				held += s->nodes[node_map[i]].ngpus;
		w_short = held < sj->gpus;
	}
	bitstr_t *ok = hs_job_runnable_nodes(conf, job_ptr, w_short);
	if (!ok) {
		sj->eligible = 0;
		return 0;
	}
	sj->node_ok = calloc((size_t)s->nnodes + 1, 1);
	if (!sj->node_ok) {
		FREE_NULL_BITMAP(ok);
		return -1;
	}
	for (int i = 0; (i = next_set(ok, i)) >= 0; i++)
		if (i < nmap && node_map[i] >= 0)
			sj->node_ok[node_map[i]] = 1;
	FREE_NULL_BITMAP(ok);
	return 0;
}

/* Extra task slots of pending job arrays get ids Slurm never gives (it
 * caps job ids at 0x03ff0000): top bit, 22 bits of the array's id, 9 bits
 * of slot. Two arrays with the same 22 low bits: the later one in queue
 * order gets no extra slots this round. */
#define HS_SLOT_BIT 0x80000000u
#define HS_SLOT_MAX 511

static uint32_t slot_id(uint32_t array_id, int slot)
{
	return HS_SLOT_BIT | ((array_id & 0x3FFFFFu) << 9) | (uint32_t)slot;
}

/* Pending tasks of a pending job array record that may start now (its
 * task bitmap, within --array=...%N). 0 for other jobs. */
static int array_pending_tasks(job_record_t *job_ptr)
{
	job_array_struct_t *a = job_ptr->array_recs;
	if (!a || !a->task_id_bitmap || !IS_JOB_PENDING(job_ptr))
		return 0;
	int n = bit_set_count(a->task_id_bitmap);
	if (a->max_run_tasks) {
		int room = (int)a->max_run_tasks - (int)a->tot_run_tasks;
		n = room < n ? room : n;
	}
	return n > 0 ? n : 0;
}

/* What the per-job copy needs from the nodes and partitions read first. */
/* Deepest association path copied (root excluded): far beyond real
 * trees (accounts nested a few levels, then users). */
#define HS_MAX_ASSOC_DEPTH 32

typedef struct snap_ctx {
	const hs_sconf_t *conf;
	int *node_map;            /* Slurm node index -> snapshot node, -1 */
	int nmap;                 /* entries of node_map: node_record_count
	                           * then (dynamic nodes may add more later) */
	int free_gpus;            /* GPUs free now: the budget of array task slots */
	hs_array_cand_t *arrays;  /* pending arrays that could use slots */
	int narrays, arrays_cap;
} snap_ctx_t;

static int find_part_name(void *x, void *key)
{
	const part_record_t *p = x;
	return p->name && !strcmp(p->name, key);
}

/* Nodes with their GPUs, and partitions. 0, or -1 on out of memory. */
static int copy_nodes_parts(snap_ctx_t *c, hs_snap_t *s)
{
	c->nmap = node_record_count;
	c->node_map = malloc(((size_t)c->nmap + 1) * sizeof(int));
	s->nodes = calloc((size_t)c->nmap + 1, sizeof(*s->nodes));
	int nparts = part_list ? list_count(part_list) : 0;
	s->parts = calloc((size_t)nparts + 1, sizeof(*s->parts));
	if (!c->node_map || !s->nodes || !s->parts)
		return -1;
	node_record_t *node_ptr;
	for (int i = 0; i < c->nmap; i++)
		c->node_map[i] = -1;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		if ((int)node_ptr->index >= c->nmap)
			continue;
		hs_snode_t *nd = &s->nodes[s->nnodes];
		if (!(nd->name = dup_str(node_ptr->name)))
			return -1;
		nd->avail = avail_node_bitmap && bit_test(avail_node_bitmap, node_ptr->index) &&
			    !IS_NODE_POWERED_DOWN(node_ptr) && !IS_NODE_POWERING_UP(node_ptr);
		node_gpus(node_ptr, nd);
		c->node_map[node_ptr->index] = s->nnodes++;
	}
	for (int n = 0; n < s->nnodes; n++)
		for (int g = 0; s->nodes[n].avail && g < s->nodes[n].ngpus; g++)
			c->free_gpus += !s->nodes[n].gpu_held[g];
	if (!part_list)
		return 0;
	list_itr_t *it = list_iterator_create(part_list);
	part_record_t *p;
	while ((p = list_next(it)) && s->nparts < nparts) {
		hs_spart_t *sp = &s->parts[s->nparts++];
		sp->name = dup_str(p->name);
		sp->managed = hs_sconf_manages(c->conf, p->name);
		sp->up = (p->state_up & PARTITION_SCHED) != 0;
		int cnt = p->node_bitmap ? bit_set_count(p->node_bitmap) : 0;
		sp->nodes = calloc((size_t)cnt + 1, sizeof(int));
		if (!sp->name || !sp->nodes)
			break;
		for (int i = 0; p->node_bitmap && (i = next_set(p->node_bitmap, i)) >= 0; i++)
			if (i < c->nmap && c->node_map[i] >= 0 && sp->nnodes < cnt)
				sp->nodes[sp->nnodes++] = c->node_map[i];
	}
	list_iterator_destroy(it);
	for (int k = 0; k < s->nparts; k++)
		if (!s->parts[k].name || !s->parts[k].nodes)
			return -1;
	return 0;
}

/* Is this a job the snapshot copies? Suspended GPU jobs of other
 * partitions too: one hetsched suspended before its partition left
 * Partitions= must still be resumed (the engine resumes only its own). */
static int snap_wants(const hs_sconf_t *conf, job_record_t *job_ptr)
{
	if (IS_JOB_FINISHED(job_ptr) && !IS_JOB_COMPLETING(job_ptr))
		return 0;
	return !job_ptr->het_job_id && hs_job_wants_gpus(job_ptr) &&
	       (hs_job_managed(conf, job_ptr) || IS_JOB_SUSPENDED(job_ptr));
}

/* The fingerprint of an empty job set (FNV-1a's offset basis). */
#define FP_SEED 1469598103934665603ULL

static uint64_t mix_id(uint64_t x)
{
	x *= 0x9E3779B97F4A7C15ULL;
	x ^= x >> 29;
	return x;
}

/* One job's part of the fingerprint. A job array counts as its tasks,
 * (array id, task id) each, wherever they are: the pending tasks of its
 * meta record and the records split off it. So the split that starting
 * a task makes (a new job id) leaves the fingerprint as it was; only
 * arrivals and departures change it. */
static uint64_t job_part(job_record_t *job_ptr)
{
	job_array_struct_t *a = job_ptr->array_recs;
	uint64_t base = (uint64_t)job_ptr->array_job_id << 32 | 1ULL << 31;
	uint64_t x = 0;
	if (a && a->task_id_bitmap) {
		for (int t = 0; (t = next_set(a->task_id_bitmap, t)) >= 0; t++)
			x += mix_id(base | (uint64_t)t);
		if (job_ptr->array_task_id != NO_VAL)
			x += mix_id(base | job_ptr->array_task_id);
		return x;
	}
	if (job_ptr->array_task_id != NO_VAL)
		return mix_id(base | job_ptr->array_task_id);
	return mix_id((uint64_t)job_ptr->job_id);
}

/* Counted in the fingerprint: a managed GPU job that is pending,
 * running or suspended. */
static int fp_wants(const hs_sconf_t *conf, job_record_t *job_ptr)
{
	return (IS_JOB_PENDING(job_ptr) || IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) &&
	       hs_job_managed(conf, job_ptr) && hs_job_wants_gpus(job_ptr);
}

/* Live, from its state flags alone: a superset of snap_wants and
 * fp_wants that the walk of the job list tests without list or string
 * work (that walk cannot yield; at 5,000 queued jobs the full tests made
 * it a 14 ms unit under load, doc/scale.md). */
static int cheap_live(const job_record_t *job_ptr)
{
	return !IS_JOB_FINISHED(job_ptr) || IS_JOB_COMPLETING(job_ptr);
}

/* Ended at or after `since` (> 0): a superset of ended_wants, as cheap as
 * cheap_live. */
static int cheap_ended(const job_record_t *job_ptr, time_t since)
{
	return since > 0 && IS_JOB_FINISHED(job_ptr) && !IS_JOB_COMPLETING(job_ptr) &&
	       job_ptr->end_time >= since;
}

/* A GPU job of a managed partition that ended at or after `since`
 * (snapshot.h, ended). */
static int ended_wants(const hs_sconf_t *conf, job_record_t *job_ptr, time_t since)
{
	return cheap_ended(job_ptr, since) && !job_ptr->het_job_id && hs_job_wants_gpus(job_ptr) &&
	       hs_job_managed(conf, job_ptr);
}

/* The ids of the live jobs: the job list is walked once, under one hold
 * (no yield inside a list iteration); the tests and copies then go by
 * id. */
static uint32_t *candidate_ids(int *n, time_t since)
{
	*n = 0;
	int cap = job_list ? list_count(job_list) : 0;
	uint32_t *ids = malloc(((size_t)cap + 1) * sizeof(*ids));
	if (!ids || !job_list)
		return ids;
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job_ptr;
	while ((job_ptr = list_next(it)) && *n < cap)
		if (cheap_live(job_ptr) || cheap_ended(job_ptr, since))
			ids[(*n)++] = job_ptr->job_id;
	list_iterator_destroy(it);
	return ids;
}

static void copy_state(job_record_t *job_ptr, hs_sjob_t *sj)
{
	if (IS_JOB_COMPLETING(job_ptr))
		sj->state = HS_SJ_OTHER;
	else if (IS_JOB_RUNNING(job_ptr))
		sj->state = HS_SJ_RUNNING;
	else if (IS_JOB_SUSPENDED(job_ptr))
		sj->state = HS_SJ_SUSPENDED;
	else if (hs_job_startable(job_ptr))
		sj->state = HS_SJ_PENDING;
	else
		sj->state = HS_SJ_OTHER; /* e.g. requeued, not cleaned up yet
					  * (requeue_sweep.c finishes it) */
}

/* The job's partitions as snapshot indices, matched by name: partition
 * records may be replaced while a yield leaves the locks free. */
static int copy_parts(const hs_snap_t *s, job_record_t *job_ptr, hs_sjob_t *sj)
{
	int np = job_ptr->part_ptr_list ? list_count(job_ptr->part_ptr_list) : 1;
	sj->parts = calloc((size_t)np + 1, sizeof(int));
	if (!sj->parts)
		return -1;
	for (int k = 0; k < s->nparts && sj->nparts < np; k++) {
		const char *name = s->parts[k].name;
		int member = job_ptr->part_ptr_list
				     ? list_find_first(job_ptr->part_ptr_list, find_part_name,
						       (void *)name) != NULL
				     : job_ptr->part_ptr && job_ptr->part_ptr->name &&
					       !strcmp(job_ptr->part_ptr->name, name);
		if (member)
			sj->parts[sj->nparts++] = k;
	}
	return 0;
}

/* Copies one job into the snapshot. 0, or -1 on out of memory. */
/* Shares as the engine takes them: 0 = none given (counts as 1). */
static double raw_shares(const slurmdb_assoc_rec_t *a)
{
	if (a->shares_raw == NO_VAL || a->shares_raw == INFINITE ||
	    a->shares_raw == SLURMDB_FS_USE_PARENT)
		return 0;
	return a->shares_raw;
}

/* The association (and its path to the root) of a job, into the
 * snapshot's table, from Slurm's association manager: Slurm's tree, not a
 * copy of its rules (issue 29). The root itself is left out; a parent is
 * added before its children. The assoc_mgr is read-locked only here:
 * Slurm's limit checks (runnable.c) take their own locks. */
static int copy_assoc(hs_snap_t *s, job_record_t *job_ptr, hs_sjob_t *sj)
{
	assoc_mgr_lock_t alocks = { .assoc = READ_LOCK };
	slurmdb_assoc_rec_t *path[HS_MAX_ASSOC_DEPTH];
	int n = 0, rc = 0;
	assoc_mgr_lock(&alocks);
	for (slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr; a && n < HS_MAX_ASSOC_DEPTH;
	     a = a->usage ? a->usage->parent_assoc_ptr : NULL)
		if (a->usage && a->usage->parent_assoc_ptr) /* not the root */
			path[n++] = a;
	if (job_ptr->assoc_ptr) {
		sj->account_shares = raw_shares(job_ptr->assoc_ptr);
		sj->user = dup_str(job_ptr->assoc_ptr->user);
	}
	int parent = -1;
	for (int k = n - 1; k >= 0 && rc == 0; k--) {
		slurmdb_assoc_rec_t *a = path[k];
		int i = hs_snap_find_assoc(s, a->id);
		if (i < 0) {
			hs_sassoc_t *x = hs_snap_add_assoc(s, a->id, parent, a->acct, a->user,
							   raw_shares(a));
			if (!x) {
				rc = -1;
				break;
			}
			x->use_parent = a->shares_raw == SLURMDB_FS_USE_PARENT;
			i = s->nassocs - 1;
		}
		parent = i;
	}
	if (rc == 0 && n > 0)
		sj->assoc = parent + 1;
	assoc_mgr_unlock(&alocks);
	return rc;
}

/* Notes a pending array whose record is snapshot job idx, if more of its
 * tasks than the record could start now; its slots are dealt once every
 * job is copied (add_array_slots). 0, or -1 on out of memory. */
static int note_array(snap_ctx_t *c, const hs_snap_t *s, int idx, job_record_t *job_ptr)
{
	const hs_sjob_t *sj = &s->jobs[idx];
	int per = sj->gpus > 0 ? sj->gpus : 1;
	int want = array_pending_tasks(job_ptr);
	if (want > c->free_gpus / per) /* the record's task counts too */
		want = c->free_gpus / per;
	if (want > HS_SLOT_MAX + 1)
		want = HS_SLOT_MAX + 1;
	if (want < 2)
		return 0;
	if (c->narrays == c->arrays_cap) {
		int cap = c->arrays_cap ? 2 * c->arrays_cap : 16;
		hs_array_cand_t *a = realloc(c->arrays, (size_t)cap * sizeof(*a));
		if (!a)
			return -1;
		c->arrays = a;
		c->arrays_cap = cap;
	}
	c->arrays[c->narrays++] = (hs_array_cand_t){
		.owner = hs_sjob_owner(c->conf->fairness, sj), .prio = sj->priority, .submit = sj->submit_time,
		.id = sj->id, .idx = idx, .per = per, .want = want - 1 };
	return 0;
}

/* The slots of the noted arrays: the free GPUs dealt round-robin over
 * their users (sched/array_slots.h), each slot a copy of the array's
 * record that starts one task (the executor starts the array's record,
 * which splits off the next task). Out of memory: fewer slots this
 * round. Slurm-free work on the copy, so the hold may yield. */
static void add_array_slots(snap_ctx_t *c, hs_snap_t *s, hs_lock_hold_t *hold)
{
	if (c->narrays == 0 || hs_array_slots_deal(c->arrays, c->narrays, c->free_gpus) <= 0)
		return;
	for (int k = 0; k < c->narrays; k++) {
		const hs_array_cand_t *a = &c->arrays[k];
		int clash = 0;
		for (int m = 0; m < k && !clash; m++)
			clash = c->arrays[m].slots > 0 &&
				(c->arrays[m].id & 0x3FFFFFu) == (a->id & 0x3FFFFFu);
		if (a->slots == 0 || clash)
			continue;
		(void)hs_hold_yield(hold);
		for (int slot = 1; slot <= a->slots; slot++)
			if (!hs_snap_dup_job(s, a->idx, slot_id(a->id, slot)))
				return;
	}
}

static int copy_job(snap_ctx_t *c, hs_snap_t *s, job_record_t *job_ptr)
{
	hs_sjob_t *sj = hs_snap_add_job(s);
	if (!sj)
		return -1;
	sj->id = job_ptr->job_id;
	sj->user_id = job_ptr->user_id;
	copy_state(job_ptr, sj);
	job_details_t *d = job_ptr->details;
	sj->eligible = sj->state == HS_SJ_PENDING && d && job_ptr->priority != 0 &&
		       !blocked_reason(job_ptr->state_reason);
	job_request(job_ptr, sj); /* runnable_on needs its GPU count */
	if (sj->eligible && runnable_on(c->conf, job_ptr, c->node_map, c->nmap, s, sj) < 0)
		return -1;
	sj->begin_time = d ? d->begin_time : 0; /* job_independent may set it */
	if (copy_parts(s, job_ptr, sj) < 0)
		return -1;
	copy_env(job_ptr, sj);
	if (job_ptr->admin_comment &&
	    strnlen(job_ptr->admin_comment, HS_MAX_COMMENT) < HS_MAX_COMMENT)
		sj->admin_comment = strdup(job_ptr->admin_comment);
	sj->account = dup_str(job_ptr->account);
	sj->name = dup_str(job_ptr->name); /* learned kinds (sched/learn.h) */
	sj->array_id = job_ptr->array_job_id; /* 0 = not an array */
	sj->qos = dup_str(job_ptr->qos_ptr ? job_ptr->qos_ptr->name : NULL);
	if (copy_assoc(s, job_ptr, sj) < 0)
		return -1;
	sj->priority = job_ptr->priority;
	sj->submit_time = d ? d->submit_time : 0;
	sj->start_time = job_ptr->start_time;
	sj->time_limit_min = (job_ptr->time_limit == NO_VAL || job_ptr->time_limit == INFINITE)
				     ? 0 : job_ptr->time_limit;
	sj->batch = job_ptr->batch_flag != 0;
	sj->requeue_ok = d && d->requeue > 0;
	sj->restart_cnt = job_ptr->restart_cnt;
	if (sj->state != HS_SJ_PENDING)
		job_held(job_ptr, c->node_map, c->nmap, sj);
	else if (sj->eligible && sj->shape_ok)
		return note_array(c, s, s->njobs - 1, job_ptr);
	return 0;
}

/* What the learned table needs of an ended job (snapshot.h, ended). */
static int copy_ended(hs_snap_t *s, job_record_t *job_ptr)
{
	hs_sjob_t *sj = hs_snap_add_ended(s);
	if (!sj)
		return -1;
	sj->id = job_ptr->job_id;
	sj->user_id = job_ptr->user_id;
	sj->state = HS_SJ_OTHER;
	job_request(job_ptr, sj); /* its GPU count: a learned cell's */
	copy_env(job_ptr, sj);
	if (job_ptr->admin_comment &&
	    strnlen(job_ptr->admin_comment, HS_MAX_COMMENT) < HS_MAX_COMMENT)
		sj->admin_comment = strdup(job_ptr->admin_comment);
	sj->account = dup_str(job_ptr->account);
	sj->name = dup_str(job_ptr->name);
	sj->array_id = job_ptr->array_job_id;
	return 0;
}

/* Nodes and partitions are read first and jobs after them, yielding the
 * locks between jobs: a job that ends meanwhile leaves its GPUs looking
 * held for this round (nothing is started onto them); one that changed
 * state is copied as it is now, and the apply checks every job again. */
int hs_snapshot_take(const hs_sconf_t *conf, hs_snap_t *s, hs_lock_hold_t *hold,
		     uint64_t *fingerprint, time_t ended_since)
{
	hs_snap_init(s);
	s->now = time(NULL);
	snap_ctx_t c = { .conf = conf };
	int nids = 0;
	uint32_t *ids = NULL;
	int rc = -1;
	hs_hold_what(hold, "snapshot: nodes, candidates");
	uint64_t fp = FP_SEED;
	if (copy_nodes_parts(&c, s) < 0 || !(ids = candidate_ids(&nids, ended_since)))
		goto out;
	hs_hold_what(hold, "snapshot: job");
	for (int k = 0; k < nids; k++) {
		(void)hs_hold_yield(hold);
		job_record_t *job_ptr = find_job_record(ids[k]);
		if (!job_ptr)
			continue; /* gone during a yield */
		if (fp_wants(conf, job_ptr))
			fp += job_part(job_ptr);
		if (ended_wants(conf, job_ptr, ended_since)) {
			if (copy_ended(s, job_ptr) < 0)
				goto out;
			continue;
		}
		if (!snap_wants(conf, job_ptr))
			continue;
		if (copy_job(&c, s, job_ptr) < 0)
			goto out;
	}
	hs_hold_what(hold, "snapshot: array slots");
	add_array_slots(&c, s, hold);
	rc = 0;
	*fingerprint = fp;
out:
	free(ids);
	free(c.node_map);
	free(c.arrays);
	if (rc < 0)
		hs_snap_free(s);
	return rc;
}

uint64_t hs_gpu_jobs_fingerprint(const hs_sconf_t *conf)
{
	uint64_t h = FP_SEED;
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job_ptr;
	while ((job_ptr = list_next(it))) {
		/* The set of live GPU jobs: arrivals and departures change it;
		 * our own starts and requeues (pending <-> running, also while
		 * completing) do not. */
		if (fp_wants(conf, job_ptr))
			h += job_part(job_ptr); /* order-independent: a sum */
	}
	list_iterator_destroy(it);
	return h;
}
