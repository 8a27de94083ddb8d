/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sconf.c — hetsched.conf values: defaults, per-key conversion with range
 * checks, cross-key checks, deep copy (see sconf.h). */
#include "sched/sconf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/policy.h"

const char *const hs_sconf_keys[] = {
	"Policy", "RoundLength", "MinRoundInterval", "EarlyRounds",
	"MinResetInterval", "PreemptCost", "Backfill", "ThroughputTable",
	"PreemptMode", "CheckpointGrace", "RestartDelay", "Partitions",
	"WeightByPriority", "QosWeights", "AccountWeights", "EntityMode",
	"SolverTimeLimit", "MaxJobs", "CpuJobs", "CpuFillMax", "Seed",
	"PackThreshold", "Debug", "StatusFile", "UnknownJobSeconds",
	"RequeueWithoutCheckpoint", "ApplyDelay", "GpuPrices", "MetricsFile",
	"PinnedAdmission", NULL,
};

/* Longest accepted value (paths, lists): far above any sane entry. */
#define MAX_VALUE 4096
#define MAX_LIST 256

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static void wlist_free(hs_wlist_t *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	free(l->w);
	memset(l, 0, sizeof(*l));
}

static void strlist_free(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void hs_sconf_free(hs_sconf_t *c)
{
	if (!c)
		return;
	free(c->policy);
	for (int i = 0; i < c->ntables; i++)
		free(c->tables[i]);
	strlist_free(c->partitions, c->npartitions);
	wlist_free(&c->qos_weights);
	wlist_free(&c->account_weights);
	wlist_free(&c->gpu_prices);
	free(c->status_file);
	free(c->metrics_file);
	memset(c, 0, sizeof(*c));
}

int hs_sconf_defaults(hs_sconf_t *c, hs_err_t *err)
{
	memset(c, 0, sizeof(*c));
	c->policy = dup_str("max_min_fairness_perf");
	if (!c->policy)
		return hs_err_set(err, "out of memory");
	c->round_s = 360;
	c->min_round_gap_s = 10;
	c->early_rounds = 1;
	c->min_reset_s = 0;
	c->preempt_cost_s = 0;
	c->backfill = -1;
	c->preempt = HS_PREEMPT_REQUEUE;
	/* PinnedAdmission=always (the old behaviour) stays the default until
	 * the integration suite has run with share (doc/policies.md). */
	c->pinned_always = 1;
	c->ckpt_grace_s = 60;
	c->restart_delay_s = 1;
	c->weight_by_priority = 0;
	c->entity_fifo = 0;
	c->solver_time_limit_s = 30;
	c->max_jobs = 2000;
	c->cpu_fill = 1;
	c->cpu_fill_max = 100;
	c->seed = 1;
	c->pack_threshold = 1.5;
	c->debug = 0;
	c->apply_delay_ms = 0;
	c->unknown_steps_s = 3600;
	return 0;
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
		if (!(d->names[i] = dup_str(s->names[i])))
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
	if (!(dst->policy = dup_str(src->policy)))
		goto oom;
	for (int i = 0; i < src->ntables; i++) {
		if (!(dst->tables[i] = dup_str(src->tables[i])))
			goto oom;
		dst->ntables = i + 1;
	}
	if (src->npartitions) {
		dst->partitions = calloc((size_t)src->npartitions, sizeof(char *));
		if (!dst->partitions)
			goto oom;
		for (int i = 0; i < src->npartitions; i++) {
			if (!(dst->partitions[i] = dup_str(src->partitions[i])))
				goto oom;
			dst->npartitions = i + 1;
		}
	}
	if (wlist_copy(&dst->qos_weights, &src->qos_weights) < 0 ||
	    wlist_copy(&dst->account_weights, &src->account_weights) < 0 ||
	    wlist_copy(&dst->gpu_prices, &src->gpu_prices) < 0)
		goto oom;
	if (src->status_file && !(dst->status_file = dup_str(src->status_file)))
		goto oom;
	if (src->metrics_file && !(dst->metrics_file = dup_str(src->metrics_file)))
		goto oom;
	return 0;
oom:
	hs_sconf_free(dst);
	return hs_err_set(err, "out of memory");
}

/* ---- value parsers ---------------------------------------------------------- */

static int parse_long(const char *key, const char *v, long lo, long hi, long *out,
		      hs_err_t *err)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi)
		return hs_err_set(err, "%s=%s: expected an integer in %ld..%ld", key, v, lo, hi);
	*out = x;
	return 0;
}

static int parse_double(const char *key, const char *v, double lo, double hi, double *out,
			hs_err_t *err)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(x) || x < lo || x > hi)
		return hs_err_set(err, "%s=%s: expected a number in %g..%g", key, v, lo, hi);
	*out = x;
	return 0;
}

static int parse_bool(const char *key, const char *v, int *out, hs_err_t *err)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1")) {
		*out = 1;
		return 0;
	}
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0")) {
		*out = 0;
		return 0;
	}
	return hs_err_set(err, "%s=%s: expected yes or no", key, v);
}

/* A name in a list: printable, no separators or spaces, 1..255 bytes. */
static int name_ok(const char *s, size_t n)
{
	if (n == 0 || n > 255)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (!isgraph(ch) || ch == ',' || ch == ':' || ch == '=')
			return 0;
	}
	return 1;
}

/* Splits "a,b,c" into names (validated). */
static int parse_names(const char *key, const char *v, char ***out, int *nout, hs_err_t *err)
{
	char **names = NULL;
	int n = 0;
	const char *p = v;
	while (1) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!name_ok(p, len)) {
			strlist_free(names, n);
			return hs_err_set(err, "%s=%s: expected a comma-separated list of names", key, v);
		}
		if (n >= MAX_LIST) {
			strlist_free(names, n);
			return hs_err_set(err, "%s: more than %d entries", key, MAX_LIST);
		}
		char **nn = realloc(names, (size_t)(n + 1) * sizeof(*nn));
		if (!nn) {
			strlist_free(names, n);
			return hs_err_set(err, "out of memory");
		}
		names = nn;
		if (!(names[n] = strndup(p, len))) {
			strlist_free(names, n);
			return hs_err_set(err, "out of memory");
		}
		n++;
		if (!e)
			break;
		p = e + 1;
	}
	*out = names;
	*nout = n;
	return 0;
}

/* "name:w,name:w" with w > 0. */
static int parse_wlist(const char *key, const char *v, hs_wlist_t *out, hs_err_t *err)
{
	char **items = NULL;
	int n = 0;
	hs_wlist_t l = { 0 };
	/* Split on ',' first (names may not contain ':' so the last ':' splits). */
	const char *p = v;
	while (1) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		if (!colon || !name_ok(p, (size_t)(colon - p))) {
			wlist_free(&l);
			strlist_free(items, n);
			return hs_err_set(err, "%s=%s: expected name:weight[,name:weight...]", key, v);
		}
		char num[64];
		size_t nl = len - (size_t)(colon - p) - 1;
		if (nl == 0 || nl >= sizeof(num)) {
			wlist_free(&l);
			return hs_err_set(err, "%s=%s: expected name:weight[,name:weight...]", key, v);
		}
		memcpy(num, colon + 1, nl);
		num[nl] = 0;
		double w;
		if (parse_double(key, num, 1e-6, 1e6, &w, err) < 0) {
			wlist_free(&l);
			return -1;
		}
		if (l.n >= MAX_LIST) {
			wlist_free(&l);
			return hs_err_set(err, "%s: more than %d entries", key, MAX_LIST);
		}
		char **nn = realloc(l.names, (size_t)(l.n + 1) * sizeof(*nn));
		if (nn)
			l.names = nn;
		double *nw = nn ? realloc(l.w, (size_t)(l.n + 1) * sizeof(*nw)) : NULL;
		if (nw)
			l.w = nw;
		if (!nn || !nw || !(l.names[l.n] = strndup(p, (size_t)(colon - p)))) {
			wlist_free(&l);
			return hs_err_set(err, "out of memory");
		}
		for (int i = 0; i < l.n; i++)
			if (!strcmp(l.names[i], l.names[l.n])) {
				free(l.names[l.n]);
				wlist_free(&l);
				return hs_err_set(err, "%s: '%.*s' listed twice", key,
						  (int)(colon - p), p);
			}
		l.w[l.n++] = w;
		if (!e)
			break;
		p = e + 1;
	}
	*out = l;
	return 0;
}

/* An absolute path without control characters. */
static int path_ok(const char *v)
{
	if (v[0] != '/')
		return 0;
	for (const char *p = v; *p; p++)
		if (iscntrl((unsigned char)*p))
			return 0;
	return 1;
}

/* ---- hs_sconf_set ------------------------------------------------------------- */

int hs_sconf_set(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	long l;
	double d;
	if (!key || !v)
		return hs_err_set(err, "missing key or value");
	if (strlen(v) > MAX_VALUE)
		return hs_err_set(err, "%s: value longer than %d bytes", key, MAX_VALUE);
	if (!*v)
		return hs_err_set(err, "%s: empty value", key);

	if (!strcasecmp(key, "Policy")) {
		if (!hs_policy_exists(v)) {
			char names[512] = "";
			for (int i = 0; i < hs_policy_count(); i++) {
				size_t n = strlen(names);
				snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
					 hs_policy_name(i));
			}
			return hs_err_set(err, "Policy=%s: unknown policy (known: %s)", v, names);
		}
		char *s = dup_str(v);
		if (!s)
			return hs_err_set(err, "out of memory");
		free(c->policy);
		c->policy = s;
	} else if (!strcasecmp(key, "RoundLength")) {
		if (parse_long(key, v, 1, 86400, &l, err) < 0)
			return -1;
		c->round_s = (int)l;
	} else if (!strcasecmp(key, "MinRoundInterval")) {
		if (parse_long(key, v, 1, 86400, &l, err) < 0)
			return -1;
		c->min_round_gap_s = (int)l;
	} else if (!strcasecmp(key, "EarlyRounds")) {
		return parse_bool(key, v, &c->early_rounds, err);
	} else if (!strcasecmp(key, "MinResetInterval")) {
		return parse_double(key, v, 0, 1e7, &c->min_reset_s, err);
	} else if (!strcasecmp(key, "PreemptCost")) {
		return parse_double(key, v, 0, 1e6, &c->preempt_cost_s, err);
	} else if (!strcasecmp(key, "Backfill")) {
		if (!strcasecmp(v, "auto")) {
			c->backfill = -1;
			return 0;
		}
		return parse_bool(key, v, &c->backfill, err);
	} else if (!strcasecmp(key, "ThroughputTable")) {
		/* Paths may contain ':' (parse_names refuses it): split by hand. */
		char **names = NULL;
		int n = 0;
		const char *p = v;
		int bad = 0;
		while (!bad) {
			const char *e = strchr(p, ',');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			char *s = strndup(p, len);
			if (!s) {
				bad = 2;
				break;
			}
			if (!path_ok(s) || n >= HS_SCONF_MAX_TABLES) {
				free(s);
				bad = 1;
				break;
			}
			char **nn = realloc(names, (size_t)(n + 1) * sizeof(*nn));
			if (!nn) {
				free(s);
				bad = 2;
				break;
			}
			names = nn;
			names[n++] = s;
			if (!e)
				break;
			p = e + 1;
		}
		if (bad) {
			strlist_free(names, n);
			return bad == 2 ? hs_err_set(err, "out of memory")
					: hs_err_set(err, "ThroughputTable=%s: expected up to %d absolute "
						     "paths separated by commas", v, HS_SCONF_MAX_TABLES);
		}
		for (int i = 0; i < c->ntables; i++)
			free(c->tables[i]);
		for (int i = 0; i < n; i++)
			c->tables[i] = names[i];
		c->ntables = n;
		free(names);
	} else if (!strcasecmp(key, "PreemptMode")) {
		if (!strcasecmp(v, "requeue"))
			c->preempt = HS_PREEMPT_REQUEUE;
		else if (!strcasecmp(v, "suspend"))
			c->preempt = HS_PREEMPT_SUSPEND;
		else if (!strcasecmp(v, "off"))
			c->preempt = HS_PREEMPT_OFF;
		else
			return hs_err_set(err, "PreemptMode=%s: expected requeue, suspend or off", v);
	} else if (!strcasecmp(key, "PinnedAdmission")) {
		if (!strcasecmp(v, "share"))
			c->pinned_always = 0;
		else if (!strcasecmp(v, "always"))
			c->pinned_always = 1;
		else
			return hs_err_set(err, "PinnedAdmission=%s: expected share or always", v);
	} else if (!strcasecmp(key, "RequeueWithoutCheckpoint")) {
		return parse_bool(key, v, &c->requeue_no_ckpt, err);
	} else if (!strcasecmp(key, "CheckpointGrace")) {
		if (parse_long(key, v, 0, 86400, &l, err) < 0)
			return -1;
		c->ckpt_grace_s = (int)l;
	} else if (!strcasecmp(key, "RestartDelay")) {
		if (parse_long(key, v, 0, 3600, &l, err) < 0)
			return -1;
		c->restart_delay_s = (int)l;
	} else if (!strcasecmp(key, "Partitions")) {
		char **names = NULL;
		int n = 0;
		if (parse_names(key, v, &names, &n, err) < 0)
			return -1;
		strlist_free(c->partitions, c->npartitions);
		c->partitions = names;
		c->npartitions = n;
	} else if (!strcasecmp(key, "WeightByPriority")) {
		return parse_bool(key, v, &c->weight_by_priority, err);
	} else if (!strcasecmp(key, "QosWeights")) {
		hs_wlist_t w;
		if (parse_wlist(key, v, &w, err) < 0)
			return -1;
		wlist_free(&c->qos_weights);
		c->qos_weights = w;
	} else if (!strcasecmp(key, "AccountWeights")) {
		if (!strcasecmp(v, "shares")) {
			wlist_free(&c->account_weights);
			c->account_shares = 1;
			return 0;
		}
		hs_wlist_t w;
		if (parse_wlist(key, v, &w, err) < 0)
			return -1;
		wlist_free(&c->account_weights);
		c->account_weights = w;
		c->account_shares = 0;
	} else if (!strcasecmp(key, "GpuPrices")) {
		/* type:price per GPU-hour; parse_wlist keeps every price in
		 * [1e-6, 1e6]: positive and finite */
		hs_wlist_t w;
		if (parse_wlist(key, v, &w, err) < 0)
			return -1;
		wlist_free(&c->gpu_prices);
		c->gpu_prices = w;
	} else if (!strcasecmp(key, "EntityMode")) {
		if (!strcasecmp(v, "fairness"))
			c->entity_fifo = 0;
		else if (!strcasecmp(v, "fifo"))
			c->entity_fifo = 1;
		else
			return hs_err_set(err, "EntityMode=%s: expected fairness or fifo", v);
	} else if (!strcasecmp(key, "SolverTimeLimit")) {
		return parse_double(key, v, 0, 3600, &c->solver_time_limit_s, err);
	} else if (!strcasecmp(key, "MaxJobs")) {
		if (parse_long(key, v, 1, 100000, &l, err) < 0)
			return -1;
		c->max_jobs = (int)l;
	} else if (!strcasecmp(key, "CpuJobs")) {
		return parse_bool(key, v, &c->cpu_fill, err);
	} else if (!strcasecmp(key, "CpuFillMax")) {
		if (parse_long(key, v, 0, 100000, &l, err) < 0)
			return -1;
		c->cpu_fill_max = (int)l;
	} else if (!strcasecmp(key, "Seed")) {
		if (parse_long(key, v, 0, LONG_MAX, &l, err) < 0)
			return -1;
		c->seed = (unsigned long)l;
	} else if (!strcasecmp(key, "PackThreshold")) {
		return parse_double(key, v, 0, 100, &c->pack_threshold, err);
	} else if (!strcasecmp(key, "Debug")) {
		return parse_bool(key, v, &c->debug, err);
	} else if (!strcasecmp(key, "ApplyDelay")) {
		if (parse_long(key, v, 0, 60000, &l, err) < 0)
			return -1;
		c->apply_delay_ms = (int)l;
	} else if (!strcasecmp(key, "StatusFile") || !strcasecmp(key, "MetricsFile")) {
		if (!path_ok(v))
			return hs_err_set(err, "%s=%s: expected an absolute path",
					  !strcasecmp(key, "StatusFile") ? "StatusFile" : "MetricsFile",
					  v);
		char *s = dup_str(v);
		if (!s)
			return hs_err_set(err, "out of memory");
		char **dst = !strcasecmp(key, "StatusFile") ? &c->status_file : &c->metrics_file;
		free(*dst);
		*dst = s;
	} else if (!strcasecmp(key, "UnknownJobSeconds")) {
		if (parse_double(key, v, 1, 1e8, &d, err) < 0)
			return -1;
		c->unknown_steps_s = d;
	} else {
		return hs_err_set(err, "unknown key '%s'", key);
	}
	return 0;
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
	if (c->min_round_gap_s > c->round_s)
		return hs_err_set(err, "MinRoundInterval=%d is longer than RoundLength=%d",
				  c->min_round_gap_s, c->round_s);
	return 0;
}

/* ---- text reader (tests, CLI) ----------------------------------------------- */

int hs_sconf_parse_text(hs_sconf_t *c, const char *text, hs_err_t *err)
{
	int lineno = 0;
	const char *p = text;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		lineno++;
		char *line = strndup(p, len);
		if (!line)
			return hs_err_set(err, "out of memory");
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		char *end = s + strlen(s);
		while (end > s && isspace((unsigned char)end[-1]))
			*--end = 0;
		if (*s) {
			char *eq = strchr(s, '=');
			if (!eq) {
				free(line);
				return hs_err_set(err, "line %d: expected Key=Value", lineno);
			}
			*eq = 0;
			char *k = s, *v = eq + 1;
			char *ke = k + strlen(k);
			while (ke > k && isspace((unsigned char)ke[-1]))
				*--ke = 0;
			while (isspace((unsigned char)*v))
				v++;
			hs_err_t e2;
			if (hs_sconf_set(c, k, v, &e2) < 0) {
				free(line);
				return hs_err_set(err, "line %d: %s", lineno, e2.msg);
			}
		}
		free(line);
		p = e ? e + 1 : NULL;
	}
	return hs_sconf_check(c, err);
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

int hs_sconf_describe(const hs_sconf_t *c, char *buf, size_t len)
{
	return snprintf(buf, len,
			"Policy=%s RoundLength=%d PreemptMode=%s CheckpointGrace=%d "
			"ThroughputTables=%d Partitions=%d MinResetInterval=%g EarlyRounds=%s",
			c->policy, c->round_s, hs_preempt_mode_name(c->preempt),
			c->ckpt_grace_s, c->ntables, c->npartitions, c->min_reset_s,
			c->early_rounds ? "yes" : "no");
}
