/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack.h — space sharing inside select/hetsched_cons_tres: the requests of
 * hs_pack.h (start a job on a partner's GPUs, partner and pair queries)
 * and the hooks the wrapper runs around cons_tres's operations so node GPU
 * usage stays right while two jobs share GPUs. See doc/packing.md.
 */
#ifndef HS_PACK_INTERNAL_H
#define HS_PACK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "compat/hs_slurm.h"

#include "hs_pack.h"

/* The select ops of the inner plugin (cons_tres), for the hooks. job_test
 * comes with every argument but the node bitmap bound in arg (its other
 * arguments differ between Slurm series: compat/select_forward.c). */
typedef int (*hs_job_test_f)(void *arg, bitstr_t *bitmap);
typedef int (*hs_job_op_f)(job_record_t *job);

/* select_p_get_info_from_plugin for our private codes. Returns 1 when the
 * code is ours (*rc set), 0 to forward it. */
int hs_pack_info(uint32_t code, job_record_t *job, void *data, int *rc);

/* select_p_job_test: for the job being packed, presents only the
 * partner's GPUs as free on the partner's nodes and checks cons_tres's
 * pick; otherwise just calls inner. */
int hs_pack_job_test(hs_job_test_f inner, void *arg, job_record_t *job, bitstr_t *bitmap,
		     uint16_t mode);

/* select_p_select_nodeinfo_set: GPUs the job shares with jobs already on
 * the node (the job being packed; a recovered allocation after a restart)
 * are taken off the node's counters first, so cons_tres's allocation
 * neither strips them from the job nor counts them twice. */
int hs_pack_nodeinfo_set(hs_job_op_f inner, job_record_t *job);

/* select_p_job_fini: after cons_tres frees the job's GPUs, GPUs its
 * partner still holds are marked allocated again. */
int hs_pack_job_fini(hs_job_op_f inner, job_record_t *job);

/* select_p_job_resized (a node removed from a running job). */
int hs_pack_job_resized(int (*inner)(job_record_t *, node_record_t *), job_record_t *job,
			node_record_t *node);

/* Around cons_tres rebuilding every node from the jobs (select_p_reconfigure,
 * also the last step of a slurmctld start). cons_tres re-adds the jobs one
 * by one and would refuse the second job of a pair on a full node
 * ("overallocated"); begin() lets each node with shared GPUs take that many
 * more for the duration, end() takes it back and recounts those nodes so
 * each GPU counts once. Pass begin()'s result to end(). */
void *hs_pack_rebuild_begin(void);
void hs_pack_rebuild_end(void *state);

#endif
