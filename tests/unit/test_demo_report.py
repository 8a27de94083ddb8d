#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test_demo_report.py -- contrib/demo/report.py on made-up runs: the
per-run summary (average JCT, makespan, GPU time on the fastest type,
restarts) from sacct rows, the --baseline table and ratios with
targets.txt met or not, the two-run ratios of --compare, where the
estimates came from (status documents), and the exit status. Prints TAP."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get("HS_SRCDIR", ".")
REPORT = os.path.join(SRC, "contrib", "demo", "report.py")
TABLE = os.path.join(SRC, "data", "gavel", "simulation_throughputs.json")
sys.path.insert(0, os.path.join(SRC, "contrib", "demo"))
import report  # noqa: E402

results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def tap(res):
    """Prints res [(name, ok, detail)] as TAP; the exit status."""
    print("1..%d" % len(res))
    for i, (name, ok, detail) in enumerate(res, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        if not ok:
            print("# " + str(detail).replace("\n", "\n# "))
    return 0 if all(ok for _, ok, _ in res) else 1


def at(sec):
    return "2026-12-04T10:%02d:%02d" % (sec // 60, sec % 60)


def make_run(top, name, label, rows, targets=None, status=None):
    """rows: (jobid, state, start, end, type) per incarnation; every job
    submitted at 0. Jobs: 1 CycleGAN (fastest v100), 2 A3C (fastest
    v100)."""
    d = os.path.join(top, name)
    os.makedirs(d)
    with open(d + "/jobs.txt", "w") as f:
        f.write("1\tcyclegan\tgpu:1\tCycleGAN\n2\ta3c\tgpu:1\tA3C\n")
    with open(d + "/sacct.txt", "w") as f:
        for jid, state, start, end, gt in rows:
            f.write("%s|%s|%s|%s|%s|billing=1,cpu=1,gres/gpu:%s=1,gres/gpu=1,node=1|\n"
                    % (jid, state, at(0), at(start), at(end), gt))
    with open(d + "/sched.txt", "w") as f:
        f.write("hetsched\n")
    if label:
        with open(d + "/label.txt", "w") as f:
            f.write(label + "\n")
    if targets:
        with open(d + "/targets.txt", "w") as f:
            f.write("\n".join(targets) + "\n")
    if status:
        os.makedirs(d + "/status")
        for sec, doc in status.items():
            with open("%s/status/%d.json" % (d, sec), "w") as f:
                json.dump(doc, f)
    return d


def run(args):
    p = subprocess.run([sys.executable, REPORT, TABLE, "10"] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    top = tempfile.mkdtemp(prefix="hs-test-demo-report.")
    try:
        # declared: JCTs 40 and 60, makespan 60, fastest 40 of 100 GPU-s
        dec = make_run(top, "dec", "declared", [
            ("1", "COMPLETED", 0, 40, "v100"), ("2", "COMPLETED", 0, 60, "k80")])
        # cold: job 1 preempted on k80 then done on v100 (a restart);
        # JCTs 50 and 60, makespan 60, fastest (25 + 0) of (20 + 25 + 60)
        cold = make_run(top, "cold", "cold", [
            ("1", "PREEMPTED", 0, 20, "k80"), ("1", "COMPLETED", 25, 50, "v100"),
            ("2", "COMPLETED", 0, 60, "p100")],
            targets=["best_share >= 0.8", "avg_jct <= 1.15", "bogus <= 1"],
            status={5: {"jobs": [{"estimates": {"v100": "measured", "k80": "agnostic",
                                                "p100": "agnostic"}}]},
                    10: {"jobs": [{"estimates": {"v100": "measured", "k80": "inferred",
                                                 "p100": "agnostic"}}]}})
        # warm: both on v100, JCTs 40 and 30
        warm = make_run(top, "warm", "warm", [
            ("1", "COMPLETED", 0, 40, "v100"), ("2", "COMPLETED", 0, 30, "v100")],
            targets=["best_share >= 0.95", "avg_jct <= 1.05"])

        jobs, mk = report.load_run(cold, json.load(open(TABLE)))
        s = report.summary(jobs, mk)
        check("cold: average JCT from first submit to last end", abs(s["avg_jct"] - 55) < 1e-9,
              s["avg_jct"])
        check("cold: makespan", s["makespan"] == 60, s["makespan"])
        check("cold: fastest-type share over every incarnation",
              abs(s["best_share"] - 25 / 105) < 1e-9, s["best_share"])
        check("cold: one restart", s["restarts"] == 1, s["restarts"])

        # held, released at 10 s: JCTs 30 and 50, makespan 50; a
        # released.txt before the submit changes nothing
        epoch = report.ts(at(10))
        with open(cold + "/released.txt", "w") as f:
            f.write("%d\n" % epoch)
        jobs, mk = report.load_run(cold, json.load(open(TABLE)))
        s = report.summary(jobs, mk)
        check("released: JCT counts from the release", abs(s["avg_jct"] - 45) < 1e-9, s["avg_jct"])
        check("released: makespan counts from the release", s["makespan"] == 50, s["makespan"])
        with open(cold + "/released.txt", "w") as f:
            f.write("%d\n" % (epoch - 20))
        jobs, mk = report.load_run(cold, json.load(open(TABLE)))
        check("released before the submit: JCT from the submit",
              abs(report.summary(jobs, mk)["avg_jct"] - 55) < 1e-9)
        os.remove(cold + "/released.txt")

        src = report.estimate_sources(cold)
        check("estimate sources: shares", src["shares"] == {
            "measured": 2 / 6, "agnostic": 3 / 6, "inferred": 1 / 6}, src)
        check("estimate sources: first informed estimate at 10 s", src["first_informed"] == 10, src)
        check("estimate sources: none without status documents", report.estimate_sources(dec) == {})

        rc, out = run([dec, cold, warm, "--baseline", dec])
        check("--baseline: exit 0, every job completed", rc == 0, out)
        check("--baseline: table row of cold", "| cold | 55 s | 60 s | 24% | 1 | 1.10 | 0.60 |" in out, out)
        check("--baseline: cold JCT target met",
              "average JCT                        1.10 x  (55.00 vs 50.00)  target <= 1.15: met" in out,
              out)
        check("--baseline: cold share target not met",
              "0.60 x  (0.24 vs 0.40)  target >= 0.80: NOT met" in out, out)
        check("--baseline: warm JCT 0.70, met", "0.70 x  (35.00 vs 50.00)  target <= 1.05: met" in out,
              out)
        check("--baseline: no ratios of the baseline to itself", "declared vs declared" not in out, out)
        check("--baseline: an unknown target key is ignored", "bogus" not in out, out)

        rc, out = run([cold, dec])
        check("two runs: ratios of the first to the second",
              "== cold vs declared" in out and "1.10 x" in out, out)
        os.remove(dec + "/label.txt")
        rc, out = run([cold, dec])
        check("no label.txt: sched/NAME", "== cold vs sched/hetsched" in out, out)

        lines = open(warm + "/sacct.txt").read().replace("2|COMPLETED", "2|FAILED")
        open(warm + "/sacct.txt", "w").write(lines)
        rc, out = run([dec, warm, "--baseline", dec])
        check("a job not completed: exit 1", rc == 1, rc)
        rc, out = run([dec, cold, warm])
        check("three runs without --baseline: usage", rc != 0 and "--baseline RUN_DIR" in out, out)
    finally:
        shutil.rmtree(top)
    return tap(results)


if __name__ == "__main__":
    sys.exit(main())
