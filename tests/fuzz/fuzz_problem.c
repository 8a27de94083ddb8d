/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_problem.c — libFuzzer target for the JSON problem reader of
 * `hetsched solve` (src/core/problem_json.h), which reads files admins
 * (or anyone who can write one) hand it. Properties: no crash or
 * sanitizer report on any input; an accepted problem passes validation,
 * writes back to JSON that reads back to the same text, and small ones
 * solve (isolated, max-min fairness, its packed variant) to allocations
 * within bounds. Run with tests/fuzz/run.sh problem. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy.h"
#include "core/problem_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hs_problem_t p, q;
	hs_err_t err;
	if (size > 16384)
		return 0;
	if (hs_problem_parse_json(&p, (const char *)data, size, NULL, &err) < 0) {
		if (!err.msg[0])
			abort(); /* a rejection must say why */
		hs_problem_free(&p);
		return 0;
	}
	if (hs_problem_validate(&p, &err) < 0)
		abort();
	char *a = hs_problem_to_json(&p, &err);
	if (!a)
		abort();
	if (hs_problem_parse_json(&q, a, strlen(a), NULL, &err) < 0)
		abort();
	char *b = hs_problem_to_json(&q, &err);
	if (!b || strcmp(a, b) != 0)
		abort();
	free(a);
	free(b);
	hs_problem_free(&q);
	if (p.njobs <= 40 && p.cluster.ntypes <= 8) {
		static const char *pols[] = { "isolated", "max_min_fairness_perf", "max_min_fairness_packed" };
		for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
			hs_policy_ctx_t *ctx = hs_policy_ctx_new(pols[i], NULL, &err);
			hs_alloc_t al;
			if (!ctx)
				abort();
			if (hs_policy_solve(ctx, &p, &al, &err) == 0) {
				for (size_t k = 0; k < (size_t)al.njobs * al.ntypes; k++)
					if (!(al.x[k] >= 0.0 && al.x[k] <= 1.0))
						abort();
			} else if (!err.msg[0]) {
				abort();
			}
			hs_alloc_free(&al);
			hs_policy_ctx_free(ctx);
		}
	}
	hs_problem_free(&p);
	return 0;
}
