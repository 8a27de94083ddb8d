#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""report.py -- prints the outcome of a contrib/demo.sh run from sacct.

  report.py TABLE SCALE RUN_DIR [BASELINE_RUN_DIR]

RUN_DIR holds jobs.txt ("JOBID<TAB>NAME<TAB>GRES<TAB>MODEL" per line, as
submitted) and sacct.txt (sacct -D -X -P -n -o
JobIDRaw,State,Submit,Start,End,AllocTRES,AdminComment: one row per
incarnation of every job) and sched.txt (the scheduler's name). Prints one
line per job: where it ran (GPU type and seconds, from each incarnation's
AllocTRES and times), restarts, its throughput as spank_hetsched measured
it (AdminComment) next to Gavel's table, its JCT; then the averages. With
a BASELINE_RUN_DIR (the same workload under another scheduler) it also
prints the ratios of the two runs. Exit status 1 when a job did not
complete.
"""
import datetime
import json
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
    for job in jobs.values():
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


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    table = json.load(open(sys.argv[1]))
    scale = float(sys.argv[2])
    runs = sys.argv[3:]
    results = []
    for run_dir in runs:
        sched = open(run_dir + "/sched.txt").read().strip()
        jobs, makespan = load_run(run_dir, table)
        results.append((sched, print_run("\n== sched/%s" % sched, jobs, makespan, table, scale)))
    if len(results) == 2:
        (a, sa), (b, sb) = results
        print("\n== sched/%s vs sched/%s (same workload, same cluster; < 1 is better for JCT and makespan)" % (a, b))
        for key, label in (("avg_jct", "average JCT"), ("makespan", "makespan"),
                           ("best_share", "GPU time on the fastest type")):
            if sa[key] and sb[key]:
                print("  %-30s %8.2f x  (%s vs %s)" % (label, sa[key] / sb[key],
                      fmt(sa[key], "%.2f"), fmt(sb[key], "%.2f")))
    sys.exit(0 if all(s["completed"] == len(open(r + "/jobs.txt").readlines())
                      for (_, s), r in zip(results, runs)) else 1)


if __name__ == "__main__":
    main()
