/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select_ops.h — select/cons_tres's operations table as each Slurm series
 * defines it (slurm_select_ops_t, private to Slurm since 24.05), shared by
 * select_forward.c (operations of every series) and select_forward_old.c
 * (operations that later series removed). Part of the compatibility layer. */
#ifndef HS_SELECT_OPS_H
#define HS_SELECT_OPS_H

#include "compat/hs_slurm.h"

/* Which operations exist, per series (the order is Slurm's, the same in
 * every series: plugin_context_create() fills the struct as an array). */
#define HS_OPS_STATE (!HS_SLURM_GE(25, 5))   /* state_save/restore, job_init */
#define HS_OPS_SIGNAL (!HS_SLURM_GE(23, 2))  /* job_signal */
#define HS_OPS_MEM_REDUCE HS_SLURM_GE(26, 5) /* job_mem_reduce */
#define HS_OPS_DATA (!HS_SLURM_GE(25, 5))    /* step_*, node/jobinfo, get_info */
#define HS_OPS_OLD (!HS_SLURM_GE(23, 2))     /* jobinfo_sprint/xstrdup, update_node_config */
#define HS_OPS_RESV (!HS_SLURM_GE(23, 11))   /* resv_test */

/* job_test's last arguments: a core bitmap (22.05), a reservation
 * exclusion (23.11), plus will-run data (24.11). */
#if HS_SLURM_GE(24, 11)
#define HS_JOB_TEST_TAIL resv_exc_t *resv_exc, will_run_data_t *will_run
#define HS_JOB_TEST_TAIL_ARGS resv_exc, will_run
#elif HS_SLURM_GE(23, 11)
#define HS_JOB_TEST_TAIL resv_exc_t *resv_exc
#define HS_JOB_TEST_TAIL_ARGS resv_exc
#else
#define HS_JOB_TEST_TAIL bitstr_t *exc_core_bitmap
#define HS_JOB_TEST_TAIL_ARGS exc_core_bitmap
#endif

/* Our copy of slurm_select_ops_t (private to select.c since 24.05), in
 * the order of syms[]. */
typedef struct {
	uint32_t *plugin_id;
#if HS_OPS_STATE
	int (*state_save)(char *dir_name);
	int (*state_restore)(char *dir_name);
	int (*job_init)(list_t *job_list);
#endif
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			list_t *preemptee_candidates, list_t **preemptee_job_list,
			HS_JOB_TEST_TAIL);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
#if HS_OPS_MEM_REDUCE
	void (*job_mem_reduce)(job_record_t *job_ptr);
#endif
#if HS_OPS_SIGNAL
	int (*job_signal)(job_record_t *job_ptr, int signal);
#endif
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
#if HS_OPS_DATA
	bitstr_t *(*step_pick_nodes)(job_record_t *job_ptr, select_jobinfo_t *step_jobinfo,
				     uint32_t node_count, bitstr_t **avail_nodes);
	int (*step_start)(step_record_t *step_ptr);
	int (*step_finish)(step_record_t *step_ptr, bool killing_step);
	int (*nodeinfo_pack)(select_nodeinfo_t *nodeinfo, buf_t *buffer, uint16_t protocol_version);
	int (*nodeinfo_unpack)(select_nodeinfo_t **nodeinfo, buf_t *buffer,
			       uint16_t protocol_version);
	select_nodeinfo_t *(*nodeinfo_alloc)(void);
	int (*nodeinfo_free)(select_nodeinfo_t *nodeinfo);
#endif
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
#if HS_OPS_DATA
	int (*nodeinfo_get)(select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo,
			    enum node_states state, void *data);
	select_jobinfo_t *(*jobinfo_alloc)(void);
	int (*jobinfo_free)(select_jobinfo_t *jobinfo);
	int (*jobinfo_set)(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
			   void *data);
	int (*jobinfo_get)(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
			   void *data);
	select_jobinfo_t *(*jobinfo_copy)(select_jobinfo_t *jobinfo);
	int (*jobinfo_pack)(select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version);
	int (*jobinfo_unpack)(select_jobinfo_t **jobinfo, buf_t *buffer,
			      uint16_t protocol_version);
#endif
#if HS_OPS_OLD
	char *(*jobinfo_sprint)(select_jobinfo_t *jobinfo, char *buf, size_t size, int mode);
	char *(*jobinfo_xstrdup)(select_jobinfo_t *jobinfo, int mode);
#endif
#if HS_OPS_DATA
	int (*get_info_from_plugin)(enum select_plugindata_info dinfo, job_record_t *job_ptr,
				    void *data);
#endif
#if HS_OPS_OLD
	int (*update_node_config)(int index);
#endif
	int (*reconfigure)(void);
#if HS_OPS_RESV
	bitstr_t *(*resv_test)(resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt,
			       bitstr_t *avail_bitmap, bitstr_t **core_bitmap);
#endif
} hs_select_ops_t;

/* The inner select/cons_tres's ops, loaded on first use; NULL (logged)
 * when it cannot be loaded. */
hs_select_ops_t *hs_select_inner(void);

#endif
