#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_wnodes.sh — a job pinned with -w to nodes that cannot hold all its
# GPUs: Slurm adds nodes to the -w ones (sbatch --gpus=3 -w a 2-GPU node
# runs on two nodes), so sched/hetsched must plan it on more nodes than
# -w names, keeping the -w nodes in. Before, the plan confined it to the
# -w nodes, where it never fit: it stayed pending forever with "waiting
# for 3 free GPUs" on an idle cluster (SchedMD's test39.13,
# doc/schedmd-tests.md). A -w job that fits its nodes stays confined to
# them. A --gpus-per-socket job, a shape the rounds do not place, is
# started with Slurm's placement (only with the round: GPUs freed between
# rounds go to the plan first), and so is a job Slurm refuses on the
# planned nodes (CPUs per GPU beyond one node). TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: -w nodes too small for the job's GPUs: Slurm adds nodes, so does the plan"

sched_cluster w v100:2:2 || bail "cluster did not come up"
check "round length 15 s" it_hetsched_conf "$W_DIR" RoundLength=15 MinRoundInterval=1


g=$(sbatch --parsable -o /dev/null --gpus=3 -w v100-1 --wrap 'sleep 300')
check "--gpus=3 -w v100-1 (2 GPUs there) starts within two rounds" running_within_rounds "$W_DIR" 2 "$g"
nodes=$(squeue -h -j "$g" -o %N)
check "... on v100-1 and another node ($nodes)" test "$nodes" = "v100-[1-2]"

# one GPU is left, on v100-2: a -w v100-1 job that fits v100-1 waits for
# it (not planned on v100-2), the runnable job takes the free GPU
p=$(sbatch --parsable -o /dev/null --gres=gpu:1 -w v100-1 --priority=1000 --wrap 'sleep 5')
r=$(sbatch --parsable -o /dev/null --gres=gpu:1 --priority=10 --wrap 'sleep 300')
check "the runnable job takes the free GPU within two rounds" running_within_rounds "$W_DIR" 2 "$r"
check "the 1-GPU job pinned to the busy v100-1 waits" test "$(job_state "$p")" = PENDING
scancel "$g" "$r" "$p"

# A GPU shape the rounds do not model (--gpus-per-socket): Slurm places
# it on GPUs the round left free (the CPU fill, cpujobs.c); before, it
# stayed pending forever (SchedMD's test39.2)
s=$(sbatch --parsable -o /dev/null --gpus-per-socket=1 --sockets-per-node=1 --wrap 'sleep 300')
check "a --gpus-per-socket=1 job starts within two rounds" running_within_rounds "$W_DIR" 2 "$s"
scancel "$s"

# CPUs per GPU beyond one node: 2 GPUs x 8 CPUs on nodes of 8 CPUs. The
# round plans GPUs only (both on one node, where Slurm refuses it); the
# start falls back to Slurm's placement on nodes of the planned type
# (start_type.c). Before, it was refused the same way every round.
c=$(sbatch --parsable -o /dev/null --gpus=2 --cpus-per-gpu=8 --wrap 'sleep 300')
check "--gpus=2 --cpus-per-gpu=8 (16 CPUs, nodes of 8) starts within two rounds" running_within_rounds "$W_DIR" 2 "$c"
nodes=$(squeue -h -j "$c" -o %N)
check "... on both nodes ($nodes)" test "$nodes" = "v100-[1-2]"
scancel "$c"

# A GPU shape the rounds do not model does not jump the plan (issue 28
# item 3): GPUs freed between rounds go to the next round's plan (here a
# 4-GPU job ahead in priority), not to the odd shape the fill's next tick
# finds. Early rounds at least 30 s apart, so the job that frees them
# ends between rounds. Before, the --gpus-per-socket job took one of the
# freed GPUs a second later and the 4-GPU job waited the 300 s it runs.
check "round length 60 s, early rounds 30 s apart" it_hetsched_conf "$W_DIR" RoundLength=60 MinRoundInterval=30
a=$(sbatch --parsable -o /dev/null --gpus=4 --wrap 'sleep 20')
check "a 4-GPU job takes all four GPUs" running_within_rounds "$W_DIR" 2 "$a"
b=$(sbatch --parsable -o /dev/null --gpus=4 --priority=1000 --wrap 'sleep 300')
s=$(sbatch --parsable -o /dev/null --gpus-per-socket=1 --sockets-per-node=1 --priority=10 --wrap 'sleep 300')
check "the next 4-GPU job gets the GPUs freed between rounds" running_within_rounds "$W_DIR" 2 "$b"
check "the --gpus-per-socket job (lower priority) did not take one first" test "$(job_state "$s")" = PENDING
r=$(squeue -h -j "$s" -o %r)
check "... and its reason says why it waits ($r)" eval 'case "$r" in *"GPU shape the rounds do not model"*) true ;; *) false ;; esac'
scancel "$a" "$b" "$s"
it_done
