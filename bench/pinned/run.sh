#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/pinned/run.sh — jobs that cannot be preempted (pinned) next to
# preemptible ones, in the simulator, under the plugin's defaults (no
# --policy: what an unconfigured site runs). For each seed, the same
# generated workload:
#   one user, half the jobs pinned (every second job):
#     all_preemptible   no job pinned (the reference)
#     old_always        PinnedAdmission=always, PinnedCharge=no (the
#                       defaults before issue 28/29)
#     defaults          the defaults (PinnedAdmission=share, PinnedCharge=yes)
#   two users of one account, equal Shares, alice's jobs all preemptible,
#   bob's all pinned (--users alice@lab:0.5,bob@lab:0.5 spreads the jobs
#   alternately, --pinned-fraction 0.5 pins every second one: bob's):
#     u_all_preemptible no job pinned
#     u_old_always      PinnedAdmission=always, PinnedCharge=no
#     u_always_charge   PinnedAdmission=always, PinnedCharge=yes
#     u_share_nocharge  PinnedAdmission=share, PinnedCharge=no
#     u_defaults        the defaults
# Prints one line per run (mean finish-time ratio rho of the pinned and
# preemptible jobs, their ratio, per-user GPU-seconds and received over
# entitled GPU time), then whether issue 28's "Done when" holds under the
# defaults: pinned jobs' mean rho >= the preemptible jobs' (one user) and
# bob's >= alice's (two users). Checks that no pinned job was ever
# preempted. Usage (from the build directory):
#   ../bench/pinned/run.sh [SEEDS] [JOBS] [RATE]     SEEDS: e.g. 0,1,2
set -eu
seeds=${1:-0,1,2,3,7}; jobs=${2:-60}; rate=${3:-6}
hs=./hetsched
tab=${HS_GAVEL_DATA:-$(dirname "$0")/../../data/gavel}/simulation_throughputs.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
users="--users alice@lab:0.5,bob@lab:0.5"
for seed in $(echo "$seeds" | tr , ' '); do
	while read -r name frac adm charge u; do
		# shellcheck disable=SC2086 # $u: no option or the --users pair
		"$hs" simulate --throughputs "$tab" --cluster v100:4,p100:4,k80:4 --generate \
			--rate "$rate" --jobs "$jobs" --seed "$seed" --pinned-fraction "$frac" \
			--pinned-admission "$adm" --conf "PinnedCharge=$charge" ${u:+$users} --quiet \
			>"$out/$seed.$name.json"
	done <<EOF
all_preemptible 0 share yes
old_always 0.5 always no
defaults 0.5 share yes
u_all_preemptible 0 share yes u
u_old_always 0.5 always no u
u_always_charge 0.5 always yes u
u_share_nocharge 0.5 share no u
u_defaults 0.5 share yes u
EOF
done
python3 - "$out" "$seeds" <<'PY'
import json, os, sys
out, seeds = sys.argv[1], sys.argv[2].split(",")
runs = ("all_preemptible", "old_always", "defaults", "u_all_preemptible", "u_old_always",
        "u_always_charge", "u_share_nocharge", "u_defaults")
hdr = ("seed", "run", "avg_jct/ref", "rho_mean", "rho_pin", "rho_pre", "pin/pre",
       "alice_gpu_s", "bob_gpu_s", "alice_r/e", "bob_r/e")
print("| " + " | ".join(hdr) + " |")
print("|" + "---|" * len(hdr))
verdict = []
agg = {}  # run -> column -> values over the seeds
f3 = lambda v: "%.3f" % v if v is not None else "-"
for seed in seeds:
    d = {n: json.load(open(os.path.join(out, "%s.%s.json" % (seed, n)))) for n in runs}
    for n in runs:
        r = d[n]
        ref = d["u_all_preemptible" if n.startswith("u_") else "all_preemptible"]
        assert r["pinned"]["preemptions_migrations"] == 0, "%s %s: a pinned job was preempted" % (seed, n)
        pin = r["pinned"]["ftf_rho_mean"] if r["pinned"]["jobs"] else None
        pre = r["preemptible"]["ftf_rho_mean"]
        u = r.get("users") or {}
        a, b = u.get("alice@lab"), u.get("bob@lab")
        if n.startswith("u_") and pin is not None:
            # bob is the pinned user, alice the preemptible one
            assert abs(b["ftf_rho_mean"] - pin) < 1e-9 and b["jobs"] == r["pinned"]["jobs"], n
            assert abs(a["ftf_rho_mean"] - pre) < 1e-9 and a["jobs"] == r["preemptible"]["jobs"], n
        cols = (r["avg_jct_s"] / ref["avg_jct_s"], pin, pre, pin / pre if pin is not None else None,
                a["received_over_entitled"] if a else None, b["received_over_entitled"] if b else None)
        for i, v in enumerate(cols):
            agg.setdefault(n, [[] for _ in cols])[i].append(v)
        print("| %s | %s | %.3f | %.3f | %s | %.3f | %s | %s | %s | %s | %s |" % (
            seed, n, r["avg_jct_s"] / ref["avg_jct_s"], r["ftf_rho"]["mean"], f3(pin), pre,
            f3(pin / pre) if pin is not None else "-",
            "%.0f" % a["gpu_s"] if a else "-", "%.0f" % b["gpu_s"] if b else "-",
            f3(a["received_over_entitled"]) if a else "-",
            f3(b["received_over_entitled"]) if b else "-"))
    for n in ("defaults", "u_defaults"):
        r = d[n]
        verdict.append((seed, n, r["pinned"]["ftf_rho_mean"], r["preemptible"]["ftf_rho_mean"]))
print()
print("mean over seeds %s:" % ",".join(seeds))
print("| run | avg_jct/ref | rho_pin | rho_pre | pin/pre | alice_r/e | bob_r/e |")
print("|---|---|---|---|---|---|---|")
mean = lambda v: sum(v) / len(v) if v and None not in v else None
for n in runs:
    print("| %s | %s |" % (n, " | ".join(f3(mean(v)) for v in agg[n])))
print()
ok = all(p >= q for _, _, p, q in verdict)
for seed, n, p, q in verdict:
    print("seed %s %s: pinned mean rho %.3f %s preemptible %.3f" % (seed, n, p, ">=" if p >= q else "<", q))
print("issue 28 'Done when' (pinned mean rho >= preemptible, defaults): %s" % ("holds" if ok else "FAILS"))
PY
