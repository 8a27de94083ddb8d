#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# report.sh OUT MODE HETSCHED [NSEEDS] — writes doc/results.md (on stdout) and the
# gnuplot plots (doc/results/*.svg) from the raw results bench/reproduce.sh
# left in OUT. Numbers come only from those files (jq); the discussion of
# how they compare with the paper is bench/discussion.md, appended as is.
set -eu
out=$1 mode=$2 hs=$3 nseeds=${4:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
plots=$top/doc/results
mkdir -p "$plots"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

label() {
	case "$1" in
	max_min_fairness) echo "LAS" ;;
	max_min_fairness_perf) echo "Gavel (LAS, het.-aware)" ;;
	max_min_fairness_packed) echo "Gavel w/ space sharing" ;;
	gandiva) echo "Gandiva" ;;
	allox) echo "AlloX" ;;
	fifo) echo "FIFO" ;;
	finish_time_fairness) echo "FTF (agnostic)" ;;
	finish_time_fairness_perf) echo "FTF (Gavel, het.-aware)" ;;
	min_total_duration) echo "makespan LP (agnostic)" ;;
	min_total_duration_perf) echo "Gavel (makespan)" ;;
	min_total_duration_packed) echo "Gavel w/ space sharing (makespan)" ;;
	isolated) echo "isolated (no solver)" ;;
	*) echo "$1" ;;
	esac
}

# files PATTERN: existing result files
files() { for f in $1; do [ -s "$f" ] && echo "$f"; done; return 0; }
# stat FIELD FILES...: "n unfinished mean min max skipped capped" of a
# numeric field (skipped: stubs run_one.sh wrote for loads above one that
# did not finish; capped: runs stopped at the CPU cap)
stat() {
	field=$1
	shift
	[ $# -gt 0 ] || { echo "0 0 - - - 0 0"; return; }
	jq -s -r --arg f "$field" '
		[.[] | select(.finished)] as $ok |
		[$ok[] | .[$f] | select(. != null)] as $v |
		"\(length) \(length - ($ok | length)) " +
		(if ($v | length) > 0 then "\($v | add / length) \($v | min) \($v | max)"
		 else "- - -" end) + " \([.[] | select(.skipped)] | length)" +
		" \([.[] | select(.cpu_capped)] | length)"' "$@"
}
# unfinished_cell "STAT": a table cell for runs that did not all finish:
# saturated (hit the simulated time limit) unless some stopped at the CPU cap
unfinished_cell() {
	# shellcheck disable=SC2086
	set -- $1
	n=$1 unf=$2 skip=$6 capd=$7
	extra=
	[ "$capd" != 0 ] && extra="; $capd at the CPU cap"
	[ "$skip" != 0 ] && extra="$extra; $skip not run"
	if [ "$capd" != 0 ]; then
		printf 'not finished (%s/%s%s)' "$unf" "$n" "$extra"
	else
		printf 'saturated (%s/%s%s)' "$unf" "$n" "$extra"
	fi
}
hours() { awk -v v="$1" 'BEGIN { if (v == "-") print "-"; else printf "%.1f", v / 3600 }'; }

# jct_table EXP "POLICIES" "RATES": markdown table of average JCT (hours,
# mean over seeds) per rate and policy, and a gnuplot data file per policy
jct_table() {
	exp=$1 pols=$2 rates=$3
	printf '| jobs/hour |'
	for p in $pols; do printf ' %s |' "$(label $p)"; done
	printf '\n|---|'
	for p in $pols; do printf -- '---|'; done
	printf '\n'
	for p in $pols; do : >"$tmp/$exp-$p.dat"; done
	for r in $rates; do
		printf '| %s |' "$r"
		for p in $pols; do
			# shellcheck disable=SC2046
			set -- $(files "$out/$exp/$p-r$r-s*.json")
			st=$(stat avg_jct_s "$@")
			# shellcheck disable=SC2086
			set -- $st
			n=$1 unf=$2 mean=$3 lo=$4 hi=$5
			if [ "$n" = 0 ]; then
				printf ' – |'
			elif [ "$unf" != 0 ]; then
				printf ' %s |' "$(unfinished_cell "$st")"
			else
				printf ' %s%s |' "$(hours "$mean")" "$([ "$n" -lt "$nseeds" ] && echo " (n=$n)")"
				echo "$r $(hours "$mean") $(hours "$lo") $(hours "$hi")" >>"$tmp/$exp-$p.dat"
			fi
		done
		printf '\n'
	done
}

# jct_plot EXP "POLICIES" TITLE: average JCT vs load, one line per policy
jct_plot() {
	exp=$1 pols=$2 title=$3
	cmd="set terminal svg size 720,440 dynamic; set output '$plots/$exp.svg';"
	cmd="$cmd set title '$title'; set xlabel 'input job rate (jobs/hour)';"
	cmd="$cmd set ylabel 'average JCT (hours)'; set key top left; set grid; plot"
	sep=
	for p in $pols; do
		[ -s "$tmp/$exp-$p.dat" ] || continue
		cmd="$cmd$sep '$tmp/$exp-$p.dat' using 1:2:3:4 with yerrorlines title '$(label $p)'"
		sep=,
	done
	[ -n "$sep" ] && gnuplot -e "$cmd"
	return 0
}

# cdf_plot NAME COLUMN XLABEL FILES...: CDFs of a per-job CSV column
# (measured, finished jobs only), one line per file
cdf_plot() {
	name=$1 col=$2 xl=$3
	shift 3
	cmd="set terminal svg size 720,440 dynamic; set output '$plots/$name.svg';"
	cmd="$cmd set xlabel '$xl'; set ylabel 'fraction of jobs'; set key bottom right;"
	cmd="$cmd set grid; set logscale x; plot"
	sep=
	for f in "$@"; do
		[ -s "$f" ] || continue
		p=$(basename "$f" | sed 's/-r[0-9.]*-s[0-9]*\.csv$//')
		awk -F, -v c="$col" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
			$NF == 1 && $k != "" { print $k }' "$f" | sort -g >"$tmp/$name-$p.v"
		nv=$(wc -l <"$tmp/$name-$p.v")
		[ "$nv" -gt 0 ] || continue
		awk -v n="$nv" '{ print $1, NR / n }' "$tmp/$name-$p.v" >"$tmp/$name-$p.cdf"
		cmd="$cmd$sep '$tmp/$name-$p.cdf' using 1:2 with lines title '$(label $p)'"
		sep=,
	done
	[ -n "$sep" ] && gnuplot -e "$cmd"
	return 0
}

avail=$("$hs" solve --list | awk '{ print $1 }' | tr '\n' ' ')
want="max_min_fairness max_min_fairness_perf max_min_fairness_packed gandiva allox fifo finish_time_fairness finish_time_fairness_perf min_total_duration_perf min_total_duration_packed"
missing=
for p in $want; do echo " $avail " | grep -q " $p " || missing="$missing $p"; done
rates_of() { for f in "$out"/"$1"/*-s0.json; do [ -e "$f" ] && basename "$f" .json; done |
	sed -n 's/.*-r\([0-9.]*\)-s0$/\1/p' | sort -g -u | tr '\n' ' '; }
pols_of() { for p in $2; do ls "$out/$1/$p"-r*.json >/dev/null 2>&1 && printf '%s ' $p; done; return 0; }

single_pols=$(pols_of jct-single "max_min_fairness max_min_fairness_perf max_min_fairness_packed gandiva allox fifo")
multi_pols=$(pols_of jct-multi "max_min_fairness max_min_fairness_perf max_min_fairness_packed gandiva allox fifo")
ftf_pols=$(pols_of ftf "finish_time_fairness finish_time_fairness_perf")
nruns=$(find "$out" -name '*.json' -exec jq -r 'select(.skipped | not) | 1' {} + | wc -l)
nskip=$(find "$out" -name '*.json' -exec jq -r 'select(.skipped) | 1' {} + | wc -l)
# simulated time: wall seconds of every run, summed
runtime=$(find "$out" -name '*.json' -exec cat {} + | jq -s '[.[] | .wall_s // 0] | add // 0 | . / 3600 * 10 | round / 10')
nfail=$(find "$out" -name '*.err' | wc -l)
ncap=$(find "$out" -name '*.json' -exec jq -r 'select(.cpu_capped) | 1' {} + | wc -l)
capval=$(find "$out" -name '*.json' -exec jq -r 'select(.cpu_capped) | .cpu_cap_s' {} + | sort -u | tr '\n' ' ' | sed 's/ $//')
# shellcheck disable=SC2046
nsfail=$(find "$out" -name '*.json' -exec cat {} + | jq -s '[.[] | .solve_failures // 0] | add // 0')

cat <<EOF
# Reproducing Gavel's simulation results with \`hetsched simulate\`

Generated by \`bench/reproduce.sh$( [ "$mode" = quick ] && echo " --quick")\` on $(date -u +%Y-%m-%d) from
$(cd "$top" && git describe --always --dirty 2>/dev/null || echo "an unversioned tree")
with the simulator binary \`$(basename "$hs")\`
($nruns simulations taking $runtime hours of wall time one at a time, $ncap of
them stopped at the CPU cap, $nskip more not run because a lower load did not
finish, $nfail failed, $nsfail failed
policy solves in all that kept the previous allocation; per seed:$(i=0; while [ $i -lt "$nseeds" ]; do printf ' seed %d: %d' $i "$(find "$out" -name "*-s$i.json" | wc -l)"; i=$((i + 1)); done)).
Do not edit by hand: rerun the command (finished runs are kept; cells
averaging fewer seeds than asked say so with n=).

## What was run

- Cluster: 36 V100 + 36 P100 + 36 K80, one GPU per server, Gavel's
  \`simulation_throughputs.json\`; \`--consolidation always\` (multi-GPU jobs
  run at the consolidated throughput, as in Gavel's simulator).
- Continuous workloads generated with Gavel's distributions (Poisson
  arrivals; 80% of jobs 10^U(1.5,3) min, 20% 10^U(3,4) min on a V100;
  multi-GPU: scale factors 1/2/4/8 with probabilities 0.7/0.1/0.15/0.05).
EOF
if [ "$mode" = full ]; then
	echo "- Measured: jobs 4000-5000 (\`--window 4000:5000\`), seeds 0, 1, 2; figures are"
	echo "  means over the seeds (plots: error bars span min..max)."
else
	echo "- **Quick mode**: measured jobs 1000-1500 (\`--window 1000:1500\`), seed 0 only,"
	echo "  fewer loads: indicative, not the paper's protocol. \`bench/reproduce.sh\`"
	echo "  without \`--quick\` runs jobs 4000-5000 over three seeds."
fi
cat <<EOF
- Mechanism: rounds of 360 s, allocation resets at most every 1920 s (both
  Gavel's defaults), no preemption cost unless stated.
- A load is marked *saturated* when a run hit the simulated time limit
  (twice the arrival span plus 1000 hours) before the measured jobs
  finished: the queue grows without bound there. *saturated (u/n)*: u of
  the n seeds' runs did not finish; *k not run*: for k of them the same
  policy and seed had already saturated at a lower load, so the higher
  load was not simulated (it saturates too).
EOF
if [ "$ncap" -gt 0 ]; then
	cat <<EOF
- *not finished (u/n; c at the CPU cap)*: c runs were stopped after
  $capval s of CPU time (\`bench/reproduce.sh --cpu-cap\`) before reaching the
  simulated time limit; no JCT is reported for them, and higher loads of
  the same policy and seed are not run. They are runs whose queue grows
  (past saturation, or a policy that starves long jobs), so every solve
  grows with the queue; the discussion below says which.
EOF
fi
cat <<EOF
- Policies: LAS = \`max_min_fairness\` (heterogeneity-agnostic), Gavel =
  \`max_min_fairness_perf\`, Gavel w/ space sharing =
  \`max_min_fairness_packed\`, Gandiva = \`gandiva\` (equal time shares,
  random pairs when the cluster is oversubscribed, types visited in a
  random order: the paper's "LAS w/ Gandiva SS"), AlloX = \`allox\`,
  FIFO = \`fifo\`; agnostic policies visit GPU types in a random order
  each round, aware ones fastest first (Gavel's convention).
EOF
if [ -n "${HS_FIRST_SEED_ONLY:-}" ] && [ "$nseeds" -gt 1 ]; then
	echo "- **Reduced scope**: run for seed 0 only (\`--first-seed-only\`, to fit the"
	echo "  time available; their cells say n=1): $(echo $HS_FIRST_SEED_ONLY | sed 's/ /, /g')."
fi
if [ -n "$missing" ]; then
	echo "- **Not run**: policies not in this build yet:$missing."
	echo "  Rerun the command when they land (finished runs are kept)."
fi
echo

if [ -n "$single_pols" ]; then
	echo "## Average JCT vs load, single-GPU jobs"
	echo
	echo "Average JCT of the measured jobs, hours."
	echo
	jct_table jct-single "$single_pols" "$(rates_of jct-single)"
	jct_plot jct-single "$single_pols" "single-GPU continuous workload"
	echo
	echo "![JCT vs load, single-GPU](results/jct-single.svg)"
	echo
	cdf_plot cdf-single jct_s "JCT (seconds)" $(for p in $single_pols; do echo "$out/jct-single/$p-r4-s0.csv"; done)
	[ -s "$plots/cdf-single.svg" ] && { echo "JCT distribution at 4 jobs/hour (seed 0):"; echo; echo "![JCT CDF, single-GPU](results/cdf-single.svg)"; echo; }
fi
if [ -n "$multi_pols" ]; then
	echo "## Average JCT vs load, multi-GPU jobs"
	echo
	jct_table jct-multi "$multi_pols" "$(rates_of jct-multi)"
	jct_plot jct-multi "$multi_pols" "multi-GPU continuous workload"
	echo
	echo "![JCT vs load, multi-GPU](results/jct-multi.svg)"
	echo
	cdf_plot cdf-multi jct_s "JCT (seconds)" $(for p in $multi_pols; do echo "$out/jct-multi/$p-r2-s0.csv"; done)
	[ -s "$plots/cdf-multi.svg" ] && { echo "JCT distribution at 2 jobs/hour (seed 0):"; echo; echo "![JCT CDF, multi-GPU](results/cdf-multi.svg)"; echo; }
fi
if [ -n "$ftf_pols" ]; then
	echo "## Finish-time fairness, agnostic vs heterogeneity-aware (multi-GPU)"
	echo
	echo "rho = JCT / JCT under an equal 1/M share of the cluster (M active jobs,"
	echo "integrated over the job's lifetime); lower is better, > 1 is unfair."
	echo
	echo "| jobs/hour | policy | avg JCT (h) | mean rho | p90 rho | max rho | share rho > 1 |"
	echo "|---|---|---|---|---|---|---|"
	for r in $(rates_of ftf); do
		for p in $ftf_pols; do
			# shellcheck disable=SC2046
			set -- $(files "$out/ftf/$p-r$r-s*.json")
			[ $# -gt 0 ] || continue
			jq -s -r --arg r "$r" --arg l "$(label $p)" '
				def f: if . == null then "–" else (. * 100 | round / 100 | tostring) end;
				if any(.[]; .cpu_capped) then "| \($r) | \($l) | not finished (CPU cap) | | | | |"
				elif any(.[]; .finished | not) then "| \($r) | \($l) | saturated | | | | |"
				else "| \($r) | \($l) | \([.[].avg_jct_s] | add / length / 3600 | f) | " +
				     "\([.[].ftf_rho.mean] | add / length | f) | " +
				     "\([.[].ftf_rho.p90] | add / length | f) | " +
				     "\([.[].ftf_rho.max] | max | f) | " +
				     "\([.[].ftf_rho.frac_above_1] | add / length | f) |" end' "$@"
		done
	done
	cdf_plot cdf-ftf ftf_rho "finish-time fairness rho" $(for p in $ftf_pols; do echo "$out/ftf/$p-r2-s0.csv"; done)
	[ -s "$plots/cdf-ftf.svg" ] && { echo; echo "rho distribution at 2 jobs/hour (seed 0):"; echo; echo "![FTF CDF](results/cdf-ftf.svg)"; }
	echo
fi
if ls "$out"/makespan/*.json >/dev/null 2>&1; then
	echo "## Makespan of static multi-GPU traces (all jobs at t = 0)"
	echo
	echo "| jobs | policy | makespan (h) | vs FIFO | vs agnostic makespan LP |"
	echo "|---|---|---|---|---|"
	for n in $(ls "$out"/makespan/*.json | sed -n 's/.*-n\([0-9]*\)-s[0-9]*\.json$/\1/p' | sort -g -u); do
		# shellcheck disable=SC2046
		base=$(set -- $(files "$out/makespan/fifo-n$n-s*.json"); stat makespan_s "$@" | cut -d' ' -f3)
		# shellcheck disable=SC2046
		agn=$(set -- $(files "$out/makespan/min_total_duration-n$n-s*.json"); stat makespan_s "$@" | cut -d' ' -f3)
		for p in fifo gandiva min_total_duration min_total_duration_perf min_total_duration_packed; do
			# shellcheck disable=SC2046
			set -- $(files "$out/makespan/$p-n$n-s*.json")
			[ $# -gt 0 ] || continue
			st=$(stat makespan_s "$@")
			m=$(echo "$st" | cut -d' ' -f3)
			if [ "$(echo "$st" | cut -d' ' -f2)" != 0 ]; then
				echo "| $n | $(label $p) | $(unfinished_cell "$st") | | |"
				continue
			fi
			r1=$(awk -v a="$m" -v b="$base" 'BEGIN { if (b == "-" || b == "" || a == "-") print "–"; else printf "%.2fx", a / b }')
			r2=$(awk -v a="$m" -v b="$agn" 'BEGIN { if (b == "-" || b == "" || a == "-") print "–"; else printf "%.2fx", a / b }')
			echo "| $n | $(label $p) | $(hours "$m") | $r1 | $r2 |"
		done
	done
	echo
fi
if ls "$out"/consolidation/*.json >/dev/null 2>&1; then
	echo "## Multi-GPU jobs spread over servers"
	echo
	echo "Multi-GPU workload at 2 jobs/hour. *Consolidated* is Gavel's simulator's"
	echo "assumption (every multi-GPU job at its single-server throughput, although"
	echo "the simulated servers have one GPU each); *placement* charges the table's"
	echo "unconsolidated throughput whenever the mechanism had to spread a job over"
	echo "servers. Average JCT in hours."
	echo
	echo "| policy | consolidated (1 GPU/server) | placement, 1 GPU/server | placement, 4 GPUs/server |"
	echo "|---|---|---|---|"
	for p in max_min_fairness max_min_fairness_perf; do
		row="| $(label $p) |"
		for v in always-1 placement-1 placement-4; do
			# shellcheck disable=SC2046
			set -- $(files "$out/consolidation/$p-$v-s*.json")
			if [ $# -eq 0 ]; then row="$row – |"; continue; fi
			st=$(stat avg_jct_s "$@")
			if [ "$(echo "$st" | cut -d' ' -f2)" != 0 ]; then row="$row $(unfinished_cell "$st") |"
			else row="$row $(hours "$(echo "$st" | cut -d' ' -f3)") |"; fi
		done
		echo "$row"
	done
	echo
fi
if ls "$out"/round/*.json >/dev/null 2>&1; then
	echo "## Round length: the mechanism against the ideal allocation"
	echo
	echo "Gavel's heterogeneity-aware LAS, single-GPU, 4 jobs/hour. *Ideal* runs the"
	echo "allocation as a fluid, recomputed at every arrival and completion."
	echo
	echo "| round (s) | avg JCT (h), resets >= 1920 s apart | avg JCT (h), reset at every change | preemptions+migrations per measured job |"
	echo "|---|---|---|---|"
	: >"$tmp/round1920.dat"
	: >"$tmp/round0.dat"
	for rl in $(ls "$out"/round/r*-s0.json | sed -n 's/.*\/r\([0-9]*\)-reset.*/\1/p' | sort -g -u); do
		# shellcheck disable=SC2046
		a=$(set -- $(files "$out/round/r$rl-reset1920-s*.json"); stat avg_jct_s "$@")
		# shellcheck disable=SC2046
		b=$(set -- $(files "$out/round/r$rl-reset0-s*.json"); stat avg_jct_s "$@")
		# shellcheck disable=SC2046
		pm=$(set -- $(files "$out/round/r$rl-reset1920-s*.json"); [ $# -gt 0 ] && jq -s -r '[.[] | select(.jobs_arrived) | (.preemptions + .migrations) / .jobs_arrived] | if length > 0 then add / length | . * 100 | round / 100 else "–" end' "$@")
		am=$(echo "$a" | cut -d' ' -f3) bm=$(echo "$b" | cut -d' ' -f3)
		echo "| $rl | $(hours "$am") | $(hours "$bm") | $pm |"
		[ "$am" != - ] && echo "$rl $(hours "$am")" >>"$tmp/round1920.dat"
		[ "$bm" != - ] && echo "$rl $(hours "$bm")" >>"$tmp/round0.dat"
	done
	# shellcheck disable=SC2046
	ideal=$(set -- $(files "$out/round/ideal-s*.json"); stat avg_jct_s "$@" | cut -d' ' -f3)
	echo "| ideal | $(hours "$ideal") | | |"
	echo
	gnuplot -e "set terminal svg size 720,440 dynamic; set output '$plots/round.svg';
		set xlabel 'round length (s)'; set ylabel 'average JCT (hours)'; set logscale x; set grid;
		set key top left; ideal = $(hours "$ideal");
		plot '$tmp/round1920.dat' with linespoints title 'rounds, resets >= 1920 s apart',
		     '$tmp/round0.dat' with linespoints title 'rounds, reset at every change',
		     ideal with lines dashtype 2 title 'ideal (fluid allocation)'"
	echo "![round length](results/round.svg)"
	echo
fi
if ls "$out"/cost/*.json >/dev/null 2>&1; then
	echo "## Preemption cost"
	echo
	echo "Gavel's heterogeneity-aware LAS, single-GPU, 4 jobs/hour; every restart"
	echo "(migration or resume after a preemption) loses the given seconds. *Gavel's"
	echo "mechanism* chooses as if restarts were free (\`--ignore-restart-cost\`);"
	echo "the *restart-aware* one scales the priority of a job that would restart by"
	echo "the share of the round it would still use."
	echo
	echo "| cost (s) | avg JCT (h): Gavel's mechanism, 360 s rounds | Gavel's mechanism, 1440 s rounds | restart-aware, 360 s rounds | restarts per job: Gavel's, 360 s | restart-aware, 360 s |"
	echo "|---|---|---|---|---|---|"
	for c in $(ls "$out"/cost/*-s0.json | sed -n 's/.*\/c\([0-9]*\)-r.*/\1/p' | sort -g -u); do
		row="| $c |"
		for v in r360-ignore r1440-ignore r360-aware; do
			# shellcheck disable=SC2046
			set -- $(files "$out/cost/c$c-$v-s*.json")
			if [ $# -eq 0 ]; then row="$row – |"; continue; fi
			st=$(stat avg_jct_s "$@")
			if [ "$(echo "$st" | cut -d' ' -f2)" != 0 ]; then row="$row $(unfinished_cell "$st") |"
			else row="$row $(hours "$(echo "$st" | cut -d' ' -f3)") |"; fi
		done
		for v in r360-ignore r360-aware; do
			# shellcheck disable=SC2046
			set -- $(files "$out/cost/c$c-$v-s*.json")
			if [ $# -eq 0 ]; then row="$row – |"; continue; fi
			# stubs (CPU cap) have no counters
			row="$row $(jq -s -r '[.[] | select(.jobs_arrived) | .restarts / .jobs_arrived] | if length > 0 then add / length | . * 100 | round / 100 else "–" end' "$@") |"
		done
		echo "$row"
	done
	echo
fi
if ls "$out"/speed/*.json >/dev/null 2>&1; then
	echo "## Speed"
	echo
	echo "One generated 6,000-job continuous trace (4 jobs/hour, single-GPU) on the"
	echo "108-GPU cluster, each policy run alone; baseline: the isolated policy"
	echo "(no solver), measured in the same command. The target is under a minute"
	echo "for non-packed policies (Gavel's Python simulator takes hours). Machine:"
	echo "$(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1),"
	echo "shared with other work (load average $(cut -d' ' -f1 /proc/loadavg) when the report was"
	echo "written), so CPU time is the fairer figure; wall time is shown too."
	echo
	echo "| policy | CPU time (s) | vs baseline | wall time (s) | solves | solver wall time (s) | rounds |"
	echo "|---|---|---|---|---|---|---|"
	bc=$(jq -r '.cpu_s // "-"' "$out/speed/isolated.json" 2>/dev/null || echo -)
	for p in isolated max_min_fairness max_min_fairness_perf fifo gandiva allox \
		finish_time_fairness_perf min_total_duration_perf max_sum_throughput_perf; do
		f=$out/speed/$p.json
		[ -s "$f" ] || continue
		jq -r --arg l "$(label $p)" --arg b "$bc" '
			"| \($l) | \(.cpu_s // 0 | . * 100 | round / 100) | " +
			(if $b == "-" or .cpu_s == null then "–"
			 else "\(.cpu_s / ($b | tonumber) * 100 | round / 100)x" end) +
			" | \(.wall_s * 100 | round / 100) | \(.solves) | \(.solve_s * 100 | round / 100)" +
			" | \(.rounds) |"' "$f"
	done
	echo
fi
# ---- Key figures against the paper's claims, computed from the runs ----
# ratio_line EXP A B: mean-JCT ratio A/B over the loads where both
# finished (smallest and largest, with their loads), and loads where A
# saturated but B did not (or the reverse)
ratio_line() {
	exp=$1 a=$2 b=$3 best= at= low= lat= sat= rsat=
	for r in $(rates_of "$exp"); do
		# only the seeds both policies ran (a policy may be reduced to seed 0)
		fa= fb=
		for f in $(files "$out/$exp/$a-r$r-s*.json"); do
			g=$out/$exp/$b-r$r-${f##*-r$r-}
			[ -s "$g" ] && fa="$fa $f" fb="$fb $g"
		done
		# shellcheck disable=SC2086
		sa=$(set -- $fa; stat avg_jct_s "$@")
		# shellcheck disable=SC2086
		sb=$(set -- $fb; stat avg_jct_s "$@")
		set -- $sa
		na=$1 ua=$2 ma=$3
		set -- $sb
		nb=$1 ub=$2 mb=$3
		[ "$na" != 0 ] && [ "$nb" != 0 ] || continue
		if [ "$ua" = 0 ] && [ "$ub" = 0 ]; then
			q=$(awk -v x="$ma" -v y="$mb" 'BEGIN { printf "%.2f", x / y }')
			if [ -z "$best" ] || awk -v q="$q" -v b="$best" 'BEGIN { exit !(q > b) }'; then
				best=$q at=$r
			fi
			if [ -z "$low" ] || awk -v q="$q" -v b="$low" 'BEGIN { exit !(q < b) }'; then
				low=$q lat=$r
			fi
		elif [ "$ua" != 0 ] && [ "$ub" = 0 ]; then
			sat="$sat $r"
		elif [ "$ua" = 0 ] && [ "$ub" != 0 ]; then
			rsat="$rsat $r"
		fi
	done
	[ -n "$best" ] && printf -- "- %s: average JCT of %s is **%sx** that of %s at %s jobs/hour (%sx at %s; loads where both finished, seeds both ran)" \
		"$exp" "$(label $a)" "$best" "$(label $b)" "$at" "$low" "$lat"
	[ -z "$best" ] && [ -n "$sat$rsat" ] && printf -- "- %s: %s vs %s" "$exp" "$(label $a)" "$(label $b)"
	[ -n "$sat" ] && printf "; at %s jobs/hour %s does not finish while %s does" "$(echo $sat | sed 's/ /, /g')" "$(label $a)" "$(label $b)"
	[ -n "$rsat" ] && printf "; at %s jobs/hour %s does not finish while %s does" "$(echo $rsat | sed 's/ /, /g')" "$(label $b)" "$(label $a)"
	[ -n "$best$sat$rsat" ] && echo "."
	return 0
}
# sustainable EXP P: highest load where every run finished
sustainable() {
	se=$1 sp=$2 s=
	for r in $(rates_of "$se"); do
		# shellcheck disable=SC2046
		set -- $(files "$out/$se/$sp-r$r-s*.json")
		[ $# -gt 0 ] || continue
		[ "$(stat avg_jct_s "$@" | cut -d' ' -f2)" = 0 ] && s=$r
	done
	echo "${s:-none}"
}
# knee EXP P: highest load whose mean JCT (every run finished) is at most
# twice the policy's own at the lowest load: a saturation criterion that
# also holds for FIFO, which finishes the measured jobs even when the queue
# grows without bound (later arrivals never overtake them)
knee() {
	ke=$1 kp=$2 k= base=
	for r in $(rates_of "$ke"); do
		# shellcheck disable=SC2046
		set -- $(files "$out/$ke/$kp-r$r-s*.json")
		[ $# -gt 0 ] || continue
		# shellcheck disable=SC2046
		set -- $(stat avg_jct_s "$@")
		[ "$2" = 0 ] || break
		[ -n "$base" ] || base=$3
		awk -v m="$3" -v b="$base" 'BEGIN { exit !(m <= 2 * b) }' || break
		k=$r
	done
	echo "${k:-none}"
}
echo "## Key figures"
echo
for exp in jct-single jct-multi; do
	ratio_line $exp max_min_fairness max_min_fairness_perf
	ratio_line $exp max_min_fairness max_min_fairness_packed
	ratio_line $exp max_min_fairness_perf max_min_fairness_packed
	ratio_line $exp gandiva max_min_fairness_packed
	ratio_line $exp allox max_min_fairness_perf
	ratio_line $exp fifo max_min_fairness_perf
	pols=$(pols_of $exp "max_min_fairness max_min_fairness_perf max_min_fairness_packed gandiva allox fifo")
	if [ -n "$pols" ]; then
		printf -- "- %s: highest tested load every run finished (of %s jobs/hour):" "$exp" "$(rates_of $exp | sed 's/ *$//; s/ /, /g')"
		sep=
		for p in $pols; do printf '%s %s %s' "$sep" "$(label $p)" "$(sustainable $exp $p)"; sep=";"; done
		echo "."
		printf -- "- %s: highest tested load with average JCT at most twice the policy's own at the lowest load (saturation knee; FIFO finishes its measured jobs even past saturation):" "$exp"
		sep=
		for p in $pols; do printf '%s %s %s' "$sep" "$(label $p)" "$(knee $exp $p)"; sep=";"; done
		echo "."
	fi
done
for n in $(ls "$out"/makespan/*.json 2>/dev/null | sed -n 's/.*-n\([0-9]*\)-s[0-9]*\.json$/\1/p' | sort -g -u); do
	for b in fifo gandiva min_total_duration min_total_duration_packed; do
		# shellcheck disable=SC2046
		mb=$(set -- $(files "$out/makespan/$b-n$n-s*.json"); stat makespan_s "$@" | cut -d' ' -f3)
		# shellcheck disable=SC2046
		mg=$(set -- $(files "$out/makespan/min_total_duration_perf-n$n-s*.json"); stat makespan_s "$@" | cut -d' ' -f3)
		[ -n "$mb" ] && [ -n "$mg" ] && [ "$mb" != - ] && [ "$mg" != - ] && awk -v a="$mb" -v g="$mg" -v n="$n" -v l="$(label $b)" \
			'BEGIN { printf "- makespan, %d static multi-GPU jobs: %s takes **%.2fx** as long as Gavel (makespan).\n", n, l, a / g }'
	done
done
for r in $(rates_of ftf); do
	# shellcheck disable=SC2046
	fa=$(set -- $(files "$out/ftf/finish_time_fairness-r$r-s*.json"); [ $# -gt 0 ] && jq -s -r 'if all(.[]; .finished) then [.[].ftf_rho.frac_above_1] | add / length else "-" end' "$@")
	# shellcheck disable=SC2046
	fg=$(set -- $(files "$out/ftf/finish_time_fairness_perf-r$r-s*.json"); [ $# -gt 0 ] && jq -s -r 'if all(.[]; .finished) then [.[].ftf_rho.frac_above_1] | add / length else "-" end' "$@")
	[ -n "$fa" ] && [ -n "$fg" ] && [ "$fa" != - ] && [ "$fg" != - ] && awk -v a="$fa" -v g="$fg" -v r="$r" \
		'BEGIN { printf "- finish-time fairness, multi-GPU, %s jobs/hour: %.0f%% of jobs finish later than under an equal share (rho > 1) with the agnostic FTF policy, %.0f%% with Gavel'"'"'s.\n", r, 100 * a, 100 * g }'
done
echo
[ -r "$top/bench/discussion.md" ] && cat "$top/bench/discussion.md"
exit 0
