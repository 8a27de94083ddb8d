#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/scale.sh — one real slurmctld + slurmdbd with 128 nodes (one
# slurmd -N each) and 2,048 GPUs of 4 types, a long queue, ~2,000 running
# jobs and a steady submission stream, under sched/backfill and then under
# sched/hetsched + select/hetsched_cons_tres in the same run.
# Not a test (minutes of CPU on a shared machine): run it by hand.
#
# Usage (root, from the build dir, after make):
#   nice -n 10 bench/scale.sh [-q QUEUE] [-r RUNNING] [-t SECS] [-o OUTDIR]
#     -q  pending jobs before the measurement (default 5000); half of them
#         (whole thousands) in job arrays of 1,000 tasks, the rest single
#         jobs, each with its own model (own throughput row)
#     -r  running 1-GPU jobs (default 2000, sleep jobs, not preemptible)
#     -w  running whole-node jobs besides (default 0): with -r below the
#         GPU count they keep the queue from simply starting
#     -p  make the queue preemptible (hetsched.conf RequeueWithoutCheckpoint=yes;
#         the running and whole-node jobs are --no-requeue, so they stay
#         pinned): leave a few GPUs free (-r + -w x GPUs per node below the
#         GPU count) and the policy time-shares them among the whole queue
#         every round, so the LP holds MaxJobs jobs instead of none
#     -t  measurement window in seconds (default 180), with 10 sbatch/s
#     -g  hs-cluster --gpus (default a100:32:16,v100:32:16,p100:32:16,k80:32:16)
#     -L  hetsched.conf MaxLockHold values, comma-separated (default: the
#         plugin's default, one hetsched half): one hetsched half per value,
#         OUTDIR/hetsched-LV each (e.g. -L 0,20: never yield vs every 20 ms)
#     -o  output directory (default /tmp/hs-scale.XXXX); summary in
#         OUTDIR/summary.txt, one line per scheduler in OUTDIR/results.tsv
# Report ratios hetsched / backfill only: the machine is shared.
set -u
queue=5000 running=2000 whole=0 window=180 outdir= preempt=0 holds=
gpus=a100:32:16,v100:32:16,p100:32:16,k80:32:16
while getopts q:r:w:t:g:o:L:p opt; do
	case $opt in
	q) queue=$OPTARG ;; r) running=$OPTARG ;; w) whole=$OPTARG ;; t) window=$OPTARG ;;
	g) gpus=$OPTARG ;; o) outdir=$OPTARG ;; p) preempt=1 ;; L) holds=$OPTARG ;;
	*) sed -n '2,23p' "$0"; exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(pwd)
stage=$build/stage/plugins
cluster=$top/contrib/cluster/hs-cluster
[ -f "$stage/sched_hetsched.so" ] || { echo "run from the build dir after make (no $stage)" >&2; exit 1; }
[ -n "$outdir" ] || outdir=$(mktemp -d /tmp/hs-scale.XXXXXX)
mkdir -p "$outdir"
nodes=$(echo "$gpus" | tr ',' '\n' | awk -F: '{ s += $2 } END { print s }')
per_node=$(echo "$gpus" | cut -d, -f1 | cut -d: -f3)
say() { echo "scale: $(date +%T) $*" >&2; }
now() { date +%s.%N; }

# One throughput row per model: every single job gets its own model, so
# the policy's class aggregation (identical rows solved as one) cannot
# help; the arrays' tasks share their array's row, as they would.
nmodels=$((queue + running + window * 12 + 100))
python3 - "$outdir/table.json" "$nmodels" "$gpus" <<'PY'
import json, random, sys
out, n, spec = sys.argv[1], int(sys.argv[2]), sys.argv[3]
types = [s.split(":")[0] for s in spec.split(",")]
rng = random.Random(12)
t = {ty: {} for ty in types}
for k in range(n):
    base = rng.uniform(1, 100)
    for i, ty in enumerate(types):
        # faster types are faster on average, by a job-specific factor
        t[ty]["('m%d', 1)" % k] = {"null": base * rng.uniform(0.3, 1.0) * (len(types) - i)}
json.dump(t, open(out, "w"))
PY

# pct FILE P: the P-th percentile of the numbers in FILE (nearest rank).
pct() { sort -g "$1" | awk -v p="$2" '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i] }'; }
mean() { awk '{ s += $1 } END { if (NR) printf "%.3f\n", s / NR; else print "nan" }' "$1"; }

# submit_singles FIRST COUNT: COUNT single pending 1-GPU jobs, models
# mFIRST.., 4 sbatch at a time.
submit_singles() {
	seq "$1" $(($1 + $2 - 1)) | xargs -P 4 -I{} sbatch --parsable -o /dev/null -J s{} \
		--hs-model=m{} --hs-steps=1000000 --gres=gpu:1 --wrap 'sleep 3600' >/dev/null 2>&1
}

# stream SECS: 10 sbatch per second for SECS, each one timed (latency file).
stream() {
	local end m=$((queue + running + 50)) t0 t1
	end=$(echo "$(now) + $1" | bc)
	while [ "$(echo "$(now) < $end" | bc)" = 1 ]; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			m=$((m + 1))
			(t0=$(now); sbatch --parsable -o /dev/null -J st$m --hs-model=m$m --hs-steps=1000000 \
				--gres=gpu:1 --wrap 'sleep 3600' >/dev/null 2>&1 && t1=$(now) &&
				echo "$t1 - $t0" | bc >>"$2/sbatch_lat.txt") &
			sleep 0.1
		done
	done
	wait
}

# probes SECS: every 10 s one job whose time until it has a reason (the
# scheduler looked at it) is measured; 0.2 s resolution.
probes() {
	local end id t0 r
	end=$(echo "$(now) + $1" | bc)
	while [ "$(echo "$(now) < $end" | bc)" = 1 ]; do
		t0=$(now)
		id=$(sbatch --parsable -o /dev/null -J probe --hs-model=m1 --hs-steps=1000000 --gres=gpu:1 --wrap 'sleep 3600')
		while :; do
			r=$(squeue -h -j "$id" -o '%t %r' 2>/dev/null)
			case "$r" in "PD None"|"") ;; *) break ;; esac
			[ "$(echo "$(now) - $t0 > 120" | bc)" = 1 ] && { r=timeout; break; }
			sleep 0.2
		done
		echo "$(echo "$(now) - $t0" | bc) $r" >>"$2/probe.txt"
		sleep 10
	done
}

# samplers SECS: squeue latency (full listing) and sdiag every 3 s.
samplers() {
	local end t0 t1
	end=$(echo "$(now) + $1" | bc)
	while [ "$(echo "$(now) < $end" | bc)" = 1 ]; do
		t0=$(now)
		squeue -h -o '%i %t' >/dev/null 2>&1 && t1=$(now) && echo "$t1 - $t0" | bc >>"$2/squeue_lat.txt"
		sdiag >>"$2/sdiag.txt" 2>&1
		echo "@@" >>"$2/sdiag.txt"
		# the machine's load, so that the two halves can be compared
		cut -d' ' -f1 /proc/loadavg >>"$2/load.txt"
		sleep 3
	done
}

# run SCHED [MAXLOCKHOLD]: one half; hetsched's results go to
# OUTDIR/hetsched, or OUTDIR/hetsched-LV with a MaxLockHold value V.
run() {
	local sched=$1 hold=${2:-} d=$outdir/$1${2:+-L$2} dir base args=() t0 pid narr a left
	mkdir -p "$d"
	dir=$(mktemp -d /tmp/hs-scale-"$sched".XXXXXX)
	base=$("$cluster" free-ports --nodes "$nodes" --port-base 32000) ||
		base=$("$cluster" free-ports --nodes "$nodes" --port-base 12000) || { say "no free ports"; return 1; }
	args=(--dir "$dir" --port-base "$base" --gpus "$gpus" --cpus 32 --mem 65536 --timeout 600
		--plugin-dir "$stage" --plugstack "required $stage/spank_hetsched.so"
		--conf-extra MaxJobCount=200000 --conf-extra MinJobAge=60)
	if [ "$sched" = hetsched ]; then
		args+=(--sched hetsched --select hetsched_cons_tres
			--conf-extra 'SchedulerParameters=defer,sched_interval=-1')
	fi
	say "$sched: $nodes nodes ($gpus) in $dir, ports $base.."
	t0=$(now)
	"$cluster" up -q "${args[@]}" >"$d/up.out" 2>&1 || { say "$sched: cluster did not come up"; cat "$d/up.out" >&2; "$cluster" down -q --dir "$dir"; return 1; }
	echo "$(now) - $t0" | bc >"$d/startup_s"
	export SLURM_CONF=$dir/etc/slurm.conf
	pid=$(cat "$dir/run/slurmctld.pid")
	ps -o rss= -C slurmd | awk '{ s += $1; n++ } END { printf "%d slurmd, %.0f MB RSS in all\n", n, s / 1024 }' >"$d/slurmd_mem"
	if [ "$sched" = hetsched ]; then
		printf '%s\n' RoundLength=30 MinRoundInterval=5 "ThroughputTable=$outdir/table.json" >"$dir/etc/hetsched.conf"
		[ "$preempt" = 1 ] && echo RequeueWithoutCheckpoint=yes >>"$dir/etc/hetsched.conf"
		[ -n "$hold" ] && echo "MaxLockHold=$hold" >>"$dir/etc/hetsched.conf"
		scontrol reconfigure
		sleep 12 # the plugin's start-up delay
	fi
	# The running jobs: arrays of 1,000 sleep tasks (one model per array).
	say "$sched: $running running jobs and $whole whole-node jobs"
	[ "$whole" -gt 0 ] && sbatch --parsable -o /dev/null -J whole --no-requeue --array=1-"$whole" --hs-model=m0 \
		--hs-steps=1000000 --gres=gpu:"$per_node" --wrap 'sleep 7200' >/dev/null
	for a in $(seq 0 1000 $((running - 1))); do
		left=$((running - a)); [ $left -gt 1000 ] && left=1000
		sbatch --parsable -o /dev/null -J run --no-requeue --array=1-$left --hs-model=m$((queue + a)) --hs-steps=1000000 \
			--gres=gpu:1 --wrap 'sleep $((900 + RANDOM % 900))' >/dev/null
	done
	t0=$(now)
	while [ "$(squeue -h -t R -o %i 2>/dev/null | wc -l)" -lt $((running + whole)) ]; do
		[ "$(echo "$(now) - $t0 > 300" | bc)" = 1 ] && { say "$sched: not all running after 300 s"; break; }
		sleep 5
	done
	echo "$(now) - $t0" | bc >"$d/fill_s"
	# The queue: arrays of 1,000 tasks (half of it), the rest single jobs.
	narr=$((queue / 2000))
	say "$sched: queue of $queue ($narr arrays of 1000)"
	for a in $(seq 1 "$narr"); do
		sbatch --parsable -o /dev/null -J arr$a --array=1-1000 --hs-model=m$a --hs-steps=1000000 \
			--gres=gpu:1 --wrap 'sleep 3600' >/dev/null
	done
	t0=$(now)
	submit_singles $((narr + 1)) $((queue - narr * 1000))
	echo "$(now) - $t0" | bc >"$d/queue_submit_s"
	sleep 20
	cp "$dir/log/slurmctld.log" "$d/slurmctld-before.log"
	squeue -h -r -t PD -o '%i %Q %V' | sort -k2,2nr -k3,3 >"$d/queue_order.txt"
	# The measurement window.
	say "$sched: measuring for $window s (10 sbatch/s)"
	date +%s.%N >"$d/window_start"
	stream "$window" "$d" &
	probes "$window" "$d" &
	samplers "$window" "$d" &
	wait
	date +%s.%N >"$d/window_end"
	grep VmHWM "/proc/$pid/status" | awk '{ print $2 }' >"$d/vmhwm_kb"
	# where the memory is: per mapping (glibc's per-thread arenas are
	# anonymous mappings of up to 64 MB each)
	cp "/proc/$pid/smaps" "$d/slurmctld_smaps" 2>/dev/null
	squeue -h -r -t PD -o '%i|%r' >"$d/pending_end.txt"
	squeue -h -r -t R -o '%i %S' >"$d/running_end.txt"
	cp "$dir/log/slurmctld.log" "$d/slurmctld.log"
	say "$sched: tearing down"
	t0=$(now)
	scancel -u root
	"$cluster" down -q --dir "$dir" >/dev/null 2>&1
	echo "$(now) - $t0" | bc >"$d/teardown_s"
	unset SLURM_CONF
}

run backfill || exit 1
if [ -z "$holds" ]; then
	run hetsched || exit 1
else
	for h in $(echo "$holds" | tr ',' ' '); do run hetsched "$h" || exit 1; done
fi
python3 "$top/bench/scale_report.py" "$outdir" "$queue" | tee "$outdir/summary.txt"
