/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_forward.c — select/hetsched_cons_tres's select_p_* entry points
 * for every supported Slurm series: each one calls the same operation of
 * select/cons_tres (through the packing hooks of pack.h where GPUs are
 * allocated or freed). The set of operations and job_test's tail
 * arguments change between series (doc/slurm-versions.md), so this file,
 * part of the compatibility layer, holds the version tests; pack.c sees
 * one interface.
 *
 * The inner plugin is the pattern of Slurm's old select/other: a plugin
 * context for select/cons_tres, created on first use (select plugins'
 * init() must stay light: up to 24.11 every process that loads select
 * plugins loads all of them), its ops filled in the order of syms[].
 */
#include "config.h"

#include <assert.h>
#include <pthread.h>

#include "compat/hs_slurm.h"
#include "src/common/plugin.h"
#include "src/common/run_in_daemon.h"

#include "select/hetsched/pack.h"
#include "select_forward.h"
#include "select_ops.h"

#define INNER_TYPE "select/cons_tres"

static const char *syms[] = {
	"plugin_id",
#if HS_OPS_STATE
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
#endif
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
#if HS_OPS_MEM_REDUCE
	"select_p_job_mem_reduce",
#endif
#if HS_OPS_SIGNAL
	"select_p_job_signal",
#endif
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
#if HS_OPS_DATA
	"select_p_step_pick_nodes",
	"select_p_step_start",
	"select_p_step_finish",
	"select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack",
	"select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free",
#endif
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
#if HS_OPS_DATA
	"select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc",
	"select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set",
	"select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy",
	"select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack",
#endif
#if HS_OPS_OLD
	"select_p_select_jobinfo_sprint",
	"select_p_select_jobinfo_xstrdup",
#endif
#if HS_OPS_DATA
	"select_p_get_info_from_plugin",
#endif
#if HS_OPS_OLD
	"select_p_update_node_config",
#endif
	"select_p_reconfigure",
#if HS_OPS_RESV
	"select_p_resv_test",
#endif
};
/* plugin_context_create() fills the ops struct as an array of pointers. */
static_assert(sizeof(syms) / sizeof(syms[0]) == sizeof(hs_select_ops_t) / sizeof(void *),
	      "syms[] out of step with hs_select_ops_t");
#if !HS_SLURM_GE(24, 5) /* Slurm's own table is public there: same size */
static_assert(sizeof(hs_select_ops_t) == sizeof(slurm_select_ops_t),
	      "hs_select_ops_t out of step with slurm_select_ops_t");
#endif

/* The inner plugin: one per process, created on first use, guarded by lock. */
static hs_select_ops_t inner_ops;
static plugin_context_t *inner_ctx;
static pthread_mutex_t inner_lock = PTHREAD_MUTEX_INITIALIZER;

/* Returns the inner ops, creating the context if needed; NULL on failure. */
hs_select_ops_t *hs_select_inner(void)
{
	hs_select_ops_t *ops = &inner_ops;

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

int hs_select_forward_fini(void)
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

extern int select_p_node_init(void)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->node_init() : SLURM_ERROR;
}

/* job_test with everything but the node bitmap bound, for pack.c. */
typedef struct {
	hs_select_ops_t *o;
	job_record_t *job_ptr;
	uint32_t min_nodes, max_nodes, req_nodes;
	uint16_t mode;
	list_t *preemptee_candidates;
	list_t **preemptee_job_list;
#if HS_SLURM_GE(23, 11)
	resv_exc_t *resv_exc;
#else
	bitstr_t *exc_core_bitmap;
#endif
#if HS_SLURM_GE(24, 11)
	will_run_data_t *will_run;
#endif
} job_test_args_t;

static int call_job_test(void *arg, bitstr_t *bitmap)
{
	job_test_args_t *a = arg;

	return a->o->job_test(a->job_ptr, bitmap, a->min_nodes, a->max_nodes, a->req_nodes,
			      a->mode, a->preemptee_candidates, a->preemptee_job_list,
#if HS_SLURM_GE(24, 11)
			      a->resv_exc, a->will_run);
#elif HS_SLURM_GE(23, 11)
			      a->resv_exc);
#else
			      a->exc_core_bitmap);
#endif
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			     uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates, list_t **preemptee_job_list,
			     HS_JOB_TEST_TAIL)
{
	job_test_args_t a = { .o = hs_select_inner(), .job_ptr = job_ptr, .min_nodes = min_nodes,
			      .max_nodes = max_nodes, .req_nodes = req_nodes, .mode = mode,
			      .preemptee_candidates = preemptee_candidates,
			      .preemptee_job_list = preemptee_job_list };

	if (!a.o)
		return SLURM_ERROR;
#if HS_SLURM_GE(24, 11)
	a.resv_exc = resv_exc;
	a.will_run = will_run;
#elif HS_SLURM_GE(23, 11)
	a.resv_exc = resv_exc;
#else
	a.exc_core_bitmap = exc_core_bitmap;
#endif
	return hs_pack_job_test(call_job_test, &a, job_ptr, bitmap, mode);
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->job_begin(job_ptr) : SLURM_ERROR;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->job_ready(job_ptr) : SLURM_ERROR;
}

extern int select_p_job_expand(job_record_t *from_job_ptr, job_record_t *to_job_ptr)
{
	hs_select_ops_t *o = hs_select_inner();
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
	hs_select_ops_t *o = hs_select_inner();

	return o ? hs_pack_job_resized(o->job_resized, job_ptr, node_ptr) : SLURM_ERROR;
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? hs_pack_job_fini(o->job_fini, job_ptr) : SLURM_ERROR;
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->job_suspend(job_ptr, indf_susp) : SLURM_ERROR;
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->job_resume(job_ptr, indf_susp) : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_set_all(void)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->nodeinfo_set_all() : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? hs_pack_nodeinfo_set(o->nodeinfo_set, job_ptr) : SLURM_ERROR;
}

extern int select_p_reconfigure(void)
{
	hs_select_ops_t *o = hs_select_inner();
	int rc;
	void *st;

	if (!o)
		return SLURM_ERROR;
	st = hs_pack_rebuild_begin();
	rc = o->reconfigure();
	hs_pack_rebuild_end(st);
	return rc;
}

#if HS_OPS_MEM_REDUCE
extern void select_p_job_mem_reduce(job_record_t *job_ptr)
{
	hs_select_ops_t *o = hs_select_inner();

	if (o)
		o->job_mem_reduce(job_ptr);
}
#endif
