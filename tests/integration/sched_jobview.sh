#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_jobview.sh — what users see of sched/hetsched's plan:
# `squeue --start` shows an expected start for a pending GPU job; `hetsched
# job ID` shows the job's share and why it waits; under PrivateData=jobs
# another user (hs-other) cannot see someone else's job in the per-job view
# but sees their own, from the per-user status document; and the
# MetricsFile slurmctld writes after each round parses with the strict
# OpenMetrics parser of python3-prometheus-client and counts this cluster;
# a job array's pending tasks get expected starts, before and after a
# slurmctld restart. One GPU, FIFO policy: one job runs, the others queue.
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: expected start times and the per-job view"

sched_cluster j v100:1:1 --conf-extra PrivateData=jobs || bail "cluster did not come up"
metrics=$J_DIR/hetsched.prom
check "hetsched.conf: FIFO, 10 s rounds, a metrics file" it_hetsched_conf "$J_DIR" RoundLength=10 \
	MinRoundInterval=2 Policy=fifo "MetricsFile=$metrics"
spool=$J_DIR/spool/slurmctld
status=$spool/hetsched_status.json
# mktemp made the cluster directory 0700; a real StateSaveLocation lets
# users through to the status documents
chmod o+x "$J_DIR" "$J_DIR/spool" "$spool"
work=$(mktemp -d /tmp/hs-it-jobview.XXXXXX)
chmod 1777 "$work"

it_user hs-other || bail "cannot create user hs-other"
a=$(sbatch --parsable -o /dev/null --gres=gpu:1 -t 5 --wrap "sleep 300")
b=$(sbatch --parsable -o /dev/null --gres=gpu:1 -t 3 --wrap "sleep 300")
n=$(sbatch --parsable -D "$work" -o /dev/null --uid=hs-other --gid="$(id -g hs-other)" --gres=gpu:1 -t 3 \
	--wrap "sleep 300")
echo "jobs: root running $a, root pending $b, hs-other pending $n" | diag

# wait until a round planned all three (B pending with an expected start)
start_of() { squeue -h -j "$1" -o %S 2>/dev/null; }
end=$(($(date +%s) + 60))
while :; do
	s=$(start_of "$b")
	case $s in "" | N/A) ;; *) break ;; esac
	[ "$(date +%s)" -ge "$end" ] && break
	sleep 1
done
squeue --start | diag
check "squeue --start: pending job $b has an expected start" \
	sh -c "squeue --start -h -j $b -o %S | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T'"
check "the expected start is after now" \
	test "$(date -d "$(start_of "$b")" +%s)" -ge "$(($(date +%s) - 5))"
check "scontrol show job shows it too" \
	sh -c "scontrol show job $b | grep -Eq 'StartTime=[0-9]{4}-'"

# the metrics file of a live slurmctld, parsed strictly: one v100 GPU,
# the three GPU jobs (by state: the round may have seen the first one
# still pending), at least one round, and "# EOF" (the parser refuses a
# file without it)
check "MetricsFile written after a round" test -s "$metrics"
check "MetricsFile: strict OpenMetrics parse, 1 v100 GPU, 3 GPU jobs, rounds counted" \
	/usr/bin/python3 - "$metrics" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
def value(fam, sample, **labels):
    for s in fams[fam].samples:
        if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    return None
jobs = sum(s.value for s in fams["hetsched_jobs"].samples)
got = (value("hetsched_gpus", "hetsched_gpus", type="v100"), jobs,
       value("hetsched_rounds", "hetsched_rounds_total"))
print("metrics: v100 GPUs, GPU jobs, rounds =", got, file=sys.stderr)
sys.exit(0 if got[0] == 1 and got[1] == 3 and (got[2] or 0) >= 1 else 1)
PY

# per-job view, as root (may read the full document)
"$HS_CLI" job --file "$status" "$b" >"$work/b.txt" 2>&1
rc=$?
diag <"$work/b.txt"
check "hetsched job $b: exit 0" test $rc -eq 0
check "hetsched job $b: why it waits" grep -q '^  why: it waits for GPUs' "$work/b.txt"
check "hetsched job $b: the scheduler's reason" grep -q '^  scheduler says: hetsched' "$work/b.txt"
check "hetsched job $b: share line" grep -q '^  share in the current allocation: ' "$work/b.txt"
check "hetsched job $b: expected start" grep -q '^  expected start: ' "$work/b.txt"
# a running job outside the policy (FIFO does not preempt it: pinned) is
# in the document too, with why it keeps its GPUs
# (the first round saw it pending: wait for a round that saw it run)
end=$(($(date +%s) + 60))
while :; do
	"$HS_CLI" job --file "$status" "$a" >"$work/a.txt" 2>&1
	rc=$?
	grep -q "^job $a: running" "$work/a.txt" && break
	[ "$(date +%s)" -ge "$end" ] && break
	sleep 1
done
diag <"$work/a.txt"
check "hetsched job $a (running, pinned): exit 0, shown running on v100" \
	sh -c "[ $rc -eq 0 ] && grep -q '^job $a: running' '$work/a.txt' && grep -q '^  runs on: v100' '$work/a.txt'"
check "hetsched job $a: says it keeps its GPUs until it ends" grep -q 'keeps its GPUs until it ends' "$work/a.txt"

# PrivateData=jobs: hs-other reads only their own per-user document
as_other() { setpriv --reuid=hs-other --regid="$(id -g hs-other)" --clear-groups "$@"; }
check "per-user document of hs-other: mode 0600, owned by hs-other" \
	test "$(stat -c '%a %U' "$spool/hetsched_status.users/$(id -u hs-other).json")" = "600 hs-other"
as_other "$HS_CLI" job --file "$status" "$n" >"$work/n.txt" 2>&1
rc=$?
diag <"$work/n.txt"
check "hs-other: hetsched job $n (own job) shows it" \
	sh -c "test $rc -eq 0 && grep -q '^job $n: pending' '$work/n.txt'"
as_other "$HS_CLI" job --file "$status" "$b" >"$work/nb.txt" 2>&1
rc=$?
diag <"$work/nb.txt"
check "hs-other: hetsched job $b (root's job) is refused" \
	sh -c "test $rc -eq 1 && grep -q 'no job $b among' '$work/nb.txt' && ! grep -q '^job $b' '$work/nb.txt'"

# A job array behind the running job: every pending task has an expected
# start (Slurm keeps the pending tasks in one record until they are split
# off), and the estimates come back after slurmctld restarts (SIGTERM, as
# systemd stops it; the plugin restores its state).
arr=$(sbatch --parsable -o /dev/null --gres=gpu:1 -t 3 --array=1-3 --wrap "sleep 300")
# wait_starts JOB N: until squeue shows N dated expected starts for JOB.
wait_starts() {
	local end=$(($(date +%s) + 60))
	while [ "$(squeue -h -r -t PD -j "$1" -o %S 2>/dev/null | grep -cE '^[0-9]{4}-')" -lt "$2" ]; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 1
	done
}
# Every GPU is held by the running pinned job here, so the round has no
# usable GPU: the estimator must still count the GPUs it will free (before
# that was fixed, squeue showed N/A for the array's tasks, and after the
# restart for job $b too).
check "array $arr: each of its 3 pending tasks has an expected start" wait_starts "$arr" 3
squeue --start -r -j "$arr" | diag
ctld=$(pid_of "$J_DIR" slurmctld)
kill "$ctld"
check "restart: slurmctld stopped" sh -c "for i in \$(seq 60); do kill -0 $ctld 2>/dev/null || exit 0; sleep 1; done; exit 1"
check "restart: hs-cluster up starts it again" sched_cluster_up_again "$J_DIR" "$J_PORT"
check "after the restart: the array's 3 tasks and job $b have expected starts again" \
	sh -c "$(declare -f wait_starts); wait_starts $arr 3 && wait_starts $b 1"
squeue --start -r | diag
check "after the restart: job $a still runs, nothing started on its GPU" \
	test "$(squeue -h -t R -o %i | paste -sd,)" = "$a"

scancel "$a" "$b" "$n" "$arr"
it_wait_jobs 30 "$a" "$b" "$n" "$arr" >/dev/null 2>&1
rm -rf "$work"
it_done
