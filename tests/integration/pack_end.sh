#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pack_end.sh — space sharing: however a packed pair ends, Slurm
# stays consistent. Cancelling the first job of a pair leaves the second
# its GPU; unpacking (the scheduler requeues one job of the pair) leaves the
# other its GPU and the requeued job restarts alone on another GPU; killing
# the node during a packed run ends both jobs (NODE_FAIL) and the node comes
# back idle, not drained, with no GPU in use; packing one task of a job
# array leaves the rest of the array schedulable. Node GRES usage is checked
# with scontrol after every step, and slurmctld.log must show no GPU
# bookkeeping errors. Packing goes through hs_pack.h (sched/hs_packtest).
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/pack_lib.sh"
it_begin "space sharing: cancel, unpack and node failure leave Slurm consistent"

pack_cluster packend --gpus v100:3:1 --conf-extra "JobRequeue=1" || bail "cluster did not come up"
ONE='gpu:v100:1(IDX:0)' NONE='gpu:v100:0(IDX:N/A)'
long='echo cvd=$CUDA_VISIBLE_DEVICES; sleep 600'

# v100-2 and v100-3 stay busy, so only packing can place a second job.
F2=$(sub -J F2 -w v100-2 --gres=gpu:1 -- "$long")
F3=$(sub -J F3 -w v100-3 --gres=gpu:1 -- "$long")

# --- (a) cancel the first job of a pair ----------------------------------
A=$(sub -J A1 -w v100-1 --gres=gpu:1 -- "$long")
wait_state 30 "$A" RUNNING && wait_state 30 "$F2" RUNNING && wait_state 30 "$F3" RUNNING ||
	bail "jobs did not start"
B=$(sub -J B1 --gres=gpu:1 --comment="hs-pack-onto=$A" -- "$long")
check "(a) B1 packed onto A1" wait_state 30 "$B" RUNNING
check "(a) they share v100-1's GPU 0" test "$(job_gres "$A")" = "v100-1:$ONE" -a "$(job_gres "$B")" = "v100-1:$ONE"
scancel "$A"
wait_gone 30 "$A"
check "(a) after A1 is cancelled, B1 still runs" test "$(state "$B")" = RUNNING
check "(a) v100-1 still shows B1's GPU in use" test "$(node_used v100-1)" = "$ONE"
D=$(sub -J D1 -w v100-1 --gres=gpu:1 -- 'sleep 2')
sleep 4
check "(a) a new job does not get B1's GPU" test "$(state "$D")" = PENDING
scancel "$B"
check "(a) it starts once B1 is cancelled" wait_state 30 "$D" RUNNING
check "(a) and holds GPU 0 alone" test "$(job_gres "$D")" = "v100-1:$ONE"
wait_gone 30 "$D"
check "(a) v100-1 has no GPU in use" test "$(node_used v100-1)" = "$NONE"

# --- (b) unpack: the scheduler requeues one job of the pair --------------
A=$(sub -J A2 -w v100-1 --gres=gpu:1 -- "$long")
wait_state 30 "$A" RUNNING || bail "A2 did not start"
B=$(sub -J B2 --requeue --gres=gpu:1 --comment="hs-pack-onto=$A" -- "$long")
check "(b) B2 packed onto A2" wait_state 30 "$B" RUNNING
check "(b) they share v100-1's GPU 0" test "$(job_gres "$B")" = "v100-1:$ONE"
# no longer a packing candidate, then requeued (what sched/hetsched does
# to unpack, after a checkpoint: doc/protocol.md (d))
scontrol update jobid="$B" comment=unpacked
mark_log
scontrol requeue "$B"
check "(b) B2 is pending again" wait_state 30 "$B" PENDING
check "(b) A2 still runs" test "$(state "$A")" = RUNNING
check "(b) v100-1 still shows A2's GPU in use" test "$(node_used v100-1)" = "$ONE"
check "(b) the interface reports no pair" wait_log 10 'hs_packtest: pairs: none$'
scancel "$F2"
check "(b) B2 restarts alone once v100-2 is free" wait_state 60 "$B" RUNNING
check "(b) on v100-2's GPU 0" test "$(job_gres "$B")" = "v100-2:$ONE"
check "(b) v100-1 and v100-2 each show one GPU in use" \
	test "$(node_used v100-1) $(node_used v100-2)" = "$ONE $ONE"
check "(b) sacct -D shows B2 requeued, then running" \
	test "$(sacct -n -X -D -P -j "$B" -o State | paste -sd' ')" = "REQUEUED RUNNING"
scancel "$A" "$B"
wait_gone 30 "$A" "$B"
check "(b) no GPU in use on v100-1 and v100-2" \
	test "$(node_used v100-1) $(node_used v100-2)" = "$NONE $NONE"

# --- (c) the node dies during a packed run -------------------------------
A=$(sub -J A3 -w v100-1 --no-requeue --gres=gpu:1 -- "$long")
wait_state 30 "$A" RUNNING || bail "A3 did not start"
B=$(sub -J B3 --no-requeue --gres=gpu:1 --comment="hs-pack-onto=$A" -- "$long")
check "(c) B3 packed onto A3" wait_state 30 "$B" RUNNING
# The node's slurmd, the jobs' slurmstepds and tasks die at once (a crash),
# and the admin (or SlurmdTimeout) marks the node down.
it_node_die "$PACKEND_DIR" v100-1 >/dev/null
scontrol update nodename=v100-1 state=down reason=hs-test-node-killed
check "(c) A3 ends NODE_FAIL" wait_state 30 "$A" NODE_FAIL
check "(c) B3 ends NODE_FAIL" wait_state 30 "$B" NODE_FAIL
check "(c) v100-1 shows no GPU in use" test "$(node_used v100-1)" = "$NONE"
"$HS_CLUSTER" restart -q --dir "$PACKEND_DIR" >/dev/null 2>&1
check "(c) after its slurmd restarts, v100-1 is idle (not drained)" \
	sh -c 'for i in $(seq 60); do scontrol show node v100-1 | grep -q "State=IDLE " && exit 0; sleep 1; done; exit 1'
check "(c) ... with no GPU in use" test "$(node_used v100-1)" = "$NONE"
G=$(sub -J G -w v100-1 --gres=gpu:1 -- 'echo cvd=$CUDA_VISIBLE_DEVICES')
check "(c) a new job runs on v100-1's GPU 0" \
	sh -c "for i in \$(seq 60); do [ \"\$(sacct -n -X -P -j $G -o State)\" = COMPLETED ] && exit 0; sleep 1; done; exit 1"
check "(c) ... and saw CUDA_VISIBLE_DEVICES=0" test "$(cvd "$G")" = 0

# --- (d) a job array task packed; the rest of the array is unaffected ----
A=$(sub -J A4 -w v100-1 --gres=gpu:1 -- "$long")
F2=$(sub -J F2b -w v100-2 --gres=gpu:1 -- "$long")
wait_state 30 "$A" RUNNING && wait_state 30 "$F2" RUNNING || bail "A4 and F2b did not start"
J=$(sbatch --parsable -o /dev/null -J J --array=1-2 --gres=gpu:1 --comment="hs-pack-onto=$A" --wrap 'sleep 30')
check "(d) one array task is packed onto A4" wait_state 30 "${J}_1" RUNNING
check "(d) it shares v100-1's GPU 0 with A4" test "$(job_gres "${J}_1")" = "v100-1:$ONE"
check "(d) the other task waits (A4 has its partner)" test "$(state "${J}_2")" = PENDING
scancel "$F2"
check "(d) once v100-2 is free the other task starts there (the pack start did not leave its node exclusion on the array)" \
	wait_state 30 "${J}_2" RUNNING
check "(d) ... alone on v100-2's GPU 0" test "$(job_gres "${J}_2")" = "v100-2:$ONE"
scancel "$A" "$J"
wait_gone 30 "$A" "${J}_1" "${J}_2"

scancel "$F3"
wait_gone 30 "$F3"
for n in v100-1 v100-2 v100-3; do
	check "$n: no GPU in use at the end" test "$(node_used "$n")" = "$NONE"
	check "$n: not drained" sh -c "! scontrol show node $n | grep -qE 'State=[^ ]*(DRAIN|FAIL)'"
done
errs=$(gres_errors)
[ -z "$errs" ] || echo "$errs" | diag
check "slurmctld.log has no GPU bookkeeping errors (underflow, overallocated, overlap)" test -z "$errs"
it_done
