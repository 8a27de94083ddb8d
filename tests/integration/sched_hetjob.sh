#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_hetjob.sh — heterogeneous jobs under sched/hetsched.
# Only backfill starts het jobs in Slurm (the main loop skips their
# components), and slurmctld itself refuses to accept them unless
# SchedulerType=sched/backfill: sbatch and salloc fail at once with
# "Requested operation not supported on this system". What remains are
# het jobs submitted under backfill and still pending when a site switches
# to sched/hetsched: nothing would ever start them, so the plugin cancels
# them with a reason scontrol and sacct show (hetjobs.c). Ordinary jobs
# still run. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: heterogeneous jobs are refused with a reason, never left pending"

# under backfill first, with a held het job (GPU + CPU component)
it_cluster_up h --gpus v100:1:2 --plugin-dir "$HS_STAGE" --select hetsched_cons_tres ||
	bail "cluster did not come up"
log=$H_DIR/log/slurmctld.log
h=$(sbatch --parsable -H -o /dev/null --gres=gpu:1 -n1 --wrap 'sleep 30' : -n1 2>&1)
h=${h%%+*}
check "backfill accepted a held het job ($h)" test "$(it_ctld_state "$h")" = PENDING

# the same cluster switched to hetsched (hs-cluster restarts slurmctld),
# with short rounds so that the ordinary job at the end starts soon
printf '%s\n' RoundLength=15 MinRoundInterval=1 >"$H_DIR/etc/hetsched.conf"
SCHED_UP_ARGS=(--gpus v100:1:2 $(it_plugin_opts)
	--conf-extra 'SchedulerParameters=defer,sched_interval=-1')
sched_cluster_up_again "$H_DIR" "$H_PORT" || bail "restart under sched/hetsched failed"
end=$(($(date +%s) + 30))
while [ "$(it_ctld_state "$h")" = PENDING ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.5; done
check "the leftover het job left PENDING within 30 s ($(it_ctld_state "$h"))" \
	test "$(it_ctld_state "$h")" = CANCELLED
sc=$(scontrol -o show job "$h" 2>&1)
check "both components are cancelled" \
	test "$(echo "$sc" | grep -c 'JobState=CANCELLED')" = 2
check "scontrol shows why" \
	grep -q 'Reason=sched/hetsched_does_not_run_heterogeneous_jobs' <<<"$sc"
check "sacct records the leader CANCELLED" test "$(it_sacct "$h" State)" = CANCELLED
check "the refusal is logged" grep -q "cancelling JobId=$h+0.*heterogeneous jobs are not supported" "$log"

# new het jobs: slurmctld refuses them at submission
out=$(sbatch --parsable -o /dev/null --gres=gpu:1 -n1 --wrap 'sleep 30' : -n1 2>&1)
check "sbatch of a het job fails at once ($out)" grep -q 'not supported' <<<"$out"
t0=$(date +%s)
out=$(timeout 60 salloc -n1 : -n1 true 2>&1)
rc=$?
check "salloc of a het job fails at once (rc $rc, $(($(date +%s) - t0)) s: $out)" \
	test $rc != 0 -a $rc != 124 -a $(($(date +%s) - t0)) -le 30
check "slurmctld logs why" grep -q 'rejected as sched/backfill is not configured' "$log"

# ordinary jobs are unaffected
j=$(sbatch --parsable -o /dev/null --gres=gpu:1 --wrap 'true')
check "an ordinary GPU job still runs to completion" all_completed "$j"
it_done
