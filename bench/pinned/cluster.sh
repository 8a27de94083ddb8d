#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/pinned/cluster.sh — the mixed queue of bench/pinned/run.sh on a
# live local cluster: tests/integration/sched_pinned_mix.sh (4 jobs that
# cannot be preempted, 4 checkpointing ones, 4 GPUs) run under
# PinnedAdmission=always (the old behaviour, the baseline) and then
# share, on one cluster, and the figures of both with share/always
# ratios. Longer than the test: pinned jobs run PIN_SLEEP s (default
# 120), the queue is watched SAMPLE_S s (default 150). Usage, as root,
# from the build directory (about 7 minutes):
#   ../bench/pinned/cluster.sh
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
HETSCHED_INTEGRATION=1 PIN_MODES="always share" PIN_SLEEP=${PIN_SLEEP:-120} \
	SAMPLE_S=${SAMPLE_S:-150} HS_SRCDIR=$src HS_BUILDDIR=$(pwd) \
	"$src/tests/integration/sched_pinned_mix.sh" >"$log" 2>&1 || true
grep -E '^(not )?ok|^# mode' "$log"
awk '/^# mode/ { m = $3; sub(":", "", m); for (i = 4; i <= NF; i++) { split($i, kv, "="); v[m, kv[1]] = kv[2] } }
     END { printf "share/always: max pinned GPUs %.2fx, mean pinned %.2fx, mean preemptible %.2fx, mean busy %.2fx\n",
	   v["share", "max_pinned"] / v["always", "max_pinned"],
	   v["share", "mean_pinned"] / v["always", "mean_pinned"],
	   v["share", "mean_preemptible"] / v["always", "mean_preemptible"],
	   v["share", "mean_busy"] / v["always", "mean_busy"] }' "$log"
