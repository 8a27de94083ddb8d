/* SPDX-License-Identifier: GPL-2.0-or-later */
/* solve_bench.c — one policy solve on a generated instance, for
 * bench/solve.sh: prints one line of key=value pairs with the solve time
 * and the process's peak memory. Run one measurement per process so the
 * peak memory is that solve's.
 *
 * Instances are built from Gavel's measured throughput table: N jobs of
 * random job types (mostly single-GPU, as in Gavel's traces) with the
 * table's throughputs on k80/p100/v100 (plus a synthetic fourth type at
 * 1.5x v100 with --types 4), each type holding ceil(N / (2 J))
 * accelerators so the cluster is contended. --noise X perturbs every
 * job's throughputs by up to +-X, as measured (online) throughputs would:
 * then no two jobs are alike and class aggregation cannot help.
 *
 *   --baseline   the naive formulation (one row per job, no folding) with
 *                GLPK's default simplex settings (primal, standard basis,
 *                no scaling, no presolve)
 *   --method M, --noscale   GLPK options, to compare them
 *   --entities K jobs in K fairness-mode entities (Slurm accounts) of
 *                weights 1..K, round robin: the hierarchical policies
 *   --no-warm    packed max-min: no starting basis from the
 *                unpacked solution (the previous method, for comparison)
 *   --tree A,S,U an association tree instead: A accounts, S sub-accounts
 *                each (0: none), U users, jobs on users (add_tree)
 *   --no-chains  water filling without saturation chains (one LP round
 *                per level, as before them)
 *   --held F     with --tree: a fraction F of the users (seeded) hold 1-4
 *                GPUs through running pinned jobs, charged to them
 *                (model.h's held; what the charge costs the solve)
 */
#include "core/policy_impl.h"
#include "core/thrtable.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* CPU time of this process: the machine is shared, so CPU time is what
 * a solve costs (wall time also counts other people's jobs). */
static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double urand(unsigned long long *s)
{
	return hs_rng64_uniform(s);
}

static int build(hs_problem_t *p, const hs_thrtable_t *t, int N, int types, double noise,
		 unsigned long long seed, hs_err_t *err)
{
	int per = (N + 2 * types - 1) / (2 * types);
	char spec[256];
	snprintf(spec, sizeof(spec), "k80:%d,p100:%d,v100:%d%s", per, per, per, "");
	if (types == 4) {
		char four[64];
		snprintf(four, sizeof(four), ",t4:%d", per);
		strncat(spec, four, sizeof(spec) - strlen(spec) - 1);
	}
	memset(p, 0, sizeof(*p));
	p->reference_type = -1;
	if (hs_cluster_parse(&p->cluster, spec, err) < 0 ||
	    hs_thrtable_to_jobtypes(t, &p->cluster, &p->jobtypes, err) < 0 ||
	    hs_problem_alloc_jobs(p, N, err) < 0)
		return -1;
	const int J = p->cluster.ntypes;
	for (int j = 0; j < J; j++)
		p->cluster.price[j] = 0.5 + j; /* for min_cost */
	unsigned long long s = seed;
	for (int m = 0; m < N; m++) {
		hs_job_t *jb = &p->jobs[m];
		char id[32];
		snprintf(id, sizeof(id), "j%d", m);
		jb->id = strdup(id);
		if (!jb->id)
			return hs_err_set(err, "out of memory");
		for (;;) {
			int a = (int)(urand(&s) * t->njobtypes);
			if (t->sf[a] > 1 && urand(&s) < 0.8)
				continue;
			int usable = 0;
			for (int j = 0; j < J; j++) {
				const char *name = j < 3 ? p->cluster.names[j] : "v100";
				jb->thr[j] = hs_thrtable_alone(t, a, name, 1) * (j < 3 ? 1.0 : 1.5);
				if (noise > 0.0)
					jb->thr[j] *= 1.0 + noise * (2.0 * urand(&s) - 1.0);
				usable |= jb->thr[j] > 0.0 && p->cluster.count[j] >= t->sf[a];
			}
			if (!usable)
				continue;
			jb->job_type = a;
			jb->scale_factor = t->sf[a];
			break;
		}
		jb->remaining_steps = 1e3 * (1.0 + 99.0 * urand(&s));
		jb->age_s = 3600.0 * urand(&s);
		jb->weight = urand(&s) < 0.2 ? 2.0 : 1.0;
	}
	return 0;
}

/* K fairness-mode entities of weights 1..K, jobs assigned round robin. */
static int add_entities(hs_problem_t *p, int K, hs_err_t *err)
{
	if (K <= 0)
		return 0;
	p->entities.names = calloc((size_t)K, sizeof(char *));
	p->entities.weight = calloc((size_t)K, sizeof(double));
	p->entities.mode = calloc((size_t)K, sizeof(hs_entity_mode_t));
	if (!p->entities.names || !p->entities.weight || !p->entities.mode)
		return hs_err_set(err, "out of memory");
	p->entities.n = K;
	for (int e = 0; e < K; e++) {
		char name[32];
		snprintf(name, sizeof(name), "acct%d", e);
		if (!(p->entities.names[e] = strdup(name)))
			return hs_err_set(err, "out of memory");
		p->entities.weight[e] = 1.0 + e;
		p->entities.mode[e] = HS_ENTITY_FAIRNESS;
	}
	for (int m = 0; m < p->njobs; m++)
		p->jobs[m].entity = m % K;
	return 0;
}

/* A Slurm-like association tree: A accounts (Shares 1..A), each with S
 * sub-accounts (Shares 1..3) when S > 0, U users spread round robin over
 * the lowest accounts (Shares 1 or 2); jobs go to users with Zipf-like
 * odds (user u ~ 1 / (u + 1)), so a few users own most jobs, as with job
 * arrays. Every job ends up on a user, a leaf. */
static int add_tree(hs_problem_t *p, int A, int S, int U, unsigned long long seed, hs_err_t *err)
{
	const int mid = S > 0 ? A * S : 0, E = A + mid + U;
	hs_entities_t *es = &p->entities;
	es->names = calloc((size_t)E, sizeof(char *));
	es->weight = calloc((size_t)E, sizeof(double));
	es->mode = calloc((size_t)E, sizeof(hs_entity_mode_t));
	es->parent = calloc((size_t)E, sizeof(int));
	double *cum = calloc((size_t)U, sizeof(double));
	if (!es->names || !es->weight || !es->mode || !es->parent || !cum) {
		free(cum);
		return hs_err_set(err, "out of memory");
	}
	unsigned long long s = seed * 7919 + 13;
	for (int e = 0; e < E; e++) {
		char name[32];
		if (e < A) {
			snprintf(name, sizeof(name), "acct%d", e);
			es->weight[e] = 1.0 + e;
			es->parent[e] = -1;
		} else if (e < A + mid) {
			snprintf(name, sizeof(name), "acct%d.%d", (e - A) / S, (e - A) % S);
			es->weight[e] = 1.0 + (int)(urand(&s) * 3);
			es->parent[e] = (e - A) / S;
		} else {
			int u = e - A - mid;
			snprintf(name, sizeof(name), "user%d", u);
			es->weight[e] = urand(&s) < 0.3 ? 2.0 : 1.0;
			es->parent[e] = mid > 0 ? A + u % mid : u % A;
		}
		if (!(es->names[e] = strdup(name))) {
			free(cum);
			return hs_err_set(err, "out of memory");
		}
		es->mode[e] = HS_ENTITY_FAIRNESS;
		es->n = e + 1;
	}
	for (int u = 0; u < U; u++)
		cum[u] = (u ? cum[u - 1] : 0.0) + 1.0 / (u + 1);
	for (int m = 0; m < p->njobs; m++) {
		double r = urand(&s) * cum[U - 1];
		int u = 0;
		while (u < U - 1 && cum[u] < r)
			u++;
		p->jobs[m].entity = A + mid + u;
	}
	free(cum);
	return 0;
}

/* A fraction f of the U users (the forest's last U entities) hold 1-4
 * GPUs through pinned jobs (model.h's held). */
static int add_held(hs_problem_t *p, int U, double f, unsigned long long seed)
{
	hs_entities_t *es = &p->entities;
	if (!(es->held = calloc((size_t)es->n + 1, sizeof(double))))
		return -1;
	unsigned long long s = seed * 104729 + 7;
	for (int e = es->n - U; e < es->n; e++)
		if (urand(&s) < f)
			es->held[e] = 1 + (int)(urand(&s) * 4);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "jobs", required_argument, NULL, 'n' },
		{ "types", required_argument, NULL, 't' },
		{ "noise", required_argument, NULL, 'x' },
		{ "seed", required_argument, NULL, 's' },
		{ "table", required_argument, NULL, 'T' },
		{ "pop", required_argument, NULL, 'P' },
		{ "baseline", no_argument, NULL, 'b' },
		{ "method", required_argument, NULL, 'm' },
		{ "noscale", no_argument, NULL, 'S' },
		{ "no-warm", no_argument, NULL, 'W' },
		{ "entities", required_argument, NULL, 'E' },
		{ "tree", required_argument, NULL, 'R' },
		{ "no-chains", no_argument, NULL, 'C' },
		{ "held", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy = "max_min_fairness_perf", *table = NULL, *method = NULL;
	int N = 1024, types = 3, baseline = 0, pop = 1, noscale = 0, nowarm = 0, nent = 0, nochains = 0;
	int tA = 0, tS = 0, tU = 0;
	double noise = 0.1, held = 0.0;
	unsigned long long seed = 1;
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': policy = optarg; break;
		case 'n': N = atoi(optarg); break;
		case 't': types = atoi(optarg); break;
		case 'x': noise = atof(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'T': table = optarg; break;
		case 'P': pop = atoi(optarg); break;
		case 'b': baseline = 1; break;
		case 'm': method = optarg; break;
		case 'S': noscale = 1; break;
		case 'W': nowarm = 1; break;
		case 'E': nent = atoi(optarg); break;
		case 'R':
			if (sscanf(optarg, "%d,%d,%d", &tA, &tS, &tU) != 3 || tA < 1 || tS < 0 || tU < 1) {
				fprintf(stderr, "solve_bench: --tree ACCOUNTS,SUBACCOUNTS,USERS (>= 1, >= 0, >= 1)\n");
				return 2;
			}
			break;
		case 'C': nochains = 1; break;
		case 'H': held = atof(optarg); break;
		default:
			fprintf(stderr, "usage: solve_bench --table FILE [--policy P] [--jobs N] [--types 3|4] "
					"[--noise X] [--seed S] [--pop K] [--baseline] [--method primal|dual|interior] [--noscale] [--no-warm] [--entities K] "
					"[--tree A,S,U] [--no-chains] [--held F]\n");
			return 2;
		}
	}
	if (!table || N < 1 || (types != 3 && types != 4)) {
		fprintf(stderr, "solve_bench: --table FILE is required; --jobs >= 1; --types 3 or 4\n");
		return 2;
	}
	hs_err_t err;
	hs_thrtable_t t;
	hs_problem_t p;
	if (hs_thrtable_load(&t, table, &err) < 0 || build(&p, &t, N, types, noise, seed, &err) < 0 ||
	    add_entities(&p, nent, &err) < 0 || (tA > 0 && add_tree(&p, tA, tS, tU, seed, &err) < 0)) {
		fprintf(stderr, "solve_bench: %s\n", err.msg);
		return 1;
	}
	if (held > 0 && tA > 0 && add_held(&p, tU, held, seed) < 0) {
		fprintf(stderr, "solve_bench: out of memory\n");
		return 1;
	}
	hs_policy_opts_t o;
	hs_policy_opts_default(&o);
	o.pop_partitions = pop;
	hs_policy_ctx_t *ctx = hs_policy_ctx_new(policy, &o, &err);
	if (!ctx) {
		fprintf(stderr, "solve_bench: %s\n", err.msg);
		return 1;
	}
	if (baseline) {
		ctx->no_classes = 1;
		ctx->no_active_set = 1;
		ctx->lp_opts.method = HS_LP_PRIMAL;
		ctx->lp_opts.scale = 0;
		ctx->lp_opts.presolve = 0;
	}
	if (noscale)
		ctx->lp_opts.scale = 0;
	ctx->no_warm_start = nowarm;
	ctx->no_wf_chains = nochains;
	if (method)
		ctx->lp_opts.method = !strcmp(method, "primal") ? HS_LP_PRIMAL
				     : !strcmp(method, "interior") ? HS_LP_INTERIOR : HS_LP_DUAL;
	hs_alloc_t a;
	double t0 = now(), c0 = cpu_now();
	int rc = hs_policy_solve(ctx, &p, &a, &err);
	double dt = now() - t0, dc = cpu_now() - c0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (rc < 0) {
		fprintf(stderr, "solve_bench: %s: %s\n", policy, err.msg);
		return 1;
	}
	if (getenv("HS_BENCH_STATS")) {
		int J = p.cluster.ntypes, tb = 0, split = 0, tbsplit = 0, slack = 0;
		for (int m = 0; m < N; m++) {
			double sum = 0; int used = 0;
			for (int j = 0; j < J; j++) { sum += a.x[m * J + j]; used += a.x[m * J + j] > 1e-9; }
			tb += sum > 0.999; split += used > 1; tbsplit += sum > 0.999 && used > 1;
		}
		(void)slack;
		fprintf(stderr, "time-bound %d split %d both %d\n", tb, split, tbsplit);
	}
	printf("policy=%s jobs=%d types=%d mode=%s noise=%g solve_s=%.4f cpu_s=%.4f rss_kb=%ld objective=%.10g "
	       "items=%d lp_items=%d lp_solves=%d iterations=%ld pairs=%d warm=%d chained=%d checks=%d given_up=%d\n",
	       policy, N, types, baseline ? "baseline" : pop > 1 ? "pop" : nowarm ? "nowarm" : "engine", noise, dt,
	       dc, ru.ru_maxrss, a.objective, ctx->last_items, ctx->last_lp_items, ctx->last_lp_solves,
	       ctx->last_iterations, a.npairs, ctx->last_warm_start, ctx->last_wf_chained,
	       ctx->last_wf_checks, ctx->last_wf_checks_given_up);
	hs_alloc_free(&a);
	hs_policy_ctx_free(ctx);
	hs_problem_free(&p);
	hs_thrtable_free(&t);
	return 0;
}
