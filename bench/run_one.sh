#!/bin/sh
# run_one.sh OUT.json HETSCHED ARGS... — one simulation of the reproduction
# (bench/reproduce.sh). Skips the run when OUT.json already holds a result,
# so an interrupted reproduction resumes where it stopped. A run stopped by
# --max-time (exit 3) keeps its summary ("finished": false, the load was
# past saturation); a failed run leaves OUT.err with the message.
out=$1
shift
[ -s "$out" ] && exit 0
mkdir -p "$(dirname "$out")"
"$@" --quiet >"$out.tmp" 2>"$out.err"
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 3 ]; then
	mv "$out.tmp" "$out"
	rm -f "$out.err"
	echo "done  $(basename "$out") (exit $rc)" >&2
else
	rm -f "$out.tmp"
	echo "FAIL  $(basename "$out"): $(head -c 300 "$out.err")" >&2
fi
exit 0
