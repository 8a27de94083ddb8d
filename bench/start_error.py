#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""start_error.py OUT ROUND_S — how good the expected start times that
users see (squeue --start) were in a bench/cluster_bench.sh run.

For each scheduler directory OUT/<sched>/ with start_est.txt (lines "now
jobid start", sampled from squeue every 5 s) and sacct.txt (sacct -D -X -P:
JobIDRaw|State|Submit|Start|End|...), every job that was seen pending with
an expected start gets two predictions: its first one, and its first one
made at least ROUND_S after submission (once a round has run). Each is
compared with the job's actual first start (the earliest Start over its
incarnations) as an absolute error, next to the naive baseline "starts now"
(the time the prediction was read) on the same jobs. Prints a Markdown
table: n, mean, median and p90 of the error in seconds, and each as a ratio
to the baseline's; a last line compares the schedulers' own errors."""
import os
import sys
from datetime import datetime


def epoch(s):
    """sacct/squeue time (local, ISO without zone) -> epoch s, or None."""
    if not s or s in ("N/A", "Unknown", "None"):
        return None
    try:
        return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp()
    except ValueError:
        return None


def actual_starts(path):
    """jobid -> (first submit, first start) over a job's incarnations in
    sacct -D lines (a requeue gives the next incarnation a new Submit)."""
    out = {}
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("|")
            if len(p) < 4:
                continue
            sub, st = epoch(p[2]), epoch(p[3])
            if sub is None or st is None:
                continue
            old = out.get(p[0], (sub, st))
            out[p[0]] = (min(old[0], sub), min(old[1], st))
    return out


def predictions(path, starts, round_s):
    """jobid -> {"first": (t, pred), "after_round": (t, pred)} for jobs
    whose expected start squeue showed while they had not started."""
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) != 3 or p[1] not in starts:
                continue
            now, pred = float(p[0]), epoch(p[2])
            sub, first = starts[p[1]]
            if pred is None or now >= first:   # only before the first start
                continue
            d = out.setdefault(p[1], {})
            d.setdefault("first", (now, pred))
            if sub is not None and now >= sub + round_s:
                d.setdefault("after_round", (now, pred))
    return out


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def stats(errs):
    return (len(errs), sum(errs) / len(errs), quantile(errs, 0.5), quantile(errs, 0.9))


def main():
    out, round_s = sys.argv[1], float(sys.argv[2])
    print("\n## Expected start times (squeue --start) against actual starts\n")
    print("Absolute error in seconds of the expected start squeue showed for a")
    print("pending job, against its actual first start; baseline: \"starts now\"")
    print("(the time the prediction was read), on the same jobs.\n")
    print("| scheduler | prediction | n | mean (s) | median (s) | p90 (s) "
          "| mean / baseline | median / baseline | p90 / baseline |")
    print("|---|---|---|---|---|---|---|---|---|")
    own = {}
    for sched in sorted(os.listdir(out)):
        est = os.path.join(out, sched, "start_est.txt")
        acct = os.path.join(out, sched, "sacct.txt")
        if not (os.path.isfile(est) and os.path.isfile(acct)):
            continue
        starts = actual_starts(acct)
        preds = predictions(est, starts, round_s)
        for kind in ("first", "after_round"):
            errs, base = [], []
            for jid, d in preds.items():
                if kind in d:
                    t, pred = d[kind]
                    errs.append(abs(pred - starts[jid][1]))
                    base.append(abs(t - starts[jid][1]))
            label = "first" if kind == "first" else "first after %g s" % round_s
            if not errs:
                print("| %s | %s | 0 | | | | | | |" % (sched, label))
                continue
            e, b = stats(errs), stats(base)
            own[(sched, kind)] = e
            r = ["%.2f" % (e[i] / b[i]) if b[i] > 0 else "-" for i in (1, 2, 3)]
            # backfill plans a running job without a time limit to run a
            # year (YEAR_SECONDS in backfill.c): its followers' starts
            # are then about a year ahead, which says "unknown".
            far = sum(1 for jid, d in preds.items()
                      if kind in d and d[kind][1] - d[kind][0] > 300 * 86400)
            if far:
                label += " (%d of them a year ahead)" % far
            print("| %s | %s | %d | %.0f | %.0f | %.0f | %s | %s | %s |" % (sched, label, e[0], e[1], e[2], e[3], *r))
            print("| %s | baseline \"now\" | %d | %.0f | %.0f | %.0f | 1 | 1 | 1 |" % (sched, b[0], b[1], b[2], b[3]))
    h, bf = own.get(("hetsched", "first")), own.get(("backfill", "first"))
    if h and bf and bf[1] > 0:
        print("\nhetsched's mean error of the first prediction / backfill's: %.2f"
              " (median %s)" % (h[1] / bf[1], "%.2f" % (h[2] / bf[2]) if bf[2] > 0 else "-"))


if __name__ == "__main__":
    main()
