/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_wf_chain.c — saturation chains: many rounds of water filling
 * settled by a few LPs, exactly.
 *
 * Why: when some jobs can reach more than the cluster gives the others
 * (a big account's jobs, an idle type), each water-filling round is
 * bounded by ONE job reaching rmax, all its time on its best types
 * (class c: rmax_c, a fractional knapsack over the types open to it
 * within capacity, policy_wf_closed.c). That job is frozen, the weights
 * of its leaf's and its ancestors' siblings change, and the next round is
 * bounded by the next such job: with distinct jobs, one LP1 and one probe
 * LP per job (4,096 jobs in 8 accounts: 135 such rounds, 270 LPs of up
 * to 2,600 rows).
 *
 * Such a "saturation round" i is decided without an LP if capacity does
 * not bind: with the weights w^i of the frozen set S_i, its level is
 * z_i = min over unfrozen c of rmax_c / w^i_c and the classes reaching it
 * (all of them, ties to TIE_TOL: the real method freezes every stuck
 * class of a round before the weights change) are frozen at rmax.
 * Replaying that rule gives a chain S_0 < S_1 < ... < S_K from the
 * weights alone (O(entities) a step). Round i of the real method is step
 * i exactly when the demands D_i (frozen classes at their levels, the
 * others at z_i w^i_c) can be met with every unfrozen class other than
 * the saturating ones strictly above its demand: then LP1's z* is z_i
 * (the saturating classes bound it, no capacity does) and they are the
 * only stuck ones. Each of them is frozen at its rmax whatever happens
 * next, so after k proven steps the state is the real method's after k
 * rounds.
 *
 * Check k, one LP (alloc_lp's MAXMIN with t for z, capped at 1): the
 * chain's classes demand t rmax_c, the other unfrozen ones t (1 + delta)
 * Dmax_c with Dmax_c = max over steps i < k of their demand z_i w^i_c
 * (less their charge q^i_c when their entity holds GPUs: the demand is
 * z w' - q, and saturation is at z w' - q = rmax),
 * earlier frozen ones their level. t* = 1 (the chain's classes cap t at
 * 1) shows one allocation meeting every D_i (i < k) with each
 * non-saturating class strictly above (by delta = 1e-6, the method's
 * improvement tolerance): the first k steps are rounds of the real
 * method. A class that would be stuck within delta of its demand makes
 * the check fail, and the rounds are then left to the LP method: failing
 * is always safe.
 *
 * Valid prefixes are monotone in k (a solution for k serves every
 * smaller k), so the longest is searched for. A necessary condition
 * narrows it for free: for any capacity prices pi >= 0, demands d can be
 * met only if sum_c n_c s_c cost_c(d_c; pi) <= pi . cap, cost_c being
 * the cheapest way for class c to deliver d_c under pi (weak duality);
 * the prices of the last LP, of every failed check, and uniform ones
 * (GPU time, on all types and on the open ones) are used. After two
 * failed checks the next candidate is where the line through their t*
 * reaches 1 (a secant step), else the middle.
 */
#include "core/policy_wf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHAIN_DELTA 1e-6    /* strict improvement asked of unfrozen classes */
#define CHECK_TOL 1e-7      /* t* >= 1 - CHECK_TOL: the check holds */
#define MAX_PRICES 8        /* price vectors kept for the necessary condition */
#define MAX_CHECKS 24       /* check LPs per chain (a binary search needs ~log2 C) */
#define CHECK_ITER_MAX 2000 /* simplex iterations per LP of a check: beyond,
                             * the check is given up (below) */
#define TIE_TOL 1e-7        /* saturation z_sat equal to this: one round (as
                             * the probe rounds of policy_hierarchical.c) */

typedef struct chain {
	hs_wf_t *s;
	int E, C, J;
	int *lstart;      /* [E + 2] class lists per leaf; list E: jobs without entity */
	int *lcls;        /* [C] */
	char *fifo;       /* [E + 1] the list serves its oldest job first */
	/* replay state */
	char *cf;         /* [C] frozen before the chain or by the replay */
	int *head;        /* [E + 1] first possibly unfrozen position in the list */
	int *left;        /* [E + 1] unfrozen classes in the list */
	double *wsum;     /* [E + 1] their job weights times class sizes */
	double *lam;      /* [E + 1] largest demand factor so far (see demands()) */
	char *act;        /* [E] */
	double *W;        /* [E] */
	double *Q;        /* [E] charges (held GPUs, fairtree.h), 0 without */
	int *seq;         /* [C] the chain's classes, in the order they froze */
	int nseq;
	double z0;        /* step 0's level */
	/* the necessary condition */
	double *prices;   /* [MAX_PRICES * J] */
	int np;
	double *d;        /* [C] demands of a check (alpha; beta for frozen ones) */
} chain_t;

static double jobw(const hs_wf_t *s, int c)
{
	return s->p->jobs[s->cl.rep[c]].weight;
}

static int leaf_of(const hs_wf_t *s, int c, int E)
{
	int e = s->p->jobs[s->cl.rep[c]].entity;
	return e >= 0 ? e : E;
}

static void chain_free(chain_t *ch)
{
	free(ch->lstart);
	free(ch->lcls);
	free(ch->fifo);
	free(ch->cf);
	free(ch->head);
	free(ch->left);
	free(ch->wsum);
	free(ch->lam);
	free(ch->act);
	free(ch->W);
	free(ch->Q);
	free(ch->seq);
	free(ch->prices);
	free(ch->d);
}

typedef struct skey {
	double key;
	const char *id;
	int c;
} skey_t;

static int cmp_skey(const void *x, const void *y)
{
	const skey_t *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	int r = strcmp(a->id, b->id);
	return r ? r : (a->c > b->c) - (a->c < b->c);
}

/* The classes of each leaf (and of the jobs without entity, list E) in
 * the order they can saturate: fairness lists by rmax / job weight
 * (inside a leaf every class's w' is proportional to its job weight,
 * whatever the leaf's share), fifo lists oldest first (hs_wf_older's
 * order: age, then id). */
static int chain_init(chain_t *ch, hs_wf_t *s, hs_err_t *err)
{
	const int E = s->p->entities.n, C = s->C, J = s->J;
	memset(ch, 0, sizeof(*ch));
	ch->s = s;
	ch->E = E;
	ch->C = C;
	ch->J = J;
	ch->lstart = calloc((size_t)E + 3, sizeof(int));
	ch->lcls = malloc(((size_t)C + 1) * sizeof(int));
	ch->fifo = calloc((size_t)E + 2, 1);
	ch->cf = malloc((size_t)C + 1);
	ch->head = malloc(((size_t)E + 2) * sizeof(int));
	ch->left = malloc(((size_t)E + 2) * sizeof(int));
	ch->wsum = malloc(((size_t)E + 2) * sizeof(double));
	ch->lam = malloc(((size_t)E + 2) * sizeof(double));
	ch->act = calloc((size_t)E + 1, 1);
	ch->W = calloc((size_t)E + 1, sizeof(double));
	ch->Q = calloc((size_t)E + 1, sizeof(double));
	ch->seq = malloc(((size_t)C + 1) * sizeof(int));
	ch->prices = malloc((size_t)MAX_PRICES * J * sizeof(double));
	ch->d = malloc(((size_t)C + 1) * sizeof(double));
	skey_t *k = malloc(((size_t)C + 1) * sizeof(*k));
	if (!ch->lstart || !ch->lcls || !ch->fifo || !ch->cf || !ch->head || !ch->left || !ch->wsum ||
	    !ch->lam || !ch->act || !ch->W || !ch->Q || !ch->seq || !ch->prices || !ch->d || !k) {
		free(k);
		return hs_err_set(err, "out of memory");
	}
	for (int e = 0; e < E; e++)
		ch->fifo[e] = s->p->entities.mode[e] == HS_ENTITY_FIFO;
	for (int c = 0; c < C; c++)
		ch->lstart[leaf_of(s, c, E) + 2]++;
	for (int L = 0; L <= E; L++)
		ch->lstart[L + 2] += ch->lstart[L + 1];
	for (int c = 0; c < C; c++) {
		int L = leaf_of(s, c, E), m = s->cl.rep[c];
		double key = ch->fifo[L] ? -s->p->jobs[m].age_s : s->rmaxo[c] / jobw(s, c);
		k[ch->lstart[L + 1]++] = (skey_t){ key, s->p->jobs[m].id, c };
	}
	/* lstart[L] .. lstart[L + 1] is list L now */
	for (int L = 0; L <= E; L++) {
		int n = ch->lstart[L + 1] - ch->lstart[L];
		qsort(k + ch->lstart[L], (size_t)n, sizeof(*k), cmp_skey);
	}
	for (int i = 0; i < C; i++)
		ch->lcls[i] = k[i].c;
	free(k);
	return 0;
}

/* A list's demand factor under the entity weights W: a class of it
 * demands z f (fifo: its head only) or z f times its job weight. */
static double list_factor(const chain_t *ch, int L)
{
	if (L == ch->E)
		return 1.0; /* without entity: w' is the job's own weight */
	return ch->fifo[L] ? ch->W[L] : ch->W[L] / ch->wsum[L];
}

/* A list's charge term: a class of it demands z f - g (fifo: its head
 * only) or that times its job weight; g = its leaf's charge Q split as
 * the weight is (policy_hierarchical.c's q). Within a list the order by
 * rmax / job weight is still the order of saturation: g / f = Q / W is
 * the same for all its classes. */
static double list_charge(const chain_t *ch, int L)
{
	if (L == ch->E || !ch->s->charged)
		return 0.0;
	return ch->fifo[L] ? ch->Q[L] : ch->Q[L] / ch->wsum[L];
}

/* The first unfrozen class of list L (it has one). */
static int list_head(chain_t *ch, int L)
{
	while (ch->cf[ch->lcls[ch->lstart[L] + ch->head[L]]])
		ch->head[L]++;
	return ch->lcls[ch->lstart[L] + ch->head[L]];
}

/* z at which class c of list L saturates under the current weights:
 * z w' - q = rmax. */
static double sat_z(const chain_t *ch, int L, int c)
{
	double jw = ch->fifo[L] ? 1.0 : jobw(ch->s, c);
	return (ch->s->rmaxo[c] + list_charge(ch, L) * jw) / (list_factor(ch, L) * jw);
}

/* Starts again from the state before the chain and makes up to k steps
 * (fewer when every class is frozen); returns how many. A step is a
 * round: every class whose z_sat is the smallest, to TIE_TOL, saturates
 * in it, under the same weights (water filling freezes all stuck
 * classes of a round before the weights change; freezing tied ones one
 * by one with new weights in between would take another path). seq
 * gets the classes frozen, nseq how many. lam[L] ends as the largest z_i
 * f_L - g_L over those steps, at least 0 (fifo: since its head
 * changed). */
static int replay(chain_t *ch, int k)
{
	const hs_wf_t *s = ch->s;
	const int E = ch->E;
	for (int L = 0; L <= E; L++) {
		ch->head[L] = ch->left[L] = 0;
		ch->wsum[L] = ch->lam[L] = 0.0;
	}
	for (int c = 0; c < ch->C; c++) {
		ch->cf[c] = s->frozen[c] != 0;
		if (!ch->cf[c]) {
			int L = leaf_of(s, c, E);
			ch->left[L]++;
			ch->wsum[L] += s->cl.size[c] * jobw(s, c);
		}
	}
	ch->nseq = 0;
	int i, dirty = 1;
	for (i = 0; i < k; i++) {
		/* the entities' weights change only when a leaf runs out of
		 * unfrozen classes */
		if (dirty) {
			for (int e = 0; e < E; e++)
				ch->act[e] = ch->left[e] > 0;
			hs_ftree_weights(&ch->s->tree, ch->act, ch->W);
			if (s->charged)
				hs_ftree_charges(&ch->s->tree, ch->act, ch->Q);
			dirty = 0;
		}
		double best = INFINITY;
		for (int L = 0; L <= E; L++)
			if (ch->left[L] > 0) {
				double zs = sat_z(ch, L, list_head(ch, L));
				best = zs < best ? zs : best;
			}
		if (!isfinite(best))
			break;
		if (i == 0)
			ch->z0 = best;
		for (int L = 0; L <= E; L++) {
			double v = ch->left[L] > 0 ? best * list_factor(ch, L) - list_charge(ch, L) : 0.0;
			ch->lam[L] = v > ch->lam[L] ? v : ch->lam[L];
		}
		/* the tied classes, each list from its head while its z_sat
		 * (weights of the step's start) ties; then their leaves' sums */
		const int first = ch->nseq;
		for (int L = 0; L <= E; L++) {
			for (int pos = ch->left[L] > 0 ? ch->head[L] : ch->lstart[L + 1] - ch->lstart[L];
			     ch->lstart[L] + pos < ch->lstart[L + 1]; pos++) {
				int c = ch->lcls[ch->lstart[L] + pos];
				if (ch->cf[c])
					continue;
				if (sat_z(ch, L, c) > best * (1.0 + TIE_TOL))
					break;
				ch->cf[c] = 1;
				ch->seq[ch->nseq++] = c;
				if (ch->fifo[L])
					break; /* its next job had no share in this round */
			}
		}
		for (int q = first; q < ch->nseq; q++) {
			int c = ch->seq[q], L = leaf_of(s, c, E);
			ch->left[L]--;
			ch->wsum[L] -= s->cl.size[c] * jobw(s, c);
			dirty |= ch->left[L] == 0 && L < E;
			if (ch->fifo[L])
				ch->lam[L] = 0.0; /* the next job waited until now */
		}
	}
	return i;
}

/* The demands of check k into d (after replay(k)): earlier frozen
 * classes their level, the chain's rmax, the others (1 + delta) times
 * their largest demand along the way. */
static void demands(chain_t *ch)
{
	const hs_wf_t *s = ch->s;
	for (int c = 0; c < ch->C; c++) {
		int L = leaf_of(s, c, ch->E);
		if (s->frozen[c])
			ch->d[c] = s->level[c];
		else if (ch->cf[c])
			ch->d[c] = s->rmaxo[c];
		else if (ch->fifo[L])
			ch->d[c] = list_head(ch, L) == c ? ch->lam[L] * (1.0 + CHAIN_DELTA) : 0.0;
		else
			ch->d[c] = jobw(s, c) * ch->lam[L] * (1.0 + CHAIN_DELTA);
	}
}

/* The cheapest way to deliver d with coefficients a under prices pi,
 * within the job's own time (its 2-row LP: one type, or all its time on
 * two), on the types with open[j] != 0 (open NULL: all). Capacity is
 * left out: a lower bound, which is what the necessary condition needs.
 * Beyond 16 types only single types are tried, without the time limit
 * (still a lower bound). */
static double cost(const double *a, int J, const double *pi, const char *open, double d)
{
	if (d <= 0.0)
		return 0.0;
	double best = INFINITY;
	for (int j = 0; j < J; j++) {
		if (a[j] <= 0.0 || (open && !open[j]) || (J <= 16 && a[j] < d))
			continue;
		double c = pi[j] * d / a[j];
		best = c < best ? c : best;
	}
	for (int j = 0; J <= 16 && j < J; j++) {
		if (a[j] <= 0.0 || a[j] >= d || (open && !open[j]))
			continue;
		for (int h = 0; h < J; h++) {
			if (a[h] <= d || (open && !open[h]))
				continue;
			double x = (d - a[j]) / (a[h] - a[j]);
			double c = pi[j] * (1.0 - x) + pi[h] * x;
			best = c < best ? c : best;
		}
	}
	return best;
}

/* Can the demands d be met, as far as prices pi tell? Unfrozen classes
 * (the chain's too) cost what they need on the open types: closed ones
 * are out of their reach. */
static int priced_ok_with(const chain_t *ch, const double *pi)
{
	const hs_wf_t *s = ch->s;
	const int J = ch->J;
	double lhs = 0.0, rhs = 0.0;
	for (int j = 0; j < J; j++)
		rhs += pi[j] * s->cap[j];
	for (int c = 0; c < ch->C && lhs <= rhs; c++) {
		int fz = s->frozen[c] != 0;
		double cap = fz ? s->rmax[c] : s->rmaxo[c];
		double d = ch->d[c] < cap ? ch->d[c] : cap;
		double ns = s->cl.size[c] * (double)s->p->jobs[s->cl.rep[c]].scale_factor;
		lhs += ns * cost(&s->a[(size_t)c * J], J, pi, fz ? NULL : s->open, d);
	}
	return lhs <= rhs * (1.0 + 1e-9) + 1e-12;
}

/* ... as far as every known price vector tells. */
static int priced_ok(const chain_t *ch)
{
	for (int q = 0; q < ch->np; q++)
		if (!priced_ok_with(ch, &ch->prices[(size_t)q * ch->J]))
			return 0;
	return 1;
}


static int prefix_priced_ok(chain_t *ch, int k)
{
	replay(ch, k);
	demands(ch);
	return priced_ok(ch);
}

static void add_prices(chain_t *ch, const double *pi)
{
	const int J = ch->J;
	double mx = 0.0;
	for (int j = 0; j < J; j++)
		mx = pi[j] > mx ? pi[j] : mx;
	if (!(mx > 0.0) || ch->np >= MAX_PRICES)
		return;
	for (int j = 0; j < J; j++)
		ch->prices[(size_t)ch->np * J + j] = pi[j] / mx;
	ch->np++;
}

/* Check k on the LP (see the top of the file): t* (<= 1) in *t; 1 when
 * the check was given up, -1 on error. z (t) is capped at 1, where the
 * chain's classes use all their time: so alloc_lp may fold them
 * (fold_full) and the LP stays small. A check is only a shortcut: when
 * its LP keeps few items folded it grows to thousands of rows and one
 * check took 2.2 s of a 2.4 s solve (4,096 jobs, 100 users in 8
 * accounts, bench/solve_bench --tree 8,0,100), then failed. So an LP of
 * a check stops at CHECK_ITER_MAX iterations (a count, not a time: the
 * same on every machine) and counts as a failed check: the search goes
 * on by bisection over the shorter prefixes, whose checks are smaller,
 * and what no check proves is left to the LP method. */
static int check(chain_t *ch, hs_alp_t *alp, hs_policy_ctx_t *ctx, long *it_seen,
		 int *solves_seen, double *t, hs_err_t *err)
{
	const hs_wf_t *s = ch->s;
	for (int c = 0; c < ch->C; c++) {
		int fixed = s->frozen[c] != 0;
		alp->alpha[c] = fixed ? 0.0 : ch->d[c];
		alp->beta[c] = fixed ? ch->d[c] : 0.0;
	}
	alp->zmax = 1.0;
	alp->fold_full = 1;
	int limit = ctx->lp_opts.iter_limit;
	ctx->lp_opts.iter_limit = ctx->wf_check_iter_max > 0 ? ctx->wf_check_iter_max : CHECK_ITER_MAX;
	hs_lp_status_t st = hs_wf_alp_run(alp, ctx, 1, it_seen, solves_seen, err);
	ctx->lp_opts.iter_limit = limit;
	alp->zmax = INFINITY;
	alp->fold_full = 0;
	*t = alp->z;
	if (st == HS_LP_OPTIMAL)
		return 0;
	if (st == HS_LP_ITLIM) {
		*t = 0.0;
		return 1;
	}
	if (st != HS_LP_FAILED)
		hs_err_set(err, "water-filling check LP is %s (internal error)",
			   st == HS_LP_INFEASIBLE ? "infeasible" : "unbounded");
	return -1;
}

/* The longest prefix of the K-step chain that check LPs prove (see the
 * top of the file); its t* in *tbest and its allocation in xbest. */
static int longest_prefix(chain_t *ch, int K, hs_alp_t *alp, hs_policy_ctx_t *ctx, long *it_seen,
			  int *solves_seen, hs_wf_chain_stats_t *st, double *xbest, double *tbest,
			  hs_err_t *err)
{
	const size_t nx = (size_t)ch->C * ch->J;
	int lo = 0, hi = K, fails = 0, checks = 0;
	int kf[2] = { 0, 0 };
	double tf[2] = { 0.0, 0.0 };
	while (lo < hi && checks < MAX_CHECKS) {
		/* the longest prefix in (lo, hi] the prices allow (monotone in k:
		 * demands only grow along the chain) */
		int cand = hi;
		if (!prefix_priced_ok(ch, hi)) {
			int a = lo, b = hi - 1;
			while (a < b) {
				int mid = a + (b - a + 1) / 2;
				if (prefix_priced_ok(ch, mid))
					a = mid;
				else
					b = mid - 1;
			}
			cand = a;
		}
		if (cand <= lo)
			break;
		if (fails >= 2 && tf[1] > tf[0] && kf[1] < kf[0]) {
			double ks = kf[1] - (1.0 - tf[1]) * (kf[0] - kf[1]) / (tf[1] - tf[0]);
			int k = (int)floor(ks);
			if (k > lo && k < cand)
				cand = k;
			else if (k <= lo)
				cand = lo + (cand - lo + 1) / 2;
		} else if (fails >= 2) {
			/* once the prices were wrong twice, bisect so that the number
			 * of LPs stays logarithmic */
			cand = lo + (cand - lo + 1) / 2;
		}
		replay(ch, cand);
		demands(ch);
		double t;
		checks++;
		int rc = check(ch, alp, ctx, it_seen, solves_seen, &t, err);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			/* given up: like a failed check, but its t* says
			 * nothing for the secant, so bisect from here on */
			st->checks_given_up++;
			hi = cand - 1;
			fails = 2;
			kf[0] = kf[1] = 0;
			tf[0] = tf[1] = 0.0;
			continue;
		}
		if (t >= 1.0 - CHECK_TOL) {
			lo = cand;
			*tbest = t < 1.0 ? t : 1.0;
			memcpy(xbest, alp->x, nx * sizeof(double));
		} else {
			hi = cand - 1;
			fails++;
			kf[0] = kf[1];
			tf[0] = tf[1];
			kf[1] = cand;
			tf[1] = t;
			add_prices(ch, alp->price);
		}
	}
	st->checks += checks;
	return lo;
}

int hs_wf_chain(hs_wf_t *s, hs_alp_t *alp, hs_policy_ctx_t *ctx, long *it_seen, int *solves_seen,
		hs_wf_chain_stats_t *st, double *xbest, double *z0, hs_err_t *err)
{
	/* a class that cannot run at all has no chain to follow */
	for (int c = 0; c < s->C; c++)
		if (!s->frozen[c] && !(s->rmaxo[c] > 0.0))
			return 0;
	chain_t ch;
	if (chain_init(&ch, s, err) < 0) {
		chain_free(&ch);
		return -1;
	}
	int n = -1;
	/* prices: the last LP's (all 0 before the first solve: ignored), GPU
	 * time, and GPU time on the open types (when some are closed) */
	add_prices(&ch, alp->price);
	for (int j = 0; j < s->J; j++)
		ch.prices[(size_t)ch.np * s->J + j] = 1.0;
	ch.np++;
	int nopen = 0;
	for (int j = 0; j < s->J; j++)
		nopen += s->open[j] != 0;
	if (nopen < s->J) {
		for (int j = 0; j < s->J; j++)
			ch.prices[(size_t)ch.np * s->J + j] = s->open[j] ? 1.0 : 0.0;
		ch.np++;
	}
	int K = replay(&ch, s->C);
	double t = 1.0;
	n = K > 0 ? longest_prefix(&ch, K, alp, ctx, it_seen, solves_seen, st, xbest, &t, err) : 0;
	if (n > 0) {
		replay(&ch, n);
		*z0 = ch.z0;
		n = ch.nseq;
		for (int i = 0; i < n; i++) {
			int c = ch.seq[i];
			s->frozen[c] = 1;
			/* what the check's allocation gives it (t* may miss 1 by
			 * the solver's tolerance) */
			s->level[c] = s->rmaxo[c] * t;
		}
		st->chains++;
		st->frozen += n;
	}
	chain_free(&ch);
	return n;
}
