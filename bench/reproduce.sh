#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# reproduce.sh — reproduces the Gavel paper's simulation results with
# `hetsched simulate` and regenerates doc/results.md (tables, gnuplot
# plots in doc/results/, the speed figure).
#
# Usage: bench/reproduce.sh [--quick] [-j N] [--out DIR] [--hetsched PATH]
#                           [--cpu-cap S] [--first-seed-only LIST]
#   --quick   one seed, fewer loads, window 1000:1500 instead of three
#             seeds and jobs 4000-5000 (minutes instead of hours)
#   -j N      simulations run in parallel (default 1: the machine is shared)
#   --out DIR raw results (default bench/out/full or bench/out/quick);
#             finished runs are kept, so an interrupted run resumes
#   --cpu-cap S  stop a simulation after S seconds of CPU time (default
#             120; 0 = no cap): the report marks it "stopped at the CPU
#             cap" (a policy whose queue grows past saturation can take
#             hours to reach the simulated time limit)
#   --first-seed-only LIST  space-separated experiment names (jct-single,
#             jct-multi, ftf, makespan, consolidation, round, cost) or
#             EXP/POLICY pairs (e.g. jct-multi/max_min_fairness_packed)
#             run for the first seed only (a time budget; the report's
#             cells say n=1 and the header lists what was reduced)
#
# Experiments (cluster v100:36,p100:36,k80:36, one GPU per server, Gavel's
# throughput table; policies the build does not have are skipped and listed
# in the report):
#   jct-single  average JCT vs input load, single-GPU continuous workload:
#               LAS, Gavel's heterogeneity-aware LAS, the same with space
#               sharing, Gandiva, AlloX, FIFO
#   jct-multi   the same on the multi-GPU workload (AlloX has no rule for
#               multi-GPU jobs: ours starts them first-come first-served)
#   (a load above one where a policy saturated, same seed, is not
#   simulated: run_one.sh --after writes a stub marked skipped)
#   ftf         finish-time fairness, agnostic vs aware, multi-GPU
#   makespan    static traces (all jobs at t=0): FIFO, Gandiva, Gavel
#               (min_total_duration_perf), Gavel with space sharing, and
#               the heterogeneity-agnostic makespan LP
#   round       round length vs the ideal fluid allocation
#   consolidation  multi-GPU jobs at Gavel's consolidated throughput vs
#               the unconsolidated one when spread over servers (1 or 4
#               GPUs per server), 2 jobs/hour
#   cost        non-zero preemption (checkpoint + restart) cost, with
#               Gavel's mechanism and with the restart-aware one
#   speed       a 6,000-job trace, non-packed policies, wall time vs the
#               isolated policy (no solver) as baseline; run alone, last
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mode=full par=1 out= hs= cap=120 only1=
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) mode=quick ;;
	-j) par=$2; shift ;;
	--out) out=$2; shift ;;
	--hetsched) hs=$2; shift ;;
	--cpu-cap) cap=$2; shift ;;
	--first-seed-only) only1=$2; shift ;;
	-h|--help) sed -n '3,44p' "$0"; exit 0 ;;
	*) echo "reproduce.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$hs" ] || hs=$top/_build/hetsched
case "$cap" in ''|*[!0-9]*) echo "reproduce.sh: --cpu-cap takes whole seconds" >&2; exit 2 ;; esac
# run_one.sh reads the cap from the environment (0: no cap)
if [ "$cap" -gt 0 ]; then HS_CPU_CAP=$cap; export HS_CPU_CAP; else unset HS_CPU_CAP; fi
[ -x "$hs" ] || { echo "reproduce.sh: no hetsched at $hs (build first, or --hetsched)" >&2; exit 1; }
[ -n "$out" ] || out=$top/bench/out/$mode
gavel=${HS_GAVEL_DATA:-$top/data/gavel}
table=$gavel/simulation_throughputs.json
[ -r "$table" ] || { echo "reproduce.sh: no throughput table at $table (set HS_GAVEL_DATA)" >&2; exit 1; }
cluster=v100:36,p100:36,k80:36
mkdir -p "$out"

if [ $mode = full ]; then
	seeds="0 1 2" window=4000:5000 last=5000
	rates_single="1 2 3 4 5 5.5 6 7"
	rates_multi="0.5 1 1.5 2 2.25 2.5 3"
	static_jobs="100 200 400"
	rounds="60 180 360 720 1440 3600"
	costs="0 30 60 120 300 600"
	cdf_single=4 cdf_multi=2 knob_rate=4
else
	seeds="0" window=1000:1500 last=1500
	rates_single="2 4 6"
	rates_multi="1 2 3"
	static_jobs="100"
	rounds="60 360 1440"
	costs="0 60 300"
	cdf_single=4 cdf_multi=2 knob_rate=4
fi

# policy names: the first word of each line ("NAME (space sharing)")
avail=$("$hs" solve --list | awk '{ print $1 }')
have() { echo "$avail" | grep -qx "$1"; }
tasks=$out/tasks.txt
: >"$tasks"
# task FILE [--after PREV] ARGS...: one simulation (paths relative to
# $out); with --after, skipped if PREV (the next lower load) saturated
task() {
	f=$1 after=
	shift
	if [ "$1" = --after ]; then
		after="--after $out/$2"
		shift 2
	fi
	echo "$out/$f $after $hs simulate --throughputs $table $*" >>"$tasks"
}
# a simulated time limit: twice the arrival span plus 1000 hours
maxtime() { awk -v r="$1" -v n="$last" 'BEGIN { printf "%d", (2 * n / r + 1000) * 3600 }'; }
# Gavel's simulator: consolidated throughputs, allocations recomputed at
# most every 1920 s (the simulator's defaults are the plugin's: 0), and
# rounds only every round length: Gavel has no early rounds (the
# plugin's EarlyRounds=yes adds a round when jobs arrive or leave, which
# doubles the rounds and the simulation time, doc/scale.md)
gavel_sim="--cluster $cluster --consolidation always --reset-interval 1920 --conf EarlyRounds=no"

# reduced EXP [POLICY]: true if EXP (or EXP/POLICY) runs for the first
# seed only and $s is not the first seed
reduced() {
	[ "$s" != "$first" ] || return 1
	for x in $only1; do
		[ "$x" = "$1" ] || [ "$x" = "$1/${2:-}" ] && return 0
	done
	return 1
}
# tasks_for_seed S: every simulation of one seed (seed-major order, so an
# interrupted run has complete figures for the first seeds)
tasks_for_seed() {
	s=$1
	for p in max_min_fairness max_min_fairness_perf max_min_fairness_packed gandiva allox fifo; do
		have $p || continue
		reduced jct-single $p && continue
		prev=
		for r in $rates_single; do
			csv=
			[ "$r" = "$cdf_single" ] && [ "$s" = 0 ] && csv="--csv $out/jct-single/$p-r$r-s$s.csv"
			task "jct-single/$p-r$r-s$s.json" ${prev:+--after $prev} $gavel_sim --policy $p \
				--generate --rate $r --window $window --seed $s --max-time "$(maxtime $r)" $csv
			prev=jct-single/$p-r$r-s$s.json
		done
	done
	for p in max_min_fairness max_min_fairness_perf max_min_fairness_packed gandiva allox fifo; do
		have $p || continue
		reduced jct-multi $p && continue
		prev=
		for r in $rates_multi; do
			csv=
			[ "$r" = "$cdf_multi" ] && [ "$s" = 0 ] && csv="--csv $out/jct-multi/$p-r$r-s$s.csv"
			task "jct-multi/$p-r$r-s$s.json" ${prev:+--after $prev} $gavel_sim --policy $p \
				--generate --multi-gpu --rate $r --window $window --seed $s \
				--max-time "$(maxtime $r)" $csv
			prev=jct-multi/$p-r$r-s$s.json
		done
	done
	for p in finish_time_fairness finish_time_fairness_perf; do
		have $p || continue
		reduced ftf $p && continue
		prev=
		for r in $rates_multi; do
			csv=
			[ "$r" = "$cdf_multi" ] && [ "$s" = 0 ] && csv="--csv $out/ftf/$p-r$r-s$s.csv"
			task "ftf/$p-r$r-s$s.json" ${prev:+--after $prev} $gavel_sim --policy $p \
				--generate --multi-gpu --rate $r --window $window --seed $s \
				--max-time "$(maxtime $r)" $csv
			prev=ftf/$p-r$r-s$s.json
		done
	done
	for p in fifo gandiva min_total_duration min_total_duration_perf min_total_duration_packed; do
		have $p || continue
		reduced makespan $p && continue
		for n in $static_jobs; do
			task "makespan/$p-n$n-s$s.json" $gavel_sim --policy $p --generate --multi-gpu \
				--rate 0 --jobs $n --seed $s
		done
	done
	# Multi-GPU jobs spread over servers, at the unconsolidated throughput
	for p in max_min_fairness max_min_fairness_perf; do
		have $p || continue
		reduced consolidation $p && continue
		for v in always-1 placement-1 placement-4; do
			task "consolidation/$p-$v-s$s.json" --cluster $cluster --reset-interval 1920 \
				--consolidation ${v%-*} \
				--gpus-per-server ${v#*-} --policy $p --generate --multi-gpu --rate 2 \
				--window $window --seed $s --max-time "$(maxtime 2)"
		done
	done
	if have max_min_fairness_perf; then
		p=max_min_fairness_perf r=$knob_rate
		mt=$(maxtime $r)
		reduced round || task "round/ideal-s$s.json" $gavel_sim --policy $p --generate --rate $r --window $window \
			--seed $s --ideal --max-time $mt
		for rl in $rounds; do
			reduced round && break
			task "round/r$rl-reset1920-s$s.json" $gavel_sim --policy $p --generate --rate $r \
				--window $window --seed $s --round $rl --max-time $mt
			task "round/r$rl-reset0-s$s.json" $gavel_sim --policy $p --generate --rate $r \
				--window $window --seed $s --round $rl --reset-interval 0 --max-time $mt
		done
		for c in $costs; do
			reduced cost && break
			# Gavel's mechanism (choices blind to the cost) with 360 s and
			# 1440 s rounds, and the restart-aware mechanism
			for v in r360-ignore r1440-ignore r360-aware; do
				rl=${v%-*} rl=${rl#r}
				flag=
				[ "${v#*-}" = ignore ] && flag=--ignore-restart-cost
				task "cost/c$c-$v-s$s.json" $gavel_sim --policy $p --generate --rate $r \
					--window $window --seed $s --round $rl --preempt-cost $c $flag \
					--max-time $mt
			done
		done
	fi
}

# run_tasks: the simulations listed in $tasks
run_tasks() {
	n=$(wc -l <"$tasks")
	echo "reproduce.sh: $mode mode, $n simulations ($par in parallel), results in $out" >&2
	xargs -P "$par" -L 1 "$top/bench/run_one.sh" <"$tasks"
}

first=${seeds%% *}
tasks_for_seed "$first"
run_tasks

# Speed: each policy alone (after the first seed's runs), on one generated
# 6,000-job trace.
speed=$out/speed
mkdir -p "$speed"
[ -s "$speed/6000.trace" ] || "$hs" simulate --throughputs "$table" --cluster "$cluster" \
	--policy isolated --generate --rate 4 --jobs 6000 --seed 0 --quiet \
	--write-trace "$speed/6000.trace" >/dev/null
for p in isolated max_min_fairness max_min_fairness_perf fifo gandiva allox \
	finish_time_fairness_perf min_total_duration_perf max_sum_throughput_perf; do
	have $p || continue
	"$top/bench/run_one.sh" "$speed/$p.json" "$hs" simulate --throughputs "$table" \
		--cluster "$cluster" --consolidation always --reset-interval 1920 --policy $p \
		--trace "$speed/6000.trace"
done

# The other seeds, after the first seed's figures and the speed figure.
: >"$tasks"
for s in ${seeds#"$first"}; do
	tasks_for_seed "$s"
done
[ -s "$tasks" ] && run_tasks

HS_FIRST_SEED_ONLY=$only1 "$top/bench/report.sh" "$out" "$mode" "$hs" "$(echo $seeds | wc -w)" >"$top/doc/results.md"
echo "reproduce.sh: wrote $top/doc/results.md and plots in $top/doc/results/" >&2
