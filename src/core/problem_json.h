/* SPDX-License-Identifier: GPL-2.0-or-later */
/* problem_json.h — policy problems and allocations as JSON (json-c): the
 * input and output of `hetsched solve`, also used by tests and the
 * simulator to save and replay problems. The format is documented in
 * hetsched-solve(1):
 *
 *   {"cluster": {"<type>": <count>, ...},
 *    "prices": {"<type>": <per accelerator-hour>, ...},          optional
 *    "reference_type": "<type>",                                  optional
 *    "job_types": {"<name>": {"scale_factor": <int>,              optional
 *                  "pairs": {"<other name>": {"<type>": <steps/s>}}}},
 *    "entities": {"<name>": {"weight": <w>, "mode": "fairness"|"fifo",
 *                  "parent": "<name>"}},                            parent optional
 *    "jobs": [{"id": "<string>", "scale_factor": <int>, "weight": <w>,
 *              "remaining_steps": <n>, "age_s": <s>, "slo_s": <s>,
 *              "job_type": "<name>", "entity": "<name>",
 *              "throughput": {"<type>": <steps per second>, ...}}, ...]}
 *
 * The reader is strict (it is fed untrusted files): unknown keys, wrong
 * types, negative or non-finite numbers, duplicate job ids and references
 * to undeclared types, job types or entities are errors naming the
 * offending field; the result also passes hs_problem_validate.
 */
#ifndef HS_CORE_PROBLEM_JSON_H
#define HS_CORE_PROBLEM_JSON_H

#include "core/model.h"
#include "core/thrtable.h"

/* Largest input accepted (bytes). */
#define HS_PROBLEM_JSON_MAX_BYTES (512L << 20)

/* Parses a problem. table (may be NULL) is a Gavel throughput table: when
 * given and the input declares no "job_types", the job types and their
 * pair throughputs come from the table (names are the table's keys, e.g.
 * "('ResNet-50 (batch size 64)', 1)"), and a job with a "job_type" but no
 * "throughput" gets its throughputs from the table. p is initialized here;
 * hs_problem_free it also on failure. */
int hs_problem_parse_json(hs_problem_t *p, const char *text, size_t len,
			  const hs_thrtable_t *table, hs_err_t *err);
/* Reads and parses a file ("-" = stdin). */
int hs_problem_load_json(hs_problem_t *p, const char *path,
			 const hs_thrtable_t *table, hs_err_t *err);

/* Serializes a problem in the input format (a malloc'd string). */
char *hs_problem_to_json(const hs_problem_t *p, hs_err_t *err);

/* Serializes an allocation as `hetsched solve` prints it:
 *   {"policy": ..., "objective": ..., "allocation": {"<id>": {"<type>": x}},
 *    "pairs": [{"jobs": ["<id>", "<id>"], "allocation": {"<type>": x}}],
 *    "effective_throughput": {"<id>": steps/s}, "solve_ms": ...}
 * (a malloc'd string; pretty != 0 indents). */
char *hs_alloc_to_json(const hs_alloc_t *a, const hs_problem_t *p, const char *policy,
		       double solve_ms, int pretty, hs_err_t *err);

#endif /* HS_CORE_PROBLEM_JSON_H */
