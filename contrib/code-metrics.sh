#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# code-metrics.sh — the code-health numbers of doc/hacking.md, re-measurable:
#   1. the longest C functions (lines from signature to closing brace),
#   2. call cycles between the files of src/sched: pairs of files that each
#      call a function defined in the other,
#   3. `duplicates` pairs over the tree (when the command is installed),
#   4. the places in src/ that state RoundLength's default (the literal
#      360 outside comments) — the round length is the key that had
#      drifted into several copies.
# Usage: contrib/code-metrics.sh [TOP]   (TOP: the source tree, default .)
# Needs universal-ctags and python3; reads files only.
set -eu
top=${1:-.}
cd "$top"
command -v ctags >/dev/null || { echo "code-metrics: needs ctags (universal-ctags)" >&2; exit 1; }

python3 - <<'EOF'
import glob, os, re, subprocess

def c_files(*dirs):
    out = []
    for d in dirs:
        out += sorted(glob.glob(d + '/**/*.c', recursive=True))
    return out

def strip_comments(text, keep_strings=True):
    # Comments become blanks (line numbers kept); strings kept or blanked.
    pat = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    def rep(m):
        s = m.group(0)
        if s.startswith('/'):
            return re.sub(r'[^\n]', ' ', s)
        return s if keep_strings else '""'
    return pat.sub(rep, text)

def functions(path):
    """(name, start, end, static) of every function definition, via ctags."""
    r = subprocess.run(['ctags', '--c-kinds=f', '--fields=+ne', '-x',
                        '--_xformat=%N %n %{end} %C', '-o', '-', path],
                       capture_output=True, text=True, check=True)
    out = []
    for line in r.stdout.splitlines():
        parts = line.split(' ', 3)
        if len(parts) < 3 or not parts[2].isdigit():
            continue
        sig = parts[3] if len(parts) > 3 else ''
        out.append((parts[0], int(parts[1]), int(parts[2]), sig.lstrip().startswith('static')))
    return out

# 1. longest functions
src = c_files('src', 'plugins')
lens = []
for f in src:
    for name, a, b, _ in functions(f):
        lens.append((b - a + 1, name, f))
lens.sort(reverse=True)
print('== longest functions (src/, plugins/) ==')
for n, name, f in lens[:10]:
    print('%5d  %s  %s' % (n, name, f))
print('functions over 150 lines: %d' % sum(1 for x in lens if x[0] > 150))

# 2. call cycles between files of src/sched
sched = c_files('src/sched')
defs = {}
for f in sched:
    for name, _, _, static in functions(f):
        if not static:
            defs[name] = f
calls = {}
for f in sched:
    text = strip_comments(open(f, encoding='utf-8').read(), keep_strings=False)
    used = set(re.findall(r'\b([A-Za-z_]\w*)\s*\(', text))
    calls[f] = {defs[u] for u in used if u in defs and defs[u] != f}
pairs = sorted({tuple(sorted((a, b))) for a in calls for b in calls[a] if a in calls.get(b, ())})
print('== call cycles between files in src/sched: %d ==' % len(pairs))
for a, b in pairs:
    print('  %s <-> %s' % (os.path.basename(a), os.path.basename(b)))

# 4. RoundLength's default
places = []
for f in c_files('src') + sorted(glob.glob('src/**/*.h', recursive=True)):
    text = strip_comments(open(f, encoding='utf-8').read())
    for i, line in enumerate(text.splitlines(), 1):
        if re.search(r'\b360(\.0)?\b', line):
            places.append('%s:%d' % (f, i))
print('== places stating the round length default 360 (code and strings, src/): %d ==' % len(places))
for p in places:
    print('  ' + p)
EOF

# 3. duplicates (an external command; absent on most machines)
if command -v duplicates >/dev/null; then
	echo "== duplicates (whole tree) =="
	duplicates --most 200 --seconds 120 | head -n 1
else
	echo "== duplicates: command not installed, skipped =="
fi
