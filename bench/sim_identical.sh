#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim_identical.sh — checks that two builds of `hetsched simulate` give
# byte-identical results on the inputs of doc/results.md (a speed-up must
# not change what the simulator computes).
#
# Usage: bench/sim_identical.sh --baseline PATH [--hetsched PATH]
#                               [--mode quick|full] [--cpu-cap S] [--out DIR]
#   --baseline PATH  the reference binary (e.g. a build of main)
#   --hetsched PATH  the binary under test (default: _build/hetsched)
#   --mode M         the task list of bench/reproduce.sh --quick (default)
#                    or of the full reproduction (first seed only; hours)
#   --cpu-cap S      CPU seconds per run (default 300); a run either binary
#                    does not finish within it is reported "capped", not
#                    compared
#   --out DIR        where the outputs go (default bench/out/identical)
#   --only REGEX     only the runs whose name (EXP_POLICY-...) matches
#
# Every simulation of reproduce.sh's first seed (its own task list, taken
# from the script) runs with both binaries, each with --csv and --timeline
# (per job, and per job per GPU per round: every placement). The summary
# JSON is compared without its timing fields (solve_s, wall_s, cpu_s); the
# CSV and the timeline byte for byte. Prints one line per run and a count;
# exits 1 if any output differs.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
base='' hs=$top/_build/hetsched mode=quick cap=300 out=$top/bench/out/identical only=
while [ $# -gt 0 ]; do
	case "$1" in
	--baseline) base=$2; shift ;;
	--hetsched) hs=$2; shift ;;
	--mode) mode=$2; shift ;;
	--cpu-cap) cap=$2; shift ;;
	--out) out=$2; shift ;;
	--only) only=$2; shift ;;
	-h|--help) sed -n '3,24p' "$0"; exit 0 ;;
	*) echo "sim_identical.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$base" ] || { echo "sim_identical.sh: --baseline PATH is required" >&2; exit 2; }
[ -x "$hs" ] || { echo "sim_identical.sh: no hetsched at $hs" >&2; exit 2; }
command -v jq >/dev/null || { echo "sim_identical.sh: needs jq" >&2; exit 2; }
mkdir -p "$out"
# reproduce.sh's task list: its text up to where it starts running, then
# the first seed's tasks (nothing runs; the list goes to $out/tasks.txt).
flag=
[ "$mode" = quick ] && flag=--quick
gen=$out/gen.sh
sed -n '1,/^first=/p' "$top/bench/reproduce.sh" >"$gen"
# shellcheck disable=SC2016 # expanded by the generated script
echo 'tasks_for_seed "$first"' >>"$gen"
HS_GAVEL_DATA=${HS_GAVEL_DATA:-$top/data/gavel} sh "$gen" $flag --out "$out/runs" --hetsched "$hs" --cpu-cap 0
tasks=$out/runs/tasks.txt
same=0 differ=0 capped=0
# one line per task: OUT [--after PREV] HETSCHED simulate ARGS...
while read -r f rest; do
	# shellcheck disable=SC2086 # the task's words, split on purpose
	set -- $rest
	[ "$1" = --after ] && shift 2
	shift # the binary reproduce.sh named; ours come from the options
	name=$(echo "${f#"$out/runs/"}" | tr / _)
	name=${name%.json}
	[ -z "$only" ] || echo "$name" | grep -Eq -- "$only" || continue
	ok=1
	for who in base new; do
		bin=$base
		[ $who = new ] && bin=$hs
		rc=0
		# shellcheck disable=SC3045 # ulimit -t: dash and bash have it
		( ulimit -t "$cap"; exec nice -n 15 "$bin" "$@" --quiet \
			--csv "$out/$name.$who.csv" --timeline "$out/$name.$who.tl" ) \
			>"$out/$name.$who.json" 2>"$out/$name.$who.err" || rc=$?
		# 3: stopped by --max-time (a result); SIGXCPU/SIGKILL: the cap
		case $rc in 0|3) ;; *) ok=0 ;; esac
	done
	if [ $ok = 0 ]; then
		capped=$((capped + 1))
		echo "capped  $name"
		continue
	fi
	strip='del(.solve_s, .wall_s, .cpu_s)'
	if [ "$(jq -S "$strip" "$out/$name.base.json")" = "$(jq -S "$strip" "$out/$name.new.json")" ] &&
		cmp -s "$out/$name.base.csv" "$out/$name.new.csv" &&
		cmp -s "$out/$name.base.tl" "$out/$name.new.tl"; then
		same=$((same + 1))
		echo "same    $name"
		rm -f "$out/$name".*.tl # large; kept only when they differ
	else
		differ=$((differ + 1))
		echo "DIFFERS $name"
	fi
done <"$tasks"
echo "sim_identical.sh: $same identical, $differ differ, $capped capped (cap ${cap} s CPU)"
[ $differ = 0 ]
