/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack_gres.c — GPU bookkeeping for space sharing (see pack_gres.h).
 *
 * Slurm keeps two views of GPU allocation: per job (gres_job_state_t in
 * job_ptr->gres_list_alloc, one bitmap of GPU indices per node of the job)
 * and per node (gres_node_state_t: gres_bit_alloc plus counters). Only the
 * node view has to change for packing; every function here reads job views
 * and reads or adjusts node views. Bitmaps of different sizes (a
 * misconfigured node) are handled index by index over the common size,
 * never with bit_and/bit_or, which assume equal sizes.
 */
#include "config.h"

#include <string.h>

#include "slurm/slurm.h"

#include "compat/hs_slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "pack_gres.h"

static uint32_t gpu_plugin_id(void)
{
	static uint32_t id;

	if (!id)
		id = gres_build_id("gpu");
	return id;
}

static bitoff_t min_size(bitstr_t *a, bitstr_t *b)
{
	bitoff_t sa = bit_size(a), sb = bit_size(b);

	return sa < sb ? sa : sb;
}

/* dst |= src over the common size. */
static void or_into(bitstr_t *dst, bitstr_t *src)
{
	for (bitoff_t i = 0, n = min_size(dst, src); i < n; i++)
		if (bit_test(src, i))
			bit_set(dst, i);
}

/* Any index set in both, over the common size. */
static bool any_common(bitstr_t *a, bitstr_t *b)
{
	for (bitoff_t i = 0, n = min_size(a, b); i < n; i++)
		if (bit_test(a, i) && bit_test(b, i))
			return true;
	return false;
}

gres_node_state_t *hs_node_gpu(int node_inx)
{
	node_record_t *node;
	gres_state_t *gs;
	uint32_t id = gpu_plugin_id();

	if (node_inx < 0 || node_inx >= node_record_count || !node_record_table_ptr)
		return NULL;
	node = node_record_table_ptr[node_inx];
	if (!node || !node->gres_list)
		return NULL;
	gs = list_find_first(node->gres_list, gres_find_id, &id);
	return gs ? gs->gres_data : NULL;
}

const char *hs_node_gpu_unpackable(int node_inx)
{
	gres_node_state_t *ns = hs_node_gpu(node_inx);

	if (!ns)
		return "the node has no gres/gpu";
	if (ns->no_consume)
		return "gres/gpu is no_consume on the node";
	if (!ns->gres_bit_alloc)
		return "the node's GPUs have no device indices (gres.conf without File=)";
	if (HS_GRES_NS_ALT(ns))
		return "the node's GPUs are also configured as shard or mps";
	return "";
}

bool hs_job_holds(job_record_t *job)
{
	return job && (IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job)) && !IS_JOB_COMPLETING(job) &&
	       job->job_resrcs && job->job_resrcs->node_bitmap;
}

/* Offset of node_inx among the job's allocated nodes, -1 if not one. */
static int node_offset(job_record_t *job, int node_inx)
{
	bitstr_t *nb;

	if (!job->job_resrcs || !(nb = job->job_resrcs->node_bitmap))
		return -1;
	if (node_inx < 0 || node_inx >= bit_size(nb) || !bit_test(nb, node_inx))
		return -1;
	return bit_set_count_range(nb, 0, node_inx);
}

bitstr_t *hs_job_gpu_bits(job_record_t *job, int node_inx, bool from_select)
{
	uint32_t id = gpu_plugin_id();
	bitstr_t *out = NULL;
	gres_state_t *gs;
	list_itr_t *it;
	int off = node_offset(job, node_inx);

	/* The allocation: one entry per GPU type, indexed by node offset. */
	if (off >= 0 && job->gres_list_alloc) {
		it = list_iterator_create(job->gres_list_alloc);
		while ((gs = list_next(it))) {
			gres_job_state_t *js = gs->gres_data;

			if (gs->plugin_id != id || !js || !js->gres_bit_alloc ||
			    (uint32_t)off >= js->node_cnt || !js->gres_bit_alloc[off])
				continue;
			if (!out)
				out = bit_copy(js->gres_bit_alloc[off]);
			else
				or_into(out, js->gres_bit_alloc[off]);
		}
		list_iterator_destroy(it);
	}
	if (out || !from_select || !job->gres_list_req)
		return out;
	/* cons_tres's selection for a job being started: indexed by node. */
	it = list_iterator_create(job->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;

		if (gs->plugin_id != id || !js || !js->gres_bit_select ||
		    (uint32_t)node_inx >= js->total_node_cnt || !js->gres_bit_select[node_inx])
			continue;
		if (!out)
			out = bit_copy(js->gres_bit_select[node_inx]);
		else
			or_into(out, js->gres_bit_select[node_inx]);
	}
	list_iterator_destroy(it);
	return out;
}

static bool list_only_gpu(list_t *l)
{
	uint32_t id = gpu_plugin_id();
	gres_state_t *gs;
	list_itr_t *it;
	bool only = true, any = false;

	if (!l)
		return false;
	it = list_iterator_create(l);
	while ((gs = list_next(it))) {
		any = true;
		if (gs->plugin_id != id)
			only = false;
	}
	list_iterator_destroy(it);
	return any && only;
}

bool hs_job_gres_only_gpu(job_record_t *job)
{
	if (!job)
		return false;
	if (job->gres_list_alloc && list_count(job->gres_list_alloc))
		return list_only_gpu(job->gres_list_alloc);
	return list_only_gpu(job->gres_list_req);
}

/* True when a and b hold a common GPU on some node; the nodes where they
 * do are added to *on if on is not NULL. */
static bool share_gpus(job_record_t *a, job_record_t *b, bitstr_t **on)
{
	bitstr_t *na = a->job_resrcs->node_bitmap, *nb = b->job_resrcs->node_bitmap;
	bool found = false;

	if (bit_size(na) != bit_size(nb) || !bit_overlap_any(na, nb))
		return false;
	for (int i = bit_ffs(na); i >= 0 && i < bit_size(na); i++) {
		bitstr_t *ba, *bb;

		if (!bit_test(na, i) || !bit_test(nb, i))
			continue;
		ba = hs_job_gpu_bits(a, i, false);
		bb = hs_job_gpu_bits(b, i, false);
		if (ba && bb && any_common(ba, bb)) {
			found = true;
			if (on) {
				if (!*on)
					*on = bit_alloc(bit_size(na));
				bit_set(*on, i);
			}
		}
		FREE_NULL_BITMAP(ba);
		FREE_NULL_BITMAP(bb);
		if (found && !on)
			break;
	}
	return found;
}

uint32_t hs_job_partner(job_record_t *job, bitstr_t **shared_on)
{
	job_record_t *other;
	list_itr_t *it;
	uint32_t partner = 0;

	if (shared_on)
		*shared_on = NULL;
	if (!job || !job->job_resrcs || !job->job_resrcs->node_bitmap || !job_list)
		return 0;
	it = list_iterator_create(job_list);
	while ((other = list_next(it))) {
		if (other == job || !hs_job_holds(other))
			continue;
		if (share_gpus(job, other, shared_on) && !partner) {
			partner = other->job_id;
			if (!shared_on)
				break;
		}
	}
	list_iterator_destroy(it);
	return partner;
}

bitstr_t *hs_partner_bits(job_record_t *job, int node_inx)
{
	bitstr_t *mine, *out = NULL;
	job_record_t *other;
	list_itr_t *it;

	if (!job_list || !(mine = hs_job_gpu_bits(job, node_inx, false)))
		return NULL;
	it = list_iterator_create(job_list);
	while ((other = list_next(it))) {
		bitstr_t *theirs;

		if (other == job || !hs_job_holds(other))
			continue;
		theirs = hs_job_gpu_bits(other, node_inx, false);
		if (theirs && any_common(mine, theirs)) {
			if (!out)
				out = bit_copy(theirs);
			else
				or_into(out, theirs);
		}
		FREE_NULL_BITMAP(theirs);
	}
	list_iterator_destroy(it);
	FREE_NULL_BITMAP(mine);
	return out;
}

static void add_clamped(uint64_t *v, int sign)
{
	if (sign > 0)
		(*v)++;
	else if (*v > 0)
		(*v)--;
}

/* The type slot of topology record t, -1 if none. */
static int topo_type_slot(gres_node_state_t *ns, int t)
{
	if (!ns->type_cnt || !ns->type_cnt_alloc || !ns->topo_type_name || !ns->topo_type_id ||
	    !ns->topo_type_name[t])
		return -1;
	for (int j = 0; j < ns->type_cnt; j++)
		if (ns->type_name && ns->type_name[j] && ns->type_id[j] == ns->topo_type_id[t])
			return j;
	return -1;
}

void hs_node_gpu_mark(gres_node_state_t *ns, bitstr_t *bits, int sign)
{
	bitoff_t n;

	if (!ns || !bits || !ns->gres_bit_alloc)
		return;
	n = min_size(ns->gres_bit_alloc, bits);
	for (bitoff_t i = 0; i < n; i++) {
		if (!bit_test(bits, i) || (bit_test(ns->gres_bit_alloc, i) != 0) == (sign > 0))
			continue;
		if (sign > 0)
			bit_set(ns->gres_bit_alloc, i);
		else
			bit_clear(ns->gres_bit_alloc, i);
		add_clamped(&ns->gres_cnt_alloc, sign);
		if (!ns->topo_gres_bitmap || !ns->topo_gres_cnt_alloc)
			continue;
		for (int t = 0; t < ns->topo_cnt; t++) {
			int j;

			if (!ns->topo_gres_bitmap[t] || i >= bit_size(ns->topo_gres_bitmap[t]) ||
			    !bit_test(ns->topo_gres_bitmap[t], i))
				continue;
			add_clamped(&ns->topo_gres_cnt_alloc[t], sign);
			if ((j = topo_type_slot(ns, t)) >= 0)
				add_clamped(&ns->type_cnt_alloc[j], sign);
		}
	}
	xfree(ns->gres_used); /* the cached "GresUsed" string */
}

void hs_node_gpu_normalize(gres_node_state_t *ns)
{
	bool have_topo;

	if (!ns || !ns->gres_bit_alloc)
		return;
	ns->gres_cnt_alloc = bit_set_count(ns->gres_bit_alloc);
	have_topo = ns->topo_gres_bitmap && ns->topo_gres_cnt_alloc && ns->topo_cnt;
	if (have_topo) {
		for (int j = 0; ns->type_cnt_alloc && j < ns->type_cnt; j++)
			ns->type_cnt_alloc[j] = 0;
		for (int t = 0; t < ns->topo_cnt; t++) {
			uint64_t c = 0;
			int j;

			if (!ns->topo_gres_bitmap[t])
				continue;
			for (bitoff_t i = 0, n = min_size(ns->gres_bit_alloc, ns->topo_gres_bitmap[t]); i < n; i++)
				if (bit_test(ns->gres_bit_alloc, i) && bit_test(ns->topo_gres_bitmap[t], i))
					c++;
			ns->topo_gres_cnt_alloc[t] = c;
			if ((j = topo_type_slot(ns, t)) >= 0)
				ns->type_cnt_alloc[j] += c;
		}
	} else if (ns->type_cnt == 1 && ns->type_cnt_alloc) {
		/* Before the node registers after a slurmctld restart there
		 * is no topology; a single-type node's count is still known. */
		ns->type_cnt_alloc[0] = ns->gres_cnt_alloc;
	}
	xfree(ns->gres_used);
}

void hs_node_gpu_save(gres_node_state_t *ns, hs_gpu_saved_t *s)
{
	*s = (hs_gpu_saved_t){ 0 };
	if (!ns)
		return;
	s->valid = true;
	s->bits = ns->gres_bit_alloc ? bit_copy(ns->gres_bit_alloc) : NULL;
	s->cnt = ns->gres_cnt_alloc;
	if (ns->topo_gres_cnt_alloc && ns->topo_cnt) {
		s->topo_cnt = ns->topo_cnt;
		s->topo = xcalloc(s->topo_cnt, sizeof(*s->topo));
		memcpy(s->topo, ns->topo_gres_cnt_alloc, s->topo_cnt * sizeof(*s->topo));
	}
	if (ns->type_cnt_alloc && ns->type_cnt) {
		s->type_cnt = ns->type_cnt;
		s->type = xcalloc(s->type_cnt, sizeof(*s->type));
		memcpy(s->type, ns->type_cnt_alloc, s->type_cnt * sizeof(*s->type));
	}
}

void hs_node_gpu_restore(gres_node_state_t *ns, hs_gpu_saved_t *s)
{
	if (ns && s->valid) {
		if (s->bits && ns->gres_bit_alloc && bit_size(s->bits) == bit_size(ns->gres_bit_alloc))
			bit_copybits(ns->gres_bit_alloc, s->bits);
		ns->gres_cnt_alloc = s->cnt;
		if (s->topo && ns->topo_gres_cnt_alloc && ns->topo_cnt == s->topo_cnt)
			memcpy(ns->topo_gres_cnt_alloc, s->topo, s->topo_cnt * sizeof(*s->topo));
		if (s->type && ns->type_cnt_alloc && ns->type_cnt == s->type_cnt)
			memcpy(ns->type_cnt_alloc, s->type, s->type_cnt * sizeof(*s->type));
		xfree(ns->gres_used);
	}
	FREE_NULL_BITMAP(s->bits);
	xfree(s->topo);
	xfree(s->type);
	s->valid = false;
}
