#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_learn_restart.sh — the learned table (doc/learning.md) on a real
# cluster: jobs of a model no throughput table knows (--hs-model=my-bert,
# emulated at a table model's speed) run on a v100 and a k80 and report;
# the kind gets learned cells on both types in the state file; the table
# survives a slurmctld restart after SIGTERM, one after SIGKILL and an
# `scontrol reconfigure` (the same kind, as many samples or more); a new
# job of the kind gets "learned" as the source of the estimate on the
# type it does not run on; `hetsched learned --from-sacct` builds the
# same kind's cells (m=my-bert: the record in AdminComment keeps the
# job's --hs-model, which accounting otherwise does not) from slurmdbd's
# records, running sacct itself; merged into the state file of a stopped
# slurmctld (--into), that history is recognised as already learned (not
# counted twice) and the plugin restores and keeps the kind.
# TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched: the learned table across slurmctld restarts and from sacct"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
[ -x "$HS_EMU" ] || bail "no $HS_EMU (run make)"
sched_cluster l v100:1:1,k80:1:1 || bail "cluster did not come up"
log=$L_DIR/log/slurmctld.log
state=$L_DIR/spool/slurmctld/hetsched_state.json
check "hetsched.conf: 4 s rounds, Gavel's table (which has no my-bert)" it_hetsched_conf "$L_DIR" \
	RoundLength=4 MinRoundInterval=1 "ThroughputTable=$HS_TABLE" Learning=yes
work=$(mktemp -d /tmp/hs-it-learn.XXXXXX)
# the emulator trains at ResNet-18's speed whatever the job's hint says
printf '#!/bin/bash\nsrun %s --table %s --model "ResNet-18 (batch size 64)" --time-scale 10\n' \
	"$HS_EMU" "$HS_TABLE" >"$work/emu.sh"
chmod +x "$work/emu.sh"
kind="u=$(id -u)/m=my-bert"
# cells KIND: "type:samples" of the kind's 1-GPU cells in the state file.
cells() {
	"$HS_CLI" learned --raw "$state" 2>/dev/null | python3 -c '
import json, sys
t = json.load(sys.stdin)
for k in t["kinds"]:
    if k["kind"] == sys.argv[1] and k["sf"] == 1:
        print(" ".join("%s:%d" % (ty, c[1]) for ty, c in sorted(k["cells"].items())))' "$1"
}
# both_cells KIND: the kind has cells on v100 and k80.
both_cells() { cells "$1" | grep -q 'k80:[0-9]' && cells "$1" | grep -q 'v100:[0-9]'; }
# samples KIND: the kind's samples over both types.
samples() { cells "$1" | tr ' ' '\n' | awk -F: '{ s += $2 } END { print s + 0 }'; }
wait_for() { # SECS COMMAND...: until COMMAND succeeds
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 1
	done
}

t0=$(date +%s)
a=$(sbatch --parsable -J learn-bert -o /dev/null --hs-model=my-bert --hs-steps=3000 \
	--gres=gpu:v100:1 "$work/emu.sh")
b=$(sbatch --parsable -J learn-bert -o /dev/null --hs-model=my-bert --hs-steps=1000 \
	--gres=gpu:k80:1 "$work/emu.sh")
check "my-bert learned on v100 and k80 (state file)" wait_for 90 both_cells "$kind"
check "jobs done" all_completed "$a" "$b"
wait_rounds "$L_DIR" 2 30
before=$(samples "$kind")
echo "before the restarts: $kind $(cells "$kind")" | diag

ctld=$(pid_of "$L_DIR" slurmctld)
kill -TERM "$ctld"
check "SIGTERM: stopped" wait_for 60 sh -c "! kill -0 $ctld 2>/dev/null"
check "SIGTERM: up again" sched_cluster_up_again "$L_DIR" "$L_PORT"
check "SIGTERM: state restored" wait_log "$log" 60 'sched/hetsched: state restored from'
wait_rounds "$L_DIR" 2 30
n1=$(samples "$kind")
check "SIGTERM: kind kept, samples $n1 >= $before" test "$n1" -ge "$before" -a "$before" -gt 0

ctld=$(pid_of "$L_DIR" slurmctld)
nrest=$(grep -c 'sched/hetsched: state restored from' "$log")
kill -KILL "$ctld"
check "SIGKILL: stopped" wait_for 30 sh -c "! kill -0 $ctld 2>/dev/null"
check "SIGKILL: up again" sched_cluster_up_again "$L_DIR" "$L_PORT"
check "SIGKILL: state restored" wait_for 60 sh -c \
	"[ \$(grep -c 'sched/hetsched: state restored from' '$log') -gt $nrest ]"
quiet scontrol reconfigure
wait_rounds "$L_DIR" 2 30
n2=$(samples "$kind")
check "SIGKILL + reconfigure: kind kept, samples $n2 >= $n1" test "$n2" -ge "$n1"

# a new job of the kind, on any GPU type: its estimate on the type it
# does not run on (both before its first report) is the kind's learned
# rate, which only the table kept across the restarts can give
c=$(sbatch --parsable -J learn-bert -o /dev/null --hs-model=my-bert --hs-steps=100000 \
	--gres=gpu:1 "$work/emu.sh")
sources() { status_field "$L_DIR" \
	"' '.join(sorted(set(v for j in s['jobs'] if j['id'] == $c for v in j.get('estimates', {}).values())))" \
	2>/dev/null; }
# learned_only: the job's estimates are learned, or measured where it runs
learned_only() { sources | grep -Eqx 'learned|learned measured'; }
check "new job of the kind: estimate source learned, never agnostic" wait_for 40 learned_only
echo "new job $c: estimate sources: $(sources)" | diag
scancel "$c"

# the same history from slurmdbd (sacct run by the command): the same
# kind as the plugin's, by model
built=$("$HS_CLI" learned --from-sacct --since "$(date -d @"$t0" +%Y-%m-%dT%H:%M:%S)" --raw 2>"$work/sacct.err")
cat "$work/sacct.err" | diag
hist_cells=$(echo "$built" | python3 -c '
import json, sys
t = json.load(sys.stdin)
for k in t["kinds"]:
    if k["kind"] == sys.argv[1] and k["sf"] == 1:
        print(" ".join(sorted(k["cells"])))' "$kind")
check "--from-sacct: $kind on k80 and v100 from slurmdbd: '$hist_cells'" test "$hist_cells" = "k80 v100"
check "--from-sacct: no bad line" grep -q ' 0 bad lines' "$work/sacct.err"

# a warm start from history: merged into the state file while slurmctld
# is stopped, the plugin restores it and keeps it (its next save)
ctld=$(pid_of "$L_DIR" slurmctld)
kill -TERM "$ctld"
check "stopped for --into" wait_for 60 sh -c "! kill -0 $ctld 2>/dev/null"
# the first import adds at most the jobs' final samples (published as
# they ended, after the plugin's last look); a second adds nothing
into() {
	"$HS_CLI" learned --from-sacct --since "$(date -d @"$t0" +%Y-%m-%dT%H:%M:%S)" \
		--into "$state" >"$work/into.err" 2>&1
	diag <"$work/into.err"
}
into
n3=$(samples "$kind")
into
check "--into again: every sample already in the table (not newer)" \
	grep -Eq ' 0 samples repeated, [1-9][0-9]* not newer than the table' "$work/into.err"
check "--into again: nothing counted twice: $kind still $n3 samples" test "$(samples "$kind")" = "$n3"
nrest=$(grep -c 'sched/hetsched: state restored from' "$log")
check "--into: up again" sched_cluster_up_again "$L_DIR" "$L_PORT"
check "--into: state restored" wait_for 60 sh -c \
	"[ \$(grep -c 'sched/hetsched: state restored from' '$log') -gt $nrest ]"
wait_rounds "$L_DIR" 2 30
check "--into: the plugin kept $kind: $(cells "$kind")" test "$(samples "$kind")" -ge "$n3"
check "no plugin error" sh -c "! grep -Ei 'error: sched/hetsched' '$log'"
rm -rf "$work"
it_done
