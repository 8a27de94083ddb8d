#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_trace_player.sh — hetsched-trace-play without a cluster: --dry-run
# prints one correctly built sbatch command per trace job at its scaled
# arrival time; bad input is refused with a message. TAP output.
B=${HS_BUILDDIR:-.}
S=${HS_SRCDIR:-.}
D=${HS_GAVEL_DATA:-$S/data/gavel}
TP=$B/hetsched-trace-play
T=$D/traces/physical_cluster/small_test.trace
TAB=$D/simulation_throughputs.json
if [ ! -r "$T" ] || [ ! -r "$TAB" ]; then
	echo "1..0 # SKIP Gavel data not found at $D (set HS_GAVEL_DATA)"
	exit 0
fi
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
tmp=$(mktemp -d)
out=$("$TP" --dry-run --table "$TAB" --time-scale 50 --limit 4 --log-dir "$tmp/l" \
	--sbatch-arg=--partition=gpu --gpus-per-node 1 "$T" 2>"$tmp/err")
ok $? "dry run succeeds"
[ "$(printf '%s\n' "$out" | wc -l)" = 4 ]; ok $? "one command per job (--limit 4)"
printf '%s\n' "$out" | sed -n 1p | grep -q "^0.000 'sbatch' .*'--hs-model=Transformer (batch size 128)' '--hs-steps=346' "
ok $? "model and steps from the trace"
printf '%s\n' "$out" | sed -n 1p | grep -q "'--gres=gpu:1' '--nodes=2'"
ok $? "a 2-GPU job spread over 2 nodes with --gpus-per-node 1"
printf '%s\n' "$out" | sed -n 2p | grep -q "'--gres=gpu:1' '--nodes=1'"
ok $? "a 1-GPU job on one node"
printf '%s\n' "$out" | grep -c -- "'--partition=gpu'" | grep -qx 4
ok $? "--sbatch-arg reaches every sbatch"
printf '%s\n' "$out" | sed -n 1p | grep -q -- "--time-scale'\\\\'' '\\\\''50'\\\\'' '\\\\''--scale-factor'\\\\'' '\\\\''2"
ok $? "the emulator gets the time scale and scale factor"
printf '%s\n' "$out" | sed -n 1p | grep -q "'--hs-ckpt-dir=$tmp/l/ckpt/%j'"
ok $? "jobs opt into checkpointing in the log dir"
"$TP" --dry-run --no-ckpt --table "$TAB" --limit 1 "$T" 2>/dev/null | grep -q -- '--hs-ckpt-dir'
[ $? != 0 ]; ok $? "--no-ckpt"
printf 'bad\tline\n' >"$tmp/bad.trace"
"$TP" --dry-run --table "$TAB" "$tmp/bad.trace" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "bad.trace" "$tmp/err"; ok $? "a malformed trace is refused, naming the file"
env -u HS_THROUGHPUT_TABLE "$TP" --dry-run "$T" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "no throughput table" "$tmp/err"; ok $? "no table: refused"
"$TP" --dry-run --table "$TAB" --time-scale 0 "$T" >/dev/null 2>&1
[ $? = 2 ]; ok $? "time scale 0: refused"
# A requeued job: sacct's last row is the finished incarnation (PREEMPTED)
# until slurmdbd has the new one; the player must not call the job done
# while slurmctld (squeue) still has it. Fake sbatch/sacct/squeue in PATH:
# polls 1-3 see only the PREEMPTED row with squeue saying PENDING, then
# the second incarnation COMPLETED and squeue nothing.
fake=$tmp/fakebin
mkdir -p "$fake" && [ -d "$fake" ] || { echo "Bail out! no fake bin dir"; exit 1; }
printf '#!/bin/sh\necho 42\n' >"$fake/sbatch"
printf '#!/bin/sh\nc=$(cat "%s/polls" 2>/dev/null || echo 0); c=$((c + 1)); echo $c >"%s/polls"\necho "42|PREEMPTED|2026-01-01T00:00:05"\n[ $c -gt 3 ] && echo "42|COMPLETED|2026-01-01T00:00:09"\nexit 0\n' \
	"$tmp" "$tmp" >"$fake/sacct"
printf '#!/bin/sh\n[ "$(cat "%s/polls")" -le 3 ] && echo "42|PENDING"\nexit 0\n' "$tmp" >"$fake/squeue"
chmod +x "$fake/sbatch" "$fake/sacct" "$fake/squeue"
head -n 1 "$T" | awk -F'\t' 'BEGIN { OFS = "\t" } { $10 = 0; print }' >"$tmp/one.trace"
PATH="$fake:$PATH" "$TP" --table "$TAB" --poll 0.1 --timeout 20 --log-dir "$tmp/l2" \
	--out "$tmp/jct.csv" "$tmp/one.trace" 2>"$tmp/err"
ok $? "a requeued job is waited for (exit 0)"
[ "$(cat "$tmp/polls")" -ge 4 ]; ok $? "still polled after sacct showed PREEMPTED"
tail -n 1 "$tmp/jct.csv" | grep -q ',COMPLETED,2,'; ok $? "CSV: COMPLETED, 2 incarnations"
rm -rf "$tmp"
echo "1..$n"
