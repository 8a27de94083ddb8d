/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hs_slurm.h — the Slurm compatibility layer of the sched and select
 * plugins: every difference between the Slurm series we build against
 * (22.05, 23.11, 24.05, 24.11, 25.05, 25.11, 26.05; doc/slurm-versions.md)
 * is resolved here, so the plugins' own files carry no version test.
 * Include it instead of the internal headers that moved (select.h, gres.h,
 * power.h, srun_comm.h) and call the hs_* wrappers instead of the
 * functions whose signatures changed. The select wrapper's ops table lives
 * beside it in select_forward.c, the sched -> select packing channel in
 * pack_channel.c. The SPANK plugin, which sees only public headers, has
 * hs_spank.h.
 */
#ifndef HS_SLURM_H
#define HS_SLURM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

/* Series test: true for Slurm maj.min.0 and later. */
#define HS_SLURM_GE(maj, min) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(maj, min, 0))

#include "src/common/list.h"
#if !HS_SLURM_GE(23, 2)
/* 23.02 named the list types; older trees have only List/ListIterator. */
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/parse_config.h"
#include "src/common/xmalloc.h"
#if HS_SLURM_GE(23, 2) /* the plugin interfaces moved to src/interfaces */
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#else
#include "src/common/gres.h"
#include "src/common/select.h"
#endif
#if !HS_SLURM_GE(23, 2)
#include "src/common/power.h"
#elif !HS_SLURM_GE(24, 5) /* power plugins were removed in 24.05 */
#include "src/interfaces/power.h"
#endif
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/licenses.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/reservation.h"
#include "src/slurmctld/slurmctld.h"
#if HS_SLURM_GE(24, 5) /* srun_allocate() moved to proc_req.h */
#include "src/slurmctld/proc_req.h"
#include "src/stepmgr/srun_comm.h" /* srun_allocate_abort() */
#else
#include "src/slurmctld/srun_comm.h"
#endif

#if HS_SLURM_GE(26, 5) /* slurm_thread_create() moved, gained a name */
#include "src/common/threadpool.h"
#endif
#include "src/slurmctld/locks.h"
#include "src/common/assoc_mgr.h"

#if !HS_SLURM_GE(23, 2)
typedef struct job_details job_details_t; /* a typedef since 23.02 */
#endif

/* Sets a job's base state (job_state_set() since 23.02 keeps Slurm's
 * per-state job counters in step; before, a plain assignment). */
static inline void hs_job_state_set(job_record_t *job_ptr, uint32_t state)
{
#if HS_SLURM_GE(23, 2)
	job_state_set(job_ptr, state);
#else
	job_ptr->job_state = state;
#endif
}

/* Is this slurmctld the new process `scontrol reconfigure` started? From
 * 23.11 reconfigure re-executes slurmctld with SLURMCTLD_RECONF=1 in its
 * environment (controller.c: _try_to_reconfig()); a cold start has none.
 * When that process fails to start, the old one logs "Resuming operation,
 * reconfigure failed" and loads its plugins again, without the variable
 * (it has run them before: conf_lastgood.h tells by the writing process).
 * 22.05 never sets it (reconfigure calls sched_p_reconfig instead);
 * honouring it there too lets the tests play the restart. */
static inline bool hs_slurmctld_reconf_restart(void)
{
	return getenv("SLURMCTLD_RECONF") != NULL;
}

/* Starts a thread of ours (name: up to 15 characters, as ps shows it). */
#if HS_SLURM_GE(26, 5)
#define hs_thread_create(name, id, func, arg) slurm_thread_create(name, id, func, arg)
#else
#define hs_thread_create(name, id, func, arg) slurm_thread_create(id, func, arg)
#endif

/*
 * The slurmctld locks of a scheduling pass: HS_LOCKS_READ to snapshot
 * (config, jobs, nodes, partitions), HS_LOCKS_WRITE to act (what backfill
 * takes to start jobs: also suspend, requeue, signal). 26.05 added a
 * select_node lock guarding the select plugin's node data, which
 * select_nodes() needs written (backfill takes it so) and which packing
 * queries read.
 */
#if HS_SLURM_GE(26, 5)
#define HS_LOCKS_READ { .conf = READ_LOCK, .job = READ_LOCK, .node = READ_LOCK, \
			.part = READ_LOCK, .fed = NO_LOCK, .select_node = READ_LOCK }
#define HS_LOCKS_WRITE { .conf = READ_LOCK, .job = WRITE_LOCK, .node = WRITE_LOCK, \
			 .part = READ_LOCK, .fed = READ_LOCK, .select_node = WRITE_LOCK }
#else
#define HS_LOCKS_READ { .conf = READ_LOCK, .job = READ_LOCK, .node = READ_LOCK, \
			.part = READ_LOCK, .fed = NO_LOCK }
#define HS_LOCKS_WRITE { .conf = READ_LOCK, .job = WRITE_LOCK, .node = WRITE_LOCK, \
			 .part = READ_LOCK, .fed = READ_LOCK }
#endif

/* The alternate GRES record of a node's GPU state (renamed in 23.11). */
#if HS_SLURM_GE(23, 11)
#define HS_GRES_NS_ALT(ns) ((ns)->alt_gres)
#else
#define HS_GRES_NS_ALT(ns) ((ns)->alt_gres_ns)
#endif

/*
 * select/hetsched_cons_tres's plugin_id. Up to 24.11 every select plugin
 * in PluginDir is loaded and the ids must be unique (Slurm's own use
 * 101-110). From 25.05 only SelectType is loaded and running_cons_tres()
 * accepts CR_CPU, CR_Core and CR_Socket settings only when the id is cons_tres's own.
 */
#if HS_SLURM_GE(25, 5)
#define HS_SELECT_PLUGIN_ID SELECT_PLUGIN_CONS_TRES
#else
#define HS_SELECT_PLUGIN_ID 150
#endif

/* The error of a start refused for licenses in use: 22.05 has no code
 * for it (job_allocate() only leaves the job pending); the nearest one
 * is used there, the job's reason says Licenses either way. */
#if HS_SLURM_GE(23, 11)
#define HS_ESLURM_LICENSES_BUSY ESLURM_LICENSES_UNAVAILABLE
#else
#define HS_ESLURM_LICENSES_BUSY ESLURM_INVALID_LICENSES
#endif

/* Are the job's licenses (-L) free now? select_nodes() does not ask:
 * its callers do (schedule(), backfill, job_allocate()), each setting
 * reason Licenses, as this does. Same call in every series. */
static inline int hs_licenses_free(job_record_t *job_ptr)
{
	if (license_job_test(job_ptr, time(NULL), true) == SLURM_SUCCESS)
		return 1;
	if (IS_JOB_PENDING(job_ptr) && job_ptr->state_reason != WAIT_LICENSES) {
		job_ptr->state_reason = WAIT_LICENSES;
		xfree(job_ptr->state_desc);
		last_job_update = time(NULL);
	}
	return 0;
}

/* select_nodes() for a scheduler start (not a test, not at submission),
 * after the license test its callers make; *err_msg may be set (xfree
 * it). 24.11 moved the arguments into a struct. */
static inline int hs_select_nodes(job_record_t *job_ptr, char **err_msg)
{
	if (!hs_licenses_free(job_ptr))
		return HS_ESLURM_LICENSES_BUSY;
#if HS_SLURM_GE(24, 11)
	job_node_select_t jns = { .job_ptr = job_ptr, .err_msg = err_msg };

	return select_nodes(&jns, false, false, SLURMDB_JOB_FLAG_SCHED);
#else
	return select_nodes(job_ptr, false, NULL, err_msg, false, SLURMDB_JOB_FLAG_SCHED);
#endif
}

/* What backfill does after a start before launching: tell the power
 * plugin (gone since 24.05, nothing to do there). */
static inline void hs_power_job_start(job_record_t *job_ptr)
{
#if HS_SLURM_GE(24, 5)
	(void)job_ptr;
#else
	power_g_job_start(job_ptr);
#endif
}

/* The steps after select_nodes() started a job, as backfill takes them
 * (_start_job in backfill.c): the power plugin, then the launch (an
 * allocation's srun waits for the answer; a batch job is launched unless
 * its nodes are still booting), then the partition list of a
 * multi-partition job. One copy for every start of ours: GPU jobs
 * (apply.c), jobs without GPUs (cpujobs.c) and packed jobs (pack.c). */
static inline void hs_launch_started_job(job_record_t *job_ptr)
{
	last_job_update = time(NULL);
	hs_power_job_start(job_ptr);
	if (job_ptr->batch_flag == 0)
		srun_allocate(job_ptr);
	else if (!IS_JOB_CONFIGURING(job_ptr))
		launch_job(job_ptr);
	if (job_ptr->part_ptr_list)
		rebuild_job_part_list(job_ptr);
}

/* Suspends or resumes (op = SUSPEND_JOB / RESUME_JOB) a job as root, with
 * no RPC to answer. 24.11 dropped conn_fd for a (NULL) message; 25.11
 * identifies the job by a step id and fills job_id_str itself. */
static inline int hs_job_suspend(uint32_t job_id, uint16_t op)
{
#if HS_SLURM_GE(25, 11)
	suspend_msg_t msg = { .op = op, .job_id_str = NULL,
			      .step_id = { .job_id = job_id, .step_id = NO_VAL,
					   .step_het_comp = NO_VAL } };
	int rc = job_suspend(NULL, &msg, 0, false, SLURM_PROTOCOL_VERSION);

	xfree(msg.job_id_str);
	return rc;
#elif HS_SLURM_GE(24, 11)
	suspend_msg_t msg = { .op = op, .job_id = job_id, .job_id_str = NULL };

	return job_suspend(NULL, &msg, 0, false, SLURM_PROTOCOL_VERSION);
#else
	suspend_msg_t msg = { .op = op, .job_id = job_id, .job_id_str = NULL };

	return job_suspend(&msg, 0, -1, false, SLURM_PROTOCOL_VERSION);
#endif
}

/* Requeues a job as root (no RPC to answer). 25.11 replaced job_requeue()
 * by job_requeue_internal() on the record (same lookup, same work). */
static inline int hs_job_requeue(uint32_t job_id, bool preempt, uint32_t flags)
{
#if HS_SLURM_GE(25, 11)
	job_record_t *job_ptr = find_job_record(job_id);

	return job_ptr ? job_requeue_internal(0, job_ptr, preempt, flags) : ESLURM_INVALID_JOB_ID;
#else
	return job_requeue(0, job_id, NULL, preempt, flags);
#endif
}

/* Signals a job as root. job_signal_id() became static in 25.05; its
 * lookup is find_job_record() and then job_signal(). */
static inline int hs_job_signal_id(uint32_t job_id, uint16_t sig, uint16_t flags, bool preempt)
{
#if HS_SLURM_GE(25, 5)
	job_record_t *job_ptr = find_job_record(job_id);

	return job_ptr ? job_signal(job_ptr, sig, flags, 0, preempt) : ESLURM_INVALID_JOB_ID;
#else
	return job_signal_id(job_id, sig, flags, 0, preempt);
#endif
}

/* s_p_parse_file() of a plain file: no hash, new keys are errors, no
 * permission check. Its bools became a flags word in 23.11. */
static inline int hs_s_p_parse_file(s_p_hashtbl_t *tbl, const char *path)
{
#if HS_SLURM_GE(23, 11)
	return s_p_parse_file(tbl, NULL, (char *)path, 0, NULL);
#elif HS_SLURM_GE(23, 2)
	return s_p_parse_file(tbl, NULL, (char *)path, false, NULL, false);
#else
	return s_p_parse_file(tbl, NULL, (char *)path, false, NULL);
#endif
}

/* The nodes a job may use now under reservations (job_test_resv() with
 * move_time false). The cores it may not use came back as a bitmap until
 * 23.11, as a resv_exc_t since; hetsched only needs the nodes. */
static inline int hs_job_test_resv_nodes(job_record_t *job_ptr, time_t *when,
					 bitstr_t **avail, bool *overlap)
{
#if HS_SLURM_GE(23, 11)
	resv_exc_t exc = { 0 };
	int rc = job_test_resv(job_ptr, when, false, avail, &exc, overlap, false);
	reservation_delete_resv_exc_parts(&exc);
#else
	bitstr_t *exc_core = NULL;
	int rc = job_test_resv(job_ptr, when, false, avail, &exc_core, overlap, false);
	FREE_NULL_BITMAP(exc_core);
#endif
	return rc;
}

/*
 * Has the pending job's QOS stopped being one its association may use
 * (sacctmgr modify user ... set qos-=X after submission)? Slurm has no
 * function for this test: sched/backfill (_attempt_backfill) and the main
 * loop (schedule(), job_scheduler.c) each write it out inline before
 * starting a job, in these words and under these assoc_mgr locks, and
 * then call job_fail_qos(). This is that test, one copy per series: it
 * reads the job's qos_id up to 24.05 and its qos_ptr from 24.11 (the
 * series that let a job name several QOS; backfill then tries each in
 * turn, this tests the one the job holds now). A QOS an administrator set
 * on the job (limit_set.qos) is exempt, as there. Takes assoc_mgr's assoc
 * and qos read locks: call it under slurmctld's locks but no assoc_mgr
 * lock, and call job_fail_qos() only after it returned (that function
 * takes assoc_mgr's write locks).
 */
static inline bool hs_job_qos_invalid(job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK };
	bool bad;
#if HS_SLURM_GE(24, 11)
	if (!job_ptr->qos_ptr)
		return false;
	assoc_mgr_lock(&locks);
	uint32_t qos_id = job_ptr->qos_ptr->id;
#else
	uint32_t qos_id = job_ptr->qos_id;
	if (!qos_id)
		return false;
	assoc_mgr_lock(&locks);
#endif
	bad = job_ptr->assoc_ptr && (accounting_enforce & ACCOUNTING_ENFORCE_QOS) &&
	      ((qos_id >= g_qos_count) || !job_ptr->assoc_ptr->usage ||
	       !job_ptr->assoc_ptr->usage->valid_qos ||
	       !bit_test(job_ptr->assoc_ptr->usage->valid_qos, qos_id)) &&
	      !job_ptr->limit_set.qos;
	assoc_mgr_unlock(&locks);
	return bad;
}

/* A job state reason as text: job_reason_string() until 23.11,
 * job_state_reason_string() in src/common/job_state_reason.h since 24.05. */
#if HS_SLURM_GE(24, 5)
#include "src/common/job_state_reason.h"
#define hs_job_reason_string(r) job_state_reason_string(r)
#else
#define hs_job_reason_string(r) job_reason_string(r)
#endif

#endif /* HS_SLURM_H */
