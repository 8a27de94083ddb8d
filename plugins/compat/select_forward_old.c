/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select_forward_old.c — select/hetsched_cons_tres's entry points for the
 * select operations that later Slurm series removed (select_ops.h says
 * which series have which): state save/restore, job/step/node data,
 * get_info_from_plugin (up to 24.11), job_signal, jobinfo printing,
 * update_node_config (22.05) and resv_test (up to 23.02). Each forwards to
 * select/cons_tres; get_info_from_plugin also answers the packing
 * requests of hs_pack.h (their channel up to 24.11).
 */
#include "config.h"

#include "select/hetsched/pack.h"
#include "select_ops.h"

#if HS_OPS_STATE
extern int select_p_state_save(char *dir_name)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->state_save(dir_name) : SLURM_ERROR;
}

extern int select_p_state_restore(char *dir_name)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->state_restore(dir_name) : SLURM_ERROR;
}

extern int select_p_job_init(list_t *job_list)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->job_init(job_list) : SLURM_ERROR;
}
#endif

#if HS_OPS_SIGNAL
extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->job_signal(job_ptr, signal) : SLURM_ERROR;
}
#endif

#if HS_OPS_DATA
extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr, select_jobinfo_t *step_jobinfo,
					 uint32_t node_count, bitstr_t **avail_nodes)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->step_pick_nodes(job_ptr, step_jobinfo, node_count, avail_nodes) : NULL;
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->step_start(step_ptr) : SLURM_ERROR;
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->step_finish(step_ptr, killing_step) : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo, buf_t *buffer,
					 uint16_t protocol_version)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->nodeinfo_pack(nodeinfo, buffer, protocol_version) : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo, buf_t *buffer,
					   uint16_t protocol_version)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->nodeinfo_unpack(nodeinfo, buffer, protocol_version) : SLURM_ERROR;
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->nodeinfo_alloc() : NULL;
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->nodeinfo_free(nodeinfo) : SLURM_ERROR;
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo,
				       enum node_states state, void *data)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->nodeinfo_get(nodeinfo, dinfo, state, data) : SLURM_ERROR;
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->jobinfo_alloc() : NULL;
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->jobinfo_free(jobinfo) : SLURM_ERROR;
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
				      void *data)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->jobinfo_set(jobinfo, data_type, data) : SLURM_ERROR;
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
				      void *data)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->jobinfo_get(jobinfo, data_type, data) : SLURM_ERROR;
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->jobinfo_copy(jobinfo) : NULL;
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo, buf_t *buffer,
					uint16_t protocol_version)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->jobinfo_pack(jobinfo, buffer, protocol_version) : SLURM_ERROR;
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo_pptr, buf_t *buffer,
					  uint16_t protocol_version)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->jobinfo_unpack(jobinfo_pptr, buffer, protocol_version) : SLURM_ERROR;
}

/* Our private codes (hs_pack.h) first; everything else goes to cons_tres
 * (SELECT_CR_PLUGIN makes it report SELECT_TYPE_CONS_TRES for us). */
extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo, job_record_t *job_ptr,
					 void *data)
{
	hs_select_ops_t *o;
	int rc;

	if (hs_pack_info((uint32_t)dinfo, job_ptr, data, &rc))
		return rc;
	o = hs_select_inner();
	return o ? o->get_info_from_plugin(dinfo, job_ptr, data) : SLURM_ERROR;
}
#endif /* HS_OPS_DATA */

#if HS_OPS_OLD
extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo, char *buf, size_t size,
					   int mode)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->jobinfo_sprint(jobinfo, buf, size, mode) : NULL;
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo, int mode)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->jobinfo_xstrdup(jobinfo, mode) : NULL;
}

extern int select_p_update_node_config(int index)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->update_node_config(index) : SLURM_ERROR;
}
#endif

#if HS_OPS_RESV
extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt,
				   bitstr_t *avail_bitmap, bitstr_t **core_bitmap)
{
	hs_select_ops_t *o = hs_select_inner();

	return o ? o->resv_test(resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap) : NULL;
}
#endif
