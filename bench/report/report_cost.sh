#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# report_cost.sh — measures what reporting a mini-batch costs, as ratios to
# a baseline measured in the same run (one clock read per iteration), for
# the C library (every mode of report_cost.c) and the Python module.
#
# Usage: bench/report/report_cost.sh [CALLS (default 2000000)]
# Run from the build directory (or set HS_BUILDDIR); prints a table.
set -eu
B=${HS_BUILDDIR:-$(pwd)}
S=${HS_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
n=${1:-2000000}
bin=$B/bench/report/report_cost
[ -x "$bin" ] || { echo "report_cost.sh: build it first: make bench/report/report_cost" >&2; exit 2; }
echo "calls per mode: $n (python: $((n / 10)))" >&2
base=$("$bin" baseline "$n" | awk '{print $2}')
printf '%-34s %12s %10s %14s\n' "mode" "ns/call" "x baseline" "datagrams"
printf '%-34s %12.1f %10.2f %14s\n' "baseline (clock_gettime)" "$base" 1 -
for m in noop coalesced every busy; do
	"$bin" "$m" "$n" | awk -v b="$base" -v m="$m" '{
		d = (m == "busy") ? $3 " sent, 0 read" : $3 " sent, " $4 " read"
		printf "%-34s %12.1f %10.2f %14s\n", "C: " m, $2, $2 / b, d }'
done
PYTHONPATH=$S/python python3 - "$((n / 10))" "$base" <<'PY'
import os, socket, sys, time
n, base = int(sys.argv[1]), float(sys.argv[2])
os.environ.pop("HS_REPORT_SOCKET", None)
import hetsched_report as hs
def run(label):
    hs._reporter = None
    t0 = time.perf_counter()
    for i in range(1, n + 1):
        hs.step(i)
    ns = (time.perf_counter() - t0) / n * 1e9
    print("%-34s %12.1f %10.2f %14s" % (label, ns, ns / base, hs.stats()["sent"]))
run("Python: noop")
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0hetsched.bench.py.%d" % os.getpid())
os.environ["HS_REPORT_SOCKET"] = "@hetsched.bench.py.%d" % os.getpid()
run("Python: coalesced (nobody reads)")
PY
