#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""cluster_report.py OUT GPUS PENDING — the summary of bench/cluster_bench.sh.

Reads OUT/{backfill,hetsched}/{submitted.txt,sacct.txt,slurmctld*.log,
sdiag.txt} and prints (markdown) average JCT, makespan and GPU utilization
of both schedulers with hetsched/backfill ratios, and hetsched's per-round
solve time and time under slurmctld locks, in the workload and with the
long queue, next to backfill's cycle time (sdiag) with the same queue.

JCT of a job = end of its last incarnation - the time sbatch returned.
Makespan = last end - first submission. GPU utilization = GPU-seconds
allocated over every incarnation (sacct -D AllocTRES gres/gpu x run time)
/ (GPUs x makespan); time a preempted job spent before its checkpoint
counts as allocated (it is, even if some of it is repeated work).
"""
import os
import re
import statistics
import sys
import time


def epoch(s):
    if not s or s in ("Unknown", "None"):
        return None
    return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))


def run_metrics(d, ngpus):
    sub = {}
    for line in open(os.path.join(d, "submitted.txt")):
        jid, t, _sf, _steps = line.split()
        sub[jid] = float(t)
    inc = {}
    for line in open(os.path.join(d, "sacct.txt")):
        f = line.rstrip("\n").split("|")
        if len(f) < 7 or f[0] not in sub:
            continue
        inc.setdefault(f[0], []).append(f)
    ends, gpu_s, jct, extra, unfinished = [], 0.0, [], 0, 0
    for jid, rows in inc.items():
        last = None
        for f in rows:
            st, en = epoch(f[3]), epoch(f[4])
            m = re.search(r"gres/gpu=(\d+)", f[6])
            g = int(m.group(1)) if m else 0
            if st and en and en >= st:
                gpu_s += g * (en - st)
                last = en if last is None or en > last else last
        final = rows[-1][1]
        if final != "COMPLETED" or last is None:
            unfinished += 1
            continue
        extra += len(rows) - 1
        ends.append(last)
        jct.append(last - sub[jid])
    t0 = min(sub.values())
    makespan = max(ends) - t0 if ends else float("nan")
    return {
        "jobs": len(sub),
        "completed": len(jct),
        "unfinished": unfinished,
        "avg_jct": statistics.mean(jct) if jct else float("nan"),
        "makespan": makespan,
        "util": gpu_s / (ngpus * makespan) if ends else float("nan"),
        "restarts": extra,
    }


ROUND = re.compile(r"sched/hetsched: round \d+: .*?, (no |FAILED )?([0-9.]+) ms solve, "
                   r"locks ([0-9.]+) ms snapshot \+ ([0-9.]+) ms apply")


def rounds(lines):
    solve, lock = [], []
    for line in lines:
        m = ROUND.search(line)
        if not m:
            continue
        if m.group(1) is None:
            solve.append(float(m.group(2)))
        lock.append(float(m.group(3)) + float(m.group(4)))
    return solve, lock


def stats(v):
    if not v:
        return "n/a"
    v = sorted(v)
    p95 = v[min(len(v) - 1, int(round(0.95 * (len(v) - 1))))]
    return "%.2f / %.2f / %.2f (n=%d)" % (statistics.mean(v), p95, v[-1], len(v))


def sdiag(d):
    res = {}
    try:
        text = open(os.path.join(d, "sdiag.txt")).read()
    except OSError:
        return res
    part = text.split("Backfilling stats", 1)
    if len(part) == 2:
        for key in ("Last cycle", "Max cycle", "Mean cycle"):
            m = re.search(key + r":\s+(\d+)", part[1])
            if m:
                res[key] = int(m.group(1)) / 1000.0  # us -> ms
    return res


def main():
    out, gpus, pending = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ngpus = sum(int(n) * int(g) for _t, n, g in (s.split(":") for s in gpus.split(",")))
    bf = run_metrics(os.path.join(out, "backfill"), ngpus)
    hs = run_metrics(os.path.join(out, "hetsched"), ngpus)
    print("# sched/hetsched vs sched/backfill on a local cluster (%s, %d GPUs)\n" % (gpus, ngpus))
    print("Same workload (%d jobs, bench/cluster_bench.sh), both runs in this command.\n" % bf["jobs"])
    print("| metric | backfill | hetsched | hetsched / backfill |")
    print("|---|---|---|---|")

    def row(name, key, fmt, better):
        r = hs[key] / bf[key] if bf[key] else float("nan")
        print("| %s | %s | %s | %.2f (%s) |" % (name, fmt % bf[key], fmt % hs[key], r, better))
    row("average JCT (s)", "avg_jct", "%.0f", "< 1 is better")
    row("makespan (s)", "makespan", "%.0f", "< 1 is better")
    row("GPU utilization", "util", "%.2f", "allocated GPU time")
    print("| restarts (extra incarnations) | %d | %d | |" % (bf["restarts"], hs["restarts"]))
    print("| jobs completed | %d/%d | %d/%d | |" % (bf["completed"], bf["jobs"], hs["completed"], hs["jobs"]))

    per_job(out)

    hdir = os.path.join(out, "hetsched")
    before = open(os.path.join(hdir, "slurmctld-before-queue.log"), errors="replace").read().splitlines()
    full = open(os.path.join(hdir, "slurmctld.log"), errors="replace").read().splitlines()
    s_w, l_w = rounds(before)
    s_q, l_q = rounds(full[len(before):])
    print("\n## Per-round cost of sched/hetsched (ms: mean / p95 / max)\n")
    print("| phase | solve (rounds that solved) | time under slurmctld locks (snapshot + apply) |")
    print("|---|---|---|")
    print("| workload | %s | %s |" % (stats(s_w), stats(l_w)))
    print("| %d pending jobs | %s | %s |" % (pending, stats(s_q), stats(l_q)))
    bd = sdiag(os.path.join(out, "backfill"))
    if bd:
        print("\nBackfill with the same %d pending jobs (sdiag, ms): last cycle %.2f, max cycle %.2f"
              " (its mean, %.2f, also counts the cycles of the workload phase)."
              % (pending, bd.get("Last cycle", float("nan")), bd.get("Max cycle", float("nan")),
                 bd.get("Mean cycle", float("nan"))))
        if l_q and bd.get("Last cycle"):
            print("hetsched mean lock hold per round / backfill's last cycle = %.3f (backfill holds "
                  "its locks through a cycle, yielding them every 2 s by default)."
                  % (statistics.mean(l_q) / bd["Last cycle"]))
    if l_q:
        print("\nTarget: lock hold per round well under 100 ms with %d pending jobs: max %.2f ms."
              % (pending, max(l_q)))
    load = load_summary(out)
    if load:
        print("\n%s" % load)


def incarnations(d):
    """Per job: (submit time, [(end, node type)] of every incarnation)."""
    sub = {}
    for line in open(os.path.join(d, "submitted.txt")):
        f = line.split()
        sub[f[0]] = float(f[1])
    inc = {}
    for line in open(os.path.join(d, "sacct.txt")):
        f = line.rstrip("\n").split("|")
        if len(f) >= 7 and f[0] in sub:
            inc.setdefault(f[0], []).append((epoch(f[4]), f[5].split("-")[0]))
    return sub, inc


def per_job(out):
    """Per-job table (markdown) and OUT/jct.dat for bench/cluster_jct.gp."""
    try:
        wl = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "workload.txt"))]
        runs = [incarnations(os.path.join(out, s)) for s in ("backfill", "hetsched")]
    except OSError:
        return
    print("\n## Per job (JCT in s; GPU types of every incarnation in order)\n")
    print("| job | model | GPUs | backfill | hetsched |")
    print("|---|---|---|---|---|")
    with open(os.path.join(out, "jct.dat"), "w") as dat:
        dat.write("# job backfill_jct hetsched_jct\n")
        for i, w in enumerate(wl):
            jid, cells, jcts = str(i + 1), [], []
            for sub, inc in runs:
                rows = inc.get(jid, [])
                ends = [e for e, _t in rows if e]
                if jid not in sub or not ends:
                    cells.append("unfinished")
                    jcts.append("nan")
                    continue
                jct = max(ends) - sub[jid]
                jcts.append("%.0f" % jct)
                cells.append("%.0f on %s" % (jct, " > ".join(t for _e, t in rows)))
            print("| %s | %s | %s | %s | %s |" % (jid, w[1], w[3], cells[0], cells[1]))
            dat.write("%s %s %s\n" % (jid, jcts[0], jcts[1]))


def load_summary(out):
    """The machine's 1-minute load average over the run (load.txt)."""
    try:
        vals = [float(l.split()[1]) for l in open(os.path.join(out, "load.txt")) if l.strip()]
    except (OSError, ValueError, IndexError):
        return ""
    if not vals:
        return ""
    return ("Load average (1 min) during the run, sampled every 30 s: mean %.1f, min %.1f, "
            "max %.1f on %d CPUs (shared machine)." % (statistics.mean(vals), min(vals), max(vals),
                                                        os.cpu_count() or 0))


if __name__ == "__main__":
    main()
