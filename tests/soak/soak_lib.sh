# SPDX-License-Identifier: GPL-2.0-or-later
# soak_lib.sh — the parts of tests/soak/soak.sh (sourced after lib.sh and
# sched_lib.sh): the seeded plan (workload and faults), the faults
# themselves, and the final checks. Random draws happen only in the main
# shell (rand), so a seed replays the same plan.
# shellcheck shell=bash

SOAK_SCALE=10 # emulated seconds per wall second
# Policies the reconfigurations pick from: all preempt by checkpoint.
# Not min_cost (needs prices; another branch fixes its defaults) and no
# PreemptMode=suspend (a known bug there is being fixed elsewhere).
SOAK_POLICIES="max_min_fairness_perf max_min_fairness finish_time_fairness_perf \
max_sum_throughput_perf min_total_duration_perf max_min_fairness_packed"
soak_njobs=0 soak_ctld_kills=0 soak_mid_kills=0 soak_slurmd_kills=0
soak_reconfs=0 soak_cancels=0 soak_user2=""
soak_last_change=0 # when the last job was submitted or cancelled
SOAK_SETTLED=${SOAK_SETTLED:-0} # --settled-kills
declare -a job_kind job_id job_expect job_user job_steps
array_id="" array_n=4

# rand N: R = a random number in 0..N-1 (main shell only).
rand() { R=$((RANDOM % $1)); }

# soak_init DIR PORT: work directory, job scripts.
soak_init() {
	SOAK_DIR=$1 SOAK_PORT=$2
	SOAK_LOG=$1/log/slurmctld.log
	work=$(mktemp -d /tmp/hs-soak.XXXXXX) || bail "mktemp failed"
	# The second user's jobs write their output and checkpoints here too.
	chmod 1777 "$work"
	printf '#!/bin/bash\nsrun %s --table %s --time-scale %s\n' "$HS_EMU" "$HS_TABLE" \
		"$SOAK_SCALE" >"$work/emu.sh"
	chmod 755 "$work/emu.sh"
	: >"$work/events.log"
	: >"$work/kills"
}

# soak_reconf first|random: write hetsched.conf and `scontrol reconfigure`
# (it_hetsched_conf waits until the plugin logged the new configuration).
# ApplyDelay holds every plan 1.5 s between solve and apply, the window of
# the mid-apply kills.
soak_reconf() {
	local pol=max_min_fairness_perf len=6 p
	if [ "$1" = random ]; then
		# shellcheck disable=SC2206
		p=($SOAK_POLICIES)
		rand ${#p[@]}; pol=${p[$R]}
		rand 12; len=$((R + 3))
		soak_reconfs=$((soak_reconfs + 1))
	fi
	soak_event "reconfigure Policy=$pol RoundLength=$len"
	it_hetsched_conf "$SOAK_DIR" "Policy=$pol" "RoundLength=$len" MinRoundInterval=1 \
		CheckpointGrace=10 ApplyDelay=1500 "ThroughputTable=$HS_TABLE"
}

soak_event() { echo "$(date +%s) $*" >>"$work/events.log"; }

# soak_user2_init: a second user (hs-other, account hetsched; lib.sh
# it_user) when it can submit; else every job is root's and the report
# says so.
soak_user2_init() {
	it_user hs-other
	sacctmgr -i add user hs-other account=hetsched >/dev/null 2>&1
	if runuser -u hs-other -- sbatch --parsable -D "$work" -o /dev/null --test-only \
		--gres=gpu:1 --wrap true >/dev/null 2>&1; then
		soak_user2=hs-other
	fi
	echo "# second user: ${soak_user2:-none (hs-other cannot submit here)}"
}

# ------------------------------------------------------------------ plan
# soak_plan DURATION: the timeline, "SECOND ACTION ARG" lines in
# $work/plan sorted by time. Jobs arrive over the first 3/4 of the run;
# faults are spread over all of it.
soak_plan() {
	local d=$1 n i t k sub=$(($1 * 3 / 4))
	{
		n=$((d / 12 + 6))
		for i in $(seq 0 $((n - 1))); do
			rand 100; k=$R
			if [ "$k" -lt 30 ]; then job_kind[i]=ck1
			elif [ "$k" -lt 42 ]; then job_kind[i]=ck2
			elif [ "$k" -lt 52 ]; then job_kind[i]=cktyped
			elif [ "$k" -lt 72 ]; then job_kind[i]=nc1
			elif [ "$k" -lt 80 ]; then job_kind[i]=nc2
			elif [ "$k" -lt 90 ]; then job_kind[i]=fail
			else job_kind[i]=cancel; fi
			rand 2000; job_steps[i]=$((R + 1000))
			job_user[i]=root
			rand 3; [ -n "$soak_user2" ] && [ "$R" = 0 ] && job_user[i]=$soak_user2
			rand $((sub + 1)); t=$R
			echo "$t submit $i"
			if [ "${job_kind[i]}" = cancel ]; then
				rand 50; echo "$((t + 10 + R)) cancel $i"
			fi
		done
		soak_njobs=$n
		rand $((sub + 1)); echo "$R array -"
		# slurmctld SIGKILLs: at random moments, and right after a plan is
		# ready (mid-apply); one dead slurmd; reconfigurations.
		for i in $(seq 1 $((d / 150 + 1))); do rand $((d - 10)); echo "$((R + 10)) ctld_kill -"; done
		for i in $(seq 1 $((d / 200 + 1))); do rand $((d - 10)); echo "$((R + 10)) ctld_kill_mid -"; done
		rand $((d / 2)); echo "$((R + d / 4)) slurmd_kill -"
		for i in $(seq 1 $((d / 120 + 1))); do rand $((d - 5)); echo "$((R + 5)) reconf -"; done
	} >"$work/plan.unsorted"
	sort -n -s -k1,1 "$work/plan.unsorted" >"$work/plan"
	diag <"$work/plan"
}

# ------------------------------------------------------------------ jobs
# submit I: sbatch job I of the plan; its id in job_id[I].
soak_submit() {
	local i=$1 opts=() as=() j model="ResNet-18 (batch size 64)" gres=gpu:1 steps=${job_steps[$1]}
	[ "${job_user[i]}" = root ] || as=(runuser -u "${job_user[i]}" --)
	opts=(--parsable --requeue --open-mode=append -D "$work" -t 30 -J "soak$i" -o "$work/soak$i.out")
	job_expect[i]=COMPLETED
	case "${job_kind[i]}" in
	ck1) opts+=(--hs-ckpt-dir="$work/ck-%u/%j") ;;
	ck2) opts+=(--hs-ckpt-dir="$work/ck-%u/%j"); gres=gpu:2 model="Transformer (batch size 32)"
		steps=$((steps / 2)) ;;
	cktyped) opts+=(--hs-ckpt-dir="$work/ck-%u/%j"); rand 3; gres=gpu:$(echo k80 p100 v100 | cut -d' ' -f$((R + 1))):1 ;;
	nc1) ;;
	nc2) gres=gpu:2 model="Transformer (batch size 32)" steps=$((steps / 2)) ;;
	fail) job_expect[i]=FAILED
		j=$("${as[@]}" sbatch "${opts[@]}" --gres=gpu:1 --wrap "sleep $((steps / 200)); exit 3") ;;
	cancel) job_expect[i]=CANCELLED opts+=(--hs-ckpt-dir="$work/ck-%u/%j") steps=100000000 ;;
	esac
	job_steps[i]=$steps
	[ "${job_kind[i]}" = fail ] ||
		j=$("${as[@]}" sbatch "${opts[@]}" --gres="$gres" --hs-model="$model" --hs-steps="$steps" "$work/emu.sh")
	job_id[i]=${j%%;*}
	soak_last_change=$(date +%s)
	soak_event "submit $i ${job_kind[i]} ${job_user[i]} $gres steps=$steps -> ${job_id[i]:-FAILED}"
}

soak_submit_array() {
	array_id=$(sbatch --parsable --requeue --open-mode=append -D "$work" -t 30 -J soakarr \
		-o "$work/soakarr_%a.out" --array=0-$((array_n - 1)) --hs-ckpt-dir="$work/ck-%u/%j" \
		--hs-model="ResNet-18 (batch size 64)" --hs-steps=1500 --gres=gpu:1 "$work/emu.sh")
	array_id=${array_id%%;*}
	soak_last_change=$(date +%s)
	soak_event "array $array_id (${array_n} tasks)"
}

# ------------------------------------------------------------------ faults
# soak_up_again: `hs-cluster up` with the cluster's options (restarts what
# died). When it fails (a node Slurm drained keeps it waiting) that is
# already the failure; so that one fault does not take the rest of the run
# with it, the drained nodes are shown and resumed, as an admin would,
# and up is tried once more. Returns up's first status.
soak_up_again() {
	local n
	sched_cluster_up_again "$SOAK_DIR" "$SOAK_PORT" 2>"$work/up.err" && return 0
	tail -n 3 "$work/up.err" | diag
	sinfo -h -R -o '%n %E' | sed 's/^/drained: /' | diag
	soak_event "hs-cluster up failed; drained: $(sinfo -h -R -o '%n:%E' | paste -sd' ')"
	for n in $(sinfo -h -t drain,drng -o %n); do scontrol update nodename="$n" state=resume; done
	sched_cluster_up_again "$SOAK_DIR" "$SOAK_PORT" 2>/dev/null
	return 1
}
ctld_pid() { pid_of "$SOAK_DIR" slurmctld; }

# soak_last_action: epoch of the last start or requeue in slurmctld.log
# (hetsched's or Slurm's own), 0 when there is none.
soak_last_action() {
	local ts
	ts=$(grep -E 'sched/hetsched: (started|requeued) JobId|Requeuing JobId' "$SOAK_LOG" |
		tail -n 1 | sed -n 's/^\[\([^].]*\).*/\1/p')
	if [ -n "$ts" ]; then date -d "$ts" +%s; else echo 0; fi
}
# soak_settled: slurmctld has saved its job state since the last start or
# requeue (6 s: see below).
soak_settled() { [ $(($(date +%s) - $(soak_last_action))) -ge 6 ]; }

# soak_ctld_kill [mid]: SIGKILL slurmctld — now, or (mid) while a plan
# waits out ApplyDelay: after "plan of round N ready", before the apply —
# then bring it back with `hs-cluster up` (same options).
# slurmctld writes its job state at most every 5 s (SAVE_MAX_WAIT in
# slurmctld/state_save.c): a job submitted or cancelled less than 5 s
# before a SIGKILL is lost by Slurm itself, and its job id is given again
# to the next submission. That is Slurm's crash window, not hetsched's: a
# kill comes 6 s after the last submission or cancel at the earliest.
# Starts and requeues are lost the same way; with --settled-kills a kill
# also waits until 6 s after the last of them (the known bug of
# doc/robustness.md, "lost starts", is then out of reach).
soak_ctld_kill() {
	local n pid end ms=""
	while [ $(($(date +%s) - soak_last_change)) -lt 6 ]; do sleep 1; done
	if [ "${1:-}" = mid ]; then
		n=$(grep -c 'sched/hetsched: plan of round [0-9]* ready' "$SOAK_LOG")
		end=$(($(date +%s) + 120))
		while :; do
			if [ "$(grep -c 'sched/hetsched: plan of round [0-9]* ready' "$SOAK_LOG")" -gt "$n" ]; then
				if [ "$SOAK_SETTLED" = 0 ] || soak_settled; then break; fi
				n=$(grep -c 'sched/hetsched: plan of round [0-9]* ready' "$SOAK_LOG")
			fi
			if [ "$(date +%s)" -ge "$end" ]; then
				soak_event "slurmctld SIGKILL mid skipped: no plan ready in a settled moment within 120 s"
				return 0
			fi
			sleep 0.1
		done
		rand 1200; ms=$R
		sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
		soak_mid_kills=$((soak_mid_kills + 1))
	elif [ "$SOAK_SETTLED" = 1 ]; then
		until soak_settled; do sleep 1; done
	fi
	pid=$(ctld_pid)
	soak_event "slurmctld SIGKILL ${1:-} (pid $pid${ms:+, ${ms} ms after a plan was ready})"
	kill -KILL "$pid" 2>/dev/null
	date +%s >>"$work/kills"
	soak_ctld_kills=$((soak_ctld_kills + 1))
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	rand 3; sleep "$R"
	check "slurmctld back after SIGKILL #$soak_ctld_kills${1:+ ($1-apply)}" soak_up_again
}

# soak_slurmd_kill: a node dies — its slurmd, and the slurmstepds and tasks
# of the jobs running there (as in sched_faults.sh) — stays dead until
# Slurm marks it DOWN, then comes back. The node is the one with the most
# running jobs. A node dies at one instant: lib.sh it_node_die freezes
# everything first (SIGSTOP) and SIGKILLs it only then. Killed one by one
# (as before 2026-12-02), a batch slurmstepd outlived its slurmd by seconds
# on a loaded machine: srun's step launch to the dying slurmd failed, the
# batch script exited non-zero and its slurmstepd, which talks to
# slurmctld directly, reported that: the job ended FAILED, not requeued
# for the node failure (doc/robustness.md finding 5).
soak_slurmd_kill() {
	local node victims stopped
	node=$(squeue -h -t R -o %N | grep -v , | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	[ -n "$node" ] || node=k80-1
	# %A, the unique id of each array task (JobId=8), not %i (2_1)
	victims=$(squeue -h -w "$node" -o %A | tr '\n' ' ')
	stopped=$(it_node_die "$SOAK_DIR" "$node")
	soak_event "slurmd and${stopped:- no} processes (jobs $victims) SIGKILLed on $node"
	soak_slurmd_kills=$((soak_slurmd_kills + 1))
	check "dead slurmd: Slurm marks $node DOWN" wait_node_state "$node" DOWN 120
	soak_event "$node DOWN"
	rand 10; sleep "$R"
	check "dead slurmd: $node comes back (hs-cluster up)" soak_up_again
	soak_event "slurmd $node back"
}

soak_cancel() {
	local i=$1
	soak_cancels=$((soak_cancels + 1))
	soak_event "scancel $i ${job_id[i]}"
	scancel "${job_id[i]}"
	soak_last_change=$(date +%s)
}

# ------------------------------------------------------------------ run
# soak_run DURATION: play the plan; an action whose time has passed runs at
# once (faults block while they wait for the cluster).
soak_run() {
	local t0 t act arg now
	t0=$(date +%s)
	while read -r t act arg; do
		now=$(($(date +%s) - t0))
		[ "$now" -lt "$t" ] && sleep $((t - now))
		case "$act" in
		submit) soak_submit "$arg" ;;
		array) soak_submit_array ;;
		cancel) soak_cancel "$arg" ;;
		ctld_kill) soak_ctld_kill ;;
		ctld_kill_mid) soak_ctld_kill mid ;;
		slurmd_kill) soak_slurmd_kill ;;
		reconf) check "reconfigure #$((soak_reconfs + 1))" soak_reconf random ;;
		esac
	done < <(cat "$work/plan")
	now=$(($(date +%s) - t0))
	[ "$now" -lt "$1" ] && sleep $(($1 - now))
	soak_event "fault phase over after $(($(date +%s) - t0)) s"
}

soak_procs_start() {
	python3 "$HS_SRCDIR/tests/soak/soak_procs.py" sample "$SOAK_DIR/etc/slurm.conf" "$work/procs" &
	soak_sampler=$!
}
soak_procs_stop() { kill "$soak_sampler" 2>/dev/null; wait "$soak_sampler" 2>/dev/null; }

# ------------------------------------------------------------------ checks
# soak_all_ids: every job id submitted (array tasks are checked apart).
soak_all_ids() {
	local i
	for i in $(seq 0 $((soak_njobs - 1))); do
		[ -n "${job_id[i]:-}" ] && echo "${job_id[i]}"
	done
}

# soak_state_mismatch: "INDEX ID KIND expected/got" for every job whose last
# incarnation (sacct) is not in the state its kind should end in, or
# "INDEX ID lost" when the job id's record is another job's (slurmctld lost
# the job and gave its id again).
soak_state_mismatch() {
	local i st name
	for i in $(seq 0 $((soak_njobs - 1))); do
		IFS='|' read -r name st < <(sacct -n -X -P -o JobName,State -j "${job_id[i]}" 2>/dev/null | tail -n 1)
		case "$st" in "CANCELLED by "*) st=CANCELLED ;; esac
		if [ "$name" != "soak$i" ]; then
			echo "$i ${job_id[i]} lost (its id's record: ${name:-none})"
		elif [ "$st" != "${job_expect[i]}" ]; then
			echo "$i ${job_id[i]} ${job_kind[i]} ${job_expect[i]}/${st:-none}"
		fi
	done
}

# soak_short_jobs: COMPLETED emulated jobs whose output lacks "done step=N"
# (N their steps), i.e. that did not really train to the end.
soak_short_jobs() {
	local i a
	for i in $(seq 0 $((soak_njobs - 1))); do
		case "${job_kind[i]}" in fail | cancel) continue ;; esac
		grep -q "done step=${job_steps[i]} " "$work/soak$i.out" 2>/dev/null || echo "$i:${job_id[i]}"
	done
	for a in $(seq 0 $((array_n - 1))); do
		grep -q 'done step=1500 ' "$work/soakarr_$a.out" 2>/dev/null || echo "array_$a"
	done
}

# soak_gres_used: "NODE GresUsed" for every node that still has a GPU
# allocated (all jobs have ended when this is called).
soak_gres_used() {
	scontrol show node -d -o 2>/dev/null | awk '{
		n = ""; g = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^NodeName=/) n = substr($i, 10)
			if ($i ~ /^GresUsed=/) g = substr($i, 10)
		}
		if (g !~ /^gpu:[^:]*:0\(/) print n, g
	}'
}

# soak_check SETTLE: wait up to SETTLE s for the jobs to end, then check.
soak_check() {
	local ids bad
	ids=$(soak_all_ids | tr '\n' ' ')
	# shellcheck disable=SC2086
	if ! check "all $soak_njobs jobs and the $array_n-task array ended within ${1} s" wait_gone "$1" $ids $array_id; then
		squeue -o '%i %u %T %r %N %b' | diag
	fi
	soak_procs_stop
	# shellcheck disable=SC2086
	check "accounting has a final state for every job" it_wait_jobs 120 $ids
	bad=$(soak_state_mismatch)
	check "every job ended in its expected state (emulated and sleep jobs COMPLETED, failing FAILED, cancelled CANCELLED)${bad:+: not $(echo "$bad" | paste -sd, | head -c 300)}" test -z "$bad"
	bad=$(sacct -n -X -P -o JobID,State -j "$array_id" 2>/dev/null | awk -F'|' '$2 == "COMPLETED" { n++ } END { print n + 0 }')
	check "the array's $array_n tasks COMPLETED ($bad)" test "$bad" = "$array_n"
	bad=$(soak_short_jobs | tr '\n' ' ')
	check "every completed emulated job trained all its steps${bad:+ (not: $bad)}" test -z "$bad"
	check "nothing left in the queue (pending, suspended, running)" test -z "$(squeue -h -o %i)"
	sacct -n -D -X -P -o JobIDRaw,Start,End,State -j "$(soak_all_ids | paste -sd,),$array_id" >"$work/incarnations" 2>/dev/null
	# Open records of starts slurmctld lost when it was killed are Slurm's
	# crash window (soak_procs.py); they are listed, not failed.
	bad=$(python3 "$HS_SRCDIR/tests/soak/soak_procs.py" incarnations "$work/incarnations" \
		"$(paste -sd, "$work/kills")" 2>"$work/runaway")
	check "no job has overlapping incarnations in sacct -D${bad:+: $bad}" test -z "$bad"
	[ -s "$work/runaway" ] && sed 's/^/runaway record: /' "$work/runaway" | diag
	bad=$(python3 "$HS_SRCDIR/tests/soak/soak_procs.py" overlaps "$work/procs")
	check "no job's payload ran twice at once (process samples, $(wc -l <"$work/procs") s)${bad:+: $bad}" test -z "$bad"
	bad=$(soak_gres_used | paste -sd';')
	check "no GPU left allocated after the last job ended (GresUsed)${bad:+: $bad}" test -z "$bad"
	check "slurmctld alive" quiet scontrol ping
	bad=$(grep -c 'error: sched/hetsched' "$SOAK_LOG")
	check "no sched/hetsched error in slurmctld.log ($bad)" test "$bad" = 0 ||
		grep 'error: sched/hetsched' "$SOAK_LOG" | sort | uniq -c | sort -rn | head -n 10 | diag
	diag <"$work/events.log"
	if [ "${HS_KEEP_CLUSTERS:-0}" = 1 ]; then echo "# kept work dir $work"; else rm -rf "$work"; fi
}
