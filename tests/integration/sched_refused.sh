#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_refused.sh — a start slurmctld refuses gives its GPUs to the next
# job in the same apply pass: on one GPU with Policy=fifo, the
# round plans the older job P; between the plan and its apply
# (ApplyDelay, testing only) P is held, so Slurm refuses it; the younger
# job R must be running when that round's apply ends, not a round later,
# and the refusal is logged with Slurm's reason. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: a refused start's GPUs go to the next job in the same round"

sched_cluster f v100:1:1 || bail "cluster did not come up"
log=$F_DIR/log/slurmctld.log
check "fifo, 15 s rounds, 4 s between plan and apply" it_hetsched_conf "$F_DIR" \
	Policy=fifo RoundLength=15 MinRoundInterval=1 ApplyDelay=4000
p=$(sbatch --parsable -H -o /dev/null --gres=gpu:1 --wrap 'sleep 300')
sleep 1.5
r=$(sbatch --parsable -H -o /dev/null --gres=gpu:1 --wrap 'sleep 300')
# the round the submissions triggered is over: the next one (RoundLength
# later; a release does not trigger one) plans after the release
wait_rounds "$F_DIR" 1 60
n=$(grep -c 'ApplyDelay' "$log")
scontrol release "$p,$r"
# the first plan after the release: hold P before it is applied
end=$(($(date +%s) + 60))
while [ "$(grep -c 'ApplyDelay' "$log")" -le "$n" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
round=$(grep 'ApplyDelay' "$log" | tail -n 1 | sed -n 's/.*plan of round \([0-9]*\) ready.*/\1/p')
check "round $round planned with both jobs pending" test -n "$round"
scontrol hold "$p"
check "round $round applied" wait_log "$log" 30 "sched/hetsched: round $round:"
check "the younger job runs after round $round's apply ($(squeue -h -j "$r" -o %T))" \
	test "$(squeue -h -j "$r" -o %T)" = RUNNING
check "the refusal is logged with Slurm's reason" grep -q "Slurm refused to start JobId=$p .*(reason JobHeldUser\|Slurm refused to start JobId=$p .*(reason JobHeldAdmin" "$log"
check "the held job stays pending" test "$(squeue -h -j "$p" -o %T)" = PENDING
scancel "$p" "$r"
wait_gone 60 "$p" "$r"
it_done
