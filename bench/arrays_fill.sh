#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/arrays_fill.sh — time to fill every GPU with job array tasks,
# sched/backfill against sched/hetsched on the same local cluster shape:
# three arrays of TASKS one-GPU tasks are submitted at once;
# the time from submission until every GPU runs a task is measured under
# each scheduler and reported with the ratio hetsched / backfill.
# Measured (one run each, shared 2-core machine, RoundLength=15):
#   v100:16:4  (64 GPUs),  3 x 1000: backfill 6.4 s,  hetsched 4.8 s, ratio 0.75
#   v100:90:4 (360 GPUs),  3 x 1000: backfill 37.2 s, hetsched 9.1 s, ratio 0.24
#   a100:16:4,v100:16:4,p100:16:4,k80:16:4 (64 nodes, 256 GPUs of 4 types),
#     3 x 1000: backfill 34.3 s, hetsched 11.5 s, ratio 0.33 (33bffb1,
#     idle machine, 2026-12-03)
# (before: one task per array per round, 15 tasks after 150 s on 360 GPUs).
# Usage (root, from the build dir): bench/arrays_fill.sh [GPUS_SPEC] [TASKS]
#   GPUS_SPEC as hs-cluster --gpus (default v100:16:4), TASKS default 1000.
set -u
SPEC=${1:-v100:16:4}
TASKS=${2:-1000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(pwd)
CLUSTER=$SRC/contrib/cluster/hs-cluster
total=$(echo "$SPEC" | tr ',' '\n' | awk -F: '{ s += $2 * $3 } END { print s }')

# fill NAME [hs-cluster options]: seconds until $total GPU tasks run.
fill() {
	local name=$1 dir port t0 n
	shift
	dir=$(mktemp -d /tmp/hs-bench-"$name".XXXXXX)
	port=$("$CLUSTER" free-ports --port-base 30000) || return 1
	"$CLUSTER" up -q --dir "$dir" --port-base "$port" --gpus "$SPEC" "$@" >/dev/null || return 1
	export SLURM_CONF=$dir/etc/slurm.conf
	if [ "$name" = hetsched ]; then
		printf 'RoundLength=15\nMinRoundInterval=1\n' >"$dir/etc/hetsched.conf"
		scontrol reconfigure
		sleep 12 # the plugin's start-up delay
	fi
	t0=$(date +%s.%N)
	for a in 1 2 3; do
		sbatch --parsable -o /dev/null --array=1-"$TASKS" --gres=gpu:1 --wrap 'sleep 900' >/dev/null
	done
	n=0
	while [ "$n" -lt "$total" ]; do
		sleep 1
		n=$(squeue -h -t R -o %i | wc -l)
		if [ "$(echo "$(date +%s.%N) - $t0 > 600" | bc)" = 1 ]; then
			echo "$name: only $n of $total running after 600 s" >&2
			break
		fi
	done
	echo "$(date +%s.%N) - $t0" | bc
	scancel -u root
	"$CLUSTER" down -q --dir "$dir" >/dev/null
}

b=$(fill backfill)
h=$(fill hetsched --plugin-dir "$BUILD/stage/plugins" --sched hetsched --select hetsched_cons_tres \
	--conf-extra 'SchedulerParameters=defer,sched_interval=-1')
printf 'GPUs %s, 3 arrays x %s tasks: backfill %.1f s, hetsched %.1f s, ratio %.2f\n' \
	"$total" "$TASKS" "$b" "$h" "$(echo "$h / $b" | bc -l)"
