#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/round.sh — the sched plugin's round without Slurm at bench/scale.sh's
# size (128 nodes, 2,048 GPUs, 118 whole-node + 128 one-GPU pinned jobs,
# 32 free GPUs), against queue length: where slurmctld's hetsched thread
# spends time and memory outside the locks. One process per queue length
# (bench/round_bench), so each peak is that queue's.
#
# Usage (from the build dir, after make):
#   bench/round.sh [--baseline PATH] [QUEUE ...]   (default: 0 1000 5000 10000 20000)
# --baseline PATH: another build's bench/round_bench (say, of an earlier
# commit), run on the same queues in the same command: its peak and the
# ratio of this build's peak to it are added.
# Environment: HS_ROUND_MAXJOBS (default 2000), HS_ROUND_ROUNDS (3),
# HS_ROUND_CONF (hetsched.conf lines added, e.g. Learning=no).
#
# Columns: the table load (every pending job has its own model, as in
# scale.sh, so the table has a row per job), then round 1's RSS growth
# per stage after the parse's free heap was trimmed (snapshot, engine
# round, saved-state document, status document written), the rounds'
# memory (RSS after every round against RSS after the trim: what the
# rounds need beside the table), the process's peak (VmHWM, over every
# round and the table parse), and the slowest round's engine time and
# its state + status + metrics time; then the peak against the empty
# queue's, the fixed cost.
set -eu
baseline=
if [ "${1:-}" = --baseline ]; then
	baseline=$2
	shift 2
	[ -x "$baseline" ] || { echo "round.sh: no executable baseline $baseline" >&2; exit 2; }
fi
[ -x bench/round_bench ] || { echo "run from the build dir after make (no bench/round_bench)" >&2; exit 1; }
queues=${*:-0 1000 5000 10000 20000}
dir=$(mktemp -d /tmp/hs-round.XXXXXX)
trap 'rm -rf "$dir"' EXIT

# measure BIN QUEUE: one process; prints table-load ms and MB, round 1's
# RSS growth per stage (snapshot, round, state, status), the peak, the
# slowest round and its state + status + metrics time.
measure() {
	"$1" --dir "$dir" --queue "$2" --trim \
		--rounds "${HS_ROUND_ROUNDS:-3}" --max-jobs "${HS_ROUND_MAXJOBS:-2000}" > "$dir/out"
	awk '
		function kv(k,   i, a) { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return "" }
		/^stage=/ { rss = kv("rss_mb"); ms = kv("ms") }
		/^stage=start/ { prev = rss }
		/^stage=engine_new/ { tload = ms; tmb = rss - prev }
		/^stage=trim/ { prev = rss; trimmed = rss }
		/^stage=snapshot/ && !done { snap = rss - prev; prev = rss }
		/^stage=round/ { if (ms > rms) rms = ms; if (!done) { rmb = rss - prev; prev = rss } }
		/^stage=state/ { t_after = ms; if (!done) { smb = rss - prev; prev = rss } }
		/^stage=status_write/ { if (!done) { wmb = rss - prev; prev = rss } }
		/^stage=metrics/ { t_after += ms; if (t_after > ams) ams = t_after; done = 1 }
		/^summary/ { hwm = kv("hwm_mb") }
		END { printf "%.1f %.1f %.1f %.1f %.1f %.1f %.1f %.0f %.0f %.1f\n", tload, tmb, snap, rmb, smb, wmb, hwm, rms, ams, rss - trimmed }' "$dir/out"
}

hdr='| queued | table load ms / MB | snapshot MB | round MB | state MB | status MB | rounds MB | peak MB | round ms | state+status ms | peak vs empty |'
sep='|---|---|---|---|---|---|---|---|---|---|---|'
[ -z "$baseline" ] || { hdr="$hdr baseline rounds / peak MB | rounds, peak vs baseline |"; sep="$sep---|---|"; }
echo "$hdr"
echo "$sep"
base=
for q in $queues; do
	echo "round.sh: queue $q" >&2
	set -- $(measure ./bench/round_bench "$q")
	[ -n "$base" ] || base=$7
	row=$(printf '| %s | %s / %s | %s | %s | %s | %s | %s | %s | %s | %s | %sx |' "$q" "$1" "$2" "$3" \
		"$4" "$5" "$6" "${10}" "$7" "$8" "$9" "$(awk -v a="$7" -v b="$base" 'BEGIN { printf "%.2f", a / b }')")
	if [ -n "$baseline" ]; then
		peak=$7 rounds=${10}
		set -- $(measure "$baseline" "$q")
		row="$row$(printf ' %s / %s | %s, %sx |' "${10}" "$7" \
			"$(awk -v a="$rounds" -v b="${10}" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }')" \
			"$(awk -v a="$peak" -v b="$7" 'BEGIN { printf "%.2f", a / b }')")"
	fi
	echo "$row"
done
