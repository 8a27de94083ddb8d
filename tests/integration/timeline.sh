#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# timeline.sh — the accounting side (timeline, sreport) on a local cluster: three
# small GPU jobs (one requeued once) under sched/hetsched; `hetsched
# timeline` draws their sacct history (doc/accounting.md recipe) as an SVG
# that is well-formed, has one bar per incarnation on a GPU and one restart
# mark per requeue (both counted from sacct's own lines), and that
# rsvg-convert renders; the sreport recipe of doc/accounting.md shows
# nonzero GPU minutes of each typed gres TRES the jobs used. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "timeline SVG from sacct; sreport GPU time per type"

command -v rsvg-convert >/dev/null || bail "rsvg-convert missing (Debian librsvg2-bin; contrib/bootstrap.sh installs it)"
sched_cluster tl v100:1:1,k80:1:1 || bail "cluster did not come up"
check "short rounds configured" it_hetsched_conf "$TL_DIR" RoundLength=2 MinRoundInterval=1
out=$TL_DIR/tmp
mkdir -p "$out"
# sreport clamps its end to now and rounds it to the nearest hour, so in
# the first half of an hour it shows the current hour only when asked for
# that hour alone (a range shorter than an hour becomes that hour). The
# jobs and the report must therefore fall in one clock hour: with less than
# 90 s left in this one, wait for the next.
left=$((3600 - $(date +%s) % 3600))
[ "$left" -ge 90 ] || { echo "# waiting ${left} s for the next hour (sreport)"; sleep "$left"; }
t0=$(date +%s)

a=$(sbatch --parsable -o /dev/null -J tl-a --requeue --gres=gpu:v100:1 --wrap 'sleep 6')
b=$(sbatch --parsable -o /dev/null -J tl-b --gres=gpu:k80:1 --wrap 'sleep 5')
c=$(sbatch --parsable -o /dev/null -J tl-c --gres=gpu:1 --wrap 'sleep 3')
end=$(($(date +%s) + 30))
until [ "$(it_ctld_state "$a")" = RUNNING ] || [ "$(date +%s)" -ge "$end" ]; do sleep 0.5; done
sleep 1
check "job a (v100) is requeued once by hand" scontrol requeue "$a"
check "all three jobs complete" all_completed "$a" "$b" "$c"

# The recipe of doc/accounting.md, as the test's input.
fields="JobIDRaw,JobName,Account,State,Start,End,NodeList,AllocTRES,AdminComment%1000"
sacct -a -D -X -P -n -o "$fields" -j "$a,$b,$c" >"$out/sacct.txt"
sinfo -N -h -o '%N|%G' >"$out/sinfo.txt"
diag <"$out/sacct.txt"
incs=$(grep -c 'gres/gpu' "$out/sacct.txt")
requeues=$(($(awk -F'|' -v a="$a" '$1 == a' "$out/sacct.txt" | wc -l) - 1))
check "sacct -D shows job a twice (the requeue)" test "$requeues" -ge 1
HS_TIMELINE_SCRIPT=$HS_SRCDIR/python/hetsched_timeline.py "$HS_CLI" timeline \
	--sacct "$out/sacct.txt" --sinfo "$out/sinfo.txt" -o "$out/tl.svg" --stats \
	--title "timeline.sh" >"$out/stats.json" 2>"$out/err"
check "hetsched timeline --sacct exits 0" test $? -eq 0 || diag <"$out/err"
stat() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$out/stats.json" "$1"; }
check "the SVG is well-formed XML" python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$out/tl.svg"
check "one bar per incarnation on a GPU ($incs)" test "$(stat bars)" = "$incs"
check "one restart mark per requeue ($requeues)" test "$(stat restarts)" = "$requeues"
check "restart marks are in the SVG" test "$(grep -c 'class="restart"><title>' "$out/tl.svg")" = "$requeues"
check "rows: the two GPUs" test "$(stat rows)" = 2
check "rsvg-convert renders it" sh -c "rsvg-convert '$out/tl.svg' -o '$out/tl.png' && test -s '$out/tl.png'"

# --live runs the same sacct and sinfo itself.
HS_TIMELINE_SCRIPT=$HS_SRCDIR/python/hetsched_timeline.py "$HS_CLI" timeline --live \
	--jobs "$a,$b,$c" -o "$out/live.svg" --stats >"$out/live.json" 2>"$out/err"
check "--live draws the same bars" test "$(cat "$out/live.json")" = "$(cat "$out/stats.json")"

# sreport (doc/accounting.md): usage is rolled up per hour by slurmdbd;
# `sacctmgr rollup` rolls the hours up to now at once. Each type's GPU
# seconds must equal the sum of its incarnations' run times in sacct.
start=$(date -d "@$t0" +%Y-%m-%dT%H:00:00)
stop=$(date -d "@$((t0 + 3600))" +%Y-%m-%dT%H:00:00)
sacctmgr -i rollup "$start" "$stop" >"$out/rollup.txt" 2>&1
sreport -n -P -t seconds -T gres/gpu:v100,gres/gpu:k80 cluster AccountUtilizationByUser \
	start="$start" end="$stop" >"$out/sreport.txt" 2>&1
diag <"$out/sreport.txt"
acct=$(cut -d'|' -f3 "$out/sacct.txt" | sort -u)
for t in v100 k80; do
	want=$(awk -F'|' -v t="gres/gpu:$t=" 'index($8, t) { cmd = "date -d " $6 " +%s"; cmd | getline e; close(cmd)
		cmd = "date -d " $5 " +%s"; cmd | getline s; close(cmd); n += e - s } END { print n + 0 }' "$out/sacct.txt")
	got=$(awk -F'|' -v a="$acct" -v t="gres/gpu:$t" '$2 == a && $3 == "" && $5 == t { print $6 }' "$out/sreport.txt")
	check "sreport: account $acct used gres/gpu:$t for $want s as sacct says (sreport: ${got:-nothing})" \
		test "$want" -gt 0 -a "$got" = "$want"
done
it_done
