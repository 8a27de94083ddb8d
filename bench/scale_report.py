#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Summary of one bench/scale.sh run: OUTDIR/{backfill,hetsched*}/ -> text.

hetsched halves: OUTDIR/hetsched, or one OUTDIR/hetsched-LV per MaxLockHold
value V (bench/scale.sh -L); each gets its ratio against backfill.

Per scheduler: time under slurmctld locks per scheduling pass (hetsched:
snapshot + apply of each round, from slurmctld.log, and its longest single
hold: the locks are yielded every MaxLockHold ms; backfill: its backfill
and main-scheduler cycles sampled from sdiag every 3 s, which hold the
locks for the whole cycle unless it yields), round wall time, solve time,
slurmctld peak RSS (VmHWM), sbatch/squeue latency, time until a new job
has a scheduler reason, and where in the queue the jobs that started
during the window came from (MaxJobs). Also one TSV line per scheduler
(results.tsv) for the plot in doc/scale.md.

Usage: scale_report.py OUTDIR QUEUE
"""
import datetime
import os
import re
import sys

ROUND = re.compile(r"^\[([0-9T:.-]+)\] sched/hetsched: round \d+: .*?, (no |FAILED )?([0-9.]+) ms solve, "
                   r"locks ([0-9.]+) ms snapshot \+ ([0-9.]+) ms apply.*?; round ([0-9.]+) ms")
# since MaxLockHold: the longest single hold of the round
HOLD = re.compile(r"longest hold ([0-9.]+) ms, (\d+) yields")
# since the units: the longest stretch between two yield points, and what
UNIT = re.compile(r"longest unit ([0-9.]+) ms \(([^)]*)\)")


def pct(v, p):
    if not v:
        return float("nan")
    v = sorted(v)
    i = max(1, int(len(v) * p / 100.0 + 0.999))
    return v[min(i, len(v)) - 1]


def mean(v):
    return sum(v) / len(v) if v else float("nan")


def nums(path):
    try:
        return [float(x.split()[0]) for x in open(path) if x.strip()]
    except OSError:
        return []


def one(path, default=float("nan")):
    v = nums(path)
    return v[0] if v else default


def ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def hetsched_rounds(d, t0, t1):
    """Per round in the window: time under locks (all holds), wall, solve,
    longest single hold (the whole time under locks before MaxLockHold)
    and yields."""
    lock, wall, solve, hold, yields, units = [], [], [], [], [], []
    try:
        lines = open(os.path.join(d, "slurmctld.log"), errors="replace")
    except OSError:
        return lock, wall, solve, hold, yields, units
    for line in lines:
        m = ROUND.search(line)
        if not m or not t0 <= ts(m.group(1)) <= t1:
            continue
        lock.append(float(m.group(4)) + float(m.group(5)))
        wall.append(float(m.group(6)))
        if m.group(2) is None:
            solve.append(float(m.group(3)))
        h = HOLD.search(line)
        hold.append(float(h.group(1)) if h else max(float(m.group(4)), float(m.group(5))))
        yields.append(int(h.group(2)) if h else 0)
        u = UNIT.search(line)
        if u:
            units.append((float(u.group(1)), u.group(2)))
    return lock, wall, solve, hold, yields, units


def unit_summary(units):
    """What the longest unit of each round was: per kind, rounds, mean and
    max (ms), longest first."""
    by = {}
    for ms, what in units:
        by.setdefault(what, []).append(ms)
    return "; ".join("%s: %d rounds, mean %.1f, max %.1f" % (w, len(v), mean(v), max(v))
                     for w, v in sorted(by.items(), key=lambda x: -max(x[1])))


def sdiag_cycles(d):
    """Distinct (by cycle counter) last-cycle times, ms: main, backfill."""
    main, bf = {}, {}
    try:
        text = open(os.path.join(d, "sdiag.txt")).read()
    except OSError:
        return [], []
    for block in text.split("@@"):
        parts = block.split("Backfilling stats")
        if len(parts) != 2:
            continue
        for part, out, key in ((parts[0], main, "Total cycles"), (parts[1], bf, "Total cycles")):
            c = re.search(key + r":\s+(\d+)", part)
            last = re.search(r"Last cycle:\s+(\d+)", part)
            if c and last and int(c.group(1)) > 0:
                out[int(c.group(1))] = int(last.group(1)) / 1000.0
    return list(main.values()), list(bf.values())


def rpc_window(d, name):
    """Server-side mean time of one RPC type during the window, ms: the
    difference of sdiag's cumulative count and total_time between its first
    and last sample. It includes waiting for slurmctld's locks but not the
    client's start-up, so it depends much less on the machine's load than
    the client-side latency does."""
    pat = re.compile(r"^\s*" + name + r"\s+\(\s*\d+\)\s+count:(\d+)\s+ave_time:\d+\s+total_time:(\d+)", re.M)
    samples = []
    try:
        text = open(os.path.join(d, "sdiag.txt")).read()
    except OSError:
        return float("nan"), 0
    for block in text.split("@@"):
        m = pat.search(block)
        if m:
            samples.append((int(m.group(1)), int(m.group(2))))
    if len(samples) < 2 or samples[-1][0] <= samples[0][0]:
        return float("nan"), 0
    n = samples[-1][0] - samples[0][0]
    return (samples[-1][1] - samples[0][1]) / n / 1000.0, n


def queue_positions(d, t0):
    """Ranks (1-based, priority order at the window's start) of the jobs
    that started during the window; jobs submitted later are not ranked."""
    rank = {}
    try:
        for i, line in enumerate(open(os.path.join(d, "queue_order.txt"))):
            rank[line.split()[0]] = i + 1
        started = []
        for line in open(os.path.join(d, "running_end.txt")):
            jid, start = line.split()[:2]
            try:
                st = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M:%S").timestamp()
            except ValueError:
                continue
            if st >= t0 - 1:
                started.append(rank.get(jid))
    except OSError:
        return [], 0
    return started, len(rank)


def summarize(out, sched):
    d = os.path.join(out, sched)
    t0, t1 = one(os.path.join(d, "window_start")), one(os.path.join(d, "window_end"))
    r = {"sched": sched}
    if sched.startswith("hetsched"):
        lock, wall, solve, hold, yields, units = hetsched_rounds(d, t0, t1)
        r["units"] = unit_summary(units)
        r["passes"] = len(lock)
        r["hold_mean"], r["hold_p99"] = mean(hold), pct(hold, 99)
        r["hold_max"] = max(hold) if hold else float("nan")
        r["yields_mean"] = mean(yields)
    else:
        main, bf = sdiag_cycles(d)
        lock = main + bf
        wall = bf
        solve = []
        r["passes"] = len(lock)
        r["main_mean"], r["main_max"] = mean(main), max(main) if main else float("nan")
        r["bf_mean"], r["bf_max"] = mean(bf), max(bf) if bf else float("nan")
        # not observable from sdiag: backfill yields every bf_yield_interval
        r["hold_mean"] = r["hold_p99"] = r["hold_max"] = r["yields_mean"] = float("nan")
    r["lock_mean"], r["lock_p99"], r["lock_max"] = mean(lock), pct(lock, 99), max(lock) if lock else float("nan")
    r["wall_mean"], r["wall_p99"], r["wall_max"] = mean(wall), pct(wall, 99), max(wall) if wall else float("nan")
    r["solve_mean"], r["solve_max"] = mean(solve), max(solve) if solve else float("nan")
    sb, sq = nums(os.path.join(d, "sbatch_lat.txt")), nums(os.path.join(d, "squeue_lat.txt"))
    r["sbatch_n"], r["sbatch_p50"], r["sbatch_p99"] = len(sb), pct(sb, 50) * 1000, pct(sb, 99) * 1000
    r["squeue_p50"], r["squeue_p99"] = pct(sq, 50) * 1000, pct(sq, 99) * 1000
    r["submit_rpc"], _ = rpc_window(d, "REQUEST_SUBMIT_BATCH_JOB")
    r["jobinfo_rpc"], _ = rpc_window(d, "REQUEST_JOB_INFO")
    load = nums(os.path.join(d, "load.txt"))
    r["load_mean"] = mean(load)
    r["rss_mb"] = one(os.path.join(d, "vmhwm_kb")) / 1024.0
    pr = nums(os.path.join(d, "probe.txt"))
    r["probe_n"], r["probe_p50"], r["probe_max"] = len(pr), pct(pr, 50), max(pr) if pr else float("nan")
    for k in ("startup_s", "fill_s", "queue_submit_s", "teardown_s"):
        r[k] = one(os.path.join(d, k))
    try:
        pend = [x.split("|", 1)[1] for x in open(os.path.join(d, "pending_end.txt")) if "|" in x]
    except OSError:
        pend = []
    r["pending_end"] = len(pend)
    r["cut_end"] = sum("MaxJobs" in x for x in pend)
    ranks, qlen = queue_positions(d, t0)
    known = [x for x in ranks if x is not None]
    r["started"], r["started_queued"] = len(ranks), len(known)
    r["rank_max"] = max(known) if known else 0
    r["beyond_2000"] = sum(x > 2000 for x in known)
    r["qlen"] = qlen
    try:
        r["slurmd_mem"] = open(os.path.join(d, "slurmd_mem")).read().strip()
    except OSError:
        r["slurmd_mem"] = "?"
    return r


def main():
    out, queue = sys.argv[1], int(sys.argv[2])
    b = summarize(out, "backfill")
    names = sorted((x for x in os.listdir(out) if x.startswith("hetsched") and
                    os.path.isdir(os.path.join(out, x))),
                   key=lambda x: (len(x), x))
    hs = [summarize(out, x) for x in names]
    rows = [
        ("scheduling passes in the window", "passes", "%d"),
        ("time under locks per pass, mean (ms)", "lock_mean", "%.1f"),
        ("time under locks per pass, p99 (ms)", "lock_p99", "%.1f"),
        ("time under locks per pass, max (ms)", "lock_max", "%.1f"),
        ("longest single lock hold per round, mean (ms)", "hold_mean", "%.1f"),
        ("longest single lock hold per round, p99 (ms)", "hold_p99", "%.1f"),
        ("longest single lock hold per round, max (ms)", "hold_max", "%.1f"),
        ("lock yields per round, mean", "yields_mean", "%.1f"),
        ("round wall time (hetsched) / backfill cycle, mean (ms)", "wall_mean", "%.1f"),
        ("round wall / backfill cycle, p99 (ms)", "wall_p99", "%.1f"),
        ("round wall / backfill cycle, max (ms)", "wall_max", "%.1f"),
        ("solve, mean (ms)", "solve_mean", "%.1f"),
        ("solve, max (ms)", "solve_max", "%.1f"),
        ("slurmctld peak RSS, VmHWM (MB)", "rss_mb", "%.0f"),
        ("sbatch latency p50 (ms)", "sbatch_p50", "%.0f"),
        ("sbatch latency p99 (ms)", "sbatch_p99", "%.0f"),
        ("sbatches in the window", "sbatch_n", "%d"),
        ("squeue (full listing) latency p50 (ms)", "squeue_p50", "%.0f"),
        ("squeue latency p99 (ms)", "squeue_p99", "%.0f"),
        ("sbatch RPC in slurmctld, window mean (ms, sdiag)", "submit_rpc", "%.1f"),
        ("squeue RPC (REQUEST_JOB_INFO) in slurmctld, mean (ms)", "jobinfo_rpc", "%.1f"),
        ("machine load average in the window, mean", "load_mean", "%.1f"),
        ("new job until it has a reason, p50 (s)", "probe_p50", "%.1f"),
        ("new job until it has a reason, max (s)", "probe_max", "%.1f"),
        ("cluster start-up (s)", "startup_s", "%.0f"),
        ("running jobs started in (s)", "fill_s", "%.0f"),
        ("queue submitted in (s)", "queue_submit_s", "%.0f"),
        ("tear-down (s)", "teardown_s", "%.0f"),
        ("pending at the end", "pending_end", "%d"),
        ("of which 'more than MaxJobs'", "cut_end", "%d"),
        ("jobs started in the window", "started", "%d"),
        ("  of them queued at its start", "started_queued", "%d"),
        ("  deepest queue rank among those", "rank_max", "%d"),
        ("  ranked beyond 2000", "beyond_2000", "%d"),
    ]
    print("queue %d (queued at window start: backfill %d, %s)" % (
        queue, b["qlen"], ", ".join("%s %d" % (h["sched"], h["qlen"]) for h in hs)))
    head = "%-58s %12s" % ("", "backfill")
    for h in hs:
        head += " %14s %7s" % (h["sched"], "ratio")
    print(head)

    def cell(r, k, f):
        return f % r[k] if r[k] == r[k] else "n/a"
    for label, k, f in rows:
        line = "%-58s %12s" % (label, cell(b, k, f))
        for h in hs:
            ok = isinstance(b[k], float) and b[k] != 0.0 and b[k] == b[k]
            line += " %14s %7.2f" % (cell(h, k, f), h[k] / b[k] if ok else float("nan"))
        print(line)
    print("backfill: main cycle mean %.1f max %.1f ms; backfill cycle mean %.1f max %.1f ms"
          % (b["main_mean"], b["main_max"], b["bf_mean"], b["bf_max"]))
    for h in hs:
        if h.get("units"):
            print("%s: longest unit between yield points per round, by kind (ms): %s"
                  % (h["sched"], h["units"]))
    print("slurmd memory: backfill run %s; %s" % (
        b["slurmd_mem"], "; ".join("%s run %s" % (h["sched"], h["slurmd_mem"]) for h in hs)))
    # Rewritten, not appended: one run, one file (the plot cats several).
    with open(os.path.join(out, "results.tsv"), "w") as f:
        for r in [b] + hs:
            # column 15, added last so older files still plot: the p99
            # of the longest single hold per round
            f.write("%d\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\n" % (
                r["qlen"], r["sched"], r["lock_mean"], r["lock_p99"], r["lock_max"],
                r["wall_mean"], r["wall_max"], r["rss_mb"], r["sbatch_p99"], r["squeue_p99"],
                r["submit_rpc"], r["jobinfo_rpc"], r["solve_mean"], r["load_mean"], r["hold_p99"]))


if __name__ == "__main__":
    main()
