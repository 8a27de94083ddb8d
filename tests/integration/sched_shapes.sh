#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_shapes.sh — a job no single GPU type can hold: --nodes=3 with a
# GPU per task on three 1-GPU nodes of two types (two v100, one k80). No
# type can hold it, so the round leaves it to Slurm's placement across
# types after its own starts (HS_PLAN_SLURM, the engine's SLURM stage in
# engine_exec.c), as backfill places it; once, it was refused every
# round and never ran (SchedMD's test39.23, doc/schedmd-tests.md). As a job array with a
# held task too. A job that fits one type still runs on one type. TAP
# output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: a job no single GPU type can hold is placed by Slurm across types"

sched_cluster s v100:2:1,k80:1:1 || bail "cluster did not come up"
check "round length 15 s" it_hetsched_conf "$S_DIR" RoundLength=15 MinRoundInterval=1


j=$(sbatch --parsable -o /dev/null --nodes=3 --ntasks=3 --gpus-per-task=1 --wrap 'sleep 300')
check "--nodes=3 --gpus-per-task=1 starts within two rounds" running_within_rounds "$S_DIR" 2 "$j"
nodes=$(squeue -h -j "$j" -o %N)
check "... on all three nodes, both types ($nodes)" test "$nodes" = "k80-1,v100-[1-2]"
check "the fallback is logged" grep -q "JobId=$j: no single GPU type can hold it, started by Slurm on any GPU type's nodes" \
	"$S_DIR/log/slurmctld.log"
scancel "$j"
wait_gone 60 "$j"

# The same shape as a job array of two, its second task held (scontrol
# hold): the free task runs on all
# three nodes, the held one waits; released, it runs once the first ends.
a=$(sbatch --parsable -o /dev/null --array=1-2 --nodes=3 --ntasks=3 --gpus-per-task=1 --wrap 'sleep 300')
scontrol hold "${a}_2"
check "array task 1 (no single type) starts within two rounds" running_within_rounds "$S_DIR" 2 "${a}_1"
check "the held task 2 stays pending" test "$(job_state "${a}_2")" = PENDING
scontrol release "${a}_2"
scancel "${a}_1"
check "released, task 2 starts once task 1 is gone" running_within_rounds "$S_DIR" 3 "${a}_2"
scancel "$a"
wait_gone 60 "$a"

# two GPUs on two nodes fits the v100s: planned on one type as before
k=$(sbatch --parsable -o /dev/null --nodes=2 --ntasks=2 --gpus-per-task=1 --wrap 'sleep 300')
check "--nodes=2 --gpus-per-task=1 starts within two rounds" running_within_rounds "$S_DIR" 2 "$k"
nodes=$(squeue -h -j "$k" -o %N)
check "... on the two v100 nodes ($nodes)" test "$nodes" = "v100-[1-2]"
scancel "$k"
it_done
