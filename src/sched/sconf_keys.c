/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sconf_keys.c — the one table of hetsched.conf's keys: name, type, field,
 * default, range and meaning. It drives the defaults (each default is the
 * text a file would carry, set through the same parser, so a default can
 * never be out of range), hs_sconf_set(), the key list the plugin
 * registers with Slurm's parser, and the configuration log line
 * (hs_sconf_describe). Keys of a plain type (integer, number, yes/no,
 * one of a few words, path) need only their row; the others name a
 * setter and a printer here. hetsched.conf(5) documents every key of the
 * table (test_sched_parts checks both ways). */
#include "sched/sconf.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/mechanism.h"
#include "core/policy.h"
#include "sched/sconf_impl.h"

typedef enum key_kind {
	K_INT,     /* int field, lo..hi */
	K_ULONG,   /* unsigned long field, lo..hi */
	K_DOUBLE,  /* double field, dlo..dhi */
	K_BOOL,    /* int field, 0/1 */
	K_CHOICE,  /* int field: the index of the value in `choices` */
	K_PATH,    /* char * field: an absolute path, NULL = unset */
	K_CUSTOM,  /* `set` and `show` do it */
} key_kind_t;

typedef int (*key_set_fn)(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err);
typedef void (*key_show_fn)(const hs_sconf_t *c, char *buf, size_t len);

typedef struct key_def {
	const char *key;
	key_kind_t kind;
	size_t off;           /* offsetof the field (not K_CUSTOM) */
	const char *def;      /* default as file text; NULL = zero / unset */
	long lo, hi;          /* K_INT, K_ULONG */
	double dlo, dhi;      /* K_DOUBLE */
	const char *choices;  /* K_CHOICE: "a|b|c" */
	key_set_fn set;       /* K_CUSTOM */
	key_show_fn show;     /* K_CUSTOM */
	const char *doc;      /* one line; hetsched.conf(5) says the rest */
} key_def_t;

/* ---- the custom keys -------------------------------------------------------- */

static int set_policy(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	(void)key;
	if (!hs_policy_exists(v)) {
		char names[512] = "";
		for (int i = 0; i < hs_policy_count(); i++) {
			size_t n = strlen(names);
			snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
				 hs_policy_name(i));
		}
		return hs_err_set(err, "Policy=%s: unknown policy (known: %s)", v, names);
	}
	char *s = hs_conf_dup(v);
	if (!s)
		return hs_err_set(err, "out of memory");
	free(c->policy);
	c->policy = s;
	return 0;
}

static void show_policy(const hs_sconf_t *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", c->policy ? c->policy : "");
}

static int set_backfill(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	if (!strcasecmp(v, "auto")) {
		c->backfill = -1;
		return 0;
	}
	return hs_conf_bool(key, v, &c->backfill, err);
}

static void show_backfill(const hs_sconf_t *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", c->backfill < 0 ? "auto" : c->backfill ? "yes" : "no");
}

static void free_n(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
}

/* Paths may contain ':' (hs_conf_names refuses it): split by hand. */
static int set_tables(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	(void)key;
	char *names[HS_SCONF_MAX_TABLES];
	int n = 0;
	const char *p = v;
	while (1) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *s = n < HS_SCONF_MAX_TABLES ? strndup(p, len) : NULL;
		if (n < HS_SCONF_MAX_TABLES && !s) {
			free_n(names, n);
			return hs_err_set(err, "out of memory");
		}
		if (!s || !hs_conf_path_ok(s)) {
			free(s);
			free_n(names, n);
			return hs_err_set(err, "ThroughputTable=%s: expected up to %d absolute "
					  "paths separated by commas", v, HS_SCONF_MAX_TABLES);
		}
		names[n++] = s;
		if (!e)
			break;
		p = e + 1;
	}
	for (int i = 0; i < c->ntables; i++)
		free(c->tables[i]);
	for (int i = 0; i < n; i++)
		c->tables[i] = names[i];
	c->ntables = n;
	return 0;
}

/* names joined by commas, or `none` for an empty list */
static void show_names(char *const *names, int n, const char *none, char *buf, size_t len)
{
	size_t w = 0;
	buf[0] = 0;
	for (int i = 0; i < n && w < len; i++)
		w += (size_t)snprintf(buf + w, len - w, "%s%s", i ? "," : "", names[i]);
	if (n == 0)
		snprintf(buf, len, "%s", none);
}

static void show_tables(const hs_sconf_t *c, char *buf, size_t len)
{
	show_names(c->tables, c->ntables, "none", buf, len);
}

static int set_partitions(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	char **names = NULL;
	int n = 0;
	if (hs_conf_names(key, v, &names, &n, err) < 0)
		return -1;
	hs_conf_strlist_free(c->partitions, c->npartitions);
	c->partitions = names;
	c->npartitions = n;
	return 0;
}

static void show_partitions(const hs_sconf_t *c, char *buf, size_t len)
{
	show_names(c->partitions, c->npartitions, "all", buf, len);
}

static void show_wlist(const hs_wlist_t *l, char *buf, size_t len)
{
	size_t w = 0;
	buf[0] = 0;
	for (int i = 0; i < l->n && w < len; i++) {
		char num[32];
		hs_conf_fmt_double(num, sizeof(num), l->w[i]);
		w += (size_t)snprintf(buf + w, len - w, "%s%s:%s", i ? "," : "", l->names[i], num);
	}
	if (l->n == 0)
		snprintf(buf, len, "none");
}

static int set_wlist(hs_wlist_t *dst, const char *key, const char *v, hs_err_t *err)
{
	hs_wlist_t w;
	if (hs_conf_wlist(key, v, &w, err) < 0)
		return -1;
	hs_conf_wlist_free(dst);
	*dst = w;
	return 0;
}

static int set_qos(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	return set_wlist(&c->qos_weights, key, v, err);
}

static void show_qos(const hs_sconf_t *c, char *buf, size_t len)
{
	show_wlist(&c->qos_weights, buf, len);
}

/* name:weight list, or `shares` (Slurm's fair-share of the account) */
static int set_accounts(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	if (!strcasecmp(v, "shares")) {
		hs_conf_wlist_free(&c->account_weights);
		c->account_shares = 1;
		return 0;
	}
	if (set_wlist(&c->account_weights, key, v, err) < 0)
		return -1;
	c->account_shares = 0;
	return 0;
}

static void show_accounts(const hs_sconf_t *c, char *buf, size_t len)
{
	if (c->account_shares)
		snprintf(buf, len, "shares");
	else
		show_wlist(&c->account_weights, buf, len);
}

/* type:price per GPU-hour; hs_conf_wlist keeps every price in
 * [1e-6, 1e6]: positive and finite */
static int set_prices(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	return set_wlist(&c->gpu_prices, key, v, err);
}

static void show_prices(const hs_sconf_t *c, char *buf, size_t len)
{
	show_wlist(&c->gpu_prices, buf, len);
}

/* An enum field is not an int the table could point at: its own setter. */
static int set_preempt(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	(void)key;
	if (!strcasecmp(v, "requeue"))
		c->preempt = HS_PREEMPT_REQUEUE;
	else if (!strcasecmp(v, "suspend"))
		c->preempt = HS_PREEMPT_SUSPEND;
	else if (!strcasecmp(v, "off"))
		c->preempt = HS_PREEMPT_OFF;
	else
		return hs_err_set(err, "PreemptMode=%s: expected requeue, suspend or off", v);
	return 0;
}

static void show_preempt(const hs_sconf_t *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", hs_preempt_mode_name(c->preempt));
}

/* ---- the table ------------------------------------------------------------------ */

#define HS_STR_(x) #x
#define HS_STR(x) HS_STR_(x)
#define F(field) offsetof(hs_sconf_t, field)
#define INT(k, f, def, lo, hi, doc) { k, K_INT, F(f), def, lo, hi, 0, 0, NULL, NULL, NULL, doc }
#define ULONG(k, f, def, lo, hi, doc) { k, K_ULONG, F(f), def, lo, hi, 0, 0, NULL, NULL, NULL, doc }
#define DBL(k, f, def, lo, hi, doc) { k, K_DOUBLE, F(f), def, 0, 0, lo, hi, NULL, NULL, NULL, doc }
#define BOOL(k, f, def, doc) { k, K_BOOL, F(f), def, 0, 0, 0, 0, NULL, NULL, NULL, doc }
#define CHOICE(k, f, def, ch, doc) { k, K_CHOICE, F(f), def, 0, 0, 0, 0, ch, NULL, NULL, doc }
#define PATH(k, f, doc) { k, K_PATH, F(f), NULL, 0, 0, 0, 0, NULL, NULL, NULL, doc }
#define CUSTOM(k, def, set, show, doc) { k, K_CUSTOM, 0, def, 0, 0, 0, 0, NULL, set, show, doc }

/* Policy and RoundLength lead: the log line starts with them and tests
 * look for that prefix. */
static const key_def_t keys[] = {
	CUSTOM("Policy", "max_min_fairness_water_filling_perf", set_policy, show_policy,
	       "allocation policy (hetsched solve --list)"),
	INT("RoundLength", round_s, HS_STR(HS_ROUND_S_DEFAULT), 1, 86400,
	    "seconds between rounds"),
	INT("MinRoundInterval", min_round_gap_s, "10", 1, 86400,
	    "earliest early round after the previous one, seconds"),
	BOOL("EarlyRounds", early_rounds, "yes", "run a round when GPU jobs arrive or leave"),
	DBL("MinResetInterval", min_reset_s, "0", 0, 1e7,
	    "least seconds between two allocation recomputations"),
	DBL("EstimateResolveFactor", estimate_resolve, "1.5", 0, 1e6,
	    "recompute the allocation when a job's speed ratio between two GPU types (or, under "
	    "time- and throughput-based policies, a speed) moves by more than this factor "
	    "(0: never)"),
	DBL("PreemptCost", preempt_cost_s, "0", 0, 1e6,
	    "checkpoint plus restart seconds charged to a restart"),
	BOOL("RestartAware", restart_aware, "yes",
	     "choose whom to run knowing what a restart costs (no: Gavel's mechanism)"),
	CUSTOM("Backfill", "auto", set_backfill, show_backfill,
	       "use GPUs of a zero-share type when idle: auto, yes or no"),
	CUSTOM("ThroughputTable", NULL, set_tables, show_tables,
	       "Gavel-format throughput tables, absolute paths"),
	CUSTOM("PreemptMode", "requeue", set_preempt, show_preempt,
	       "requeue, suspend or off"),
	/* share since issue 28 ("checkpointing is never a loss"):
	 * under always, pinned jobs finished sooner than the preemptible
	 * ones next to them (doc/policies.md) */
	CHOICE("PinnedAdmission", pinned_always, "share", "share|always",
	       "pending jobs that cannot be preempted: within their group's share, or always"),
	BOOL("PinnedCharge", pinned_charge, "yes",
	     "charge the GPUs running pinned jobs hold to their user and accounts (water filling)"),
	INT("CheckpointGrace", ckpt_grace_s, "60", 0, 86400,
	    "seconds a job may take to checkpoint before its requeue"),
	INT("RestartDelay", restart_delay_s, "1", 0, 3600,
	    "seconds after a requeue before the job may start again"),
	CUSTOM("Partitions", NULL, set_partitions, show_partitions,
	       "managed partitions; none listed = all"),
	BOOL("WeightByPriority", weight_by_priority, "no", "weight jobs by Slurm priority"),
	CUSTOM("QosWeights", NULL, set_qos, show_qos, "weight per QOS, name:weight list"),
	CUSTOM("AccountWeights", NULL, set_accounts, show_accounts,
	       "weight per account, name:weight list or shares"),
	CHOICE("Fairness", fairness, "tree", "tree|accounts|jobs",
	       "shares between accounts and users by the association tree, accounts only, or jobs"),
	CHOICE("EntityMode", entity_fifo, "fairness", "fairness|fifo",
	       "how jobs of one entity share its weight"),
	DBL("SolverTimeLimit", solver_time_limit_s, "30", 0, 3600,
	    "seconds one policy solve may take, 0 = none"),
	INT("PopPartitions", pop_partitions, "1", 1, 64,
	    "split the LP policies' problem into this many random parts (POP)"),
	INT("MaxJobs", max_jobs, "2000", 1, 100000, "most jobs in one round's problem"),
	INT("MaxLockHold", max_lock_hold_ms, "20", 0, 10000,
	    "milliseconds a round holds slurmctld's locks before yielding them, 0 = never"),
	BOOL("CpuJobs", cpu_fill, "yes", "also start jobs without GPUs"),
	INT("CpuFillMax", cpu_fill_max, "100", 0, 100000, "CPU job start attempts per pass"),
	ULONG("Seed", seed, "1", 0, LONG_MAX, "seed of the policies' randomness"),
	DBL("PackThreshold", pack_threshold, "1.5", 0, 100,
	    "least combined speed-up to pack two jobs"),
	BOOL("Debug", debug, "no", "log every decision"),
	PATH("StatusFile", status_file, "status document; unset = StateSaveLocation"),
	DBL("UnknownJobSeconds", unknown_steps_s, "3600", 1, 1e8,
	    "work assumed for a job without HS_STEPS, seconds at its speed"),
	BOOL("Learning", learning, "yes", "learn each kind of job's throughput per GPU type"),
	/* the order is hs_learn_scope_t's */
	CHOICE("LearnScope", learn_scope, "user", "user|account|site",
	       "whose reports a learned kind shares: one user's, one account's or the site's"),
	/* the order is the values of hs_learn_t.matrix_only */
	CHOICE("LearnInference", learn_matrix_only, "nearest", "nearest|matrix",
	       "types a kind has not run on: from the kinds most like it, or one speedup matrix"),
	INT("LearnMaxKinds", learn_max_kinds, "4096", 16, 1000000,
	    "most (kind, GPU count) entries of the learned table"),
	DBL("LearnExplore", learn_explore, "0", 0, 0.5,
	    "share of GPU time spent trying jobs on types not measured for their kind, 0 = off"),
	DBL("RateTableFactor", rate_table_factor, "100", 0, 1e6,
	    "a measured rate within this factor of its model's table value, 0 = off"),
	DBL("RateRatioTolerance", rate_ratio_tol, "1.25", 1, 100,
	    "a job's rate ratio between two GPU types may exceed the largest seen by this"),
	DBL("RateRatioMax", rate_ratio_max, "100", 0, 1e6,
	    "no job's rate ratio between two GPU types above this, 0 = no ceiling"),
	BOOL("RequeueWithoutCheckpoint", requeue_no_ckpt, "no",
	     "also preempt jobs that cannot checkpoint"),
	INT("ApplyDelay", apply_delay_ms, "0", 0, 60000,
	    "testing: milliseconds between solve and apply"),
	CUSTOM("GpuPrices", NULL, set_prices, show_prices,
	       "price per GPU-hour per type, type:price list"),
	PATH("MetricsFile", metrics_file, "OpenMetrics file written after every round"),
};

#define NKEYS ((int)(sizeof(keys) / sizeof(keys[0])))

const char *hs_sconf_key_name(int i)
{
	return i >= 0 && i < NKEYS ? keys[i].key : NULL;
}

static const key_def_t *find(const char *key)
{
	for (int i = 0; i < NKEYS; i++)
		if (!strcasecmp(keys[i].key, key))
			return &keys[i];
	return NULL;
}

/* "a|b|c" -> "a, b or c" for messages; the index of v in it, or -1. */
static int choice_index(const char *choices, const char *v, char *list, size_t len)
{
	int idx = -1, n = 0;
	size_t w = 0;
	list[0] = 0;
	for (const char *p = choices; *p; n++) {
		size_t l = strcspn(p, "|");
		if (strlen(v) == l && !strncasecmp(p, v, l))
			idx = n;
		const char *sep = !n ? "" : p[l] ? ", " : " or ";
		if (w < len)
			w += (size_t)snprintf(list + w, len - w, "%s%.*s", sep, (int)l, p);
		p += l + (p[l] == '|');
	}
	return idx;
}

static int set_plain(hs_sconf_t *c, const key_def_t *k, const char *v, hs_err_t *err)
{
	void *field = (char *)c + k->off;
	long l;
	switch (k->kind) {
	case K_INT:
		if (hs_conf_long(k->key, v, k->lo, k->hi, &l, err) < 0)
			return -1;
		*(int *)field = (int)l;
		return 0;
	case K_ULONG:
		if (hs_conf_long(k->key, v, k->lo, k->hi, &l, err) < 0)
			return -1;
		*(unsigned long *)field = (unsigned long)l;
		return 0;
	case K_DOUBLE:
		return hs_conf_double(k->key, v, k->dlo, k->dhi, (double *)field, err);
	case K_BOOL:
		return hs_conf_bool(k->key, v, (int *)field, err);
	case K_CHOICE: {
		char list[256];
		int idx = choice_index(k->choices, v, list, sizeof(list));
		if (idx < 0)
			return hs_err_set(err, "%s=%s: expected %s", k->key, v, list);
		*(int *)field = idx;
		return 0;
	}
	case K_PATH: {
		if (!hs_conf_path_ok(v))
			return hs_err_set(err, "%s=%s: expected an absolute path", k->key, v);
		char *s = hs_conf_dup(v);
		if (!s)
			return hs_err_set(err, "out of memory");
		free(*(char **)field);
		*(char **)field = s;
		return 0;
	}
	case K_CUSTOM:
		break;
	}
	return k->set(c, k->key, v, err);
}

int hs_sconf_set(hs_sconf_t *c, const char *key, const char *v, hs_err_t *err)
{
	if (!key || !v)
		return hs_err_set(err, "missing key or value");
	if (strlen(v) > HS_CONF_MAX_VALUE)
		return hs_err_set(err, "%s: value longer than %d bytes", key, HS_CONF_MAX_VALUE);
	if (!*v)
		return hs_err_set(err, "%s: empty value", key);
	const key_def_t *k = find(key);
	if (!k)
		return hs_err_set(err, "unknown key '%s'", key);
	return set_plain(c, k, v, err);
}

int hs_sconf_defaults(hs_sconf_t *c, hs_err_t *err)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < NKEYS; i++) {
		hs_err_t e2;
		if (keys[i].def && hs_sconf_set(c, keys[i].key, keys[i].def, &e2) < 0) {
			hs_sconf_free(c);
			return hs_err_set(err, "default %s", e2.msg);
		}
	}
	return 0;
}

static void show_value(const hs_sconf_t *c, const key_def_t *k, char *buf, size_t len)
{
	const void *field = (const char *)c + k->off;
	switch (k->kind) {
	case K_INT:
		snprintf(buf, len, "%d", *(const int *)field);
		return;
	case K_ULONG:
		snprintf(buf, len, "%lu", *(const unsigned long *)field);
		return;
	case K_DOUBLE:
		hs_conf_fmt_double(buf, len, *(const double *)field);
		return;
	case K_BOOL:
		snprintf(buf, len, "%s", *(const int *)field ? "yes" : "no");
		return;
	case K_CHOICE: {
		const char *p = k->choices;
		for (int i = *(const int *)field; i > 0 && strchr(p, '|'); i--)
			p = strchr(p, '|') + 1;
		snprintf(buf, len, "%.*s", (int)strcspn(p, "|"), p);
		return;
	}
	case K_PATH:
		snprintf(buf, len, "%s", *(char *const *)field ? *(char *const *)field : "none");
		return;
	case K_CUSTOM:
		k->show(c, buf, len);
		return;
	}
}

int hs_sconf_describe(const hs_sconf_t *c, char *buf, size_t len)
{
	size_t w = 0;
	if (len)
		buf[0] = 0;
	for (int i = 0; i < NKEYS && w < len; i++) {
		char v[1024];
		show_value(c, &keys[i], v, sizeof(v));
		w += (size_t)snprintf(buf + w, len - w, "%s%s=%s", i ? " " : "", keys[i].key, v);
	}
	return (int)w;
}

/* Every key with a value, one "Key=Value" line each. A key without a
 * default whose value is still the defaults' one is unset (its printed
 * form, such as "none", is no value the parser takes) and left out. */
char *hs_sconf_write_text(const hs_sconf_t *c, hs_err_t *err)
{
	hs_sconf_t d;
	if (hs_sconf_defaults(&d, err) < 0)
		return NULL;
	size_t cap = 1024, w = 0;
	char *out = malloc(cap), v[HS_CONF_MAX_VALUE + 64], dv[HS_CONF_MAX_VALUE + 64];
	for (int i = 0; out && i < NKEYS; i++) {
		show_value(c, &keys[i], v, sizeof(v));
		if (!keys[i].def) {
			show_value(&d, &keys[i], dv, sizeof(dv));
			if (!strcmp(v, dv))
				continue;
		}
		/* the readers cut a line at '#' and trim blanks */
		if (strlen(v) > HS_CONF_MAX_VALUE || strpbrk(v, "#\n\r") || isspace((unsigned char)*v) ||
		    (*v && isspace((unsigned char)v[strlen(v) - 1]))) {
			hs_err_set(err, "%s=%s: cannot be written back as a hetsched.conf line",
				   keys[i].key, v);
			free(out);
			hs_sconf_free(&d);
			return NULL;
		}
		size_t need = strlen(keys[i].key) + strlen(v) + 3;
		if (w + need > cap) {
			char *n = realloc(out, cap = 2 * cap + need);
			if (!n)
				free(out);
			out = n;
			if (!out)
				break;
		}
		w += (size_t)snprintf(out + w, cap - w, "%s=%s\n", keys[i].key, v);
	}
	hs_sconf_free(&d);
	if (!out)
		hs_err_set(err, "out of memory");
	else if (!w)
		out[0] = 0;
	return out;
}
