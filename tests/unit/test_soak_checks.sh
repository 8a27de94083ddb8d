#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_soak_checks.sh — the soak test's judges (tests/soak/soak_procs.py)
# on made-up inputs, so that a check of tests/soak/soak.sh that can never
# fail would show here: overlapping incarnations in sacct -D fail unless
# slurmctld's crash explains them (an open record started < 6 s before a
# SIGKILL), and two payload processes of one job in one sample fail. TAP.
py=${PYTHON:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
	echo "1..0 # SKIP no python3"
	exit 0
fi
procs=${HS_SRCDIR:-.}/tests/soak/soak_procs.py
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
n=0
# expect RC DESC CMD...: one test point, ok when CMD exits with RC.
expect() {
	want=$1 desc=$2
	shift 2
	n=$((n + 1))
	"$@" >"$t/out" 2>"$t/err"
	rc=$?
	if [ "$rc" = "$want" ]; then echo "ok $n - $desc"; else
		echo "not ok $n - $desc (exit $rc, wanted $want)"
		sed 's/^/# /' "$t/out" "$t/err"
	fi
}
# Epoch of a local time as sacct prints it (the checker reads local time).
ep() { date -d "$1" +%s; }

cat >"$t/seq" <<'X'
7|2026-12-01T10:00:00|2026-12-01T10:01:00|PREEMPTED
7|2026-12-01T10:01:00|2026-12-01T10:02:00|COMPLETED
8|None|None|CANCELLED
X
expect 0 "incarnations one after the other (same second at the seam) pass" \
	"$py" "$procs" incarnations "$t/seq" ""

cat >"$t/ovl" <<'X'
7|2026-12-01T10:00:00|2026-12-01T10:01:00|PREEMPTED
7|2026-12-01T10:00:30|2026-12-01T10:02:00|COMPLETED
X
expect 1 "two closed incarnations that overlap fail" "$py" "$procs" incarnations "$t/ovl" ""
expect 1 "... also when slurmctld was killed then (only open records are explained)" \
	"$py" "$procs" incarnations "$t/ovl" "$(ep 2026-12-01T10:00:32)"

cat >"$t/open" <<'X'
13|2026-12-01T10:06:01|2026-12-01T10:07:00|PREEMPTED
13|2026-12-01T10:06:17|Unknown|RUNNING
13|2026-12-01T10:07:15|2026-12-01T10:07:20|COMPLETED
X
expect 1 "an open record overlapping later incarnations fails without a kill" \
	"$py" "$procs" incarnations "$t/open" ""
expect 1 "... and with a kill more than 6 s after its start" \
	"$py" "$procs" incarnations "$t/open" "$(ep 2026-12-01T10:06:30)"
expect 0 "... passes with a SIGKILL 2 s after its start (slurmctld lost that start)" \
	"$py" "$procs" incarnations "$t/open" "$(ep 2026-12-01T10:06:19)"
n=$((n + 1))
if grep -q '^13 2026-12-01T10:06:17..Unknown: started by slurmctld less than 6 s before its SIGKILL (overlaps 2 ' "$t/err"; then
	echo "ok $n - ... and is listed as a runaway record, once"
else
	echo "not ok $n - ... and is listed as a runaway record, once"
	sed 's/^/# /' "$t/err"
fi

printf '100 7:v100-1:11 8:k80-1:12\n101 7:v100-1:11\n102 \n' >"$t/p1"
expect 0 "process samples: one payload per job per sample pass" "$py" "$procs" overlaps "$t/p1"
printf '100 7:v100-1:11 8:k80-1:12\n101 7:v100-1:11 7:p100-1:20\n' >"$t/p2"
expect 1 "process samples: one job's payload on two nodes at once fails" "$py" "$procs" overlaps "$t/p2"
printf '100 9:k80-1:11 9:k80-1:14\n' >"$t/p3"
expect 1 "process samples: two payloads of one job on one node fail" "$py" "$procs" overlaps "$t/p3"
echo "1..$n"
