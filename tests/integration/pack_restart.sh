#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pack_restart.sh — space sharing: slurmctld restarts while
# packed pairs run (a one-GPU pair filling a one-GPU node, and a two-GPU
# pair), twice: once before the nodes re-register, once with `scontrol
# reconfigure`. Afterwards the jobs still run, the interface still reports
# both pairs (they are derived from the jobs' saved GPU allocations), node
# GPU usage counts each shared GPU once, no other job gets a shared GPU,
# ending one job of a pair leaves the other's GPUs allocated, and
# slurmctld.log shows no GPU bookkeeping errors (no "overallocated" when the
# pair is re-added to a full node). Packing goes through hs_pack.h
# (sched/hs_packtest). TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/pack_lib.sh"
it_begin "space sharing: slurmctld restart with packed jobs running restores them"

pack_cluster packrst --gpus v100:1:1,k80:1:2 || bail "cluster did not come up"
V1='gpu:v100:1(IDX:0)' K2='gpu:k80:2(IDX:0-1)'

A=$(sub -J A -w v100-1 --gres=gpu:1 -- 'echo cvd=$CUDA_VISIBLE_DEVICES; sleep 600')
P=$(sub -J P -w k80-1 --gres=gpu:2 -- 'echo cvd=$CUDA_VISIBLE_DEVICES; sleep 600')
wait_state 30 "$A" RUNNING && wait_state 30 "$P" RUNNING || bail "A and P did not start"
B=$(sub -J B --gres=gpu:1 --comment="hs-pack-onto=$A" -- 'echo cvd=$CUDA_VISIBLE_DEVICES; sleep 45')
Q=$(sub -J Q --gres=gpu:2 --comment="hs-pack-onto=$P" -- 'echo cvd=$CUDA_VISIBLE_DEVICES; sleep 600')
wait_state 30 "$B" RUNNING && wait_state 30 "$Q" RUNNING || bail "B and Q were not packed"
check "before: both pairs reported" wait_log 10 "hs_packtest: pairs: $A\\+$B $P\\+$Q\$"
D=$(sub -J D --gres=gpu:1 -- 'sleep 2')

# restart_ctld: stop slurmctld (SIGTERM: state saved) and start it again
# the way hs-cluster does (marked HS_CLUSTER_DAEMON=dir, so `down` finds
# it), without our lock fds.
restart_ctld() {
	local pid
	pid=$(cat "$PACKRST_DIR/run/slurmctld.pid")
	kill -TERM "$pid"
	for _ in $(seq 150); do [ -d "/proc/$pid" ] || break; sleep 0.2; done
	setsid env "HS_CLUSTER_DAEMON=$PACKRST_DIR" SLURM_CONF="$SLURM_CONF" slurmctld -f "$SLURM_CONF" \
		</dev/null >>"$PACKRST_DIR/log/slurmctld.out" 2>&1 9>&- 7>&- &
	for _ in $(seq 120); do scontrol ping 2>/dev/null | grep -q 'is UP' && return 0; sleep 0.5; done
	return 1
}

for how in restart reconfigure; do
	mark_log
	if [ $how = restart ]; then
		check "slurmctld restarts" restart_ctld
	else
		check "scontrol reconfigure" quiet scontrol reconfigure
	fi
	check "after $how: the interface reports both pairs" \
		wait_log 20 "hs_packtest: pairs: $A\\+$B $P\\+$Q\$"
	check "after $how: the four jobs still run" \
		test "$(state "$A") $(state "$B") $(state "$P") $(state "$Q")" = "RUNNING RUNNING RUNNING RUNNING"
	check "after $how: A and B still share v100-1's GPU 0" \
		test "$(job_gres "$A")" = "v100-1:$V1" -a "$(job_gres "$B")" = "v100-1:$V1"
	check "after $how: P and Q still share k80-1's GPUs 0-1" \
		test "$(job_gres "$P")" = "k80-1:$K2" -a "$(job_gres "$Q")" = "k80-1:$K2"
	# after a restart the counters are right once the node registered
	check "after $how: v100-1 counts its GPU once" \
		sh -c "for i in \$(seq 40); do [ \"\$(scontrol show node -d v100-1 | sed -n 's/^ *GresUsed=//p')\" = '$V1' ] && exit 0; sleep 0.5; done; exit 1"
	check "after $how: k80-1 counts its two GPUs once" test "$(node_used k80-1)" = "$K2"
	check "after $how: v100-1's AllocTRES has one GPU" \
		sh -c "scontrol show node v100-1 | grep -q 'AllocTRES=.*gres/gpu=1\\b'"
	check "after $how: k80-1's AllocTRES has two GPUs" \
		sh -c "scontrol show node k80-1 | grep -q 'AllocTRES=.*gres/gpu=2\\b'"
	sleep 2
	check "after $how: a pending job does not get the shared GPU" test "$(state "$D")" = PENDING
done

check "B completes" wait_state 60 "$B" COMPLETED
check "A still runs and holds v100-1's GPU" test "$(state "$A") $(node_used v100-1)" = "RUNNING $V1"
check "D still pending" test "$(state "$D")" = PENDING
scancel "$Q"
wait_gone 30 "$Q"
check "after Q is cancelled, P still holds k80-1's two GPUs" test "$(state "$P") $(node_used k80-1)" = "RUNNING $K2"
scancel "$A"
check "D runs once A is gone" wait_state 30 "$D" RUNNING
scancel "$P"
wait_gone 40 "$A" "$P" "$D"
check "no GPU in use at the end" \
	test "$(node_used v100-1) $(node_used k80-1)" = "gpu:v100:0(IDX:N/A) gpu:k80:0(IDX:N/A)"
check "no node drained" sh -c "! scontrol show node | grep -qE 'State=[^ ]*(DRAIN|DOWN|FAIL)'"
errs=$(gres_errors)
[ -z "$errs" ] || echo "$errs" | diag
check "slurmctld.log has no GPU bookkeeping errors (underflow, overallocated, overlap)" test -z "$errs"
it_done
