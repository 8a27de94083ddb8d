#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_churn.sh — jobs that complete, fail or are cancelled between a
# round's snapshot and its apply do not confuse the apply step. The
# (testing) ApplyDelay setting holds the finished plan for a few seconds
# with no lock held — as a long solve would — and the test changes the
# jobs in that window: the job chosen to start is cancelled, the running
# jobs the plan keeps complete and fail. The apply must leave
# them alone (counted as "changed meanwhile"): no cancelled job starts, no
# finished job is requeued, and the rounds go on using the GPUs.
# An arrival brings an early round within seconds (also when it comes in
# the same second as the previous round: last_job_update has one-second
# resolution). (sched_faults.sh adds random churn at 1 s rounds.) TAP
# output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: jobs that end or are cancelled during a round do not confuse the apply"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
sched_cluster c v100:1:3 || bail "cluster did not come up"
log=$C_DIR/log/slurmctld.log
# Running jobs that cannot checkpoint are preemptible (requeued) so that
# they are in the plan; rounds only when jobs arrive or leave.
check "ApplyDelay=4000, long rounds" it_hetsched_conf "$C_DIR" "ThroughputTable=$HS_TABLE" \
	RoundLength=600 MinRoundInterval=1 RequeueWithoutCheckpoint=yes ApplyDelay=4000
work=$(mktemp -d /tmp/hs-it-sched-churn.XXXXXX)
# wait_flag NAME RC: a GPU job that runs until NAME exists, then exits RC.
wait_flag() {
	sbatch --parsable --requeue -o /dev/null -J "$1" --gres=gpu:1 \
		--wrap "while [ ! -e $work/$1 ]; do sleep 0.2; done; exit $2"
}
wait_for() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}
plans() { grep -c 'sched/hetsched: plan of round [0-9]* ready' "$log"; }
plans_gt() { [ "$(plans)" -gt "$1" ]; }
rounds_gt() { [ "$(rounds "$C_DIR")" -gt "$1" ]; }
running2() { [ "$(squeue -h -t R -j "$1" | wc -l)" = 2 ]; }
ok_end=$(wait_flag ends 0)
bad_end=$(wait_flag fails 3)
check "two jobs run on two of the three GPUs" wait_for 90 running2 "$ok_end,$bad_end"
# Wait for the round of those starts to be over, then one more arrival:
# the next plan starts the newcomer on the free GPU and keeps the two.
wait_for 30 sh -c "grep -q 'sched/hetsched: round [0-9]*: .*started [1-9]' '$log'"
n=$(plans)
rounds_before=$(rounds "$C_DIR")
newcomer=$(sbatch --parsable -o /dev/null -J newcomer --gres=gpu:1 --wrap 'sleep 300')
check "the arrival brings a round; its plan is ready (apply held back by ApplyDelay)" \
	wait_for 20 plans_gt "$n"
# In the window: cancel the newcomer, let the other two end.
scancel "$newcomer"
touch "$work/ends" "$work/fails"
check "the round was applied" wait_for 60 rounds_gt "$rounds_before"
line=$(grep 'sched/hetsched: round [0-9]*:.*changed meanwhile' "$log" | sed -n "$((rounds_before + 1))p")
echo "$line" | diag
changed=$(echo "$line" | sed -n 's/.*changed meanwhile \([0-9]*\).*/\1/p')
check "the apply saw the changed jobs and left them alone (changed meanwhile ${changed:-?} >= 1)" \
	test "${changed:-0}" -ge 1
check "... nothing started, requeued or suspended by that apply" sh -c "echo '$line' |
	grep -q 'started 0, kept [0-9]*, checkpointing 0, requeued 0, suspended 0, resumed 0'"
wait_gone 60 "$ok_end" "$bad_end" "$newcomer"
check "the job that ended COMPLETED, not requeued" \
	test "$(sacct -j "$ok_end" -D -X -n -P -o State | paste -sd,)" = COMPLETED
check "the job that failed FAILED, not requeued" \
	test "$(sacct -j "$bad_end" -D -X -n -P -o State | paste -sd,)" = FAILED
cancelled() { sacct -j "$newcomer" -X -n -P -o State | grep -q '^CANCELLED'; }
check "the newcomer is CANCELLED (sacct)" wait_for 30 cancelled
# Not sacct's Start: slurmctld sets a pending job's start time to its
# cancel time, and when the job's first accounting record had not gone to
# slurmdbd yet (sent in batches; late under load) that time is recorded as
# its start. A job that never ran has no nodes: NodeList 'None assigned'.
check "... and never started (no start logged, no nodes in sacct)" sh -c "
	! grep -q 'sched/hetsched: started JobId=$newcomer ' '$log' &&
	sacct -j $newcomer -X -n -P -o NodeList | grep -qx 'None assigned'"
check "slurmctld is alive" scontrol ping
# The GPUs are not lost: the next jobs run and complete.
it_hetsched_conf "$C_DIR" "ThroughputTable=$HS_TABLE" RoundLength=600 MinRoundInterval=1
after1=$(sbatch --parsable -o /dev/null --gres=gpu:1 --wrap 'sleep 2')
after2=$(sbatch --parsable -o /dev/null --gres=gpu:1 --wrap 'sleep 2')
it_wait_jobs 90 "$after1" "$after2" || nok "later jobs finished"
check "later jobs start at once (early round) and complete" all_completed "$after1" "$after2"
check "no plugin error" sh -c "! grep -Ei 'underflow|error: sched/hetsched' '$log'"
rm -rf "$work"
it_done
