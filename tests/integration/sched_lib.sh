# sched_lib.sh — helpers shared by the sched/hetsched integration tests
# (sourced after lib.sh): a cluster where sched/hetsched starts every job
# (Slurm's FIFO off), with the SPANK plugin publishing measurements fast,
# requeue allowed, short credential expiry; readers of the plugin's status
# document and log.
# shellcheck shell=bash

HS_EMU=$HS_BUILDDIR/hetsched-emulator
HS_GAVEL=${HS_GAVEL_DATA:-$HS_SRCDIR/../shared/data/gavel}
HS_TABLE=$HS_GAVEL/simulation_throughputs.json
HS_CLI=$HS_BUILDDIR/hetsched

# sched_cluster NAME GPUS [extra hs-cluster options]
sched_cluster() {
	local name=$1 gpus=$2
	shift 2
	# shellcheck disable=SC2046
	it_cluster_up "$name" --gpus "$gpus" $(it_plugin_opts) \
		--plugstack "required $HS_STAGE/spank_hetsched.so publish_interval=2 window=1 ckpt_hold=60" \
		--conf-extra 'SchedulerParameters=defer,sched_interval=-1' \
		--conf-extra "JobRequeue=1" --conf-extra "AuthInfo=cred_expire=5" "$@"
}

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

# all_completed JOBID...: every job's last incarnation COMPLETED.
all_completed() {
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
