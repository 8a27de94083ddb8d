#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cluster_bench.sh — sched/hetsched against stock sched/backfill on a real
# local Slurm cluster (contrib/cluster/hs-cluster), with the same
# time-scaled workload submitted with sbatch to both.
#
# Usage: bench/cluster_bench.sh [--quick] [--jobs N] [--seed S]
#            [--policy NAME] [--round SECONDS] [--pending N] [--out DIR]
#   --quick     12 jobs instead of 20 (about an hour: a job stuck on a k80
#               under backfill runs up to 10x longer); the lock figure is
#               still measured with --pending jobs (1000 by default, the
#               pending-queue size the lock figure is specified for),
#               only the JCT workload shrinks
#   --jobs N    jobs in the workload (default 20)
#   --seed S    workload seed (default 1)
#   --policy P  hetsched policy (default max_min_fairness_perf)
#   --round S   hetsched round length (default 30)
#   --pending N pending jobs for the lock-hold measurement (default 1000)
#   --queue-time S  how long the scheduler runs with that queue (default
#               10 rounds + 60 s: ten rounds' lock figures)
#   --out DIR   results (default bench/out/cluster/<date>)
# Run as root from a built tree (the plugins come from _build/stage).
#
# What it does, once per scheduler (backfill first, the baseline):
#  1. brings up a cluster: one node of 2 GPUs per type v100, p100, k80,
#     spank_hetsched loaded (jobs learn their GPU type and report their
#     throughput either way); for hetsched also
#     SchedulerParameters=defer,sched_interval=-1 and a hetsched.conf;
#  2. submits the workload at its (seeded, Poisson) arrival times: each job
#     is hetsched-emulator training a model of Gavel's throughput table,
#     checkpointing on request, --time-scale 10, with a number of steps
#     that takes 60..300 s on a v100 (log-uniform); 20% ask for 2 GPUs;
#  3. waits for every job; reads sacct -D (every incarnation);
#  4. submits N held 1-GPU jobs (every model of the table in turn, all
#     checkpointing on request, so every one of them is in each round's
#     problem and the rounds keep preempting and starting some), releases
#     them at once and measures the scheduler with that queue: hetsched's
#     per-round time under
#     slurmctld locks (snapshot read locks + apply write locks, from its
#     round log lines) and solve time; backfill's cycle time (sdiag).
# While the workload runs, squeue's expected start of every pending job is
# sampled every 5 s; bench/start_error.py compares the predictions with
# the actual first starts (doc/start-times.md).
# Then prints average JCT, makespan and GPU utilization side by side with
# hetsched/backfill ratios, the preemption counts, and hetsched's per-round
# solve time and lock hold time (mean, p95, max), and writes summary.md
# (with a per-job table), jct.dat and, with gnuplot, jct.svg in the output
# directory. Everything is measured in this one run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/_build
jobs=20 seed=1 policy=max_min_fairness_perf round=30 pending=1000 out= queue_s=
orig_args="$*"
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) jobs=12 ;;
	--jobs) jobs=$2; shift ;;
	--seed) seed=$2; shift ;;
	--policy) policy=$2; shift ;;
	--round) round=$2; shift ;;
	--pending) pending=$2; shift ;;
	--queue-time) queue_s=$2; shift ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '3,47p' "$0"; exit 0 ;;
	*) echo "cluster_bench.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$queue_s" ] || queue_s=$((round * 10 + 60))
[ "$(id -u)" = 0 ] || { echo "cluster_bench.sh: run as root (it runs Slurm daemons)" >&2; exit 1; }
stage=$b/stage/plugins
emu=$b/hetsched-emulator
[ -x "$emu" ] && [ -f "$stage/sched_hetsched.so" ] || { echo "cluster_bench.sh: build first (no $emu or $stage)" >&2; exit 1; }
gavel=${HS_GAVEL_DATA:-$top/data/gavel}
table=$gavel/simulation_throughputs.json
[ -r "$table" ] || { echo "cluster_bench.sh: no throughput table at $table (set HS_GAVEL_DATA)" >&2; exit 1; }
[ -n "$out" ] || out=$top/bench/out/cluster/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
args_given=$orig_args
{ echo "command: bench/cluster_bench.sh $args_given"
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
  echo "cpus: $(nproc)"; } >"$out/meta.txt"
say() { echo "cluster_bench: $(date -u +%H:%M:%S) [load $(cut -d' ' -f1-3 /proc/loadavg)] $*" >&2; }
# The machine may be shared: the load average goes to load.txt every 30 s
# (and into every progress line) so the report can state the conditions.
( while :; do echo "$(date +%s) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done >"$out/load.txt" ) &
loadlog=$!
# the load logger and a run's squeue sampler stop with the script
trap 'kill $loadlog $(jobs -p) 2>/dev/null' EXIT
scale=10
gpus=v100:1:2,p100:1:2,k80:1:2

# The workload: "arrival_s model steps gpus" per line, seeded.
python3 - "$table" "$jobs" "$seed" "$scale" >"$out/workload.txt" <<'PY'
import json, math, random, sys
table = json.load(open(sys.argv[1])); n = int(sys.argv[2]); rng = random.Random(int(sys.argv[3]))
scale = float(sys.argv[4])
def key(m, sf): return "('%s', %d)" % (m, sf)
models = sorted(k[2:k.rindex("'")] for k in table["v100"] if k.endswith(", 1)"))
t = 0.0
for i in range(n):
    t += rng.expovariate(1 / 12.0)          # one job every 12 s on average
    sf = 2 if rng.random() < 0.2 else 1
    m = rng.choice([m for m in models if key(m, sf) in table["v100"]])
    dur = math.exp(rng.uniform(math.log(60), math.log(300)))   # s on v100
    steps = int(dur * table["v100"][key(m, sf)]["null"] * scale)
    print("%.1f\t%s\t%d\t%d" % (t, m, steps, sf))
PY
say "workload: $jobs jobs, seed $seed -> $out/workload.txt"

port_block() { "$top/contrib/cluster/hs-cluster" free-ports --port-base "24000"; }

# run SCHED: one complete run; results in $out/SCHED/.
run() {
	local sched=$1 dir base args=() conf start
	dir=$(mktemp -d /tmp/hs-bench-"$sched".XXXXXX)
	base=$(port_block) || { say "no free ports"; return 1; }
	args=(--dir "$dir" --port-base "$base" --gpus "$gpus" --plugin-dir "$stage"
		--plugstack "required $stage/spank_hetsched.so publish_interval=5 window=2 ckpt_hold=60"
		--conf-extra JobRequeue=1 --conf-extra "AuthInfo=cred_expire=5" --conf-extra MinJobAge=86400)
	if [ "$sched" = hetsched ]; then
		args+=(--sched hetsched --conf-extra 'SchedulerParameters=defer,sched_interval=-1')
	else
		args+=(--sched backfill)
	fi
	say "$sched: cluster in $dir (ports $base..)"
	"$top/contrib/cluster/hs-cluster" up -q "${args[@]}" >/dev/null || { say "$sched: cluster did not come up"; return 1; }
	export SLURM_CONF=$dir/etc/slurm.conf
	mkdir -p "$out/$sched" "$dir/work"
	if [ "$sched" = hetsched ]; then
		printf '%s\n' "Policy=$policy" "RoundLength=$round" MinRoundInterval=5 \
			"ThroughputTable=$table" CheckpointGrace=15 PreemptCost=5 >"$dir/etc/hetsched.conf"
		scontrol reconfigure
		sleep 3
	fi
	printf '#!/bin/bash\nsrun %s --table %s --time-scale %s --progress 30\n' "$emu" "$table" "$scale" >"$dir/work/emu.sh"
	chmod +x "$dir/work/emu.sh"
	# Expected starts as users see them (squeue --start's field), every
	# 5 s while the workload runs: "now jobid start" per pending job.
	( while :; do
		squeue -h -t PD -o '%i %S' 2>/dev/null | sed "s/^/$(date +%s) /"
		sleep 5
	  done >"$out/$sched/start_est.txt" ) &
	local sampler=$!
	# Submit at the arrival times.
	start=$(date +%s.%N)
	: >"$out/$sched/submitted.txt"
	local i=0 arr model steps sf now wait id
	while IFS=$'\t' read -r arr model steps sf; do
		i=$((i + 1))
		now=$(date +%s.%N)
		wait=$(python3 -c "print(max(0.0, $start + $arr - $now))")
		sleep "$wait"
		id=$(sbatch --parsable --requeue --open-mode=append -J "b$i" -o "$dir/work/b$i.out" \
			--hs-ckpt-dir="$dir/work/ck/%j" --hs-model="$model" --hs-steps="$steps" \
			--gres=gpu:"$sf" "$dir/work/emu.sh") || { say "sbatch failed"; continue; }
		echo "$id $(date +%s.%N) $sf $steps" >>"$out/$sched/submitted.txt"
		say "$sched: submitted $i/$jobs (job $id, $model, $sf GPU)"
	done <"$out/workload.txt"
	# Wait for every job.
	local ids
	ids=$(awk '{print $1}' "$out/$sched/submitted.txt" | paste -sd,)
	# Done only when squeue answered (a busy slurmctld's failed squeue
	# prints nothing) with no job left and sacct has every job final.
	local q live
	while :; do
		if q=$(squeue -h -j "$ids" -o %i 2>/dev/null) && [ -z "$q" ]; then
			live=$(sacct -n -X -P -o State,End -j "$ids" 2>/dev/null |
				grep -cE 'PENDING|RUNNING|REQUEUED|SUSPENDED|COMPLETING|\|Unknown$')
			[ "$live" = 0 ] && break
		fi
		say "$sched: $(squeue -h -j "$ids" -t R 2>/dev/null | wc -l) running, $(squeue -h -j "$ids" -t PD 2>/dev/null | wc -l) pending"
		sleep 15
	done
	kill "$sampler" 2>/dev/null
	sacct -D -X -P -n -o JobIDRaw,State,Submit,Start,End,NodeList,AllocTRES -j "$ids" >"$out/$sched/sacct.txt"
	# The scheduler with a long queue.
	say "$sched: lock/cycle measurement with $pending pending jobs"
	# Checkpointing jobs (so they all stay in the policy problem and the
	# rounds time-slice them) of every model of the table, in turn.
	local held=() k models=()
	mapfile -t models < <(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["v100"]; print("\n".join(sorted(k[2:k.rindex("\x27")] for k in t if k.endswith(", 1)"))))' "$table")
	for k in $(seq "$pending"); do
		held+=("$(sbatch --parsable -H -o /dev/null --requeue --gres=gpu:1 --hs-ckpt \
			--hs-model="${models[$((k % ${#models[@]}))]}" --hs-steps=100000 --wrap 'sleep 3600')")
	done
	cp "$dir/log/slurmctld.log" "$out/$sched/slurmctld-before-queue.log"
	scontrol release "$(IFS=,; echo "${held[*]}")"
	say "$sched: $pending jobs released; measuring for $((queue_s / 60)) min"
	sleep "$queue_s"
	sdiag >"$out/$sched/sdiag.txt" 2>&1
	cp "$dir/log/slurmctld.log" "$out/$sched/slurmctld.log"
	scancel -u root
	"$top/contrib/cluster/hs-cluster" down -q --dir "$dir"
}

run backfill || exit 1
run hetsched || exit 1
python3 "$top/bench/cluster_report.py" "$out" "$gpus" "$pending" | tee "$out/summary.md"
python3 "$top/bench/start_error.py" "$out" "$round" | tee -a "$out/summary.md"
# per-job JCT as a plot (jct.dat comes from the report)
if command -v gnuplot >/dev/null && [ -s "$out/jct.dat" ]; then
	gnuplot -e "dat='$out/jct.dat'; out='$out/jct.svg'" "$top/bench/cluster_jct.gp" &&
		say "plot: $out/jct.svg"
fi
