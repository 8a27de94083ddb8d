#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_timeline_cli.sh — `hetsched simulate --timeline` and `hetsched
# timeline`: a small seeded simulation with packing and migrations writes
# its run segments (a job on its GPUs from a start to a stop); the SVG
# drawn from them is well-formed XML with one bar per job per GPU per
# segment, one restart mark per migration or resume and one packed outline
# per stretch of a GPU shared by two jobs (all counted from the CSV, not
# hard-coded), and rsvg-convert renders it; bad
# input gives a message and a non-zero exit. TAP output.
b=${HS_BUILDDIR:-.}
src=${HS_SRCDIR:-.}
hs="$b/hetsched"
gavel=${HS_GAVEL_DATA:-$src/data/gavel}
HS_TIMELINE_SCRIPT=$src/python/hetsched_timeline.py
export HS_TIMELINE_SCRIPT
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else nok "$desc"; fi; }

echo 1..13
"$hs" simulate --policy max_min_fairness_packed --throughputs "$gavel/simulation_throughputs.json" \
	--cluster v100:1,p100:1,k80:1 --generate --rate 0 --jobs 4 --seed 3 --preempt-cost 30 \
	--max-time 3600 --quiet --timeline "$tmp/tl.csv" >/dev/null 2>"$tmp/err"
check "simulate --timeline for an hour (exit 3: stopped at --max-time)" test $? -eq 3
check "the timeline has its header" test "$(head -n 1 "$tmp/tl.csv")" = "job,model,type,node,gpu,start_s,end_s,event,partner"
"$hs" timeline --timeline "$tmp/tl.csv" -o "$tmp/tl.svg" --stats --types v100,p100,k80 \
	>"$tmp/stats.json" 2>"$tmp/err"
check "hetsched timeline exits 0" test $? -eq 0
# One python3 (its start costs ~0.3 s of CPU here) prints what the CSV says
# the picture must hold, then what the SVG and --stats hold.
set -- $(python3 - "$tmp/tl.csv" "$tmp/tl.svg" "$tmp/stats.json" <<'PY'
import csv, json, sys, xml.etree.ElementTree as ET
rows = list(csv.DictReader(open(sys.argv[1])))
# shared stretches: per GPU, maximal intervals where two run segments
# overlap (a packed pair), by a sweep over the segment ends
shared = 0
for gpu in {(r["node"], r["gpu"]) for r in rows}:
    ev = []
    for r in rows:
        if (r["node"], r["gpu"]) == gpu:
            ev += [(float(r["start_s"]), 1), (float(r["end_s"]), -1)]
    depth = 0
    for t in sorted({t for t, _ in ev}):
        before = depth
        depth += sum(d for u, d in ev if u == t)
        shared += before < 2 <= depth
want = [len(rows), sum(r["event"] in ("migrate", "resume") for r in rows),
        shared, len({(r["node"], r["gpu"]) for r in rows})]
try:
    root = ET.parse(sys.argv[2]).getroot()
except ET.ParseError:
    print(*want, "malformed", -1, -1, -1, -1)
    sys.exit(0)
ns = "{http://www.w3.org/2000/svg}"
restarts = packed = 0
for e in root.iter():
    t = e.find(ns + "title")
    if t is None:
        continue
    restarts += e.tag == ns + "path" and e.get("class") == "restart"
    packed += e.tag == ns + "rect" and e.get("class") == "packed"
st = json.load(open(sys.argv[3]))
print(*want, "wellformed", restarts, packed, st["bars"], st["rows"])
PY
)
bars=$1 restarts=$2 packed=$3 rows=$4
check "the run packs ($packed stretches) and restarts jobs ($restarts)" test "$packed" -gt 0 -a "$restarts" -gt 0
check "jobs ran on the cluster's 3 GPUs ($rows)" test "$rows" -ge 1 -a "$rows" -le 3
check "the SVG is well-formed XML" test "$5" = wellformed
check "one restart mark per migration or resume ($restarts)" test "$6" = "$restarts"
check "one packed outline per shared stretch of a GPU ($packed)" test "$7" = "$packed"
check "one bar per job per GPU per run segment ($bars)" test "$8" = "$bars"
check "one row per GPU used ($rows)" test "$9" = "$rows"
if command -v rsvg-convert >/dev/null; then
	check "rsvg-convert renders it" sh -c "rsvg-convert '$tmp/tl.svg' -o '$tmp/tl.png' && test -s '$tmp/tl.png'"
else
	skip "rsvg-convert missing (Debian librsvg2-bin)"
fi

printf 'a,b\n1,2\n' >"$tmp/bad.csv"
"$hs" timeline --timeline "$tmp/bad.csv" -o "$tmp/bad.svg" 2>"$tmp/err"
check "a CSV that is not a timeline: exit 1, message" sh -c "test $? -eq 1 && grep -q 'not a timeline CSV' '$tmp/err'"
"$hs" simulate --policy max_min_fairness --throughputs "$gavel/simulation_throughputs.json" \
	--cluster v100:1 --generate --rate 0 --jobs 2 --ideal --quiet --timeline "$tmp/x.csv" \
	>/dev/null 2>"$tmp/err"
check "--timeline with --ideal: refused with a message" sh -c "test $? -ne 0 && grep -q 'needs rounds' '$tmp/err'"
[ "$failed" = 0 ]
