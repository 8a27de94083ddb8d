#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_lease.sh — early rounds fill free GPUs and do not undo the round
# before them: a job hetsched starts keeps its GPUs for RoundLength (its
# lease), however many arrivals bring early rounds meanwhile; after that
# the queue rotates. One node, 2 GPUs, RoundLength=20, MinRoundInterval=2,
# a queue of 4 preemptible jobs and one arrival every 3 s for 24 s (doc/
# scale.md run 3 saw "started 32" / "requeued 32" every 5 s before
# leases). From sacct's incarnations (-D): the queue did rotate, and no
# run ended in a preemption less than half a lease after it began (the
# lease counts from the round; the job starts once the GPUs it is given
# are vacated, seconds later under load; without leases the runs here
# last one arrival, 3 s). TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: early rounds keep the jobs the previous round started (leases)"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
sched_cluster l v100:1:2 || bail "cluster did not come up"
log=$L_DIR/log/slurmctld.log
LEASE=20
check "RoundLength=$LEASE, early rounds every 2 s, sleep jobs requeued to preempt" \
	it_hetsched_conf "$L_DIR" "ThroughputTable=$HS_TABLE" Policy=max_min_fairness \
	RoundLength=$LEASE MinRoundInterval=2 MinResetInterval=0 RequeueWithoutCheckpoint=yes
submit() { sbatch --parsable --requeue -o /dev/null -J "$1" --gres=gpu:1 --wrap 'sleep 600'; }
ids=()
scontrol update PartitionName=gpu State=DOWN
for i in 1 2 3 4; do ids+=("$(submit "q-$i")"); done
scontrol update PartitionName=gpu State=UP
rounds0=$(rounds "$L_DIR")
t0=$(date +%s)
for i in 1 2 3 4 5 6 7 8; do
	sleep 3
	ids+=("$(submit "a-$i")")
done
early=$(($(rounds "$L_DIR") - rounds0))
echo "rounds in the $(($(date +%s) - t0)) s of arrivals: $early" | diag
check "the arrivals brought early rounds (${early} rounds in ~24 s, RoundLength $LEASE)" \
	test "$early" -ge 4
# Past one more lease: the queue must have rotated by then.
sleep $((LEASE + 10))
idlist=$(echo "${ids[*]}" | tr ' ' ',')
# incarnations: "jobid state start end" (epoch seconds); sacct names a
# run that hetsched requeued PREEMPTED (REQUEUED on some versions)
incarnations() {
	SLURM_TIME_FORMAT=%s sacct -n -X -D -P -o JobID,State,Start,End -j "$idlist" |
		awk -F'|' '$3 ~ /^[0-9]+$/ { print $1, $2, $3, ($4 ~ /^[0-9]+$/ ? $4 : 0) }'
}
# sacct lags behind the requeues: wait until it has some
for _ in $(seq 30); do
	[ "$(incarnations | awk '$2 ~ /^(PREEMPTED|REQUEUED)/' | wc -l)" -gt 0 ] && break
	sleep 1
done
incarnations | awk '$2 ~ /^(PREEMPTED|REQUEUED)/ { print "requeued after", $4 - $3, "s:", $1 }' |
	sort -k3 -n | head -20 | diag
requeued=$(incarnations | awk '$2 ~ /^(PREEMPTED|REQUEUED)/' | wc -l)
shortest=$(incarnations | awk '$2 ~ /^(PREEMPTED|REQUEUED)/ { d = $4 - $3; if (m == "" || d < m) m = d }
	END { print (m == "" ? -1 : m) }')
check "the queue rotated after the lease (${requeued} requeues)" test "$requeued" -ge 1
check "no job requeued within its lease (shortest run before a requeue ${shortest} s >= $((LEASE / 2)))" \
	test "$shortest" -ge $((LEASE / 2))
check "the 2 GPUs stayed in use" test "$(squeue -h -t R -o %i | wc -l)" = 2
check "no plugin error" sh -c "! grep -q 'error: sched/hetsched' '$log'"
scancel -u root 2>/dev/null
it_done
