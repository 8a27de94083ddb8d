#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# spank_steps.sh — what a job makes root do on its behalf does not grow
# with what the job does (issue 28):
#  - a job that starts 8 `srun --overlap` steps on a node gets one report
#    listener there (the first step's), every step's reports arrive through
#    it, and the steps cost slurmctld one SHOW_DETAIL load on the node,
#    not one per step (sdiag: REQUEST_JOB_INFO_SINGLE);
#  - a job that acknowledges the same checkpoint and repeats the same step
#    in a loop costs a few AdminComment updates, not one a second
#    (sdiag: REQUEST_UPDATE_JOB);
#  - the job's directory of sockets is gone when the job has ended.
# The RPC counts are slurmctld's own (sdiag), read only while nothing else
# talks to this test's cluster. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/spank_lib.sh"
it_begin "spank_hetsched: many steps and repeated reports cost root a bounded number of RPCs"

spank_cluster st || bail "cluster did not come up"
work=$(mktemp -d /tmp/hs-it-spank-steps.XXXXXX)
chmod 755 "$work"
export PATH=$HS_BUILDDIR:$PATH
log=$ST_DIR/log

# rpc NAME: how many NAME RPCs slurmctld has handled (sdiag), 0 if none.
rpc() {
	sdiag 2>/dev/null | awk -v t="$1" '$1 == t {
		for (i = 2; i <= NF; i++) if ($i ~ /^count:/) { sub("count:", "", $i); n = $i } }
		END { print n + 0 }'
}
# done_acct SECS JOBID: wait until sacct (slurmdbd, not slurmctld) says the
# job ended, so that waiting adds nothing to slurmctld's counts.
done_acct() {
	local end=$(($(date +%s) + $1)) s
	while :; do
		s=$(sacct -n -X -P -o State -j "$2" 2>/dev/null | head -n1)
		case "$s" in COMPLETED | FAILED | CANCELLED* | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) return 0 ;; esac
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 1
	done
}

# --- 8 overlapping steps on one node, each reporting once
steps=8
load0=$(rpc REQUEST_JOB_INFO_SINGLE)
js=$(sbatch --parsable -o "$work/steps.out" --gres=gpu:1 -w v100-1 --hs-steps=1000 --wrap "
	for i in \$(seq $steps); do
		srun --overlap -n1 bash -c 'echo \"step \$SLURM_STEP_ID socket \$HS_REPORT_SOCKET\"; sleep 2; hetsched-report step \$((SLURM_STEP_ID + 1)); sleep 2' &
	done
	wait")
done_acct 120 "$js" || nok "the steps job ended"
sleep 1   # the last slurmstepd's exit RPCs
j=$js
load1=$(rpc REQUEST_JOB_INFO_SINGLE)
diag <"$work/steps.out"
check "steps: job COMPLETED" test "$(sacct -j "$j" -X -n -P -o State)" = COMPLETED
check "steps: all $steps steps ran" test "$(sacct -j "$j" -n -P -o JobID | grep -c "^$j\.[0-9]")" = "$steps"
sockets=$(sed -n 's/^step [0-9]* socket //p' "$work/steps.out" | sort -u)
check "steps: every step was given the same socket ($sockets)" test "$(echo "$sockets" | wc -l)/$(grep -c '^step [0-9]* socket /' "$work/steps.out")" = "1/$steps"
grep "job $j step" "$log/slurmd-v100-1.log" | diag
check "steps: one listener on the node for the job (one summary line)" \
	test "$(grep -c "job $j step [0-9a-z]* on v100: " "$log/slurmd-v100-1.log")" = 1
check "steps: it accepted every step's report" \
	grep -Eq "job $j step batch on v100: $steps report\(s\) accepted, 0 dropped" "$log/slurmd-v100-1.log"
check "steps: the record has the highest step ($steps)" test "$(record "$j" | $HS_AC get step)" = "$steps"
echo "# REQUEST_JOB_INFO_SINGLE: $load0 -> $load1 for $((steps + 1)) steps"
# the batch step's SHOW_DETAIL load and its listener's publishes (each a
# load: start, then at most a few periodic and the final one); one load
# per step (detail) plus one per listener start was $((2 * (steps + 1)))+
check "steps: slurmctld loaded the job $((load1 - load0)) times, fewer than once per step" \
	test $((load1 - load0)) -lt "$steps"

# --- the same acknowledgement and step in a loop for 8 s
upd0=$(rpc REQUEST_UPDATE_JOB)
cat >"$work/acks.py" <<'PY'
import os, socket, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
name = os.environ["HS_REPORT_SOCKET"]
s.connect("\0" + name[1:] if name.startswith("@") else name)   # "@": abstract
end = time.time() + 8
while time.time() < end:
    for m in (b"hs1 step=5", b"hs1 ckpt=5"):
        try:
            s.send(m)
        except BlockingIOError:
            pass
    time.sleep(0.02)
time.sleep(0.5)   # alive while the listener reads the last ones
PY
j=$(sbatch --parsable -o "$work/acks.out" --gres=gpu:1 -w k80-1 --hs-ckpt --hs-steps=1000 \
	--wrap "python3 $work/acks.py")
done_acct 120 "$j" || nok "the acknowledging job ended"
sleep 1
upd1=$(rpc REQUEST_UPDATE_JOB)
grep "job $j step" "$log/slurmd-k80-1.log" | diag
acks=$(sed -n "s/.*job $j step batch on k80: .* \([0-9]*\) checkpoint ack(s).*/\1/p" "$log/slurmd-k80-1.log")
echo "# REQUEST_UPDATE_JOB: $upd0 -> $upd1 for ${acks:-?} acknowledgements"
check "acks: the job acknowledged many times (${acks:-0})" test "${acks:-0}" -ge 100
# start (history), the first acknowledgement (urgent), the first step
# (periodic): 3; one a second for 8 s was 8 and more
check "acks: $((upd1 - upd0)) AdminComment updates for them (<= 4)" test $((upd1 - upd0)) -le 4
rec=$(record "$j")
echo "$rec" | diag
check "acks: the record has the step and the acknowledgement" \
	test "$(echo "$rec" | $HS_AC get step)/$(echo "$rec" | $HS_AC get ckpt.step)" = 5/5

# --- the job directories are gone (job epilog). Their names end in a hash
# of this cluster's slurm.conf path (other clusters on this machine have
# the same job ids and node names).
sleep 2
hash=${sockets%/report}
hash=${hash##*.}
check "the jobs' socket directories were removed at their end" \
	test -n "$hash" -a ! -e "/run/hetsched/$js.v100-1.$hash" -a ! -e "/run/hetsched/$j.k80-1.$hash"

rm -rf "$work"
it_done
