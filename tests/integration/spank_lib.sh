# SPDX-License-Identifier: GPL-2.0-or-later
# spank_lib.sh — helpers shared by the spank_hetsched integration tests
# (sourced after lib.sh): a cluster with the plugin and fast publishing, the
# emulator, and readers of the AdminComment record through sacct, the exact
# command documented in doc/protocol.md and spank_hetsched(8).
# shellcheck shell=bash

HS_EMU=$HS_BUILDDIR/hetsched-emulator
HS_GAVEL=${HS_GAVEL_DATA:-$HS_SRCDIR/data/gavel}
HS_TABLE=$HS_GAVEL/simulation_throughputs.json
HS_AC="python3 $HS_SRCDIR/tests/integration/hs_admincomment.py"

# spank_cluster NAME [extra hs-cluster options]: one k80 and one v100 node,
# spank_hetsched publishing every 2 s from 1 s windows, requeue allowed and
# short credential expiry (fast restarts).
spank_cluster() {
	local name=$1
	shift
	[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
	it_cluster_up "$name" --gpus v100:1:2,k80:1:2 --plugin-dir "$HS_STAGE" \
		--plugstack "required $HS_STAGE/spank_hetsched.so publish_interval=2 window=1 ckpt_hold=60" \
		--conf-extra "JobRequeue=1" --conf-extra "AuthInfo=cred_expire=5" "$@"
}

# table_thr MODEL GPU: steps/s of (MODEL, 1) alone on GPU in the table.
table_thr() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[3]]["(%r, 1)" % sys.argv[2]]["null"])' \
		"$HS_TABLE" "$1" "$2"
}

# record JOBID [INDEX]: the job's AdminComment as sacct shows it (-D: one
# line per incarnation, oldest first; INDEX selects one, default the last).
record() {
	sacct -j "$1" -D -X -P -n -o AdminComment%1000 2>/dev/null | sed -n "${2:-\$}p"
}
# field JOBID PATH: one value of the job's current record (scontrol view,
# which is what slurmctld and the sched plugin see).
field() {
	scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p' | sed 's/ *$//' |
		$HS_AC get "$2"
}
# wait_field SECS JOBID PATH: wait until the record has PATH.
wait_field() {
	local end=$(($(date +%s) + $1))
	while ! field "$2" "$3" >/dev/null; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}
# wait_state SECS STATE JOBID...: wait until squeue shows every job in
# STATE (e.g. RUNNING, PENDING).
wait_state() {
	local end=$(($(date +%s) + $1)) want=$2 j
	shift 2
	for j in "$@"; do
		while [ "$(squeue -h -j "$j" -o %T 2>/dev/null)" != "$want" ]; do
			[ "$(date +%s)" -ge "$end" ] && return 1
			sleep 0.5
		done
	done
}
# within VALUE EXPECTED TOL: |VALUE - EXPECTED| <= TOL * EXPECTED.
within() {
	python3 -c 'import sys; v, e, t = map(float, sys.argv[1:]); sys.exit(abs(v - e) > t * e)' "$1" "$2" "$3"
}
