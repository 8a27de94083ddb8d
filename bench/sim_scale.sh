#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim_scale.sh — `hetsched simulate` at production size: wall time, CPU
# time, peak RSS and rounds against the number of jobs, optionally against
# a baseline build in the same run (doc/scale.md, "Simulator at
# production size"). Not part of make check or CI: minutes to tens of
# minutes.
#
# Usage: bench/sim_scale.sh [--with-100k] [--baseline PATH] [--hetsched PATH]
#                           [--jobs "N ..."] [--rate R] [--policy NAME]
#                           [--cluster SPEC] [--seed N] [--out DIR]
#   --with-100k      also run 100,000 jobs (the binary under test only)
#   --baseline PATH  a build to compare with (e.g. main's _build/hetsched):
#                    run before ours at each size up to 10,000 jobs; the
#                    table gets the ratios baseline / ours (> 1: ours is
#                    faster or smaller) and whether the
#                    outputs are identical (summary JSON without its timing
#                    fields, and the per-job CSV, byte for byte)
#   --hetsched PATH  the binary under test (default: _build/hetsched)
#   --jobs LIST      sizes (default "1000 10000"; --with-100k adds 100000)
#   --rate R         arrivals per hour (default 32: about 80% of what the
#                    cluster can serve, so it is busy and the queue stays
#                    bounded; 40 is past saturation and the queue grows)
#   --policy NAME    default max_min_fairness_perf (an LP every reset)
#   --cluster SPEC   default v100:700,p100:700,k80:700 (2,100 GPUs)
#   --seed N         default 0
#   --out DIR        outputs (default bench/out/sim_scale)
# Every run: --generate --multi-gpu (Gavel's Philly-derived scale factors
# and durations), one GPU per server, under `nice -n 15` and
# /usr/bin/time -v. Prints a Markdown table and the load average.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hs=$top/_build/hetsched base='' sizes="1000 10000" big=0 rate=32
policy=max_min_fairness_perf cluster=v100:700,p100:700,k80:700 seed=0
out=$top/bench/out/sim_scale
while [ $# -gt 0 ]; do
	case "$1" in
	--with-100k) big=1 ;;
	--baseline) base=$2; shift ;;
	--hetsched) hs=$2; shift ;;
	--jobs) sizes=$2; shift ;;
	--rate) rate=$2; shift ;;
	--policy) policy=$2; shift ;;
	--cluster) cluster=$2; shift ;;
	--seed) seed=$2; shift ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '3,30p' "$0"; exit 0 ;;
	*) echo "sim_scale.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ $big = 1 ] && sizes="$sizes 100000"
[ -x "$hs" ] || { echo "sim_scale.sh: no hetsched at $hs (build first, or --hetsched)" >&2; exit 1; }
[ -z "$base" ] || [ -x "$base" ] || { echo "sim_scale.sh: no baseline at $base" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "sim_scale.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }
command -v jq >/dev/null || { echo "sim_scale.sh: needs jq" >&2; exit 1; }
table=${HS_GAVEL_DATA:-$top/data/gavel}/simulation_throughputs.json
mkdir -p "$out"

# run WHO N: one simulation; leaves $out/WHO-N.{json,csv,time}
run() {
	/usr/bin/time -v -o "$out/$1-$2.time" nice -n 15 "$3" simulate --throughputs "$table" \
		--cluster "$cluster" --policy "$policy" --reset-interval 1920 --generate --multi-gpu \
		--rate "$rate" \
		--jobs "$2" --seed "$seed" --quiet --csv "$out/$1-$2.csv" >"$out/$1-$2.json"
}
# field WHO N: "wall cpu rss_mb rounds" of a finished run
field() {
	t=$out/$1-$2.time
	# "Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02.35"
	wall=$(awk '/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.1f", s }' "$t")
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$t")
	rss=$(awk -F': ' '/Maximum resident/ { printf "%.1f", $2 / 1024 }' "$t")
	rounds=$(jq -r '.rounds' "$out/$1-$2.json")
	printf '%s %s %s %s' "$wall" "$cpu" "$rss" "$rounds"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }
strip='del(.solve_s, .wall_s, .cpu_s)'

echo "sim_scale.sh: $policy on $cluster, --multi-gpu --rate $rate --seed $seed; load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
rows=
for n in $sizes; do
	row=
	if [ -n "$base" ] && [ "$n" -le 10000 ]; then
		echo "sim_scale.sh: baseline, $n jobs" >&2
		run base "$n" "$base"
		# shellcheck disable=SC2046 # four numbers, split on purpose
		set -- $(field base "$n")
		bw=$1 bc=$2 br=$3
		row="$1 | $2 | $3"
	fi
	echo "sim_scale.sh: hetsched, $n jobs" >&2
	run new "$n" "$hs"
	# shellcheck disable=SC2046 # four numbers, split on purpose
	set -- $(field new "$n")
	line="| $n | $4 | $1 | $2 | $3"
	if [ -n "$row" ]; then
		same=no
		[ "$(jq -S "$strip" "$out/base-$n.json")" = "$(jq -S "$strip" "$out/new-$n.json")" ] &&
			cmp -s "$out/base-$n.csv" "$out/new-$n.csv" && same=yes
		line="$line | $row | $(ratio "$bw" "$1") | $(ratio "$bc" "$2") | $(ratio "$br" "$3") | $same |"
	elif [ -n "$base" ]; then
		line="$line | - | - | - | - | - | - | - |"
	else
		line="$line |"
	fi
	rows="$rows$line
"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [ -n "$base" ]; then
	echo "| jobs | rounds | wall s | CPU s | peak RSS MB | baseline wall s | baseline CPU s | baseline RSS MB | wall ratio | CPU ratio | RSS ratio | identical |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|"
else
	echo "| jobs | rounds | wall s | CPU s | peak RSS MB |"
	echo "|---:|---:|---:|---:|---:|"
fi
printf '%s' "$rows"
