#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_weights.sh — Slurm job priority and QOS become policy weights and
# Slurm accounts become the hierarchical policy's entities, read from a
# real slurmctld (priorities set with scontrol, a QOS and an account in
# slurmdbd) and shown in the status document: weight = priority / mean
# priority x QosWeights; max_min_fairness_water_filling splits the GPU
# between the two accounts first, then inside an account by job weight.
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: priority and QOS as weights, accounts as entities"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
sched_cluster w v100:1:1 || bail "cluster did not come up"
cname=$(sed -n 's/^ClusterName=//p' "$W_DIR/etc/slurm.conf")
check "account physics and QOS high in slurmdbd" sh -c "
	sacctmgr -i add account physics cluster=$cname >/dev/null &&
	sacctmgr -i add user root account=physics cluster=$cname >/dev/null &&
	sacctmgr -i add qos high >/dev/null &&
	sacctmgr -i modify user root set qos+=high >/dev/null"
check "hierarchical policy, priority and QOS weights" it_hetsched_conf "$W_DIR" \
	Policy=max_min_fairness_water_filling "ThroughputTable=$HS_TABLE" RoundLength=5 \
	MinRoundInterval=1 WeightByPriority=yes QosWeights=high:4 RequeueWithoutCheckpoint=yes
# Priorities set at submission (root may: sbatch --priority). Requeueable
# (RequeueWithoutCheckpoint=yes) so that the running job stays in the
# policy's problem rather than pinned on the only GPU.
sub() { sbatch --parsable --requeue -o /dev/null --gres=gpu:1 "$@" --wrap 'sleep 300'; }
j1=$(sub -A hetsched --qos=normal --priority=100)
j2=$(sub -A hetsched --qos=high --priority=100)
j3=$(sub -A physics --qos=normal --priority=200)
check "jobs submitted (accounts hetsched, hetsched, physics)" test -n "$j1" -a -n "$j2" -a -n "$j3"
check "with the priorities asked for" test "$(squeue -h -j "$j1,$j2,$j3" -o '%i %Q' | sort -n | awk '{print $2}' | paste -sd' ')" = "100 100 200"
# field ID KEY: a job's entry in the status document.
field() { status_field "$W_DIR" "[j.get('$2') for j in s['jobs'] if j['id'] == $1][0]" 2>/dev/null; }
target() { status_field "$W_DIR" "[j.get('target', {}).get('v100', 0) for j in s['jobs'] if j['id'] == $1][0]" 2>/dev/null; }
all_in_status() { [ -n "$(field "$j1" weight)" ] && [ -n "$(field "$j2" weight)" ] && [ -n "$(field "$j3" weight)" ]; }
end=$(($(date +%s) + 60))
until all_in_status || [ "$(date +%s)" -ge "$end" ]; do sleep 1; done
wait_rounds "$W_DIR" 1 30
near() { python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) <= 0.02 else 1)" "${1:-nan}" "$2"; }
# mean priority 400/3: weights 0.75, 0.75 x 4, 1.5
check "priority 100, QOS normal: weight $(field "$j1" weight) ~ 0.75" near "$(field "$j1" weight)" 0.75
check "priority 100, QOS high (x4): weight $(field "$j2" weight) ~ 3" near "$(field "$j2" weight)" 3
check "priority 200, QOS normal: weight $(field "$j3" weight) ~ 1.5" near "$(field "$j3" weight)" 1.5
check "accounts in the status: $(field "$j1" account) $(field "$j2" account) $(field "$j3" account)" \
	test "$(field "$j1" account) $(field "$j2" account) $(field "$j3" account)" = "hetsched hetsched physics"
# Two entities of weight 1: physics's only job gets half the GPU; the
# other half is split 0.75 : 3 inside hetsched.
check "physics (one job) gets half: $(target "$j3") ~ 0.5" near "$(target "$j3")" 0.5
check "hetsched splits its half by weight: $(target "$j1") ~ 0.1" near "$(target "$j1")" 0.1
check "... and $(target "$j2") ~ 0.4" near "$(target "$j2")" 0.4
scancel "$j1" "$j2" "$j3"
wait_gone 60 "$j1" "$j2" "$j3"
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$W_DIR/log/slurmctld.log'"
it_done
