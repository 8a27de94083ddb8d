#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_conf.sh — a bad hetsched.conf: at `scontrol reconfigure` the plugin
# keeps its last good configuration and logs why; an Include of a missing
# file is reported at once (Slurm's parser alone retried it for 60 s,
# blocking the scheduling thread); at slurmctld startup a bad file stops
# slurmctld with the reason in its log (as a bad slurm.conf does), and
# once fixed slurmctld starts again. With PrivateData=jobs the status
# document is mode 0600 and a public summary without jobs is 0644. TAP
# output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: a bad hetsched.conf at reconfigure and at startup"

sched_cluster c v100:1:1 --conf-extra PrivateData=jobs || bail "cluster did not come up"
log=$C_DIR/log/slurmctld.log
hconf=$C_DIR/etc/hetsched.conf
check "plugin loaded" grep -q 'sched/hetsched: loaded' "$log"
check "a good configuration is installed" it_hetsched_conf "$C_DIR" RoundLength=30

# 1. A bad value at reconfigure: the last good configuration stays.
echo "RoundLength=0" >"$hconf"
scontrol reconfigure
check "reconfigure: bad value logged, last good configuration kept" \
	wait_log "$log" 30 '\(bad configuration, \|hetsched.conf is bad (\).*RoundLength=0: .*keeping the last good'
check "reconfigure: slurmctld still answers" quiet scontrol ping

# 2. An Include of a missing file: reported at the first tick, without
# Slurm's 60 s of retries.
echo "Include missing-part.conf" >"$hconf"
t0=$(date +%s)
scontrol reconfigure
check "Include of a missing file: error names it" \
	wait_log "$log" 30 '\(bad configuration, \|hetsched.conf is bad (\).*Include .*missing-part.conf: No such file'
echo "reported after $(($(date +%s) - t0)) s" | diag
check "Include of a missing file: Slurm's parser never retried it" \
	test "$(grep -c 'retrying in 1sec up to 60sec' "$log")" = 0
check "Include: the thread still runs rounds" wait_rounds "$C_DIR" 1 60

# PrivateData=jobs: the full status document is not world-readable.
spool=$C_DIR/spool/slurmctld
check "PrivateData=jobs: status document mode 0600" \
	test "$(stat -c %a "$spool/hetsched_status.json")" = 600
check "PrivateData=jobs: public summary mode 0644, without jobs" \
	sh -c "test \"\$(stat -c %a '$spool/hetsched_status.public.json')\" = 644 &&
		! grep -q '\"jobs\"' '$spool/hetsched_status.public.json'"

# 3. slurmctld started with a bad hetsched.conf does not start.
echo "RoundLength=0" >"$hconf"
ctld=$(pid_of "$C_DIR" slurmctld)
kill "$ctld"
for _ in $(seq 60); do kill -0 "$ctld" 2>/dev/null || break; sleep 0.5; done
check "slurmctld stopped" bash -c "! kill -0 $ctld 2>/dev/null"
: >"$log"
timeout 90 env HS_CLUSTER_DAEMON="$C_DIR" SLURM_CONF="$C_DIR/etc/slurm.conf" \
	slurmctld -D -f "$C_DIR/etc/slurm.conf" >"$C_DIR/log/ctld-bad.out" 2>&1
rc=$?
echo "slurmctld with a bad hetsched.conf exited with $rc" | diag
# When init() fails, Slurm scans every file of every PluginDir for
# another sched/hetsched and tries that one: a copy installed in Slurm's
# own plugin dir (make install, the demo) is then loaded instead.
plugdirs=$(sed -n 's/^PluginDir=//p' "$C_DIR/etc/slurm.conf" | tr ':' ' ')
for d in $plugdirs; do
	[ "$d" = "$HS_STAGE" ] || ls "$d"/sched_hetsched.so 2>/dev/null |
		sed 's/$/: another sched\/hetsched in PluginDir, Slurm may load it instead/' | diag
done
check "startup: slurmctld exits (not killed by the timeout)" test "$rc" != 0 -a "$rc" != 124
check "startup: the log says which key is wrong" \
	grep -q 'bad configuration, .*RoundLength=0: expected an integer' "$log"
check "startup: slurmctld says it could not load the scheduler" \
	grep -Eqi 'failed to initialize sched(uling)? plugin' \
	"$log" "$C_DIR/log/ctld-bad.out"
grep -h -E 'sched|fatal' "$log" "$C_DIR/log/ctld-bad.out" | tail -n 5 | diag
[ "$rc" = 124 ] && rm -f "$C_DIR/run/slurmctld.pid"

# 4. Fixed: slurmctld starts again.
echo "RoundLength=30" >"$hconf"
check "fixed: slurmctld starts" sched_cluster_up_again "$C_DIR" "$C_PORT"
check "fixed: the configuration is in force" \
	wait_log "$log" 60 'sched/hetsched: configuration: Policy=[^ ]* RoundLength=30'
it_done
