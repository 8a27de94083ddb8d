/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mechanism_impl.h — the round mechanism's internal state, shared by
 * mechanism.c (the rounds) and mech_state.c (save/restore). Not for
 * callers: they use mechanism.h. */
#ifndef HS_CORE_MECHANISM_IMPL_H
#define HS_CORE_MECHANISM_IMPL_H

#include <json-c/linkhash.h>

#include "core/mechanism.h"
#include "core/rng.h"

/* Separates the two job ids of a pair entry's key (cannot occur in ids we
 * accept: ids are validated to hold no control characters). */
#define HS_PAIR_SEP '\x1f'

struct hs_mentry;

/* What the mechanism remembers about one job, matched by id. */
typedef struct hs_mjob {
	char *id;
	int ever_ran;      /* has run at least once (a restart resumes) */
	int in_alloc;      /* present when the allocation in force was made */
	long seen;         /* round stamp of the last begin_round seeing it */
	int pidx;          /* index in this round's problem (scratch) */
	/* the last decision: where it was told to run */
	int ptype;         /* internal type index, -1 = not running */
	int nplace;
	char **pserver;    /* [nplace] node names */
	int *pgpu;         /* [nplace] GPU indices */
	char *partner;     /* id of the packed partner, NULL = alone */
	double run_since;  /* clock when its current run began (start or
	                    * move), -1 = not running or not known yet */
	struct hs_mentry *single;  /* its own entry, NULL until it has one */
} hs_mjob_t;

/* An allocation entry: one job alone, or a packed pair; per type its
 * allocation share, time received since the last reset and deficit. */
typedef struct hs_mentry {
	char *key;         /* "id" or "idA<SEP>idB" with idA < idB (strcmp) */
	char *a, *b;       /* member ids (b NULL for a single job) */
	double *x, *recv, *def;  /* [cap_types] */
	hs_mjob_t *ja, *jb;  /* member records (entries die with them) */
	int ia, ib;        /* problem indices this round (scratch), -1 */
} hs_mentry_t;

struct hs_mech {
	hs_mech_opts_t o;
	int ntypes, cap_types;
	char **tnames;          /* [ntypes] internal type names */
	int *tcount;            /* [ntypes] usable count when last reset, -1 */
	long round;
	double clock, last_reset;
	int have_alloc;
	long departed;          /* allocated jobs gone since the last reset */
	hs_rng_t rng;           /* shuffle_types' generator (core/rng.h) */
	hs_mech_stats_t st;

	int njobs, cap_jobs;
	hs_mjob_t **jobs;
	struct lh_table *jobmap;   /* id -> hs_mjob_t* */
	int nents, cap_ents;
	hs_mentry_t **ents;
	struct lh_table *entmap;   /* key -> hs_mentry_t* */

	/* between begin_round and schedule */
	long stamp;                /* bumped by every begin_round */
	int in_round;
	const hs_problem_t *round_problem;
	/* The server array begin_round validated (names unique): schedule's
	 * GPU pool skips that check for the same array. */
	const hs_server_t *round_servers;
	int round_nservers;
	int *tmap;                 /* [problem ntypes] -> internal type */
	int cap_tmap;
	hs_mjob_t **prec;          /* [problem njobs] record of each job */
	int cap_prec;
};

/* Shared helpers (mechanism.c). */
hs_mech_t *hs_mech_alloc(const hs_mech_opts_t *o, hs_err_t *err);
int hs_mech_type_index(hs_mech_t *m, const char *name, int create, hs_err_t *err);
hs_mjob_t *hs_mech_job_get(hs_mech_t *m, const char *id, int create, hs_err_t *err);
hs_mentry_t *hs_mech_entry_get(hs_mech_t *m, const char *a, const char *b, int create,
			       hs_err_t *err);
/* Sets a job's remembered placement (copies names); nplace 0 clears it. */
int hs_mjob_set_place(hs_mjob_t *j, int ptype, int nplace, const char *const *servers,
		      const int *gpus, const char *partner);
/* 1 if an id is acceptable: non-empty, printable, at most 255 bytes. */
int hs_mech_id_ok(const char *id);

#endif /* HS_CORE_MECHANISM_IMPL_H */
