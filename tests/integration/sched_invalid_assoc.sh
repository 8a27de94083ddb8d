#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_invalid_assoc.sh — issue #29: a pending job whose QOS or
# association stopped being valid never starts, and shows the reason
# sched/backfill gives it. Accounting enforces associations, limits and
# QOS (AccountingStorageEnforce=associations,limits,qos). A long job holds
# v100-1 throughout; in each case another holds k80-1 while the jobs P
# (priority 1000) pend and each loses its QOS or association, and the
# runnable job R (priority 10) is submitted after them; then k80-1 frees. R must
# start within two rounds; each P must stay pending over three more
# rounds, never started, with Slurm's reason.
#
#   (a) the QOS is removed from P's association (sacctmgr modify user
#       root set qos-=qa). Nothing in Slurm marks P then: the test is in
#       the schedulers (backfill's _attempt_backfill and schedule() check
#       the QOS against the association's valid_qos, then job_fail_qos()).
#   (b) one P's association is removed (sacctmgr remove user root
#       account=acct2), another P's QOS deleted (sacctmgr remove qos qc).
#       slurmctld marks both itself, under any scheduler, as the update
#       arrives: job_hold_by_assoc_id() (FAIL_ACCOUNT) and
#       job_hold_by_qos_id() (FAIL_QOS). slurmdbd removes an association
#       only while it has no unfinished job; a pending job reaches it
#       within 5 s of submission (slurmctld's dbinx thread), so the
#       removal follows the submission at once, and when slurmdbd was
#       faster ("Job(s) active, cancel job(s) before remove") that P's
#       points are skipped.
#
# The expected reasons are Slurm's own, from this same file run under
# sched/backfill on the same machine (HS_IT_SCHED=backfill: the same
# slurm.conf with SchedulerType=sched/backfill and bf_interval=5; a
# "round" is then 5 s), Slurm 22.05.8:
#   sched/backfill:          (a) P InvalidQOS (set by _attempt_backfill:
#                            "ineligible due to invalid qos"); (b)
#                            InvalidAccount and InvalidQOS; R ran each time.
#   sched/hetsched, main at 7f96b5f (before the fix): (a) P started in the
#                            first round after k80-1 freed, reason None, and
#                            R did not (4 points failed); (b) as backfill
#                            (snapshot.c's blocked_reason honours Slurm's
#                            own marks).
#   sched/hetsched, fixed:   as sched/backfill, the same reasons ((a)'s set
#                            by runnable.c's assoc_qos_valid through
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
	# a "round" is a backfill interval: sched_lib.sh's round helpers
	# count those instead of hetsched's round log lines
	rounds() { echo $(($(date +%s) / 5)); }
else
	sched_cluster i v100:1:1,k80:1:1 --conf-extra "$enforce" || bail "cluster did not come up"
	check "round length 10 s" it_hetsched_conf "$I_DIR" RoundLength=10 MinRoundInterval=1
fi
log=$I_DIR/log/slurmctld.log

# runs_within N JOB: JOB runs before N more rounds; settle N: N more rounds.
runs_within() { running_within_rounds "$I_DIR" "$1" "$2"; }
settle() { wait_rounds "$I_DIR" "$1" 120; }
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

# One case: case_begin makes k80-1 busy; p_job submits each P (priority
# 1000) and at once makes its QOS or association invalid; case_end
# submits R (priority 10) and frees k80-1: R must get it within two
# rounds, and no P may start over three more rounds, each showing its
# reason. R comes last: the rounds share GPUs by the policy's measure,
# not by Slurm's priority, and between jobs alike the one Slurm lists
# first (the lower id: mechanism.c's cmp_cand, the snapshot in job_list
# order) gets the GPU, so that a P taken for valid would have got it
# before R (before the fix, R submitted first won in one run).
case_begin() {
	CASE=$1 PS=() REASONS=()
	B=$(busy k80-1)
	check "($CASE) k80-1 busy with job $B" test -n "$B"
}
# p_job DESC REASON CHANGE OPTIONS...: P with OPTIONS, then the function
# CHANGE at once. An association removal is refused once slurmdbd has the
# job, which its dbinx thread sends within 5 s of submission: then P is
# cancelled and its points skipped.
p_job() {
	local desc=$1 reason=$2 change=$3 p r out
	shift 3
	p=$(sub 'sleep 300' "$@" --priority=1000)
	r=$(reason "$p")
	check "($CASE) P=$p ($desc) pends while valid: ${r:-none}" \
		sh -c "[ '$(job_state "$p")' = PENDING ] && [ '$r' != InvalidQOS ] && [ '$r' != InvalidAccount ]"
	out=$("$change")
	if grep -q 'Job(s) active' <<<"$out"; then
		skip "($CASE) $change for P=$p" "slurmdbd already had the job: $(head -n 1 <<<"$out")"
		scancel "$p"
		return
	fi
	check "($CASE) $change: done, and slurmctld has the update${out:+: $out}" test -z "$out"
	PS+=("$p") REASONS+=("$reason")
}
case_end() {
	local i p
	R=$(sub 'sleep 300' --priority=10)
	check "($CASE) R=$R pends" test "$(job_state "$R")" = PENDING
	scancel "$B"
	check "($CASE) R starts within two rounds of the GPU freeing" runs_within 2 "$R"
	check "($CASE) ... on k80-1" test "$(node_of "$R")" = k80-1
	settle 3
	for i in "${!PS[@]}"; do
		p=${PS[$i]}
		check "($CASE) P=$p never started over three more rounds ($(job_state "$p"))" \
			never_started "$p"
		check "($CASE) P=$p's reason is Slurm's: $(reason "$p")" \
			test "$(reason "$p")" = "${REASONS[$i]}"
	done
	scancel "${PS[@]}" "$R"
	wait_gone 60 "${PS[@]}" "$R"
}

# (a) the QOS leaves P's association
qos_leaves_assoc() { acct modify user root set qos-=qa; }
case_begin a
p_job "QOS qa" InvalidQOS qos_leaves_assoc --qos=qa
case_end

# (b) P's association goes; another P's QOS is deleted
assoc_goes() { acct remove user root account=acct2; }
qos_goes() { acct remove qos qc; }
case_begin b
p_job "account acct2" InvalidAccount assoc_goes -A acct2
p_job "QOS qc" InvalidQOS qos_goes --qos=qc
case_end

scancel "$a"
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$log'"
it_done
