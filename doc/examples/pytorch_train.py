#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""pytorch_train.py -- a real PyTorch training job for hetsched: a small MLP
classifier trained with SGD on a synthetic, learnable data set (labels from
a fixed random "teacher" network), on the GPU Slurm gave the job or on CPU.

What hetsched needs from it is two lines, marked "hetsched (1/2)" and
"(2/2)" below: import the module, and report each mini-batch. The
scheduler then schedules the job on its measured mini-batch throughput
(doc/reporting.md). The checkpoint block marked "hetsched (optional)" lets
the scheduler migrate or preempt the job; without --hs-ckpt it never runs.

    sbatch --gres=gpu:v100:1 --hs-steps=20000 --hs-ckpt --requeue \\
           --open-mode=append --wrap 'python3 pytorch_train.py --steps 20000'

Needs PyTorch (Debian: python3-torch) and hetsched_report (python/ in the
hetsched sources: python3 -m pip install ./python, or `make install`).
Prints its own measured steps/s, to compare with what the scheduler saw.
"""

import argparse
import os
import time

import torch

import hetsched_report as hs                      # hetsched (1/2)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=int(os.environ.get("HS_STEPS") or 1000),
                    help="total mini-batches (default: $HS_STEPS from --hs-steps, else 1000)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=512, help="width of the two hidden layers")
    ap.add_argument("--features", type=int, default=256)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--samples", type=int, default=16384, help="size of the synthetic data set")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--threads", type=int,
                    default=int(os.environ.get("SLURM_CPUS_PER_TASK") or 0),
                    help="CPU threads (default: the job's CPUs per task, else PyTorch's choice)")
    ap.add_argument("--log-every", type=float, default=10.0,
                    help="seconds between progress lines (each with the steps/s since the last)")
    ap.add_argument("--max-seconds", type=float, default=0,
                    help="also stop after this many seconds of training (0: no limit)")
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args()


def synthetic_data(args):
    """Inputs ~ N(0, 1); labels = argmax of a fixed random two-layer net."""
    g = torch.Generator().manual_seed(args.seed)
    x = torch.randn(args.samples, args.features, generator=g)
    w1 = torch.randn(args.features, 64, generator=g)
    w2 = torch.randn(64, args.classes, generator=g)
    y = (torch.tanh(x @ w1) @ w2).argmax(dim=1)
    return x, y


def save_checkpoint(path, step, model, opt, gen):
    tmp = path + ".tmp"
    torch.save({"step": step, "model": model.state_dict(), "opt": opt.state_dict(),
                "gen": gen.get_state()}, tmp)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)                         # atomic: old or new, never torn


def main():
    args = parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x, y = synthetic_data(args)
    x, y = x.to(dev), y.to(dev)
    model = torch.nn.Sequential(
        torch.nn.Linear(args.features, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, args.classes)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    gen = torch.Generator().manual_seed(args.seed + 1)   # mini-batch order

    step = 0
    # hetsched (optional): resume from, and checkpoint into, $HS_CKPT_DIR.
    ckpt = os.path.join(hs.ckpt_dir(), "pytorch_train.pt") if hs.ckpt_dir() else None
    if ckpt:
        os.makedirs(hs.ckpt_dir(), exist_ok=True)
        if os.path.exists(ckpt):
            state = torch.load(ckpt, map_location=dev)
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            gen.set_state(state["gen"])
            step = state["step"]
        hs.ckpt_watch()
    print("pytorch_train.py: torch %s on %s (%d threads), GPU type %s, step %d of %d, restart %d"
          % (torch.__version__, dev, torch.get_num_threads(), hs.gpu_type(), step,
             args.steps, hs.restart_count()), flush=True)

    first = step
    held = 0.0                                    # seconds in checkpoint holds
    t0 = t_log = time.monotonic()
    step_log = step
    loss = None
    while step < args.steps:
        if args.max_seconds > 0 and time.monotonic() - t0 - held >= args.max_seconds:
            break
        idx = torch.randint(0, args.samples, (args.batch_size,), generator=gen).to(dev)
        loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        hs.step(step, samples=step * args.batch_size)   # hetsched (2/2)

        if ckpt and hs.ckpt_requested():          # hetsched (optional)
            save_checkpoint(ckpt, step, model, opt, gen)
            hs.checkpoint(step)                   # acknowledge
            print("pytorch_train.py: checkpoint at step %d" % step, flush=True)
            t_hold = time.monotonic()
            hs.ckpt_hold()                        # requeued during the hold
            held += time.monotonic() - t_hold     # the hold is no training
            t_log, step_log = time.monotonic(), step
        now = time.monotonic()
        if now - t_log >= args.log_every:
            print("pytorch_train.py: step %d loss %.4f %.2f steps/s over the last %.3f s"
                  % (step, loss.item(), (step - step_log) / (now - t_log), now - t_log),
                  flush=True)
            t_log, step_log = now, step
    elapsed = time.monotonic() - t0 - held
    hs.flush()
    if step > first and elapsed > 0:
        print("pytorch_train.py: done at step %d, loss %.4f; %d steps in %.2f s: %.3f steps/s"
              " (own clock)" % (step, loss.item(), step - first, elapsed,
                                (step - first) / elapsed), flush=True)
    else:
        print("pytorch_train.py: done at step %d (nothing to train)" % step, flush=True)


if __name__ == "__main__":
    main()
