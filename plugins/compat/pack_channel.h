/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pack_channel.h — how the sched plugin's packing requests (hs_pack.h)
 * reach select/hetsched_cons_tres in the same slurmctld, whatever the
 * Slurm series (pack_channel.c). */
#ifndef HS_PACK_CHANNEL_H
#define HS_PACK_CHANNEL_H

#include <stdint.h>

#include "compat/hs_slurm.h"

/* Sends request `code` (HS_PACK_INFO_*) with its data to the select
 * plugin; SLURM_SUCCESS or an error when the select plugin does not
 * answer it (not ours, or not found). Locks: those the request needs. */
int hs_pack_call(uint32_t code, job_record_t *job, void *data);

#endif
