# SPDX-License-Identifier: GPL-2.0-or-later
# sched_lib.sh — helpers shared by the sched/hetsched integration tests
# (sourced after lib.sh): a cluster where sched/hetsched starts every job
# (Slurm's FIFO off), with the SPANK plugin publishing measurements fast,
# requeue allowed, short credential expiry; readers of the plugin's status
# document and log.
# shellcheck shell=bash

HS_EMU=$HS_BUILDDIR/hetsched-emulator
HS_GAVEL=${HS_GAVEL_DATA:-$HS_SRCDIR/data/gavel}
HS_TABLE=$HS_GAVEL/simulation_throughputs.json
HS_CLI=$HS_BUILDDIR/hetsched

# sched_cluster NAME GPUS [extra hs-cluster options]; remembers the
# options so sched_cluster_up_again can restart crashed daemons.
sched_cluster() {
	local name=$1 gpus=$2
	shift 2
	# shellcheck disable=SC2207
	SCHED_UP_ARGS=(--gpus "$gpus" $(it_plugin_opts)
		--plugstack "required $HS_STAGE/spank_hetsched.so publish_interval=2 window=1 ckpt_hold=60"
		--conf-extra 'SchedulerParameters=defer,sched_interval=-1'
		--conf-extra "JobRequeue=1" --conf-extra "AuthInfo=cred_expire=5" "$@")
	it_cluster_up "$name" "${SCHED_UP_ARGS[@]}"
}

# sched_cluster_up_again DIR PORT: `hs-cluster up` with the same options,
# which starts whatever daemon died (state and jobs are kept).
sched_cluster_up_again() {
	"$HS_CLUSTER" up -q --dir "$1" --port-base "$2" "${SCHED_UP_ARGS[@]}" >/dev/null
}

# pid_of DIR NAME: the pid in DIR/run/NAME.pid.
pid_of() { tr -dc 0-9 <"$1/run/$2.pid"; }

# status_field DIR PYEXPR: evaluates PYEXPR on the status document (as `s`).
status_field() {
	python3 - "$1/spool/slurmctld/hetsched_status.json" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))
PY
}

# rounds DIR: number of rounds logged so far.
rounds() { grep -c 'sched/hetsched: round [0-9]*:' "$1/log/slurmctld.log"; }

# lab_users DIR USER...: Unix users USER... (made if missing) with
# associations under account lab (equal Shares) in the slurmdbd of the
# cluster in DIR.
lab_users() {
	local dir=$1 cname u
	shift
	cname=$(sed -n 's/^ClusterName=//p' "$dir/etc/slurm.conf")
	for u in "$@"; do
		it_user "$u" || return 1
	done
	sacctmgr -i add account lab cluster="$cname" >/dev/null &&
		sacctmgr -i add user "$(IFS=,; echo "$*")" account=lab cluster="$cname" >/dev/null
}
# job_state JOBID: Slurm's state of the job (empty once it is gone).
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
# running_within_rounds DIR N JOBID: the job runs before N more rounds
# were logged in cluster DIR (and within 60 s); says why not otherwise.
running_within_rounds() {
	local want end
	want=$(($(rounds "$1") + $2))
	end=$(($(date +%s) + 60))
	while [ "$(rounds "$1")" -le "$want" ] && [ "$(date +%s)" -lt "$end" ]; do
		[ "$(job_state "$3")" = RUNNING ] && return 0
		sleep 0.5
	done
	echo "job $3: $(job_state "$3") $(squeue -h -j "$3" -o %r) after $2 rounds" | diag
	return 1
}

# wait_rounds DIR N SECS: wait until N more rounds were logged.
wait_rounds() {
	local dir=$1 want end
	want=$(($(rounds "$dir") + $2))
	end=$(($(date +%s) + $3))
	while [ "$(rounds "$dir")" -lt "$want" ]; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}

# running_count: jobs RUNNING now (squeue).
running_count() { squeue -h -t R -o %i | wc -l; }

# final_states JOBID...: "id state" per job from sacct (last incarnation).
final_states() {
	local j
	for j in "$@"; do
		printf '%s %s\n' "$j" "$(sacct -n -X -P -o State -j "$j" | tail -n 1)"
	done
}

# all_completed JOBID...: every job's last incarnation COMPLETED (after
# waiting for final states: accounting lags behind squeue).
all_completed() {
	it_wait_jobs 60 "$@"
	[ "$(final_states "$@" | awk '$2 != "COMPLETED"' | wc -l)" = 0 ]
}

# wait_log FILE SECS PATTERN: wait until FILE has a line matching PATTERN.
wait_log() {
	local end=$(($(date +%s) + $2))
	while ! grep -q -- "$3" "$1" 2>/dev/null; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}

# wait_node_state NODE PATTERN SECS: wait until slurmctld's state of NODE
# (scontrol's State=, e.g. DOWN+NOT_RESPONDING) matches PATTERN; on
# timeout show what it was. (sinfo's short state can say "mix*" for a
# DOWN node that still counts allocated CPUs.)
wait_node_state() {
	local end=$(($(date +%s) + $3)) st=
	while :; do
		st=$(scontrol show node "$1" 2>&1 | sed -n 's/^ *State=\([^ ]*\).*/\1/p')
		echo "$st" | grep -q -- "$2" && return 0
		[ "$(date +%s)" -ge "$end" ] && break
		sleep 1
	done
	echo "node $1 state: $st" | diag
	return 1
}

# wait_gone SECS JOBID...: wait until slurmctld no longer lists any of the
# jobs (squeue: not pending, running, suspended or completing). Unlike
# sacct, squeue sees a requeued job as pending again at once.
wait_gone() {
	local end=$(($(date +%s) + $1)) ids
	shift
	ids=$(echo "$@" | tr ' ' ',')
	while [ -n "$(squeue -h -j "$ids" -o %i 2>/dev/null)" ]; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 2
	done
}
