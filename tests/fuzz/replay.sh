#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# replay.sh — runs each fuzz target, built without libFuzzer by `make check`
# (tests/fuzz/replay_main.c), over its committed corpus in
# tests/fuzz/corpus/<target>. One TAP point per target: a crash, a sanitizer
# report (ASan build) or an aborted property fails it.
b=${HS_BUILDDIR:-.}
s=${HS_SRCDIR:-.}
targets="wire record problem hints gres proc listener estimator sacct"
n=0 failed=0
set -- $targets
echo "1..$#"
for t in $targets; do
	n=$((n + 1))
	out=$("$b/tests/fuzz/replay_$t" "$s/tests/fuzz/corpus/$t" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && echo "$out" | grep -q '^ok 1 '; then
		echo "ok $n - fuzz_$t: $(echo "$out" | sed -n 's/^ok 1 - [^:]*: //p')"
	else
		failed=$((failed + 1))
		echo "not ok $n - fuzz_$t replay (exit $rc)"
		echo "$out" | tail -n 20 | sed 's/^/# /'
	fi
done
[ $failed -eq 0 ]
