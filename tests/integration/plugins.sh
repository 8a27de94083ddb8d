#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# plugins.sh — our three plugins load where they must: slurmctld loads
# sched/hetsched and select/hetsched_cons_tres (log lines, scontrol show
# config), slurmd and slurmstepd load spank_hetsched (log lines), sbatch
# loads it too, `scontrol reconfigure` reaches sched_p_reconfig, and the
# clients that unpack select data (sinfo, scontrol, squeue) keep working
# with the wrapper. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
it_begin "slurmctld, slurmd, slurmstepd and sbatch load the hetsched plugins"

# shellcheck disable=SC2046
it_cluster_up p --gpus v100:1:2,k80:1:2 $(it_plugin_opts) --plugstack "$(it_plugstack_line)" \
	--conf-extra 'SchedulerParameters=defer,sched_interval=-1' ||
	bail "cluster with our plugins did not come up"
log=$P_DIR/log
# sched/hetsched starts the jobs (Slurm's FIFO is off): short rounds.
it_hetsched_conf "$P_DIR" RoundLength=2 MinRoundInterval=1

conf=$(scontrol show config)
check "scontrol: SchedulerType = sched/hetsched" grep -Eq '^SchedulerType += sched/hetsched$' <<<"$conf"
check "scontrol: SelectType = select/hetsched_cons_tres" grep -Eq '^SelectType += select/hetsched_cons_tres$' <<<"$conf"
check "scontrol: PluginDir starts with the staging dir" grep -Eq "^PluginDir += $HS_STAGE:" <<<"$conf"
check "plugstack.conf loads spank_hetsched.so" grep -qx "required $HS_STAGE/spank_hetsched.so" "$P_DIR/etc/plugstack.conf"

check "slurmctld loaded sched/hetsched" grep -q 'sched/hetsched: loaded' "$log/slurmctld.log"
check "slurmctld: select wrapper forwards to cons_tres" \
	grep -q 'select/hetsched_cons_tres: forwarding every operation to select/cons_tres' "$log/slurmctld.log"
check "slurmctld: no plugin errors" sh -c "! grep -Ei 'error.*(hetsched|plugin_id|select/)' '$log/slurmctld.log'"
check "every slurmd loaded spank_hetsched" test "$(grep -l 'spank/hetsched: loaded in slurmd context' "$log"/slurmd-*.log | wc -l)" -eq 2

j=$(sbatch --parsable -o /dev/null --gres=gpu:k80:1 --wrap true)
check "a job runs with the plugins loaded" it_wait_jobs 60 "$j"
check "slurmstepd loaded spank_hetsched" grep -q "\[$j.batch\] spank/hetsched: loaded in remote (slurmstepd) context" "$log/slurmd-k80-1.log"

# sbatch prints nothing at its default log level; the dynamic loader shows
# that it opened (and kept) our SPANK plugin.
LD_DEBUG=files sbatch --parsable -o /dev/null --wrap true >/dev/null 2>"$P_DIR/sbatch.ld"
check "sbatch loads spank_hetsched.so" grep -q "file=$HS_STAGE/spank_hetsched.so .*dynamically loaded" "$P_DIR/sbatch.ld"
# Up to 22.05 clients unpack select data by plugin_id and load every
# select plugin; from 23.11 sbatch loads none (src/interfaces/select.c).
if [ "$(it_slurm_series)" -lt 2311 ]; then
	check "sbatch loads the select wrapper (clients unpack by plugin_id)" \
		grep -q "file=$HS_STAGE/select_hetsched_cons_tres.so .*dynamically loaded" "$P_DIR/sbatch.ld"
else
	skip "sbatch loads the select wrapper" "Slurm $(it_slurm_series): clients load no select plugin"
fi

before=$(grep -c 'sched/hetsched: reconfigured' "$log/slurmctld.log")
scontrol reconfigure
sleep 2
after=$(grep -c 'sched/hetsched: reconfigured' "$log/slurmctld.log")
check "scontrol reconfigure reaches sched_p_reconfig" test "$after" -gt "$before"

check "sinfo works with the wrapper" test "$(sinfo -h -N -o '%N %G' | sort | tr '\n' ' ')" = "k80-1 gpu:k80:2 v100-1 gpu:v100:2 "
check "scontrol show node works with the wrapper" sh -c "scontrol show node v100-1 | grep -q 'CfgTRES=.*gres/gpu:v100=2'"
jr=$(sbatch --parsable -o /dev/null --gres=gpu:v100:2 --wrap 'sleep 30')
# wait for the start instead of a fixed 3 s: from 23.11 the reconfigure
# above restarts slurmctld, and the first round of the new process may
# come later than that
end=$(($(date +%s) + 60))
until [ "$(squeue -h -j "$jr" -o %T)" = RUNNING ] || [ "$(date +%s)" -ge "$end" ]; do sleep 1; done
check "squeue shows a running job on v100-1" test "$(squeue -h -j "$jr" -o '%T %N')" = "RUNNING v100-1"
check "scontrol show job -d shows its GPUs" sh -c "scontrol show job -d $jr | grep -q 'GRES=gpu:v100:2(IDX:0-1)'"
# CPU counts come from the select plugin's node data, unpacked by sinfo.
check "sinfo shows v100-1 mixed with 1 of 8 CPUs allocated" test "$(sinfo -h -n v100-1 -o '%T %C')" = "mixed 1/7/0/8"
scancel "$jr"
check "no slurmd logged an error about our plugins" sh -c "! grep -Ei 'error.*hetsched' '$log'/slurmd-*.log"
it_done
