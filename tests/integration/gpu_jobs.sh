#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gpu_jobs.sh — jobs asking for each GPU type run on a node of that type
# with CUDA_VISIBLE_DEVICES set to the fake GPUs they were given, and sacct
# (slurmdbd + MariaDB) reports them with their per-type GPU TRES. The same
# workload, submitted into a stopped partition that is then started, runs
# on a stock cons_tres cluster and on one with our plugins (select
# wrapper, sched/hetsched, SPANK): placements and GPU indexes must be
# identical, i.e. the wrapper behaves like cons_tres.
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
it_begin "GPU jobs of every type; sacct; the select wrapper places like cons_tres"

gpus=v100:2:4,p100:1:4,k80:2:4
it_cluster_up stock --gpus "$gpus" || bail "stock cluster did not come up"
# shellcheck disable=SC2046
it_cluster_up ours --gpus "$gpus" $(it_plugin_opts) --plugstack "$(it_plugstack_line)" ||
	bail "cluster with our plugins did not come up"

# The workload: TYPE:COUNT per job; typeless requests too. It fits the
# cluster at once, so one scheduling pass starts every job and placement
# does not depend on which job ends first. Each job writes its node and
# CUDA_VISIBLE_DEVICES into its output file.
workload="v100:2 p100:1 k80:2 v100:1 p100:3 k80:1 :1 v100:4 :2"

# run_workload NAME: submit into the stopped partition, start it (one
# deterministic scheduling pass sees every job), wait; print "jobname jobid
# node cvd" per job. Releasing held jobs is one RPC per job, so a pass
# could run between two releases and place the rest differently (the
# typeless requests most of all).
run_workload() {
	local name=$1 out ids="" w i=0 id gres
	it_use "$name"
	scontrol update PartitionName=gpu State=DOWN || return 1
	out=$(eval echo "\$$(echo "$name" | tr '[:lower:]' '[:upper:]')_DIR")/tmp
	for w in $workload; do
		i=$((i + 1))
		gres=gpu:$w
		[ -n "${w%%:*}" ] || gres=gpu$w
		id=$(sbatch --parsable -J "w$i" -o "$out/w$i.out" --gres="$gres" \
			--wrap 'echo "$SLURMD_NODENAME ${CUDA_VISIBLE_DEVICES-unset}"; sleep 2') || return 1
		ids="$ids $id"
	done
	scontrol update PartitionName=gpu State=UP || return 1
	# shellcheck disable=SC2086
	it_wait_jobs 120 $ids || { echo "# jobs did not finish on $name" >&2; squeue >&2; return 1; }
	i=0
	for id in $ids; do
		i=$((i + 1))
		echo "w$i $id $(cat "$out/w$i.out" 2>/dev/null)"
	done
}

stock=$(run_workload stock)
ours=$(run_workload ours)
echo "$ours" | diag

it_use ours
i=0
for w in $workload; do
	i=$((i + 1))
	t=${w%%:*} n=${w#*:}
	read -r _ id node cvd <<<"$(echo "$ours" | awk -v j="w$i" '$1 == j')"
	tres=$(it_sacct "$id" AllocTRES | tr ',' '\n' | grep '^gres/gpu:' | paste -sd, -)
	if [ -n "$t" ]; then
		check "job w$i (gpu:$t:$n) ran on a $t node" test "${node%-*}" = "$t"
		check "job w$i: sacct shows gres/gpu:$t=$n" test "$tres" = "gres/gpu:$t=$n"
	else
		check "job w$i (gpu:$n, any type) ran on a GPU node" test -n "$node"
		check "job w$i: sacct shows gres/gpu:${node%-*}=$n" test "$tres" = "gres/gpu:${node%-*}=$n"
	fi
	check "job w$i: CUDA_VISIBLE_DEVICES lists $n GPUs" test "$(echo "$cvd" | tr ',' '\n' | grep -c '^[0-9]$')" -eq "$n"
done

it_use ours
check "sacct: every job COMPLETED" test "$(sacct -n -X -P -o State | sort -u)" = COMPLETED
check "sacct: jobs ran on all three types" test "$(sacct -n -X -P -o NodeList | sed 's/-[0-9]*$//' | sort -u | paste -sd' ' -)" = "k80 p100 v100"
# Job ids are equal too: both clusters are fresh.
check "the wrapper placed every job like stock cons_tres (node and GPU indexes)" \
	test -n "$ours" -a "$(echo "$ours" | awk 'NF == 4' | wc -l)" = "$(echo $workload | wc -w)" -a "$ours" = "$stock" ||
	{ echo "# stock cons_tres:"; echo "$stock" | diag; }
it_done
