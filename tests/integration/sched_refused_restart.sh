#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_refused_restart.sh — a GPU job Slurm refuses for memory (held by
# jobs without GPUs on both nodes), next to a job a QOS limit holds back
# and a job array that may run: the array's tasks take both GPUs, across
# a slurmctld restart; once one node's memory frees, the refused job
# starts there even when the round planned it on the other type (before:
# refused on its planned k80 node every round while the v100 GPU idled).
# The QOS-held job never runs. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: a memory-refused job next to a QOS-held job and an array, across a restart"
sched_cluster z v100:1:1,k80:1:1 \
	--conf-extra 'AccountingStorageEnforce=associations,limits,qos' \
	--conf-extra 'SelectTypeParameters=CR_Core_Memory' --conf-extra 'DefMemPerCPU=100' || bail "no cluster"
log=$Z_DIR/log/slurmctld.log
check "conf" it_hetsched_conf "$Z_DIR" RoundLength=10 MinRoundInterval=1
check "qos" sh -c "sacctmgr -i add qos lim0 set MaxTRESPerUser=gres/gpu=0 >/dev/null && sacctmgr -i modify user root set qos+=lim0 >/dev/null"
m1=$(sbatch --parsable -o /dev/null -w v100-1 --mem=7000 --wrap 'sleep 600')
m2=$(sbatch --parsable -o /dev/null -w k80-1 --mem=7000 --wrap 'sleep 600')
check "hogs run" sh -c "for i in \$(seq 60); do [ \$(squeue -h -t R -j $m1,$m2 | wc -l) = 2 ] && exit 0; sleep 1; done; exit 1"
g=$(sbatch --parsable -o /dev/null --gres=gpu:1 --mem=4000 --priority=1000 --wrap 'sleep 5')
q=$(sbatch --parsable -o /dev/null --gres=gpu:1 --qos=lim0 --priority=900 --wrap 'sleep 5')
arr=$(sbatch --parsable -o /dev/null --gres=gpu:1 --mem=500 --priority=10 --array=0-5 --wrap 'sleep 15')
check "array fills both GPUs within two rounds" sh -c "for i in \$(seq 40); do [ \$(squeue -h -t R -r -j $arr | wc -l) = 2 ] && exit 0; sleep 1; done; exit 1"
check "g and q pending: $(squeue -h -j "$g,$q" -o '%i %T %r' | tr '\n' ';')" test "$(squeue -h -t PD -j "$g,$q" | wc -l)" = 2
ctld=$(pid_of "$Z_DIR" slurmctld)
kill -TERM "$ctld"
check "stopped" sh -c "for i in \$(seq 60); do kill -0 $ctld 2>/dev/null || exit 0; sleep 1; done; exit 1"
check "up again" sched_cluster_up_again "$Z_DIR" "$Z_PORT"
check "state restored" wait_log "$log" 60 'sched/hetsched: state restored from'
check "all 6 array tasks complete while g and q wait" sh -c "for i in \$(seq 300); do [ \$(sacct -n -X -P -o State -j $arr | grep -c COMPLETED) = 6 ] && exit 0; sleep 2; done; sacct -n -X -P -o JobID,State -j $arr | sed 's/^/# /'; exit 1"
check "g, q still pending: $(squeue -h -j "$g,$q" -o '%i %T %r' | tr '\n' ';')" test "$(squeue -h -t PD -j "$g,$q" | wc -l)" = 2
scancel "$m1"
check "g starts once memory frees" running_within_rounds "$Z_DIR" 3 "$g"
check "q never ran" test -z "$(sacct -n -X -P -o Start -j "$q" | grep -v Unknown)"
grep -E "refused|restored" "$log" | tail -6 | diag
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$log'"
it_done
