#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_learn.sh — issue 26's live comparison repeated: runs
# `contrib/demo.sh --unknown-models` N times (declared, cold and warm runs
# of one workload on the local emulated cluster, each command its own
# three runs) and prints every command's cold and warm ratios to its own
# declared run, then their medians against the issue's targets (cold:
# JCT <= 1.15, fastest-type share >= 0.8; warm: <= 1.05, >= 0.95).
# One command's ratios move by 5-15% from run to run on a 2-core machine
# (doc/learning.md), so a target is judged on the median, and the
# spread is printed beside it.
#
# Usage: bench/live_learn.sh [--runs N] [--out DIR] [DEMO ARGS...]
#   --runs N   demo commands (default 3)
#   --out DIR  each command's output as DIR/run-K.out (default
#              bench/out/live_learn)
#   DEMO ARGS  passed to contrib/demo.sh after --unknown-models, e.g.
#              --workload contrib/demo/workload-24.txt --no-build
# Needs root (the demo starts slurmctld, slurmd, slurmdbd, MariaDB);
# about 10 minutes a command on the 8-job workload, 18 on the 24-job one.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=3 out=$top/bench/out/live_learn
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '3,20p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
case "$runs" in ''|*[!0-9]*|0) echo "live_learn.sh: --runs wants a positive count" >&2; exit 2 ;; esac
mkdir -p "$out"
# only this invocation's outputs are reported: a DIR reused from a run
# with more commands still holds older run-K.out files
outs=()
for k in $(seq "$runs"); do
	outs+=("$out/run-$k.out")
	echo "live_learn: command $k of $runs ($(date -u +%H:%M:%S) UTC)" >&2
	# a command that fails (a job not completed) still prints its ratios
	"$top/contrib/demo.sh" --unknown-models "$@" >"$out/run-$k.out" 2>"$out/run-$k.err" ||
		echo "live_learn: command $k exited $? (see $out/run-$k.err)" >&2
done
python3 "$top/bench/live_learn_report.py" "${outs[@]}"
