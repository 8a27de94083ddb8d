#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""live_learn_report.py — the cold and warm ratios of several
`contrib/demo.sh --unknown-models` outputs (bench/live_learn.sh), one row
a command, then the median of each ratio against issue 26's targets.

Reads the per-run comparison that contrib/demo/report.py prints after
its "Ratios to:" table (see ratios()).
Exit status 1 when an output has no such table (a command that did not
get that far), so a broken run is never averaged in silently."""
import statistics
import sys

TARGETS = {"cold": (1.15, 0.8), "warm": (1.05, 0.95)}
PREFIX = "hetsched, unknown models, "


def ratios(path):
    """{mode: (jct_ratio, share_ratio)} from one demo output: the blocks
    "== hetsched, unknown models, MODE vs ..." that report.py prints
    after its table. The JCT ratio is recomputed from the two average
    JCTs in seconds, "(179.58 vs 170.96)", because the printed ratio is
    rounded to two places and a target is judged on the exact one (as
    report.py does); the share ratio is the printed one (its shares are
    printed rounded, the ratio is not recomputable more exactly)."""
    found, mode, jct = {}, None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("== "):
                head = line[3:].split(" vs ", 1)[0]
                mode = head.rsplit(", ", 1)[1] if head.startswith(PREFIX) else None
                jct = None
                continue
            if mode is None:
                continue
            try:
                if line.startswith("average JCT"):
                    a, b = line.split("(", 1)[1].split(")", 1)[0].split(" vs ")
                    jct = float(a) / float(b)
                elif line.startswith("GPU time on the fastest type") and jct is not None:
                    found[mode] = (jct, float(line.split()[6]))
                    mode = None
            except (IndexError, ValueError, ZeroDivisionError):
                mode = None
    return found


def verdict(value, bound, upper, rounded=False):
    """met / NOT met; a value read as printed to two places (rounded)
    that prints as the bound itself cannot be told either way."""
    if rounded and abs(value - bound) < 0.005 + 1e-9:
        return "cannot tell (printed to two places)"
    ok = value <= bound if upper else value >= bound
    return "met" if ok else "NOT met"


def main(paths):
    if not paths:
        print("live_learn_report.py: no outputs given", file=sys.stderr)
        return 2
    rows, bad = [], 0
    for p in paths:
        r = ratios(p)
        if set(r) != set(TARGETS):
            print("%s: no cold and warm ratios (the command did not finish)" % p, file=sys.stderr)
            bad = 1
            continue
        rows.append((p, r))
    if not rows:
        return 1
    print("| command | cold JCT | cold fastest type | warm JCT | warm fastest type |")
    print("|---|---|---|---|---|")
    for p, r in rows:
        print("| %s | %.3f | %.2f | %.3f | %.2f |" % (
            p.rsplit("/", 1)[-1], r["cold"][0], r["cold"][1], r["warm"][0], r["warm"][1]))
    print()
    for mode, (jct_max, share_min) in TARGETS.items():
        jct = [r[mode][0] for _, r in rows]
        share = [r[mode][1] for _, r in rows]
        mj, ms = statistics.median(jct), statistics.median(share)
        print("%s: median JCT ratio %.3f (%.3f-%.3f), target <= %.2f: %s; "
              "median fastest-type ratio %.2f (%.2f-%.2f), target >= %.2f: %s; commands: %d" % (
                  mode, mj, min(jct), max(jct), jct_max, verdict(mj, jct_max, True),
                  ms, min(share), max(share), share_min, verdict(ms, share_min, False, rounded=True),
                  len(rows)))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
