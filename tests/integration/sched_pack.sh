#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched_pack.sh — space sharing end to end: with a packed policy
# (max_min_fairness_packed, Gavel's pair throughputs) and the select
# wrapper's packing interface (doc/packing.md), two jobs that share a GPU
# well run on the same GPU at once — the second started onto the first
# with hs_pack_start — and stay packed round after round; a third job
# that does not fit the pair waits with a reason. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "sched/hetsched packs two jobs onto one GPU through select/hetsched_cons_tres"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
sched_cluster k v100:1:1 || bail "cluster did not come up"
log=$K_DIR/log/slurmctld.log
check "packed policy, 6 s rounds" it_hetsched_conf "$K_DIR" Policy=max_min_fairness_packed \
	"ThroughputTable=$HS_TABLE" RoundLength=6 MinRoundInterval=1
check "the plugin found the packing interface" wait_log "$log" 60 \
	'sched/hetsched: packing jobs onto shared GPUs: available'
work=$(mktemp -d /tmp/hs-it-sched-pack.XXXXXX)
printf '#!/bin/bash\necho "gpus=$CUDA_VISIBLE_DEVICES node=$SLURMD_NODENAME"\nsrun %s --table %s --time-scale 10\n' \
	"$HS_EMU" "$HS_TABLE" >"$work/emu.sh"
chmod +x "$work/emu.sh"
sub() {
	sbatch --parsable --requeue --open-mode=append -J "$1" -o "$work/$1.out" -H \
		--hs-ckpt-dir="$work/ck/%j" --hs-model="$2" --hs-steps=100000000 --gres=gpu:1 "$work/emu.sh"
}
a=$(sub a "ResNet-18 (batch size 32)")
b=$(sub b "ResNet-18 (batch size 64)")
scontrol release "$a" "$b"
check "both jobs run at once on the one GPU" sh -c "
	for i in \$(seq 60); do [ \$(squeue -h -t R -j $a,$b | wc -l) = 2 ] && exit 0; sleep 1; done; exit 1"
check "the select wrapper logged the packed start" grep -q "select/hetsched_cons_tres: started JobId=[0-9]* packed with JobId=[0-9]*" "$log"
check "sched/hetsched started the second onto the first" grep -Eq "sched/hetsched: started JobId=($a|$b) packed with JobId=($a|$b)" "$log"
sleep 1
check "both see the same GPU (CUDA_VISIBLE_DEVICES)" test "$(grep -h '^gpus=' "$work/a.out" | tail -n 1)" = "$(grep -h '^gpus=' "$work/b.out" | tail -n 1)"
wait_rounds "$K_DIR" 4 120
check "four rounds later both still run, packed" test "$(squeue -h -t R -j "$a,$b" | wc -l)" = 2
check "kept: one incarnation each" test "$(sacct -j "$a" -D -X -n -o State | wc -l)/$(sacct -j "$b" -D -X -n -o State | wc -l)" = 1/1
check "the plan keeps both" test "$(status_field "$K_DIR" '",".join(sorted(j["op"] for j in s["jobs"]))')" = keep,keep
scancel "$a" "$b"
wait_gone 60 "$a" "$b"
check "no GRES underflow or plugin error" sh -c "! grep -Ei 'underflow|error: sched/hetsched' '$log'"
rm -rf "$work"
it_done
