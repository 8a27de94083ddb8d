#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_invalid_assoc.sh — issue #29: a pending job whose QOS or
# association stopped being valid never starts, and shows the reason
# sched/backfill gives it. Accounting enforces associations, limits and
# QOS (AccountingStorageEnforce=associations,limits,qos). A long job holds
# v100-1 throughout; in each case another holds k80-1 while the pending
# jobs P (priority 1000) lose their QOS or association and the runnable
# job R (priority 10, submitted with them) waits; then k80-1 frees. R
# must start within two rounds; each P must stay pending over three more
# rounds, never started, with Slurm's reason.
#
#   (a) the QOS is removed from P0's association (sacctmgr modify user
#       root set qos-=qa). Nothing in Slurm marks P0 then: the test is in
#       the schedulers (backfill's _attempt_backfill and schedule() check
#       the QOS against the association's valid_qos, then job_fail_qos()).
#   (b) P0's association is removed (sacctmgr remove user root
#       account=acct2) and P1's QOS deleted (sacctmgr remove qos qc).
#       slurmctld marks both itself, under any scheduler, as the update
#       arrives: job_hold_by_assoc_id() (FAIL_ACCOUNT) and
#       job_hold_by_qos_id() (FAIL_QOS). slurmdbd allows the removal
#       because a pending job reaches the database only when it starts or
#       is held (jobacct_storage_job_start_direct()); for a held job, or
#       one that ran before, it refuses: "Job(s) active, cancel job(s)
#       before remove".
#
# The expected reasons are Slurm's own, from this same file run under
# sched/backfill on the same machine (HS_IT_SCHED=backfill: the same
# slurm.conf with SchedulerType=sched/backfill and bf_interval=5; a
# "round" is then 5 s), Slurm 22.05.8:
#   sched/backfill:          (a) P0 InvalidQOS (set by _attempt_backfill:
#                            "ineligible due to invalid qos"); (b) P0
#                            InvalidAccount, P1 InvalidQOS; R ran each time.
#   sched/hetsched, main at 7f96b5f (before the fix): (a) P0 started in
#                            the first round after k80-1 freed, reason
#                            None, and R did not (4 points failed); (b) as
#                            backfill (Slurm's own marks are blocked_reason
#                            in snapshot.c).
#   sched/hetsched, fixed:   as sched/backfill, the same reasons (P0's set
#                            by runnable.c's assoc_qos_valid via
#                            job_fail_qos()).
# Once marked, a job stays so in both schedulers even if the QOS or
# association comes back (job_independent() refuses FAIL_QOS and
# FAIL_ACCOUNT until the job is updated). TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
sched=${HS_IT_SCHED:-hetsched}
it_begin "sched/$sched: a pending job whose QOS or association became invalid never starts, with Slurm's reason"

enforce='AccountingStorageEnforce=associations,limits,qos'
if [ "$sched" = backfill ]; then
	# Slurm's own scheduler, as the reference; FIFO off as for hetsched
	it_cluster_up i --gpus v100:1:1,k80:1:1 --plugin-dir "$HS_STAGE" \
		--sched backfill --select hetsched_cons_tres --conf-extra "$enforce" \
		--conf-extra 'SchedulerParameters=defer,sched_interval=-1,bf_interval=5' ||
		bail "cluster did not come up"
	# ticks: one per backfill interval
	ticks() { echo $(($(date +%s) / 5)); }
else
	sched_cluster i v100:1:1,k80:1:1 --conf-extra "$enforce" || bail "cluster did not come up"
	check "round length 10 s" it_hetsched_conf "$I_DIR" RoundLength=10 MinRoundInterval=1
	ticks() { rounds "$I_DIR"; }
fi
log=$I_DIR/log/slurmctld.log

# runs_within N JOB: JOB runs before N more ticks (rounds) passed.
runs_within() {
	local want=$(($(ticks) + $1)) end=$(($(date +%s) + 90))
	while [ "$(ticks)" -le "$want" ] && [ "$(date +%s)" -lt "$end" ]; do
		[ "$(job_state "$2")" = RUNNING ] && return 0
		sleep 0.5
	done
	echo "job $2: $(job_state "$2") $(reason "$2") after $1 rounds" | diag
	return 1
}
# settle N: wait N more ticks (rounds).
settle() {
	local want=$(($(ticks) + $1)) end=$(($(date +%s) + 120))
	while [ "$(ticks)" -lt "$want" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.5; done
}
reason() { squeue -h -j "$1" -o %r 2>/dev/null; }
node_of() { squeue -h -j "$1" -o %N 2>/dev/null; }
# sub SCRIPT OPTIONS...: a 1-GPU batch job, not preemptible by hetsched
# (no checkpoint hint).
sub() {
	local script=$1
	shift
	sbatch --parsable -o /dev/null --gres=gpu:1 "$@" --wrap "$script"
}
# busy NODE: a long job on NODE; echoes its id once it runs.
busy() {
	local j
	j=$(sub 'sleep 600' -w "$1") || return 1
	runs_within 3 "$j" >/dev/null 2>&1 || return 1
	echo "$j"
}
# acct_updates: accounting updates slurmctld has taken from slurmdbd.
acct_updates() {
	sdiag | awk '/ACCOUNTING_UPDATE_MSG/ { sub(/.*count:/, ""); n = $1 } END { print n + 0 }'
}
# acct ARGS...: sacctmgr -i ARGS, then wait until slurmctld applied the
# update slurmdbd pushed (its RPC count rises), so that a GPU freed
# afterwards is planned with the new associations. Prints sacctmgr's
# output on failure.
acct() {
	local n out end
	n=$(acct_updates)
	out=$(sacctmgr -i "$@" 2>&1) || { echo "$out"; return 1; }
	end=$(($(date +%s) + 30))
	while [ "$(acct_updates)" -le "$n" ]; do
		[ "$(date +%s)" -ge "$end" ] && { echo "no accounting update reached slurmctld"; return 1; }
		sleep 0.2
	done
}
# never_started JOB: not running now, and never started (sacct, log).
never_started() {
	[ "$(job_state "$1")" = PENDING ] &&
		[ "$(sacct -n -X -P -o Start -j "$1" | head -n 1)" = Unknown ] &&
		! grep -E "JobId=$1[^0-9]" "$log" | grep -Eq 'started|Allocate'
}

check "QOS qa and qc on root's associations, account acct2 with root" sh -c "
	sacctmgr -i add qos qa,qc >/dev/null &&
	sacctmgr -i modify user root set qos+=qa,qc >/dev/null &&
	sacctmgr -i add account acct2 >/dev/null &&
	sacctmgr -i add user root account=acct2 >/dev/null"
ok1=$(sub 'sleep 1' --qos=qa)
ok2=$(sub 'sleep 1' -A acct2)
check "jobs with QOS qa ($ok1) and account acct2 ($ok2) run while both are valid" \
	all_completed "$ok1" "$ok2"
a=$(busy v100-1)
check "v100-1 busy with job $a for the whole test" test -n "$a"

# case_run NAME CHANGE REASON...: one case. k80-1 is made busy; the jobs
# P0, P1 ... (options in P_OPTS_0, P_OPTS_1 ..., one per REASON; priority
# 1000) and R (priority 10) are submitted and pend; the function CHANGE
# (sacctmgr through acct) makes each Pi's QOS or association invalid;
# k80-1 frees. R must get it within two rounds; no Pi may start over
# three more rounds, and each Pi must show its REASON.
case_run() {
	local name=$1 change=$2 b i r out ps=()
	shift 2
	local reasons=("$@")
	b=$(busy k80-1)
	check "($name) k80-1 busy with job $b" test -n "$b" || return
	for i in "${!reasons[@]}"; do
		local -n opts="P_OPTS_$i"
		ps+=("$(sub 'sleep 300' "${opts[@]}" --priority=1000)")
	done
	R=$(sub 'sleep 300' --priority=10)
	settle 1
	for i in "${!ps[@]}"; do
		r=$(reason "${ps[$i]}")
		check "($name) P$i=${ps[$i]} (${P_OPTS_DESC[$i]}) pends before the change: $r" \
			sh -c "[ '$(job_state "${ps[$i]}")' = PENDING ] && [ '$r' != InvalidQOS ] && [ '$r' != InvalidAccount ]"
	done
	check "($name) R=$R pends" test "$(job_state "$R")" = PENDING
	out=$("$change")
	check "($name) $change: done, and slurmctld has the update${out:+: $out}" test -z "$out"
	scancel "$b"
	check "($name) R starts within two rounds of the GPU freeing" runs_within 2 "$R"
	check "($name) ... on k80-1" test "$(node_of "$R")" = k80-1
	settle 3
	for i in "${!ps[@]}"; do
		check "($name) P$i never started over three more rounds ($(job_state "${ps[$i]}"))" \
			never_started "${ps[$i]}"
		check "($name) P$i's reason is Slurm's: $(reason "${ps[$i]}")" \
			test "$(reason "${ps[$i]}")" = "${reasons[$i]}"
	done
	scancel "${ps[@]}" "$R"
	wait_gone 60 "${ps[@]}" "$R"
}

# (a) the QOS leaves P0's association
qos_leaves_assoc() { acct modify user root set qos-=qa; }
# shellcheck disable=SC2034 # read by case_run through a nameref
P_OPTS_0=(--qos=qa)
P_OPTS_DESC=("QOS qa")
case_run a qos_leaves_assoc InvalidQOS

# (b) P0's association goes, and P1's QOS is deleted
assoc_and_qos_go() { acct remove user root account=acct2 && acct remove qos qc; }
# shellcheck disable=SC2034
P_OPTS_0=(-A acct2)
# shellcheck disable=SC2034
P_OPTS_1=(--qos=qc)
P_OPTS_DESC=("account acct2" "QOS qc")
case_run b assoc_and_qos_go InvalidAccount InvalidQOS

scancel "$a"
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$log'"
it_done
