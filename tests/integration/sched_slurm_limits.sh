#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_slurm_limits.sh — sched/hetsched only plans starts Slurm will
# accept: a job Slurm would not start now (pinned with -w to a
# busy node, held by a QOS limit, excluding the free node with -x, asking
# for a feature the free node lacks, waiting for a dependency or a begin
# time) never holds the free GPU; the next job gets it within a round
# (RoundLength=15: before the round after next), and the held job starts
# once Slurm allows it; expected starts (squeue --start) are given only
# to jobs Slurm would start, never before a begin time. Each scenario leaves exactly one GPU free (the
# other held by a job hetsched may not preempt) and gives the job Slurm
# refuses a higher priority than the runnable one. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: only starts Slurm accepts are planned (-w, QOS limits, -x, --constraint, dependencies, --begin)"

sched_cluster l v100:1:1,k80:1:1 \
	--conf-extra 'AccountingStorageEnforce=associations,limits,qos' || bail "cluster did not come up"
log=$L_DIR/log/slurmctld.log
start_of() { squeue -h -j "$1" -o %S; }
# MaxLockHold=1: the rounds yield slurmctld's locks every millisecond, so
# the checks below also cover jobs found again by id after a yield
check "round length 15 s, locks yielded every 1 ms" it_hetsched_conf "$L_DIR" RoundLength=15 \
	MinRoundInterval=1 MaxLockHold=1
check "QOS lim1 with MaxTRESPerUser=gres/gpu=1" sh -c "
	sacctmgr -i add qos lim1 set MaxTRESPerUser=gres/gpu=1 >/dev/null &&
	sacctmgr -i modify user root set qos+=lim1 >/dev/null"

# sub NAME OPTIONS... -- SCRIPT: a 1-GPU batch job (not preemptible by
# hetsched's default configuration: no checkpoint hint).
sub() {
	local script=$1
	shift
	sbatch --parsable -o /dev/null --gres=gpu:1 "$@" --wrap "$script"
}
state() { squeue -h -j "$1" -o %T 2>/dev/null; }
node_of() { squeue -h -j "$1" -o %N 2>/dev/null; }
reason() { squeue -h -j "$1" -o %r 2>/dev/null; }
# busy NODE: a long job on NODE; echoes its id once it runs.
busy() {
	local j
	j=$(sub 'sleep 300' -w "$1") || return 1
	running_within_rounds "$L_DIR" 3 "$j" >/dev/null 2>&1 || return 1
	echo "$j"
}

# (a) -w a busy node, next to a runnable job.
a=$(busy v100-1)
check "(a) v100-1 busy with job $a" test -n "$a"
w=$(sub 'sleep 5' -w v100-1 --priority=1000)
r=$(sub 'sleep 300' --priority=10)
check "(a) the runnable job starts within two rounds" running_within_rounds "$L_DIR" 2 "$r"
check "(a) ... on the free node k80-1" test "$(node_of "$r")" = k80-1
check "(a) the job pinned to v100-1 waits" test "$(state "$w")" = PENDING
scancel "$a"
check "(a) the pinned job starts once v100-1 frees" running_within_rounds "$L_DIR" 3 "$w"
check "(a) ... on v100-1" sh -c "[ \"\$(node_of $w)\" = v100-1 ] || [ \"\$(sacct -n -X -P -o NodeList -j $w | head -n1)\" = v100-1 ]"
scancel "$r"
wait_gone 60 "$a" "$w" "$r"

# (b) QOS MaxTRESPerUser=gres/gpu=1: the held job does not take the GPU.
q1=$(sub 'sleep 300' --qos=lim1 -w v100-1)
check "(b) first lim1 job runs" running_within_rounds "$L_DIR" 3 "$q1"
q2=$(sub 'sleep 300' --qos=lim1 --priority=1000)
o=$(sub 'sleep 300' --priority=10)
check "(b) the other QOS's job starts within two rounds" running_within_rounds "$L_DIR" 2 "$o"
check "(b) the second lim1 job keeps Slurm's reason: $(reason "$q2")" test "$(reason "$q2")" = QOSMaxGRESPerUser
squeue --start -j "$q2,$o" | diag
# expected starts (squeue --start) never promise what Slurm forbids
check "(b) the QOS-held job gets no expected start" test "$(start_of "$q2")" = N/A
scancel "$q1"
check "(b) the held job starts once the limit allows it" running_within_rounds "$L_DIR" 3 "$q2"
scancel "$q2" "$o"
wait_gone 60 "$q1" "$q2" "$o"

# (c) -x the free node, and --constraint a feature it lacks.
b=$(busy v100-1)
check "(c) v100-1 busy with job $b" test -n "$b"
x=$(sub 'sleep 5' -x k80-1 --priority=1000)
f=$(sub 'sleep 5' --constraint=v100 --priority=900)
r2=$(sub 'sleep 300' --priority=10)
check "(c) the runnable job starts within two rounds" running_within_rounds "$L_DIR" 2 "$r2"
check "(c) ... on k80-1" test "$(node_of "$r2")" = k80-1
check "(c) -x k80-1 and --constraint=v100 wait: $(state "$x") $(state "$f")" test "$(state "$x") $(state "$f")" = "PENDING PENDING"
squeue --start -j "$x,$f" | diag
check "(c) both waiting jobs expect a start after now, -x (higher priority) first" sh -c "
	sx=\$(date -d '$(start_of "$x")' +%s) && sf=\$(date -d '$(start_of "$f")' +%s) &&
	[ \$sx -gt \$(date +%s) ] && [ \$sx -le \$sf ]"
scancel "$b"
check "(c) both run on v100-1 once it frees" sh -c "
	end=\$((\$(date +%s) + 90))
	while [ \$(date +%s) -lt \$end ]; do
		[ \"\$(sacct -n -X -P -o State,NodeList -j $x,$f | sort -u)\" = 'COMPLETED|v100-1' ] && exit 0
		sleep 1
	done
	sacct -n -X -P -o JobID,State,NodeList -j $x,$f | sed 's/^/# /'; exit 1"
scancel "$r2"
wait_gone 60 "$b" "$x" "$f" "$r2"

# (d) a dependency and a begin time in the future are never planned.
b=$(busy v100-1)
d=$(sub 'sleep 5' --dependency=afterok:"$b" --priority=1000)
t=$(sub 'sleep 5' --begin=now+600 --priority=1000)
r3=$(sub 'sleep 300' --priority=10)
check "(d) the runnable job starts within two rounds" running_within_rounds "$L_DIR" 2 "$r3"
wait_rounds "$L_DIR" 1 30
check "(d) dependency and begin time keep Slurm's reasons: $(reason "$d") $(reason "$t")" \
	test "$(reason "$d") $(reason "$t")" = "Dependency BeginTime"
check "(d) neither was ever tried" sh -c "! grep -E 'JobId=($d|$t)[^0-9]' '$log' | grep -Eq 'refused|started'"
squeue --start -j "$d,$t" | diag
eligible=$(scontrol show job "$t" | sed -n 's/.*EligibleTime=\([^ ]*\).*/\1/p')
check "(d) the dependent job gets no expected start" test "$(start_of "$d")" = N/A
check "(d) the --begin job's expected start ($(start_of "$t")) is not before its begin ($eligible)" \
	test "$(date -d "$(start_of "$t")" +%s)" -ge "$(date -d "$eligible" +%s)"
scancel "$b" "$d" "$t" "$r3"
wait_gone 60 "$b" "$d" "$t" "$r3"
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$log'"
it_done
