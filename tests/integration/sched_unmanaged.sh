#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_unmanaged.sh — jobs of a partition hetsched does not manage
# (hetsched.conf Partitions=gpu, a second partition "other" on the k80
# node). With Slurm's own scheduler off, nobody started them: they stayed
# pending forever. The fill (cpujobs.c) now starts them in priority
# order, Slurm placing them on what the rounds left free, and the rounds
# never preempt them; jobs of the managed partition still go through the
# rounds; a held array task stays held. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: jobs of partitions it does not manage are started, never preempted"

sched_cluster u v100:1:1,k80:1:1 || bail "cluster did not come up"
log=$U_DIR/log/slurmctld.log
check "Partitions=gpu, round length 15 s" it_hetsched_conf "$U_DIR" Partitions=gpu \
	RoundLength=15 MinRoundInterval=1
check "a second partition, other, on the k80 node" \
	scontrol create PartitionName=other Nodes=k80-1 State=UP

c=$(sbatch --parsable -p other -o /dev/null --wrap 'sleep 300')
check "a CPU job of other runs within two rounds" running_within_rounds "$U_DIR" 2 "$c"
check "... started by the fill, which says why" \
	grep -q "started JobId=$c on k80-1 (partition not managed by hetsched)" "$log"

g=$(sbatch --parsable -p other -o /dev/null --gres=gpu:1 --wrap 'sleep 300')
check "a GPU job of other runs within two rounds" running_within_rounds "$U_DIR" 2 "$g"
check "... on the k80 of its partition" test "$(squeue -h -j "$g" -o %N)" = k80-1

# a second GPU job of other: its only GPU is taken, it waits, no error
w=$(sbatch --parsable -p other -o /dev/null --gres=gpu:1 --wrap 'sleep 300')
# managed GPU jobs (not preemptible here: no checkpoint, no requeue
# without one): the v100 is free, the k80 is held by the job of other
m1=$(sbatch --parsable -p gpu -o /dev/null --gres=gpu:1 --wrap 'sleep 300')
m2=$(sbatch --parsable -p gpu -o /dev/null --gres=gpu:1 --wrap 'sleep 300')
check "the first managed job runs within two rounds" running_within_rounds "$U_DIR" 2 "$m1"
check "... on the v100, started by a round" grep -q "started JobId=$m1 on v100-1" "$log"
wait_rounds "$U_DIR" 3 90
check "three rounds later the job of other still runs on its GPU (never preempted)" \
	test "$(job_state "$g")/$(squeue -h -j "$g" -o %N)" = RUNNING/k80-1
check "the second job of other waits" test "$(job_state "$w")" = PENDING
check "the second managed job waits: no round took the k80 from other" \
	test "$(job_state "$m2")" = PENDING
scancel "$m2"
wait_gone 60 "$m2"
scancel "$g"
check "once its GPU is free, the second job of other gets it" running_within_rounds "$U_DIR" 2 "$w"
scancel "$c" "$w" "$m1"
wait_gone 60 "$c" "$w" "$m1"

# what Slurm holds back stays held back for the fill: an array of
# other with its task 2 held (scontrol hold)
# (submitted held, task 1 released: no tick can start task 2 first)
a=$(sbatch --parsable -H -p other -o /dev/null --array=1-2 --wrap 'sleep 300')
scontrol release "${a}_1"
check "array task 1 of other runs within two rounds" running_within_rounds "$U_DIR" 2 "${a}_1"
wait_rounds "$U_DIR" 1 60
check "the held task 2 stays pending" test "$(job_state "${a}_2")" = PENDING
scontrol release "${a}_2"
check "released, task 2 runs" running_within_rounds "$U_DIR" 2 "${a}_2"
scancel "$a"
it_done
