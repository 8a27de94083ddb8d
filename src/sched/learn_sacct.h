/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn_sacct.h — the learned table (sched/learn.h) built from accounting
 * history: the hetsched records (AdminComment, doc/protocol.md (c)) of
 * past jobs as sacct prints them, one job per line, fields in this order
 * (HS_LEARN_SACCT_FIELDS), separated by a delimiter string:
 *
 *   JobIDRaw D JobID D UID D Account D AllocTRES D AdminComment D JobName
 *
 * Each job's alone measurements (`thr` entries without ":shared") are
 * fed to the table under the kind the plugin gives the job
 * (hs_learn_kind: its --hs-model, which the record keeps because Slurm's
 * accounting does not keep spank_job_env; else job name, else array,
 * else the job; the scope's uid or account), on its GPU count (AllocTRES
 * gres/gpu=N). Older records without "model" give the name's kind.
 *
 * Job names are the user's and may hold any byte: the name is the last
 * field (a delimiter inside it stays in it) and sacct does not escape a
 * newline, so a name can end a line and start a forged one. With a
 * delimiter no user knew at submit time (`hetsched learned --from-sacct`
 * picks a random one when it runs sacct itself) a forged line does not
 * parse; every field is validated anyway and a bad line is skipped and
 * counted, never trusted in part.
 *
 * Merging: a sample is fed once. A job printed more than once (sacct -D)
 * gives the same (job, type, sample time) and is fed once; a sample no
 * newer than the cell's last sample in the table merged into (a table the
 * plugin learned live, or an earlier import) is skipped, so importing
 * the same history twice changes nothing. Slurm-free, no global state.
 */
#ifndef HS_SCHED_LEARN_SACCT_H
#define HS_SCHED_LEARN_SACCT_H

#include <stddef.h>
#include <stdint.h>

#include "sched/learn.h"

#define HS_LEARN_SACCT_FIELDS "JobIDRaw,JobID,UID,Account,AllocTRES,AdminComment,JobName"
#define HS_LEARN_SACCT_LINE_MAX 65536 /* longer lines are skipped as bad */

typedef struct hs_learn_sacct {
	hs_learn_scope_t scope;
	const char *delim;         /* the field delimiter, not empty */
	int64_t now;               /* sample times after it are cut to it */
	hs_learn_t base;           /* the table as it was before (merging) */
	uint64_t *seen;            /* fed (job, type, time) hashes, 0 = free */
	size_t seen_n, seen_cap;
	/* counts */
	long lines;                /* lines read */
	long jobs;                 /* lines whose job fed at least a sample */
	long samples;              /* samples fed (averaged in or outliers) */
	long refused;              /* samples the table refused (bounds) */
	long no_data;              /* valid lines that fed nothing (no GPU,
	                            * no record, only shared, dup or old) */
	long dup;                  /* samples already fed from this input */
	long old;                  /* samples no newer than the table's */
	long bad;                  /* lines skipped as malformed */
	char first_bad[160];       /* why the first bad line was skipped */
} hs_learn_sacct_t;

/* Starts an import into l (which may hold a table already): remembers
 * l's cells as they are, for the merge rule. Returns -1 (err) on out of
 * memory or an empty delimiter. */
int hs_learn_sacct_begin(hs_learn_sacct_t *h, const hs_learn_t *l, hs_learn_scope_t scope,
			 const char *delim, int64_t now, hs_err_t *err);

/* One line of sacct output (without its newline; len bytes, NULs make
 * it bad). Returns 1 fed at least one sample, 0 nothing to feed (no
 * record, no GPU, only shared or already fed samples), -1 skipped as
 * malformed (counted; the first reason kept). */
int hs_learn_sacct_line(hs_learn_sacct_t *h, hs_learn_t *l, const char *line, size_t len);

void hs_learn_sacct_end(hs_learn_sacct_t *h);

#endif /* HS_SCHED_LEARN_SACCT_H */
