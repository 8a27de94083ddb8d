/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_hetsched_cons_tres.c — the select/hetsched_cons_tres Slurm plugin
 * (SelectType=select/hetsched_cons_tres): a wrapper that forwards every
 * select operation to select/cons_tres, so the cluster behaves exactly like
 * cons_tres, except for space sharing: the scheduler may start a job on the
 * GPUs of one running partner job (hs_pack.h), and the operations that
 * allocate or free GPUs go through pack.c so node GPU usage stays right
 * while two jobs share GPUs (doc/packing.md).
 *
 * Why a wrapper and why this name (see doc/slurm-internals.md):
 * - The pattern is Slurm's own src/plugins/select/other: create a plugin
 *   context for select/cons_tres and call through its ops table.
 * - select_g_init() loads and init()s every select_*.so in PluginDir, in
 *   slurmctld and in clients (sinfo, scontrol) alike, so init() stays light
 *   and the inner context is created on first use.
 * - Several Slurm checks test strstr(SelectType, "cons_tres"), hence the
 *   name; SELECT_CR_PLUGIN is forwarded, so cons_tres reports
 *   SELECT_TYPE_CONS_TRES for us.
 * - plugin_id must be unique among all select plugins in PluginDir; clients
 *   find the plugin that unpacks node/job select data by this id.
 */
#include "config.h"

#include <assert.h>
#include <pthread.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/plugin.h"
#include "src/common/run_in_daemon.h"
#include "src/common/select.h"
#include "src/slurmctld/slurmctld.h"

#include "pack.h"

/*
 * slurmctld globals that pack.c reads. Defined here so that clients (sinfo,
 * scontrol, squeue), which load every select plugin, can dlopen() us; in
 * slurmctld (linked with -export-dynamic) its own definitions take
 * precedence. Same arrangement as cons_common.c.
 */
List job_list;
time_t last_job_update;

const char plugin_name[] = "hetsched wrapper of select/cons_tres";
const char plugin_type[] = "select/hetsched_cons_tres";
/* Unique among select plugins; Slurm's own use 101-110. */
const uint32_t plugin_id = 150;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define INNER_TYPE "select/cons_tres"

/*
 * Symbol names in the order of slurm_select_ops_t (src/common/select.h),
 * as in src/common/select.c; libslurmfull exports its own copy, but as an
 * array of unknown size, so we keep ours and check its length below.
 */
static const char *syms[] = {
	"plugin_id",
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
	"select_p_job_signal",
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_step_pick_nodes",
	"select_p_step_start",
	"select_p_step_finish",
	"select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack",
	"select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc",
	"select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set",
	"select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy",
	"select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack",
	"select_p_select_jobinfo_sprint",
	"select_p_select_jobinfo_xstrdup",
	"select_p_get_info_from_plugin",
	"select_p_update_node_config",
	"select_p_reconfigure",
	"select_p_resv_test",
};
/* plugin_context_create() fills the ops struct as an array of pointers. */
static_assert(sizeof(syms) / sizeof(syms[0]) == sizeof(slurm_select_ops_t) / sizeof(void *),
	      "syms[] out of step with slurm_select_ops_t");

/* The inner plugin: one per process, created on first use, guarded by lock. */
static slurm_select_ops_t inner_ops;
static plugin_context_t *inner_ctx;
static pthread_mutex_t inner_lock = PTHREAD_MUTEX_INITIALIZER;

/* Returns the inner ops, creating the context if needed; NULL on failure. */
static slurm_select_ops_t *inner(void)
{
	slurm_select_ops_t *ops = &inner_ops;

	slurm_mutex_lock(&inner_lock);
	if (!inner_ctx) {
		inner_ctx = plugin_context_create("select", INNER_TYPE, (void **)&inner_ops,
						  syms, sizeof(syms));
		/* slurmctld logs it at info (tests look for it); clients, which
		 * print info() to the user's terminal, only at debug. */
		if (inner_ctx && running_in_slurmctld())
			info("%s: forwarding every operation to %s", plugin_type, INNER_TYPE);
		else if (inner_ctx)
			debug("%s: forwarding every operation to %s", plugin_type, INNER_TYPE);
		else
			error("%s: cannot load %s from PluginDir", plugin_type, INNER_TYPE);
	}
	if (!inner_ctx)
		ops = NULL;
	slurm_mutex_unlock(&inner_lock);
	return ops;
}

int init(void)
{
	/* Light on purpose: every process that loads select plugins calls it. */
	debug("%s: loaded", plugin_type);
	return SLURM_SUCCESS;
}

int fini(void)
{
	int rc = SLURM_SUCCESS;

	slurm_mutex_lock(&inner_lock);
	if (inner_ctx)
		rc = plugin_context_destroy(inner_ctx);
	inner_ctx = NULL;
	slurm_mutex_unlock(&inner_lock);
	return rc;
}

/*
 * Forwarding: each select_p_* op calls the same op of select/cons_tres.
 * If cons_tres cannot be loaded, ops fail with SLURM_ERROR (or NULL) and
 * the error above is logged; nothing crashes.
 */

extern int select_p_state_save(char *dir_name)
{
	slurm_select_ops_t *o = inner();

	return o ? o->state_save(dir_name) : SLURM_ERROR;
}

extern int select_p_state_restore(char *dir_name)
{
	slurm_select_ops_t *o = inner();

	return o ? o->state_restore(dir_name) : SLURM_ERROR;
}

extern int select_p_job_init(List job_list)
{
	slurm_select_ops_t *o = inner();

	return o ? o->job_init(job_list) : SLURM_ERROR;
}

extern int select_p_node_init(void)
{
	slurm_select_ops_t *o = inner();

	return o ? o->node_init() : SLURM_ERROR;
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			     uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates, List *preemptee_job_list,
			     bitstr_t *exc_core_bitmap)
{
	slurm_select_ops_t *o = inner();

	return o ? hs_pack_job_test(o->job_test, job_ptr, bitmap, min_nodes, max_nodes, req_nodes,
				    mode, preemptee_candidates, preemptee_job_list, exc_core_bitmap)
		 : SLURM_ERROR;
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	slurm_select_ops_t *o = inner();

	return o ? o->job_begin(job_ptr) : SLURM_ERROR;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	slurm_select_ops_t *o = inner();

	return o ? o->job_ready(job_ptr) : SLURM_ERROR;
}

extern int select_p_job_expand(job_record_t *from_job_ptr, job_record_t *to_job_ptr)
{
	slurm_select_ops_t *o = inner();
	int rc;
	void *st;

	if (!o)
		return SLURM_ERROR;
	st = hs_pack_rebuild_begin(); /* rare: recount nodes with shared GPUs */
	rc = o->job_expand(from_job_ptr, to_job_ptr);
	hs_pack_rebuild_end(st);
	return rc;
}

extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	slurm_select_ops_t *o = inner();

	return o ? hs_pack_job_resized(o->job_resized, job_ptr, node_ptr) : SLURM_ERROR;
}

extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	slurm_select_ops_t *o = inner();

	return o ? o->job_signal(job_ptr, signal) : SLURM_ERROR;
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	slurm_select_ops_t *o = inner();

	return o ? hs_pack_job_fini(o->job_fini, job_ptr) : SLURM_ERROR;
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	slurm_select_ops_t *o = inner();

	return o ? o->job_suspend(job_ptr, indf_susp) : SLURM_ERROR;
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	slurm_select_ops_t *o = inner();

	return o ? o->job_resume(job_ptr, indf_susp) : SLURM_ERROR;
}

extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr, select_jobinfo_t *step_jobinfo,
					 uint32_t node_count, bitstr_t **avail_nodes)
{
	slurm_select_ops_t *o = inner();

	return o ? o->step_pick_nodes(job_ptr, step_jobinfo, node_count, avail_nodes) : NULL;
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	slurm_select_ops_t *o = inner();

	return o ? o->step_start(step_ptr) : SLURM_ERROR;
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	slurm_select_ops_t *o = inner();

	return o ? o->step_finish(step_ptr, killing_step) : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo, buf_t *buffer, uint16_t protocol_version)
{
	slurm_select_ops_t *o = inner();

	return o ? o->nodeinfo_pack(nodeinfo, buffer, protocol_version) : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo, buf_t *buffer, uint16_t protocol_version)
{
	slurm_select_ops_t *o = inner();

	return o ? o->nodeinfo_unpack(nodeinfo, buffer, protocol_version) : SLURM_ERROR;
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	slurm_select_ops_t *o = inner();

	return o ? o->nodeinfo_alloc() : NULL;
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	slurm_select_ops_t *o = inner();

	return o ? o->nodeinfo_free(nodeinfo) : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_set_all(void)
{
	slurm_select_ops_t *o = inner();

	return o ? o->nodeinfo_set_all() : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	slurm_select_ops_t *o = inner();

	return o ? hs_pack_nodeinfo_set(o->nodeinfo_set, job_ptr) : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo,
				       enum node_states state, void *data)
{
	slurm_select_ops_t *o = inner();

	return o ? o->nodeinfo_get(nodeinfo, dinfo, state, data) : SLURM_ERROR;
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	slurm_select_ops_t *o = inner();

	return o ? o->jobinfo_alloc() : NULL;
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	slurm_select_ops_t *o = inner();

	return o ? o->jobinfo_free(jobinfo) : SLURM_ERROR;
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
				      void *data)
{
	slurm_select_ops_t *o = inner();

	return o ? o->jobinfo_set(jobinfo, data_type, data) : SLURM_ERROR;
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
				      void *data)
{
	slurm_select_ops_t *o = inner();

	return o ? o->jobinfo_get(jobinfo, data_type, data) : SLURM_ERROR;
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo)
{
	slurm_select_ops_t *o = inner();

	return o ? o->jobinfo_copy(jobinfo) : NULL;
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version)
{
	slurm_select_ops_t *o = inner();

	return o ? o->jobinfo_pack(jobinfo, buffer, protocol_version) : SLURM_ERROR;
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo_pptr, buf_t *buffer,
					 uint16_t protocol_version)
{
	slurm_select_ops_t *o = inner();

	return o ? o->jobinfo_unpack(jobinfo_pptr, buffer, protocol_version) : SLURM_ERROR;
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo, char *buf, size_t size, int mode)
{
	slurm_select_ops_t *o = inner();

	return o ? o->jobinfo_sprint(jobinfo, buf, size, mode) : NULL;
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo, int mode)
{
	slurm_select_ops_t *o = inner();

	return o ? o->jobinfo_xstrdup(jobinfo, mode) : NULL;
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo, job_record_t *job_ptr,
					 void *data)
{
	slurm_select_ops_t *o;
	int rc;

	if (hs_pack_info(dinfo, job_ptr, data, &rc)) /* our private codes */
		return rc;
	o = inner();
	return o ? o->get_info_from_plugin(dinfo, job_ptr, data) : SLURM_ERROR;
}

extern int select_p_update_node_config(int index)
{
	slurm_select_ops_t *o = inner();

	return o ? o->update_node_config(index) : SLURM_ERROR;
}

extern int select_p_reconfigure(void)
{
	slurm_select_ops_t *o = inner();
	int rc;
	void *st;

	if (!o)
		return SLURM_ERROR;
	st = hs_pack_rebuild_begin();
	rc = o->reconfigure();
	hs_pack_rebuild_end(st);
	return rc;
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt,
				   bitstr_t *avail_bitmap, bitstr_t **core_bitmap)
{
	slurm_select_ops_t *o = inner();

	return o ? o->resv_test(resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap) : NULL;
}
