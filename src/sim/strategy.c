/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strategy.c — what a strategic user submits, declares and reports
 * (strategy.h): the parser and the per-job transforms the workload
 * (split, pinned) and the simulated Slurm (hints, reports, shape) apply. */
#include "sim/strategy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[HS_STRAT_COUNT] = {
	[HS_STRAT_HONEST] = "honest",
	[HS_STRAT_NO_PREEMPT] = "no-preempt",
	[HS_STRAT_SPLIT] = "split",
	[HS_STRAT_RATIO_SLOW] = "ratio-slow",
	[HS_STRAT_RATIO_FAST] = "ratio-fast",
	[HS_STRAT_FAKE_MODEL] = "fake-model",
	[HS_STRAT_INFLATE_STEPS] = "inflate-steps",
	[HS_STRAT_ODD_SHAPE] = "odd-shape",
	[HS_STRAT_NO_REQUEUE] = "no-requeue",
	[HS_STRAT_DROP_REQUEUE] = "drop-requeue",
};

const char *hs_sim_strategy_name(hs_strategy_kind_t k)
{
	return k >= 0 && k < HS_STRAT_COUNT ? names[k] : "?";
}

static int parse_factor(const char *arg, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* The argument of strategy k (arg NULL: its default). */
static int parse_arg(hs_sim_strategy_t *s, const char *arg, hs_err_t *err)
{
	switch (s->kind) {
	case HS_STRAT_SPLIT:
		s->factor = 8;
		if (arg && (parse_factor(arg, 2, HS_STRAT_SPLIT_MAX, &s->factor) < 0 ||
			    s->factor != floor(s->factor)))
			return hs_err_set(err, "split=K: K is an integer in [2, %d]",
					  HS_STRAT_SPLIT_MAX);
		return 0;
	case HS_STRAT_RATIO_SLOW:
	case HS_STRAT_RATIO_FAST:
	case HS_STRAT_INFLATE_STEPS:
		s->factor = 10;
		if (arg && (parse_factor(arg, 0, 1e6, &s->factor) < 0 || !(s->factor > 0)))
			return hs_err_set(err, "%s=F: F is a number in (0, 1e6]", names[s->kind]);
		return 0;
	case HS_STRAT_FAKE_MODEL:
		snprintf(s->model, sizeof(s->model), "%s", arg ? arg : "max");
		if (!*s->model || strlen(arg ? arg : "") >= sizeof(s->model))
			return hs_err_set(err, "fake-model=M: M is max, min or a model name of "
					  "1..%d characters", HS_STRAT_MODEL_MAX - 1);
		return 0;
	default:
		if (arg)
			return hs_err_set(err, "strategy '%s' takes no argument", names[s->kind]);
		return 0;
	}
}

int hs_sim_strategy_parse(hs_sim_strategy_t *s, const char *spec, hs_err_t *err)
{
	memset(s, 0, sizeof(*s));
	const char *eq = strchr(spec, '=');
	size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
	for (int k = 0; k < HS_STRAT_COUNT; k++)
		if (strlen(names[k]) == n && !strncmp(spec, names[k], n)) {
			s->kind = (hs_strategy_kind_t)k;
			return parse_arg(s, eq ? eq + 1 : NULL, err);
		}
	return hs_err_set(err, "unknown strategy '%.*s' (honest, no-preempt, split[=K], "
			  "ratio-slow[=F], ratio-fast[=F], fake-model[=max|min|MODEL], "
			  "inflate-steps[=F], odd-shape, no-requeue, drop-requeue)", (int)n, spec);
}

void hs_sim_strategy_format(const hs_sim_strategy_t *s, char *buf, size_t n)
{
	const char *name = hs_sim_strategy_name(s->kind);
	switch (s->kind) {
	case HS_STRAT_SPLIT:
	case HS_STRAT_RATIO_SLOW:
	case HS_STRAT_RATIO_FAST:
	case HS_STRAT_INFLATE_STEPS:
		snprintf(buf, n, "%s=%g", name, s->factor);
		break;
	case HS_STRAT_FAKE_MODEL:
		snprintf(buf, n, "%s=%s", name, s->model);
		break;
	default:
		snprintf(buf, n, "%s", name);
	}
}

int hs_sim_strategy_tasks(const hs_sim_strategy_t *s)
{
	return s && s->kind == HS_STRAT_SPLIT ? (int)s->factor : 1;
}

int hs_sim_strategy_pinned(const hs_sim_strategy_t *s)
{
	return s && s->kind == HS_STRAT_NO_PREEMPT;
}

int hs_sim_strategy_requeue_ok(const hs_sim_strategy_t *s)
{
	return !s || s->kind != HS_STRAT_NO_REQUEUE;
}

int hs_sim_strategy_drops_requeue(const hs_sim_strategy_t *s)
{
	return s && s->kind == HS_STRAT_DROP_REQUEUE;
}

int hs_sim_strategy_shape_ok(const hs_sim_strategy_t *s)
{
	return !s || s->kind != HS_STRAT_ODD_SHAPE;
}

double hs_sim_strategy_steps(const hs_sim_strategy_t *s, double steps)
{
	return s && s->kind == HS_STRAT_INFLATE_STEPS ? steps * s->factor : steps;
}

/* Job type jt's fastest over slowest rate on the cluster's types (those
 * it can run on); 0 when it runs on fewer than two. */
static double spread_ratio(const hs_thrtable_t *t, int jt, char *const *tn, int ntypes)
{
	double lo = INFINITY, hi = 0;
	int n = 0;
	for (int k = 0; k < ntypes; k++) {
		double v = hs_thrtable_alone(t, jt, tn[k], 1);
		if (v > 0) {
			lo = fmin(lo, v);
			hi = fmax(hi, v);
			n++;
		}
	}
	return n >= 2 ? hi / lo : 0.0;
}

int hs_sim_strategy_model(const hs_sim_strategy_t *s, const hs_thrtable_t *t, int jt,
			  char *const *tn, int ntypes)
{
	if (!s || s->kind != HS_STRAT_FAKE_MODEL)
		return jt;
	int want_max = !strcmp(s->model, "max"), want_min = !strcmp(s->model, "min");
	if (!want_max && !want_min)
		return hs_thrtable_find(t, s->model, t->sf[jt]);
	/* the most (least) type-sensitive other model of the same scale
	 * factor that runs everywhere the true one does */
	int best = jt;
	double best_r = 0;
	for (int o = 0; o < t->njobtypes; o++) {
		if (o == jt || t->sf[o] != t->sf[jt])
			continue;
		double r = spread_ratio(t, o, tn, ntypes);
		if (!(r > 0))
			continue;
		if (best == jt || (want_max ? r > best_r : r < best_r)) {
			best = o;
			best_r = r;
		}
	}
	return best;
}

double hs_sim_strategy_report(const hs_sim_strategy_t *s, const double *thr, int ntypes,
			      int type, double measured)
{
	if (!s || (s->kind != HS_STRAT_RATIO_SLOW && s->kind != HS_STRAT_RATIO_FAST))
		return measured;
	int fastest = -1;
	for (int k = 0; k < ntypes; k++)
		if (thr[k] > 0 && (fastest < 0 || thr[k] > thr[fastest]))
			fastest = k;
	int lie = s->kind == HS_STRAT_RATIO_FAST ? type == fastest : type != fastest;
	return lie ? measured * s->factor : measured;
}
