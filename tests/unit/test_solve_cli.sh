#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_solve_cli.sh — `hetsched solve` end to end: a hand-worked instance
# (max-min value 7/6, see test_policy.c), --list, stdin input, and bad
# input (unknown policy, malformed JSON, negative counts, a job with no
# usable type) giving a message and a non-zero exit, never a crash.
# TAP output.
b=${HS_BUILDDIR:-.}
hs="$b/hetsched"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; fi; }

echo 1..14
cat >"$tmp/p.json" <<'JSON'
{"cluster": {"fast": 1, "slow": 2},
 "jobs": [{"id": "a", "remaining_steps": 100, "throughput": {"fast": 4, "slow": 1}},
          {"id": "b", "remaining_steps": 100, "throughput": {"fast": 2, "slow": 1}}]}
JSON

"$hs" solve --policy max_min_fairness_perf "$tmp/p.json" >"$tmp/out" 2>"$tmp/err"
check "solve exits 0" test $? -eq 0
check "objective is 7/6" grep -q '"objective":1.16666666667' "$tmp/out"
check "allocation of a on fast is 4/9" grep -q '"a":{"fast":0.444444444444' "$tmp/out"
check "nothing on stderr" test ! -s "$tmp/err"
check "policy and solve_ms reported" grep -q '"policy":"max_min_fairness_perf".*"solve_ms":' "$tmp/out"

"$hs" solve --policy isolated - <"$tmp/p.json" >"$tmp/out" 2>&1
check "stdin input" grep -q '"policy":"isolated"' "$tmp/out"

"$hs" solve --list >"$tmp/out"
check "--list names max_min_fairness_perf" grep -qx 'max_min_fairness_perf' "$tmp/out"

# expect_fail CODE PATTERN DESCRIPTION -- args...
expect_fail() {
	code=$1 pat=$2 desc=$3
	shift 3
	"$hs" solve "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq "$code" ] && grep -q -e "$pat" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "$desc"
	else
		nok "$desc (exit $rc: $(cat "$tmp/err"))"
	fi
}
expect_fail 2 "unknown policy 'nope'" "unknown policy" --policy nope "$tmp/p.json"
printf '{"cluster": {"a": 1}, "jobs": [' >"$tmp/bad.json"
expect_fail 1 "malformed JSON" "malformed JSON" --policy max_min_fairness "$tmp/bad.json"
printf '{"cluster": {"a": -2}, "jobs": []}' >"$tmp/neg.json"
expect_fail 1 "integer >= 0" "negative count" --policy max_min_fairness "$tmp/neg.json"
printf '{"cluster": {"a": 1}, "jobs": [{"id": "x", "remaining_steps": 1, "throughput": {"a": 0}}]}' >"$tmp/nu.json"
expect_fail 1 "no usable accelerator type" "job with no usable type" --policy max_min_fairness_perf "$tmp/nu.json"
expect_fail 1 "cannot open" "missing file" --policy isolated "$tmp/nonexistent.json"
expect_fail 2 "required" "no policy" "$tmp/p.json"
expect_fail 2 "--pop" "bad option value" --policy max_min_fairness --pop zero "$tmp/p.json"
exit 0
