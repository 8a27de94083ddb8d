#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""train.py -- a PyTorch-style training loop that reports every mini-batch
to hetsched and checkpoints when the scheduler asks (doc/protocol.md (d)).

    sbatch --gres=gpu:1 --hs-model='ResNet-18 (batch size 64)' \\
           --hs-steps=2000 --hs-ckpt --requeue --open-mode=append \\
           --wrap 'python3 train.py --steps 2000'

With PyTorch installed it trains a small model on random data on the GPU
Slurm gave the job; without it, a stand-in "model" sleeps per mini-batch so
the example runs anywhere. hetsched_report is pure Python (no PyPI)."""

import argparse
import os
import time

import hetsched_report as hs

try:
    import torch
except ImportError:  # the example still runs, with a stand-in model
    torch = None


def make_training(batch_size):
    if torch is None:
        state = {"w": 0.0}

        def train_step():
            time.sleep(0.01)             # one mini-batch of "compute"
            state["w"] += 1.0
        return state, train_step
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    model = torch.nn.Linear(256, 10).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def train_step():
        x = torch.randn(batch_size, 256, device=dev)
        y = torch.randint(0, 10, (batch_size,), device=dev)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"model": model, "opt": opt}, train_step


def save(path, step, state):
    tmp = path + ".tmp"
    if torch is not None:
        torch.save({"step": step, "model": state["model"].state_dict(),
                    "opt": state["opt"].state_dict()}, tmp)
    else:
        with open(tmp, "w") as f:
            f.write("%d\n" % step)
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, path)                 # atomic: old or new, never torn


def load(path, state):
    if not os.path.exists(path):
        return 0
    if torch is not None:
        ck = torch.load(path)
        state["model"].load_state_dict(ck["model"])
        state["opt"].load_state_dict(ck["opt"])
        return ck["step"]
    with open(path) as f:
        return int(f.read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=int(os.environ.get("HS_STEPS", 1000)))
    ap.add_argument("--batch-size", type=int, default=64)
    args = ap.parse_args()

    state, train_step = make_training(args.batch_size)
    ckpt_dir = hs.ckpt_dir()
    ckpt = os.path.join(ckpt_dir, "train.pt") if ckpt_dir else None
    if ckpt:
        os.makedirs(ckpt_dir, exist_ok=True)
    step = load(ckpt, state) if ckpt else 0
    print("train.py: start at step %d of %d on %s (restart %d)"
          % (step, args.steps, hs.gpu_type(), hs.restart_count()), flush=True)
    hs.ckpt_watch()
    while step < args.steps:
        train_step()
        step += 1
        hs.step(step, samples=step * args.batch_size)   # one call per mini-batch
        if hs.ckpt_requested() and ckpt:
            save(ckpt, step, state)
            hs.checkpoint(step)                          # acknowledge
            print("train.py: checkpoint at step %d" % step, flush=True)
            hs.ckpt_hold()                               # requeued during the hold
    hs.flush()
    print("train.py: done at step %d" % step, flush=True)


if __name__ == "__main__":
    main()
