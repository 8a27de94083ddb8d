/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack.c — space sharing in select/hetsched_cons_tres (see pack.h and
 * doc/packing.md): starting a job on the GPUs of one running partner, the
 * partner queries, and the hooks around cons_tres that keep node GPU usage
 * right while two jobs hold the same GPUs (each GPU counted once; ending
 * either job leaves the other's GPUs allocated).
 *
 * Every function runs inside slurmctld under its caller's locks (see
 * hs_pack.h). The only plugin state is `intent`: which job is being
 * started packed, and onto whom, during one hs_pack_start() call (under the
 * job write lock, so no other thread sees it half set).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "compat/hs_slurm.h"
#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "pack.h"
#include "pack_gres.h"

#define LOG_PREFIX "select/hetsched_cons_tres"

static struct {
	job_record_t *job;      /* the pending job being started packed */
	job_record_t *partner;  /* the running job whose GPUs it joins */
	char why[256];          /* set when cons_tres's pick was refused */
} intent;

/* A node index with a GPU bitmap, remembered across an inner call. */
typedef struct node_bits {
	int node;
	bitstr_t *bits;
} node_bits_t;

static void node_bits_free(node_bits_t *v, int n)
{
	for (int i = 0; i < n; i++)
		FREE_NULL_BITMAP(v[i].bits);
	xfree(v);
}

/* Short text of the GPU indices in bits, e.g. "0-1" (into buf). */
static const char *fmt_bits(bitstr_t *bits, char *buf, int len)
{
	if (!bits)
		return "none";
	bit_fmt(buf, len, bits);
	return buf;
}

static const char *node_name_of(int i)
{
	node_record_t *n = (i >= 0 && i < node_record_count) ? node_record_table_ptr[i] : NULL;

	return n && n->name ? n->name : "?";
}

/* ------------------------------------------------------------ start */

static int refuse(hs_pack_start_t *req, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(hs_pack_start_t *req, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req->msg, sizeof(req->msg), fmt, ap);
	va_end(ap);
	req->error_code = code;
	debug("%s: pack refused: %s", LOG_PREFIX, req->msg);
	return SLURM_SUCCESS; /* the request was handled; the answer is in req */
}

/* Checks that a can take a partner and b can be its partner. */
static int check_pair(job_record_t *b, job_record_t *a, hs_pack_start_t *req)
{
	bitstr_t *nodes;
	uint32_t other;

	if (!IS_JOB_PENDING(b) || IS_JOB_COMPLETING(b))
		return refuse(req, ESLURM_JOB_NOT_PENDING, "JobId=%u is not pending", b->job_id);
	if (b->het_job_id || b->het_job_list)
		return refuse(req, ESLURM_NOT_SUPPORTED, "JobId=%u is a heterogeneous job", b->job_id);
	if (!b->details)
		return refuse(req, ESLURM_INVALID_JOB_ID, "JobId=%u has no details", b->job_id);
	if (!IS_JOB_RUNNING(a) || IS_JOB_COMPLETING(a) || !hs_job_holds(a))
		return refuse(req, ESLURM_JOB_NOT_RUNNING, "partner JobId=%u is not running", a->job_id);
	if (!hs_job_gres_only_gpu(a))
		return refuse(req, ESLURM_NOT_SUPPORTED,
			      "partner JobId=%u holds no GPU or a GRES other than gpu", a->job_id);
	if (!hs_job_gres_only_gpu(b))
		return refuse(req, ESLURM_NOT_SUPPORTED,
			      "JobId=%u asks for no GPU or for a GRES other than gpu", b->job_id);
	if ((other = hs_job_partner(a, NULL)))
		return refuse(req, ESLURM_NOT_SUPPORTED,
			      "partner JobId=%u already shares its GPUs with JobId=%u", a->job_id, other);
	nodes = a->job_resrcs->node_bitmap;
	for (int i = bit_ffs(nodes); i >= 0 && i < bit_size(nodes); i++) {
		const char *why;
		bitstr_t *bits;

		if (!bit_test(nodes, i))
			continue;
		why = hs_node_gpu_unpackable(i);
		if (why[0])
			return refuse(req, ESLURM_NOT_SUPPORTED, "node %s: %s", node_name_of(i), why);
		if (!(bits = hs_job_gpu_bits(a, i, false)))
			return refuse(req, ESLURM_NOT_SUPPORTED, "partner JobId=%u holds no GPU on node %s",
				      a->job_id, node_name_of(i));
		FREE_NULL_BITMAP(bits);
	}
	return -1; /* no objection */
}

#define SYSTEM_COMMENT_MAX 1000 /* keep the accounting field short */

/* Appends rec to the job's SystemComment ("; "-separated), unless that
 * would make it longer than SYSTEM_COMMENT_MAX. */
static void append_system_comment(job_record_t *job, const char *rec)
{
	size_t cur = job->system_comment ? strlen(job->system_comment) : 0;

	if (cur + strlen(rec) + 2 > SYSTEM_COMMENT_MAX) {
		debug("%s: %pJ SystemComment full; pack record not added", LOG_PREFIX, job);
		return;
	}
	if (cur)
		xstrcat(job->system_comment, "; ");
	xstrcat(job->system_comment, rec);
}

/* The accounting trace of a pack start, in both jobs' SystemComment
 * (stored by slurmdbd, shown by sacct -o SystemComment):
 *   hs_pack:partner=<job id>,start=<unix time>,gpus=<node>[<idx>]+...  */
static void note_pair(job_record_t *b, job_record_t *a)
{
	bitstr_t *nodes = a->job_resrcs->node_bitmap;
	char *gpus = NULL, *rec = NULL, buf[64];

	for (int i = bit_ffs(nodes); i >= 0 && i < bit_size(nodes); i++) {
		bitstr_t *g;

		if (!bit_test(nodes, i))
			continue;
		g = hs_job_gpu_bits(b, i, false);
		xstrfmtcat(gpus, "%s%s[%s]", gpus ? "+" : "", node_name_of(i), fmt_bits(g, buf, sizeof(buf)));
		FREE_NULL_BITMAP(g);
	}
	xstrfmtcat(rec, "hs_pack:partner=%u,start=%ld,gpus=%s", a->job_id, (long)b->start_time,
		   gpus ? gpus : "");
	append_system_comment(b, rec);
	xfree(rec);
	xstrfmtcat(rec, "hs_pack:partner=%u,start=%ld,gpus=%s", b->job_id, (long)b->start_time,
		   gpus ? gpus : "");
	append_system_comment(a, rec);
	xfree(rec);
	xfree(gpus);
}

/* Starts b like backfill's _start_job(): select_nodes() restricted to a's
 * nodes (exc_node_bitmap), then launch. */
static int pack_start(job_record_t *b, hs_pack_start_t *req)
{
	job_record_t *a;
	bitstr_t *orig_exc, *exc;
	char *err_msg = NULL, gbuf[64];
	bool is_array_head;
	int rc;

	req->msg[0] = '\0';
	req->error_code = SLURM_ERROR;
	if (!running_in_slurmctld())
		return refuse(req, ESLURM_NOT_SUPPORTED, "packing works inside slurmctld only");
	if (!b)
		return refuse(req, ESLURM_INVALID_JOB_ID, "no job given");
	if (!(a = find_job_record(req->partner_job_id)))
		return refuse(req, ESLURM_INVALID_JOB_ID, "partner JobId=%u not found", req->partner_job_id);
	if (a == b)
		return refuse(req, ESLURM_INVALID_JOB_ID, "a job cannot be packed with itself");
	if (intent.job)
		return refuse(req, ESLURM_IN_STANDBY_MODE, "another pack start is in progress");
	if (check_pair(b, a, req) == SLURM_SUCCESS)
		return SLURM_SUCCESS; /* refused, req filled */

	/* Only a's nodes are eligible; select_nodes() may replace the
	 * bitmap, so the original is put back from a copy (as backfill). */
	orig_exc = b->details->exc_node_bitmap ? bit_copy(b->details->exc_node_bitmap) : NULL;
	exc = bit_copy(a->job_resrcs->node_bitmap);
	bit_not(exc);
	if (orig_exc)
		bit_or(exc, orig_exc);
	FREE_NULL_BITMAP(b->details->exc_node_bitmap);
	b->details->exc_node_bitmap = exc;

	intent.job = b;
	intent.partner = a;
	intent.why[0] = '\0';
	is_array_head = b->array_recs != NULL;
	rc = hs_select_nodes(b, &err_msg);
	intent.job = intent.partner = NULL;

	if (is_array_head && b->details) {
		/* Starting one task split the array: the new pending record
		 * copied our exclusion; give it the job's own back (as
		 * backfill's _start_job does). */
		job_record_t *base = find_job_record(b->array_job_id);

		if (base && base != b && base->array_recs && base->details) {
			FREE_NULL_BITMAP(base->details->exc_node_bitmap);
			if (orig_exc)
				base->details->exc_node_bitmap = bit_copy(orig_exc);
		}
	}
	if (b->details) { /* select_nodes() may have replaced it */
		FREE_NULL_BITMAP(b->details->exc_node_bitmap);
		b->details->exc_node_bitmap = orig_exc;
	} else {
		FREE_NULL_BITMAP(orig_exc);
	}

	if (rc != SLURM_SUCCESS) {
		refuse(req, rc, "JobId=%u does not fit beside JobId=%u: %s%s%s%s", b->job_id, a->job_id,
		       slurm_strerror(rc), err_msg ? " (" : "", err_msg ? err_msg : "",
		       err_msg ? ")" : "");
		if (intent.why[0])
			snprintf(req->msg, sizeof(req->msg), "%s", intent.why);
		xfree(err_msg);
		return SLURM_SUCCESS;
	}
	xfree(err_msg);
	{
		int n0 = bit_ffs(a->job_resrcs->node_bitmap);
		bitstr_t *g = hs_job_gpu_bits(b, n0, false);

		info("%s: started %pJ packed with %pJ on %s (GPU %s on %s)", LOG_PREFIX, b, a,
		     b->nodes ? b->nodes : "?", fmt_bits(g, gbuf, sizeof(gbuf)), node_name_of(n0));
		FREE_NULL_BITMAP(g);
	}
	if (hs_job_partner(b, NULL) != a->job_id)
		error("%s: %pJ started but does not share the GPUs of %pJ", LOG_PREFIX, b, a);
	else
		note_pair(b, a);
	/* the whole sequence: this path used to skip the power plugin and
	 * a multi-partition job's partition list */
	hs_launch_started_job(b);
	req->error_code = SLURM_SUCCESS;
	return SLURM_SUCCESS;
}

/* ------------------------------------------------------------ queries */

static int pairs(hs_pack_pairs_t *q)
{
	job_record_t *job;
	list_itr_t *it;

	q->count = 0;
	if (!job_list)
		return SLURM_SUCCESS;
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		uint32_t p;

		if (!hs_job_holds(job) || !(p = hs_job_partner(job, NULL)) || p < job->job_id)
			continue;
		if (q->pairs && q->count < q->max) {
			q->pairs[q->count][0] = job->job_id;
			q->pairs[q->count][1] = p;
		}
		q->count++;
	}
	list_iterator_destroy(it);
	return SLURM_SUCCESS;
}

int hs_pack_info(uint32_t code, job_record_t *job, void *data, int *rc)
{
	switch (code) {
	case HS_PACK_INFO_VERSION:
		*rc = data ? (*(uint32_t *)data = HS_PACK_API_VERSION, SLURM_SUCCESS) : SLURM_ERROR;
		return 1;
	case HS_PACK_INFO_START: {
		hs_pack_start_t *req = data;

		if (!req || req->version != HS_PACK_API_VERSION) {
			error("%s: pack start with a bad request (interface version %u, want %u)",
			      LOG_PREFIX, req ? req->version : 0, HS_PACK_API_VERSION);
			*rc = SLURM_ERROR;
			return 1;
		}
		*rc = pack_start(job, req);
		return 1;
	}
	case HS_PACK_INFO_PARTNER: {
		hs_pack_partner_t *q = data;

		if (!q || q->version != HS_PACK_API_VERSION) {
			*rc = SLURM_ERROR;
			return 1;
		}
		q->partner_job_id = hs_job_holds(job) ? hs_job_partner(job, NULL) : 0;
		*rc = SLURM_SUCCESS;
		return 1;
	}
	case HS_PACK_INFO_PAIRS: {
		hs_pack_pairs_t *q = data;

		if (!q || q->version != HS_PACK_API_VERSION || (q->max && !q->pairs)) {
			*rc = SLURM_ERROR;
			return 1;
		}
		*rc = pairs(q);
		return 1;
	}
	default:
		return 0;
	}
}

/* ------------------------------------------------------------ hooks */

/* Presents the partner's nodes to cons_tres with every GPU busy except the
 * partner's, so the only GPUs it can pick for the job are the partner's. */
int hs_pack_job_test(hs_job_test_f inner, void *arg, job_record_t *job, bitstr_t *bitmap,
		     uint16_t mode)
{
	bitstr_t *nodes;
	hs_gpu_saved_t *saved;
	int rc;

	if (!intent.job || job != intent.job || !hs_job_holds(intent.partner))
		return inner(arg, bitmap);

	nodes = intent.partner->job_resrcs->node_bitmap;
	if (bitmap && bit_size(bitmap) == bit_size(nodes))
		bit_and(bitmap, nodes);
	saved = xcalloc(bit_size(nodes), sizeof(*saved));
	for (int i = bit_ffs(nodes); i >= 0 && i < bit_size(nodes); i++) {
		gres_node_state_t *ns;
		bitstr_t *mine, *others;

		if (!bit_test(nodes, i) || !(ns = hs_node_gpu(i)) || !ns->gres_bit_alloc)
			continue;
		hs_node_gpu_save(ns, &saved[i]);
		mine = hs_job_gpu_bits(intent.partner, i, false);
		others = bit_alloc(bit_size(ns->gres_bit_alloc));
		bit_set_all(others);
		hs_node_gpu_mark(ns, others, +1);
		if (mine)
			hs_node_gpu_mark(ns, mine, -1);
		FREE_NULL_BITMAP(mine);
		FREE_NULL_BITMAP(others);
	}
	rc = inner(arg, bitmap);
	for (int i = 0; i < bit_size(nodes); i++) /* puts back, frees */
		hs_node_gpu_restore(bit_test(nodes, i) ? hs_node_gpu(i) : NULL, &saved[i]);
	xfree(saved);

	/* cons_tres must have picked exactly the partner's GPUs on exactly
	 * the partner's nodes (same scale factor, same indices). */
	if (rc == SLURM_SUCCESS && SELECT_IS_MODE_RUN_NOW(mode)) {
		bool ok = bitmap && bit_equal(bitmap, nodes);
		char b1[64], b2[64];

		for (int i = bit_ffs(nodes); ok && i >= 0 && i < bit_size(nodes); i++) {
			bitstr_t *theirs, *mine;

			if (!bit_test(nodes, i))
				continue;
			theirs = hs_job_gpu_bits(intent.partner, i, false);
			mine = hs_job_gpu_bits(job, i, true);
			ok = theirs && mine && bit_equal(theirs, mine);
			if (!ok)
				snprintf(intent.why, sizeof(intent.why),
					 "JobId=%u would get GPU %.32s on node %.64s, partner JobId=%u "
					 "holds %.32s: the GPU counts differ", job->job_id,
					 fmt_bits(mine, b1, sizeof(b1)), node_name_of(i),
					 intent.partner->job_id, fmt_bits(theirs, b2, sizeof(b2)));
			FREE_NULL_BITMAP(theirs);
			FREE_NULL_BITMAP(mine);
		}
		if (!ok) {
			if (!intent.why[0])
				snprintf(intent.why, sizeof(intent.why),
					 "JobId=%u would not get exactly the nodes of partner JobId=%u",
					 job->job_id, intent.partner->job_id);
			free_job_resources(&job->job_resrcs);
			rc = SLURM_ERROR;
		}
	}
	return rc;
}

int hs_pack_nodeinfo_set(hs_job_op_f inner, job_record_t *job)
{
	node_bits_t *hidden = NULL;
	bitstr_t *nodes;
	int rc, n = 0;
	char buf[64];

	if (!job || !hs_job_holds(job))
		return inner(job);
	nodes = job->job_resrcs->node_bitmap;
	for (int i = bit_ffs(nodes); i >= 0 && i < bit_size(nodes); i++) {
		gres_node_state_t *ns;
		bitstr_t *bits;
		bool any = false;

		/* Only the job being packed may start on GPUs in use; any other
		 * new allocation overlapping them is cons_tres's business (it
		 * strips and logs). Recovered allocations (restart) count. */
		if (!bit_test(nodes, i) || !(ns = hs_node_gpu(i)) || !ns->gres_bit_alloc ||
		    !(bits = hs_job_gpu_bits(job, i, job == intent.job)))
			continue;
		/* bits &= already allocated on the node */
		for (bitoff_t k = 0; k < bit_size(bits); k++) {
			if (bit_test(bits, k) && k < bit_size(ns->gres_bit_alloc) &&
			    bit_test(ns->gres_bit_alloc, k))
				any = true;
			else
				bit_clear(bits, k);
		}
		if (!any) {
			FREE_NULL_BITMAP(bits);
			continue;
		}
		xrecalloc(hidden, n + 1, sizeof(*hidden));
		hidden[n].node = i;
		hidden[n].bits = bits;
		n++;
		hs_node_gpu_mark(ns, bits, -1);
		debug("%s: %pJ shares GPU %s on node %s", LOG_PREFIX, job,
		      fmt_bits(bits, buf, sizeof(buf)), node_name_of(i));
	}
	rc = inner(job);
	/* The shared GPUs are allocated again whatever cons_tres did (a
	 * failed allocation must not free the partner's GPUs). */
	for (int k = 0; k < n; k++)
		hs_node_gpu_mark(hs_node_gpu(hidden[k].node), hidden[k].bits, +1);
	node_bits_free(hidden, n);
	return rc;
}

/* GPUs of job on its nodes that another job holding resources also holds. */
static node_bits_t *shared_with_partners(job_record_t *job, int *count)
{
	node_bits_t *v = NULL;
	bitstr_t *nodes;
	int n = 0;

	*count = 0;
	if (!job || !job->job_resrcs || !(nodes = job->job_resrcs->node_bitmap))
		return NULL;
	for (int i = bit_ffs(nodes); i >= 0 && i < bit_size(nodes); i++) {
		bitstr_t *theirs, *mine;

		if (!bit_test(nodes, i) || !(theirs = hs_partner_bits(job, i)))
			continue;
		mine = hs_job_gpu_bits(job, i, false);
		for (bitoff_t k = 0; mine && k < bit_size(mine); k++)
			if (k >= bit_size(theirs) || !bit_test(theirs, k))
				bit_clear(mine, k);
		FREE_NULL_BITMAP(theirs);
		if (!mine)
			continue;
		xrecalloc(v, n + 1, sizeof(*v));
		v[n].node = i;
		v[n].bits = mine;
		n++;
	}
	*count = n;
	return v;
}

int hs_pack_job_fini(hs_job_op_f inner, job_record_t *job)
{
	node_bits_t *shared;
	int n, rc;
	char buf[64];

	shared = shared_with_partners(job, &n);
	rc = inner(job);
	for (int k = 0; k < n; k++) {
		hs_node_gpu_mark(hs_node_gpu(shared[k].node), shared[k].bits, +1);
		debug("%s: %pJ ended; GPU %s on node %s stays with its partner", LOG_PREFIX, job,
		      fmt_bits(shared[k].bits, buf, sizeof(buf)), node_name_of(shared[k].node));
	}
	node_bits_free(shared, n);
	return rc;
}

int hs_pack_job_resized(int (*inner)(job_record_t *, node_record_t *), job_record_t *job,
			node_record_t *node)
{
	node_bits_t *shared;
	int n, rc;

	shared = shared_with_partners(job, &n);
	rc = inner(job, node);
	for (int k = 0; k < n; k++)
		if (node && (uint32_t)shared[k].node == node->index)
			hs_node_gpu_mark(hs_node_gpu(shared[k].node), shared[k].bits, +1);
	node_bits_free(shared, n);
	return rc;
}

/* Nodes with shared GPUs: for each, how many GPUs two jobs hold. */
typedef struct rebuild_state {
	int n;
	int *node;
	uint64_t *extra;
} rebuild_state_t;

void *hs_pack_rebuild_begin(void)
{
	rebuild_state_t *st;
	job_record_t *job;
	list_itr_t *it;

	if (!job_list || !running_in_slurmctld())
		return NULL;
	st = xmalloc(sizeof(*st));
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		bitstr_t *on = NULL;
		uint32_t p;

		/* count each pair once, from its lower job id */
		if (!hs_job_holds(job) || !(p = hs_job_partner(job, &on)) || !on || p < job->job_id) {
			FREE_NULL_BITMAP(on);
			continue;
		}
		for (int i = bit_ffs(on); i >= 0 && i < bit_size(on); i++) {
			gres_node_state_t *ns;
			bitstr_t *mine, *theirs;
			uint64_t c = 0;
			int k;

			if (!bit_test(on, i) || !(ns = hs_node_gpu(i)))
				continue;
			mine = hs_job_gpu_bits(job, i, false);
			theirs = hs_partner_bits(job, i);
			for (bitoff_t b = 0; mine && theirs && b < bit_size(mine) && b < bit_size(theirs); b++)
				if (bit_test(mine, b) && bit_test(theirs, b))
					c++;
			FREE_NULL_BITMAP(mine);
			FREE_NULL_BITMAP(theirs);
			for (k = 0; k < st->n && st->node[k] != i; k++)
				;
			if (k == st->n) {
				xrecalloc(st->node, st->n + 1, sizeof(*st->node));
				xrecalloc(st->extra, st->n + 1, sizeof(*st->extra));
				st->node[st->n++] = i;
			}
			st->extra[k] += c;
			ns->gres_cnt_avail += c;
		}
		FREE_NULL_BITMAP(on);
	}
	list_iterator_destroy(it);
	return st;
}

void hs_pack_rebuild_end(void *state)
{
	rebuild_state_t *st = state;

	if (!st)
		return;
	for (int k = 0; k < st->n; k++) {
		gres_node_state_t *ns = hs_node_gpu(st->node[k]);

		if (!ns)
			continue;
		ns->gres_cnt_avail -= ns->gres_cnt_avail >= st->extra[k] ? st->extra[k] : ns->gres_cnt_avail;
		/* cons_tres re-added every job: the shared GPUs' bits are set
		 * once, but the per-type/topology counters may hold them twice. */
		hs_node_gpu_normalize(ns);
	}
	if (st->n)
		info("%s: %d node(s) with GPUs shared by two jobs; each GPU counted once", LOG_PREFIX,
		     st->n);
	xfree(st->node);
	xfree(st->extra);
	xfree(st);
}
