/* SPDX-License-Identifier: GPL-2.0-or-later */
/* estimate.h — a job's throughput on each GPU type of the cluster, from
 * what the scheduler knows about it: the offline tables (Gavel format,
 * ThroughputTable= in hetsched.conf) for its declared model, and the
 * steps/s it measured itself (AdminComment record, doc/protocol.md (c)).
 *
 * Rules (hetsched.conf(5) documents them for users):
 *  1. A type the job may not use (it asked for another type, or none of
 *     its partitions has that type) gets 0.
 *  2. Measured types use the measured EMA (it replaces the table value).
 *  3. Unmeasured types with a table value: the table value, rescaled by
 *     sum(measured) / sum(table) over the types that have both (so table
 *     ratios between types survive while the units follow the job's own
 *     measurements, e.g. a time-scaled emulator).
 *  4. Otherwise, with learning on (sched/learn.h): the rate learned for
 *     the job's kind on that type, else the rate inferred from the
 *     site's speedup matrix, both rescaled like table values by the
 *     job's own measurements on the types that have both.
 *  5. Otherwise (unknown model or type not in the table): the
 *     heterogeneity-agnostic estimate, the mean of what is known about the
 *     job (measured, then table values), or 1.0 when nothing is known.
 *     Measuring the job on a type replaces the guess there.
 *  6. With bounds (in->bound, sched/bound.h): measured rates are bounded
 *     against the table and the kind before rules 2-5 use them, and the
 *     estimates of every source against the ratios between types the
 *     site has seen after them; `measured` stays what the job reported.
 * Slurm-free, no global state.
 */
#ifndef HS_SCHED_ESTIMATE_H
#define HS_SCHED_ESTIMATE_H

#include "core/model.h"
#include "core/thrtable.h"
#include "report/record.h"
#include "sched/bound.h"
#include "sched/sconf.h"

typedef struct hs_tables {
	int n;
	hs_thrtable_t t[HS_SCONF_MAX_TABLES];
} hs_tables_t;

/* Loads every ThroughputTable of the configuration (none = empty). */
int hs_tables_load(hs_tables_t *tb, const hs_sconf_t *c, hs_err_t *err);
void hs_tables_free(hs_tables_t *tb);

typedef enum hs_estimate_source {
	HS_ESTIMATE_AGNOSTIC = 0,  /* nothing known: equal on every allowed type */
	HS_ESTIMATE_TABLE,         /* offline table only */
	HS_ESTIMATE_MEASURED,      /* measured on at least one type */
	HS_ESTIMATE_LEARNED,       /* learned for the job's kind */
	HS_ESTIMATE_INFERRED,      /* inferred from other kinds' speedups */
} hs_estimate_source_t;

const char *hs_estimate_source_name(hs_estimate_source_t s);

typedef struct hs_estimate_in {
	const hs_cluster_t *cluster;   /* type names */
	const hs_tables_t *tables;     /* may be NULL */
	const char *model;             /* NULL or "" = unknown */
	int scale_factor;              /* GPUs */
	const hs_record_t *rec;        /* may be NULL */
	const unsigned char *allowed;  /* [ntypes] 1 = may run there; NULL = all */
	int table_known;               /* 1: table_ti / table_jt are the lookup
	                                * of (model, scale_factor) already */
	int table_ti, table_jt;
	const int *table_col;          /* [ntypes] each type's index in table
	                                * table_ti (-1 = not there); NULL =
	                                * looked up by name */
	const double *learned;         /* [ntypes] the learned or inferred
	                                * rate of the job's kind, 0 = none;
	                                * NULL = learning off */
	const unsigned char *learned_inferred; /* [ntypes] 1 = inferred */
	hs_estimate_source_t *type_src; /* out: [ntypes] each type's source
	                                * (NULL = not wanted) */
	const hs_bound_in_t *bound;    /* NULL = no bounds; its `table` is
	                                * ignored (the lookup above is used) */
	unsigned *bounded;             /* out: HS_BOUND_* bits that applied
	                                * (NULL = not wanted) */
} hs_estimate_in_t;

/* The first table that knows (model, sf): its index and *jt, or -1. */
int hs_tables_find(const hs_tables_t *tb, const char *model, int sf, int *jt);

/* Fills thr[ntypes] (steps/s of the whole job) and, if measured is not
 * NULL, measured[ntypes] (0 = not measured). Never fails on bad data
 * (records are validated by their parser); returns the source. */
hs_estimate_source_t hs_estimate(const hs_estimate_in_t *in, double *thr, double *measured);

#endif /* HS_SCHED_ESTIMATE_H */
