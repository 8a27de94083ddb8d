#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run_one.sh OUT.json [--after PREV.json] HETSCHED ARGS... — one simulation of the reproduction
# (bench/reproduce.sh). Skips the run when OUT.json already holds a result,
# so an interrupted reproduction resumes where it stopped. A run stopped by
# --max-time (exit 3) keeps its summary ("finished": false, the load was
# past saturation); a failed run leaves OUT.err with the message.
# HS_CPU_CAP=S (bench/reproduce.sh --cpu-cap): a run that uses more than S
# seconds of CPU is stopped (ulimit -t) and leaves a stub summary
# {"finished": false, "cpu_capped": true, "cpu_cap_s": S}: a CPU-time limit,
# not a wall-time one, so it does not depend on what else the machine runs.
out=$1
shift
[ -s "$out" ] && exit 0
# --after PREV.json: PREV is the same experiment at the next lower load; if
# that run saturated (stopped by --max-time, or itself skipped), this one
# would too, so it is not simulated: a stub summary says so. With -j N a
# load may start while the one below it is still running; it is then
# simulated (and may be stopped at the CPU cap): waiting for PREV instead
# would serialize every chain of loads.
if [ "$1" = --after ]; then
	prev=$2
	shift 2
	if [ -s "$prev" ] && [ "$(jq -r '.finished' "$prev")" = false ]; then
		mkdir -p "$(dirname "$out")"
		jq -n --arg p "$(basename "$prev" .json)" \
			'{finished: false, skipped: true, saturated_below: $p}' >"$out"
		echo "skip  $(basename "$out") (did not finish at a lower load)" >&2
		exit 0
	fi
fi
mkdir -p "$(dirname "$out")"
t0=$(date +%s)
cap=${HS_CPU_CAP:-}
(
	[ -z "$cap" ] || ulimit -t "$cap"
	exec "$@" --quiet
) >"$out.tmp" 2>"$out.err"
rc=$?
# SIGXCPU (152) at the soft limit; SIGKILL (137) if it got past it
if [ -n "$cap" ] && { [ $rc -eq 152 ] || [ $rc -eq 137 ]; }; then
	jq -n --argjson c "$cap" '{finished: false, cpu_capped: true, cpu_cap_s: $c}' >"$out"
	rm -f "$out.tmp" "$out.err"
	echo "$(date +%H:%M:%S) cap   $(basename "$out") (stopped at the ${cap} s CPU cap, $(($(date +%s) - t0)) s)" >&2
elif [ $rc -eq 0 ] || [ $rc -eq 3 ]; then
	mv "$out.tmp" "$out"
	rm -f "$out.err"
	echo "$(date +%H:%M:%S) done  $(basename "$out") (exit $rc, $(($(date +%s) - t0)) s)" >&2
else
	rm -f "$out.tmp"
	echo "FAIL  $(basename "$out"): $(head -c 300 "$out.err")" >&2
fi
exit 0
