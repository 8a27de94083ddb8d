/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spank_hetsched.c — the hetsched SPANK plugin (plugstack.conf:
 * `optional /path/spank_hetsched.so [key=value ...]`), see
 * spank_hetsched(8) and doc/protocol.md:
 *  - sbatch/salloc/srun: registers --hs-model, --hs-steps, --hs-ckpt-dir,
 *    --hs-ckpt and --hs-no-preempt, validates them and puts HS_* keys into
 *    the job's spank_job_env, which slurmctld (the sched plugin) reads;
 *  - slurmstepd: tells the tasks their GPU type, checkpoint directory and
 *    signal and where to report (HS_* environment); on the step's node 0
 *    the job's report listener thread (src/report/listener.h) serves it,
 *    whose estimates reach slurmctld in the job's AdminComment. One
 *    listener per job per node, the first step's; the steps of the job on
 *    a node meet in a directory of root's (src/report/jobdir.h), where the
 *    first one also leaves what it loaded from slurmctld for the others;
 *  - job epilog (slurmd): removes that directory;
 *  - every context: logs that it is loaded.
 * A plugin instance serves one process (one sbatch, one step), so its
 * state is file-static, as SPANK plugins' state must be.
 */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/hints.h"
#include "report/jobdir.h"
#include "report/listener.h"
#include "report/proc.h"
#include "spank_job.h"

SPANK_PLUGIN(hetsched, 1);

static hs_spank_conf_t conf;

/* Submit options (values validated by the callbacks). */
static char opt_model[HS_HINT_MODEL_MAX + 1];
static char opt_steps[24];
static char opt_ckpt_dir[HS_HINT_PATH_MAX + 1];
static int opt_ckpt, opt_no_preempt;

/* Seconds a starting step waits for the first step of the job on this
 * node to load the job (one slurm_load_job, bounded by MessageTimeout),
 * and for that step's listener socket. */
#define JOIN_WAIT_S 15.0
#define SOCKET_WAIT_S 5.0

/* The step (remote context). */
static hs_spank_job_t job;
static hs_listener_t *listener;
static hs_jobdir_t jobdir = { .dfd = -1, .alive_fd = -1, .owner_fd = -1 };
static uint32_t tasks_left;    /* local tasks not yet exited (remote context) */
static uint32_t step_id;
static char step_name[16];     /* "batch", "extern", "interactive" or the id */

static const char *context_name(spank_context_t ctx)
{
	switch (ctx) {
	case S_CTX_LOCAL: return "local (srun)";
	case S_CTX_REMOTE: return "remote (slurmstepd)";
	case S_CTX_ALLOCATOR: return "allocator (sbatch/salloc)";
	case S_CTX_SLURMD: return "slurmd";
	case S_CTX_JOB_SCRIPT: return "job script (prolog/epilog)";
	default: return "unknown";
	}
}

/* In user commands errors reach the user's terminal: say them there. */
static int user_context(void)
{
	spank_context_t c = spank_context();

	return c == S_CTX_LOCAL || c == S_CTX_ALLOCATOR;
}

/* ---- options ------------------------------------------------------------ */

static int cb_model(int val, const char *arg, int remote)
{
	(void)val;
	if (!hs_hint_model_ok(arg)) {
		slurm_error("--hs-model: give the model name of the throughput table, 1..%d "
			    "printable characters without quotes or backslashes", HS_HINT_MODEL_MAX);
		return remote ? 0 : -1;   /* never fail a step over a hint */
	}
	snprintf(opt_model, sizeof(opt_model), "%s", arg);
	return 0;
}

static int cb_steps(int val, const char *arg, int remote)
{
	uint64_t v;

	(void)val;
	if (hs_hint_steps_parse(arg, &v) < 0) {
		slurm_error("--hs-steps: give the total mini-batches, an integer in 1..10^15");
		return remote ? 0 : -1;
	}
	snprintf(opt_steps, sizeof(opt_steps), "%llu", (unsigned long long)v);
	return 0;
}

static int cb_ckpt_dir(int val, const char *arg, int remote)
{
	(void)val;
	if (!hs_hint_dir_ok(arg)) {
		slurm_error("--hs-ckpt-dir: give an absolute path of at most %d printable "
			    "characters (%%j = job id, %%u = user)", HS_HINT_PATH_MAX);
		return remote ? 0 : -1;
	}
	snprintf(opt_ckpt_dir, sizeof(opt_ckpt_dir), "%s", arg);
	opt_ckpt = 1;
	return 0;
}

static int cb_ckpt(int val, const char *arg, int remote)
{
	(void)val;
	(void)arg;
	(void)remote;
	opt_ckpt = 1;
	return 0;
}

static int cb_no_preempt(int val, const char *arg, int remote)
{
	(void)val;
	(void)arg;
	(void)remote;
	opt_no_preempt = 1;
	return 0;
}

static struct spank_option options[] = {
	{ "hs-model", "NAME", "hetsched: model of the job in the throughput table, "
	  "e.g. 'ResNet-50 (batch size 64)'", 1, 0, cb_model },
	{ "hs-steps", "N", "hetsched: total mini-batches the job runs", 1, 0, cb_steps },
	{ "hs-ckpt-dir", "DIR", "hetsched: the job checkpoints on request into DIR "
	  "(%j = job id, %u = user)", 1, 0, cb_ckpt_dir },
	{ "hs-ckpt", NULL, "hetsched: the job checkpoints on request (default directory)",
	  0, 0, cb_ckpt },
	{ "hs-no-preempt", NULL, "hetsched: never preempt, suspend or migrate this job",
	  0, 0, cb_no_preempt },
};

/* ---- allocator/local: submit hints -------------------------------------- */

static void job_env(spank_t sp, const char *k, const char *v)
{
	spank_err_t rc = spank_job_control_setenv(sp, k, v, 1);

	/* srun inside an allocation has no job to annotate: not an error */
	if (rc != ESPANK_SUCCESS && spank_context() == S_CTX_ALLOCATOR)
		slurm_error("spank/hetsched: cannot set %s for the scheduler: %s", k, spank_strerror(rc));
}

static void submit_hints(spank_t sp)
{
	char sig[8];

	snprintf(sig, sizeof(sig), "%d", conf.ckpt_signal);
	job_env(sp, "HS_PROTO", "1");
	job_env(sp, "HS_CKPT_SIGNAL", sig);
	if (opt_model[0])
		job_env(sp, "HS_MODEL", opt_model);
	if (opt_steps[0])
		job_env(sp, "HS_STEPS", opt_steps);
	if (opt_ckpt)
		job_env(sp, "HS_CKPT", "1");
	if (opt_ckpt_dir[0])
		job_env(sp, "HS_CKPT_DIR", opt_ckpt_dir);
	if (opt_no_preempt)
		job_env(sp, "HS_NO_PREEMPT", "1");
}

/* ---- remote: the step ---------------------------------------------------- */

static void task_env(spank_t sp, const char *k, const char *v)
{
	spank_err_t rc = v ? spank_setenv(sp, k, v, 1) : spank_unsetenv(sp, k);

	if (rc != ESPANK_SUCCESS)
		slurm_error("spank/hetsched: cannot set %s for the tasks: %s", k, spank_strerror(rc));
}

static void task_env_num(spank_t sp, const char *k, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	task_env(sp, k, buf);
}

/* The checkpoint directory: --hs-ckpt-dir expanded, else the default. */
static int ckpt_dir(spank_t sp, uid_t uid, char *out, size_t size)
{
	struct passwd pw, *res = NULL;
	char pwbuf[4096], home[HS_HINT_PATH_MAX + 1] = "", pattern[HS_HINT_PATH_MAX + 64];
	const char *user;

	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) || !res)
		res = NULL;
	user = res ? res->pw_name : "";
	if (opt_ckpt_dir[0])
		snprintf(pattern, sizeof(pattern), "%s", opt_ckpt_dir);
	else if (conf.ckpt_base[0])
		snprintf(pattern, sizeof(pattern), "%s/%%u/%%j", conf.ckpt_base);
	else if (spank_getenv(sp, "HOME", home, sizeof(home)) == ESPANK_SUCCESS && hs_hint_dir_ok(home))
		snprintf(pattern, sizeof(pattern), "%s/.hetsched/ckpt/%%j", home);
	else if (res && hs_hint_dir_ok(res->pw_dir))
		snprintf(pattern, sizeof(pattern), "%s/.hetsched/ckpt/%%j", res->pw_dir);
	else
		return -1;
	return hs_hint_dir_expand(pattern, job.job_id, user, out, size) == 0 && hs_hint_dir_ok(out) ? 0 : -1;
}

static void listener_log(void *arg, int err, const char *msg)
{
	(void)arg;
	if (err)
		slurm_error("spank/hetsched: job %u step %s: %s", job.job_id, step_name, msg);
	else
		slurm_info("spank/hetsched: job %u step %s: %s", job.job_id, step_name, msg);
}

/* The listener's sender check: a process of another step of the job that
 * reports through this listener descends from that step's slurmstepd,
 * registered in the job's directory (arg is the publish callback's). */
static int other_stepd(void *arg, pid_t pid, unsigned long long start)
{
	(void)arg;
	return hs_jobdir_is_stepd(&jobdir, pid, start);
}

/* Starts the job's listener on fd, the socket bound at path. */
static void start_listener(spank_t sp, uid_t uid, int fd, const char *path)
{
	hs_listener_cfg_t cfg;
	hs_err_t err;

	hs_listener_defaults(&cfg);
	cfg.fd = fd;
	cfg.uid = uid;
	cfg.ancestor = getpid();       /* slurmstepd: the tasks descend from it */
	cfg.ancestor_ok = other_stepd; /* ... or from another step's */
	cfg.max_rate = conf.max_rate;
	cfg.publish_interval = conf.publish_interval;
	cfg.est.window_s = conf.window;
	cfg.est.max_sps = conf.max_sps;
	cfg.seed_sps = job.seed_sps;
	cfg.seed_n = job.seed_n;
	cfg.publish = hs_spank_job_publish;
	cfg.log = listener_log;
	cfg.arg = &job;
	listener = hs_listener_start(&cfg, NULL, 0, &err);
	if (!listener) {
		slurm_error("spank/hetsched: job %u step %s: no report listener: %s",
			    job.job_id, step_name, err.msg);
		return;
	}
	task_env(sp, "HS_REPORT_SOCKET", path);
	task_env_num(sp, "HS_REPORT_MIN_INTERVAL_US", conf.min_interval_us);
	if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks_left) != ESPANK_SUCCESS)
		tasks_left = 0;   /* unknown: the listener stops in slurm_spank_exit */
}

/* What the step needs to know of its job (GPU type here, restart count):
 * from the job's directory when another step of the job on this node
 * already loaded it, else one SHOW_DETAIL load, left there for the next
 * steps. A job that starts many steps on a node (srun --overlap) thus
 * costs slurmctld one detail load per node, not one per step and node.
 * Returns 0, or -1 when the job could not be loaded. */
static int job_facts(void)
{
	char text[256];
	hs_err_t err;
	int first = -1, rc;

	char tag[HS_JOBDIR_TAG_MAX + 1];

	/* slurmd sets both in its environment, which slurmstepd inherits
	 * (not the job's environment: the user cannot choose them) */
	hs_jobdir_tag(getenv("SLURMD_NODENAME"), getenv("SLURM_CONF"), tag, sizeof(tag));
	if (hs_jobdir_open(&jobdir, conf.socket_dir, job.job_id, tag, &err) < 0)
		slurm_error("spank/hetsched: job %u step %s: %s; reporting is off",
			    job.job_id, step_name, err.msg);
	else if ((first = hs_jobdir_join(&jobdir, JOIN_WAIT_S, &err)) < 0)
		slurm_error("spank/hetsched: job %u step %s: %s", job.job_id, step_name, err.msg);
	if (first == 0 && hs_jobdir_cache_read(&jobdir, text, sizeof(text)) &&
	    hs_spank_job_cache_parse(&job, text) == 0) {
		slurm_debug("spank/hetsched: job %u step %s: job facts from the step cache",
			    job.job_id, step_name);
		rc = 0;
	} else {
		rc = hs_spank_job_load(&job);
		if (rc == 0 && jobdir.dfd >= 0 &&
		    (hs_spank_job_cache_format(&job, text, sizeof(text)) < 0 ||
		     hs_jobdir_cache_write(&jobdir, text, &err) < 0))
			slurm_error("spank/hetsched: job %u: cannot cache the job's facts: %s",
				    job.job_id, err.msg);
	}
	if (first == 1)
		hs_jobdir_joined(&jobdir);
	return rc;
}

/* Node 0 of a step with a GPU: the tasks report to the job's listener on
 * this node, started by this step if none runs yet (one per job per node:
 * a job starting many steps gets one listener thread, one socket and one
 * stream of RPCs per node, not one per step). Otherwise this step's
 * slurmstepd is registered so that the running listener accepts its
 * processes. The socket is the user's alone (jobdir.h). */
static void report_setup(spank_t sp, uid_t uid, gid_t gid)
{
	char path[HS_JOBDIR_PATH_MAX];
	hs_proc_info_t self;
	hs_err_t err;
	int claim, fd;

	if (jobdir.dfd < 0)
		return;   /* said in job_facts() */
	claim = hs_jobdir_claim(&jobdir, &err);
	if (claim < 0) {
		slurm_error("spank/hetsched: job %u step %s: %s; reporting is off",
			    job.job_id, step_name, err.msg);
		return;
	}
	if (claim == 0) {
		if (hs_proc_info("/proc", getpid(), &self) < 0 ||
		    hs_jobdir_register(&jobdir, getpid(), self.start, &err) < 0) {
			slurm_error("spank/hetsched: job %u step %s: cannot join the job's "
				    "listener: %s", job.job_id, step_name, err.msg);
			return;
		}
		if (hs_jobdir_wait_socket(&jobdir, SOCKET_WAIT_S, path, sizeof(path)) < 0) {
			slurm_error("spank/hetsched: job %u step %s: the job's listener on %s "
				    "has no socket; reporting is off", job.job_id, step_name, job.node);
			return;
		}
		slurm_info("spank/hetsched: job %u step %s: reports go to the job's listener "
			   "on this node", job.job_id, step_name);
		task_env(sp, "HS_REPORT_SOCKET", path);
		task_env_num(sp, "HS_REPORT_MIN_INTERVAL_US", conf.min_interval_us);
		return;
	}
	if (!job.seeded)
		(void)hs_spank_job_seed(&job);   /* the facts came from the cache */
	if (hs_jobdir_bind(&jobdir, uid, gid, &fd, path, sizeof(path), &err) < 0) {
		slurm_error("spank/hetsched: job %u step %s: no report socket: %s",
			    job.job_id, step_name, err.msg);
		return;
	}
	start_listener(sp, uid, fd, path);
}

static void step_setup(spank_t sp)
{
	static const char *const ours[] = {
		"HS_REPORT_SOCKET", "HS_REPORT_MIN_INTERVAL_US", "HS_GPU_TYPE", "HS_GPU_SHARED",
		"HS_CKPT_DIR", "HS_CKPT_SIGNAL", "HS_CKPT_HOLD", "HS_RESTART_COUNT",
		"HS_MODEL", "HS_STEPS", "HS_NO_PREEMPT",
	};
	char dir[HS_HINT_PATH_MAX + 1];
	const char *node = getenv("SLURMD_NODENAME");  /* slurmstepd sets it */
	uint32_t nodeid = 0, rc = 0;
	uid_t uid;
	gid_t gid;

	/* Nothing inherited from a submitting job may leak into this one. */
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		task_env(sp, ours[i], NULL);
	if (spank_get_item(sp, S_JOB_ID, &job.job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
		slurm_error("spank/hetsched: cannot identify the job step; reporting is off");
		return;
	}
	if (step_id == SLURM_BATCH_SCRIPT)
		snprintf(step_name, sizeof(step_name), "batch");
	else if (step_id == SLURM_EXTERN_CONT)
		snprintf(step_name, sizeof(step_name), "extern");
	else if (step_id == SLURM_INTERACTIVE_STEP)
		snprintf(step_name, sizeof(step_name), "interactive");
	else
		snprintf(step_name, sizeof(step_name), "%u", step_id);
	(void)spank_get_item(sp, S_JOB_NODEID, &nodeid);
	if (spank_get_item(sp, S_SLURM_RESTART_COUNT, &rc) != ESPANK_SUCCESS)
		rc = 0;
	job.restart_count = rc;
	job.start_t = (int64_t)time(NULL);
	snprintf(job.node, sizeof(job.node), "%s", node ? node : "");
	snprintf(job.model, sizeof(job.model), "%s", opt_model);

	task_env_num(sp, "HS_CKPT_SIGNAL", (unsigned long long)conf.ckpt_signal);
	task_env_num(sp, "HS_CKPT_HOLD", conf.ckpt_hold);
	if (opt_model[0])
		task_env(sp, "HS_MODEL", opt_model);
	if (opt_steps[0])
		task_env(sp, "HS_STEPS", opt_steps);
	if (opt_no_preempt)
		task_env(sp, "HS_NO_PREEMPT", "1");
	if (opt_ckpt) {
		if (ckpt_dir(sp, uid, dir, sizeof(dir)) == 0)
			task_env(sp, "HS_CKPT_DIR", dir);
		else
			slurm_error("spank/hetsched: job %u: no usable checkpoint directory "
				    "(set --hs-ckpt-dir or ckpt_base)", job.job_id);
	}
	if (job_facts() < 0) {
		task_env_num(sp, "HS_RESTART_COUNT", job.restart_count);
		return;
	}
	task_env_num(sp, "HS_RESTART_COUNT", job.restart_count);
	if (!job.gpu[0]) {
		slurm_debug("spank/hetsched: job %u step %s: no typed GPU on %s; reporting is off",
			    job.job_id, step_name, job.node);
		return;
	}
	task_env(sp, "HS_GPU_TYPE", job.gpu);
	task_env(sp, "HS_GPU_SHARED", job.shared ? "1" : "0");
	/* Data-parallel ranks advance together: node 0 speaks. The extern
	 * step runs no training. */
	if (nodeid == 0 && step_id != SLURM_EXTERN_CONT)
		report_setup(sp, uid, gid);
}

/* ---- callbacks ---------------------------------------------------------- */

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	char err[256];
	int bad;

	/* Daemons log at info level (their log file); in user commands the
	 * line shows only with -v, so it never clutters job submission. */
	if (user_context())
		slurm_verbose("spank/hetsched: loaded in %s context", context_name(ctx));
	else
		slurm_info("spank/hetsched: loaded in %s context", context_name(ctx));
	hs_spank_conf_defaults(&conf);
	bad = hs_spank_conf_parse(&conf, ac, av, err, sizeof(err));
	if (bad) {
		if (user_context())
			slurm_verbose("spank/hetsched: %s (%d bad, defaults used)", err, bad);
		else
			slurm_error("spank/hetsched: %s (%d bad, defaults used)", err, bad);
	}
	if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR || ctx == S_CTX_REMOTE) {
		for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
			if (spank_option_register(sp, &options[i]) != ESPANK_SUCCESS)
				slurm_error("spank/hetsched: cannot register --%s", options[i].name);
	}
	return ESPANK_SUCCESS;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	switch (spank_context()) {
	case S_CTX_ALLOCATOR:
	case S_CTX_LOCAL:
		submit_hints(sp);
		break;
	case S_CTX_REMOTE:
		step_setup(sp);
		break;
	default:
		break;
	}
	return ESPANK_SUCCESS;   /* never fail a job over hetsched */
}

/* Stops the listener: its final publish, then the summary line. */
static void stop_listener(void)
{
	hs_listener_counters_t c;
	hs_listener_state_t st;

	if (!listener)
		return;
	hs_listener_stop(listener, &c, &st);   /* joins after the final publish */
	listener = NULL;
	slurm_info("spank/hetsched: job %u step %s on %s: %lu report(s) accepted, %lu dropped "
		   "(%lu malformed, %lu oversized, %lu foreign), %lu checkpoint ack(s); "
		   "%.6g steps/s on %s from %lu sample(s), step %llu; excluded intervals: "
		   "%lu stopped, %lu gaps, %lu too fast",
		   job.job_id, step_name, job.gpu, c.accepted,
		   c.malformed + c.truncated + c.foreign + c.no_creds, c.malformed, c.truncated,
		   c.foreign, c.ckpts, st.n ? st.ema : 0.0, job.key, st.n,
		   (unsigned long long)st.step, c.excluded_stop, c.excluded_gap, c.excluded_fast);
}

/* The last local task has exited: publish the final record now. slurmstepd
 * tells srun that the tasks exited (and so lets the batch script go on and
 * the job complete) BEFORE it calls slurm_spank_exit; publishing there, the
 * final step and acknowledgement reached AdminComment only after the job
 * had completed, when the scheduler and sacct readers may already have
 * read the record. Here (before the exit messages) the record is final
 * when the step is seen to end. */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	if (!listener || spank_context() != S_CTX_REMOTE || tasks_left == 0)
		return ESPANK_SUCCESS;
	if (--tasks_left == 0)
		stop_listener();
	return ESPANK_SUCCESS;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	stop_listener();   /* unless the last task's exit did */
	/* our registration or our socket and listener claim, our share of
	 * the job's directory */
	hs_jobdir_close(&jobdir);
	return ESPANK_SUCCESS;
}

/* The job's end on this node (slurmd runs it as root after every step of
 * the job here has ended): the job's directory goes. */
int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	char tag[HS_JOBDIR_TAG_MAX + 1], msg[256];
	uint32_t id;
	hs_err_t err;

	if (spank_context() != S_CTX_JOB_SCRIPT ||
	    spank_get_item(sp, S_JOB_ID, &id) != ESPANK_SUCCESS)
		return ESPANK_SUCCESS;
	/* slurm_spank_init is not called in this context: the arguments
	 * (socket_dir=) are read here */
	hs_spank_conf_defaults(&conf);
	(void)hs_spank_conf_parse(&conf, ac, av, msg, sizeof(msg));
	/* the epilog's environment, set by slurmd: the same two values */
	hs_jobdir_tag(getenv("SLURMD_NODENAME"), getenv("SLURM_CONF"), tag, sizeof(tag));
	if (hs_jobdir_remove(conf.socket_dir, id, tag, &err) < 0)
		slurm_error("spank/hetsched: job %u: %s", id, err.msg);
	return ESPANK_SUCCESS;
}
