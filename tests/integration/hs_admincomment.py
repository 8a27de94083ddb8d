#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hs_admincomment.py -- reads hetsched AdminComment records for the
integration tests.

  hs_admincomment.py get PATH [INDEX]   value at PATH ("thr.k80.sps",
      "ckpt.step", "hist.1.gpu", "hist.#" = length) of the record on stdin
      (INDEX picks one line of several, default the last); prints nothing
      and exits 1 when absent.
  hs_admincomment.py valid              exit 0 when every non-empty line on
      stdin is a version-1 record.
"""
import json
import sys


def lookup(rec, path):
    cur = rec
    for part in path.split("."):
        if part == "#":
            return len(cur)
        if isinstance(cur, list):
            cur = cur[int(part)]
        else:
            cur = cur[part]
    return cur


def main():
    lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
    if sys.argv[1] == "valid":
        return 0 if lines and all(json.loads(l).get("hs") == 1 for l in lines) else 1
    if sys.argv[1] == "get":
        idx = int(sys.argv[3]) if len(sys.argv) > 3 else -1
        try:
            val = lookup(json.loads(lines[idx]), sys.argv[2])
        except (IndexError, KeyError, ValueError, TypeError):
            return 1
        print(val)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
