#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_array_nodefail.sh — a job array's tasks survive the death of a
# node they run on (doc/robustness.md finding 5): four checkpointing
# tasks on 4 GPUs, the node of one task dies (slurmd and the task's
# processes killed, found by the task's unique id), Slurm marks it DOWN
# and requeues the task, hetsched restarts it elsewhere from its
# checkpoint, the node comes back; every task COMPLETES with all its
# steps. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: an array task whose node dies is requeued and completes"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
sched_cluster n v100:1:2,k80:1:2 --conf-extra SlurmdTimeout=10 || bail "cluster did not come up"
work=$(mktemp -d /tmp/hs-it-arrnf.XXXXXX)
export PATH=$HS_BUILDDIR:$PATH
printf '#!/bin/bash\nsrun %s --table %s --time-scale 10\n' "$HS_EMU" "$HS_TABLE" >"$work/emu.sh"
chmod +x "$work/emu.sh"
check "hetsched.conf: 4 s rounds" it_hetsched_conf "$N_DIR" RoundLength=4 MinRoundInterval=2 \
	CheckpointGrace=10 "ThroughputTable=$HS_TABLE" Policy=max_min_fairness_perf
steps=${ARR_STEPS:-1500}
arr=$(sbatch --parsable --requeue --open-mode=append -D "$work" -t 30 -J arrnf \
	-o "$work/arr_%a.out" --array=0-3 --hs-ckpt-dir="$work/ck/%j" \
	--hs-model="ResNet-18 (batch size 64)" --hs-steps="$steps" --gres=gpu:1 "$work/emu.sh")
arr=${arr%%;*}
check "the 4 tasks run" sh -c "for i in \$(seq 90); do [ \$(squeue -h -t R -r -j $arr | wc -l) = 4 ] && exit 0; sleep 1; done; exit 1"
sleep "${ARR_RUN_S:-8}" # some steps and a checkpoint or two
dead=k80-1
# the rounds may move a task between GPU types (a checkpointed requeue),
# so the node can be empty for a moment: wait for a task to run there
victims=""
for i in $(seq 60); do
	victims=$(squeue -h -t R -w "$dead" -o %A | tr '\n' ' ')
	[ -n "$victims" ] && break
	sleep 1
done
echo "dead node $dead, tasks there (unique ids): $victims" | diag
check "a task runs on $dead" test -n "$victims"
echo "pids $(it_node_die "$N_DIR" "$dead") killed with slurmd on $dead" | diag
check "Slurm marks $dead DOWN" wait_node_state "$dead" DOWN 120
check "hs-cluster up brings its slurmd back" sched_cluster_up_again "$N_DIR" "$N_PORT"
check "every task ended within 300 s" sh -c "for i in \$(seq 300); do [ -z \"\$(squeue -h -r -j $arr)\" ] && exit 0; sleep 1; done; exit 1"
# accounting is asynchronous: squeue can be empty before slurmdbd has the
# last task's completion record (a CI run read one task short), so wait
# for it rather than read sacct once
check "every task COMPLETED" sh -c "for i in \$(seq 60); do [ \$(sacct -n -X -P -o State -j $arr | grep -c '^COMPLETED') = 4 ] && exit 0; sleep 1; done; exit 1"
sacct -n -X -D -P -o JobID,JobIDRaw,State,ExitCode,NodeList,Start,End -j "$arr" | diag
missing=""
for a in 0 1 2 3; do
	grep -q "done step=$steps " "$work/arr_$a.out" 2>/dev/null || missing="$missing $a"
done
check "every task trained all its steps (missing:$missing)" test -z "$missing"
# shellcheck disable=SC2086 # word splitting trims the list
grep -E "JobId=($(echo $victims | tr ' ' '|'))[^0-9]|finishing the requeue" "$N_DIR/log/slurmctld.log" | tail -20 | diag
scancel "$arr" 2>/dev/null
rm -rf "$work"
it_done
