#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_fair_users.sh — issue #29, live: two Unix users with their
# associations in slurmdbd (account lab, equal Shares) on a cluster of 2
# GPUs (v100, k80). hs-alice submits a 40-task array, hs-bob 4 jobs, all
# requeueable sleep jobs (RequeueWithoutCheckpoint=yes, so hetsched may
# time-slice them). Under the plugin's defaults (no Policy line: water
# filling over the association tree) each user's GPU time while both have
# pending work is within 20% of equal, measured from Slurm's side: squeue
# sampled every second, a running job counting its GPU. The same
# workload under per-job fairness (Policy=max_min_fairness_perf) gives
# hs-alice most of the GPU time: the control that shows the check can
# fail. The status document lists the account and both users with their
# entitled share (0.5 each). TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: two users share the GPUs by their Shares, not by their number of jobs"

sched_cluster u v100:1:1,k80:1:1 || bail "cluster did not come up"
check "account lab with users hs-alice and hs-bob in slurmdbd" lab_users "$U_DIR" hs-alice hs-bob
# as USER ARGS...: sbatch as that user, in a directory it may use.
as() {
	local user=$1
	shift
	runuser -u "$user" -- sbatch --parsable --chdir=/tmp -o /dev/null -A lab --requeue \
		--gres=gpu:1 "$@" --wrap 'sleep 900'
}
# gpu_seconds SECONDS: samples squeue once a second; prints
# "<alice> <bob> <samples with both pending>" in GPU-seconds counted
# only while both users had pending work.
gpu_seconds() {
	local end=$(($(date +%s) + $1)) a=0 b=0 n=0 out
	while [ "$(date +%s)" -lt "$end" ]; do
		out=$(squeue -h -o '%u %T' 2>/dev/null)
		if grep -q '^hs-alice PENDING' <<<"$out" && grep -q '^hs-bob PENDING' <<<"$out"; then
			a=$((a + $(grep -c '^hs-alice RUNNING' <<<"$out")))
			b=$((b + $(grep -c '^hs-bob RUNNING' <<<"$out")))
			n=$((n + 1))
		fi
		sleep 1
	done
	echo "$a $b $n"
}
# run_phase CONF...: the hetsched.conf, then the workload; sets A B N.
run_phase() {
	local arr jobs
	it_hetsched_conf "$U_DIR" "$@" RoundLength=5 MinRoundInterval=1 \
		RequeueWithoutCheckpoint=yes || return 1
	arr=$(as hs-alice --array=1-40) || return 1
	jobs=$(for i in 1 2 3 4; do as hs-bob; done) || return 1
	wait_rounds "$U_DIR" 2 60
	read -r A B N < <(gpu_seconds 90)
	EA=$(ent hs-alice@lab norm_shares) EB=$(ent hs-bob@lab norm_shares)
	scancel -u hs-alice
	scancel -u hs-bob
	wait_gone 120 $arr $jobs
}
# ent NAME KEY: an entity's field in the status document.
ent() { status_field "$U_DIR" "[e.get('$2') for e in s.get('entities', []) if e['name'] == '$1'][0]" 2>/dev/null; }
# within LO HI X Y: LO <= X/Y <= HI.
within() { awk -v lo="$1" -v hi="$2" -v x="$3" -v y="$4" 'BEGIN { exit !(y > 0 && x / y >= lo && x / y <= hi) }'; }

check "defaults (water filling over the association tree): workload ran" run_phase
check "both users had pending work for at least 30 samples ($N; squeue is slower beside other clusters)" test "${N:-0}" -ge 30
check "GPU-seconds while both pending: hs-alice $A, hs-bob $B, within 20% of equal" \
	within 0.8 1.25 "${A:-0}" "${B:-1}"
check "status: hs-alice@lab entitled to 0.5 (${EA:-none})" within 0.99 1.01 "${EA:-0}" 0.5
check "status: hs-bob@lab entitled to 0.5 (${EB:-none})" within 0.99 1.01 "${EB:-0}" 0.5

check "per-job fairness (control): workload ran" run_phase Policy=max_min_fairness_perf
check "per-job fairness: hs-alice $A, hs-bob $B GPU-seconds: alice gets over twice bob's" \
	within 2 1000 "${A:-0}" "${B:-1}"
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$U_DIR/log/slurmctld.log'"
it_done
