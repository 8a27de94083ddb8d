#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""start_error.py OUT ROUND_S — how good the expected start times that
users see (squeue --start) were in a bench/cluster_bench.sh run.

For each scheduler directory OUT/<sched>/ with start_est.txt (lines "now
jobid start", sampled from squeue every 5 s) and sacct.txt (sacct -D -X -P:
JobIDRaw|State|Submit|Start|End|...), every job that was seen pending with
an expected start gets two predictions: its first one, and its first one
made at least ROUND_S after submission (once a round has run); so does
each wait after a requeue ("restart"). Each is compared with the start
that ended the wait (sacct -D's Start of the next incarnation) as an
absolute error, next to the naive baseline "starts now" (the time the
prediction was read) on the same waits. Prints a Markdown
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


def incarnations(path):
    """jobid -> (first submit, sorted (start, end) of its incarnations) from
    sacct -D lines (a requeue gives the next incarnation a new Submit)."""
    subs, runs = {}, {}
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("|")
            if len(p) < 5:
                continue
            sub, st, end = epoch(p[2]), epoch(p[3]), epoch(p[4])
            if sub is None or st is None:
                continue
            subs[p[0]] = min(subs.get(p[0], sub), sub)
            runs.setdefault(p[0], []).append((st, end))
    return {j: (subs[j], sorted(runs[j])) for j in subs}


def predictions(path, jobs, round_s):
    """(jobid, incarnation) -> {"first": (t, pred, start), "after_round":
    ...}: for each time a job waited (incarnation 0: before its first
    start; n > 0: after a requeue, before its n-th restart), its first
    prediction and its first one made at least ROUND_S into the wait."""
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) != 3 or p[1] not in jobs:
                continue
            now, pred = float(p[0]), epoch(p[2])
            sub, runs = jobs[p[1]]
            n = sum(1 for st, end in runs if st <= now)   # incarnations begun
            if pred is None or n >= len(runs):
                continue
            # a wait after a requeue begins when the previous run ended
            began = sub if n == 0 else (runs[n - 1][1] or now)
            d = out.setdefault((p[1], n), {})
            d.setdefault("first", (now, pred, runs[n][0]))
            if now >= began + round_s:
                d.setdefault("after_round", (now, pred, runs[n][0]))
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
    print("pending job, against the start that ended that wait (the first start,")
    print("or after a requeue the restart); baseline: \"starts now\" (the time the")
    print("prediction was read), on the same waits.\n")
    print("| scheduler | prediction | n | mean (s) | median (s) | p90 (s) "
          "| mean / baseline | median / baseline | p90 / baseline |")
    print("|---|---|---|---|---|---|---|---|---|")
    own = {}
    for sched in sorted(os.listdir(out)):
        est = os.path.join(out, sched, "start_est.txt")
        acct = os.path.join(out, sched, "sacct.txt")
        if not (os.path.isfile(est) and os.path.isfile(acct)):
            continue
        preds = predictions(est, incarnations(acct), round_s)
        for kind, restarts in (("first", False), ("after_round", False),
                               ("first", True), ("after_round", True)):
            chosen = [d[kind] for (jid, n), d in preds.items()
                      if kind in d and (n > 0) == restarts]
            errs = [abs(pred - st) for t, pred, st in chosen]
            base = [abs(t - st) for t, pred, st in chosen]
            label = ("restart, " if restarts else "") + \
                ("first" if kind == "first" else "first after %g s" % round_s)
            if not errs:
                print("| %s | %s | 0 | | | | | | |" % (sched, label))
                continue
            e, b = stats(errs), stats(base)
            own[(sched, kind, restarts)] = e
            r = ["%.2f" % (e[i] / b[i]) if b[i] > 0 else "-" for i in (1, 2, 3)]
            # backfill plans a running job without a time limit to run a
            # year (YEAR_SECONDS in backfill.c): its followers' starts
            # are then about a year ahead, which says "unknown".
            far = sum(1 for t, pred, st in chosen if pred - t > 300 * 86400)
            if far:
                label += " (%d of them a year ahead)" % far
            print("| %s | %s | %d | %.0f | %.0f | %.0f | %s | %s | %s |" % (sched, label, e[0], e[1], e[2], e[3], *r))
            print("| %s | baseline \"now\" | %d | %.0f | %.0f | %.0f | 1 | 1 | 1 |" % (sched, b[0], b[1], b[2], b[3]))
    h, bf = own.get(("hetsched", "first", False)), own.get(("backfill", "first", False))
    if h and bf and bf[2] > 300 * 86400:
        print("\nbackfill gave no usable estimate (a year ahead: the jobs have no time limit)")
    elif h and bf and bf[1] > 0:
        print("\nhetsched's mean error of the first prediction / backfill's: %.2f"
              " (median %s)" % (h[1] / bf[1], "%.2f" % (h[2] / bf[2]) if bf[2] > 0 else "-"))


if __name__ == "__main__":
    main()
