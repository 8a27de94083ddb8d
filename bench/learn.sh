#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# learn.sh — what learning throughputs online costs against knowing them
# (issue 26, doc/learning.md): Gavel's continuous workloads on
# v100:36,p100:36,k80:36 measured as bench/reproduce.sh does (Gavel's
# simulator settings, a window of measured jobs), same seed, same command,
# in five runs per workload:
#   table      Gavel's heterogeneity-aware LAS (max_min_fairness_perf), every
#              job's model in the throughput table
#   cold       the same with --unknown-models 1: no job names a model, jobs
#              of one model share a job name, the engine learns (cold start)
#   anonymous  --anonymous-jobs: every job its own kind (learns from itself
#              and the site's speedup matrix only)
#   nolearn    --unknown-models 1 with Learning=no (the estimates before
#              issue 26)
#   las        heterogeneity-agnostic LAS (max_min_fairness)
#   warm       cold's command started from the learned table an earlier
#              run wrote (the same workload drawn with seed N+1, cold)
#   explore    anonymous with LearnExplore=0.1 (bounded exploration)
#   coldmatrix, anonmatrix  cold and anonymous with LearnInference=matrix
#              (the scope's speedup matrix alone, no nearest kinds)
# Each row also gives the inferred estimates' mean |ln(estimate / first
# measurement)| and the share of GPU time spent exploring.
# and prints average JCTs and the ratios the issue asks for.
#
# Usage: bench/learn.sh [--quick] [--seed N] [--out DIR] [--hetsched PATH]
#   --quick  window 1000:1500 instead of 4000:5000
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hs=$top/_build/hetsched window=4000:5000 seed=0 out=$top/bench/out/learn
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) window=1000:1500 ;;
	--seed) seed=$2; shift ;;
	--out) out=$2; shift ;;
	--hetsched) hs=$2; shift ;;
	-h|--help) sed -n '3,20p' "$0"; exit 0 ;;
	*) echo "learn.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$hs" ] || { echo "learn.sh: no hetsched at $hs (build first, or --hetsched)" >&2; exit 1; }
table=${HS_GAVEL_DATA:-$top/data/gavel}/simulation_throughputs.json
mkdir -p "$out"
last=${window#*:}
# bench/reproduce.sh's settings: Gavel's simulator, a time limit of twice
# the arrival span plus 1000 hours
run() { # NAME RATE WORKLOAD-ARGS...
	name=$1 rate=$2
	shift 2
	f=$out/$name.json
	[ -s "$f" ] && return 0
	maxt=$(awk -v r="$rate" -v n="$last" 'BEGIN { printf "%d", (2 * n / r + 1000) * 3600 }')
	nice -n 19 "$hs" simulate --throughputs "$table" --cluster v100:36,p100:36,k80:36 \
		--consolidation always --reset-interval 1920 --generate --rate "$rate" \
		--window "$window" --seed "$seed" --max-time "$maxt" --quiet "$@" >"$f.tmp" ||
		[ $? -eq 3 ] # stopped at --max-time: reported unfinished
	mv "$f.tmp" "$f"
}
jct() { jq -r '.avg_jct_s / 3600' "$out/$1.json"; }
# "(unfinished)" when the run stopped at its time limit (saturated): its
# average is over the measured jobs that completed, a lower bound
fin() { [ "$(jq -r .finished "$out/$1.json")" = true ] || echo " (unfinished)"; }
ratio() { awk -v a="$(jct "$1")" -v b="$(jct "$2")" 'BEGIN { printf "%.3f", a / b }'; }
for w in single multi; do
	if [ $w = single ]; then rate=5.6 extra=; else rate=2 extra=--multi-gpu; fi
	run $w-table $rate $extra --policy max_min_fairness_perf
	run $w-cold $rate $extra --policy max_min_fairness_perf --unknown-models 1
	run $w-anonymous $rate $extra --policy max_min_fairness_perf --anonymous-jobs
	run $w-explore $rate $extra --policy max_min_fairness_perf --anonymous-jobs \
		--conf LearnExplore=0.1
	run $w-nolearn $rate $extra --policy max_min_fairness_perf --unknown-models 1 \
		--conf Learning=no
	# the inference before the nearest kinds (LearnInference=matrix)
	run $w-coldmatrix $rate $extra --policy max_min_fairness_perf --unknown-models 1 \
		--conf LearnInference=matrix
	run $w-anonmatrix $rate $extra --policy max_min_fairness_perf --anonymous-jobs \
		--conf LearnInference=matrix
	run $w-las $rate $extra --policy max_min_fairness
	# warm start: the table a previous, different run learned
	run $w-warmup $rate $extra --policy max_min_fairness_perf --unknown-models 1 \
		--seed $((seed + 1)) --learned-out "$out/$w-learned.json"
	run $w-warm $rate $extra --policy max_min_fairness_perf --unknown-models 1 \
		--learned-in "$out/$w-learned.json"
	echo "$w-GPU workload, $rate jobs/h, jobs $window, seed $seed: average JCT (hours)"
	printf '  %-10s %8s  %-14s %s\n' run JCT 'inferred error' 'explored GPU time'
	for r in table cold coldmatrix warm anonymous anonmatrix explore nolearn las; do
		printf '  %-10s %8.2f  %-14s %s%s\n' $r "$(jct $w-$r)" \
			"$(jq -r '.learning.inferred.mean_abs_log_error // "-" | tostring | .[0:5]' \
				"$out/$w-$r.json")" \
			"$(jq -r '(.learning.explore_gpu_s / (.learning.busy_gpu_s + 1e-9) * 100
				| tostring | .[0:5]) + "%"' "$out/$w-$r.json")" "$(fin $w-$r)"
	done
	echo "  cold/table $(ratio $w-cold $w-table)  cold/las $(ratio $w-cold $w-las)" \
		" warm/table $(ratio $w-warm $w-table)  anonymous/las $(ratio $w-anonymous $w-las)" \
		" explore/anonymous $(ratio $w-explore $w-anonymous)" \
		" nolearn/las $(ratio $w-nolearn $w-las)" \
		" cold/coldmatrix $(ratio $w-cold $w-coldmatrix)" \
		" anonymous/anonmatrix $(ratio $w-anonymous $w-anonmatrix)"
done
