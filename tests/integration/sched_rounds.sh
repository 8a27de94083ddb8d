#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_rounds.sh — sched/hetsched runs real rounds on a local cluster with
# Slurm's own scheduler off: typed GPU jobs run on their type, more GPU
# jobs than GPUs are queued with a reason saying what hetsched decided and
# never oversubscribe the GPUs, jobs without GPUs run too, every job
# completes (none lost), `hetsched status` shows the rounds, a bad
# hetsched.conf keeps the last good configuration, and wrong
# SchedulerParameters make the plugin step aside with a clear error.
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched rounds: placement, queueing, reasons, CPU jobs, status, config errors"

sched_cluster r v100:1:2,k80:1:2 || bail "cluster did not come up"
log=$R_DIR/log/slurmctld.log
check "hetsched is not passive with defer,sched_interval=-1" wait_log "$log" 30 'sched/hetsched: SchedulerParameters=defer,sched_interval=-1: hetsched starts all jobs'
check "short rounds configured" it_hetsched_conf "$R_DIR" RoundLength=4 MinRoundInterval=1 PreemptMode=requeue
out=$R_DIR/tmp
mkdir -p "$out"

# Typed requests land on their type.
tk=$(sbatch --parsable -o "$out/tk.out" --gres=gpu:k80:1 --wrap 'echo $SLURMD_NODENAME; sleep 2')
tv=$(sbatch --parsable -o "$out/tv.out" --gres=gpu:v100:1 --wrap 'echo $SLURMD_NODENAME; sleep 2')
check "typed jobs complete" it_wait_jobs 60 "$tk" "$tv"
check "gpu:k80 ran on k80-1" grep -qx k80-1 "$out/tk.out"
check "gpu:v100 ran on v100-1" grep -qx v100-1 "$out/tv.out"

# Ten 1-GPU jobs for 4 GPUs, and a job without GPUs.
ids=""
for i in $(seq 10); do
	ids="$ids $(sbatch --parsable -o /dev/null --gres=gpu:1 --wrap 'sleep 6')"
done
cpu=$(sbatch --parsable -o "$out/cpu.out" --wrap 'echo cpu-ok')
over=0 reason=0
for s in $(seq 12); do
	r=$(squeue -h -t R -o '%i %b' | grep -c gpu)
	[ "$r" -gt 4 ] && over=1
	squeue -h -t PD -o '%r' | grep -q '^hetsched round' && reason=1
	sleep 1
done
check "never more than 4 GPU jobs running on 4 GPUs" test $over = 0
check "pending GPU jobs show hetsched's reason in squeue" test $reason = 1
# shellcheck disable=SC2086
check "all GPU jobs finish" wait_gone 180 $ids
# shellcheck disable=SC2086
check "no job lost: every GPU job COMPLETED" all_completed $ids
check "the job without GPUs ran" sh -c "it=0; while [ \$it -lt 30 ] && ! grep -q cpu-ok '$out/cpu.out' 2>/dev/null; do sleep 1; it=\$((it+1)); done; grep -q cpu-ok '$out/cpu.out'"

# Status document and command.
check "status document names the policy" test "$(status_field "$R_DIR" 's["policy"]')" = max_min_fairness_water_filling_perf
check "status counts the started jobs" test "$(status_field "$R_DIR" 's["totals"]["started"] >= 12')" = True
"$HS_CLI" status >"$out/status.txt" 2>&1
check "hetsched status finds the document through SLURM_CONF" grep -q '^hetsched: round [0-9]* at' "$out/status.txt"
check "hetsched status shows lock hold times" grep -q 'under locks [0-9.]* ms snapshot + [0-9.]* ms apply' "$out/status.txt"
check "every round logs solve and lock times" grep -q 'sched/hetsched: round [0-9]*: .* ms solve, locks [0-9.]* ms snapshot + [0-9.]* ms apply' "$log"

# A bad hetsched.conf keeps the last good configuration.
printf 'RoundLength=abc\n' >"$R_DIR/etc/hetsched.conf"
scontrol reconfigure
check "bad hetsched.conf: the error names the key" wait_log "$log" 30 'sched/hetsched: \(bad configuration, \|hetsched.conf is bad (\).*RoundLength=abc: expected an integer'
wait_rounds "$R_DIR" 1 30
check "bad hetsched.conf: the last good round length stays" test "$(status_field "$R_DIR" 's["round_length"]')" = 4
printf 'NoSuchKey=1\n' >"$R_DIR/etc/hetsched.conf"
scontrol reconfigure
check "unknown key is refused by Slurm's parser" wait_log "$log" 30 'sched/hetsched: \(bad configuration, \|hetsched.conf is bad (\).*syntax error or unknown key'

# The shipped example is accepted by Slurm's parser and our checks.
n=$(grep -c 'sched/hetsched: configuration: Policy=max_min_fairness_water_filling_perf RoundLength=360' "$log")
cp "$HS_SRCDIR/etc/hetsched.conf" "$R_DIR/etc/hetsched.conf"
scontrol reconfigure
check "etc/hetsched.conf (the example) is a good configuration" sh -c "for i in \$(seq 30); do [ \$(grep -c 'sched/hetsched: configuration: Policy=max_min_fairness_water_filling_perf RoundLength=360' '$log') -gt $n ] && exit 0; sleep 1; done; exit 1"

# Wrong SchedulerParameters: a clear error, no more rounds; fixed: back.
conf=$R_DIR/etc/slurm.conf
sed -i 's/^SchedulerParameters=.*/SchedulerParameters=bf_continue/' "$conf"
scontrol reconfigure
check "wrong SchedulerParameters: clear error" wait_log "$log" 30 'error: sched/hetsched: SchedulerParameters=bf_continue lacks defer and sched_interval=-1'
n=$(rounds "$R_DIR")
sleep 6
check "wrong SchedulerParameters: no rounds while passive" test "$(rounds "$R_DIR")" = "$n"
sed -i 's/^SchedulerParameters=.*/SchedulerParameters=defer,sched_interval=-1/' "$conf"
printf 'RoundLength=4\nMinRoundInterval=1\n' >"$R_DIR/etc/hetsched.conf"
scontrol reconfigure
check "fixed SchedulerParameters: rounds again" wait_rounds "$R_DIR" 2 30
check "slurmctld is still up" scontrol ping
it_done
