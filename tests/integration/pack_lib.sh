# SPDX-License-Identifier: GPL-2.0-or-later
# pack_lib.sh — helpers shared by the space-sharing integration tests
# (pack_*.sh; sourced after lib.sh). Jobs are packed through the interface
# of plugins/select/hetsched/hs_pack.h by the test-only sched/hs_packtest
# plugin (tests/integration/packtest): a pending job whose comment is
# "hs-pack-onto=<jobid>" is started on that job's GPUs.
# shellcheck shell=bash

HS_PACKTEST_DIR=$HS_BUILDDIR/tests/integration/packtest/.libs
HS_EMU=$HS_BUILDDIR/hetsched-emulator
HS_GAVEL=${HS_GAVEL_DATA:-$HS_SRCDIR/data/gavel}
HS_TABLE=$HS_GAVEL/simulation_throughputs.json

# pack_cluster NAME [hs-cluster options]: a cluster with our select plugin
# and the packing test driver; jobs are not requeued unless a test asks.
pack_cluster() {
	local name=$1
	shift
	[ -f "$HS_PACKTEST_DIR/sched_hs_packtest.so" ] ||
		bail "no $HS_PACKTEST_DIR/sched_hs_packtest.so (built by make check)"
	it_cluster_up "$name" --plugin-dir "$HS_STAGE" --plugin-dir "$HS_PACKTEST_DIR" \
		--sched hs_packtest --select hetsched_cons_tres --cpus 4 \
		--conf-extra "AuthInfo=cred_expire=5" "$@"
}

# ctld_log: slurmctld's log of the current cluster.
ctld_log() { cat "$(dirname "$SLURM_CONF")/../log/slurmctld.log"; }

# sub [sbatch options] -- CMD...: submit a batch job running CMD, print
# its id. Output goes to the cluster's tmp/<jobid>.out.
sub() {
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	sbatch --parsable -o "$(dirname "$SLURM_CONF")/../tmp/%j.out" "${opts[@]}" --wrap "$*"
}
outfile() { echo "$(dirname "$SLURM_CONF")/../tmp/$1.out"; }

# state JOBID: the job's state (squeue while known to slurmctld, else sacct).
state() {
	local s
	s=$(squeue -h -j "$1" -o %T 2>/dev/null)
	[ -n "$s" ] || s=$(sacct -n -X -P -j "$1" -o State 2>/dev/null | tail -n1 | awk '{print $1}')
	echo "$s"
}
# wait_state SECS JOBID STATE: wait until the job is in STATE.
wait_state() {
	local end=$(($(date +%s) + $1))
	until [ "$(state "$2")" = "$3" ]; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}
# wait_gone SECS JOBID...: wait until slurmctld no longer runs them.
wait_gone() {
	local secs=$1 end j
	shift
	end=$(($(date +%s) + secs))
	for j in "$@"; do
		while squeue -h -j "$j" -t PD,R,CG,S 2>/dev/null | grep -q .; do
			[ "$(date +%s)" -ge "$end" ] && return 1
			sleep 0.5
		done
	done
}
# mark_log: later wait_log calls look only at lines logged from now on.
LOG_MARK=0
mark_log() { LOG_MARK=$(ctld_log | wc -l); }
# wait_log SECS REGEX: wait until slurmctld.log has a line matching the
# extended REGEX (after the last mark_log).
wait_log() {
	local end=$(($(date +%s) + $1))
	until ctld_log | tail -n +"$((LOG_MARK + 1))" | grep -Eq "$2"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}
# wait_log_file SECS FILE STRING: wait until FILE has the fixed STRING.
wait_log_file() {
	local end=$(($(date +%s) + $1))
	until grep -Fq "$3" "$2" 2>/dev/null; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}

# job_gres JOBID: the job's GPUs as scontrol -d shows them, e.g.
# "v100-1:gpu:v100:1(IDX:0)" (one word per node).
job_gres() {
	scontrol show job -d "$1" 2>/dev/null |
		sed -n 's/^ *Nodes=\([^ ]*\) .*GRES=\([^ ]*\).*/\1:\2/p' | paste -sd' ' -
}
# node_used NODE: the node's GresUsed, e.g. "gpu:v100:1(IDX:0)".
node_used() { scontrol show node -d "$1" | sed -n 's/^ *GresUsed=//p'; }
# node_state NODE: e.g. "IDLE", "MIXED", "DOWN+DRAIN".
node_state() { scontrol show node "$1" | sed -n 's/^ *State=\([^ ]*\).*/\1/p'; }
# cvd JOBID: CUDA_VISIBLE_DEVICES the job printed as "cvd=..." first.
cvd() { sed -n 's/^cvd=//p' "$(outfile "$1")" 2>/dev/null | head -n1; }

# gres_errors: slurmctld.log lines showing inconsistent GPU bookkeeping.
gres_errors() {
	ctld_log | grep -Ei 'underflow|overallocated|bitmap overlap|node_state mis-count|gres.*count.*(too low|mismatch)' || true
}

# overlap JOB1 JOB2: their sacct runtimes overlap (on the same node).
overlap() {
	python3 - "$1" "$2" <<'EOF'
import subprocess, sys, datetime
def row(j):
    out = subprocess.run(["sacct", "-n", "-X", "-P", "-j", j, "-o", "Start,End,NodeList"],
                         capture_output=True, text=True).stdout.strip().splitlines()[-1]
    s, e, n = out.split("|")
    p = lambda t: datetime.datetime.fromisoformat(t).timestamp()
    return p(s), p(e), n
(s1, e1, n1), (s2, e2, n2) = row(sys.argv[1]), row(sys.argv[2])
print("# %s %s..%s on %s; %s %s..%s on %s" % (sys.argv[1], s1, e1, n1, sys.argv[2], s2, e2, n2))
sys.exit(0 if (n1 == n2 and s1 < e2 and s2 < e1) else 1)
EOF
}

# table_pair MODEL PARTNER GPU: steps/s of (MODEL, 1) when sharing GPU
# type GPU with (PARTNER, 1), from the Gavel table.
table_pair() {
	python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))[sys.argv[4]]
print(t["(%r, 1)" % sys.argv[2]]["(%r, 1)" % sys.argv[3]][0])' "$HS_TABLE" "$1" "$2" "$3"
}
# within VALUE EXPECTED TOL: |VALUE - EXPECTED| <= TOL * EXPECTED.
within() {
	python3 -c 'import sys; v, e, t = map(float, sys.argv[1:]); sys.exit(abs(v - e) > t * e)' "$1" "$2" "$3"
}
