#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fairness.sh — fairness between users and accounts under the plugin's
# defaults (issue 29, doc/policies.md "Fair tree"): `hetsched simulate`
# without --policy (max_min_fairness_water_filling_perf, Fairness=tree),
# Gavel's table, v100:2,p100:2,k80:2, 100 jobs all arriving at once, user
# alice submitting 9 in 10 of them and bob 1 in 10, in four settings:
#   users      alice@phys, bob@cs, accounts of equal Shares
#   accounts   the same with account Shares phys:2, cs:1
#   jobs       users, with Fairness=jobs (every job its own entity: the
#              fairness sched/hetsched had before)
#   perf       users, with Policy=max_min_fairness_perf (per job, the old
#              default policy)
# For each seed and setting, per user: jobs, GPU-seconds, share of all
# GPU-seconds, the GPU-seconds its Shares entitle it to given what it asks
# for (src/sim/entitle.c) and received / entitled.
#
# Usage: bench/fairness.sh [--seeds "0 1 2"] [--hetsched PATH]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hs=$top/_build/hetsched seeds="0 1 2 3 4"
while [ $# -gt 0 ]; do
	case "$1" in
	--seeds) seeds=$2; shift ;;
	--hetsched) hs=$2; shift ;;
	-h|--help) sed -n '3,19p' "$0"; exit 0 ;;
	*) echo "fairness.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$hs" ] || { echo "fairness.sh: no hetsched at $hs (build first, or --hetsched)" >&2; exit 1; }
table=${HS_GAVEL_DATA:-$top/data/gavel}/simulation_throughputs.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# row SETTING SEED JSON: one line per user of the summary's "users".
row() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
s = json.load(open(sys.argv[3]))
for name, u in sorted(s["users"].items()):
    print("| %s | %s | %s | %d | %.0f | %.3f | %.0f | %.3f |" % (
        sys.argv[1], sys.argv[2], name, u["jobs"], u["gpu_s"],
        u["gpu_share"], u["gpu_s_entitled"], u["received_over_entitled"]))
PY
}

echo "| setting | seed | user@account | jobs | GPU-s | share | entitled GPU-s | received/entitled |"
echo "|---|---|---|---|---|---|---|---|"
for seed in $seeds; do
	base="--throughputs $table --cluster v100:2,p100:2,k80:2 --quiet --generate --jobs 100
	      --rate 0 --seed $seed --users alice@phys:0.9,bob@cs:0.1"
	# shellcheck disable=SC2086
	{
		"$hs" simulate $base >"$tmp/users"
		"$hs" simulate $base --accounts phys:2,cs:1 >"$tmp/accounts"
		"$hs" simulate $base --conf Fairness=jobs >"$tmp/jobs"
		"$hs" simulate $base --policy max_min_fairness_perf >"$tmp/perf"
	}
	for s in users accounts jobs perf; do
		row "$s" "$seed" "$tmp/$s"
	done
done
