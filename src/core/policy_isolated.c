/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_isolated.c — the `isolated` policy: every job gets an equal
 * 1/M share of every accelerator type it can run on, X_mj = N_j / (M s_m),
 * each row scaled down to sum <= 1 (doc/policies.md). No solver. Types a job
 * cannot use (throughput 0, or fewer accelerators than its scale factor)
 * get 0 instead of Gavel's wasted share. The objective reported is the
 * summed effective throughput. */
#include "core/policy_impl.h"

int hs_policy_isolated_solve(hs_policy_ctx_t *ctx, const hs_solve_in_t *in,
			     hs_alloc_t *out, hs_err_t *err)
{
	(void)ctx;
	hs_isolated_fill(in->p, in->cap, out);
	if (hs_alloc_clean(out, in->p, in->cap, err) < 0)
		return -1;
	out->objective = hs_alloc_total_thr(out, in->p);
	return 0;
}
