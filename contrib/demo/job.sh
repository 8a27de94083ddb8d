#!/bin/sh
# job.sh MODEL SECONDS — the demo's job: reports where it runs and which
# GPUs Slurm gave it, then works for SECONDS. contrib/demo.sh submits it
# with sbatch; --job-cmd replaces it (e.g. by a hetsched-emulator run).
model=${1:?model}
secs=${2:?seconds}
# HS_GPU_TYPE is set by spank_hetsched from the job's GRES.
echo "model=$model node=${SLURMD_NODENAME:-?} job=${SLURM_JOB_ID:-?} CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} HS_GPU_TYPE=${HS_GPU_TYPE-unset}"
sleep "$secs"
echo "done"
