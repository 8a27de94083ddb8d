#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# learn_batch.sh — learning throughputs when nobody arrives or leaves for
# days (doc/learning.md, "When estimates move"): 72 jobs submitted at
# once on v100:12,p100:12,k80:12, each 40-60 hours of work on a v100
# (Gavel's models and scale factors, drawn per seed), under the plugin's
# defaults (MinResetInterval=0). The allocation is recomputed when jobs
# arrive or leave; here the first departure comes after about 40 hours,
# so what the first round solved on blind estimates would stay in force
# that long unless a moved estimate recomputes it (EstimateResolveFactor).
# Per seed, in one command:
#   table      every job's model in the throughput table
#   cold       --unknown-models 1 (jobs of one model share a job name)
#   anonymous  --anonymous-jobs (every job its own kind)
#   cold0, anonymous0  the same with EstimateResolveFactor=0 (recompute
#              on arrivals and departures only, as before)
# and prints average JCTs and each run's ratio to the table run.
#
# Usage: bench/learn_batch.sh [--seeds "1 2 3"] [--hetsched PATH] [--out DIR]
# About 10 s a seed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hs=$top/_build/hetsched seeds="1 2 3" out=$top/bench/out/learn_batch
while [ $# -gt 0 ]; do
	case "$1" in
	--seeds) seeds=$2; shift ;;
	--hetsched) hs=$2; shift ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '3,21p' "$0"; exit 0 ;;
	*) echo "learn_batch.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$hs" ] || { echo "learn_batch.sh: no hetsched at $hs (build first, or --hetsched)" >&2; exit 1; }
table=${HS_GAVEL_DATA:-$top/data/gavel}/simulation_throughputs.json
cluster=v100:12,p100:12,k80:12
mkdir -p "$out"
sim() { # SEED NAME ARGS...
	seed=$1 name=$2
	shift 2
	nice -n 19 "$hs" simulate --throughputs "$table" --cluster $cluster \
		--consolidation always --trace "$out/batch-$seed.trace" --seed "$seed" \
		--policy max_min_fairness_perf --quiet "$@" >"$out/$seed-$name.json"
}
jct() { jq -r '.avg_jct_s / 3600' "$out/$1.json"; }
for seed in $seeds; do
	# Gavel's models and scale factors for 72 jobs at t=0, then each
	# job's steps set to 40-60 hours on a v100 (the table's rate for
	# its model and scale factor)
	"$hs" simulate --throughputs "$table" --cluster $cluster --generate --rate 0 \
		--jobs 72 --seed "$seed" --quiet --write-trace "$out/gen-$seed.trace" >/dev/null
	jq -r '.v100 | to_entries[] | [.key, .value.null] | @tsv' "$table" |
		awk -F'\t' -v seed="$seed" 'BEGIN { OFS = "\t"; srand(seed) }
			NR == FNR { rate[$1] = $2; next }
			{ key = "(\x27" $1 "\x27, " $7 ")"
			  if (!(key in rate)) { print "no v100 rate for " key > "/dev/stderr"; exit 1 }
			  $6 = sprintf("%.1f", rate[key] * 3600 * (40 + 20 * rand())); print }' \
			- "$out/gen-$seed.trace" >"$out/batch-$seed.trace"
	sim "$seed" table
	sim "$seed" cold --unknown-models 1
	sim "$seed" anonymous --anonymous-jobs
	sim "$seed" cold0 --unknown-models 1 --conf EstimateResolveFactor=0
	sim "$seed" anonymous0 --anonymous-jobs --conf EstimateResolveFactor=0
	printf 'seed %s: average JCT (hours), ratio to table\n' "$seed"
	t=$(jct "$seed-table")
	for r in table cold anonymous cold0 anonymous0; do
		j=$(jct "$seed-$r")
		printf '  %-11s %8.2f  %.3f  (solves %s)\n' $r "$j" \
			"$(awk -v a="$j" -v b="$t" 'BEGIN { print a / b }')" \
			"$(jq -r .solves "$out/$seed-$r.json")"
	done
done
