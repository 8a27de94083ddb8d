#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_array_users.sh — issue #28 item 6, live: one user's many job
# arrays do not crowd out another user's. A pending job array is one
# Slurm record; the round sees it as one job per task it could start
# (task slots, snapshot.c). 4 GPUs, equal Shares (the defaults: water
# filling over the association tree, PinnedAdmission=share), hs-alice's
# 65 two-task arrays ahead of hs-bob's four-task array, plain sleep jobs
# (they cannot be preempted). Two things left hs-bob with less than his
# share of 2 GPUs, each now fixed: the first 64 arrays in job-list order
# took every slot, so hs-bob's array showed the round one task (now the
# free GPUs are dealt as slots round-robin over users,
# src/sched/array_slots.c); and jobs that cannot be preempted were
# admitted in priority order, so hs-alice's took all four GPUs (0 for
# hs-bob; now the admission alternates between owners,
# engine_pinned.c). Everything is submitted between two rounds, so one
# round sees it all. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: one user's many job arrays do not take every array task slot"

sched_cluster a v100:1:4 || bail "cluster did not come up"
check "account lab with users hs-alice and hs-bob in slurmdbd" lab_users "$A_DIR" hs-alice hs-bob
# Rounds at least 45 s apart: right after one, everything is submitted
# (within 40 s), so the next round sees all of it at once.
check "rounds 45-60 s apart" it_hetsched_conf "$A_DIR" RoundLength=60 MinRoundInterval=45
# as USER ARGS...: sbatch as that user, in a directory it may use.
as() {
	local user=$1
	shift
	runuser -u "$user" -- sbatch --parsable --chdir=/tmp -o /dev/null -A lab \
		--gres=gpu:1 "$@" --wrap 'sleep 600'
}
wait_rounds "$A_DIR" 1 90
t0=$(date +%s)
n=$(rounds "$A_DIR")
for i in $(seq 65); do
	as hs-alice --array=1-2 >/dev/null
done
as hs-bob --array=1-4 >/dev/null
check "65 arrays of hs-alice and one of hs-bob submitted between two rounds ($(($(date +%s) - t0)) s)" \
	test "$(rounds "$A_DIR")" -eq "$n"
wait_rounds "$A_DIR" 1 90
sleep 3 # the round's starts
nb=$(squeue -h -u hs-bob -t R -o %i | wc -l)
na=$(squeue -h -u hs-alice -t R -o %i | wc -l)
check "the next round started 4 tasks (round $n -> $(rounds "$A_DIR"))" \
	test $((na + nb)) -eq 4
check "hs-bob runs 2 tasks of his array, his share of 4 GPUs ($nb; alice $na)" test "$nb" -eq 2
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$A_DIR/log/slurmctld.log'"
scancel -u hs-alice
scancel -u hs-bob
it_done
