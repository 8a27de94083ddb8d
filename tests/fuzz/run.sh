#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh — builds the libFuzzer targets with clang (ASan + UBSan) and fuzzes
# each for a while, growing the corpus kept in tests/fuzz/corpus/<target>.
# `make check` replays that corpus (tests/fuzz/replay.sh).
#
# Usage: tests/fuzz/run.sh [SECONDS_PER_TARGET (default 60)] [TARGET...]
#        targets: wire record problem hints gres proc listener estimator sacct
#        (default: all, one after another)
# Needs clang with libFuzzer (Debian: clang, libclang-rt-14-dev) and json-c.
# Crashes are written to tests/fuzz/crashes/ and make the script fail.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-wire record problem hints gres proc listener estimator sacct}
out=${HS_FUZZ_BUILD:-$top/_build/fuzz}
CC=${CC_FUZZ:-clang}
mkdir -p "$out" "$here/crashes"
# hs_config.h is not needed by these sources; src/ gives "report/..." and "core/...".
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$top/src"
jflags=$(pkg-config --cflags --libs json-c)
status=0
for t in $targets; do
	case $t in
	wire) src="$here/fuzz_wire.c $top/src/report/wire.c" ;;
	record) src="$here/fuzz_record.c $top/src/report/record.c $top/src/report/measure_err.c" ;;
	problem) src="$here/fuzz_problem.c $(cd "$top" && ls src/core/model.c src/core/thrtable.c \
		src/core/lp.c src/core/alloc_lp.c src/core/problem_json.c src/core/policy*.c |
		sed "s|^|$top/|" | tr '\n' ' ') -lglpk -lm" ;;
	hints) src="$here/fuzz_hints.c $top/src/sched/hints.c $top/src/report/hints.c -lm" ;;
	gres) src="$here/fuzz_gres.c $top/src/report/gres.c" ;;
	proc) src="$here/fuzz_proc.c $top/src/report/proc.c" ;;
	listener) src="$here/fuzz_listener.c $(for f in listener proc wire estimator measure_err; do
		printf '%s ' "$top/src/report/$f.c"; done) -lpthread -lm" ;;
	estimator) src="$here/fuzz_estimator.c $top/src/report/estimator.c -lm" ;;
	sacct) src="$here/fuzz_sacct.c $top/src/sched/learn_sacct.c $top/src/sched/learn.c \
		$top/src/sched/learn_json.c $top/src/report/record.c $top/src/report/measure_err.c \
		$top/src/core/model.c -lm" ;;
	*) echo "run.sh: unknown target $t" >&2; exit 2 ;;
	esac
	echo "== fuzz_$t: building" >&2
	# shellcheck disable=SC2086
	$CC $flags -o "$out/fuzz_$t" $src $jflags
	mkdir -p "$here/corpus/$t"
	echo "== fuzz_$t: fuzzing for ${secs}s (corpus tests/fuzz/corpus/$t)" >&2
	if ! "$out/fuzz_$t" -max_total_time="$secs" -max_len=4096 -print_final_stats=1 \
		-artifact_prefix="$here/crashes/$t-" "$here/corpus/$t" 2>"$out/fuzz_$t.log"; then
		echo "== fuzz_$t: FAILED, see $out/fuzz_$t.log and tests/fuzz/crashes/" >&2
		tail -n 30 "$out/fuzz_$t.log" >&2
		status=1
	else
		grep -E 'stat::number_of_executed_units|cov:' "$out/fuzz_$t.log" | tail -n 2 >&2
	fi
done
exit $status
