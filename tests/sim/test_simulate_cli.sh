#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_simulate_cli.sh — `hetsched simulate` end to end: the hand-worked
# two-job case of test_sim.c (average JCT 901 s) through the command line,
# the per-job CSV, determinism of generated workloads, --write-trace
# replaying to the same result, --max-time, Gavel's own trace, learned
# throughputs (--unknown-models, --learned-out/in, `hetsched learned`), and bad
# input (malformed trace, unknown policy, missing options) giving a message
# and a non-zero exit, never a crash. TAP output.
b=${HS_BUILDDIR:-.}
hs="$b/hetsched"
gavel=${HS_GAVEL_DATA:-${HS_SRCDIR:-.}/data/gavel}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; fi; }
# the value of a top-level number in the summary (json-c prints "k":v)
val() { sed -n "s/^  \"$1\":\([^,]*\),*$/\1/p" "$2"; }

echo 1..51
printf '%s\n' "{\"fast\": {\"('A', 1)\": {\"null\": 1.0}}}" >"$tmp/table.json"
printf 'A\tc\td\t-s\t0\t720\t1\t1\t-1\t0\nA\tc\td\t-s\t0\t360\t1\t1\t-1\t0\n' >"$tmp/t.trace"
common="--throughputs $tmp/table.json --cluster fast:1 --quiet"

"$hs" simulate --policy isolated $common --trace "$tmp/t.trace" --csv "$tmp/jobs.csv" \
	>"$tmp/out" 2>"$tmp/err"
check "simulate exits 0" test $? -eq 0
check "average JCT 901 s" test "$(val avg_jct_s "$tmp/out")" = "901.0"
check "makespan 1081 s" test "$(val makespan_s "$tmp/out")" = "1081.0"
check "two preemptions" test "$(val preemptions "$tmp/out")" = "2"
check "--quiet: nothing on stderr" test ! -s "$tmp/err"
check "CSV has a header and 2 jobs" test "$(wc -l <"$tmp/jobs.csv")" -eq 3
check "CSV job 1 finished at 721" grep -q '^1,A,1,1,0.000000,361.000000,721.000000,721.000000,' "$tmp/jobs.csv"

"$hs" simulate --policy isolated $common --trace "$tmp/t.trace" --preempt-cost 60 >"$tmp/out"
check "restart cost 60 s delays job 0 to 1150 s" test "$(val avg_jct_s "$tmp/out")" = "935.5"
"$hs" simulate --policy isolated $common --trace "$tmp/t.trace" --preempt-cost 60 \
	--ignore-restart-cost >"$tmp/out"
check "--ignore-restart-cost is echoed" grep -q '"restart_aware":false' "$tmp/out"

# min_cost needs prices: without any it is refused as the plugin refuses
# such a hetsched.conf; with prices for other types only every solve fails
# (counted), and --save-failed keeps the first failing problem for
# `hetsched solve`
"$hs" simulate --policy min_cost $common --trace "$tmp/t.trace" >/dev/null 2>"$tmp/err"
check "min_cost without prices: exit 2, the configuration's message" \
	sh -c "test $? -eq 2 && grep -q 'GpuPrices' '$tmp/err'"
"$hs" simulate --policy min_cost $common --trace "$tmp/t.trace" --conf GpuPrices=other:1 \
	--save-failed "$tmp/fail.json" >"$tmp/out" 2>"$tmp/err"
check "min_cost without a price for its type: runs, solves fail" test "$(val solve_failures "$tmp/out")" -gt 0
check "--save-failed wrote the problem" test -s "$tmp/fail.json"
"$hs" solve --policy min_cost "$tmp/fail.json" >/dev/null 2>"$tmp/err"
check "replayed problem fails the same way" grep -q "needs a price" "$tmp/err"
"$hs" solve --policy max_min_fairness "$tmp/fail.json" >/dev/null 2>&1
check "saved problem is valid solve input" test $? -eq 0
"$hs" simulate --policy min_cost $common --trace "$tmp/t.trace" --prices fast=2.5 >"$tmp/out"
check "min_cost with --prices: no failure" test "$(val solve_failures "$tmp/out")" = "0"
"$hs" simulate --policy min_cost $common --trace "$tmp/t.trace" --prices slow=1 \
	>/dev/null 2>"$tmp/err"
check "--prices with an unknown type: exit 2, message" \
	sh -c "test $? -eq 2 && grep -q 'not in --cluster' '$tmp/err'"

# progress goes to stderr without --quiet
"$hs" simulate --policy isolated --throughputs "$tmp/table.json" --cluster fast:1 \
	--trace "$tmp/t.trace" >/dev/null 2>"$tmp/err"
check "progress on stderr" grep -q '^simulate: isolated t=' "$tmp/err"

if [ -r "$gavel/simulation_throughputs.json" ]; then
	g="--throughputs $gavel/simulation_throughputs.json --cluster v100:4,p100:4,k80:4 --quiet"
	"$hs" simulate --policy max_min_fairness_perf $g --generate --rate 2 --jobs 40 \
		--multi-gpu --seed 3 --write-trace "$tmp/gen.trace" >"$tmp/g1"
	check "generated workload runs" test $? -eq 0
	"$hs" simulate --policy max_min_fairness_perf $g --generate --rate 2 --jobs 40 \
		--multi-gpu --seed 3 >"$tmp/g2"
	check "same seed, same result" test "$(val avg_jct_s "$tmp/g1")" = "$(val avg_jct_s "$tmp/g2")"
	check "written trace has 40 jobs" test "$(wc -l <"$tmp/gen.trace")" -eq 40
	"$hs" simulate --policy max_min_fairness_perf $g --trace "$tmp/gen.trace" >"$tmp/g3"
	check "replaying the written trace gives the same JCT" \
		test "$(val avg_jct_s "$tmp/g1")" = "$(val avg_jct_s "$tmp/g3")"
	"$hs" simulate --policy max_min_fairness_perf $g --trace "$tmp/gen.trace" \
		--max-time 3600 >"$tmp/g4"
	check "--max-time stops early with exit 3" test $? -eq 3
	"$hs" simulate --policy max_min_fairness_perf --quiet \
		--throughputs "$gavel/simulation_throughputs.json" --cluster v100:36,p100:36,k80:36 \
		--trace "$gavel/traces/physical_cluster/minimize_makespan.trace" >"$tmp/g5"
	check "Gavel's trace: 100 jobs completed" test "$(val jobs_completed "$tmp/g5")" = "100"
	# users (issue 29): alice submits 9 jobs in 10, bob 1, in accounts of
	# equal Shares; the hierarchical policy gives each user what its
	# Shares entitle it to given what it asks for (entitle.h), within 10%
	# (bob got 72% of it when a job that had not run yet outranked
	# everything after each reset); per-job fairness does not
	u="--throughputs $gavel/simulation_throughputs.json --cluster v100:2,p100:2,k80:2 --quiet
	   --generate --jobs 100 --rate 0 --seed 2 --users alice@phys:0.9,bob@cs:0.1
	   --policy max_min_fairness_water_filling_perf"
	"$hs" simulate $u --csv "$tmp/u.csv" >"$tmp/u1"
	check "users: 90 jobs of alice, 10 of bob" \
		test "$(grep -c ',alice,phys$' "$tmp/u.csv") $(grep -c ',bob,cs$' "$tmp/u.csv")" = "90 10"
	check "users: every user got >= 0.9 of its entitlement" \
		awk -v v="$(val received_over_entitled_min "$tmp/u1")" 'BEGIN { exit !(v >= 0.9) }'
	"$hs" simulate $u --conf Fairness=jobs >"$tmp/u2"
	check "Fairness=jobs: bob gets < 0.8 of what Shares entitle it to" \
		awk -v v="$(val received_over_entitled_min "$tmp/u2")" 'BEGIN { exit !(v < 0.8) }'
	# GPU-seconds are the currency of the heterogeneity-agnostic policy
	# (the _perf one trades them for speed-normalized throughput)
	"$hs" simulate $u --accounts phys:1,cs:4 --policy max_min_fairness_water_filling >"$tmp/u3"
	check "account Shares 1:4 change who is entitled, still >= 0.85" \
		awk -v v="$(val received_over_entitled_min "$tmp/u3")" 'BEGIN { exit !(v >= 0.85) }'
	# the plugin's defaults (no --policy, no --conf): what an unconfigured
	# site runs is fair between users, and between accounts by Shares 2:1
	d="--throughputs $gavel/simulation_throughputs.json --cluster v100:2,p100:2,k80:2 --quiet
	   --generate --jobs 100 --rate 0 --seed 2 --users alice@phys:0.9,bob@cs:0.1"
	"$hs" simulate $d >"$tmp/d1"
	check "plugin defaults: the water-filling policy over the association tree" \
		grep -q '"policy":"max_min_fairness_water_filling_perf"' "$tmp/d1"
	check "plugin defaults, users 9:1 in jobs: each within 10% of its entitlement" \
		awk -v a="$(val received_over_entitled_min "$tmp/d1")" \
		    -v b="$(val received_over_entitled_max "$tmp/d1")" 'BEGIN { exit !(a >= 0.9 && b <= 1.1) }'
	"$hs" simulate $d --accounts phys:2,cs:1 >"$tmp/d2"
	check "plugin defaults, accounts at Shares 2:1: each within 10% of its entitlement" \
		awk -v a="$(val received_over_entitled_min "$tmp/d2")" \
		    -v b="$(val received_over_entitled_max "$tmp/d2")" 'BEGIN { exit !(a >= 0.9 && b <= 1.1) }'
else
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do skip "Gavel data not found at $gavel"; done
fi

# expect_fail CODE PATTERN DESCRIPTION -- args...
expect_fail() {
	code=$1 pat=$2 desc=$3
	shift 3
	"$hs" simulate "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq "$code" ] && grep -q -e "$pat" "$tmp/err"; then ok "$desc"; else
		nok "$desc (exit $rc, stderr: $(head -c 200 "$tmp/err"))"; fi
}
# without --throughputs the installed Gavel table is the default: the run
# uses it when `make install` put it there, else the error names its path
if "$hs" simulate --policy isolated --cluster v100:1 --quiet --trace "$tmp/t.trace" \
	>"$tmp/out" 2>"$tmp/err"; then
	check "default --throughputs: the installed table" grep -q '"avg_jct_s"' "$tmp/out"
else
	check "default --throughputs: the error names the installed table" \
		grep -q "hetsched/gavel/simulation_throughputs.json" "$tmp/err"
fi
printf 'A\tc\td\t-s\t0\t720\t1\t1\t-1\t0\nA\tc\td\t-s\t0\t-5\t1\t1\t-1\t0\n' >"$tmp/bad.trace"
expect_fail 1 "bad.trace:2: total steps" "malformed trace names the line" \
	--policy isolated $common --trace "$tmp/bad.trace"
expect_fail 2 "Policy=nosuch: unknown policy" "unknown policy" \
	--policy nosuch $common --trace "$tmp/t.trace"
expect_fail 2 "--cluster is required" "missing --cluster" \
	--policy isolated --throughputs "$tmp/table.json" --trace "$tmp/t.trace"
expect_fail 2 "exactly one of --trace and --generate" "no workload" \
	--policy isolated $common
expect_fail 1 "not in the throughput table" "cluster type missing from the table" \
	--policy isolated --throughputs "$tmp/table.json" --cluster slow:1 --quiet \
	--trace "$tmp/t.trace"
# Learned throughputs (issue 26): jobs that name no model (--unknown-models
# 1) teach the engine their true per-type rates (they report what they
# measure, as the SPANK plugin does); the table is written
# (--learned-out), `hetsched learned` exports it in Gavel's format, the
# export loads as a throughput table, a later run starts from it
# (--learned-in), and bad tables are refused with a message.
# model A: 10 steps/s on fast, 1 on slow; B: 4 and 2
printf '%s\n' "{\"fast\": {\"('A', 1)\": {\"null\": 10.0}, \"('B', 1)\": {\"null\": 4.0}}," \
	"\"slow\": {\"('A', 1)\": {\"null\": 1.0}, \"('B', 1)\": {\"null\": 2.0}}}" >"$tmp/ltable.json"
: >"$tmp/l.trace"
for i in 0 1 2 3 4 5; do
	printf 'A\tc\td\t-s\t0\t3000\t1\t1\t-1\t%d\n' $((i * 400)) >>"$tmp/l.trace"
	printf 'B\tc\td\t-s\t0\t1500\t1\t1\t-1\t%d\n' $((i * 400 + 200)) >>"$tmp/l.trace"
done
lcommon="--throughputs $tmp/ltable.json --cluster fast:1,slow:1 --trace $tmp/l.trace --quiet"

"$hs" simulate $lcommon --unknown-models 1 --learned-out "$tmp/l.json" >"$tmp/out" 2>"$tmp/err"
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
# A job that ends between two rounds still teaches its kind (the ended
# jobs of the next snapshot): A alone on fast, measured after 60 s, done
# at 150 s, long before the next round; B arrives at 1000 s.
printf 'A\tc\td\t-s\t0\t1500\t1\t1\t-1\t0\nB\tc\td\t-s\t0\t400\t1\t1\t-1\t1000\n' >"$tmp/e.trace"
"$hs" simulate --throughputs "$tmp/ltable.json" --cluster fast:1 --trace "$tmp/e.trace" --quiet \
	--unknown-models 1 --learned-out "$tmp/le.json" >/dev/null 2>"$tmp/err" &&
	"$hs" learned "$tmp/le.json" >"$tmp/le-gavel.json" 2>>"$tmp/err"
check "a job that ended between two rounds taught its kind" python3 -c "
import json, sys
t = json.load(open('$tmp/le-gavel.json'))
sys.exit(0 if abs(t['fast'][\"('u=1000/n=A', 1)\"]['null'] - 10) < 1e-6 else 1)"
"$hs" simulate $lcommon --unknown-models 1 --learned-in "$tmp/l.json" >"$tmp/out3" 2>"$tmp/err"
check "--learned-in (warm start) exits 0" test $? -eq 0
printf '{"format":"hetsched-learned","version":1,"types":["fast"],"kinds":[{"kind":"s/n=x","sf":1,"seen":0,"cells":{"fast":[1e300,1,0,0]}}]}\n' >"$tmp/lbad.json"
"$hs" learned "$tmp/lbad.json" >/dev/null 2>"$tmp/err"
check "hetsched learned refuses an absurd rate" sh -c "test $? -eq 1 && grep -q 'bad cell' '$tmp/err'"
"$hs" simulate $lcommon --learned-in "$tmp/lbad.json" >/dev/null 2>"$tmp/err"
check "--learned-in refuses it too" sh -c "test $? -ne 0 && grep -q 'lbad.json' '$tmp/err'"
"$hs" simulate $lcommon --unknown-models 2 >/dev/null 2>&1
check "--unknown-models above 1 is refused" test $? -eq 2
# strategic users (issue 28, doc/strategic.md)
sg="$common --generate --jobs 4 --rate 60 --seed 1 --users alice:0.5,bob:0.5"
"$hs" simulate $common --generate --jobs 4 --rate 60 --strategy bob:split >/dev/null 2>"$tmp/err"
check "--strategy without --users is refused" sh -c "test $? -eq 2 && grep -q 'a user of --users' '$tmp/err'"
"$hs" simulate $sg --strategy bob:nope >/dev/null 2>"$tmp/err"
check "an unknown strategy is refused" sh -c "test $? -eq 2 && grep -q \"unknown strategy 'nope'\" '$tmp/err'"
"$hs" simulate $sg --strategy carol:split >/dev/null 2>"$tmp/err"
check "a strategy for an unknown user is refused" sh -c "test $? -eq 2 && grep -q \"no user 'carol'\" '$tmp/err'"
"$hs" simulate $sg --strategy bob:split=3 >"$tmp/st" 2>"$tmp/err"
check "--strategy bob:split=3: bob's 2 jobs are 6 tasks, 2 submissions" python3 -c "
import json, sys
s = json.load(open('$tmp/st'))
b = s['users']['bob@sim']
sys.exit(0 if s['config']['strategies'] == {'alice': 'honest', 'bob': 'split=3'}
         and b['jobs'] == 6 and b['works_completed'] == 2 and s['jobs_completed'] == 8 else 1)"
[ $failed -eq 0 ]
