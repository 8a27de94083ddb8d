#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pack_e2e.sh — space sharing end to end: does the average-JCT
# gain the simulator predicts for a packed policy over its unpacked
# counterpart show on a real local Slurm cluster?
#
# One command, one workload, four runs:
#   1. `hetsched simulate` with the unpacked and the packed policy (same
#      cluster shape, round length, restart cost and reset rule as the
#      cluster, in trace seconds = wall seconds x time scale): the
#      predicted ratio  avg JCT(packed) / avg JCT(unpacked);
#   2. a private hs-cluster (sched/hetsched + select/hetsched_cons_tres +
#      spank_hetsched), the same trace replayed with hetsched-trace-play
#      (emulated jobs, time-scaled) under the unpacked policy, then on a
#      fresh cluster under the packed policy; JCTs from sacct: the measured
#      ratio.
# Prints both ratios and their relative difference
# |measured - predicted| / predicted, and exits 0 only when packing paid
# on the cluster (measured ratio < 1) and the difference is within the
# tolerance (--tolerance, default 0.20; doc/packing.md says why).
#
# Usage (root, from a built tree; the plugins come from _build/stage):
#   bench/pack/pack_e2e.sh [--quick] [--workload FILE] [--scale F]
#       [--round S] [--preempt-cost S] [--tolerance T]
#       [--policy PACKED] [--out DIR]
#   --quick          the small workload that tests/integration/pack_e2e.sh
#                    runs (4 jobs, about 3 minutes in all; the default
#                    one, 6 jobs, takes about 6)
#   --workload FILE  lines "model<TAB>seconds alone on a v100<TAB>arrival s"
#                    (trace seconds; default bench/pack/pack_e2e.workload)
#   --scale F        trace seconds per wall second (default 20)
#   --round S        round length, wall seconds (default 10)
#   --preempt-cost S checkpoint + restart cost (PreemptCost), wall s (default 2.5)
#   --policy P       the packed policy (default max_min_fairness_packed);
#                    its unpacked counterpart is P without "_packed"
#   --out DIR        results (default bench/out/pack_e2e/<date>)
# Environment: HS_BUILDDIR (default <top>/_build), HS_GAVEL_DATA,
# HS_BENCH_PORT_BASE (default: the first free block from 27000).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${HS_BUILDDIR:-$top/_build}
workload=$top/bench/pack/pack_e2e.workload
scale=20 round=10 pcost=2.5 tol=0.20 policy=max_min_fairness_packed out=
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) workload=$top/bench/pack/pack_e2e_quick.workload ;;
	--workload) workload=$2; shift ;;
	--scale) scale=$2; shift ;;
	--round) round=$2; shift ;;
	--preempt-cost) pcost=$2; shift ;;
	--tolerance) tol=$2; shift ;;
	--policy) policy=$2; shift ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '3,39p' "$0"; exit 0 ;;
	*) echo "pack_e2e.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
say() { echo "pack_e2e: $*" >&2; }
die() { say "error: $*"; exit 2; }
[ "$(id -u)" = 0 ] || die "run as root (it runs Slurm daemons)"
case "$policy" in *_packed) ;; *) die "--policy must be a *_packed policy" ;; esac
unpacked=${policy%_packed}
stage=$B/stage/plugins
[ -x "$B/hetsched" ] && [ -x "$B/hetsched-trace-play" ] && [ -x "$B/hetsched-emulator" ] &&
	[ -f "$stage/select_hetsched_cons_tres.so" ] || die "build first (no programs or plugins in $B)"
gavel=${HS_GAVEL_DATA:-$top/data/gavel}
table=$gavel/simulation_throughputs.json
[ -r "$table" ] || die "no throughput table at $table (set HS_GAVEL_DATA)"
[ -r "$workload" ] || die "no workload file $workload"
[ -n "$out" ] || out=$top/bench/out/pack_e2e/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || die "cannot create $out"
# The cluster: one node with two V100s (the simulator: one server of 2).
gpus=v100:1:2 sim_cluster=v100:2 gps=2

# The trace: total steps = seconds alone on a v100 x the table's v100
# throughput; everything else as in Gavel's traces.
python3 - "$table" "$workload" >"$out/workload.trace" <<'PY' || die "bad workload $workload"
import json, sys
t = json.load(open(sys.argv[1]))["v100"]
for n, line in enumerate(open(sys.argv[2]), 1):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    model, secs, arr = line.split("\t")
    thr = t["('%s', 1)" % model]["null"]
    print("\t".join([model, "python3 train.py", "emulated", "--num_steps", "0",
                     str(int(float(secs) * thr)), "1", "1", "-1.000000", str(int(float(arr)))]))
PY
njobs=$(wc -l <"$out/workload.trace")
# Every job one after the other on one GPU, in wall seconds: the runs'
# time limit is three times that plus two minutes.
serial_s=$(awk -F'\t' '!/^#/ && NF == 3 { s += $2 } END { printf "%d", s }' "$workload")
say "$njobs jobs ($workload), time scale $scale, rounds of ${round} s (${round}x$scale trace s), restart cost ${pcost} s"
say "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "load_before $(cut -d' ' -f1-3 /proc/loadavg)" >"$out/load.txt"

# 1. The simulator's prediction, in trace seconds. --reset-interval 0:
# the plugin recomputes the allocation whenever the job set changes
# (MinResetInterval=0, its default).
simulate() {
	"$B/hetsched" simulate --quiet --policy "$1" --throughputs "$table" \
		--cluster "$sim_cluster" --gpus-per-server $gps --trace "$out/workload.trace" \
		--round $((round * scale)) --preempt-cost "$(awk -v c="$pcost" -v f="$scale" 'BEGIN { print c * f }')" \
		--reset-interval 0 \
		--csv "$out/sim-$1.csv" >"$out/sim-$1.json"
}
for p in "$unpacked" "$policy"; do
	simulate "$p" || die "hetsched simulate --policy $p failed"
done

port_block() { "$top/contrib/cluster/hs-cluster" free-ports --port-base "${HS_BENCH_PORT_BASE:-27000}"; }

cur_dir=
cleanup() { [ -n "$cur_dir" ] && "$top/contrib/cluster/hs-cluster" down -q --dir "$cur_dir" >/dev/null 2>&1; }
trap cleanup EXIT

# 2. run POLICY: the trace on a fresh cluster; results in $out/POLICY/.
run() {
	local p=$1 dir base t0 rc
	dir=$(mktemp -d /tmp/hs-pack-e2e.XXXXXX) && cur_dir=$dir
	base=$(port_block) || { say "no free ports"; return 1; }
	mkdir -p "$out/$p"
	say "$p: cluster in $dir (ports $base..)"
	"$top/contrib/cluster/hs-cluster" up -q --dir "$dir" --port-base "$base" --gpus "$gpus" \
		--plugin-dir "$stage" --sched hetsched --select hetsched_cons_tres \
		--plugstack "required $stage/spank_hetsched.so publish_interval=2 window=1 ckpt_hold=60" \
		--conf-extra 'SchedulerParameters=defer,sched_interval=-1' --conf-extra JobRequeue=1 \
		--conf-extra "AuthInfo=cred_expire=5" --conf-extra MinJobAge=86400 >/dev/null ||
		{ say "$p: cluster did not come up"; return 1; }
	export SLURM_CONF=$dir/etc/slurm.conf
	# EarlyRounds=no: like the simulator, a GPU freed mid-round waits for
	# the next round (the simulator only ends a round early when all of
	# its jobs finished).
	printf '%s\n' "Policy=$p" "RoundLength=$round" EarlyRounds=no "PreemptCost=$pcost" \
		"ThroughputTable=$table" CheckpointGrace=15 RestartDelay=1 >"$dir/etc/hetsched.conf"
	scontrol reconfigure || { say "$p: scontrol reconfigure failed"; return 1; }
	local end=$(($(date +%s) + 60))
	until grep -q "sched/hetsched: configuration: Policy=$p " "$dir/log/slurmctld.log"; do
		[ "$(date +%s)" -ge "$end" ] && { say "$p: the plugin did not take the configuration"; return 1; }
		sleep 0.5
	done
	# Align the trace with the round grid, as in the simulator, where
	# the first round starts at the first arrival: wait for a round, then
	# start the player so the jobs of time 0 are in the queue 1 s before
	# the next one (otherwise every job would first wait 0..RoundLength s,
	# 5 s on average = 100 trace s at the default scale, for its first
	# round). The workload's later arrivals are multiples of the round.
	local n0 wait_s
	n0=$(grep -c 'sched/hetsched: round [0-9]*:' "$dir/log/slurmctld.log")
	end=$(($(date +%s) + 3 * round + 30))
	while [ "$(grep -c 'sched/hetsched: round [0-9]*:' "$dir/log/slurmctld.log")" -le "$n0" ]; do
		[ "$(date +%s)" -ge "$end" ] && { say "$p: no round logged"; return 1; }
		sleep 0.2
	done
	wait_s=$(python3 - "$dir/log/slurmctld.log" "$round" <<'PY'
import datetime, re, sys, time
last = [l for l in open(sys.argv[1]) if re.search(r"sched/hetsched: round \d+:", l)][-1]
t = datetime.datetime.strptime(last[1:24], "%Y-%m-%dT%H:%M:%S.%f").timestamp()
print("%.3f" % max(0.0, t + float(sys.argv[2]) - 1.0 - time.time()))
PY
)
	sleep "$wait_s"
	t0=$(date +%s)
	"$B/hetsched-trace-play" --table "$table" --time-scale "$scale" --poll 1 \
		--timeout $((120 + 3 * serial_s / scale)) --log-dir "$dir/work" \
		--out "$out/$p/jct.csv" "$out/workload.trace" 2>"$out/$p/play.err"
	rc=$?
	say "$p: played in $(($(date +%s) - t0)) s (exit $rc); $(tail -n 1 "$out/$p/play.err")"
	sacct -D -X -P -n -o JobIDRaw,JobName,State,Submit,Start,End,NodeList,AllocTRES \
		-j "$(tail -n +2 "$out/$p/jct.csv" | cut -d, -f2 | paste -sd,)" >"$out/$p/sacct.txt"
	cp "$dir/log/slurmctld.log" "$out/$p/slurmctld.log"
	mkdir -p "$out/$p/jobs" && cp "$dir/work/"*.out "$out/$p/jobs/" 2>/dev/null
	cp "$dir/spool/slurmctld/hetsched_status.json" "$out/$p/status.json" 2>/dev/null
	"$top/contrib/cluster/hs-cluster" down -q --dir "$dir" >/dev/null 2>&1
	cur_dir=
	return $rc
}
ok=1
run "$unpacked" || ok=0
run "$policy" || ok=0
echo "load_after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# 3. The comparison.
python3 - "$out" "$unpacked" "$policy" "$tol" "$scale" <<'PY' | tee "$out/summary.txt"
import csv, json, sys
out, up, pk, tol, scale = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
def sim(p):
    return json.load(open("%s/sim-%s.json" % (out, p)))
def measured(p):
    rows = list(csv.DictReader(open("%s/%s/jct.csv" % (out, p))))
    done = [r for r in rows if r["state"] == "COMPLETED"]
    if not rows or len(done) != len(rows):
        return None, rows
    return sum(float(r["jct_trace_s"]) for r in done) / len(done), rows
def log_count(p, pat):
    try:
        return sum(pat in l for l in open("%s/%s/slurmctld.log" % (out, p)))
    except OSError:
        return 0
su, sp = sim(up), sim(pk)
pred = sp["avg_jct_s"] / su["avg_jct_s"]
mu, ru = measured(up)
mp, rp = measured(pk)
res = open("%s/result.env" % out, "w")   # key=value, for tests
res.write("predicted=%.6f\nsim_jct_unpacked=%.3f\nsim_jct_packed=%.3f\n" % (
    pred, su["avg_jct_s"], sp["avg_jct_s"]))
res.write("pack_starts_unpacked=%d\npack_starts_packed=%d\n" % (
    log_count(up, "select/hetsched_cons_tres: started JobId="),
    log_count(pk, "select/hetsched_cons_tres: started JobId=")))
print("policy                      sim avg JCT   cluster avg JCT   sim preempt  cluster requeues  pack starts")
for p, s, m, r in ((up, su, mu, ru), (pk, sp, mp, rp)):
    req = sum(int(x["incarnations"]) - 1 for x in r) if r else -1
    print("%-27s %10.0f s  %14s  %11d  %16d  %11d" % (
        p, s["avg_jct_s"], ("%.0f s" % m) if m else "incomplete", s["preemptions"], req,
        log_count(p, "select/hetsched_cons_tres: started JobId=")))
print("predicted ratio (simulator, %s / %s): %.3f" % (pk, up, pred))
if mu is None or mp is None:
    print("measured ratio: not available (some jobs did not complete)")
    sys.exit(1)
meas = mp / mu
diff = abs(meas - pred) / pred
res.write("measured=%.6f\nreldiff=%.6f\ntolerance=%g\njct_unpacked=%.3f\njct_packed=%.3f\n" % (
    meas, diff, tol, mu, mp))
res.close()
print("measured ratio (cluster, sacct JCTs):  %.3f" % meas)
print("relative difference |measured - predicted| / predicted: %.3f (tolerance %.2f)" % (diff, tol))
print("JCTs in trace seconds (wall x %g); sacct resolution 1 wall s" % scale)
ok = meas < 1 and diff <= tol
print("RESULT: %s" % ("packing pays on the cluster, within tolerance of the simulator" if ok else
      "FAIL: " + ("no gain on the cluster" if meas >= 1 else "outside the tolerance")))
sys.exit(0 if ok else 1)
PY
rc=$?
[ $ok = 1 ] || rc=1
say "results in $out"
exit $rc
