#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_pinned_mix.sh — a mixed queue on a live cluster: half the jobs
# cannot be preempted (plain batch jobs, no checkpoints: "pinned"), half
# checkpoint (time-scaled emulated training jobs), 4 of each on 4 GPUs
# (2 nodes x 2 v100), max_min_fairness, PinnedAdmission=share
# (doc/policies.md "Jobs that cannot be preempted"): the pinned group's
# share is 4 GPUs x 4/8 = 2. Checked from squeue sampled every second:
# pinned jobs never hold more than 2 GPUs, and do hold 2; the waiting
# ones say why; the preemptible jobs share the other 2 GPUs (mean over
# the samples); no pinned job is ever requeued; when pinned jobs end the
# waiting ones start; the GPUs stay busy.
# PIN_MODES="always share" (bench/pinned/cluster.sh) also runs
# PinnedAdmission=always first, on the same cluster and workload, and
# prints both modes' figures; only share is checked. Then two users, one
# of whom turns requeue off on her running jobs (see the end). TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: a mixed queue, half the jobs cannot be preempted"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
sched_cluster m v100:2:2 || bail "cluster did not come up"
work=$(mktemp -d /tmp/hs-it-pinmix.XXXXXX)
export PATH=$HS_BUILDDIR:$PATH
printf '#!/bin/bash\nsrun %s --table %s --time-scale 10\n' "$HS_EMU" "$HS_TABLE" >"$work/emu.sh"
chmod +x "$work/emu.sh"
PIN_SLEEP=${PIN_SLEEP:-30} # how long a pinned job runs
SAMPLE_S=${SAMPLE_S:-65}   # how long the queue is watched

# run_mode MODE: one workload under PinnedAdmission=MODE; samples go to
# $work/MODE.samples ("t pinned_running preemptible_running
# pinned_waiting_with_reason"), job ids to $work/MODE.pinned and .pre.
run_mode() {
	local mode=$1 ids=() pin=() i t0 now
	scancel -u root 2>/dev/null
	# shellcheck disable=SC2046
	[ -z "$(squeue -h -o %i)" ] || wait_gone 120 $(squeue -h -o %i) || return 1
	it_hetsched_conf "$M_DIR" Policy=max_min_fairness RoundLength=6 MinRoundInterval=2 \
		"ThroughputTable=$HS_TABLE" CheckpointGrace=20 "PinnedAdmission=$mode" || return 1
	# into a stopped partition, then started: one round sees them all
	scontrol update PartitionName=gpu State=DOWN || return 1
	for i in 1 2 3 4; do
		pin+=("$(sbatch --parsable -o /dev/null -J "pin-$i" --gres=gpu:1 -t 5 \
			--wrap "sleep $PIN_SLEEP")")
		ids+=("$(sbatch --parsable --requeue --open-mode=append -J "pre-$i" \
			-o "$work/$mode-pre-$i.out" --gres=gpu:1 --hs-ckpt-dir="$work/ck/%j" \
			--hs-model="ResNet-18 (batch size 64)" --hs-steps=100000000 "$work/emu.sh")")
	done
	echo "${pin[*]}" >"$work/$mode.pinned"
	echo "${ids[*]}" >"$work/$mode.pre"
	scontrol update PartitionName=gpu State=UP || return 1
	t0=$(date +%s)
	: >"$work/$mode.samples"
	while now=$(date +%s) && [ $((now - t0)) -lt "$SAMPLE_S" ]; do
		squeue -h -o '%j|%T|%R' | tee -a "$work/$mode.raw" | awk -F'|' -v t=$((now - t0)) '
			$1 ~ /^pin-/ && $2 == "RUNNING" { p++ }
			$1 ~ /^pre-/ && $2 == "RUNNING" { q++ }
			$1 ~ /^pin-/ && $2 == "PENDING" && $3 ~ /cannot be preempted/ { w++ }
			END { printf "%d %d %d %d\n", t, p, q, w }' >>"$work/$mode.samples"
		sleep 1
	done
	cp "$M_DIR/log/slurmctld.log" "$work/$mode.ctld.log"
}

# figures MODE: max pinned GPUs, mean pinned, mean preemptible and mean
# busy GPUs over the samples after the first 10 s (the first rounds).
figures() {
	awk '$1 >= 10 { n++; if ($2 > mp) mp = $2; sp += $2; sq += $3; sb += $2 + $3 }
	     END { printf "max_pinned=%d mean_pinned=%.2f mean_preemptible=%.2f mean_busy=%.2f samples=%d\n",
		   mp, sp / n, sq / n, sb / n, n }' "$work/$1.samples"
}
field() { figures "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

for mode in ${PIN_MODES:-share}; do
	check "PinnedAdmission=$mode: workload ran ${SAMPLE_S} s" run_mode "$mode"
	echo "mode $mode: $(figures "$mode")" | diag
done
mode=share
check "share: pinned jobs never held more than their share (2 GPUs)" \
	test "$(awk '$2 > 2' "$work/share.samples" | wc -l)" = 0
check "share: pinned jobs did hold their share (2 GPUs at some point)" \
	test "$(awk '$2 == 2' "$work/share.samples" | wc -l)" -gt 0
check "share: a waiting pinned job said why (squeue reason)" \
	test "$(awk '$4 > 0' "$work/share.samples" | wc -l)" -gt 0 ||
	grep '^pin-.*PENDING' "$work/share.raw" | sort | uniq -c | head -5 | diag
# the preemptible jobs' share is 2 GPUs; checkpoint, requeue and restart
# at each switch cost seconds, hence 1.5 on the mean
check "share: preemptible jobs held 1.5 GPUs or more on the mean (share 2)" \
	awk -v m="$(field share mean_preemptible)" 'BEGIN { exit !(m >= 1.5) }'
check "share: the GPUs stayed busy (mean 3.5 of 4 or more)" \
	awk -v m="$(field share mean_busy)" 'BEGIN { exit !(m >= 3.5) }'
# shellcheck disable=SC2046
pinned_restarts=$(sacct -n -X -D -P -o JobID -j "$(tr ' ' ',' <"$work/share.pinned")" | sort | uniq -d | wc -l)
check "share: no pinned job was requeued (one incarnation each in sacct)" test "$pinned_restarts" = 0
# pinned_times: "start end" (epoch s, 0 if not yet) of each pinned job of
# the share run, ordered by start.
pinned_times() {
	SLURM_TIME_FORMAT=%s sacct -n -X -P -o Start,End -j "$(tr ' ' ',' <"$work/share.pinned")" |
		awk -F'|' '{ s = ($1 ~ /^[0-9]+$/) ? $1 : 0; e = ($2 ~ /^[0-9]+$/) ? $2 : 0
			     print s, e }' | sort -n
}
pinned_started() { [ "$(pinned_times | awk '$1 > 0' | wc -l)" -ge 4 ]; }
# The sampling window ends on a clock; under load the second pair may
# start after it, so wait for the starts and judge them by the gap.
for _ in $(seq 90); do pinned_started && break; sleep 1; done
pinned_times | sed 's/^/pinned start end: /' | diag
# A waiting pinned job may need a preemptible job checkpointed off the GPU
# the refill gave it: at most a round, the grace and a round's slack.
gap=$(pinned_times | awk '$1 > 0 { s[++n] = $1; if ($2 > 0 && (!fe || $2 < fe)) fe = $2 }
	END { if (n < 4 || !fe) print 999; else { g = s[3] - fe; print (g < 0 ? 0 : g) } }')
echo "gap from the first pinned end to the third pinned start: ${gap} s" | diag
check "share: waiting pinned jobs started when the first ones ended (4 ran, gap ${gap} s <= 38)" \
	test "$gap" -le 38
check "share: slurmctld logged no hetsched error" \
	sh -c "! grep -q 'error: sched/hetsched' '$work/share.ctld.log'"
scancel -u root 2>/dev/null

# Opting out once running (issue 28): Slurm lets the owner of a running
# job set Requeue=0 on it. hs-alice submits requeueable jobs that
# checkpoint, and each turns requeue off from its batch script as soon as
# it runs. They hold all 4 GPUs when hs-bob's jobs arrive. Judged by what
# they are then, hers could not be preempted and would keep the GPUs
# until they end (these never do); hetsched admitted them requeueable, so
# the rounds checkpoint and requeue them as the policy decides, and her
# Requeue=0 applies from each job's next start.
# shellcheck disable=SC2046
[ -z "$(squeue -h -o %i)" ] || wait_gone 120 $(squeue -h -o %i)
check "account lab with users hs-alice and hs-bob" lab_users "$M_DIR" hs-alice hs-bob
chmod 755 "$work"
mkdir -m 1777 "$work/ck-users"
# shellcheck disable=SC2016 # $SLURM_JOB_ID is the job's
printf '#!/bin/bash\nscontrol update jobid=$SLURM_JOB_ID Requeue=0\nexec %s\n' "$work/emu.sh" >"$work/drop.sh"
chmod 755 "$work/drop.sh"
# user_jobs USER SCRIPT: 4 checkpointing emulator jobs of USER (ids).
user_jobs() {
	local i
	for i in 1 2 3 4; do
		runuser -u "$1" -- sbatch --parsable --chdir=/tmp -o /dev/null -A lab --requeue \
			-J "$1-$i" --gres=gpu:1 --hs-ckpt-dir="$work/ck-users/%j" \
			--hs-model="ResNet-18 (batch size 64)" --hs-steps=100000000 "$2"
	done
}
running_of() { squeue -h -t R -u "$1" -o %i | wc -l; }
requeue_off() { [ "$(scontrol show job "$1" | grep -c 'Requeue=0')" = 1 ]; }
wait_true() { local end=$(($(date +%s) + $1)); shift
	until "$@"; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 1; done; }
all_requeue_off() { local j; for j in $alice; do requeue_off "$j" || return 1; done; }
alice=$(user_jobs hs-alice "$work/drop.sh" | tr '\n' ' ')
check "hs-alice's 4 jobs run on the 4 GPUs" wait_true 60 sh -c "[ \$(squeue -h -t R -u hs-alice -o %i | wc -l) = 4 ]"
check "... and each turned requeue off once running (Requeue=0)" wait_true 30 all_requeue_off
user_jobs hs-bob "$work/emu.sh" >/dev/null
check "hs-bob's jobs get 2 of the GPUs (his share) within 90 s" \
	wait_true 90 sh -c "[ \$(squeue -h -t R -u hs-bob -o %i | wc -l) -ge 2 ]"
squeue -h -o '%u %i %T %r' | diag
check "the plugin requeued hers although she had set Requeue=0 (logged)" \
	grep -q "it was started requeueable: Requeue=0 set since then applies from its next start" \
	"$M_DIR/log/slurmctld.log"
check "her requeued jobs keep Requeue=0 (her choice, for their next start)" all_requeue_off
check "no hetsched error in slurmctld's log" \
	sh -c "! grep -q 'error: sched/hetsched' '$M_DIR/log/slurmctld.log'"
scancel -u hs-alice 2>/dev/null
scancel -u hs-bob 2>/dev/null
# gone before the cluster is torn down: a teardown under running steps
# left their slurmstepd behind on 26.05
# shellcheck disable=SC2046
[ -z "$(squeue -h -o %i)" ] || wait_gone 60 $(squeue -h -o %i) ||
	echo "jobs still there after 60 s: $(squeue -h -o '%i %T' | tr '\n' ' ')" | diag
rm -rf "$work"
it_done
