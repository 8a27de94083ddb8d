#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# spank_hostile.sh — a hostile job changes nothing outside itself, and jobs
# whose training dies, hangs or never reports still run and account
# normally. The hostile job (tests/integration/hostile_job.py) forges
# reports and a checkpoint acknowledgement for another job through that
# job's socket, floods its own listener with garbage, oversized and
# "job=" reports and absurd steps, plants symlinks (to a root-only file and
# /etc) where its checkpoint directory should be, and squats socket names of
# a future job; a job of another user (hs-other) tries the same. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/spank_lib.sh"
it_begin "spank_hetsched: hostile jobs change nothing outside themselves"

spank_cluster h || bail "cluster did not come up"
work=$(mktemp -d /tmp/hs-it-spank-hostile.XXXXXX)
chmod 755 "$work"
export PATH=$HS_BUILDDIR:$PATH
model="ResNet-18 (batch size 64)"
scale=10
log=$H_DIR/log
secret=$work/secret
# the other user exists before /etc/passwd is summed (useradd changes it)
it_user hs-other || bail "cannot create user hs-other"
echo "root only" >"$secret"
chmod 600 "$secret"
sum_before=$(stat -c '%s %Y %a %U' "$secret" /etc/passwd; md5sum "$secret" /etc/passwd)

# The victim: an emulator that runs ~14 s on k80.
N=$(python3 -c "print(int($(table_thr "$model" k80) * $scale * 14))")
jv=$(sbatch --parsable -o "$work/victim.out" --gres=gpu:1 -w k80-1 --hs-model="$model" --hs-steps="$N" \
	--wrap "echo \"victim socket: \$HS_REPORT_SOCKET\"; $HS_EMU --table $HS_TABLE --time-scale $scale")
wait_field 60 "$jv" step || bail "the victim does not report"
squat=$((jv + 3))     # the job submitted after the hostile ones

jh=$(sbatch --parsable -o "$work/hostile.out" --gres=gpu:1 -w v100-1 --hs-ckpt-dir="$work/ck/%j/dir" \
	--wrap "python3 $HS_SRCDIR/tests/integration/hostile_job.py $jv $secret $squat")
mkdir -m 1777 "$work/other"
jn=$(sbatch --parsable -D "$work/other" -o "$work/other/other.out" --uid=hs-other --gid="$(id -g hs-other)" --gres=gpu:1 -w v100-1 \
	--wrap "python3 $HS_SRCDIR/tests/integration/hostile_job.py $jv $secret 0")
# the root hostile job squats the names of the next job while it holds them
wait_for_line() {
	local end=$(($(date +%s) + $1))
	while ! grep -q "$2" "$3" 2>/dev/null; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}
wait_for_line 120 "^squatting" "$work/hostile.out" || nok "the hostile job squats socket names"
jc=$(sbatch --parsable -o "$work/squatted.out" --gres=gpu:1 -w k80-1 --hs-model="$model" --hs-steps=300 \
	--wrap "$HS_EMU --table $HS_TABLE --time-scale $scale")
check "the squatted job id is the one the hostile job guessed" test "$jc" = "$squat"

# Jobs whose training misbehaves.
jk=$(sbatch --parsable -o "$work/killed.out" --gres=gpu:1 -w v100-1 --hs-model="$model" --hs-steps=100000 \
	--wrap "$HS_EMU --table $HS_TABLE --time-scale $scale & sleep 3; kill -9 \$!; echo 'training killed'")
js=$(sbatch --parsable -o /dev/null --gres=gpu:1 -w v100-1 --wrap "sleep 3")
jg=$(sbatch --parsable -o /dev/null --gres=gpu:1 -w v100-1 \
	--wrap "for i in 1 2 3 4 5; do hetsched-report step \$i; done; sleep 4  # hangs after 5 steps")
ja=$(sbatch --parsable -H -o /dev/null --gres=gpu:1 -w k80-1 --hs-model="$model" --hs-steps=200 \
	--wrap "$HS_EMU --table $HS_TABLE --time-scale $scale")
scontrol update jobid="$ja" AdminComment="reserved by the admins"
scontrol release "$ja"

it_wait_jobs 300 "$jv" "$jh" "$jn" "$jc" "$jk" "$js" "$jg" "$ja" || nok "every job finished"
diag <"$work/hostile.out"
diag <"$work/other/other.out"

# --- the victim is untouched
rec=$(record "$jv")
echo "$rec" | diag
check "victim: COMPLETED" test "$(sacct -j "$jv" -X -n -P -o State)" = COMPLETED
check "victim: its step count is its own ($N), not the forged one" test "$(echo "$rec" | $HS_AC get step)" = "$N"
check "victim: no forged checkpoint acknowledgement" sh -c "! echo '$rec' | $HS_AC get ckpt.step"
check "victim: throughput still its table value" within "$(python3 -c "print($(echo "$rec" | $HS_AC get thr.k80.sps) / $scale)")" "$(table_thr "$model" k80)" 0.05
check "victim's listener rejected the forged senders (slurmd log)" \
	grep -Eq "job $jv step batch on k80: .*dropped \([0-9]+ malformed, [0-9]+ oversized, [1-9][0-9]* foreign\)" "$log/slurmd-k80-1.log"
grep "job $jv step batch" "$log/slurmd-k80-1.log" | diag
# The socket the victim was given; /proc/net/unix is machine-wide, so the
# hostile jobs also list sockets of job $jv of other clusters on this
# machine (concurrent test runs): look for the victim's own name.
vsock=$(sed -n 's/^victim socket: //p' "$work/victim.out")
check "both hostile jobs found the victim's socket ($vsock)" test -n "$vsock" -a \
	"$(grep -cF "'$vsock'" "$work/hostile.out" "$work/other/other.out" | grep -c ':1$')" = 2
# Another user cannot even queue a datagram there: the socket is the job
# user's (mode 0600), so the kernel refuses every send. (An abstract
# socket took them, and a flood of them filled the queue the job's own
# checkpoint acknowledgement needs; issue 28.)
grep -F "to victim $vsock:" "$work/other/other.out" | diag
check "another user's sends to the victim's socket are all refused by the kernel" \
	grep -Eq "^to victim $vsock: sent/refused \(0, [1-9][0-9]*\)$" "$work/other/other.out"

# --- the hostile jobs themselves ended normally, their listeners survived
check "hostile job (root): COMPLETED" test "$(sacct -j "$jh" -X -n -P -o State)" = COMPLETED
check "hostile job (hs-other): COMPLETED" test "$(sacct -j "$jn" -X -n -P -o State)" = COMPLETED
check "hostile job: its listener dropped the garbage and shut down cleanly" \
	grep -Eq "job $jh step batch on v100: .*dropped" "$log/slurmd-v100-1.log"
grep "job $jh step batch" "$log/slurmd-v100-1.log" | diag
check "hostile job: drops were logged, rate-limited" \
	test "$(grep -c "job $jh step batch: dropped" "$log/slurmd-v100-1.log")" -le 5
record "$jh" | $HS_AC valid
check "hostile job: its own record is still a valid record" test $? = 0
check "no slurmstepd crashed" sh -c "! grep -Eiq 'segfault|core dumped|fatal' '$log'/slurmd-*.log"

# --- symlinks: nothing outside the job was opened, written or followed
sum_after=$(stat -c '%s %Y %a %U' "$secret" /etc/passwd; md5sum "$secret" /etc/passwd)
check "symlinks: the root-only file and /etc/passwd are unchanged" test "$sum_before" = "$sum_after"
check "symlinks: the planted links are still there, unfollowed" test -L "$work/ck/$jh/dir" -a -L "$work/ck/$jh/dir.maze/etc"
check "symlinks: no file appeared in their targets" test "$(find /etc -newer "$secret" -maxdepth 1 -name 'hetsched*' | wc -l)" = 0

# --- the squatted job reports normally (names carry a random nonce)
check "squatted job: COMPLETED with a record" test "$(sacct -j "$jc" -X -n -P -o State)/$(record "$jc" | $HS_AC get step)" = COMPLETED/300

# --- training that dies, hangs, never reports: the job runs and accounts normally
check "training killed: job COMPLETED (the script's exit status)" test "$(sacct -j "$jk" -X -n -P -o State)" = COMPLETED
gpu=$(record "$jk" | $HS_AC get hist.0.gpu)
st=$(record "$jk" | $HS_AC get step)
check "training killed: history and the last step ($st) are recorded" test "$gpu" = v100 -a "${st:-0}" -gt 0
check "never reports: COMPLETED, history only" test "$(sacct -j "$js" -X -n -P -o State)/$(record "$js")" = \
	"COMPLETED/$(record "$js" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps(r, separators=(",", ":")) if set(r) == {"hs", "hist"} else "")')"
check "hangs after 5 steps: COMPLETED, step 5 recorded" test "$(sacct -j "$jg" -X -n -P -o State)/$(record "$jg" | $HS_AC get step)" = COMPLETED/5
check "an administrator's AdminComment is left alone" test "$(record "$ja")" = "reserved by the admins"
check "accounting: every job is in sacct" test "$(sacct -X -n -P -o JobID -j "$jv,$jh,$jn,$jc,$jk,$js,$jg,$ja" | wc -l)" = 8

rm -rf "$work"
it_done
