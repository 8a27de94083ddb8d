#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# spank_trace.sh — hetsched-trace-play on a real cluster: replays the first
# jobs of Gavel's small_test trace with emulated jobs, collects their JCTs
# from sacct, and each JCT is consistent with the table throughput of the
# GPU type the job ran on (which the job's AdminComment history names).
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/spank_lib.sh"
it_begin "hetsched-trace-play: a Gavel trace replayed with emulated jobs, JCTs from sacct"

trace=$HS_GAVEL/traces/physical_cluster/small_test.trace
[ -r "$trace" ] || bail "no trace at $trace"
spank_cluster t || bail "cluster did not come up"
work=$(mktemp -d /tmp/hs-it-spank-trace.XXXXXX)
scale=50
"$HS_BUILDDIR/hetsched-trace-play" --table "$HS_TABLE" --time-scale $scale --limit 6 --poll 1 \
	--timeout 240 --log-dir "$work/logs" --out "$work/jct.csv" "$trace" 2>"$work/err"
rc=$?
diag <"$work/err"
diag <"$work/jct.csv"
check "the player exits 0 (every job completed)" test $rc = 0
check "one CSV row per job" test "$(tail -n +2 "$work/jct.csv" | wc -l)" = 6
check "every job COMPLETED in one run" test "$(tail -n +2 "$work/jct.csv" | cut -d, -f7,8 | sort -u)" = "COMPLETED,1"
check "progress and a summary on stderr" grep -q "6 completed, 0 not; mean JCT" "$work/err"
# JCT >= steps / (table throughput on the type it ran on) / time scale,
# within sacct's one-second resolution.
while IFS=, read -r idx id model sf steps arr state inc sub end jct jctt; do
	gpu=$(record "$id" | $HS_AC get hist.0.gpu)
	min=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))[sys.argv[2]]["(%r, %s)" % (sys.argv[3].strip("\""), sys.argv[4])]["null"]
print(float(sys.argv[5]) / t / float(sys.argv[6]))' "$HS_TABLE" "$gpu" "$model" "$sf" "$steps" $scale)
	check "job $idx ($model, $sf GPU) on $gpu: JCT ${jct}s >= $(printf %.1f "$min")s of emulated work" \
		python3 -c "import sys; sys.exit(not float(sys.argv[1]) + 1 >= float(sys.argv[2]))" "$jct" "$min"
done < <(tail -n +2 "$work/jct.csv")
rm -rf "$work"
it_done
