/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thrtable.h — offline throughput tables in Gavel's JSON format:
 *
 *   {"<gpu type>": {"('<model>', <scale factor>)": {
 *        "null": <steps/s alone>,
 *        "('<other model>', <sf>)": [<this job>, <other job>], ...}, ...}, ...}
 *
 * A "job type" is a (model, scale factor) key. GPU types named
 * "<type>_unconsolidated" describe multi-GPU jobs spread over several
 * servers; they are kept as a variant of <type>, not as a type of their own.
 * Pair entries of [0, 0] (or missing ones) mean the pair cannot share.
 * Every value is validated (finite, >= 0); a malformed file is an error
 * that names the offending key, never a crash.
 */
#ifndef HS_CORE_THRTABLE_H
#define HS_CORE_THRTABLE_H

#include "core/model.h"

typedef struct hs_thrtable {
	int ntypes;
	char **types;            /* [ntypes] GPU type names in file order */
	int njobtypes;
	char **models;           /* [njobtypes] model names, e.g. "ResNet-50 (batch size 64)" */
	int *sf;                 /* [njobtypes] scale factors */
	struct lh_table *index;  /* "sf<US>model" -> job type + 1 (json-c's
	                          * hash table); NULL = hs_thrtable_find scans */
	double *alone;           /* [jt * ntypes + j] steps/s alone, 0 = unknown */
	double *alone_uncons;    /* [jt * ntypes + j] unconsolidated variant, 0 = unknown */
	/* Pair rows only for the job types the file gives pair entries: a
	 * table of thousands of job types without pairs (measured tables,
	 * bench/scale.sh's) would otherwise cost njobtypes^2 x ntypes. */
	int npaired;
	int *paired;             /* [njobtypes] index among the paired job
	                          * types, -1 = no pair entry */
	double *pair;            /* [(paired[a] * npaired + paired[b]) * ntypes + j]
	                          * steps/s of an a-job sharing with a b-job,
	                          * 0 = cannot share */
} hs_thrtable_t;

int hs_thrtable_load(hs_thrtable_t *t, const char *path, hs_err_t *err);
int hs_thrtable_parse(hs_thrtable_t *t, const char *json_text, hs_err_t *err);
void hs_thrtable_free(hs_thrtable_t *t);
/* dst (uninitialized) becomes a deep copy of src; -1 on out of memory. */
int hs_thrtable_copy(hs_thrtable_t *dst, const hs_thrtable_t *src, hs_err_t *err);

/* Job type index of (model, scale factor), or -1. */
int hs_thrtable_find(const hs_thrtable_t *t, const char *model, int sf);
/* GPU type index in the table, or -1. */
int hs_thrtable_type_index(const hs_thrtable_t *t, const char *type);
/* Throughput of job type jt alone on the named GPU type; multi-GPU jobs
 * placed over several servers use the unconsolidated variant when the table
 * has one. Returns 0 when unknown (type or job type not in the table). */
double hs_thrtable_alone(const hs_thrtable_t *t, int jt, const char *type, int consolidated);
/* The same at the table's type index j (hs_thrtable_type_index). */
double hs_thrtable_alone_at(const hs_thrtable_t *t, int jt, int j, int consolidated);
/* Throughput of an a-job sharing with a b-job on the named GPU type, 0 if
 * they cannot share or it is unknown. */
double hs_thrtable_pair(const hs_thrtable_t *t, int a, int b, const char *type);
/* The same by table GPU type index j (no checks of a, b, j beyond the
 * paired ones: callers pass valid indices). */
double hs_thrtable_pair_at(const hs_thrtable_t *t, int a, int b, int j);

/* Fills out (which must be empty) with every job type of the table and the
 * pair throughputs mapped onto the cluster's GPU types (by name; cluster
 * types missing from the table get 0), for space-sharing policies. */
int hs_thrtable_to_jobtypes(const hs_thrtable_t *t, const hs_cluster_t *c,
			    hs_jobtypes_t *out, hs_err_t *err);
/* The same for the job types a round has (jt[k], table job type of job k,
 * -1 = none, k < n): out holds each distinct one the table gives pair
 * entries for, in first-seen order; idx[k] is job k's index in out, -1 =
 * never packed. Its size grows with the round's paired job types, not
 * with the table (the Slurm plugin's round: thousands of models in a
 * table, a few in the queue). */
int hs_thrtable_jobtypes_of(const hs_thrtable_t *t, const hs_cluster_t *c, const int *jt, int n,
			    hs_jobtypes_t *out, int *idx, hs_err_t *err);


#endif /* HS_CORE_THRTABLE_H */
