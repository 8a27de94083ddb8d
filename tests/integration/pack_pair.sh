#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pack_pair.sh — space sharing: a job packed onto a running
# job's GPUs runs concurrently on the same GPU index of the same node (both
# see the same CUDA_VISIBLE_DEVICES), emulated training jobs run at the
# Gavel table's pair throughput while packed, a two-GPU pair shares both
# GPUs, refusals leave jobs pending, node GPU usage counts a shared GPU once
# and never gives it to a third job, ending one job leaves the other's GPUs
# allocated, sacct shows both jobs with overlapping runtimes on the node,
# SystemComment names partner and GPU, and the Slurm clients work with the
# plugin. Packing goes through hs_pack.h, driven by sched/hs_packtest.
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/pack_lib.sh"
it_begin "space sharing: a packed pair shares GPUs; accounting stays consistent"

[ -x "$HS_EMU" ] || bail "no $HS_EMU (run make)"
[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
pack_cluster pack --gpus v100:2:1,k80:1:2 || bail "cluster did not come up"
share=$PACK_DIR/tmp/emu-share
mkdir -p "$share" && chmod 1777 "$share"

# Emulated jobs (doc/protocol.md models): A runs long, B is packed onto it.
MA="ResNet-50 (batch size 64)" MB="Transformer (batch size 64)"
TS=10 # emulated seconds per second
emu() { # MODEL STEPS
	printf 'echo cvd=$CUDA_VISIBLE_DEVICES; %q --table %q --model %q --steps %s --gpu-type v100 --time-scale %s --shared --share-dir %q' \
		"$HS_EMU" "$HS_TABLE" "$1" "$2" "$TS" "$share"
}

check "the packing interface is available to the sched plugin" wait_log 20 'hs_packtest: packing interface available'

# --- a single-GPU pair on a v100 node; the other v100 is busy (C) --------
A=$(sub -J A --gres=gpu:v100:1 -- "$(emu "$MA" 2500)")
C=$(sub -J C --gres=gpu:v100:1 -- 'echo cvd=$CUDA_VISIBLE_DEVICES; sleep 300')
# P (two k80 GPUs) is started now: Slurm's FIFO scheduler would not start
# it behind the pending D below.
P=$(sub -J P --gres=gpu:k80:2 -- 'echo cvd=$CUDA_VISIBLE_DEVICES; sleep 90')
wait_state 30 "$A" RUNNING && wait_state 30 "$C" RUNNING && wait_state 30 "$P" RUNNING ||
	bail "A, C and P did not start"
B=$(sub -J B --gres=gpu:v100:1 --comment="hs-pack-onto=$A" -- "$(emu "$MB" 355)")
check "B (packed onto A) starts although every v100 is allocated" wait_state 30 "$B" RUNNING
check "slurmctld logs the pack start through the interface" \
	wait_log 5 "hs_packtest: packed JobId=$B onto JobId=$A"
ga=$(job_gres "$A") gb=$(job_gres "$B")
echo "A: $ga  B: $gb" | diag
check "A and B hold the same GPU index on the same node (scontrol show job -d)" \
	test -n "$ga" -a "$ga" = "$gb"
node=${ga%%:*}
sleep 1
check "both jobs see the same CUDA_VISIBLE_DEVICES" test -n "$(cvd "$A")" -a "$(cvd "$A")" = "$(cvd "$B")"
used=$(node_used "$node")
echo "$node GresUsed=$used" | diag
check "the node counts the shared GPU once (GresUsed gpu:v100:1)" test "$used" = "gpu:v100:1(IDX:$(cvd "$A"))"
check "the node's AllocTRES counts one GPU" \
	sh -c "scontrol show node $node | grep -q 'AllocTRES=.*gres/gpu=1\\b'"
check "hs_pack_pairs and hs_pack_partner report the pair" wait_log 5 "hs_packtest: pairs: $A\\+$B\$"
check "SystemComment of B records its partner and the shared GPU" \
	sh -c "scontrol show job $B | grep -q 'SystemComment=hs_pack:partner=$A,start=[0-9]*,gpus=$node\\[$(cvd "$A")\\]'"
check "SystemComment of A records its partner and the shared GPU" \
	sh -c "scontrol show job $A | grep -q 'SystemComment=hs_pack:partner=$B,start=[0-9]*,gpus=$node\\[$(cvd "$A")\\]'"

# The emulators found each other and run at the table's pair throughput.
pb=$(table_pair "$MB" "$MA" v100)
thr_b=$(sed -n 's/.*start job=.* thr=\([0-9.e+-]*\) .*/\1/p' "$(outfile "$B")")
echo "B started at $thr_b steps/s, table pair throughput $pb" | diag
check "the packed emulator runs at the table's pair throughput" within "${thr_b:-0}" "$pb" 0.001
check "A's emulator sees its partner's model" wait_log_file 10 "$(outfile "$A")" "partner \"$MB\""

# --- refusals: B stays pending, nothing changes ---------------------------
E=$(sub -J E --gres=gpu:v100:1 --comment="hs-pack-onto=$A" -- 'sleep 5')
check "a second partner for A is refused (never more than two jobs per GPU)" \
	wait_log 10 "JobId=$E onto JobId=$A not started: partner JobId=$A already shares its GPUs with JobId=$B"
check "... and stays pending" test "$(state "$E")" = PENDING
scancel "$E"
D=$(sub -J D --gres=gpu:v100:1 -- 'sleep 5')
sleep 3
check "an ordinary pending job does not get the shared GPU" test "$(state "$D")" = PENDING

# --- a two-GPU pair on the k80 node; a one-GPU partner is refused ---------
R=$(sub -J R --gres=gpu:k80:1 --comment="hs-pack-onto=$P" -- 'sleep 5')
check "a partner asking for fewer GPUs is refused" wait_log 10 "JobId=$R onto JobId=$P not started"
check "... and stays pending" test "$(state "$R")" = PENDING
scancel "$R"
wait_gone 20 "$R"
Q=$(sub -J Q --gres=gpu:k80:2 --comment="hs-pack-onto=$P" -- 'echo cvd=$CUDA_VISIBLE_DEVICES; sleep 20')
check "a two-GPU job packs onto a two-GPU job" wait_state 30 "$Q" RUNNING
gp=$(job_gres "$P") gq=$(job_gres "$Q")
echo "P: $gp  Q: $gq" | diag
check "both hold GPUs 0-1 of the k80 node" test "$gp" = "k80-1:gpu:k80:2(IDX:0-1)" -a "$gq" = "$gp"
sleep 1
check "both see CUDA_VISIBLE_DEVICES=0,1" test "$(cvd "$P")" = 0,1 -a "$(cvd "$Q")" = 0,1
check "the k80 node counts two GPUs used" test "$(node_used k80-1)" = "gpu:k80:2(IDX:0-1)"

# --- the clients work with the plugin ------------------------------------
check "sinfo works" quiet sinfo -N
check "squeue works" quiet squeue
check "scontrol show node works" quiet scontrol show node
check "sacct works" quiet sacct -X

# --- B ends (emulator done); A keeps its GPU -----------------------------
mark_log
check "B completes" wait_state 90 "$B" COMPLETED
check "A still runs" test "$(state "$A")" = RUNNING
check "the node still shows A's GPU in use" test "$(node_used "$node")" = "gpu:v100:1(IDX:$(cvd "$A"))"
check "D still waits: A's GPU was not freed by B's end" test "$(state "$D")" = PENDING
# The driver logs the pairs whenever they change, so its last such line is
# what the interface reports now (not a line after the mark above: B can
# end, and the change be logged, before "B completes" starts waiting;
# under load it did).
pairs_now() { # SECS REGEX: the last pairs logged match REGEX (whole line)
	local end=$(($(date +%s) + $1))
	until ctld_log | sed -n 's/.*hs_packtest: pairs: //p' | tail -n 1 | grep -Eqx "$2"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}
check "the interface no longer reports A+B" pairs_now 5 "($P\\+$Q|none)"
check "Q completes" wait_state 60 "$Q" COMPLETED
check "the k80 node still shows P's two GPUs" test "$(node_used k80-1)" = "gpu:k80:2(IDX:0-1)"

scancel "$A" "$C" "$P"
check "D starts once A and C are gone" wait_state 40 "$D" RUNNING
wait_gone 60 "$A" "$B" "$C" "$D" "$P" "$Q"
it_wait_jobs 60 "$A" "$B" "$C" "$D" "$P" "$Q" || true
for n in v100-1 v100-2 k80-1; do
	check "$n: no GPU in use at the end" test "$(node_used "$n")" = "gpu:${n%-*}:0(IDX:N/A)"
	check "$n: not drained or down" sh -c "! scontrol show node $n | grep -qE 'State=[^ ]*(DRAIN|DOWN|FAIL)'"
done

# --- accounting ----------------------------------------------------------
check "sacct: A and B ran on the same node with overlapping runtimes" overlap "$A" "$B"
check "sacct: P and Q ran on the same node with overlapping runtimes" overlap "$P" "$Q"
check "sacct: A and B each have gres/gpu:v100=1" \
	test "$(sacct -n -X -P -j "$A,$B" -o AllocTRES | tr ',' '\n' | grep -c '^gres/gpu:v100=1$')" = 2
check "B completed, Q completed" test "$(state "$B") $(state "$Q")" = "COMPLETED COMPLETED"
errs=$(gres_errors)
[ -z "$errs" ] || echo "$errs" | diag
check "slurmctld.log has no GPU bookkeeping errors (underflow, overallocated, overlap)" test -z "$errs"
it_done
