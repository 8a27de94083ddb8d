#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_arrays.sh — a pending job array counts as its pending tasks
# (bounded by the free GPUs) and sched/hetsched starts many tasks of one
# array in one round: an array of 40 one-GPU tasks on 8 free
# GPUs fills all 8 in the first round after its submission; a limit
# --array=...%N is honoured. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: job arrays at full speed"

sched_cluster a v100:2:4 || bail "cluster did not come up"
log=$A_DIR/log/slurmctld.log
# MaxLockHold=1: the rounds yield slurmctld's locks every millisecond, so
# the checks below also cover jobs found again by id after a yield
check "round length 15 s, locks yielded every 1 ms" it_hetsched_conf "$A_DIR" RoundLength=15 \
	MinRoundInterval=1 MaxLockHold=1
wait_rounds "$A_DIR" 1 30
gpu_running() { squeue -h -t R -o '%i %b' | grep -c gpu; }
# started_by_round N: rounds logged so far when N tasks run (60 s max).
n0=$(rounds "$A_DIR")
arr=$(sbatch --parsable -o /dev/null --array=1-40 --gres=gpu:1 --wrap 'sleep 120')
check "array of 40 submitted" test -n "$arr"
end=$(($(date +%s) + 60))
while [ "$(gpu_running)" -lt 8 ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.5; done
n1=$(rounds "$A_DIR")
check "all 8 GPUs run array tasks ($(gpu_running) running)" test "$(gpu_running)" = 8
check "... filled by the first round after the submission ($((n1 - n0)) rounds)" test $((n1 - n0)) -le 1
check "never more than 8 GPU jobs" test "$(gpu_running)" -le 8
scancel "$arr"
wait_gone 60 "$arr"

# --array=1-20%3: at most 3 tasks at once, even with 8 free GPUs.
lim=$(sbatch --parsable -o /dev/null --array=1-20%3 --gres=gpu:1 --wrap 'sleep 120')
wait_rounds "$A_DIR" 2 60
check "--array=...%3 runs 3 tasks ($(gpu_running))" test "$(gpu_running)" = 3
scancel "$lim"
wait_gone 60 "$lim"
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$log'"
it_done
