#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_status_cli.sh — `hetsched status` on a status document as the
# sched plugin writes it: header (round, policy, GPU types, lock times,
# totals), job table (target X vs received share, estimates, reasons),
# --json, --jobs-only; finding the file from $HS_STATUS_FILE, from
# hetsched.conf's StatusFile and from slurm.conf's StateSaveLocation;
# missing, garbage and foreign files give a message and exit 1; under
# PrivateData=jobs another user sees only their own jobs, or the public
# summary when the full document is not readable (those points run as
# uid 65534 through setpriv when the test runs as root, else skip). TAP.
b=${HS_BUILDDIR:-.}
hs="$b/hetsched"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; fi; }

echo 1..23
now=$(date +%s)
cat >"$tmp/status.json" <<JSON
{"format":"hetsched-status","version":1,"time":$now,"round":42,"rounds":43,
 "policy":"max_min_fairness_perf","round_length":360,"preempt_mode":"requeue","last_reset":$now,
 "types":[{"name":"k80","gpus":4,"available":4,"busy":3},{"name":"v100","gpus":4,"available":2,"busy":2}],
 "round_stats":{"solve_ms":3.5,"engine_ms":4.25,"snapshot_lock_ms":0.42,"apply_lock_ms":1.75,
   "round_ms":9,"solved":1,"reset":1,"active":3,"pinned":1,"leaving":0,
   "planned":{"start":1,"keep":1,"checkpoint":1,"requeue":0,"suspend":0,"resume":0,"migrate":1},
   "done":{"started":1,"start_failed":0,"deferred":0,"kept":1,"checkpointing":1,"requeued":0,
           "requeue_failed":0,"suspended":0,"resumed":0,"vanished":0,"cpu_started":0}},
 "totals":{"started":10,"preempted":2,"migrated":3,"suspended":0,"resumed":0,"requeued":5,
           "checkpoints":4,"checkpoints_acked":3,"mech_rounds":43,"mech_resets":7,"lease_extensions":20},
 "entities":[{"name":"phys","parent":-1,"shares":2,"norm_shares":0.667,"target":0.6,"received":0.55,"jobs":2},
             {"name":"cs","parent":-1,"shares":1,"norm_shares":0.333,"target":0.4,"received":0.45,"jobs":1},
             {"name":"ann@phys","parent":0,"shares":1,"norm_shares":0.667,"target":0.6,"received":0.55,"jobs":2}],
 "jobs":[{"id":17,"state":"running","gpus":1,"nodes":["v100-1"],"type":"v100","op":"keep",
          "reason":"hetsched round 42: running on v100 (kept)","estimate":"measured",
          "target":{"v100":0.75,"k80":0.25},"received":{"v100":0.7,"k80":0.3},
          "received_s":{"v100":70},"active_s":100,"throughput":{"v100":10,"k80":2},
          "measured":{"v100":9.5}},
         {"id":18,"state":"pending","gpus":2,"op":"none","estimate":"agnostic",
          "reason":"hetsched round 42: waiting for its share of k80 (50% of the time)",
          "target":{"k80":0.5},"received":{},"throughput":{"v100":1,"k80":1},"measured":{}}],
 "ops":[{"id":19,"kind":"checkpoint","since":$now}]}
JSON

"$hs" status --file "$tmp/status.json" >"$tmp/out" 2>"$tmp/err"
check "status exits 0" test $? -eq 0
check "header: round and policy" grep -q '^hetsched: round 42 .*policy max_min_fairness_perf, rounds of 360 s' "$tmp/out"
check "GPU types with availability" grep -q 'v100 4 (available 2, busy 2)' "$tmp/out"
check "solve time and lock hold times" grep -q 'solve 3.5 ms, engine 4.2 ms, under locks 0.42 ms snapshot + 1.75 ms apply' "$tmp/out"
check "totals" grep -q 'started 10, preempted 2, migrated 3.*checkpoints 4 (acknowledged 3)' "$tmp/out"
check "job 17: target vs received and measured" grep -Eq '^17 +running +1 +v100 +keep +0.25/0.30 2 +0.75/0.70 10\(9.5\) +measured' "$tmp/out"
check "job 18: waiting reason" grep -q '^18 .*waiting for its share of k80' "$tmp/out"
check "in-flight checkpoint listed" grep -q 'in flight: 19:checkpoint' "$tmp/out"
check "nothing on stderr" test ! -s "$tmp/err"
check "accounts and users: Shares, entitled, target, received" \
	grep -Eq '^phys +2 +0.667 +0.600 +0.550 +2$' "$tmp/out"
check "a user is listed under its account, indented" \
	sh -c "grep -A1 '^phys ' '$tmp/out' | grep -Eq '^  ann@phys +1 +0.667 +0.600 +0.550 +2\$'"
"$hs" status --file "$tmp/status.json" --jobs-only >"$tmp/out2"
check "--jobs-only has no header" sh -c "! grep -q '^hetsched: round' '$tmp/out2' && grep -q '^17 ' '$tmp/out2'"
"$hs" status --file "$tmp/status.json" --json | grep -q '"round":42'
check "--json prints the document" test $? -eq 0

HS_STATUS_FILE="$tmp/status.json" "$hs" status --jobs-only >/dev/null 2>&1
check "HS_STATUS_FILE is used" test $? -eq 0
mkdir -p "$tmp/etc" "$tmp/state"
cp "$tmp/status.json" "$tmp/state/hetsched_status.json"
printf 'ClusterName=x\nStateSaveLocation=%s/state  # comment\n' "$tmp" >"$tmp/etc/slurm.conf"
SLURM_CONF="$tmp/etc/slurm.conf" "$hs" status --jobs-only >/dev/null 2>&1
check "StateSaveLocation from slurm.conf" test $? -eq 0
printf 'StatusFile=%s/status.json\n' "$tmp" >"$tmp/etc/hetsched.conf"
rm "$tmp/state/hetsched_status.json"
SLURM_CONF="$tmp/etc/slurm.conf" "$hs" status --jobs-only >/dev/null 2>&1
check "StatusFile from hetsched.conf" test $? -eq 0

"$hs" status --file "$tmp/none.json" >/dev/null 2>"$tmp/err"
check "missing file: exit 1 with a message" sh -c "test $? -eq 1 && grep -q 'does not exist' '$tmp/err'"
printf '{"format":"hetsched-status","version":1,' >"$tmp/torn.json"
"$hs" status --file "$tmp/torn.json" >/dev/null 2>"$tmp/err"
check "torn file: exit 1 with a message" sh -c "test $? -eq 1 && grep -q 'not valid JSON' '$tmp/err'"
echo '{"format":"hetsched-sched-state","version":1}' >"$tmp/state.json"
"$hs" status --file "$tmp/state.json" >/dev/null 2>"$tmp/err"
check "foreign document: exit 1 with a message" sh -c "test $? -eq 1 && grep -q 'not a version 1' '$tmp/err'"
# PrivateData=jobs (hetsched-status(1)): the document says "private_jobs";
# job 17 belongs to uid 65534, job 18 to root.
sed -e 's/^{"format":"hetsched-status",/{"format":"hetsched-status","private_jobs":true,/' \
	-e 's/{"id":17,/{"id":17,"user_id":65534,/' -e 's/{"id":18,/{"id":18,"user_id":0,/' \
	"$tmp/status.json" >"$tmp/private.json"
printf '{"format":"hetsched-status","version":1,"time":%s,"round":42,"policy":"x",' "$now" \
	>"$tmp/private.public.json"
printf '"round_length":360,"types":[],"private_jobs":true,"summary":true}\n' >>"$tmp/private.public.json"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$tmp"
	chmod 644 "$tmp/private.json" "$tmp/private.public.json"
	as_other() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	as_other "$hs" status --file "$tmp/private.json" >"$tmp/out" 2>&1
	check "private, readable: another user sees their own job" grep -q '^17 ' "$tmp/out"
	check "private, readable: ... and nobody else's, nor their ops" \
		sh -c "! grep -q '^18 ' '$tmp/out' && ! grep -q '19:checkpoint' '$tmp/out' && grep -q 'only your own' '$tmp/out'"
	chmod 600 "$tmp/private.json"
	as_other "$hs" status --file "$tmp/private.json" >"$tmp/out" 2>&1
	check "private, mode 0600: another user gets the public summary" \
		sh -c "grep -q '^hetsched: round 42' '$tmp/out' && grep -q 'private (PrivateData=jobs)' '$tmp/out' && ! grep -Eq '^1[78] ' '$tmp/out'"
	"$hs" status --file "$tmp/private.json" >"$tmp/out" 2>&1
	check "private: root sees every job" sh -c "grep -q '^17 ' '$tmp/out' && grep -q '^18 ' '$tmp/out'"
else
	for d in "readable: own job" "readable: no other job" "0600: summary" "root: all jobs"; do
		n=$((n + 1)); echo "ok $n # SKIP private $d: needs root and setpriv"
	done
fi
test "$failed" -eq 0
