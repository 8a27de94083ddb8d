#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_reconf.sh — a bad hetsched.conf when slurmctld restarts for
# `scontrol reconfigure` (Slurm 23.11+ re-executes slurmctld with
# SLURMCTLD_RECONF=1): the plugin keeps the last good configuration it
# saved in StateSaveLocation (hetsched.conf.last-good) with an error in the
# log, and slurmctld keeps running rounds and starting GPU jobs; a cold
# start with the same bad file still refuses. 22.05 does not re-execute,
# so there the test plays the restart: it stops slurmctld and starts it
# again with SLURMCTLD_RECONF=1 in its environment (Slurm 23.11+ reads
# more of the SLURMCTLD_RECONF_* variables, so there the test runs the
# real `scontrol reconfigure`). TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: a bad hetsched.conf at a restart for reconfigure keeps the last good one"

sched_cluster c v100:1:1 || bail "cluster did not come up"
log=$C_DIR/log/slurmctld.log
hconf=$C_DIR/etc/hetsched.conf
lastgood=$C_DIR/spool/slurmctld/hetsched.conf.last-good
check "a good configuration is installed" it_hetsched_conf "$C_DIR" RoundLength=4 MinRoundInterval=1
# the thread re-read it (22.05) or the new slurmctld loaded it (23.11+)
check "the last good copy is saved, mode 0600" \
	sh -c "test \"\$(stat -c %a '$lastgood' 2>/dev/null)\" = 600"
check "the copy holds the effective configuration" \
	sh -c "grep -qx 'RoundLength=4' '$lastgood' && grep -qx 'MinRoundInterval=1' '$lastgood' &&
		grep -qx 'Policy=max_min_fairness_water_filling_perf' '$lastgood'"

# stop_ctld: TERM slurmctld, wait until it is gone.
stop_ctld() {
	local pid
	pid=$(pid_of "$C_DIR" slurmctld)
	kill "$pid"
	for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	! kill -0 "$pid" 2>/dev/null
}

echo "RoundLength=0" >"$hconf"
series=$(it_slurm_series)
if [ "$series" -ge 2311 ]; then
	n=$(wc -l <"$log")
	scontrol reconfigure
else
	check "slurmctld stopped" stop_ctld
	n=$(wc -l <"$log")
	SLURMCTLD_RECONF=1 sched_cluster_up_again "$C_DIR" "$C_PORT"
fi
# since the restart: slurmctld.log from line n+1
since() { tail -n +$((n + 1)) "$log" >"$log.since"; echo "$log.since"; }
wait_since() {
	local end=$(($(date +%s) + $1))
	until grep -q -- "$2" "$(since)"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}
check "restart for reconfigure: the last good copy is used, with an error naming the key" \
	wait_since 60 "error: sched/hetsched: hetsched.conf is bad (.*RoundLength=0: expected an integer.*): keeping the last good configuration from $lastgood until it is fixed"
check "restart for reconfigure: slurmctld runs" sh -c 'for i in $(seq 30); do scontrol ping 2>/dev/null | grep -q UP && exit 0; sleep 1; done; exit 1'
check "restart for reconfigure: the last good configuration is in force" \
	wait_since 60 'sched/hetsched: configuration: Policy=[^ ]* RoundLength=4 MinRoundInterval=1'
check "restart for reconfigure: rounds run" wait_rounds "$C_DIR" 2 60
j=$(sbatch --parsable -o /dev/null --gres=gpu:1 --wrap 'sleep 1')
check "restart for reconfigure: a GPU job starts and completes" all_completed "$j"
check "the bad file did not replace the last good copy" grep -qx 'RoundLength=4' "$lastgood"
grep -h 'sched/hetsched' "$(since)" | grep -v ': round ' | cut -c1-200 | head -n 12 | diag

# A cold start with the bad file (and a last good copy there) refuses.
check "slurmctld stopped" stop_ctld
: >"$log"
timeout 90 env -u SLURMCTLD_RECONF HS_CLUSTER_DAEMON="$C_DIR" SLURM_CONF="$C_DIR/etc/slurm.conf" \
	slurmctld -D -f "$C_DIR/etc/slurm.conf" >"$C_DIR/log/ctld-bad.out" 2>&1
rc=$?
echo "cold start with a bad hetsched.conf: slurmctld exited with $rc" | diag
[ "$rc" = 124 ] && rm -f "$C_DIR/run/slurmctld.pid"
check "cold start: slurmctld exits (not killed by the timeout)" test "$rc" != 0 -a "$rc" != 124
check "cold start: refused with the reason" \
	grep -q 'bad configuration, .*RoundLength=0: expected an integer.*slurmctld does not start until hetsched.conf is fixed' "$log"
check "cold start: the last good copy is not used" \
	bash -c "! grep -q 'keeping the last good configuration' '$log'"

# Fixed: slurmctld starts, and the copy follows the new file.
printf 'RoundLength=5\nMinRoundInterval=1\n' >"$hconf"
check "fixed: slurmctld starts" sched_cluster_up_again "$C_DIR" "$C_PORT"
check "fixed: the new configuration is in force" \
	wait_log "$log" 60 'sched/hetsched: configuration: Policy=[^ ]* RoundLength=5'
check "fixed: the last good copy is the new configuration" grep -qx 'RoundLength=5' "$lastgood"
it_done
