/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sconf.c — hetsched.conf values as a whole: free, deep copy, cross-key
 * checks and queries (see sconf.h; the keys themselves are the table in
 * sconf_keys.c, the Slurm-free text reader is sconf_text.c). */
#include "sched/sconf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/policy.h"
#include "sched/sconf_impl.h"

void hs_sconf_free(hs_sconf_t *c)
{
	if (!c)
		return;
	free(c->policy);
	for (int i = 0; i < c->ntables; i++)
		free(c->tables[i]);
	hs_conf_strlist_free(c->partitions, c->npartitions);
	hs_conf_wlist_free(&c->qos_weights);
	hs_conf_wlist_free(&c->account_weights);
	hs_conf_wlist_free(&c->gpu_prices);
	free(c->status_file);
	free(c->metrics_file);
	memset(c, 0, sizeof(*c));
}

static int wlist_copy(hs_wlist_t *d, const hs_wlist_t *s)
{
	memset(d, 0, sizeof(*d));
	if (s->n == 0)
		return 0;
	d->names = calloc((size_t)s->n, sizeof(*d->names));
	d->w = calloc((size_t)s->n, sizeof(*d->w));
	if (!d->names || !d->w)
		return -1;
	for (int i = 0; i < s->n; i++) {
		if (!(d->names[i] = hs_conf_dup(s->names[i])))
			return -1;
		d->w[i] = s->w[i];
		d->n = i + 1;
	}
	return 0;
}

int hs_sconf_copy(hs_sconf_t *dst, const hs_sconf_t *src, hs_err_t *err)
{
	*dst = *src;
	dst->policy = NULL;
	dst->ntables = 0;
	dst->npartitions = 0;
	dst->partitions = NULL;
	memset(&dst->qos_weights, 0, sizeof(dst->qos_weights));
	memset(&dst->account_weights, 0, sizeof(dst->account_weights));
	memset(&dst->gpu_prices, 0, sizeof(dst->gpu_prices));
	dst->status_file = NULL;
	dst->metrics_file = NULL;
	if (!(dst->policy = hs_conf_dup(src->policy)))
		goto oom;
	for (int i = 0; i < src->ntables; i++) {
		if (!(dst->tables[i] = hs_conf_dup(src->tables[i])))
			goto oom;
		dst->ntables = i + 1;
	}
	if (src->npartitions) {
		dst->partitions = calloc((size_t)src->npartitions, sizeof(char *));
		if (!dst->partitions)
			goto oom;
		for (int i = 0; i < src->npartitions; i++) {
			if (!(dst->partitions[i] = hs_conf_dup(src->partitions[i])))
				goto oom;
			dst->npartitions = i + 1;
		}
	}
	if (wlist_copy(&dst->qos_weights, &src->qos_weights) < 0 ||
	    wlist_copy(&dst->account_weights, &src->account_weights) < 0 ||
	    wlist_copy(&dst->gpu_prices, &src->gpu_prices) < 0)
		goto oom;
	if (src->status_file && !(dst->status_file = hs_conf_dup(src->status_file)))
		goto oom;
	if (src->metrics_file && !(dst->metrics_file = hs_conf_dup(src->metrics_file)))
		goto oom;
	return 0;
oom:
	hs_sconf_free(dst);
	return hs_err_set(err, "out of memory");
}

/* Policies whose objective divides by GPU prices (policy_throughput.c's
 * THR_COST variants): they fail every solve without a price per type. */
static int policy_needs_prices(const char *policy)
{
	return !strcasecmp(policy, "min_cost") || !strcasecmp(policy, "min_cost_slo");
}

int hs_sconf_check(const hs_sconf_t *c, hs_err_t *err)
{
	if (!c->policy || !hs_policy_exists(c->policy))
		return hs_err_set(err, "Policy: unknown policy '%s'", c->policy ? c->policy : "");
	/* min_cost_slo's constraints come from per-job deadlines, which the
	 * plugin does not take from Slurm: it would silently be min_cost. */
	if (!strcasecmp(c->policy, "min_cost_slo"))
		return hs_err_set(err, "Policy=min_cost_slo: jobs under Slurm carry no SLO for "
				  "hetsched; use Policy=min_cost");
	if (policy_needs_prices(c->policy) && c->gpu_prices.n == 0)
		return hs_err_set(err, "Policy=%s needs GpuPrices=TYPE:PRICE[,TYPE:PRICE...] (price "
				  "per GPU-hour of every GPU type, e.g. GpuPrices=v100:2.48,k80:0.45)",
				  c->policy);
	/* The policy code refuses POP for the other policies at every solve;
	 * say so once, here. */
	if (c->pop_partitions > 1 && !hs_policy_is_lp(c->policy))
		return hs_err_set(err, "PopPartitions=%d applies only to policies solved as linear "
				  "programs (the max_min_fairness, finish_time_fairness, "
				  "min_total_duration, max_sum_throughput and min_cost families); "
				  "Policy=%s is not one", c->pop_partitions, c->policy);
	if (c->min_round_gap_s > c->round_s)
		return hs_err_set(err, "MinRoundInterval=%d is longer than RoundLength=%d",
				  c->min_round_gap_s, c->round_s);
	/* a factor below 1 would say "moved" of every estimate */
	if (c->estimate_resolve > 0 && c->estimate_resolve < 1)
		return hs_err_set(err, "EstimateResolveFactor=%g: a factor is 1 or more (0: off)",
				  c->estimate_resolve);
	return 0;
}

/* ---- queries ------------------------------------------------------------------ */

int hs_sconf_manages(const hs_sconf_t *c, const char *partition)
{
	if (c->npartitions == 0)
		return 1;
	if (!partition)
		return 0;
	for (int i = 0; i < c->npartitions; i++)
		if (!strcmp(c->partitions[i], partition))
			return 1;
	return 0;
}

double hs_wlist_get(const hs_wlist_t *l, const char *name)
{
	if (name)
		for (int i = 0; i < l->n; i++)
			if (!strcmp(l->names[i], name))
				return l->w[i];
	return 1.0;
}

const char *hs_preempt_mode_name(hs_preempt_mode_t m)
{
	switch (m) {
	case HS_PREEMPT_REQUEUE:
		return "requeue";
	case HS_PREEMPT_SUSPEND:
		return "suspend";
	case HS_PREEMPT_OFF:
		return "off";
	}
	return "?";
}

int hs_sched_params_ok(const char *params, char *why, size_t len)
{
	int defer = 0, interval = 0;
	const char *p = params ? params : "";
	/* Slurm matches these as case-insensitive substrings; require the
	 * exact comma-separated options so "defer_batch" alone is not taken
	 * for "defer". */
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 5 && !strncasecmp(p, "defer", 5))
			defer = 1;
		if (n == 17 && !strncasecmp(p, "sched_interval=-1", 17))
			interval = 1;
		if (n > 15 && !strncasecmp(p, "sched_interval=", 15) && n != 17)
			interval = 0;
		p += n;
		if (*p == ',')
			p++;
	}
	if (defer && interval)
		return 1;
	snprintf(why, len, "SchedulerParameters=%s lacks %s%s%s: Slurm's built-in scheduler would "
		 "start jobs behind hetsched's back; set SchedulerParameters=defer,sched_interval=-1",
		 params ? params : "(none)", defer ? "" : "defer",
		 !defer && !interval ? " and " : "", interval ? "" : "sched_interval=-1");
	return 0;
}
