#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_suspend.sh — Gandiva-style time slicing with PreemptMode=suspend:
# two jobs that cannot checkpoint share one v100 (more jobs than GPUs of
# the type). The newcomer is started onto the running job's GPU through
# the select wrapper's packing interface and the running job is suspended
# right after; from then on the rounds alternate them by suspend/resume.
# A suspended job keeps its GPU (scontrol show job -d), is resumed on the
# same GPU, nothing is requeued, both complete, and the emulator's
# measured throughput (the stopped intervals excluded) matches the table.
# Job a is submitted with --no-requeue: Slurm cannot requeue it, but it
# can be suspended, so it is time-sliced like b, not pinned (issue 28).
# Then two users: one user's jobs that cannot be moved take at most her
# share of the GPU's two time-slice places (PinnedAdmission=share).
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched time-slices two jobs on one GPU by suspend/resume"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
sched_cluster k v100:1:1 || bail "cluster did not come up"
log=$K_DIR/log/slurmctld.log
check "PreemptMode=suspend, 5 s rounds" it_hetsched_conf "$K_DIR" Policy=max_min_fairness_perf \
	"ThroughputTable=$HS_TABLE" RoundLength=5 MinRoundInterval=1 PreemptMode=suspend
work=$(mktemp -d /tmp/hs-it-sched-suspend.XXXXXX)
scale=10
printf '#!/bin/bash\nsrun %s --table %s --time-scale %s --progress 5\n' "$HS_EMU" "$HS_TABLE" "$scale" >"$work/emu.sh"
chmod +x "$work/emu.sh"
ma="ResNet-18 (batch size 32)" mb="ResNet-18 (batch size 64)"
thr_a=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["v100"]["(%r, 1)" % sys.argv[2]]["null"])' "$HS_TABLE" "$ma")
thr_b=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["v100"]["(%r, 1)" % sys.argv[2]]["null"])' "$HS_TABLE" "$mb")
# About 25 s of GPU time each at the emulated speed. No --hs-ckpt-dir: the
# jobs cannot checkpoint, so only suspending can preempt them.
# sub NAME MODEL THR REQUEUE-OPTION
sub() {
	sbatch --parsable "$4" -J "$1" -o "$work/$1.out" --hs-model="$2" \
		--hs-steps="$(python3 -c "print(int($3 * $scale * 25))")" --gres=gpu:1 "$work/emu.sh"
}
# gpu_idx JOB: the GPU indices slurmctld allocated to the job (-d).
gpu_idx() { scontrol show job -d "$1" | sed -n 's/.*GRES=[^ ]*(IDX:\([^)]*\)).*/\1/p' | head -n 1; }
state_of() { squeue -h -j "$1" -o %T 2>/dev/null; }
# wait_for SECS CMD...: poll CMD every second.
wait_for() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 1
	done
}
is_state() { [ "$(state_of "$1")" = "$2" ]; }

a=$(sub a "$ma" "$thr_a" --no-requeue)
check "job a runs alone" wait_for 90 is_state "$a" RUNNING
check "job a cannot be requeued (Requeue=0)" sh -c "scontrol show job $a | grep -q 'Requeue=0'"
b=$(sub b "$mb" "$thr_b" --requeue)
check "a round suspends job a for job b (SUSPENDED in squeue)" wait_for 90 is_state "$a" SUSPENDED
check "the plugin logged the suspend" grep -q "sched/hetsched: suspended JobId=$a" "$log"
check "job b was started onto a's GPU (packed start)" \
	grep -q "sched/hetsched: started JobId=$b packed with JobId=$a" "$log"
idx_a=$(gpu_idx "$a") idx_b=$(gpu_idx "$b")
check "suspended job a keeps its GPU allocation (IDX:$idx_a)" test -n "$idx_a"
check "job b runs on the same GPU (IDX:$idx_b)" test -n "$idx_b" -a "$idx_a" = "$idx_b"
check "the suspend's reason says time-sliced with b" \
	grep -q "sched/hetsched: suspended JobId=$a (hetsched round [0-9]*: suspended, time-sliced with job $b" "$log"
check "job a is resumed later" wait_for 90 is_state "$a" RUNNING
check "... by the plugin (logged), with b suspended" sh -c "grep -q 'sched/hetsched: resumed JobId=$a' '$log' &&
	grep -q 'sched/hetsched: suspended JobId=$b' '$log'"
check "... on the same GPU (IDX:$(gpu_idx "$a"))" test "$(gpu_idx "$a")" = "$idx_a"
# Alternation: a few more switches before the jobs end.
switches() { grep -Ec "sched/hetsched: (suspended|resumed) JobId=($a|$b) " "$log"; }
check "time slicing alternates (at least 3 suspends and 2 resumes)" wait_for 120 sh -c "
	[ \$(grep -c 'sched/hetsched: suspended JobId=' '$log') -ge 3 ] &&
	[ \$(grep -c 'sched/hetsched: resumed JobId=' '$log') -ge 2 ]"
it_wait_jobs 240 "$a" "$b" || nok "both jobs finished in time"
check "both COMPLETED" all_completed "$a" "$b"
check "nothing was requeued (one incarnation each)" \
	test "$(sacct -j "$a,$b" -D -X -n -o JobIDRaw | sort -u | wc -l)/$(sacct -j "$a,$b" -D -X -n -o JobIDRaw | wc -l)" = 2/2
echo "$(switches) suspends/resumes in all" | diag
# The emulator's measured steps/s on v100 (sacct AdminComment, stopped
# intervals excluded by the SPANK plugin) against the table x time scale.
within() { python3 -c "import sys; v, r, t = map(float, sys.argv[1:]); sys.exit(0 if abs(v / r - 1) <= t else 1)" "$@"; }
for j in "$a:$thr_a" "$b:$thr_b"; do
	id=${j%%:*} thr=${j#*:}
	sps=$(sacct -j "$id" -X -P -n -o AdminComment%1000 | tail -n 1 |
		python3 "$HS_SRCDIR/tests/integration/hs_admincomment.py" get thr.v100.sps)
	check "job $id: measured throughput $(python3 -c "print(round(${sps:-0} / $scale, 2))") ~ table $thr (20%)" \
		within "${sps:-0}" "$(python3 -c "print($thr * $scale)")" 0.2
done
# Two users, the one GPU (issue 28). hs-alice's jobs cannot be moved
# (--no-requeue): once started, each keeps one of the GPU's two
# time-slice places. Her first holds her half, so her second waits with
# the reason, and hs-bob's job is the one time-sliced with her first.
# Before, her second job could take the other place and keep the GPU
# hers until both ended.
check "account lab with users hs-alice and hs-bob" lab_users "$K_DIR" hs-alice hs-bob
chmod 755 "$work"
# as USER NAME: the emulator job of `sub`, submitted by USER, --no-requeue.
as() {
	runuser -u "$1" -- sbatch --parsable --chdir=/tmp -o /dev/null -A lab --no-requeue \
		-J "$2" --hs-model="$ma" --hs-steps="$(python3 -c "print(int($thr_a * $scale * 25))")" \
		--gres=gpu:1 "$work/emu.sh"
}
reason_has() { squeue -h -j "$1" -o %r | grep -q "$2"; }
c=$(as hs-alice c)
check "hs-alice's first job runs" wait_for 90 is_state "$c" RUNNING
d=$(as hs-alice d) e=$(as hs-bob e)
check "hs-bob's job is started onto it (time-sliced)" \
	wait_for 90 grep -q "sched/hetsched: started JobId=$e packed with JobId=$c" "$log"
check "hs-alice's second job waits: her first holds her share of the time slices" \
	reason_has "$d" "time slices"
squeue -h -j "$d" -o '%i %T %r' | diag
check "... and is never started while both of the others hold the GPU" \
	sh -c "! grep -q 'sched/hetsched: started JobId=$d packed' '$log'"
it_wait_jobs 300 "$c" "$d" "$e" || nok "the three jobs finished in time"
check "all three COMPLETED" all_completed "$c" "$d" "$e"
check "no plugin error, no GRES underflow" sh -c "! grep -Ei 'underflow|error: sched/hetsched' '$log'"
rm -rf "$work"
it_done
