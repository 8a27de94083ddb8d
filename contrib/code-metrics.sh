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

# 2. call cycles between files: the file call graph (a file calls
#    another when it calls a non-static function defined there) of src/
#    and, apart, of plugins/ (src never calls plugins; the plugins' Slurm
#    entry points, which several plugins define, are not calls between
#    files); every strongly connected component of more than one file is
#    a cycle (two files that call each other, or a longer ring).
ENTRY = re.compile(r'^(init|fini|plugin_\w+|sched_p_\w+|select_p_\w+|slurm_spank_\w+)$')

def cycles(files):
    defs = {}
    for f in files:
        for name, _, _, static in functions(f):
            if not static and not ENTRY.match(name):
                defs[name] = f
    calls = {}
    for f in files:
        text = strip_comments(open(f, encoding='utf-8').read(), keep_strings=False)
        used = set(re.findall(r'\b([A-Za-z_]\w*)\s*\(', text))
        calls[f] = {defs[u] for u in used if u in defs and defs[u] != f}
    # Tarjan's strongly connected components, iteratively
    index, low, onstack, stack, comps, n = {}, {}, set(), [], [], [0]
    for root in files:
        if root in index:
            continue
        work = [(root, iter(sorted(calls[root])))]
        index[root] = low[root] = n[0]; n[0] += 1
        stack.append(root); onstack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1
                    stack.append(w); onstack.add(w)
                    work.append((w, iter(sorted(calls[w]))))
                elif w in onstack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); onstack.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return comps

for label, files in (('src/', c_files('src')), ('plugins/', c_files('plugins'))):
    comps = cycles(files)
    print('== call cycles between files in %s: %d ==' % (label, len(comps)))
    for comp in comps:
        print('  ' + ' -> '.join(os.path.relpath(f) for f in comp))

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
