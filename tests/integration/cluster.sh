#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cluster.sh — contrib/cluster/hs-cluster end to end: up, status, up twice,
# recovery after a crash (daemons killed, stale pid files and sockets), stop
# and up keeping accounting, two clusters side by side, a port clash refused,
# and down leaving no process, port or file behind. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
it_begin "hs-cluster up/status/down, up twice, after a crash, two clusters"

it_cluster_up a --gpus v100:1:2,k80:2:1 || bail "cluster a did not come up"
check "up: status is healthy" quiet "$HS_CLUSTER" status --dir "$A_DIR"
check "env snippet names slurm.conf" grep -qx "export SLURM_CONF=$A_DIR/etc/slurm.conf" "$A_DIR/env"
check "slurmctld answers on the port base" sh -c "scontrol ping | grep -q UP && scontrol show config | grep -Eq '^SlurmctldPort += $A_PORT\$'"
nodes=$(sinfo -h -N -o '%N %G %T' | sort)
check "three nodes with their GPU types, idle" test "$nodes" = "k80-1 gpu:k80:1 idle
k80-2 gpu:k80:1 idle
v100-1 gpu:v100:2 idle"
paths=$(scontrol show config | awk '$1 ~ /^(StateSaveLocation|SlurmdSpoolDir|SlurmctldPidFile|SlurmdPidFile|SlurmctldLogFile|SlurmdLogFile|PlugStackConfig|TmpFS)$/ { print $3 }')
check "all state, logs and pid files live in the cluster dir" \
	test "$(echo "$paths" | grep -c "^$A_DIR/")" -eq 8

j1=$(sbatch --parsable -o /dev/null --gres=gpu:v100:1 --wrap true)
check "a job before the crash completes" it_wait_jobs 60 "$j1"

pids_before=$(cat "$A_DIR"/run/*.pid | sort | tr '\n' ' ')
"$HS_CLUSTER" up -q --dir "$A_DIR" --port-base "$A_PORT" --gpus v100:1:2,k80:2:1 >/dev/null 2>&1
check "up twice: succeeds" test $? -eq 0
pids_after=$(cat "$A_DIR"/run/*.pid | sort | tr '\n' ' ')
check "up twice: same daemons, nothing restarted" test "$pids_before" = "$pids_after"

# Crash: SIGKILL every daemon; pid files and sockets stay behind.
for f in "$A_DIR"/run/*.pid; do kill -KILL "$(cat "$f")" 2>/dev/null; done
sleep 1
"$HS_CLUSTER" status --dir "$A_DIR" >/dev/null 2>&1
check "after a crash: status reports unhealthy" test $? -ne 0
"$HS_CLUSTER" up -q --dir "$A_DIR" --port-base "$A_PORT" --gpus v100:1:2,k80:2:1 >"$A_DIR/up2.out" 2>&1
check "after a crash: up succeeds" test $? -eq 0 || diag <"$A_DIR/up2.out"
check "after a crash: status is healthy" quiet "$HS_CLUSTER" status --dir "$A_DIR"
check "after a crash: accounting kept the earlier job" sh -c "sacct -n -X -P -o JobID,State -j $j1 | grep -qx '$j1|COMPLETED'"

"$HS_CLUSTER" stop -q --dir "$A_DIR"
check "stop: no daemon of the cluster left" test -z "$(it_procs_of "$A_DIR")"
"$HS_CLUSTER" up -q --dir "$A_DIR" --port-base "$A_PORT" --gpus v100:1:2,k80:2:1 >/dev/null 2>&1
check "stop then up: healthy again" quiet "$HS_CLUSTER" status --dir "$A_DIR"

# A second cluster beside the first: its own munge, database and ports.
it_cluster_up b --gpus p100:2:2 || bail "cluster b did not come up"
check "two clusters: both healthy" sh -c "'$HS_CLUSTER' status --dir '$A_DIR' >/dev/null && '$HS_CLUSTER' status --dir '$B_DIR' >/dev/null"
check "two clusters: separate munge sockets" test "$(grep -h '^AuthInfo' "$A_DIR/etc/slurm.conf")" != "$(grep -h '^AuthInfo' "$B_DIR/etc/slurm.conf")"
it_use b
jb=$(sbatch --parsable -o /dev/null --gres=gpu:p100:1 --wrap true)
check "two clusters: a job on b completes" it_wait_jobs 60 "$jb"
it_use a
check "two clusters: a does not see b's nodes" sh -c "! sinfo -h -N -o %N | grep -q p100"
check "two clusters: a's accounting does not see b's job" sh -c "! sacct -n -X -P -o JobID,NodeList -j $jb | grep -q p100"

# The same port base with another directory must be refused, not collide.
clash=$(mktemp -d /tmp/hs-it-clash.XXXXXX)
"$HS_CLUSTER" up -q --dir "$clash" --port-base "$A_PORT" >"$clash.out" 2>&1
rc=$?
check "a port clash is refused" test $rc -ne 0
check "the refusal names the port" grep -q "port .* is in use" "$clash.out"
"$HS_CLUSTER" down -q --dir "$clash" >/dev/null 2>&1
rm -rf "$clash" "$clash.out"
check "the refused cluster did not harm a" quiet "$HS_CLUSTER" status --dir "$A_DIR"

# A directory hs-cluster did not make is never removed.
foreign=$(mktemp -d /tmp/hs-it-foreign.XXXXXX)
touch "$foreign/keep"
"$HS_CLUSTER" down -q --dir "$foreign" >/dev/null 2>&1
check "down refuses a directory it did not create" test -f "$foreign/keep"
rm -rf "$foreign"

# Down with a job still running: everything goes.
jr=$(sbatch --parsable -o /dev/null --gres=gpu:k80:1 --wrap 'sleep 600')
sleep 2
"$HS_CLUSTER" down -q --dir "$A_DIR"
check "down: exits 0" test $? -eq 0
check "down: directory removed" test ! -e "$A_DIR"
check "down: no process of the cluster left (daemons, stepd, job $jr)" test -z "$(it_procs_of "$A_DIR")"
check "down: slurmctld port free again" test -z "$(ss -Hltn "sport = :$A_PORT")"
check "down: b is still healthy" quiet "$HS_CLUSTER" status --dir "$B_DIR"
"$HS_CLUSTER" down -q --dir "$A_DIR" >/dev/null 2>&1
check "down twice: exits 0" test $? -eq 0
check "down: no lock file left beside the directory" test ! -e "$(dirname "$A_DIR")/.$(basename "$A_DIR").hs-cluster.lock"

# Past 90 nodes: free-ports sizes the block, up refuses a
# cluster whose node ports would reach the ephemeral range. Neither
# starts a daemon (a 128-node cluster takes minutes: bench/scale.sh).
big=$("$HS_CLUSTER" free-ports --nodes 128 --port-base 32000)
check "free-ports --nodes 128: a base with 200 ports below 32768" \
	sh -c "[ -n '$big' ] && [ '$big' -ge 32000 ] && [ \$(($big + 199)) -le 32767 ]"
check "free-ports --nodes 1000 finds no block from 32000" sh -c "! '$HS_CLUSTER' free-ports --nodes 1000 --port-base 32000 2>/dev/null"
toobig=$(mktemp -u /tmp/hs-it-toobig.XXXXXX)
"$HS_CLUSTER" up -q --dir "$toobig" --port-base 32600 --gpus v100:100:1,k80:100:1 >"$toobig.out" 2>&1
check "200 nodes from port 32600 are refused" test $? -ne 0
check "the refusal says why" grep -q "past 32767" "$toobig.out"
check "the refused big cluster left no directory" test ! -e "$toobig"
rm -f "$toobig.out"
it_done
