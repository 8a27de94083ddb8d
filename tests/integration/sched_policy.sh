#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_policy.sh — sched/hetsched's rounds against the policy, with
# time-scaled emulated training jobs (hetsched-emulator, Gavel table,
# checkpoint on request) on one v100 and one k80:
#  1. unchanged assignments are not preempted: two jobs pinned to one type
#     each (X = 1) run through many rounds in one incarnation;
#  2. under contention (3 jobs, 2 GPUs) a job much faster on v100 and one
#     faster on k80 land on those types, and every job's received time
#     fractions per type converge to the policy's X (`hetsched solve` on
#     the same problem) within a stated tolerance;
#  3. migrations move jobs between types and they continue from their
#     checkpoint: acknowledged checkpoints, resume at the checkpointed step
#     on the other type, no step run twice, none lost.
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched vs the policy: no needless preemption, convergence to X, migration from checkpoints"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
sched_cluster p v100:1:1,k80:1:1 || bail "cluster did not come up"
log=$P_DIR/log/slurmctld.log
round=8
check "hetsched.conf: ${round} s rounds, Gavel table" it_hetsched_conf "$P_DIR" \
	RoundLength=$round MinRoundInterval=2 "ThroughputTable=$HS_TABLE" CheckpointGrace=20 \
	Policy=max_min_fairness_perf
work=$(mktemp -d /tmp/hs-it-sched-policy.XXXXXX)
export PATH=$HS_BUILDDIR:$PATH
scale=10
printf '#!/bin/bash\nsrun %s --table %s --time-scale %s\n' "$HS_EMU" "$HS_TABLE" "$scale" >"$work/emu.sh"
chmod +x "$work/emu.sh"
# submit NAME MODEL STEPS [sbatch options]: an emulated job that
# checkpoints on request.
submit() {
	local name=$1 model=$2 steps=$3
	shift 3
	sbatch --parsable --requeue --open-mode=append -J "$name" -o "$work/$name.out" \
		--hs-ckpt-dir="$work/ck/%j" --hs-model="$model" --hs-steps="$steps" "$@" "$work/emu.sh"
}
incarnations() { sacct -j "$1" -D -X -P -n -o State | wc -l; }

# 1. X = 1 for both: each job stays where it is, round after round.
a=$(submit keep-v100 "ResNet-18 (batch size 64)" 100000000 --gres=gpu:v100:1)
b=$(submit keep-k80 "ResNet-18 (batch size 64)" 100000000 --gres=gpu:k80:1)
wait_rounds "$P_DIR" 6 120
check "typed jobs: still running after 6 rounds" test "$(squeue -h -j "$a,$b" -t R | wc -l)" = 2
check "typed jobs: kept, never preempted (one incarnation each)" test "$(incarnations "$a")/$(incarnations "$b")" = 1/1
check "typed jobs: the plan said keep" test "$(status_field "$P_DIR" '[j["op"] for j in s["jobs"] if j["id"] == '"$a"'][0]')" = keep
scancel "$a" "$b"
wait_gone 60 "$a" "$b"

# 2. Contention: three jobs, two GPUs. ResNet-18 (batch size 256) is
# 11.6x faster on v100, Recommendation (batch size 1024) 1.5x faster on
# k80, LM (batch size 10) 3.4x faster on v100. Submitted held and released
# together: one allocation for the whole run.
fast_v100="ResNet-18 (batch size 256)"
fast_k80="Recommendation (batch size 1024)"
third="LM (batch size 10)"
j1=$(submit rn18 "$fast_v100" 100000000 -H --gres=gpu:1)
j2=$(submit rec "$fast_k80" 100000000 -H --gres=gpu:1)
j3=$(submit lm "$third" 100000000 -H --gres=gpu:1)
scontrol release "$j1" "$j2" "$j3"
# The policy's X for the same problem, from `hetsched solve`.
cat >"$work/problem.json" <<EOF
{"cluster": {"k80": 1, "v100": 1},
 "jobs": [{"id": "$j1", "job_type": "('$fast_v100', 1)", "remaining_steps": 1e8},
          {"id": "$j2", "job_type": "('$fast_k80', 1)", "remaining_steps": 1e8},
          {"id": "$j3", "job_type": "('$third', 1)", "remaining_steps": 1e8}]}
EOF
"$HS_CLI" solve --policy max_min_fairness_perf --throughputs "$HS_TABLE" "$work/problem.json" >"$work/x.json"
check "hetsched solve gives the reference X" test -s "$work/x.json"
nrounds=30
check "$nrounds rounds with the three jobs" wait_rounds "$P_DIR" $nrounds $((nrounds * round * 3))
"$HS_CLI" status >"$work/status.txt" 2>&1
diag <"$work/status.txt"
# Compare target and received per job and type; tolerance 0.12 of wall
# time after 30 rounds (round-robin granularity 1/30 plus the seconds a
# checkpoint + requeue + restart takes at each switch).
python3 - "$P_DIR/spool/slurmctld/hetsched_status.json" "$work/x.json" "$j1" "$j2" "$j3" >"$work/cmp.txt" <<'PY'
import json, sys
st = json.load(open(sys.argv[1])); ref = json.load(open(sys.argv[2]))["allocation"]
jobs = {str(j["id"]): j for j in st["jobs"]}
for jid in sys.argv[3:]:
    j = jobs[jid]
    for t in ("v100", "k80"):
        print(jid, t, "%.3f" % ref[jid].get(t, 0.0), "%.3f" % j["target"].get(t, 0.0),
              "%.3f" % j["received"].get(t, 0.0))
PY
diag <"$work/cmp.txt"
check "plugin's X equals hetsched solve's X on the same problem" \
	awk '{ d = $3 - $4; if (d < 0) d = -d; if (d > 0.01) bad = 1 } END { exit bad || NR != 6 }' "$work/cmp.txt"
check "received fractions within 0.12 of X for every job and type" \
	awk '{ d = $4 - $5; if (d < 0) d = -d; if (d > 0.12) bad = 1 } END { exit bad || NR != 6 }' "$work/cmp.txt"
check "ResNet-18 (11.6x faster on v100) ran mostly on v100" \
	awk -v j="$j1" '$1 == j && $2 == "v100" { v = $5 } $1 == j && $2 == "k80" { k = $5 } END { exit !(v > k) }' "$work/cmp.txt"
check "Recommendation (1.5x faster on k80) ran mostly on k80" \
	awk -v j="$j2" '$1 == j && $2 == "k80" { k = $5 } $1 == j && $2 == "v100" { v = $5 } END { exit !(k > v) }' "$work/cmp.txt"
check "checkpoints were acknowledged (not just grace expiry)" \
	test "$(status_field "$P_DIR" 's["totals"]["checkpoints_acked"] > 0')" = True

# 3. Migration from checkpoints: incarnations on both types, resumed at
# the checkpointed step, nothing run twice.
scancel "$j1" "$j2" "$j3"
wait_gone 120 "$j1" "$j2" "$j3"
# An incarnation cancelled while pending (one of three jobs always waits)
# has NodeList "None assigned": only the types count.
migrated=0
for j in $j1 $j2 $j3; do
	types=$(sacct -j "$j" -D -X -P -n -o NodeList | sed 's/-.*//' | grep -x -e k80 -e v100 | sort -u | tr '\n' ' ')
	[ "$types" = "k80 v100 " ] && migrated=$j
done
check "a job ran on both types (migrated)" test "$migrated" != 0
# (not from sacct: the row of an incarnation cancelled while pending can
# be slurmdbd's placeholder, JobName "allocation")
case $migrated in $j1) name=rn18 ;; $j2) name=rec ;; $j3) name=lm ;; *) name=none ;; esac
out=$work/$name.out
check "the migrated job resumed from its checkpoints" grep -q 'resume step=[1-9]' "$out"
# Every resume starts at the step the previous incarnation checkpointed
# and ended at (the hold keeps it from running past the checkpoint).
python3 - "$out" >"$work/steps.txt" <<'PY'
import re, sys
last_ckpt, bad, resumes = None, 0, 0
for line in open(sys.argv[1]):
    m = re.search(r"terminated by signal \d+ step=(\d+) ran=\d+ last_ckpt=(\d+)", line)
    if m:
        if m.group(1) != m.group(2):
            bad += 1  # ran past its checkpoint: steps would repeat
        last_ckpt = m.group(2)
    m = re.search(r"resume step=(\d+)", line)
    if m:
        resumes += 1
        if last_ckpt is not None and m.group(1) != last_ckpt:
            bad += 1
print(resumes, bad)
PY
read -r resumes bad <"$work/steps.txt"
check "resumed $resumes times, each at the step its last run checkpointed and stopped at" \
	test "$resumes" -ge 1 -a "$bad" = 0
check "no error from the plugin" sh -c "! grep -E 'error: sched/hetsched' '$log'"
rm -rf "$work"
it_done
