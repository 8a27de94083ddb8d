#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# arr_churn.sh — a by-hand reproduction attempt of doc/robustness.md
# finding 5 (an array task whose node died ended unfinished); not in
# `make check`. The soak's cluster and hetsched.conf
# (max_min_fairness_perf, 6 s rounds, CheckpointGrace=10, ApplyDelay), an
# array of 4 checkpointing tasks and 6 competing checkpointing jobs (10 on
# 8 GPUs: rounds migrate some every time); the node of an array task dies
# (slurmd and the node's job processes frozen, then SIGKILLed, as soak.sh does) right
# after the slurmctld.log line MODE names for that task:
#   ckpt      hetsched's checkpoint signal to it
#   requeued  hetsched's requeue of it after its checkpoint
#   started   hetsched's start of it
# Checks that every task COMPLETED with all its steps. Root, from the build
# directory: HETSCHED_INTEGRATION=1 ../tests/soak/arr_churn.sh [MODE]
# (STEPS=5000 steps per job, SKIP=10 s before watching, DELAY=0 s between
# the line and the kill; KILL_ONE_BY_ONE=1 the old, non-atomic node death;
# HS_KEEP_CLUSTERS=1 keeps the cluster).
HS_SRCDIR=${HS_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
MODE=${1:-ckpt}
. "$HS_SRCDIR/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "finding 5 reproduction ($MODE)"
sched_cluster n v100:1:2,p100:1:2,k80:2:2 --conf-extra SlurmdTimeout=10 || bail "cluster did not come up"
work=$(mktemp -d /tmp/hs-f5.XXXXXX); chmod 1777 "$work"
printf '#!/bin/bash\nsrun %s --table %s --time-scale 10\n' "$HS_EMU" "$HS_TABLE" >"$work/emu.sh"; chmod +x "$work/emu.sh"
check "conf" it_hetsched_conf "$N_DIR" Policy=max_min_fairness_perf RoundLength=6 MinRoundInterval=1 \
	CheckpointGrace=10 ApplyDelay=1500 "ThroughputTable=$HS_TABLE"
LOG=$N_DIR/log/slurmctld.log
steps=${STEPS:-5000}
arr=$(sbatch --parsable --requeue --open-mode=append -D "$work" -t 30 -J arr -o "$work/arr_%a.out" --array=0-3 \
	--hs-ckpt-dir="$work/ck-%u/%j" --hs-model="ResNet-18 (batch size 64)" --hs-steps="$steps" --gres=gpu:1 "$work/emu.sh")
arr=${arr%%;*}
for i in 1 2 3 4 5 6; do
	sbatch --parsable --requeue -D "$work" -t 30 -J c$i -o "$work/c$i.out" --hs-ckpt-dir="$work/ck-%u/%j" \
		--hs-model="ResNet-18 (batch size 64)" --hs-steps="$steps" --gres=gpu:1 "$work/emu.sh" >/dev/null
done
case $MODE in
ckpt) pat="JobId=${arr}_[0-9]\(([0-9]+)\): checkpoint signal" ;;
requeued) pat="requeued JobId=${arr}_[0-9]\(([0-9]+)\) after" ;;
started) pat="started JobId=${arr}_[0-9]\(([0-9]+)\) on" ;;
esac
sleep "${SKIP:-10}"
line=$(timeout 120 tail -n0 -F "$LOG" 2>/dev/null | grep -m1 -E "$pat")
check "a $MODE line for an array task" test -n "$line"
j=$(echo "$line" | sed -E "s/.*$pat.*/\1/")
sleep "${DELAY:-0}"
dead=$(scontrol show job "$j" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p' | head -1)
echo "line: $line; task $j on '$dead'" | diag
check "task on one node ($dead)" test -n "$dead" -a "$dead" != "(null)"
# the node dies at one instant: freeze first, SIGKILL then (soak_lib.sh,
# soak_slurmd_kill; KILL_ONE_BY_ONE=1 kills as the soak did before
# 2026-12-02, which is how finding 5 happened)
victims=$(squeue -h -w "$dead" -o %A | tr '\n' ' ')
echo "dead $dead at $(date +%T.%N), victims $victims" | diag
if [ "${KILL_ONE_BY_ONE:-0}" != 1 ]; then
	echo "pids $(it_node_die "$N_DIR" "$dead") killed with slurmd" | diag
else
	kill -KILL "$(pid_of "$N_DIR" "slurmd-$dead")"
	for p in $(it_procs_of "$N_DIR"); do
		for v in $victims; do
			{ tr '\0' ' ' <"/proc/$p/cmdline" | grep -q "^slurmstepd: \[$v\." ||
				tr '\0' '\n' <"/proc/$p/environ" | grep -cx -e "SLURM_JOB_ID=$v" -e "SLURMD_NODENAME=$dead" | grep -qx 2; } 2>/dev/null &&
				kill -KILL "$p" 2>/dev/null && echo "KILL pid $p of $v" | diag
		done
	done
fi
check "DOWN" wait_node_state "$dead" DOWN 120
sleep 3
check "back" sched_cluster_up_again "$N_DIR" "$N_PORT"
check "all ended within 400 s" sh -c "for i in \$(seq 400); do [ -z \"\$(squeue -h)\" ] && exit 0; sleep 1; done; exit 1"
sacct -n -X -D -P -o JobID,JobIDRaw,State,ExitCode,NodeList,Start,End -j "$arr" | diag
check "every task COMPLETED" test "$(sacct -n -X -P -o State -j "$arr" | grep -c '^COMPLETED')" = 4
missing=""
for a in 0 1 2 3; do grep -q "done step=$steps " "$work/arr_$a.out" 2>/dev/null || missing="$missing $a"; done
check "every task trained all its steps (missing:$missing)" test -z "$missing"
if [ "${HS_KEEP_CLUSTERS:-0}" = 1 ]; then echo "# kept work dir $work"; else rm -rf "$work"; fi
it_done
