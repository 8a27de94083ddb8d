#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_slurm_resources.sh — the rest of issue #17's list of what Slurm
# enforces, beside sched_slurm_limits.sh: memory (--mem against
# CR_Core_Memory), licenses (-L), --exclusive, a maintenance reservation
# against a job's time limit, an association limit (GrpTRES), a
# partition limit (MaxTime) and a partition's state (DOWN). One node with
# one GPU: in each scenario a job Slurm refuses now asks for it with the
# higher priority, and the runnable job behind it must get the GPU within
# two rounds; once the block is lifted (and the GPU freed) the held job
# must start. Last, --gpus=1 and --gpus-per-node=1 jobs run. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: memory, licenses, --exclusive, reservations, association and partition limits"

# DefMemPerCPU: with memory consumable, a job without --mem would take
# the whole node's memory and block every other job for its own reason
sched_cluster r v100:1:1 \
	--conf-extra 'AccountingStorageEnforce=associations,limits,qos' \
	--conf-extra 'SelectTypeParameters=CR_Core_Memory' --conf-extra 'DefMemPerCPU=100' \
	--conf-extra 'Licenses=lic:1' --conf-extra 'PartitionName=p2 Nodes=ALL State=DOWN' ||
	bail "cluster did not come up"
log=$R_DIR/log/slurmctld.log
check "round length 10 s" it_hetsched_conf "$R_DIR" RoundLength=10 MinRoundInterval=1
check "account gpu0 with GrpTRES=gres/gpu=0" sh -c "
	sacctmgr -i add account gpu0 >/dev/null &&
	sacctmgr -i add user root account=gpu0 >/dev/null &&
	sacctmgr -i modify account gpu0 set GrpTRES=gres/gpu=0 >/dev/null"

# sub SCRIPT OPTIONS...: a 1-GPU batch job, not preemptible by hetsched.
sub() {
	local script=$1
	shift
	sbatch --parsable -o /dev/null --gres=gpu:1 "$@" --wrap "$script"
}
# cpu SCRIPT OPTIONS...: a job without GPUs (started by the CPU fill).
cpu() {
	local script=$1 j
	shift
	j=$(sbatch --parsable -o /dev/null "$@" --wrap "$script") || return 1
	for _ in $(seq 60); do
		[ "$(job_state "$j")" = RUNNING ] && echo "$j" && return 0
		sleep 1
	done
	return 1
}
reason() { squeue -h -j "$1" -o %r 2>/dev/null; }

# held LABEL HELD_OPTS -- RUNNABLE_OPTS: submits the held job (priority
# 1000) and the runnable one (priority 10, runs until cancelled); the
# runnable one must start within two rounds while the held one waits.
# Sets $g and $r.
held() {
	local label=$1 hopts=() ropts=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do hopts+=("$1") && shift; done
	[ $# -gt 0 ] && shift
	ropts=("$@")
	g=$(sub 'sleep 5' --priority=1000 "${hopts[@]}")
	r=$(sub 'sleep 300' --priority=10 "${ropts[@]}")
	check "($label) the runnable job starts within two rounds" running_within_rounds "$R_DIR" 2 "$r"
	check "($label) the held job waits: $(job_state "$g") $(reason "$g")" test "$(job_state "$g")" = PENDING
}
# released LABEL: the runnable job is cancelled (freeing the GPU) after
# the caller lifted the block; the held job must start and complete.
released() {
	scancel "$r"
	check "($1) the held job starts once Slurm allows it" running_within_rounds "$R_DIR" 3 "$g"
	check "($1) ... and completes" sh -c "for i in \$(seq 60); do
		[ \"\$(sacct -n -X -P -o State -j $g)\" = COMPLETED ] && exit 0; sleep 1; done; exit 1"
}

# (a) memory: a CPU job holds 7,000 of the node's 8,192 MB.
m=$(cpu 'sleep 300' --mem=7000)
check "(a) a CPU job holds 7000 MB" test -n "$m"
held a --mem=4000 -- --mem=500
scancel "$m"
released a

# (b) licenses: a CPU job holds the only lic.
l=$(cpu 'sleep 300' -L lic:1)
check "(b) a CPU job holds the license" test -n "$l"
held b -L lic:1 --
scancel "$l"
released b

# (c) --exclusive next to a CPU job on the node.
c=$(cpu 'sleep 300')
check "(c) a CPU job runs on the node" test -n "$c"
held c --exclusive --
scancel "$c"
released c

# (d) a maintenance window in 10 minutes: a 30-minute job would overlap
# it, a 5-minute job does not.
check "(d) maintenance reservation from now+10min" scontrol create reservation \
	ReservationName=maint StartTime=now+10minutes Duration=30 Nodes=ALL Users=root Flags=MAINT,IGNORE_JOBS
held d -t 30 -- -t 5
scontrol delete ReservationName=maint
released d

# (e) the account's association limit GrpTRES=gres/gpu=0.
held e -A gpu0 --
check "(e) the held job has Slurm's reason: $(reason "$g")" test "$(reason "$g")" = AssocGrpGRES
sacctmgr -i modify account gpu0 set GrpTRES=gres/gpu=-1 >/dev/null
released e

# (f) the partition's MaxTime.
scontrol update PartitionName=gpu MaxTime=10
held f -t 30 -- -t 5
# PartitionConfig: what select_nodes() answered at submission
check "(f) the held job has Slurm's reason: $(reason "$g")" sh -c "
	case '$(reason "$g")' in PartitionTimeLimit | PartitionConfig) exit 0 ;; esac; exit 1"
scontrol update PartitionName=gpu MaxTime=INFINITE
released f

# (g) a partition that is DOWN.
held g -p p2 --
scontrol update PartitionName=p2 State=UP
released g

# (h) --gpus and --gpus-per-node instead of --gres.
h1=$(sbatch --parsable -o /dev/null --gpus=1 --wrap 'sleep 3')
h2=$(sbatch --parsable -o /dev/null -N1 --gpus-per-node=1 --wrap 'sleep 3')
check "(h) --gpus=1 and --gpus-per-node=1 both complete" sh -c "for i in \$(seq 90); do
	[ \"\$(sacct -n -X -P -o State -j $h1,$h2 | sort -u)\" = COMPLETED ] && exit 0; sleep 1; done
	sacct -n -X -P -o JobID,State -j $h1,$h2 | sed 's/^/# /'; exit 1"

grep -E 'refused' "$log" | tail -10 | diag
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$log'"
it_done
