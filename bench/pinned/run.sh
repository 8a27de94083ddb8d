#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/pinned/run.sh — a mixed queue where half the jobs cannot be
# preempted, in the simulator: the same generated workload and seed run
# (a) all preemptible, (b) half pinned with the old admission (always),
# (c) half pinned with PinnedAdmission=share. Prints one line per run and
# the ratios against (a). Usage (from the build directory):
#   ../bench/pinned/run.sh [SEED] [JOBS] [RATE]
set -eu
seed=${1:-3}; jobs=${2:-60}; rate=${3:-6}
hs=./hetsched
tab=${HS_GAVEL_DATA:-$(dirname "$0")/../../data/gavel}/simulation_throughputs.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for m in "0 share all_preemptible" "0.5 always old_pinned" "0.5 share share_pinned"; do
	set -- $m
	"$hs" simulate --policy max_min_fairness_perf --throughputs "$tab" \
		--cluster v100:4,p100:4,k80:4 --generate --rate "$rate" --jobs "$jobs" \
		--seed "$seed" --pinned-fraction "$1" --pinned-admission "$2" --quiet \
		>"$out/$3.json"
done
python3 - "$out" <<'PY'
import json, sys, os
d = {n: json.load(open(os.path.join(sys.argv[1], n + ".json")))
     for n in ("all_preemptible", "old_pinned", "share_pinned")}
base = d["all_preemptible"]
print("%-16s %10s %8s %8s %8s %6s %10s %10s %10s %10s" % ("run", "avg_jct_s", "rho_mean",
      "rho_max", "rho>1", "util", "jct_pin", "jct_pre", "rho_pin", "rho_pre"))
for n, r in d.items():
    f = r["ftf_rho"]
    print("%-16s %10.0f %8.3f %8.3f %8.3f %6.3f %10s %10s %10s %10s" % (
        n, r["avg_jct_s"], f["mean"], f["max"], f["frac_above_1"], r["utilization"],
        "%.0f" % r["pinned"]["avg_jct_s"] if r["pinned"]["jobs"] else "-",
        "%.0f" % r["preemptible"]["avg_jct_s"],
        "%.3f" % r["pinned"]["ftf_rho_mean"] if r["pinned"]["jobs"] else "-",
        "%.3f" % r["preemptible"]["ftf_rho_mean"]))
    assert r["pinned"]["preemptions_migrations"] == 0, n + ": a pinned job was preempted"
for n in ("old_pinned", "share_pinned"):
    r = d[n]
    print("%s / all_preemptible: avg JCT %.3f, mean rho %.3f, utilization %.3f" % (
        n, r["avg_jct_s"] / base["avg_jct_s"], r["ftf_rho"]["mean"] / base["ftf_rho"]["mean"],
        r["utilization"] / base["utilization"]))
PY
