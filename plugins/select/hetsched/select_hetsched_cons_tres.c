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
 *   SELECT_TYPE_CONS_TRES for us (up to 24.11).
 * - plugin_id: up to 24.11 it must be unique among all select plugins in
 *   PluginDir (clients find the plugin that unpacks node/job select data
 *   by it); from 25.05 it must be cons_tres's own (HS_SELECT_PLUGIN_ID).
 * The select_p_* entry points, which differ between Slurm series, are in
 * plugins/compat/select_forward*.c.
 */
#include "config.h"

#include "compat/hs_slurm.h"
#include "compat/select_forward.h"

#include "pack.h"

/*
 * slurmctld globals that pack.c reads. Defined here so that clients (sinfo,
 * scontrol, squeue), which load every select plugin up to 24.11, can
 * dlopen() us; in slurmctld (linked with -export-dynamic) its own
 * definitions take precedence. Same arrangement as cons_common.c.
 */
list_t *job_list;
time_t last_job_update;

const char plugin_name[] = "hetsched wrapper of select/cons_tres";
const char plugin_type[] = "select/hetsched_cons_tres";
const uint32_t plugin_id = HS_SELECT_PLUGIN_ID;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void)
{
	/* Light on purpose: every process that loads select plugins calls it. */
	debug("%s: loaded", plugin_type);
	return SLURM_SUCCESS;
}

int fini(void)
{
	return hs_select_forward_fini();
}

/*
 * The packing requests of hs_pack.h (HS_PACK_INFO_*), for the sched plugin
 * in the same slurmctld. From 25.05 it finds this entry point with dlsym()
 * (plugins/compat/pack_channel.c); up to 24.11 the same requests arrive
 * through select_p_get_info_from_plugin().
 */
extern int hetsched_pack_request(uint32_t code, job_record_t *job_ptr, void *data)
{
	int rc;

	return hs_pack_info(code, job_ptr, data, &rc) ? rc : SLURM_ERROR;
}
