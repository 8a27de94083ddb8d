#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""report.py -- prints the outcome of contrib/demo.sh runs from sacct.

  report.py TABLE SCALE RUN_DIR [RUN_DIR...] [--baseline RUN_DIR]

Each RUN_DIR holds jobs.txt ("JOBID<TAB>NAME<TAB>GRES<TAB>MODEL" per line,
as submitted; MODEL is what the job trains, whether or not the scheduler
was told) and sacct.txt (sacct -D -X -P -n -o
JobIDRaw,State,Submit,Start,End,AllocTRES,AdminComment: one row per
incarnation of every job) and sched.txt (the scheduler's name), and may
hold label.txt (the run's name in the output, default sched/NAME) and
released.txt (the epoch second the held jobs were released together:
JCT and makespan count from there, not from sbatch) and
targets.txt (lines "KEY <=|>= RATIO", KEY avg_jct, makespan or
best_share: bounds on this run's ratio to the baseline, printed as met or
not met). Prints one line per job: where it ran (GPU type and seconds,
from each incarnation's AllocTRES and times), restarts, its throughput as
spank_hetsched measured it (AdminComment) next to Gavel's table, its JCT;
then the averages. Two runs without --baseline: the ratios of the first
to the second (the demo's --compare). With --baseline: a table of every
run and the ratios of every other run to the baseline. Exit status 1 when
a job did not complete (targets do not change it).
"""
import datetime
import json
import os
import sys


def ts(text):
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


def table_thr(table, model, gpus, gpu_type):
    entry = table.get(gpu_type, {}).get("('%s', %d)" % (model, gpus))
    return entry["null"] if entry else None


def gpu_type(alloc):
    for item in alloc.split(","):
        if item.startswith("gres/gpu:") and "=" in item:
            return item[len("gres/gpu:"):].split("=")[0]
    return None


def read_release(run_dir):
    """The release second of a run submitted held (released.txt), None
    for a run without one (submitted unheld: JCT counts from Submit)."""
    try:
        return float(open(run_dir + "/released.txt").read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def load_run(run_dir, table):
    """Per job: name, gres, model, state, seconds per type, restarts,
    record, jct; and the run's makespan."""
    jobs = {}
    order = []
    for line in open(run_dir + "/jobs.txt"):
        jid, name, gres, model = line.rstrip("\n").split("\t")
        jobs[jid] = {"name": name, "gres": gres, "model": model,
                     "gpus": int(gres.split(":")[-1]), "state": "MISSING",
                     "secs": {}, "rows": 0, "rec": {}, "submit": None,
                     "end": None}
        order.append(jid)
    for line in open(run_dir + "/sacct.txt"):
        parts = line.rstrip("\n").split("|")
        if len(parts) < 7 or parts[0] not in jobs:
            continue
        jid, state, submit, start, end, alloc = parts[:6]
        comment = "|".join(parts[6:])
        job = jobs[jid]
        job["rows"] += 1
        job["state"] = state.split()[0]
        t_sub, t_start, t_end = ts(submit), ts(start), ts(end)
        if t_sub is not None and (job["submit"] is None or t_sub < job["submit"]):
            job["submit"] = t_sub
        if t_end is not None:
            job["end"] = max(job["end"] or t_end, t_end)
        gt = gpu_type(alloc)
        if gt and t_start is not None and t_end is not None:
            job["secs"][gt] = job["secs"].get(gt, 0) + t_end - t_start
        if comment.startswith("{"):
            try:
                job["rec"] = json.loads(comment)
            except ValueError:
                pass
    released = read_release(run_dir)
    for job in jobs.values():
        if released is not None and job["submit"] is not None:
            job["submit"] = max(job["submit"], released)
        job["jct"] = (job["end"] - job["submit"]
                      if job["end"] is not None and job["submit"] is not None else None)
        allowed = [job["gres"].split(":")[1]] if job["gres"].count(":") == 2 else list(table)
        speeds = {t: table_thr(table, job["model"], job["gpus"], t) or 0 for t in allowed}
        job["best"] = max(speeds, key=speeds.get)
    ends = [j["end"] for j in jobs.values() if j["end"] is not None]
    subs = [j["submit"] for j in jobs.values() if j["submit"] is not None]
    makespan = max(ends) - min(subs) if ends and subs else None
    return [jobs[j] for j in order], makespan


def summary(jobs, makespan):
    jcts = [j["jct"] for j in jobs if j["jct"] is not None]
    total = sum(sum(j["secs"].values()) * j["gpus"] for j in jobs)
    best = sum(j["secs"].get(j["best"], 0) * j["gpus"] for j in jobs)
    return {"avg_jct": sum(jcts) / len(jcts) if jcts else None,
            "makespan": makespan,
            "best_share": best / total if total else None,
            "completed": sum(j["state"] == "COMPLETED" for j in jobs),
            "restarts": sum(max(j["rows"] - 1, 0) for j in jobs)}


def estimate_sources(run_dir):
    """Where the scheduler's estimates came from, over the status
    documents demo.sh kept (RUN_DIR/status/SECONDS.json, one per poll):
    the share of (queued or running job, GPU type) estimates by source
    (table, measured, learned, inferred, agnostic), and the first second
    a job had an estimate that was neither measured nor agnostic on a type
    it had not run on (None: never). {} without status documents."""
    count = {}
    first = None
    try:
        names = sorted(os.listdir(run_dir + "/status"), key=lambda n: int(n.split(".")[0]))
    except (OSError, ValueError):
        return {}
    for name in names:
        try:
            doc = json.load(open(run_dir + "/status/" + name))
        except (OSError, ValueError):
            continue
        for job in doc.get("jobs", []):
            for src in (job.get("estimates") or {}).values():
                count[src] = count.get(src, 0) + 1
                if src in ("learned", "inferred", "table") and first is None:
                    first = int(name.split(".")[0])
    total = sum(count.values())
    return {"shares": {k: v / total for k, v in count.items()} if total else {},
            "first_informed": first}


def fmt(x, spec="%.0f"):
    return "-" if x is None else spec % x


def print_run(title, jobs, makespan, table, scale):
    print(title)
    print("%-12s %-9s %-10s %-26s %4s %-22s %7s" % (
        "NAME", "GRES", "STATE", "RAN ON (type: seconds)", "RST",
        "MEASURED/TABLE steps/s", "JCT s"))
    for j in jobs:
        ran = " ".join("%s:%.0f" % (t, s) for t, s in sorted(j["secs"].items(), key=lambda x: -x[1]))
        meas = []
        for t, m in sorted(j["rec"].get("thr", {}).items()):
            ref = table_thr(table, j["model"], j["gpus"], t.split(":")[0])
            if isinstance(m, dict) and m.get("sps") and ref:
                meas.append("%s %.1f/%.1f" % (t, m["sps"] / scale, ref))
        print("%-12s %-9s %-10s %-26s %4d %-22s %7s" % (
            j["name"], j["gres"], j["state"], ran or "-", max(j["rows"] - 1, 0),
            ", ".join(meas) or "-", fmt(j["jct"])))
    s = summary(jobs, makespan)
    print("%d of %d jobs completed; average JCT %s s; makespan %s s; %s of GPU time on the "
          "job's fastest type (Gavel's table); %d restarts (preemptions, migrations)" % (
              s["completed"], len(jobs), fmt(s["avg_jct"]), fmt(s["makespan"]),
              fmt(s["best_share"] and 100 * s["best_share"], "%.0f%%"), s["restarts"]))
    return s


def print_sources(run_dir):
    """The estimate sources of a run (estimate_sources), when it kept its
    status documents."""
    src = estimate_sources(run_dir)
    if src.get("shares"):
        print("estimates (job x GPU type, over the run's status documents): %s; first "
              "table/learned/inferred estimate at %s s" % (
                  ", ".join("%s %.0f%%" % (k, 100 * v) for k, v in
                            sorted(src["shares"].items(), key=lambda x: -x[1])),
                  fmt(src["first_informed"])))


RATIO_KEYS = (("avg_jct", "average JCT"), ("makespan", "makespan"),
              ("best_share", "GPU time on the fastest type"))


def load_targets(run_dir):
    """targets.txt: {key: (op, bound)}; no file, no targets."""
    targets = {}
    try:
        lines = open(run_dir + "/targets.txt").read().split("\n")
    except OSError:
        return targets
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[0] in dict(RATIO_KEYS) and parts[1] in ("<=", ">="):
            targets[parts[0]] = (parts[1], float(parts[2]))
    return targets


def print_ratios(a, sa, b, sb, targets=None):
    """The ratios of run a to run b (< 1 is better for JCT and makespan),
    each with its target when there is one; returns how many targets were
    not met."""
    print("\n== %s vs %s (same workload, same cluster; < 1 is better for JCT and makespan)" % (a, b))
    missed = 0
    for key, label in RATIO_KEYS:
        if not (sa[key] and sb[key]):
            continue
        ratio = sa[key] / sb[key]
        note = ""
        if targets and key in targets:
            op, bound = targets[key]
            met = ratio <= bound if op == "<=" else ratio >= bound
            missed += not met
            note = "  target %s %.2f: %s" % (op, bound, "met" if met else "NOT met")
        print("  %-30s %8.2f x  (%s vs %s)%s" % (label, ratio, fmt(sa[key], "%.2f"),
                                                 fmt(sb[key], "%.2f"), note))
    return missed


def print_table(results, base):
    """Every run on one line, then each run's ratios to the baseline (a
    Markdown table, as doc/learning.md records it)."""
    sb = results[base][1]
    print("\nRatios to: %s" % results[base][0])
    print("| run | average JCT | makespan | GPU time on the fastest type | restarts |"
          " average JCT ratio | fastest-type share ratio |")
    print("|---|---|---|---|---|---|---|")
    for label, s in results:
        def ratio(key):
            return "%.2f" % (s[key] / sb[key]) if s[key] and sb[key] else "-"
        print("| %s | %s s | %s s | %s | %d | %s | %s |" % (
            label, fmt(s["avg_jct"]), fmt(s["makespan"]),
            fmt(s["best_share"] and 100 * s["best_share"], "%.0f%%"), s["restarts"],
            ratio("avg_jct"), ratio("best_share")))


def run_label(run_dir):
    try:
        return open(run_dir + "/label.txt").read().strip()
    except OSError:
        return "sched/" + open(run_dir + "/sched.txt").read().strip()


def main():
    args = sys.argv[1:]
    baseline = None
    if "--baseline" in args:
        i = args.index("--baseline")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        baseline = args[i + 1]
        del args[i:i + 2]
    if len(args) < 3 or (baseline is None and len(args) > 4):
        sys.exit(__doc__)
    table = json.load(open(args[0]))
    scale = float(args[1])
    runs = args[2:]
    if baseline is not None and baseline not in runs:
        runs.append(baseline)
    results = []
    for run_dir in runs:
        label = run_label(run_dir)
        jobs, makespan = load_run(run_dir, table)
        results.append((label, print_run("\n== " + label, jobs, makespan, table, scale)))
        print_sources(run_dir)
    if baseline is not None:
        base = runs.index(baseline)
        print_table(results, base)
        for i, (label, s) in enumerate(results):
            if i != base:
                print_ratios(label, s, results[base][0], results[base][1],
                             load_targets(runs[i]))
    elif len(results) == 2:
        print_ratios(results[0][0], results[0][1], results[1][0], results[1][1],
                     load_targets(runs[0]))
    sys.exit(0 if all(s["completed"] == len(open(r + "/jobs.txt").readlines())
                      for (_, s), r in zip(results, runs)) else 1)


if __name__ == "__main__":
    main()
