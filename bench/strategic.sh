#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# strategic.sh — does any strategy pay? (issue 28, "A strategic-user
# suite"; doc/strategic.md). `hetsched simulate` under the plugin's
# defaults (no --policy: max_min_fairness_water_filling_perf, Fairness=
# tree), Gavel's table, v100:2,p100:2,k80:2, 100 generated jobs arriving
# at once, two users of equal Shares in two accounts, alice@a and bob@b,
# each submitting every second job. For each seed, one of them plays a
# strategy (simulate --strategy, src/sim/strategy.h), the other is
# honest, same seed; then the roles swap (so each user's jobs are once
# the strategist's). Per run, for the strategic user X and the honest
# user Y:
#   GPU time  GPU-seconds received in the first quarter of the seed's
#             honest run's makespan (--max-time: both users still have
#             work pending, so it is the share each gets)
#   JCT       mean JCT of the user's submissions (a split array counts
#             once: arrival to its last task's end), whole run
# A ratio is X's over Y's. Every run is paired with the honest run of the
# same seed (both users honest: X's jobs are the same jobs), so the table
# gives the geometric mean over seeds and roles of
#   (X/Y in the strategy's run) / (X/Y in the honest run)
# with its smallest and largest value; with the roles swapped this mean
# equals the plain mean of X/Y. "other" is the honest user's own GPU time
# and JCT against the honest run (what the strategy costs bystanders).
# Control rows: honest (1 by construction) and round+1s, the honest run
# with RoundLength one second longer: a change nobody gains from that
# still moves every round (the simulation is deterministic: this is its
# noise, what a strategy's effect must exceed). Verdict: pays when the GPU-time
# ratio is above 1.05 or the JCT ratio below 0.95, hurts the strategist
# when the reverse, else within the 5% band.
#
# Usage: bench/strategic.sh [--seeds "0 1 2"] [--jobs N] [--hetsched PATH]
#                           [--strategies "no-preempt split=8 ..."]
#                           [--conf KEY=VALUE]... (e.g. Policy=max_sum_throughput_perf)
#                           [--cluster SPEC] [--gpus-per-server N]
# --cluster and --gpus-per-server change the simulated cluster (default
# v100:2,p100:2,k80:2, one GPU per server), e.g. v100:4,p100:4,k80:4 with
# 2 GPUs per server: time-slice pairs on multi-GPU nodes.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hs=$top/_build/hetsched seeds="0 1 2" jobs=100 confs="" cluster=v100:2,p100:2,k80:2 gps=1
strategies="no-preempt split=8 ratio-slow=10 ratio-fast=10 fake-model=max fake-model=min
            inflate-steps=10 inflate-steps=0.1 odd-shape no-requeue drop-requeue"
while [ $# -gt 0 ]; do
	case "$1" in
	--seeds) seeds=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--hetsched) hs=$2; shift ;;
	--strategies) strategies=$2; shift ;;
	--conf) confs="$confs $2"; shift ;;
	--cluster) cluster=$2; shift ;;
	--gpus-per-server) gps=$2; shift ;;
	-h|--help) sed -n '3,39p' "$0"; exit 0 ;;
	*) echo "strategic.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$hs" ] || { echo "strategic.sh: no hetsched at $hs (build first, or --hetsched)" >&2; exit 1; }
table=${HS_GAVEL_DATA:-$top/data/gavel}/simulation_throughputs.json
[ -r "$table" ] || { echo "strategic.sh: no throughput table at $table" >&2; exit 1; }
exec python3 - "$hs" "$table" "$jobs" "$seeds" "$strategies" "$confs" "$cluster" "$gps" <<'PY'
import json, math, subprocess, sys

hs, table, jobs, seeds, strategies, confs, cluster, gps = sys.argv[1:9]
seeds = [int(s) for s in seeds.split()]
strategies = strategies.split()
confs = [c for c in confs.split() if c]
users = {"alice": "alice@a", "bob": "bob@b"}
BAND = 0.05


def run(seed, extra, max_time=None):
    """One simulation; the summary's users and simulated time."""
    cmd = [hs, "simulate", "--throughputs", table, "--cluster", cluster, "--gpus-per-server", gps,
           "--quiet", "--generate", "--jobs", jobs, "--rate", "0", "--seed", str(seed),
           "--users", "alice@a:0.5,bob@b:0.5"]
    for c in confs:
        cmd += ["--conf", c]
    cmd += extra
    if max_time is not None:
        cmd += ["--max-time", "%.0f" % max_time]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # exit 3: stopped by --max-time, the summary is still written
    if p.returncode not in (0, 3) or (max_time is None and p.returncode != 0):
        sys.exit("strategic.sh: %s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                      p.stderr.strip()))
    s = json.loads(p.stdout)
    return s["users"], s["simulated_s"], s["config"]["round_s"]


def metrics(seed, extra, horizon):
    """Per user: GPU-seconds up to the horizon, mean JCT of submissions."""
    full = run(seed, extra)[0]
    part = run(seed, extra, horizon)[0]
    out = {}
    for u, key in users.items():
        if full[key]["jobs_completed"] != full[key]["jobs"]:
            sys.exit("strategic.sh: seed %d %s: %s finished %d of %d jobs" % (
                seed, " ".join(extra), key, full[key]["jobs_completed"], full[key]["jobs"]))
        out[u] = (part[key]["gpu_s"], full[key]["avg_work_jct_s"])
    return out


def ratio(a, b):
    """a / b, where nothing over nothing is 1 and something over nothing
    is infinite (a user that got no GPU time at all in the horizon)."""
    if b == 0:
        return 1.0 if a == 0 else math.inf
    return a / b


def gmean(xs):
    if 0 in xs:
        return math.nan if math.inf in xs else 0.0
    if math.inf in xs:
        return math.inf
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


rows = {}   # name -> list of (gpu ratio, jct ratio, other gpu, other jct)
order = ["honest", "round+1s"] + strategies
for name in order:
    rows[name] = []
for seed in seeds:
    _, makespan, round_s = run(seed, [])
    horizon = 0.25 * makespan
    base = metrics(seed, [], horizon)
    # a change with no strategic meaning that still moves every round
    noise = metrics(seed, ["--conf", "RoundLength=%.0f" % (round_s + 1)], horizon)
    for x, y in (("bob", "alice"), ("alice", "bob")):
        def paired(m):
            g = ratio(ratio(m[x][0], m[y][0]), ratio(base[x][0], base[y][0]))
            j = ratio(ratio(m[x][1], m[y][1]), ratio(base[x][1], base[y][1]))
            return (g, j, ratio(m[y][0], base[y][0]), ratio(m[y][1], base[y][1]))
        rows["honest"].append(paired(base))
        rows["round+1s"].append(paired(noise))
        for st in strategies:
            rows[st].append(paired(metrics(seed, ["--strategy", "%s:%s" % (x, st)], horizon)))


def verdict(g, j):
    if g > 1 + BAND or j < 1 - BAND:
        return "**pays**"
    if g < 1 - BAND or j > 1 + BAND:
        return "hurts the strategist"
    return "within 5%"


print("seeds %s, %s jobs, roles swapped; ratios: strategist / honest user, paired with the "
      "honest run (geometric mean [min, max])" % (" ".join(map(str, seeds)), jobs))
print("cluster: %s, %s GPU(s) per server" % (cluster, gps))
if confs:
    print("configuration: " + " ".join(confs))
print()
print("| strategy | GPU time ratio | JCT ratio | other's GPU time | other's JCT | verdict |")
print("|---|---|---|---|---|---|")
for name in order:
    r = rows[name]
    cols = []
    for k in range(4):
        v = [t[k] for t in r]
        cols.append("%.3f [%.2f, %.2f]" % (gmean(v), min(v), max(v)))
    g, j = gmean([t[0] for t in r]), gmean([t[1] for t in r])
    v = "control" if name in ("honest", "round+1s") else verdict(g, j)
    print("| %s | %s | %s | %s | %s | %s |" % (name, cols[0], cols[1], cols[2], cols[3], v))
PY
