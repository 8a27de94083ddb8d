#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pack_overhead.sh — what select/hetsched_cons_tres costs Slurm compared with
# plain select/cons_tres (the baseline, measured in the same run): two
# private clusters, identical but for SelectType, run the same burst of
# short GPU jobs (submitted held, released at once); the wrapper cluster
# also keeps a packed pair running on one GPU (the baseline one job there),
# so its hooks run with a shared GPU present. Rounds alternate (baseline, wrapper,
# baseline, ...) so machine load drifts hit both alike. Prints per round
# and as the median ratio wrapper / baseline:
#   - makespan: release to the last job COMPLETED (sacct),
#   - slurmctld's main scheduling cycle, mean microseconds (sdiag).
#
# Usage (root, from the build directory after make check):
#   bench/pack/pack_overhead.sh [JOBS (default 120)] [ROUNDS (default 3)]
# Environment: HS_BENCH_PORT_BASE (default 26000; uses base and base+100).
set -u
B=${HS_BUILDDIR:-$(pwd)}
S=${HS_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
jobs=${1:-120} rounds=${2:-3}
port=${HS_BENCH_PORT_BASE:-26000}
H=$S/contrib/cluster/hs-cluster
stage=$B/stage/plugins packtest=$B/tests/integration/packtest/.libs
[ "$(id -u)" = 0 ] || { echo "pack_overhead.sh: needs root (Slurm daemons)" >&2; exit 2; }
[ -f "$stage/select_hetsched_cons_tres.so" ] && [ -f "$packtest/sched_hs_packtest.so" ] ||
	{ echo "pack_overhead.sh: build first (make check builds the test driver)" >&2; exit 2; }

dir_base=$(mktemp -d /tmp/hs-bench-base.XXXXXX) dir_wrap=$(mktemp -d /tmp/hs-bench-wrap.XXXXXX)
cleanup() { "$H" down -q --dir "$dir_base" >/dev/null 2>&1; "$H" down -q --dir "$dir_wrap" >/dev/null 2>&1; }
trap cleanup EXIT
gpus=v100:2:4,k80:2:4
echo "pack_overhead: bringing up two clusters ($gpus) ..." >&2
"$H" up -q --dir "$dir_base" --port-base "$port" --gpus "$gpus" --plugin-dir "$packtest" \
	--sched hs_packtest --select cons_tres >/dev/null ||
	{ echo "baseline cluster did not come up" >&2; exit 1; }
"$H" up -q --dir "$dir_wrap" --port-base $((port + 100)) --gpus "$gpus" --plugin-dir "$stage" \
	--plugin-dir "$packtest" --sched hs_packtest --select hetsched_cons_tres >/dev/null ||
	{ echo "wrapper cluster did not come up" >&2; exit 1; }
base_conf=$dir_base/etc/slurm.conf wrap_conf=$dir_wrap/etc/slurm.conf
# Both run the test driver sched/hs_packtest (on the baseline it finds no
# packing interface and only polls) and leave job starts to Slurm's
# built-in FIFO scheduler, whose cycle sdiag times.

# A packed pair on the wrapper cluster's v100-1 GPU 0, for the whole run.
export SLURM_CONF=$wrap_conf
a=$(sbatch --parsable -o /dev/null -w v100-1 --gres=gpu:1 --wrap 'sleep 100000')
sleep 2
b=$(sbatch --parsable -o /dev/null -w v100-1 --gres=gpu:1 --comment="hs-pack-onto=$a" --wrap 'sleep 100000')
for _ in $(seq 60); do [ "$(squeue -h -j "$b" -o %T)" = RUNNING ] && break; sleep 0.5; done
[ "$(squeue -h -j "$b" -o %T)" = RUNNING ] || { echo "the pair was not packed" >&2; exit 1; }
pinned="$a $b"
# The baseline keeps one job on its v100-1 GPU 0 likewise (same free GPUs).
SLURM_CONF=$base_conf sbatch -Q -o /dev/null -w v100-1 --gres=gpu:1 --wrap 'sleep 100000'

# burst CONF: submit held, release, wait; prints "makespan_s mean_cycle_us".
burst() {
	local conf=$1 ids t0 t1 left cyc
	export SLURM_CONF=$conf
	ids=$(for _ in $(seq "$jobs"); do
		sbatch --parsable -H -o /dev/null --gres=gpu:1 --wrap true
	done | paste -sd, -)
	sdiag -r >/dev/null 2>&1
	t0=$(date +%s.%N)
	scontrol release "$ids" >/dev/null 2>&1 || scontrol release $(echo "$ids" | tr , ' ')
	while :; do
		left=$(sacct -n -X -P -j "$ids" -o State 2>/dev/null | grep -vc '^COMPLETED$')
		[ "$left" = 0 ] && [ "$(sacct -n -X -P -j "$ids" -o State | wc -l)" -ge "$jobs" ] && break
		sleep 0.2
	done
	t1=$(date +%s.%N)
	cyc=$(sdiag | awk '/^Main schedule statistics/ { m = 1 } m && /Mean cycle:/ { print $3; exit }')
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') ${cyc:-0}"
}

printf '%-6s %-9s %12s %16s\n' round cluster makespan_s mean_cycle_us
rb=() rw=()
for r in $(seq "$rounds"); do
	echo "pack_overhead: round $r/$rounds ($jobs jobs per cluster) ..." >&2
	read -r mb cb < <(burst "$base_conf")
	read -r mw cw < <(burst "$wrap_conf")
	printf '%-6s %-9s %12.2f %16s\n' "$r" baseline "$mb" "$cb"
	printf '%-6s %-9s %12.2f %16s\n' "$r" wrapper "$mw" "$cw"
	rb+=("$mb/$cb") rw+=("$mw/$cw")
done
export SLURM_CONF=$wrap_conf
still=$(for j in $pinned; do squeue -h -j "$j" -o %T; done | paste -sd' ' -)
python3 - "${rb[@]}" -- "${rw[@]}" <<'EOF'
import statistics, sys
a = sys.argv[1:]
i = a.index("--")
base = [tuple(map(float, x.split("/"))) for x in a[:i]]
wrap = [tuple(map(float, x.split("/"))) for x in a[i + 1:]]
def ratio(k):
    r = [w[k] / b[k] for b, w in zip(base, wrap) if b[k] > 0]
    return statistics.median(r) if r else float("nan")
print("median ratio wrapper/baseline: makespan %.3f, main cycle %.3f" % (ratio(0), ratio(1)))
EOF
echo "packed pair on the wrapper cluster during the run: $still (expected RUNNING RUNNING)"
