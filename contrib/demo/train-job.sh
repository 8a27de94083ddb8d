#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# train-job.sh EMULATOR TABLE TIME_SCALE [MODEL] — the demo's training job.
# contrib/demo.sh submits it with sbatch --hs-model/--hs-steps/--hs-ckpt-dir
# (spank_hetsched puts them in HS_MODEL, HS_STEPS, HS_CKPT_DIR, and the GPU
# type the job was given in HS_GPU_TYPE). hetsched-emulator then trains
# like that model does on that GPU type (Gavel's measured throughput,
# time-scaled), reports every mini-batch, checkpoints when the scheduler
# asks and resumes from its checkpoint when Slurm starts it again (after a
# preemption or a migration, maybe on another type). Its output is appended
# (--open-mode=append), one block per incarnation. With MODEL (demo.sh
# --unknown-models: no --hs-model, the scheduler is not told) the emulator
# trains as MODEL, told on its command line only.
emu=${1:?emulator}
table=${2:?table}
scale=${3:?time scale}
model=${4:-}
echo "start: job=${SLURM_JOB_ID:-?} restart=${SLURM_RESTART_COUNT:-0} node=${SLURMD_NODENAME:-?}" \
	"HS_GPU_TYPE=${HS_GPU_TYPE-unset} CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset}"
if [ -n "$model" ]; then
	exec srun "$emu" --table "$table" --time-scale "$scale" --progress 10 --model "$model"
fi
exec srun "$emu" --table "$table" --time-scale "$scale" --progress 10
