/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agent.c — the scheduling thread of sched/hetsched (like backfill_agent):
 * wakes every second (or at once on fini), skips while scheduling is
 * disabled, re-reads hetsched.conf after `scontrol reconfigure`, stays
 * passive (with a clear error) while SchedulerParameters would let
 * Slurm's FIFO scheduler start jobs behind its back, and otherwise:
 *   - when a round is due (round length over, or the GPU job set changed
 *     and MinRoundInterval passed): snapshot under read locks, engine
 *     round with no lock, apply under write locks, save state + status;
 *   - between rounds: advance in-flight operations and start jobs without
 *     GPUs, under write locks, only when there is something to do.
 * No slurmctld lock is ever held while the policy is solved.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/state_save.h"

#include "sched/conf_lastgood.h"
#include "sched/metrics.h"
#include "sched/statefile.h"
#include "sched/status_private.h"

#include "hs_plugin.h"
#include "../../select/hetsched/hs_pack.h"

/* After slurmctld starts, nodes re-register and Slurm recovers jobs for a
 * few seconds: no job is started (and no round is run) before this many
 * seconds have passed (backfill waits bf_interval the same way). */
#define HS_STARTUP_DELAY_S 10

static pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t agent_cond = PTHREAD_COND_INITIALIZER;
static int stop_flag;
static int reconfig_flag = 1; /* read the configuration at start */
/* scontrol reconfigure was asked since init(): the configuration init()
 * checked may be older than the file (a reconfigure before the thread's
 * first tick was lost that way: the thread installed init's copy) */
static int reconfig_asked;

/* Agent-thread-only state. */
/* When we last looked at the job table. slurmctld's last_job_update has
 * one-second resolution: a change in the same second as our look is ruled
 * out only by a look after that second is over. */
typedef struct seen {
	time_t update;            /* last_job_update then */
	time_t at;                /* when we looked */
} seen_t;

static int maybe_changed(const seen_t *s)
{
	return last_job_update != s->update || s->update >= s->at;
}

static void mark_seen(seen_t *s)
{
	s->update = last_job_update;
	s->at = time(NULL);
}

typedef struct agent {
	hs_engine_t *engine;
	hs_sconf_t conf;          /* the configuration in force */
	char *conf_path;
	char state_path[4096];
	char status_path[4096];
	int params_ok;            /* SchedulerParameters allow us to run */
	seen_t gpu_seen;          /* job table at our last look at the GPU
	                           * job set */
	seen_t cpu_seen;          /* ... at the last start of CPU jobs */
	uint64_t fingerprint;     /* GPU job set at the last round */
	time_t last_snap_t;       /* when the last snapshot was taken (0: none
	                           * since slurmctld started) */
	time_t first_snap_t;      /* ... the first one since it started */
	int dirty;                /* state changed since the last save */
	int packing;              /* select plugin packs jobs; -1 = not asked */
	int startup_conf;         /* conf is init()'s, not installed yet */
	int private_jobs;         /* slurm.conf PrivateData includes jobs */
} agent_t;

void hs_plugin_log(void *arg, int level, const char *msg)
{
	(void)arg;
	if (level == HS_LOG_ERROR)
		error(HS_LOG_PREFIX "%s", msg);
	else
		info(HS_LOG_PREFIX "%s", msg);
}

/* Sleeps up to usec or until stopped; returns the stop flag. */
static int agent_sleep(long usec)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += usec / 1000000;
	ts.tv_nsec += (usec % 1000000) * 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&agent_lock);
	if (!stop_flag)
		pthread_cond_timedwait(&agent_cond, &agent_lock, &ts);
	int s = stop_flag;
	pthread_mutex_unlock(&agent_lock);
	return s;
}

void hs_agent_stop(void)
{
	pthread_mutex_lock(&agent_lock);
	stop_flag = 1;
	pthread_cond_broadcast(&agent_cond);
	pthread_mutex_unlock(&agent_lock);
}

void hs_agent_reconfig(void)
{
	pthread_mutex_lock(&agent_lock);
	reconfig_flag = 1;
	reconfig_asked = 1;
	pthread_mutex_unlock(&agent_lock);
}

static void save_state(agent_t *a)
{
	hs_err_t err;
	json_object *st = hs_engine_save_lazy(a->engine, &err);
	if (!st || hs_json_write_atomic(a->state_path, st, 0600, &err) < 0)
		error(HS_LOG_PREFIX "cannot save state to %s: %s", a->state_path, err.msg);
	else
		a->dirty = 0;
	json_object_put(st);
}

/* Restores the saved state; a file that cannot be trusted is set aside. */
static void load_state(agent_t *a)
{
	hs_err_t err;
	json_object *st = NULL;
	int r = hs_json_read(a->state_path, &st, &err);
	if (r == 0) {
		info(HS_LOG_PREFIX "no saved state in %s: starting fresh", a->state_path);
		return;
	}
	if (r == 1 && hs_engine_restore(a->engine, st, &err) == 0) {
		info(HS_LOG_PREFIX "state restored from %s", a->state_path);
		json_object_put(st);
		return;
	}
	json_object_put(st);
	char moved[4200], e2msg[HS_ERRLEN];
	snprintf(e2msg, sizeof(e2msg), "%s", err.msg);
	if (hs_file_set_aside(a->state_path, time(NULL), moved, sizeof(moved), &err) == 0)
		error(HS_LOG_PREFIX "saved state not trusted (%s): moved to %s, starting fresh",
		      e2msg, moved);
	else
		error(HS_LOG_PREFIX "saved state not trusted (%s) and not movable (%s): starting "
		      "fresh", e2msg, err.msg);
}

/* Seconds after a restart before Slurm's view of running jobs can be
 * trusted (hs_engine_set_settle): AuthInfo's cred_expire (read as
 * slurm_cred.c reads it: default 120, below 5 invalid) + 1, Slurm's own
 * requeue delay, plus KillWait: a job whose start the restart lost is
 * aborted on its node only when the node registers, and its processes
 * may take KillWait to end. Conf read lock held. */
static int settle_seconds(void)
{
	int cred_expire = 120;
	const char *tok = slurm_conf.authinfo ? strstr(slurm_conf.authinfo, "cred_expire=") : NULL;
	if (tok) {
		/* as slurm_cred.c reads it, but bounded: a huge value must
		 * not overflow the sum below (one day is far beyond any
		 * sensible credential lifetime) */
		long v = strtol(tok + strlen("cred_expire="), NULL, 10);
		if (v >= 5)
			cred_expire = v > 86400 ? 86400 : (int)v;
	}
	return cred_expire + 1 + (int)slurm_conf.kill_wait;
}

/* (Re)reads hetsched.conf and slurm.conf's SchedulerParameters. */
static void reload(agent_t *a)
{
	slurmctld_lock_t conf_read = { .conf = READ_LOCK };
	char why[600];
	char *params = NULL, *ssl = NULL;

	lock_slurmctld(conf_read);
	params = xstrdup(slurm_conf.sched_params);
	ssl = xstrdup(slurm_conf.state_save_location);
	/* Slurm's own answer: users see only their jobs, so the world-
	 * readable status document must not list them (status_private.h) */
	a->private_jobs = (slurm_conf.private_data & PRIVATE_DATA_JOBS) != 0;
	int settle = settle_seconds();
	unlock_slurmctld(conf_read);

	int ok = hs_sched_params_ok(params, why, sizeof(why));
	if (!ok)
		error(HS_LOG_PREFIX "%s. hetsched stays passive until this is fixed "
		      "(scontrol reconfigure after the change)", why);
	else if (!a->params_ok)
		info(HS_LOG_PREFIX "SchedulerParameters=%s: hetsched starts all jobs", params);
	a->params_ok = ok;
	xfree(params);

	hs_sconf_t c;
	hs_err_t err;
	int reread = 0;
	if (a->startup_conf) {
		/* the first time: the configuration init() checked (the file
		 * is re-read only on reconfigure) */
		a->startup_conf = 0;
		if (hs_sconf_copy(&c, &a->conf, &err) < 0) {
			error(HS_LOG_PREFIX "cannot start: %s", err.msg);
			xfree(ssl);
			return;
		}
	} else {
		int r = hs_conf_load(a->conf_path, &c, why, sizeof(why));
		if (r < 0 && !a->engine) {
			/* a reconfigure before the first round (slurmctld's
			 * startup calls sched_p_reconfig itself): init()'s
			 * checked configuration, maybe the last good copy
			 * (conf_lastgood.h), is the last good one */
			error(HS_LOG_PREFIX "bad configuration, %s; keeping the last good one "
			      "(the one slurmctld started with)", why);
			if (hs_sconf_copy(&c, &a->conf, &err) < 0) {
				error(HS_LOG_PREFIX "cannot start: %s", err.msg);
				xfree(ssl);
				return;
			}
		} else if (r < 0) {
			error(HS_LOG_PREFIX "bad configuration, %s; keeping the last good one", why);
			xfree(ssl);
			return;
		} else {
			if (r == 1)
				info(HS_LOG_PREFIX "%s not found: using the defaults",
				     a->conf_path);
			reread = 1;
		}
	}
	const char *status = c.status_file;
	if (hs_path_join(a->state_path, sizeof(a->state_path), ssl ? ssl : ".", HS_STATE_FILE) < 0 ||
	    (status ? snprintf(a->status_path, sizeof(a->status_path), "%s", status) < 0
		    : hs_path_join(a->status_path, sizeof(a->status_path), ssl ? ssl : ".",
				   HS_STATUS_FILE) < 0))
		error(HS_LOG_PREFIX "StateSaveLocation path too long");

	char desc[4096]; /* every key's value; a longer line is cut */
	hs_sconf_describe(&c, desc, sizeof(desc));
	if (!a->engine) {
		/* init() built an engine from this configuration already; a
		 * failure now (a table removed meanwhile) leaves hetsched
		 * passive with the reason logged, retried on reconfigure,
		 * never silently on defaults */
		a->engine = hs_engine_new(&c, hs_plugin_log, NULL, &err);
		if (!a->engine) {
			error(HS_LOG_PREFIX "cannot start with %s: %s; hetsched stays passive "
			      "(scontrol reconfigure after the fix)", desc, err.msg);
			hs_sconf_free(&c);
			xfree(ssl);
			return;
		}
		hs_engine_set_settle(a->engine, settle);
		load_state(a);
	} else if (hs_engine_reconfigure(a->engine, &c, &err) < 0) {
		error(HS_LOG_PREFIX "bad configuration (%s); keeping the last good one", err.msg);
		hs_sconf_free(&c);
		xfree(ssl);
		return;
	}
	hs_engine_set_settle(a->engine, settle);
	hs_heap_release();
	hs_sconf_free(&a->conf);
	a->conf = c;
	/* a re-read file that runs (22.05's reconfigure) is the new last good
	 * copy, as init() saves it (conf_lastgood.h) */
	if (reread && ssl && hs_conf_last_good_save(ssl, &a->conf, a->conf_path, &err) < 0)
		error(HS_LOG_PREFIX "cannot save the last good configuration: %s", err.msg);
	xfree(ssl);
	info(HS_LOG_PREFIX "configuration: %s", desc);
}

/* Did the GPU job set change since the last round? Cheap when nothing
 * happened at all (last_job_update unchanged). */
static int gpu_jobs_changed(agent_t *a)
{
	if (!maybe_changed(&a->gpu_seen))
		return 0;
	slurmctld_lock_t job_read = { .job = READ_LOCK, .part = READ_LOCK };
	lock_slurmctld(job_read);
	mark_seen(&a->gpu_seen);
	uint64_t fp = hs_gpu_jobs_fingerprint(&a->conf);
	unlock_slurmctld(job_read);
	return fp != a->fingerprint;
}

/* MetricsFile=: the status document's aggregates as an OpenMetrics
 * exposition for node_exporter's textfile collector, written atomically
 * like the status (statefile.h; the temporary name does not end in .prom,
 * so the collector never reads a torn file). No per-job data (metrics.h):
 * world-readable also under PrivateData=jobs. */
static void write_metrics(agent_t *a, json_object *doc)
{
	const char *path = a->conf.metrics_file;
	if (!path || !doc)
		return;
	hs_err_t err;
	size_t len = 0;
	char *text = hs_metrics_text(doc, &len, &err);
	if (!text || hs_file_write_atomic(path, text, len, HS_STATUS_MODE_PUBLIC, &err) < 0)
		error(HS_LOG_PREFIX "cannot write metrics %s: %s", path, err.msg);
	free(text);
}

static void write_status(agent_t *a, const hs_snap_t *s, const hs_plan_t *p,
			 const hs_round_stats_t *st)
{
	hs_err_t err;
	/* PrivateData=jobs filters the document per user, so it needs the
	 * whole tree; otherwise one job's tree at a time (json_lazy.h) */
	json_object *doc = a->private_jobs
				   ? hs_engine_status(a->engine, s, p, st, time(NULL), &err)
				   : hs_engine_status_lazy(a->engine, s, p, st, time(NULL), &err);
	if (!doc || hs_status_write(a->status_path, doc, a->private_jobs, &err) < 0)
		error(HS_LOG_PREFIX "cannot write status %s: %s", a->status_path, err.msg);
	/* PrivateData=jobs: each user's own jobs in a file only they read
	 * (`hetsched job`); without root, users get the summary only */
	else if (a->private_jobs && hs_status_write_users(a->status_path, doc, &err) < 0)
		error(HS_LOG_PREFIX "cannot write per-user status: %s", err.msg);
	/* user names and their shares are per-user data: not in the
	 * world-readable metrics under PrivateData=jobs */
	if (a->private_jobs)
		json_object_object_del(doc, "entities");
	write_metrics(a, doc);
	json_object_put(doc);
}

static void do_round(agent_t *a)
{
	/* backfill's locks for the snapshot too: asking Slurm whether pending
	 * jobs may start updates their reasons and dependencies (runnable.c);
	 * both holds yield every MaxLockHold ms (lockhold.c) */
	hs_lock_hold_t hold;
	hs_round_stats_t st;
	hs_snap_t snap;
	hs_plan_t plan;
	hs_err_t err;
	memset(&st, 0, sizeof(st));
	double t0 = hs_now_ms();

	hs_hold_begin(&hold, a->conf.max_lock_hold_ms);
	/* The GPU job set this round starts from, the jobs listed before
	 * anything can yield the locks: a job that arrives later (during a
	 * yield, the solve or the apply) or leaves after the snapshot
	 * brings the next round early. Our own starts, requeues and array
	 * task splits do not change it (hs_gpu_jobs_fingerprint). A failed
	 * round keeps the previous one. */
	uint64_t prev_fp = a->fingerprint;
	seen_t prev_seen = a->gpu_seen;
	mark_seen(&a->gpu_seen);
	/* Jobs that ended since shortly before the last snapshot: their last
	 * reports feed the learned table (snapshot.h, ended). The slack
	 * covers a job still completing at that snapshot (its end time is
	 * its completion's start); one listed twice gives each report once.
	 * None that ended before the first snapshot since slurmctld started:
	 * the rounds before the restart read their reports (all but the last
	 * round's, lost as before), and the job memos that would stop them
	 * counting twice did not survive it. */
	time_t ended_since = 0;
	if (a->conf.learning && a->last_snap_t > 0) {
		ended_since = a->last_snap_t - HS_ENDED_SLACK_S;
		if (ended_since < a->first_snap_t)
			ended_since = a->first_snap_t;
	}
	a->last_snap_t = time(NULL);
	if (!a->first_snap_t)
		a->first_snap_t = a->last_snap_t;
	int rc = hs_snapshot_take(&a->conf, &snap, &hold, &a->fingerprint, ended_since);
	hs_hold_end(&hold);
	st.snapshot_lock_ms = hold.total_ms;
	st.lock_hold_max_ms = hold.longest_ms;
	st.lock_yields = hold.yields;
	double unit_max_ms = hold.unit_max_ms;
	const char *unit_max_what = hold.unit_max_what;
	if (rc < 0) {
		error(HS_LOG_PREFIX "out of memory taking the snapshot; round skipped");
		a->fingerprint = prev_fp;
		a->gpu_seen = prev_seen;
		return;
	}

	/* No lock held from here to the apply. */
	if (hs_engine_round(a->engine, &snap, &plan, &err) < 0) {
		error(HS_LOG_PREFIX "round failed, nothing applied: %s", err.msg);
		hs_snap_free(&snap);
		a->fingerprint = prev_fp;
		a->gpu_seen = prev_seen;
		return;
	}

	/* Write-ahead: the plan's suspends are marked ours in the engine
	 * (hs_ops_mark_suspends); saved now, before any is carried out, a
	 * crash after the suspend cannot leave the job suspended with no
	 * record that we did it. No lock is held. */
	if (plan.nsuspend > 0)
		save_state(a);

	if (a->conf.apply_delay_ms > 0) {
		/* testing only (hetsched.conf(5)): jobs may change under the
		 * plan meanwhile, as they may during any solve */
		info(HS_LOG_PREFIX "plan of round %ld ready, applying in %d ms (ApplyDelay)",
		     plan.round, a->conf.apply_delay_ms);
		usleep((useconds_t)a->conf.apply_delay_ms * 1000);
	}

	hs_hold_begin(&hold, a->conf.max_lock_hold_ms);
	hs_hold_what(&hold, "requeue sweep");
	(void)hs_requeue_sweep(&a->conf, a->engine);
	hs_apply_plan(a->engine, &snap, &plan, &st, &hold);
	hs_hold_what(&hold, "het jobs");
	(void)hs_refuse_het_jobs();
	hs_hold_what(&hold, "cpu fill");
	/* before the fill walks the jobs: what changes during its yields
	 * is seen by the next tick */
	mark_seen(&a->cpu_seen);
	st.cpu_started = hs_cpu_jobs_fill(&a->conf, &hold, 1);
	hs_hold_end(&hold);
	if (hold.unit_max_ms > unit_max_ms) {
		unit_max_ms = hold.unit_max_ms;
		unit_max_what = hold.unit_max_what;
	}
	st.apply_lock_ms = hold.total_ms;
	if (hold.longest_ms > st.lock_hold_max_ms)
		st.lock_hold_max_ms = hold.longest_ms;
	st.lock_yields += hold.yields;

	st.round_ms = hs_now_ms() - t0;
	if (st.started || st.requeued || st.suspended || st.resumed || st.checkpointing ||
	    st.cpu_started) {
		/* like Slurm's own scheduler after starting jobs: have
		 * slurmctld persist job and node state soon */
		schedule_node_save();
		schedule_job_save();
	}
	save_state(a);
	write_status(a, &snap, &plan, &st);
	info(HS_LOG_PREFIX "round %ld: %d active (%d pinned, %d leaving), %s%.1f ms solve, "
	     "locks %.2f ms snapshot + %.2f ms apply, longest hold %.2f ms, %d yields, longest unit %.2f ms (%s); started %d, kept %d, checkpointing %d, "
	     "requeued %d, suspended %d, resumed %d, deferred %d, start failures %d, "
	     "changed meanwhile %d, cpu jobs started %d; round %.1f ms",
	     plan.round, plan.nactive, plan.npinned, plan.nleaving,
	     plan.solved ? (plan.solve_failed ? "FAILED " : "") : "no ", plan.solve_ms,
	     st.snapshot_lock_ms, st.apply_lock_ms, st.lock_hold_max_ms, st.lock_yields,
	     unit_max_ms, unit_max_what, st.started, st.kept, st.checkpointing,
	     st.requeued, st.suspended, st.resumed, st.deferred, st.start_failed, st.vanished,
	     st.cpu_started, st.round_ms);
	hs_plan_free(&plan);
	hs_snap_free(&snap);
}

/* Between rounds: in-flight ops and jobs without GPUs, only when there
 * is something to do. */
static void do_tick(agent_t *a)
{
	int nops = hs_engine_nops(a->engine);
	int changed = maybe_changed(&a->cpu_seen);
	int cpu = a->conf.cpu_fill && changed;
	if (!nops && !changed)
		return;
	hs_lock_hold_t hold;
	hs_round_stats_t st;
	memset(&st, 0, sizeof(st));
	hs_hold_begin(&hold, a->conf.max_lock_hold_ms);
	(void)hs_requeue_sweep(&a->conf, a->engine);
	int acted = nops ? hs_ops_tick(a->engine, &st, 0) : 0;
	int started = 0;
	if (changed) {
		mark_seen(&a->cpu_seen); /* before the fill may yield */
		/* a new het job is refused within a tick, not a round */
		started = hs_refuse_het_jobs();
		/* GPU shapes the rounds do not model wait for the round's
		 * fill: between rounds they would jump the plan */
		if (cpu)
			started += hs_cpu_jobs_fill(&a->conf, &hold, 0);
	}
	hs_hold_end(&hold);
	if (st.started || st.requeued || started) {
		schedule_node_save();
		schedule_job_save();
	}
	if (acted)
		save_state(a);
}

/* During the startup delay: only the requeues in-flight ops ask for. */
static void startup_requeues(agent_t *a)
{
	slurmctld_lock_t write_locks = HS_LOCKS_WRITE;
	hs_round_stats_t st;
	memset(&st, 0, sizeof(st));
	lock_slurmctld(write_locks);
	(void)hs_requeue_sweep(&a->conf, a->engine);
	int acted = hs_ops_tick(a->engine, &st, 1);
	unlock_slurmctld(write_locks);
	if (st.requeued) {
		schedule_node_save();
		schedule_job_save();
	}
	if (acted)
		save_state(a);
}

void *hs_agent(void *arg)
{
	hs_sconf_t *startup = arg;
	agent_t a;
	memset(&a, 0, sizeof(a));
	(void)prctl(PR_SET_NAME, "hetsched", NULL, NULL, NULL);
	a.conf_path = get_extra_conf_path("hetsched.conf");
	a.conf = *startup; /* taken over; the first reload() installs it */
	a.startup_conf = 1;
	xfree(startup);
	a.gpu_seen.update = a.cpu_seen.update = (time_t)-1;
	a.packing = -1;
	time_t started = time(NULL);

	while (!agent_sleep(1000000)) {
		if (slurmctld_config.scheduling_disabled)
			continue;
		pthread_mutex_lock(&agent_lock);
		int rc = reconfig_flag;
		reconfig_flag = 0;
		if (reconfig_asked)
			a.startup_conf = 0; /* re-read the file, not init's copy */
		reconfig_asked = 0;
		pthread_mutex_unlock(&agent_lock);
		if (rc)
			reload(&a);
		if (!a.engine || !a.params_ok)
			continue;
		time_t now = time(NULL);
		if (now < started + HS_STARTUP_DELAY_S) {
			/* No starts yet, but a requeue the crash lost cannot
			 * wait: the job's processes were told to stop and end
			 * within seconds, and Slurm, which has the job running,
			 * would then fail it (doc/robustness.md, 1b). */
			if (hs_engine_nops(a.engine))
				startup_requeues(&a);
			continue;
		}
		if (a.packing < 0) {
			/* asked once the select plugin is up, not in init() */
			a.packing = hs_pack_available();
			info(HS_LOG_PREFIX "packing jobs onto shared GPUs: %s",
			     a.packing ? "available (select/hetsched_cons_tres)"
				       : "not available (pairs run one job alone)");
		}
		hs_engine_set_packing(a.engine, a.packing);
		int changed = hs_engine_round_change_matters(a.engine, now) &&
			      gpu_jobs_changed(&a);
		if (hs_engine_round_due(a.engine, now, changed))
			do_round(&a);
		else
			do_tick(&a);
	}
	if (a.engine) {
		save_state(&a);
		hs_engine_free(a.engine);
	}
	hs_sconf_free(&a.conf);
	xfree(a.conf_path);
	return NULL;
}
