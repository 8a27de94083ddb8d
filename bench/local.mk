# SPDX-License-Identifier: GPL-2.0-or-later
# bench — measured figures: bench/reproduce.sh regenerates doc/results.md
# (Gavel's simulation results and the simulator's speed) with
# `hetsched simulate`; see the script's header for what it runs.
EXTRA_DIST += bench/README.md bench/reproduce.sh bench/run_one.sh bench/report.sh bench/discussion.md
# select/hetsched_cons_tres overhead vs select/cons_tres:
#   bench/pack/pack_overhead.sh [JOBS] [ROUNDS]   (root, from the build dir)
EXTRA_DIST += bench/pack/pack_overhead.sh
# space sharing end to end: packed vs unpacked average JCT, cluster vs simulator:
#   bench/pack/pack_e2e.sh [--quick]   (root, from a built tree)
EXTRA_DIST += bench/pack/pack_e2e.sh bench/pack/pack_e2e.workload bench/pack/pack_e2e_quick.workload

# bench/solve.sh — policy solve time and memory vs number of jobs
noinst_PROGRAMS += bench/solve_bench
bench_solve_bench_SOURCES = bench/solve_bench.c
bench_solve_bench_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
bench_solve_bench_LDADD = libhetsched_core.la $(GLPK_LIBS) $(JSONC_LIBS) -lm
EXTRA_DIST += bench/solve.sh
# learned throughputs against the table (doc/learning.md)
EXTRA_DIST += bench/learn.sh bench/learn_batch.sh bench/fairness.sh bench/strategic.sh
# the live comparison repeated (contrib/demo.sh --unknown-models, root)
EXTRA_DIST += bench/live_learn.sh bench/live_learn_report.py
# learning's inference error on a table, leave one out, matrix vs nearest
# kinds: bench/learn_loo data/gavel/simulation_throughputs.json
noinst_PROGRAMS += bench/learn_loo
bench_learn_loo_SOURCES = bench/learn_loo.c
bench_learn_loo_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
bench_learn_loo_LDADD = libhetsched_sched.la libhetsched_core.la $(GLPK_LIBS) $(JSONC_LIBS) -lm
# sched/hetsched on a local cluster against sched/backfill
EXTRA_DIST += bench/cluster_bench.sh bench/cluster_report.py bench/start_error.py bench/cluster_jct.gp
# job arrays: time to fill every GPU, sched/backfill vs sched/hetsched:
#   bench/arrays_fill.sh [GPUS_SPEC] [TASKS]   (root, from the build dir)
EXTRA_DIST += bench/arrays_fill.sh
# a 128-node, 2,048-GPU live cluster with a long queue, sched/backfill vs
# sched/hetsched (not a test, minutes of CPU):
#   nice -n 10 bench/scale.sh [-q QUEUE] [-t SECS]   (root, from the build dir)
EXTRA_DIST += bench/scale.sh bench/scale_report.py bench/scale.gp
EXTRA_DIST += bench/pinned/run.sh bench/pinned/cluster.sh
# `hetsched simulate` at production size (2,100 GPUs, 1k/10k/100k jobs),
# against a baseline build; and the byte-identity check of two builds on
# reproduce.sh's inputs (not tests, minutes):
#   bench/sim_scale.sh [--with-100k] [--baseline PATH]
#   bench/sim_identical.sh --baseline PATH [--mode quick|full]
EXTRA_DIST += bench/sim_scale.sh bench/sim_identical.sh bench/sim_scale.gp
# the sched plugin's round without Slurm at bench/scale.sh's size: time
# and peak memory of engine round, saved state, status and metrics vs
# queue length (bench/round.sh)
noinst_PROGRAMS += bench/round_bench
bench_round_bench_SOURCES = bench/round_bench.c
bench_round_bench_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
bench_round_bench_LDADD = libhetsched_sched.la libhetsched_measure.la libhetsched_core.la $(GLPK_LIBS) $(JSONC_LIBS) -lm
EXTRA_DIST += bench/round.sh
