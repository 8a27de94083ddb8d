#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_learned_cli.sh — learned throughputs end to end (issue 26): a
# simulation whose jobs name no model (--unknown-models 1) learns their
# true per-type rates through the engine (the jobs report what they
# measure, as the SPANK plugin does), writes the table (--learned-out),
# `hetsched learned` exports it in Gavel's format, the export loads as a
# throughput table, a later run starts from it (--learned-in), and bad
# files are refused with a message. TAP output.
b=${HS_BUILDDIR:-.}
hs="$b/hetsched"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; fi; }

echo 1..10
# model A: 10 steps/s on fast, 1 on slow; B: 4 and 2
printf '%s\n' "{\"fast\": {\"('A', 1)\": {\"null\": 10.0}, \"('B', 1)\": {\"null\": 4.0}}," \
	"\"slow\": {\"('A', 1)\": {\"null\": 1.0}, \"('B', 1)\": {\"null\": 2.0}}}" >"$tmp/table.json"
: >"$tmp/t.trace"
for i in 0 1 2 3 4 5; do
	printf 'A\tc\td\t-s\t0\t3000\t1\t1\t-1\t%d\n' $((i * 400)) >>"$tmp/t.trace"
	printf 'B\tc\td\t-s\t0\t1500\t1\t1\t-1\t%d\n' $((i * 400 + 200)) >>"$tmp/t.trace"
done
common="--throughputs $tmp/table.json --cluster fast:1,slow:1 --trace $tmp/t.trace --quiet"

"$hs" simulate $common --unknown-models 1 --learned-out "$tmp/l.json" >"$tmp/out" 2>"$tmp/err"
check "simulate --unknown-models 1 --learned-out exits 0" test $? -eq 0
check "the learned table was written" test -s "$tmp/l.json"
"$hs" learned "$tmp/l.json" >"$tmp/gavel.json" 2>"$tmp/err"
check "hetsched learned exits 0" test $? -eq 0
# the kinds are the job names (the model) in the user's scope (uid 1000,
# the simulator's first user), at the
# jobs' true rates where they ran
check "kind A on fast learned at its true 10 steps/s" python3 -c "
import json, sys
t = json.load(open('$tmp/gavel.json'))
sys.exit(0 if abs(t['fast'][\"('u=1000/n=A', 1)\"]['null'] - 10) < 1e-6 else 1)"
"$hs" learned --raw "$tmp/l.json" | grep -q '"format":"hetsched-learned"'
check "--raw: the stored table" test $? -eq 0
# the export is a throughput table the project reads: a job of type
# ('u=user/n=A', 1) simulates on it
printf 'u=1000/n=A\tc\td\t-s\t0\t100\t1\t1\t-1\t0\n' >"$tmp/k.trace"
"$hs" simulate --throughputs "$tmp/gavel.json" --cluster fast:1 --trace "$tmp/k.trace" \
	--quiet >"$tmp/out2" 2>"$tmp/err"
check "the export loads as --throughputs" test $? -eq 0
"$hs" simulate $common --unknown-models 1 --learned-in "$tmp/l.json" >"$tmp/out3" 2>"$tmp/err"
check "--learned-in (warm start) exits 0" test $? -eq 0
printf '{"format":"hetsched-learned","version":1,"types":["fast"],"kinds":[{"kind":"s/n=x","sf":1,"seen":0,"cells":{"fast":[1e300,1,0,0]}}]}\n' >"$tmp/bad.json"
"$hs" learned "$tmp/bad.json" >/dev/null 2>"$tmp/err"
check "hetsched learned refuses an absurd rate" sh -c "test $? -eq 1 && grep -q 'bad cell' '$tmp/err'"
"$hs" simulate $common --learned-in "$tmp/bad.json" >/dev/null 2>"$tmp/err"
check "--learned-in refuses it too" sh -c "test $? -ne 0 && grep -q 'bad.json' '$tmp/err'"
"$hs" simulate $common --unknown-models 2 >/dev/null 2>&1
check "--unknown-models above 1 is refused" test $? -eq 2
[ $failed -eq 0 ]
