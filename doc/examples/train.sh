#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# train.sh — a shell training loop that reports to hetsched with the
# hetsched-report command and checkpoints when the scheduler asks.
#
#   sbatch --gres=gpu:1 --hs-ckpt --requeue --open-mode=append train.sh 300
#
# SIGURG (the default checkpoint signal, $HS_CKPT_SIGNAL) is ignored by
# default, so a script that does not trap it is never harmed by it.
total=${1:-300}
ckpt=${HS_CKPT_DIR:+$HS_CKPT_DIR/train.step}
step=0
[ -n "$ckpt" ] && [ -s "$ckpt" ] && step=$(cat "$ckpt")
echo "train.sh: start at step $step of $total on ${HS_GPU_TYPE:-unknown}"
requested=
trap 'requested=1' "${HS_CKPT_SIGNAL:-URG}"
while [ "$step" -lt "$total" ]; do
	sleep 0.05                                    # one mini-batch
	step=$((step + 1))
	hetsched-report step "$step"
	if [ -n "$requested" ] && [ -n "$ckpt" ]; then
		mkdir -p "$HS_CKPT_DIR"
		echo "$step" >"$ckpt.tmp" && sync "$ckpt.tmp" && mv "$ckpt.tmp" "$ckpt"
		hetsched-report ckpt "$step"                  # acknowledge
		echo "train.sh: checkpoint at step $step"
		requested=
		hetsched-report hold                          # requeued during the hold
	fi
done
echo "train.sh: done at step $step"
