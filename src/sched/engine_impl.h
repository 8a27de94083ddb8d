/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_impl.h — internals of the round engine shared by its files:
 * engine.c (lifecycle, round driver), the stages engine_problem.c with
 * engine_classify.c (snapshot -> problem), engine_plan.c with
 * engine_plan_share.c (decisions -> plan), engine_ops.c (in-flight
 * operations), engine_state.c (save/restore), engine_status.c (status
 * document), and the leaves they call: engine_log.c, engine_acct.c
 * (per-job accounting), engine_optable.c (the op table). doc/hacking.md
 * "The round as a pipeline" maps them. Not for other users.
 */
#ifndef HS_SCHED_ENGINE_IMPL_H
#define HS_SCHED_ENGINE_IMPL_H

#include "core/policy.h"
#include "sched/engine.h"
#include "sched/estimate.h"
#include "sched/hints.h"
#include "sched/idindex.h"
#include "sched/learn.h"

/* Longest wall time credited between two rounds (a slurmctld that was
 * down for a day must not credit a day to whatever runs now). */
#define HS_MAX_CREDIT_S 3600.0
/* A requeued job that Slurm has not made pending again after this long is
 * left out of the rounds (it would hold a restart target, and GPUs with
 * it, that it cannot use) and its op is dropped (engine_ops.c): the one
 * timeout of that state. */
#define HS_LEAVING_MAX_S 60
/* hs_engine_set_settle's default: Slurm's default cred_expire (120) + 1. */
#define HS_SETTLE_DEFAULT_S 121
/* How long a job's entry keeps the record of hetsched's start of it
 * while it is not active (pinned): far longer than Slurm's job state
 * save interval, after which a crash cannot lose the start any more. */
#define HS_STARTED_KEEP_S 600
/* Cap on GPU types tracked by the accounting (far above real clusters). */
#define HS_MAX_TYPES 64

/* Per-job accounting, keyed by Slurm job id. Per-type arrays are indexed
 * by the engine's type table (e->types), which only grows. */
typedef struct hs_jacct {
	uint32_t id;
	int64_t first_seen;        /* first round the job was active */
	double active_reset_s;     /* seconds active since the last reset */
	double active_total_s;
	/* Per GPU type of the accounting's type table, each [acct_tcap]:
	 * rows of one block (pt) the entry owns. A block sized by the types
	 * in use, not HS_MAX_TYPES: every queued job has an entry, and five
	 * fixed rows of 64 made it 2.9 KB (58 MB at 20,000 queued). */
	double *pt;                /* [5 * acct_tcap], the rows below */
	double *recv_reset;        /* seconds run on each type since reset */
	double *recv_total;
	double *x;                 /* share in the allocation in force */
	double *thr;               /* estimate used in the last round */
	double *meas;              /* measured (0 = not measured) */
	int src;                   /* hs_estimate_source_t */
	/* per type of the accounting's table, bit t: the last round's
	 * estimate there came from the table, the learned kind or the
	 * speedup matrix (else measured when meas > 0, or agnostic); and
	 * the least confidence of its learned or inferred types. Bits, not
	 * rows: every queued job has an entry. */
	uint64_t src_table, src_learned, src_inferred;
	uint64_t src_explore;      /* types whose estimate was raised to try
	                            * them (LearnExplore) */
	unsigned bounded;          /* HS_BOUND_* bits of the last round */
	double learn_conf;
	double weight;             /* policy weight in the last round */
	char account[64];          /* entity (Slurm account) in the last round */
	int entity;                /* its entity in e->ents, -1 = none */
	int suspended_by_us;       /* hetsched suspended it (may resume) */
	int64_t submit_time;       /* Slurm's, with restart_cnt: which job holds */
	unsigned restart_cnt;      /* the id (0 = not seen yet; see
	                            * hs_acct_forget_reused) */
	long seen_round;           /* last round it was active */
	/* The last start hetsched made (saved: a slurmctld crash within
	 * its job state save interval loses the start, but not this). A
	 * start of a pending incarnation leaves Slurm's restart_cnt as is;
	 * any requeue raises it (engine_recover.c). */
	int64_t started_t;         /* 0 = never started by hetsched */
	unsigned started_rc;       /* restart_cnt of the incarnation started */
	/* restart_cnt + 1 of the incarnation the engine last saw Slurm
	 * allow to requeue (pending or running; 0 = none, saved). A job is
	 * admitted on what it was: turning requeue off once it runs does not
	 * pin it (hs_requeue_kept, issue 28). */
	unsigned requeue_rc1;
	int64_t hold_until;        /* lost start: not startable before this
	                            * (0 = no hold; not saved) */
	char last_op[16];
	char reason[192];
	/* last round's estimates (engine_start.c; not saved: a restart
	 * recomputes them at its first round) */
	int have_rho;              /* rho below is known */
	double rho;                /* finish-time fairness: expected JCT under
	                            * the allocation / under an equal share */
	double remaining_s;        /* expected seconds of work left, running */
} hs_jacct_t;

typedef enum hs_op_kind {
	HS_OP_CKPT = 1,            /* signalled at t0, waiting for the ack */
	HS_OP_REQUEUED,            /* requeued at t0, waiting to be pending */
	HS_OP_START,               /* deferred start until the next round */
} hs_op_kind_t;

typedef struct hs_op {
	uint32_t id;
	hs_op_kind_t kind;
	int64_t t0;                /* signal / requeue time */
	int64_t deadline;          /* CKPT: grace end; START: expiry */
	unsigned restart_cnt;      /* incarnation we acted on */
	int64_t orig_begin;        /* begin time before our requeue */
	int begin_cleared;
	int requeue_tries;
	int start_tries;
	hs_target_t target;        /* restart target (may have no nodes) */
	char *type;                /* its GPU type */
	int restored;              /* read from the state file: the requeue it
	                            * records may be one a slurmctld crash lost
	                            * (engine_ops.c requeues such a job again,
	                            * once) */
	unsigned start_rc;         /* restart_cnt seen by the last HS_OPA_START */
} hs_op_t;

/* Per-job problems the engine works around every round and logs once
 * (engine_warn.c). */
enum {
	HS_WARN_UNMODELLED = 1 << 0, /* holds GPUs the snapshot does not model */
	HS_WARN_UNSOLVABLE = 1 << 1, /* the policy cannot solve with it */
};
typedef struct hs_warned {
	uint32_t id;
	unsigned kinds;
} hs_warned_t;

/* A parsed AdminComment record and the text it came from
 * (engine_reccache.c). */
typedef struct hs_rcache {
	uint32_t id;
	long seen;                 /* last round (e->rounds + 1) it was read */
	size_t len;
	char *text;
	int ok;                    /* 1 parsed, 0 invalid, -1 not yet */
	char why[96];              /* the parse error of an invalid one */
	hs_record_t rec;
} hs_rcache_t;

/* What the engine derives from a job's hints (engine_jobmemo.c). */
#define HS_PACK_SPANS 2            /* types a job's sharing is remembered on */

typedef struct hs_jmemo {
	uint32_t id;
	long seen;
	int parsed;
	uint32_t nenv;
	uint64_t env_hash;         /* of the HS_* entries parsed */
	hs_hints_t hints;
	int table_sf;              /* GPU count of the table lookup, 0 = none */
	int table_ti, table_jt;    /* its table and row (-1: no table) */
	int64_t learn_t;           /* newest report time of its record the
	                            * learned table has (engine_learn.c) */
	/* when it was seen sharing a GPU (engine_packmeas.c): type + 1
	 * (0 = none), from (the round before it was first seen) to the
	 * round it was first seen alone again (0 = still shared) */
	struct {
		int16_t type1;
		int64_t first, end;
	} pack[HS_PACK_SPANS];
} hs_jmemo_t;

struct hs_engine {
	hs_sconf_t conf;
	hs_tables_t tables;
	hs_policy_ctx_t *policy;
	hs_mech_opts_t mopts;
	hs_mech_t *mech;
	hs_log_fn log;
	void *log_arg;

	int64_t last_round_t;      /* wall time of the last round, 0 = none */
	int64_t learn_floor_t;     /* a new job memo's learn_t: the restored
	                            * state's last round (its table holds
	                            * every report up to it), 0 = none */
	int64_t last_regular_t;    /* wall time of the last regular round (a
	                            * RoundLength after the one before it, or
	                            * the first), 0 = none */
	int64_t last_reset_t;
	long rounds;               /* rounds run by this engine (incl. restored) */

	int ntypes;                /* type table for the accounting */
	char *types[HS_MAX_TYPES];

	int nacct, cap_acct;
	hs_jacct_t *acct;          /* sorted by id */
	uint32_t *acct_id;         /* [cap_acct] acct[i].id: hs_acct_find
	                            * searches these 4 bytes an entry, not
	                            * entries of a few hundred (it runs several
	                            * times per job per round) */
	hs_idhint_t *acct_hint;    /* guesses for acct_id, rc, memo: */
	hs_idhint_t *rc_hint;      /* one allocation, NULL when out of */
	hs_idhint_t *memo_hint;    /* memory (sched/idindex.h) */
	int acct_tcap;             /* types each entry's block holds (>=
	                            * ntypes; grows with it, 0 = none yet) */

	int nops, cap_ops;
	hs_op_t *ops;

	/* counters since the state was created (survive restarts) */
	long tot_started, tot_preempted, tot_migrated, tot_suspended, tot_resumed;
	long tot_requeued, tot_checkpoints, tot_ckpt_acked, tot_start_failed;
	long tot_solve_failed;     /* failed policy solves */

	int have_objective;        /* objective: the policy's objective value
	                            * in its last successful solve (status) */
	double objective;
	int eq_jobs;               /* jobs in eq_min / eq_mean: effective
	                            * throughput over the equal-share one,
	                            * last successful solve (status) */
	double eq_min, eq_mean;
	double explore_s, busy_s;  /* GPU-seconds run on a type whose estimate
	                            * was raised to try it (LearnExplore), and
	                            * by all problem jobs (not saved) */
	hs_learn_t learn;          /* throughputs learned per kind of job
	                            * (sched/learn.h; empty with Learning=no) */
	hs_entities_t ents;        /* the last round's entity forest, for the
	                            * status (engine_entstatus.c) */

	int packing;               /* the select plugin packs jobs */
	const char *save_failed;   /* first unsolvable problem goes there */
	int no_reasons;            /* no reason texts (nobody reads them) */
	int saved_failed;          /* ... written already */
	int force_solve;           /* re-solve at the next round (policy
	                            * changed by a reconfigure) */
	long warned_no_types;      /* round of the last "no GPU types" log */

	int nrc, cap_rc;
	hs_rcache_t *rc;           /* sorted by id: parsed records */
	int nmemo, cap_memo;
	hs_jmemo_t *memo;          /* sorted by id: hints, table rows */
	int64_t pack_prev_t;       /* the previous round build's time, for
	                            * hs_jmemo_t.pack (engine_packmeas.c) */

	int nwarned, cap_warned;
	hs_warned_t *warned;       /* sorted by id: per-job problems logged */

	/* After a state restore (engine_recover.c): */
	int recover;               /* 1 = restored, first round not run yet */
	int settle_s;              /* seconds Slurm needs after a restart to
	                            * learn from its nodes what still runs
	                            * (hs_engine_set_settle) */
	int64_t settle_until;      /* until then running jobs are not preempted */
};

/* engine_ops.c: the op protocol behind exec.h's passes. */
/* Marks the jobs plan suspends as suspended by us before the executor
 * suspends them (write-ahead, engine_ops.c); hs_engine_round calls it. */
void hs_ops_mark_suspends(hs_engine_t *e, const hs_plan_t *p);
/* Records the outcome of a plan entry's act (CHECKPOINT signalled at t0,
 * REQUEUE done at t0, START done or deferred until the next round,
 * SUSPEND, RESUME). ok = 0: it failed, the job stays as it was (a START:
 * deferred, retried every tick). */
int hs_engine_applied(hs_engine_t *e, const hs_plan_job_t *pj, int ok, int64_t t0,
		      int64_t begin_time, hs_err_t *err);
typedef enum hs_op_action {
	HS_OPA_WAIT = 0,           /* nothing to do now */
	HS_OPA_DROP,               /* op finished (or the job vanished) */
	HS_OPA_REQUEUE,            /* requeue now */
	HS_OPA_CLEAR_BEGIN,        /* set the job's begin time to *begin */
	HS_OPA_START,              /* start on the op's target */
} hs_op_action_t;
/* The next step of the op of job id, given what the executor sees. For
 * HS_OPA_CLEAR_BEGIN *begin is the new begin time; for HS_OPA_START
 * *target is where to start (engine-owned, valid until the op's result
 * is recorded). */
hs_op_action_t hs_engine_op_step(hs_engine_t *e, uint32_t id, const hs_op_view_t *v,
				 int64_t now, int64_t *begin, const hs_target_t **target);
/* Records the result of the step just decided (ok = 0: failed; the op
 * decides whether to retry). */
void hs_engine_op_result(hs_engine_t *e, uint32_t id, hs_op_action_t a, int ok, int64_t now);

/* engine_log.c */
void hs_engine_logf(const hs_engine_t *e, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* engine_acct.c */
/* Index of a GPU type in the accounting's type table (e->types); adds it;
 * -1 when the table is full or out of memory. */
int hs_acct_type_index(hs_engine_t *e, const char *name);
hs_jacct_t *hs_acct_find(const hs_engine_t *e, uint32_t id);
hs_jacct_t *hs_acct_get(hs_engine_t *e, uint32_t id, int64_t now); /* adds */
/* Drops accounting of jobs not active in round `round`. */
void hs_acct_drop_unseen(hs_engine_t *e, long round);
/* Drops the entry (and pending operation) of a job id Slurm gave to a new
 * job; returns how many were dropped. */
int hs_acct_forget_reused(hs_engine_t *e, const hs_snap_t *s);
void hs_acct_reset(hs_engine_t *e);
/* Gives a (zeroed otherwise) its per-type block of tcap types; -1 on out
 * of memory (a unchanged). */
int hs_acct_block_new(hs_jacct_t *a, int tcap);
/* Frees the blocks of entries [0, n) and the array. */
void hs_acct_free_all(hs_jacct_t *acct, int n);

/* engine_acct.c: did the engine record incarnation rc of job id as
 * requeueable (hs_requeue_kept)? What an executor's requeue of it may
 * restore (hs_act_t.restore_requeue); read after the round's update_acct,
 * when a task of a job array has a record of its own. */
int hs_acct_requeue_admitted(const hs_engine_t *e, uint32_t id, unsigned rc);
/* engine_acct.c: records a successful start of incarnation rc at now. */
void hs_acct_started(hs_engine_t *e, uint32_t id, unsigned rc, int64_t now);

/* engine_recover.c: at the first round after a restore, finds starts and
 * requeues the restarted slurmctld lost (see the file comment). */
void hs_recover_lost(hs_engine_t *e, const hs_snap_t *s);
/* A pending job held back after a lost start (clears an expired hold). */
int hs_recover_held(hs_engine_t *e, uint32_t id, int64_t now);


/* engine_reccache.c */
/* Job id's AdminComment record parsed (NULL: none, or invalid with err
 * set when err is given), cached while the text stays the same; tmp is
 * used when the cache is out of memory. Valid until the next call for
 * that job or the next prune. */
const hs_record_t *hs_reccache_get(hs_engine_t *e, uint32_t id, const char *text,
				   hs_record_t *tmp, hs_err_t *err);
/* Drops the records of jobs not read in this round or the one before. */
void hs_reccache_prune(hs_engine_t *e, long round);
void hs_reccache_free(hs_engine_t *e);

/* engine_jobmemo.c */
/* sj's hints into *out, parsed once per text of its HS_* entries. */
void hs_jmemo_hints(hs_engine_t *e, const hs_sjob_t *sj, hs_hints_t *out);
/* The table (index, -1 none) and row *jt of (model, sf) for job id,
 * looked up once per job and GPU count (after hs_jmemo_hints). */
int hs_jmemo_table(hs_engine_t *e, uint32_t id, const char *model, int sf, int *jt);
void hs_jmemo_prune(hs_engine_t *e, long round);
/* The memo of job id (after hs_jmemo_hints), NULL if none. */
hs_jmemo_t *hs_jmemo_get(hs_engine_t *e, uint32_t id);

/* engine_packmeas.c: a job's samples taken while it shared a GPU are
 * not its alone speed (doc/protocol.md, "Packed jobs"). */
struct hs_round_scratch;
/* Notes, after hs_classify_owners, which modelled jobs share a GPU now
 * and which stopped sharing. */
void hs_packmeas_note(hs_engine_t *e, const hs_snap_t *s, const struct hs_round_scratch *sc);
/* r (NULL: none) without the rates sampled while job id shared a GPU of
 * that type, or within HS_PACK_FORGET_S after: r itself when nothing is
 * left out, else a copy in *out. */
const hs_record_t *hs_packmeas_filter(hs_engine_t *e, uint32_t id, const hs_record_t *r,
				      hs_record_t *out);

/* engine_learn.c: the engine's side of sched/learn.h (Learning=yes). */
/* 1 when LearnExplore is on and its share of GPU time is not spent. */
int hs_learn_explore_on(const hs_engine_t *e);
/* Bounded exploration, for a job measured or learned somewhere: raises
 * thr[j] of each type j whose estimate is inferred with confidence below
 * 0.5 by 1 + (1 - confidence), or agnostic (confidence 0) by 2, so the
 * policy tries the job there (its first report there replaces the
 * guess); returns the raised types as bits. */
uint64_t hs_learn_optimism(int J, const hs_estimate_source_t *tsrc, const double *conf,
			   double *thr);
/* Job sj's kind (model: its hint, "" = none) into out[HS_LEARN_KIND_MAX].
 * out is also a cache: left as it is when out[0] is set (a caller that
 * needs the kind several times in a round starts it at ""). */
void hs_learn_job_kind(const hs_engine_t *e, const hs_sjob_t *sj, const char *model, char *out);
/* Feeds the learned table the reports of sj's record newer than those
 * it had from that job. */
void hs_learn_job_observe(hs_engine_t *e, const hs_sjob_t *sj, const char *model,
			  const hs_record_t *rec, int64_t now);
/* engine_lmemo.c: a round's learned rates and ratio bounds per (kind, GPU
 * count). hs_lmemo_find: the entry of (kind, sf), added empty when new
 * (*found = 0), -1 when the memo is NULL or full. hs_lmemo_put_rates
 * stores an entry's rates, hs_lmemo_get_rates copies them out;
 * hs_lmemo_ratios raises maxr to the kind's learned ratio bounds
 * (hs_learn_max_ratios), computed at the entry's first ask. */
typedef struct hs_lmemo hs_lmemo_t;
hs_lmemo_t *hs_lmemo_new(int jobs, int ntypes);
void hs_lmemo_free(hs_lmemo_t *m);
int hs_lmemo_find(hs_lmemo_t *m, const char *kind, int sf, int *found);
void hs_lmemo_put_rates(hs_lmemo_t *m, int ix, const double *rate, const unsigned char *inf,
			const double *conf);
void hs_lmemo_get_rates(const hs_lmemo_t *m, int ix, double *rate, unsigned char *inf,
			double *conf);
void hs_lmemo_ratios(hs_lmemo_t *m, int ix, hs_learn_t *l, const char *kind, int sf,
		     const char *const *types, double *maxr);

/* The learned or inferred rate of sj's kind on each of names[0..J-1]
 * (0 = none), inferred[j] = 1 when inferred, conf[j] its confidence.
 * lkind: the kind's cache (hs_learn_job_kind); memo: the round's
 * (NULL = none), *mix the job's entry there (hs_lmemo_find). */
void hs_learn_job_rates(hs_engine_t *e, hs_lmemo_t *memo, int *mix, const hs_sjob_t *sj,
			const char *model, char *lkind, char *const *names, int J, int64_t now,
			double *rate, unsigned char *inferred, double *conf);
void hs_jmemo_free(hs_engine_t *e);
/* The throughput tables changed (a reconfigure): every memo's table row
 * is looked up again; the hints and what was fed to the learned table
 * stay (dropping learn_t fed every live job's reports a second time). */
void hs_jmemo_tables_changed(hs_engine_t *e);

/* engine_warn.c */
/* 1 the first time (id, kind) is asked while the job stays in the
 * snapshots (then log), 0 after; -1 out of memory (log anyway). */
int hs_warn_once(hs_engine_t *e, uint32_t id, unsigned kind);
/* Forgets jobs that are not in the snapshot any more. */
void hs_warn_prune(hs_engine_t *e, const hs_snap_t *s);
void hs_warn_free(hs_engine_t *e);

/* engine_optable.c: the table of in-flight operations (the protocol that
 * advances them is engine_ops.c, behind engine.h's hs_engine_op_*). */
hs_op_t *hs_op_find(const hs_engine_t *e, uint32_t id);
hs_op_t *hs_op_add(hs_engine_t *e, uint32_t id, hs_op_kind_t kind);
void hs_op_remove(hs_engine_t *e, uint32_t id);
void hs_op_clear_target(hs_op_t *op);
/* Copies a plan job's target (and its GPU type) into the op. */
int hs_op_set_target(hs_op_t *op, const hs_plan_job_t *pj, const char *type);
const char *hs_op_kind_name(hs_op_kind_t k);
void hs_ops_free(hs_engine_t *e);
/* Drops every deferred start (a new round supersedes them). */
void hs_ops_new_round(hs_engine_t *e);

/* engine_problem.c: the classified snapshot and the problem built from it. */
typedef enum hs_role {
	HS_ROLE_SKIP = 0,          /* not ours / not eligible / CPU-only */
	HS_ROLE_ACTIVE,            /* in the problem */
	HS_ROLE_PINNED,            /* running, not preemptible */
	HS_ROLE_LEAVING,           /* checkpoint in flight: in the problem as
	                            * not running, its GPUs unusable */
	HS_ROLE_CUT,               /* eligible but beyond MaxJobs */
	HS_ROLE_NOFIT,             /* eligible GPU job no managed type can take */
	HS_ROLE_UNMODELLED,        /* holds GPUs the snapshot does not model:
	                            * left alone, its nodes' GPUs unusable */
	HS_ROLE_RESUME,            /* suspended by hetsched but out of its hands
	                            * now (not preemptible any more, beyond
	                            * MaxJobs, GPUs not modelled): resumed
	                            * where it is, never left suspended */
	HS_ROLE_PIN_WAIT,          /* pending, cannot be preempted once started,
	                            * beyond its group's share (engine_pinned.c) */
	HS_ROLE_SHAPE,             /* pending GPU job whose request shape the
	                            * rounds do not model (per socket, several
	                            * GPU entries): the plugin's fill places it
	                            * after the round; the plan only says so */
} hs_role_t;

typedef struct hs_round_build {
	hs_problem_t problem;
	int nservers;
	hs_server_t *servers;      /* one per typed node of a managed partition */
	unsigned char **usable;    /* [nservers][ngpus], rows in usable_space */
	unsigned char *usable_space; /* one block for all rows (one allocation
	                            * a round instead of one per server) */
	int *node_server;          /* [snap nnodes] server index or -1 */
	hs_job_run_t *run;         /* [njobs] */
	hs_job_run_t *home;        /* [njobs] suspended jobs that cannot be
	                            * moved: the GPUs they hold (placement) */
	hs_gpu_ref_t *run_space;
	int *pjob_snap;            /* [njobs] problem job -> snapshot job */
	int *snap_pjob;            /* [snap njobs] snapshot job -> problem job or -1 */
	hs_role_t *role;           /* [snap njobs] */
	unsigned char *busy;       /* [snap njobs] NOFIT only because the GPUs
	                            * are busy now (not: too few exist) */
	hs_hints_t *hints;         /* [snap njobs] parsed hints (GPU jobs) */
	unsigned char *requeue_kept; /* [snap njobs] runs with requeue off,
	                            * but was started requeueable: counts as
	                            * requeueable (hs_requeue_kept) */
	int *owner;                /* per server GPU: owning snapshot job or -1
	                            * (flat, offsets in owner_base) */
	int *owner2;               /* per server GPU, like owner: the owner's
	                            * packed partner on it, or -1 */
	int *owner_base;           /* [nservers] */
	hs_estimate_source_t *src; /* [njobs] */
	unsigned char *tsrc;       /* [njobs * ntypes] hs_estimate_source_t
	                            * of each type's estimate */
	uint64_t *explore;         /* [njobs] problem types whose estimate was
	                            * raised to try them (bit j) */
	double *lconf;             /* [njobs] least confidence of its learned
	                            * or inferred types (1 = none used) */
	double *meas;              /* [njobs * ntypes] */
	unsigned *bounded;         /* [njobs] HS_BOUND_* bits (sched/bound.h) */
	double *tab_maxr;          /* [ntypes * ntypes] ratios between types
	                            * the tables show (engine_bound.c) */
	int *tab_col;              /* [tables * ntypes] each type's index in
	                            * each table, -1 = none (engine_bound.c) */
	double *units;             /* [njobs] the job's estimates / problem's
	                            * (1, or its factor in table units for
	                            * packed policies: engine_problem.c) */
	unsigned char **job_servers; /* [njob_servers] per problem job NULL
	                            * or [nservers] (engine_nodes.c) */
	int njob_servers;
	int nactive, npinned, nleaving, ncut, nnofit, nresume, nunmodelled;
	int npinwait;
	int *tmap;                 /* [ntypes] problem type -> the
	                            * accounting's type (hs_acct_type_index) */
	struct hs_lmemo *lmemo;    /* learned answers per kind this round
	                            * (engine_lmemo.c); NULL = none kept */
} hs_round_build_t;

int hs_build_round(hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b, hs_err_t *err);
void hs_build_free(hs_round_build_t *b);
/* 1 = the ratio between a job's estimates on two types moved by more than
 * EstimateResolveFactor since the last round, or a type became unusable
 * for it: recompute the allocation (engine_resolve.c). */
int hs_estimates_moved(const hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b);

/* engine_bound.c: the engine's side of sched/bound.h. */
/* b->tab_maxr for the round's types (after the problem's cluster). */
int hs_bound_round_init(const hs_engine_t *e, hs_round_build_t *b);
/* Job sj's bound inputs into *bi: kind[ntypes] (from its learned rates
 * lrate, linf, lconf, NULL with Learning=no) and maxr[ntypes^2] are the
 * caller's room; measured: its record reports a rate; lkind: the cache of
 * its learning kind (hs_learn_job_kind); mix: its kind's entry in b->lmemo
 * (-1 = none). */
void hs_bound_job_in(hs_engine_t *e, const hs_round_build_t *b, int mix, const hs_sjob_t *sj,
		     const char *model, char *lkind, int measured, const double *lrate,
		     const unsigned char *linf, const double *lconf, double *kind, double *maxr,
		     hs_bound_in_t *bi);
/* Logs job id's bounds when one applies that did not the round before. */
void hs_bound_note(hs_engine_t *e, uint32_t id, unsigned prev, unsigned now);

/* engine_preempt.c: the preemption stage. Who loses GPUs is the round
 * mechanism's choice among the jobs hs_preempt_able allows; how a job
 * stops or moves is hs_preempt_stop / hs_preempt_move_suspended. */
typedef struct hs_preempt_rules {
	hs_preempt_mode_t mode;    /* PreemptMode */
	int requeue_no_ckpt;       /* RequeueWithoutCheckpoint */
	int slice;                 /* PreemptMode=suspend with the packing
	                            * interface: Gandiva time slicing */
	int64_t settle_left;       /* > 0: a restarted slurmctld settles for
	                            * that many seconds more: no job is
	                            * checkpointed or requeued */
} hs_preempt_rules_t;
typedef struct hs_preempt_job {
	int ckpt, no_preempt;      /* its hints: HS_CKPT, HS_NO_PREEMPT */
	int batch, requeue_ok;     /* Slurm can requeue it */
} hs_preempt_job_t;
hs_preempt_rules_t hs_preempt_rules(const hs_engine_t *e, int64_t now);
/* Snapshot job i's facts: its hints and Slurm's requeue flag, or the
 * flag it was admitted with (b->requeue_kept). */
hs_preempt_job_t hs_preempt_job(const hs_round_build_t *b, const hs_sjob_t *sj, int i);
/* Does running or suspended job sj count as requeueable although Slurm
 * says it may not be requeued now? Yes when the engine saw this
 * incarnation requeueable (pending or running), or, for a job array's
 * task, saw its array's pending record so. */
int hs_requeue_kept(const hs_engine_t *e, const hs_sjob_t *sj);
/* May the job be preempted at all? (else it is pinned once it runs) */
int hs_preempt_able(const hs_preempt_rules_t *r, const hs_preempt_job_t *j);
/* May it be stopped and restarted elsewhere without losing its work? A
 * job that is able but not movable is suspended and resumed where it
 * runs, never moved (PreemptMode=suspend). */
int hs_preempt_movable(const hs_preempt_rules_t *r, const hs_preempt_job_t *j);
/* Once running, does it keep its GPUs whatever the rounds decide (not
 * able, or not movable without time slicing)? PinnedAdmission gates it. */
int hs_preempt_holds(const hs_preempt_rules_t *r, const hs_preempt_job_t *j);
/* How a running job stops when the round takes its GPUs (moving = 0)
 * or moves it: HS_PLAN_CHECKPOINT, _REQUEUE, _SUSPEND, or HS_PLAN_KEEP
 * while a restarted slurmctld settles. */
hs_plan_op_t hs_preempt_stop(const hs_preempt_rules_t *r, const hs_preempt_job_t *j, int moving);
/* How a suspended job the round moves elsewhere restarts: requeued, or
 * HS_PLAN_NONE (it waits for its own GPUs) when that loses its work. */
hs_plan_op_t hs_preempt_move_suspended(const hs_preempt_rules_t *r, const hs_preempt_job_t *j);

/* engine_entities.c: the problem's entities (Fairness=) and each problem
 * job's (pjob_snap filled). */
/* engine_entstatus.c: the accounts and users in the status document */
void hs_ents_free(hs_entities_t *x);
void hs_ents_keep(hs_engine_t *e, const hs_entities_t *src);
json_object *hs_entities_status(const hs_engine_t *e, const hs_snap_t *s, const hs_plan_t *plan,
				int64_t now);
int hs_entities_build(const hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b,
		      hs_err_t *err);

/* engine_pinned.c: which pending jobs that cannot be preempted enter the
 * round (core/pinned.h). */
/* Pending jobs that cannot be preempted and are beyond their group's
 * share become HS_ROLE_PIN_WAIT (needs roles, owners and usable GPUs);
 * -1 = out of memory. */
int hs_pin_filter(const hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b);
/* engine_unmovable.c: under time slicing, pending jobs that can be
 * suspended but never moved, beyond their owner's share of the GPUs'
 * time-slice places, become HS_ROLE_PIN_WAIT (core/pinned.h
 * hs_slot_admit); -1 = out of memory. */
int hs_unmovable_filter(const hs_engine_t *e, const hs_snap_t *s, hs_round_build_t *b);

/* engine_nodes.c: a pending job's node mask (hs_sjob_t.node_ok). */
/* Does the job's mask leave a node of type j (node_type: per snapshot
 * node, -1 = not a managed GPU node)? 1 without a mask. */
int hs_nodes_have_type(const hs_snap_t *s, const hs_sjob_t *sj, const int *node_type, int j);
/* Usable GPUs of type j on the job's nodes (b's servers built); `all`
 * without a mask. */
int hs_nodes_usable(const hs_round_build_t *b, const hs_snap_t *s, const hs_sjob_t *sj, int j,
		    int all);
/* Is node n a server whose usable GPUs are there only for the jobs
 * already on it (unavailable, or holding GPUs the snapshot does not
 * model: node_bad, may be NULL)? The one rule hs_classify_servers and the
 * job server masks share. */
int hs_node_hold_only(const hs_snap_t *s, const unsigned char *node_bad, int n);
/* b->job_servers for the npj problem jobs (pjob_snap filled, hints
 * parsed); node_bad [nnodes] marks nodes with GPUs the snapshot does not
 * model (or NULL). -1 = out of memory. */
/* Can snapshot job i (roles and hints known) run only on the GPUs it
 * holds: a running or suspended job that time slicing may suspend but
 * never move? */
int hs_nodes_stays_put(const hs_engine_t *e, const hs_round_build_t *b, const hs_snap_t *s,
		       int i);
int hs_nodes_build_masks(const hs_engine_t *e, hs_round_build_t *b, const hs_snap_t *s,
			 const unsigned char *node_bad, int npj);

/* engine_plan_share.c: steps of hs_build_plan across plan entries, run
 * in this order once every problem job has its entry. pj_of: problem job
 * -> plan entry; snap_pj: snapshot job -> plan entry or -1; server_node:
 * server -> snapshot node. */
/* Packed pairs: noted, or one member alone without the packing interface. */
void hs_plan_resolve_pairs(const hs_engine_t *e, hs_plan_t *plan, const hs_round_out_t *out,
			   const int *pj_of, const hs_round_build_t *b, long round);
/* Gandiva time slicing onto a job the round suspends (PreemptMode=suspend
 * with packing). */
void hs_plan_timeslice(const hs_engine_t *e, hs_plan_t *plan, const hs_snap_t *s,
		       const hs_round_build_t *b, const hs_round_out_t *out, const int *pj_of,
		       const int *snap_pj, const int *server_node, long round);
/* GPUs suspended jobs keep, wanted by another job: evicted, or the start
 * waits. out (may be NULL: every GPU of the target's nodes) says which
 * GPUs each job was given. */
void hs_plan_vacate(const hs_engine_t *e, hs_plan_t *plan, const hs_snap_t *s,
		    const hs_round_build_t *b, const hs_round_out_t *out, const int *snap_pj,
		    long round);

/* engine_plan.c: the "decisions -> plan" stage. */
int hs_build_plan(hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
		  const hs_round_out_t *out, hs_plan_t *plan, hs_err_t *err);
/* The engine's queue order (engine_order.c), Slurm's backfill order
 * within a group: group (lower first), then priority (higher first),
 * submit time, job id. Sort keys are copied so qsort needs no context. */
typedef struct hs_queue_key {
	int snap;       /* snapshot job */
	int group;      /* caller's partition of the queue, sorted first */
	uint32_t prio;
	int64_t submit;
	uint32_t id;
} hs_queue_key_t;
hs_queue_key_t hs_queue_key(const hs_snap_t *s, int i, int group);
int hs_queue_key_cmp(const void *a, const void *b);

/* The plan of a round without GPU types: only the HS_ROLE_RESUME jobs. */
int hs_plan_resumes_only(const hs_snap_t *s, const hs_round_build_t *b, hs_plan_t *plan,
			 long round, hs_err_t *err);

/* engine_start.c: the expected start of every pending plan job (its
 * expected_start), from the mechanism's state after this round's
 * schedule (start_est.h). Best effort: on out of memory no estimate. */
void hs_plan_start_times(hs_engine_t *e, const hs_snap_t *s, const hs_round_build_t *b,
			 const hs_round_out_t *out, hs_plan_t *plan);

#endif /* HS_SCHED_ENGINE_IMPL_H */
