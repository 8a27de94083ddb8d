#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# spank_ckpt.sh — the checkpoint/migration protocol of doc/protocol.md (d)
# on a real cluster, driven the way the sched plugin will drive it: send
# the checkpoint signal (SIGURG) to the batch script's process group and to
# every step, wait for the acknowledgement in AdminComment, requeue, and
# start the job again — the emulator on another GPU type (k80 -> v100).
# Checks: the job continues from its checkpoint with no step lost and none
# repeated (the hold), each incarnation is in sacct -D, the record keeps the
# throughput and GPU type history; the C, shell and Python examples of
# doc/examples do the same; a job that knows nothing of hetsched survives
# the signal. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/spank_lib.sh"
it_begin "spank_hetsched: checkpoint on signal, requeue, resume (also on another GPU type)"

spank_cluster c || bail "cluster did not come up"
work=$(mktemp -d /tmp/hs-it-spank-ckpt.XXXXXX)
export PATH=$HS_BUILDDIR:$PATH PYTHONPATH=$HS_SRCDIR/python
model="ResNet-18 (batch size 64)"
scale=10
N=1400
opts=(--parsable --requeue --open-mode=append --gres=gpu:1 --hs-ckpt-dir="$work/ck/%j")

# The emulator runs as an srun step: reports reach the step's listener.
printf '#!/bin/bash\nsrun %s --table %s --time-scale %s\n' "$HS_EMU" "$HS_TABLE" "$scale" >"$work/emu.sh"
je=$(sbatch "${opts[@]}" -o "$work/emu.out" -w k80-1 --hs-model="$model" --hs-steps=$N "$work/emu.sh")
jc=$(sbatch "${opts[@]}" -o "$work/c.out" -w k80-1 --wrap "$HS_BUILDDIR/doc/examples/train 1500")
js=$(sbatch "${opts[@]}" -o "$work/sh.out" -w v100-1 "$HS_SRCDIR/doc/examples/train.sh" 300)
jp=$(sbatch "${opts[@]}" -o "$work/py.out" -w v100-1 --wrap "python3 $HS_SRCDIR/doc/examples/train.py --steps 1500")
[ -n "$je" ] && [ -n "$jc" ] && [ -n "$js" ] && [ -n "$jp" ] || bail "submission failed"
jobs="$je $jc $js $jp"
declare -A name out K
name=([$je]=emulator [$jc]=C [$js]=shell [$jp]=Python)
out=([$je]=$work/emu.out [$jc]=$work/c.out [$js]=$work/sh.out [$jp]=$work/py.out)

for j in $jobs; do
	wait_field 60 "$j" step || nok "${name[$j]}: reports arrive"
done
sleep 2
t0=$(date +%s)
for j in $jobs; do
	scancel --signal=URG --full "$j"    # KILL_FULL_JOB: the batch script's process group
	scancel --signal=URG "$j"           # the steps (srun does not forward SIGURG)
done
for j in $jobs; do
	end=$(($(date +%s) + 60))
	while :; do
		t=$(field "$j" ckpt.t) && [ "$t" -ge $((t0 - 2)) ] && break
		[ "$(date +%s)" -ge $end ] && break
		sleep 0.5
	done
	K[$j]=$(field "$j" ckpt.step)
	check "${name[$j]}: checkpoint acknowledged in AdminComment (step ${K[$j]})" test -n "${K[$j]}"
done
sleep 2
for j in $jobs; do
	check "${name[$j]}: still RUNNING (the signal killed no batch shell)" test "$(squeue -h -j "$j" -o %T)" = RUNNING
	check "${name[$j]}: holds: no step reported after the checkpoint" test "$(field "$j" step)" = "${K[$j]}"
done

for j in $jobs; do scontrol requeue "$j"; done
# NodeList can only be changed once the job is pending again. The jobs
# restart at the begin time Slurm gives a requeued job (cred_expire + 1 =
# 6 s here): a restart in the same second as slurmd's revocation of the
# old credential is refused and the job FAILS (job_mgr.c: "the time stamp
# on the new batch launch credential must be larger than the time stamp on
# the revoke request"), which StartTime=now right after the requeue did.
wait_state 60 PENDING $jobs || nok "every job pending again after the requeue"
scontrol update jobid="$je" NodeList=v100-1 || nok "emulator: move the pending job to v100"
# shellcheck disable=SC2086
it_wait_jobs 300 $jobs || nok "every job finished after its restart"

e=${K[$je]}
check "emulator: first run checkpointed and held at the same step" grep -q "hold step=$e$" "${out[$je]}"
check "emulator: first run ended at its checkpoint (nothing lost, nothing to repeat)" \
	grep -q "terminated by signal 15 step=$e ran=$e last_ckpt=$e$" "${out[$je]}"
check "emulator: resumed from the checkpoint on v100" sh -c "grep -q 'resume step=$e ' '${out[$je]}' &&
	grep -q 'start job=$je rc=1 .* gpu=v100 .* step=$e steps=$N' '${out[$je]}'"
check "emulator: steps run = the job's steps ($e + $((N - e)))" grep -q "done step=$N ran=$((N - e))$" "${out[$je]}"
diag <"${out[$je]}"
for j in $jc $js $jp; do
	check "${name[$j]}: checkpointed at ${K[$j]}, resumed there, finished" sh -c "
		grep -q 'checkpoint at step ${K[$j]}$' '${out[$j]}' && grep -q 'start at step ${K[$j]} ' '${out[$j]}' &&
		grep -q 'done at step' '${out[$j]}'" || diag <"${out[$j]}"
done

for j in $jobs; do
	check "${name[$j]}: sacct -D shows REQUEUED then COMPLETED" \
		test "$(sacct -j "$j" -D -X -P -n -o State | tr '\n' ' ')" = "REQUEUED COMPLETED " ||
		{ sacct -j "$j" -D -X -P -o JobID,JobName,State,ExitCode,NodeList,Submit,Start,End; scontrol show job "$j"; } 2>&1 | diag
done
rec=$(record "$je")
echo "$rec" | diag
check "history: k80 (run 0) then v100 (run 1)" test "$(echo "$rec" | $HS_AC get hist.0.gpu)/$(echo "$rec" | $HS_AC get hist.0.rc)/$(echo "$rec" | $HS_AC get hist.1.gpu)/$(echo "$rec" | $HS_AC get hist.1.rc)" = k80/0/v100/1
# 10%: v100 has only ~3 one-second windows after the restart (EMA weight
# 0.5); reports are timed when sent, so load adds no bias (see
# spank_report.sh); measured under stress-ng --cpu 2 within 0.5%.
for gpu in k80 v100; do
	sps=$(echo "$rec" | $HS_AC get "thr.$gpu.sps")
	check "throughput history: $gpu $(python3 -c "print(round(${sps:-0} / $scale, 3))") ~ table $(table_thr "$model" $gpu)" \
		within "$(python3 -c "print(${sps:-0} / $scale)")" "$(table_thr "$model" $gpu)" 0.1
done
check "record: final step and the checkpoint" test "$(echo "$rec" | $HS_AC get step)/$(echo "$rec" | $HS_AC get ckpt.step)" = "$N/$e"
check "sacct: the requeued incarnation keeps its record" test "$(record "$je" 1 | $HS_AC get ckpt.step)" = "$e"

# A job that knows nothing of hetsched: SIGURG's default action is to
# ignore it, so neither the batch shell nor its programs die.
jb=$(sbatch --parsable -o /dev/null --gres=gpu:1 -w k80-1 --wrap "sleep 120; echo done")
wait_state 60 RUNNING "$jb" || nok "bystander: started"
sleep 1   # its shell is running its sleep
scancel --signal=URG --full "$jb"
scancel --signal=URG "$jb"
sleep 2
check "bystander: a plain job survives the checkpoint signal" test "$(squeue -h -j "$jb" -o %T)" = RUNNING
scancel "$jb"

rm -rf "$work"
it_done
