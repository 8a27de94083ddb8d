#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hetsched_timeline -- draw which job ran on which GPU, round by round, as SVG.

The engine of `hetsched timeline` (hetsched-timeline(1)); standard library only.
Two inputs, one picture:

  --timeline FILE   the simulator's per-round placement log
                    (`hetsched simulate --timeline FILE`): one CSV line per
                    job per GPU per round.
  --sacct FILE      a live cluster's history, the output of
                        sacct -a -D -X -P -n -o JOBFIELDS
                    (SACCT_FIELDS below; "-" = stdin), and optionally
  --sinfo FILE      the GPUs per node, `sinfo -N -h -o '%N|%G'`, so that
                    two jobs on more GPUs than a node has show as packed.
  --live            run those two commands here (with --since/--jobs).

Rows are GPUs grouped by type, x is time, one colored bar per job per
round (sacct: per incarnation). A restart (migration, resume from a
checkpoint, requeue) is a red mark at the bar's start; where two jobs share
a GPU (packing) the row is split in two half bars under a dashed outline.

sacct has no GPU indices: each incarnation takes free GPU slots of its
node and type in start order; when a node's slots are full, it shares the
slots of a running job that has no partner yet (what hetsched's packing
does: the same GPUs as the partner). Without --sinfo a node has as many
slots as it ever needed at once, so packing cannot be seen.
"""

import argparse
import colorsys
import csv
import io
import json
import math
import re
import subprocess
import sys
import time
from xml.sax.saxutils import escape

SACCT_FIELDS = ("JobIDRaw,JobName,Account,State,Start,End,NodeList,"
                "AllocTRES,AdminComment%1000")
RESTART_EVENTS = {"migrate", "resume", "requeue"}


class Segment:
    """One job on one GPU for one interval (a round, or an incarnation)."""
    __slots__ = ("job", "label", "gtype", "node", "gpu", "start", "end",
                 "event", "partner")

    def __init__(self, job, label, gtype, node, gpu, start, end, event,
                 partner=""):
        self.job, self.label, self.gtype = job, label, gtype
        self.node, self.gpu = node, int(gpu)
        self.start, self.end = float(start), float(end)
        self.event, self.partner = event, partner

    @property
    def row(self):
        return (self.gtype, self.node, self.gpu)


# ---- inputs -----------------------------------------------------------------

def read_timeline(text):
    """Segments of a `hetsched simulate --timeline` CSV."""
    rows = csv.DictReader(io.StringIO(text))
    need = {"job", "type", "node", "gpu", "start_s", "end_s", "event"}
    if not rows.fieldnames or not need <= set(rows.fieldnames):
        raise ValueError("not a timeline CSV: the header needs %s"
                         % ",".join(sorted(need)))
    out = []
    for n, r in enumerate(rows, 2):
        try:
            out.append(Segment(r["job"], r.get("model") or "", r["type"],
                               r["node"], r["gpu"], r["start_s"], r["end_s"],
                               r["event"], r.get("partner") or ""))
        except (TypeError, ValueError) as e:
            raise ValueError("timeline line %d: %s" % (n, e))
    return out


def expand_hostlist(expr):
    """'n[1-3,5],m1' -> ['n1','n2','n3','n5','m1'] (one bracket level,
    Slurm's zero padding kept)."""
    out = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]*)\])?", expr):
        prefix, ranges = m.group(1), m.group(2)
        if ranges is None:
            out.append(prefix)
            continue
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            hi = hi or lo
            for i in range(int(lo), int(hi) + 1):
                out.append(prefix + str(i).zfill(len(lo)))
    return out


def parse_sinfo(text):
    """{(node, type): GPUs} from `sinfo -N -h -o '%N|%G'` lines."""
    cap = {}
    for line in text.splitlines():
        node, _, gres = line.strip().partition("|")
        for g in re.finditer(r"gpu:([^:,(]+):(\d+)", gres):
            cap[(node, g.group(1))] = int(g.group(2))
    return cap


def _unix(ts, now):
    if ts in ("Unknown", "None", ""):
        return now
    return time.mktime(time.strptime(ts, "%Y-%m-%dT%H:%M:%S"))


def _gpu_tres(tres):
    """(type or None, count) of the GPUs in an AllocTRES string."""
    typed = re.search(r"gres/gpu:([^=,]+)=(\d+)", tres)
    if typed:
        return typed.group(1), int(typed.group(2))
    plain = re.search(r"gres/gpu=(\d+)", tres)
    return None, int(plain.group(1)) if plain else 0


def _hist_type(admin, restarts):
    """GPU type of incarnation `restarts` in a hetsched AdminComment record."""
    try:
        rec = json.loads(admin)
        for h in rec.get("hist", []) if rec.get("hs") == 1 else []:
            if h.get("rc") == restarts:
                return str(h["gpu"]).split(":")[0]
    except (ValueError, AttributeError, KeyError, TypeError):
        pass
    return None


def parse_sacct(text, now=None):
    """Incarnations with GPUs: dicts job, name, start, end, nodes, type,
    gpus (per node), rc (0 = first run)."""
    now = now if now is not None else time.time()
    incs = []
    for line in text.splitlines():
        f = line.split("|")
        if len(f) < 9:
            continue
        # AdminComment is last and may hold '|': join the tail back.
        jobid, name, _acct, state, start, end, nodes, tres = f[:8]
        admin = "|".join(f[8:])
        if start in ("Unknown", "None", "") or nodes in ("", "None assigned"):
            continue
        gtype, count = _gpu_tres(tres)
        if count == 0:
            continue
        incs.append({"job": jobid, "name": name, "state": state,
                     "start": _unix(start, now), "end": _unix(end, now),
                     "nodes": expand_hostlist(nodes), "type": gtype,
                     "count": count, "admin": admin})
    # -D lists a requeued job's incarnations oldest first; number them.
    seen = {}
    for inc in sorted(incs, key=lambda i: i["start"]):
        inc["rc"] = seen.get(inc["job"], 0)
        seen[inc["job"]] = inc["rc"] + 1
        inc["gpus"] = max(1, inc["count"] // len(inc["nodes"]))
        if inc["type"] is None:
            inc["type"] = _hist_type(inc["admin"], inc["rc"]) or "gpu"
    return sorted(incs, key=lambda i: (i["start"], i["job"]))


def _place(slots, inc, node, cap):
    """GPU slots of `node` for `inc` and the job it shares them with ("")."""
    busy = lambda s: [o for o in s if o["end"] > inc["start"]]
    for s in slots:
        s[:] = busy(s)
    free = [i for i, s in enumerate(slots) if not s]
    while len(free) < inc["gpus"] and len(slots) < cap:
        slots.append([])
        free.append(len(slots) - 1)
    if len(free) >= inc["gpus"]:
        return free[:inc["gpus"]], ""
    # Full: share the slots of a running job alone on them (a packed pair
    # uses exactly its partner's GPUs), else the least crowded ones.
    for s in slots:
        if len(s) == 1:
            mine = [i for i, t in enumerate(slots) if t == [s[0]]]
            if len(mine) >= inc["gpus"]:
                return mine[:inc["gpus"]], s[0]["job"]
    order = sorted(range(len(slots)), key=lambda i: len(slots[i]))
    return order[:inc["gpus"]], ""


def sacct_segments(incs, cap):
    """Segments of parsed sacct incarnations; cap = parse_sinfo() or {}
    (unknown nodes: as many slots as needed)."""
    slots = {}
    out = []
    for inc in incs:
        for node in inc["nodes"]:
            key = (node, inc["type"])
            mine, partner = _place(slots.setdefault(key, []), inc, node,
                                   cap.get(key, 1 << 30))
            for i in mine:
                slots[key][i].append(inc)
                out.append(Segment(inc["job"], inc["name"], inc["type"], node,
                                   i, inc["start"], inc["end"],
                                   "requeue" if inc["rc"] else "start",
                                   partner))
    return out


# ---- drawing ----------------------------------------------------------------

# Tableau's 20 colors without its reds (red marks restarts), strong ones
# first: the first 8 jobs get clearly different hues.
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2",
           "#9c755f", "#ff9da7", "#a0cbe8", "#8cd17d", "#ffbe7d", "#d4a6c8",
           "#86bcb6", "#f1ce63", "#d7b5a6", "#79706e", "#bab0ac", "#499894")


def job_colors(jobs):
    """The palette, then hues spaced by the golden angle with three
    lightness levels."""
    out = {}
    for i, j in enumerate(jobs):
        if i < len(PALETTE):
            out[j] = PALETTE[i]
            continue
        h = (i * 0.381966) % 1.0
        l = (0.45, 0.62, 0.36)[i % 3]
        r, g, b = colorsys.hls_to_rgb(h, l, 0.75)
        out[j] = "#%02x%02x%02x" % (int(r * 255), int(g * 255), int(b * 255))
    return out


def nice_step(span, target=8):
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _job_key(j):
    return (0, int(j), "") if j.isdigit() else (1, 0, j)


def _ink(color):
    """Black or white, whichever reads better on `color`."""
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


def _packed_spans(segs):
    """Maximal intervals of one row where two or more segments overlap,
    with the segments active there: [(a, b, [segments])]."""
    cuts = sorted({t for s in segs for t in (s.start, s.end)})
    out = []
    for a, b in zip(cuts, cuts[1:]):
        on = [s for s in segs if s.start < b and s.end > a]
        if len(on) > 1:
            out.append((a, b, sorted(on, key=lambda s: _job_key(s.job))))
    return out


class Layout:
    left, right, top, row_h, gap = 170, 30, 56, 26, 10

    def __init__(self, t0, t1, width):
        self.t0, self.t1, self.width = t0, max(t1, t0 + 1e-9), width
        self.plot_w = width - self.left - self.right

    def x(self, t):
        return self.left + (t - self.t0) / (self.t1 - self.t0) * self.plot_w


def _axis(lay, y_bottom, unit, out):
    div = {"s": 1, "min": 60, "h": 3600}[unit]
    span = (lay.t1 - lay.t0) / div
    step = nice_step(span)
    k = 0
    while k * step <= span + 1e-9:
        x = lay.x(lay.t0 + k * step * div)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="grid"/>'
                   % (x, lay.top, x, y_bottom))
        out.append('<text x="%.1f" y="%d" class="tick">%g</text>'
                   % (x, y_bottom + 16, round(k * step, 6)))
        k += 1
    out.append('<text x="%.1f" y="%d" class="axis">time since the first '
               'start (%s)</text>' % (lay.left + lay.plot_w / 2,
                                      y_bottom + 36, unit))


def _legend(jobs, labels, colors, y, width, out):
    out.append('<text x="10" y="%d" class="gtype">jobs</text>' % y)
    x, y = 60, y
    for j in jobs:
        text = "%s %s" % (j, labels.get(j, ""))[:34]
        w = 22 + 6.2 * len(text)
        if x + w > width - 10:
            x, y = 60, y + 18
        out.append('<rect x="%.1f" y="%d" width="14" height="12" fill="%s"/>'
                   % (x, y - 10, colors[j]))
        out.append('<text x="%.1f" y="%d" class="leg">%s</text>'
                   % (x + 18, y, escape(text.strip())))
        x += w
    y += 24
    out.append('<path d="M 16 %d l 6 -9 l 6 9 z" class="restart"/>' % y)
    out.append('<text x="34" y="%d" class="leg">restart: migration, resume '
               'from checkpoint or requeue</text>' % y)
    out.append('<rect x="380" y="%d" width="28" height="12" class="packed"/>'
               % (y - 10))
    out.append('<text x="414" y="%d" class="leg">packed: two jobs share the '
               'GPU (half bars)</text>' % y)
    return y + 10


def _bars(lay, segs, y, colors, thin, out):
    """The bars of one GPU row at height y; returns its counts."""
    h = lay.row_h - 6
    packed = _packed_spans(segs)
    stats = {"bars": 0, "restarts": 0, "packed": len(packed)}
    in_pack = lambda s: [p for p in packed if s.start < p[1] and s.end > p[0]]
    prev = None
    for s in sorted(segs, key=lambda s: s.start):
        # The job id once per run: where the row's job changes or restarts.
        new_run = prev is None or prev.job != s.job or prev.end < s.start \
            or s.event in RESTART_EVENTS
        prev = s
        cls = "bar" if thin else "bar sep"
        # A packed stretch is drawn below as half bars instead.
        pieces = [(s.start, s.end)]
        for a, b, _ in in_pack(s):
            pieces = [q for p in pieces for q in
                      ((p[0], min(p[1], a)), (max(p[0], b), p[1])) if q[1] > q[0]]
        for a, b in pieces:
            out.append('<rect x="%.2f" y="%d" width="%.2f" height="%d" '
                       'fill="%s" class="%s"><title>job %s on %s/%d %s</title>'
                       '</rect>' % (lay.x(a), y + 3, max(lay.x(b) - lay.x(a), .6),
                                    h, colors[s.job], cls, escape(s.job),
                                    escape(s.node), s.gpu, s.event))
        stats["bars"] += 1
        if new_run and pieces and \
                lay.x(pieces[0][1]) - lay.x(pieces[0][0]) > 7 * len(s.job) + 4:
            out.append('<text x="%.1f" y="%d" class="jid" style="fill:%s">%s</text>'
                       % (lay.x(pieces[0][0]) + 3, y + 3 + h / 2 + 4,
                          _ink(colors[s.job]), escape(s.job)))
    prev_set = None
    for a, b, on in packed:
        hh = h / len(on)
        # Job ids in the halves where a pair begins (not every round).
        label = [s.job for s in on] != prev_set and hh >= 8
        prev_set = [s.job for s in on]
        for i, s in enumerate(on):
            out.append('<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" '
                       'fill="%s"/>' % (lay.x(a), y + 3 + i * hh,
                                        max(lay.x(b) - lay.x(a), .6), hh,
                                        colors[s.job]))
            if label and lay.x(b) - lay.x(a) > 6 * len(s.job) + 4:
                out.append('<text x="%.1f" y="%.1f" class="jid small" '
                           'style="fill:%s">%s</text>'
                           % (lay.x(a) + 3, y + 3 + (i + 1) * hh - 2,
                              _ink(colors[s.job]), escape(s.job)))
        out.append('<rect x="%.2f" y="%d" width="%.2f" height="%d" '
                   'class="packed"><title>packed: jobs %s</title></rect>'
                   % (lay.x(a), y + 2, max(lay.x(b) - lay.x(a), .6), h + 2,
                      escape(" ".join(s.job for s in on))))
    for s in segs:
        if s.event in RESTART_EVENTS:
            x = lay.x(s.start)
            out.append('<path d="M %.2f %d l -4 -6 l 8 0 z" class="restart">'
                       '<title>job %s: %s</title></path>'
                       % (x, y + 3, escape(s.job), s.event))
            out.append('<line x1="%.2f" y1="%d" x2="%.2f" y2="%d" '
                       'class="restartline"/>' % (x, y + 3, x, y + 3 + h))
            stats["restarts"] += 1
    return stats


STYLE = """
text { font-family: DejaVu Sans, Arial, sans-serif; font-size: 11px; fill: #222; }
.title { font-size: 15px; font-weight: bold; }
.axis { font-size: 12px; text-anchor: middle; }
.tick { font-size: 10px; text-anchor: middle; fill: #555; }
.gtype { font-size: 13px; font-weight: bold; }
.rowl { font-size: 10px; text-anchor: end; fill: #444; }
.leg { font-size: 11px; }
.jid { font-size: 10px; font-weight: bold; }
.small { font-size: 8px; }
.grid { stroke: #ddd; stroke-width: 1; }
.band { fill: #f4f4f4; }
.sep { stroke: #fff; stroke-width: 0.6; }
.packed { fill: none; stroke: #000; stroke-width: 1.2; stroke-dasharray: 3 2; }
.restart { fill: #d00; stroke: #fff; stroke-width: 0.5; }
.restartline { stroke: #d00; stroke-width: 1.5; }
"""


def render_svg(segs, title="", width=1100, t0=None, t1=None, types=None,
               per="round"):
    """The SVG text, and counts {bars, restarts, packed, rows} of what it
    draws (the tests compare them with the input)."""
    if t0 is not None or t1 is not None:
        lo = t0 if t0 is not None else -math.inf
        hi = t1 if t1 is not None else math.inf
        segs = [s for s in segs if s.end > lo and s.start < hi]
    if not segs:
        raise ValueError("nothing ran in the input (no GPU segments)")
    t0 = min(s.start for s in segs) if t0 is None else t0
    t1 = max(s.end for s in segs) if t1 is None else t1
    lay = Layout(t0, t1, width)
    order = list(types or [])
    for s in segs:
        if s.gtype not in order:
            order.append(s.gtype)
    rows = sorted({s.row for s in segs},
                  key=lambda r: (order.index(r[0]), r[1], r[2]))
    jobs = sorted({s.job for s in segs}, key=_job_key)
    labels = {s.job: s.label for s in segs}
    colors = job_colors(jobs)
    span = t1 - t0
    unit = "h" if span > 3 * 3600 else "min" if span > 180 else "s"
    nrounds = len({(s.start, s.end) for s in segs})
    thin = lay.plot_w / max(nrounds, 1) < 6   # no gaps between tiny bars
    body, stats = [], {"bars": 0, "restarts": 0, "packed": 0,
                       "rows": len(rows)}
    y = lay.top
    prev_type = None
    for r in rows:
        if r[0] != prev_type:
            if prev_type is not None:
                y += lay.gap
            n = sum(1 for q in rows if q[0] == r[0])
            body.append('<rect x="4" y="%d" width="%d" height="%d" '
                        'class="band"/>' % (y, lay.width - 8, n * lay.row_h))
            body.append('<text x="10" y="%d" class="gtype">%s</text>'
                        % (y + 16, escape(r[0])))
            prev_type = r[0]
        body.append('<text x="%d" y="%d" class="rowl">%s gpu%d</text>'
                    % (lay.left - 6, y + lay.row_h / 2 + 4, escape(r[1]), r[2]))
        st = _bars(lay, [s for s in segs if s.row == r], y, colors, thin, body)
        for k in ("bars", "restarts", "packed"):
            stats[k] += st[k]
        y += lay.row_h
    axis = []
    _axis(lay, y + 4, unit, axis)
    legend = []
    bottom = _legend(jobs, labels, colors, y + 64, width, legend)
    head = ['<?xml version="1.0" encoding="UTF-8"?>',
            '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d">' % (width, bottom + 10, width, bottom + 10),
            '<style>%s</style>' % STYLE,
            '<rect width="100%" height="100%" fill="#fff"/>',
            '<text x="10" y="22" class="title">%s</text>'
            % escape(title or "hetsched timeline"),
            '<text x="10" y="40" class="leg">GPUs grouped by type (rows), '
            'one bar per job per %s; %d jobs, %d GPUs</text>'
            % (per, len(jobs), len(rows))]
    return "\n".join(head + axis + body + legend + ["</svg>", ""]), stats


# ---- command line -----------------------------------------------------------

def _read(path):
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="hetsched timeline",
        description="Draw which job ran on which GPU over time as SVG.")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--timeline", metavar="FILE",
                     help="hetsched simulate --timeline output")
    src.add_argument("--sacct", metavar="FILE",
                     help="sacct -a -D -X -P -n -o " + SACCT_FIELDS)
    src.add_argument("--live", action="store_true",
                     help="run sacct and sinfo here")
    ap.add_argument("--sinfo", metavar="FILE",
                    help="sinfo -N -h -o '%%N|%%G' (GPUs per node)")
    ap.add_argument("--since", default="now-1days",
                    help="--live: sacct -S (default now-1days)")
    ap.add_argument("--jobs", help="--live: sacct -j LIST")
    ap.add_argument("-o", "--output", required=True, help="SVG file")
    ap.add_argument("--title", default="")
    ap.add_argument("--from", dest="t0", type=float,
                    help="start of the window (timeline seconds)")
    ap.add_argument("--to", dest="t1", type=float,
                    help="end of the window (timeline seconds)")
    ap.add_argument("--types", help="row order of GPU types, e.g. v100,p100,k80")
    ap.add_argument("--width", type=int, default=1100)
    ap.add_argument("--stats", action="store_true",
                    help="print what was drawn (JSON) on stdout")
    a = ap.parse_args(argv)
    try:
        if a.timeline:
            segs = read_timeline(_read(a.timeline))
        else:
            if a.live:
                cmd = ["sacct", "-a", "-D", "-X", "-P", "-n", "-S", a.since,
                       "-o", SACCT_FIELDS]
                if a.jobs:
                    cmd += ["-j", a.jobs]
                text = _run(cmd)
                cap = parse_sinfo(_run(["sinfo", "-N", "-h", "-o", "%N|%G"]))
            else:
                text = _read(a.sacct)
                cap = parse_sinfo(_read(a.sinfo)) if a.sinfo else {}
            segs = sacct_segments(parse_sacct(text), cap)
        svg, stats = render_svg(segs, a.title, max(a.width, 600), a.t0, a.t1,
                                a.types.split(",") if a.types else None,
                                "round" if a.timeline else "run (incarnation)")
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print("hetsched timeline: %s" % e, file=sys.stderr)
        return 1
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(svg)
    if a.stats:
        print(json.dumps(stats, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
