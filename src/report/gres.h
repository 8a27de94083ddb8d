/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gres.h — the GPU type a job holds on a node, from Slurm's per-node GRES
 * allocation string (job_info_t.gres_detail_str[i] with SHOW_DETAIL), e.g.
 * "gpu:v100:1(IDX:0)", "shard:k80:1(1/2,0/0)" or
 * "gpu:v100:2(IDX:0-1),gpu:k80:1(IDX:2)". Slurm-free so it is unit-tested.
 */
#ifndef HS_REPORT_GRES_H
#define HS_REPORT_GRES_H

#include <stddef.h>

/* Writes into type (size >= 64) the GPU type(s) of the "gpu" and "shard"
 * entries, sorted, unique, joined by '+', and sets *shared to 1 when any is
 * a shard. The result is at most 63 bytes whatever size is (it becomes a
 * record key). Returns 0, or -1 when there is no typed GPU (untyped or no
 * GPU GRES, a malformed string, an invalid type name, or too long). */
int hs_gres_gpu_type(const char *detail, char *type, size_t size, int *shared);

#endif /* HS_REPORT_GRES_H */
