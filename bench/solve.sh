#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# solve.sh — how fast the policy engine solves, and in how much memory:
# solve time and peak memory against the number of active jobs (256 to
# 16,384; packed policies to 2,048) for every LP policy, next to
#   - a baseline measured in the same run: the naive formulation (one LP
#     row per job, no class aggregation, no folding, every partner column
#     of the packed LP from the start) with GLPK's default simplex settings
#     (primal, standard basis, no scaling, no presolve), and
#   - the numbers Gavel published for its CVXPY solver (max-min fairness
#     with space sharing: ~1.7 s at 256 jobs, 7.5 s at 512, 39 s at 1,024).
# Water filling rows have the baseline too (the full-LP method with its
# LP2/LP3 certificates). Then packed max-min with its warm start against
# the cold start (--no-warm), the target sizes (10,000
# jobs x 4 types; packed 1,024 jobs), a GLPK method comparison and POP
# partitioning.
#
# Instances: Gavel's measured throughput table (k80/p100/v100, plus a 4th
# type at 1.5x v100 for the 4-type rows), jobs of random job types, each
# job's throughputs perturbed by up to +-10% as online measurements would
# be, so no two jobs are alike (the hard case: class aggregation cannot
# help). Each time is the best of 3 runs, each run its own process (peak
# memory is that process's maximum resident set, instance included).
#
# Water filling over association trees (issue 29; --fairtree runs only
# this part): CPU time of the whole solve_bench process against a build
# of the code before trees (--base BUILDDIR, its bench/solve_bench: e.g.
# `git -C /work/main worktree add --detach /tmp/hs-base main`, then
# autoreconf, ../configure --without-slurm, make bench/solve_bench in
# /tmp/hs-base/_build), measured in the same run; that build knows one
# level of entities only, so on tree instances it solves the same jobs
# with the 8 accounts alone.
#
# Usage: bench/solve.sh [--quick] [--fairtree] [--base BASEBUILD] [BUILDDIR]
#   --quick     fewer sizes and repetitions (a couple of minutes)
#   --fairtree  only the association-tree section
#   --base DIR  the baseline build for that section (without it the
#               section has no 'before' column)
#   (default BUILDDIR: ./_build)
# Environment: HS_GAVEL_DATA (Gavel's data dir, default data/gavel
#   beside the checkout), HS_BENCH_TIMEOUT (seconds per baseline run, 120).
# Output: the tables on stdout; raw lines and a gnuplot plot (if gnuplot is
# installed) in BUILDDIR/bench-solve/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
quick=0
only_tree=0
build=
base=
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--fairtree) only_tree=1 ;;
	--base) shift; base=${1:?--base needs a build directory} ;;
	-h|--help) sed -n '3,43p' "$0"; exit 0 ;;
	*) build=$1 ;;
	esac
	shift
done
build=${build:-$top/_build}
build=$(cd "$build" && pwd)
data=${HS_GAVEL_DATA:-$top/data/gavel}
table=$data/simulation_throughputs.json
tmo=${HS_BENCH_TIMEOUT:-120}
[ -f "$table" ] || { echo "solve.sh: Gavel's table not found at $table (set HS_GAVEL_DATA)" >&2; exit 1; }
(cd "$build" && make -s bench/solve_bench >/dev/null) || { echo "solve.sh: cannot build bench/solve_bench in $build" >&2; exit 1; }
bin=$build/bench/solve_bench
out=$build/bench-solve
mkdir -p "$out"
raw=$out/solve.raw
: >"$raw"

if [ $quick = 1 ]; then
	reps=1
	sizes="256 1024 4096"
	psizes="256 1024"
	wsizes="256 1024"
	wsizes_warm="1024"
	bmax=1024 pbmax=256 wbmax=1024
else
	reps=3
	sizes="256 512 1024 2048 4096 8192 16384"
	psizes="256 512 1024 2048"
	wsizes="1024 2048 4096"
	wsizes_warm="1024 2048 4096"
	bmax=4096 pbmax=1024 wbmax=4096
fi
lp="max_min_fairness max_min_fairness_perf finish_time_fairness finish_time_fairness_perf
min_total_duration min_total_duration_perf max_sum_throughput_perf min_cost min_cost_slo"
packed="max_min_fairness_packed finish_time_fairness_packed min_total_duration_packed"

say() { echo "solve.sh: $*" >&2; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

# run POLICY N TYPES MODE [extra args]: best time of $reps runs; prints
# "seconds rss_kb", or "timeout" (also on any failure).
run() {
	pol=$1 n=$2 ty=$3 mode=$4
	shift 4
	best= rss=
	r=0
	while [ $r -lt $reps ]; do
		r=$((r + 1))
		if ! line=$(timeout "$tmo" "$bin" --table "$table" --policy "$pol" --jobs "$n" --types "$ty" "$@" 2>/dev/null); then
			echo timeout
			return
		fi
		echo "$line" >>"$raw"
		t=$(echo "$line" | field solve_s)
		m=$(echo "$line" | field rss_kb)
		if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then
			best=$t rss=$m
		fi
		[ "$mode" = baseline ] && break # one baseline run: they are long
	done
	echo "$best $rss"
}

gavel() {
	[ "$1" = max_min_fairness_packed ] || { echo "-"; return; }
	case $2 in 256) echo 1.7 ;; 512) echo 7.5 ;; 1024) echo 39 ;; *) echo "-" ;; esac
}

# table POLICIES SIZES BASELINE_MAX
table() {
	printf '%-36s %6s %10s %9s %11s %9s %10s\n' policy jobs "solve s" "peak MiB" "baseline s" speedup "Gavel s"
	for pol in $1; do
		for n in $2; do
			say "$pol, $n jobs"
			e=$(run "$pol" "$n" 3 engine)
			if [ "$e" = timeout ]; then
				printf '%-36s %6s %10s\n' "$pol" "$n" "> ${tmo}s"
				continue
			fi
			t=${e% *} m=${e#* }
			b="-" sp="-"
			if [ "$n" -le "$3" ]; then
				bl=$(run "$pol" "$n" 3 baseline --baseline)
				if [ "$bl" = timeout ]; then
					b="> $tmo" sp="> $(awk "BEGIN { printf \"%.0f\", $tmo / $t }")x"
				else
					b=${bl% *}
					sp=$(awk "BEGIN { printf \"%.1fx\", $b / $t }")
				fi
			fi
			printf '%-36s %6s %10.3f %9.1f %11s %9s %10s\n' "$pol" "$n" "$t" \
				"$(awk "BEGIN { print $m / 1024 }")" "$b" "$sp" "$(gavel "$pol" "$n")"
			echo "$n $t $m" >>"$out/plot-$pol.dat"
		done
	done
}

# cpu N BIN ARGS...: the process's user + system CPU seconds and its
# output line (best of N runs by CPU), as "cpu line"; "timeout" on any
# failure.
cpu() {
	cn=$1 cbin=$2
	shift 2
	cbest='' cline=''
	r=0
	while [ $r -lt "$cn" ]; do
		r=$((r + 1))
		if ! timeout "$tmo" /usr/bin/time -f '%U %S' -o "$out/time.txt" "$cbin" --table "$table" "$@" \
			>"$out/line.txt" 2>/dev/null; then
			echo timeout
			return
		fi
		c=$(awk '{ print $1 + $2 }' "$out/time.txt")
		cat "$out/line.txt" >>"$raw"
		if [ -z "$cbest" ] || awk "BEGIN { exit !($c < $cbest) }"; then
			cbest=$c cline=$(cat "$out/line.txt")
		fi
	done
	echo "$cbest $cline"
}

# fairtree_row LABEL BASEARGS -- ARGS: one row of the tree section
fairtree_row() {
	label=$1 bargs=$2 nargs=$3
	pol=max_min_fairness_water_filling_perf
	say "fairtree: $label"
	b="-"
	if [ -n "$base" ]; then
		# shellcheck disable=SC2086
		bl=$(cpu 1 "$base/bench/solve_bench" --policy $pol $bargs)
		b=${bl%% *}
		[ "$bl" = timeout ] && b="> $tmo"
	fi
	# shellcheck disable=SC2086
	nl=$(cpu "$reps" "$bin" --policy $pol $nargs)
	# shellcheck disable=SC2086
	nc=$(cpu 1 "$bin" --policy $pol $nargs --no-chains)
	n=${nl%% *} c=${nc%% *}
	[ "$nc" = timeout ] && c="> $tmo"
	if [ "$nl" = timeout ]; then
		printf '%-52s %9s %9s %9s\n' "$label" "$b" "> $tmo" "$c"
		return
	fi
	ratio="-"
	case $b in -|">"*) ;; *) ratio=$(awk "BEGIN { printf \"%.1fx\", $b / $n }") ;; esac
	printf '%-52s %9s %9.3f %9s %7s %9s %5s %7s\n' "$label" "$b" "$n" "$c" "$ratio" \
		"$(echo "$nl" | field cpu_s)" "$(echo "$nl" | field lp_solves)" "$(echo "$nl" | field chained)"
}

fairtree_section() {
	echo "== Water filling over an association tree: CPU seconds of the solve_bench process"
	echo "   (instance built from Gavel's table, 3 types, distinct jobs; this build best of $reps,"
	echo "   the others one run): 'before' is the --base build (one level: on a tree it solves"
	echo "   the same jobs under the 8 accounts alone), 'no chains' this build with one LP round"
	echo "   per level; solve s is this build's solve alone (CPU), chained the classes frozen by"
	echo "   saturation chains"
	printf '%-52s %9s %9s %9s %7s %9s %5s %7s\n' instance before "this" "no chains" speedup "solve s" LPs chained
	fairtree_row "4,096 jobs, no entities" "--jobs 4096" "--jobs 4096"
	fairtree_row "4,096 jobs, 8 accounts (1 level)" "--jobs 4096 --entities 8" "--jobs 4096 --entities 8"
	sizes_t="512 1024 2048"
	[ $quick = 1 ] && sizes_t="1024"
	for n in $sizes_t; do
		fairtree_row "$n jobs, 30 users, 8 accounts (2 levels)" "--jobs $n --entities 8" "--jobs $n --tree 8,0,30"
	done
	seeds_t="1 2 3"
	[ $quick = 1 ] && seeds_t="1"
	for sd in $seeds_t; do
		fairtree_row "4,096 jobs, 100 users, 8 accounts (3 levels), seed $sd" "--jobs 4096 --entities 8 --seed $sd" \
			"--jobs 4096 --tree 8,2,100 --seed $sd"
	done
	fairtree_row "4,096 jobs, 100 users, 8 accounts (3 levels), 4 types" "--jobs 4096 --entities 8 --types 4" \
		"--jobs 4096 --tree 8,2,100 --types 4"
	echo
}

rm -f "$out"/plot-*.dat
if [ $only_tree = 1 ]; then
	fairtree_section
	say "raw measurements: $raw"
	exit 0
fi

echo "== LP policies: solve time and peak memory vs active jobs (3 types, distinct jobs)"
table "$lp" "$sizes" "$bmax"
echo
echo "== Space sharing (packed) policies"
table "$packed" "$psizes" "$pbmax"
echo
echo "== Water filling (LP rounds until every job is frozen)"
table "max_min_fairness_water_filling max_min_fairness_water_filling_perf" "$wsizes" "$wbmax"
echo

echo "== Water filling with 8 accounts (hierarchical: fairness entities of weights"
echo "   1..8, jobs round robin), against the full-LP method (baseline)"
printf '%-36s %6s %10s %11s %9s\n' policy jobs "solve s" "baseline s" speedup
for n in $wsizes; do
	pol=max_min_fairness_water_filling_perf
	say "water filling, 8 accounts, $n jobs"
	e=$(run "$pol" "$n" 3 engine --entities 8)
	b=$(run "$pol" "$n" 3 baseline --baseline --entities 8)
	if [ "$e" = timeout ]; then
		printf '%-36s %6s %10s\n' "$pol" "$n" "> ${tmo}s"
	elif [ "$b" = timeout ]; then
		printf '%-36s %6s %10.3f %11s %9s\n' "$pol" "$n" "${e% *}" "> $tmo" \
			"> $(awk "BEGIN { printf \"%.0f\", $tmo / ${e% *} }")x"
	else
		printf '%-36s %6s %10.3f %11.3f %8.1fx\n' "$pol" "$n" "${e% *}" "${b% *}" \
			"$(awk "BEGIN { print ${b% *} / ${e% *} }")"
	fi
done
echo

fairtree_section

echo "== Packed max-min: starting basis from the unpacked solution"
echo "   (default) against the cold start of before (--no-warm), same run, 3 types"
printf '%-30s %6s %10s %10s %8s\n' policy jobs "warm s" "cold s" ratio
for pol in max_min_fairness_packed; do
	for n in $wsizes_warm; do
		say "warm start: $pol, $n jobs"
		w=$(run "$pol" "$n" 3 engine)
		c=$(run "$pol" "$n" 3 engine --no-warm)
		if [ "$w" = timeout ] || [ "$c" = timeout ]; then
			printf '%-30s %6s %10s %10s\n' "$pol" "$n" "${w% *}" "${c% *}"
			continue
		fi
		printf '%-30s %6s %10.3f %10.3f %7.1fx\n' "$pol" "$n" "${w% *}" "${c% *}" \
			"$(awk "BEGIN { print ${c% *} / ${w% *} }")"
	done
done
echo

echo "== Targets: 10,000 jobs x 4 types (non-packed, < 1 s); packed 1,024 jobs x 3 types (< 2 s)"
printf '%-30s %6s %5s %10s %9s\n' policy jobs types "solve s" "peak MiB"
for pol in $lp; do
	say "target: $pol"
	e=$(run "$pol" 10000 4 engine)
	printf '%-30s %6s %5s %10.3f %9.1f\n' "$pol" 10000 4 "${e% *}" "$(awk "BEGIN { print ${e#* } / 1024 }")"
done
for pol in $packed; do
	say "target: $pol"
	e=$(run "$pol" 1024 3 engine)
	printf '%-30s %6s %5s %10.3f %9.1f\n' "$pol" 1024 3 "${e% *}" "$(awk "BEGIN { print ${e#* } / 1024 }")"
done
echo

echo "== GLPK options (the default picks dual simplex for max-min-type LPs, primal for"
echo "   linear objectives and packed LPs, with automatic scaling), 4 types"
printf '%-30s %6s %-22s %10s\n' policy jobs options "solve s"
# opts POLICY N ARGS...: one row
opts() {
	pol=$1 n=$2
	shift 2
	e=$(run "$pol" "$n" 4 engine "$@")
	printf '%-30s %6s %-22s %10s\n' "$pol" "$n" "${*:-default}" "${e% *}"
}
for pol in max_min_fairness_perf finish_time_fairness_perf max_sum_throughput_perf; do
	say "GLPK options: $pol"
	opts "$pol" 10000
	opts "$pol" 10000 --method dual
	opts "$pol" 10000 --method primal
	opts "$pol" 10000 --noscale
done
say "GLPK options: max_min_fairness_packed"
opts max_min_fairness_packed 512
opts max_min_fairness_packed 512 --method dual
echo

echo "== POP partitioning (--pop K: K random sub-problems; approximate)"
printf '%-30s %6s %4s %10s %14s\n' policy jobs K "solve s" "objective"
for pol in max_min_fairness_perf max_min_fairness_packed; do
	n=16384
	[ "$pol" = max_min_fairness_packed ] && n=2048
	for k in 1 4 16; do
		say "POP: $pol, $n jobs, K=$k"
		line=$(timeout "$tmo" "$bin" --table "$table" --policy "$pol" --jobs "$n" --pop "$k" 2>/dev/null || echo timeout)
		echo "$line" >>"$raw"
		printf '%-30s %6s %4s %10s %14s\n' "$pol" "$n" "$k" "$(echo "$line" | field solve_s)" \
			"$(echo "$line" | field objective)"
	done
done

if command -v gnuplot >/dev/null 2>&1; then
	printf '256 1.7\n512 7.5\n1024 39\n' >"$out/gavel-cvxpy.dat"
	plots=
	for f in "$out"/plot-*.dat; do
		name=$(basename "$f" .dat)
		plots="$plots\"$f\" using 1:2 with linespoints title \"${name#plot-}\", "
	done
	gnuplot <<GNUPLOT 2>/dev/null || true
set terminal svg size 960,600
set output "$out/solve.svg"
set logscale xy
set xlabel "active jobs"
set ylabel "solve time (s)"
set key outside right
set title "hetsched policy solve time (GLPK, distinct jobs, 3 types)"
plot $plots "$out/gavel-cvxpy.dat" using 1:2 with points pt 7 ps 1.5 title "Gavel CVXPY, max-min packed"
GNUPLOT
	say "plot: $out/solve.svg"
fi
say "raw measurements: $raw"
