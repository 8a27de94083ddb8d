/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_recover.c — starts and requeues a slurmctld crash lost
 * (doc/robustness.md, findings 1 and 1b).
 *
 * slurmctld saves its job state at most every few seconds; hetsched's
 * state file is written after every round and every tick that acted, so
 * after a crash it can be newer than Slurm's. At the first round after a
 * state restore the engine compares the two:
 *
 *  - lost start: hetsched started incarnation rc of a job (hs_jacct_t
 *    started_rc) and Slurm has that same incarnation pending. The job
 *    still runs on the node it was started on until that node registers
 *    and Slurm aborts it there; starting it again meanwhile (often on the
 *    same node: the policy still wants it there) makes slurmd refuse a
 *    second copy, and slurmctld drains the node and holds the job. So it
 *    is held out of the rounds for settle_s seconds (hs_engine_set_settle).
 *  - lost requeue: Slurm has an older incarnation running than the one
 *    hetsched started, or (engine_ops.c, a restored op) the incarnation
 *    hetsched requeued still running. Its processes were told to stop, so
 *    left alone it ends FAILED; it is requeued again instead, once.
 *
 * Until settle_until the plan does not checkpoint or requeue running jobs
 * either (the preemption stage, engine_preempt.c): Slurm may still report as
 * running a job that ended during the crash window, and a checkpoint
 * signal and requeue would run it again. The round's starts onto their
 * GPUs then fail as busy and wait (deferred starts), as they do while
 * any preemption is under way.
 */
#include "sched/engine_impl.h"

#include <stdio.h>

/* A lost requeue found here (no op survived): a restored requeue op, so
 * the next tick requeues it (hs_engine_op_step). */
static void lost_requeue(hs_engine_t *e, const hs_sjob_t *sj, const hs_jacct_t *ac, int64_t now)
{
	hs_op_t *op = hs_op_add(e, sj->id, HS_OP_REQUEUED);
	if (!op) {
		hs_engine_logf(e, HS_LOG_ERROR, "job %u: out of memory: its lost requeue is not "
			       "repeated", sj->id);
		return;
	}
	op->t0 = now;
	op->restart_cnt = sj->restart_cnt;
	op->restored = 1;
	hs_engine_logf(e, HS_LOG_INFO,
		       "job %u: slurmctld restarted with restart %u of it running, but hetsched "
		       "had requeued it and started restart %u: the requeue was lost, it is "
		       "requeued again", sj->id, sj->restart_cnt, ac->started_rc);
}

void hs_recover_lost(hs_engine_t *e, const hs_snap_t *s)
{
	e->recover = 0;
	e->settle_until = s->now + e->settle_s;
	for (int i = 0; i < s->njobs; i++) {
		const hs_sjob_t *sj = &s->jobs[i];
		hs_jacct_t *ac = hs_acct_find(e, sj->id);
		if (!ac || !ac->started_t)
			continue;
		const hs_op_t *op = hs_op_find(e, sj->id);
		if (sj->state == HS_SJ_PENDING && sj->restart_cnt == ac->started_rc) {
			/* A requeue raises restart_cnt: the same incarnation
			 * pending again is the start Slurm forgot. */
			ac->hold_until = s->now + e->settle_s;
			hs_engine_logf(e, HS_LOG_INFO,
				       "job %u: slurmctld restarted without hetsched's start of it "
				       "(at %lld): not started again for %d s, until its old "
				       "incarnation is gone from its node",
				       sj->id, (long long)ac->started_t, e->settle_s);
		} else if ((sj->state == HS_SJ_RUNNING || sj->state == HS_SJ_SUSPENDED) &&
			   sj->restart_cnt < ac->started_rc && !op) {
			lost_requeue(e, sj, ac, s->now);
		}
	}
}

int hs_recover_held(hs_engine_t *e, uint32_t id, int64_t now)
{
	hs_jacct_t *ac = hs_acct_find(e, id);
	if (!ac || !ac->hold_until)
		return 0;
	if (now < ac->hold_until)
		return 1;
	ac->hold_until = 0;
	return 0;
}
