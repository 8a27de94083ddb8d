#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""live_learn_report.py — the cold and warm ratios of several
`contrib/demo.sh --unknown-models` outputs (bench/live_learn.sh), one row
a command, then the median of each ratio against issue 26's targets.

Reads the "Ratios to:" table that contrib/demo/report.py prints: its rows
"| hetsched, unknown models, cold | ... | JCT ratio | share ratio |".
Exit status 1 when an output has no such table (a command that did not
get that far), so a broken run is never averaged in silently."""
import statistics
import sys

TARGETS = {"cold": (1.15, 0.8), "warm": (1.05, 0.95)}


def ratios(path):
    """{mode: (jct_ratio, share_ratio)} from one demo output."""
    found = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 7 or not cells[0].startswith("hetsched, unknown models, "):
                continue
            mode = cells[0].rsplit(", ", 1)[1]
            try:
                found[mode] = (float(cells[5]), float(cells[6]))
            except ValueError:
                pass
    return found


def verdict(value, bound, upper):
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
        print("| %s | %.2f | %.2f | %.2f | %.2f |" % (
            p.rsplit("/", 1)[-1], r["cold"][0], r["cold"][1], r["warm"][0], r["warm"][1]))
    print()
    for mode, (jct_max, share_min) in TARGETS.items():
        jct = [r[mode][0] for _, r in rows]
        share = [r[mode][1] for _, r in rows]
        mj, ms = statistics.median(jct), statistics.median(share)
        print("%s: median JCT ratio %.2f (%.2f-%.2f), target <= %.2f: %s; "
              "median fastest-type ratio %.2f (%.2f-%.2f), target >= %.2f: %s; commands: %d" % (
                  mode, mj, min(jct), max(jct), jct_max, verdict(mj, jct_max, True),
                  ms, min(share), max(share), share_min, verdict(ms, share_min, False),
                  len(rows)))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
