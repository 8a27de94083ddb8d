#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test.sh — run every hetsched test on this machine, from a fresh Debian
# bookworm install: installs what is missing (contrib/bootstrap.sh), builds
# with warnings as errors, runs the unit tests (plain, under ASan/UBSan and
# under valgrind), the integration tests on real local Slurm clusters
# (tests/integration: each test brings up its own private clusters with
# contrib/cluster/hs-cluster and tears them down; up to $HS_IT_JOBS of them
# side by side, default 4, the timing-sensitive ones alone; see
# tests/integration/lib.sh),
# `make distcheck` (one test point), and the Debian packages
# (tests/deb/deb_smoke.sh: builds them, installs them, runs the installed
# plugins on a local cluster, purges them; its TAP points are counted), and
# the plugins compiled against other Slurm series (contrib/compile-matrix.sh:
# 24.11 and 26.05 by default, HETSCHED_MATRIX="23.11 ..." to choose, "all"
# for every series; only where Slurm source tarballs are at hand, see
# contrib/bootstrap.sh --slurm).
# The last line is
# "N passed, N failed", summed over every test point; each stage's time is
# reported on stderr.
#
# Usage: contrib/test.sh [--no-integration] [--no-sanitizers] [--no-valgrind]
#                        [--no-distcheck] [--no-deb] [--no-matrix] [--no-newest]
#        contrib/test.sh --slurm VERSION|PREFIX [--smoke]
#   --slurm X        instead of all that: the unit and integration tests on
#                    another Slurm. X is a version (22.05 = the packaged one;
#                    23.11 ... 26.05: contrib/bootstrap.sh --slurm X --install
#                    builds it into /opt/slurm-X.Y.Z once) or the prefix of
#                    an installed Slurm (/opt/slurm-24.11.5); the plugins are
#                    built for it in $HETSCHED_BUILD/slurm-X.Y.Z
#   --smoke          with --slurm: only the smoke set ($HETSCHED_SMOKE or
#                    plugins, sched_rounds, sched_policy, spank_report,
#                    pack_pair: the plugins load, rounds run, a job migrates
#                    by checkpoint and requeue, a SPANK report reaches sacct,
#                    two jobs pack on one GPU)
# Environment: HETSCHED_BUILD (build dir root, default ./_build),
#              HETSCHED_CACHE (Slurm source cache, see bootstrap.sh),
#              HS_IT_JOBS (integration tests run side by side, default 4;
#              1 runs them one at a time).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
integration=1 sanitizers=1 valgrind=1 distcheck=1 deb=1 matrix=1 newest=1
on_slurm= smoke=0
while [ $# -gt 0 ]; do
	a=$1; shift
	case "$a" in
	--slurm) [ $# -gt 0 ] || { echo "test.sh: --slurm needs a version or prefix" >&2; exit 2; }
		on_slurm=$1; shift ;;
	--smoke) smoke=1 ;;
	--no-integration) integration=0 ;;
	--no-distcheck) distcheck=0 ;;
	--no-sanitizers) sanitizers=0 ;;
	--no-valgrind) valgrind=0 ;;
	--no-deb) deb=0 ;;
	--no-matrix) matrix=0 ;;
	--no-newest) newest=0 ;;
	-h|--help) sed -n '3,42p' "$0"; exit 0 ;;
	*) echo "test.sh: unknown option '$a'" >&2; exit 2 ;;
	esac
done
broot=${HETSCHED_BUILD:-$top/_build}
passed=0 failed=0
# make -j for the test runs: lib.sh lets up to HS_IT_JOBS integration tests
# run side by side (they mostly wait for Slurm), so make must start that
# many; the unit tests before them take the same slots.
it_jobs=${HS_IT_JOBS:-4}
case "$it_jobs" in ''|*[!0-9]*|0) it_jobs=4 ;; esac
export HS_IT_JOBS=$it_jobs

t0=$(date +%s)
tstage=$t0
say() { echo "== test.sh: $*" >&2; }
# stage NAME: report how long the previous stage took, start timing NAME.
stage() {
	now=$(date +%s)
	[ -z "${stage_name:-}" ] || say "$stage_name took $((now - tstage)) s"
	stage_name=$1 tstage=$now
	[ -z "$1" ] || say "$1"
}
# Adds the PASS/FAIL counts of one build's test-suite.log to the totals;
# a stage that could not even produce a log counts as one failure.
count() {
	log=$1/test-suite.log
	if [ ! -f "$log" ]; then
		say "no $log: counting the stage as failed"
		failed=$((failed + 1))
		return
	fi
	p=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
	f=$(sed -n 's/^# \(FAIL\|ERROR\|XPASS\): *//p' "$log" | awk '{s += $1} END {print s + 0}')
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	# Each test point is counted once: a test listed twice in TESTS shows
	# up twice in the log (it did once) and counts as one failure.
	dup=$(grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR): ' "$log" | sort | uniq -d | head -n 3)
	if [ -n "$dup" ]; then
		say "test points counted twice in $log:"; echo "$dup" >&2
		failed=$((failed + 1))
	fi
	[ "${f:-0}" -eq 0 ] || grep -E '^(FAIL|ERROR|XPASS)' "$log" >&2
}

# Adds the ok / not ok lines of one TAP script's output to the totals; a
# "Bail out!", or fewer points than the plan announced, is one failure more.
count_tap() {
	p=$(grep -c '^ok ' "$1")
	f=$(grep -c '^not ok ' "$1")
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$1" | tail -n 1)
	if grep -q '^Bail out!' "$1" || [ -z "$plan" ] || [ $((p + f)) -lt "$plan" ]; then
		say "$1: bailed out or fewer test points than planned"
		f=$((f + 1))
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$f" -eq 0 ] || grep -E '^(not ok|Bail out!)' "$1" >&2
}

stage "bootstrap"
slurm_src=$("$top/contrib/bootstrap.sh" | tail -n 1) || { echo "0 passed, 1 failed"; exit 1; }
(cd "$top" && autoreconf -fi >/dev/null 2>&1) || { say "autoreconf failed"; echo "0 passed, 1 failed"; exit 1; }

# configure_build DIR [configure args...]: fresh configure + make in DIR.
configure_build() {
	dir=$1; shift
	rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" &&
		"$top/configure" --enable-werror "$@" >configure.out 2>&1 &&
		make -j2 >make.out 2>&1
	rc=$?
	cd "$top"
	[ $rc -eq 0 ] || { say "build in $dir failed:"; tail -n 30 "$dir/make.out" "$dir/configure.out" >&2 2>/dev/null; }
	return $rc
}

# The smoke set: one test per runtime feature (see --smoke above).
smoke_tests=${HETSCHED_SMOKE:-"plugins sched_rounds sched_policy spank_report pack_pair"}

# on_slurm_build SPEC: installs (once) the Slurm SPEC names (see --slurm)
# and builds the plugins for it; sets bdir to the build directory.
on_slurm_build() {
	spec=$1
	prefix= tree=
	case "$spec" in
	/*)	prefix=${spec%/}
		version=$("$prefix/sbin/slurmctld" -V 2>/dev/null | awk '{ print $2 }')
		[ -n "$version" ] || { say "$prefix/sbin/slurmctld -V failed: not a Slurm prefix"; return 1; }
		# Its configured source tree (the same version), for the headers.
		tree=$("$top/contrib/bootstrap.sh" --no-apt --slurm "$version" | tail -n 1) || return 1 ;;
	22.05|22.05.*) tree=$slurm_src version=packaged ;;
	*)	tree=$("$top/contrib/bootstrap.sh" --slurm "$spec" --install | tail -n 1) || return 1
		version=$(awk '$1 == "Version:" { print $2 }' "$tree/META")
		prefix=/opt/slurm-$version ;;
	esac
	bdir=$broot/slurm-$version
	say "Slurm ${prefix:-packaged} (tree $tree): build in $bdir"
	configure_build "$bdir" --with-slurm-source="$tree" ${prefix:+--with-slurm-prefix="$prefix"}
}

# on_slurm_check BDIR TESTS: the unit tests and the integration suite
# (TESTS, a list of integration test names: only those) in BDIR, counted.
on_slurm_check() {
	tests=
	for t in $2; do tests="$tests tests/integration/$t.sh"; done
	say "tests in $1: ${tests:-every test}"
	# shellcheck disable=SC2086
	(cd "$1" && make -j"$it_jobs" check HETSCHED_INTEGRATION=1 ${tests:+TESTS="$tests"} >check.out 2>&1)
	count "$1"
}

# on_slurm SPEC SMOKE: on_slurm_build, then on_slurm_check of every test
# (SMOKE=1: the smoke set).
on_slurm() {
	on_slurm_build "$1" || return 1
	if [ "$2" = 1 ]; then on_slurm_check "$bdir" "$smoke_tests"; else on_slurm_check "$bdir" ""; fi
}

if [ -n "$on_slurm" ]; then
	what="every test"
	[ "$smoke" = 0 ] || what="the smoke set"
	stage "$what on Slurm $on_slurm"
	on_slurm "$on_slurm" "$smoke" || failed=$((failed + 1))
	stage ""
	say "total $(( $(date +%s) - t0 )) s"
	echo "$passed passed, $failed failed"
	[ $failed -eq 0 ]
	exit
fi

# Stages 2, 3 and 6 (ASan/UBSan, valgrind, other Slurm series) only burn
# CPU on their own build trees, while the integration tests of stage 1
# mostly wait for rounds on local clusters (up to $HS_IT_JOBS side by
# side, the timing-sensitive ones alone). So they run in the background
# at nice 19, where they take only the CPU the clusters leave idle (CFS
# gives a nice-19 task about 1.5% of a nice-0 one it competes with), and
# stage 1's timing-sensitive tests see a nearly idle machine. This takes
# their wall time (about 10 minutes) out of the run.
# bg_stage NAME DIR CONFIGURE-ARGS... -- MAKE-CHECK-ARGS...: configure, build
# and make check in DIR, logging the stage's time; DIR/build.failed marks a
# failed build (counted later by count_bg).
bg_stage() {
	name=$1 dir=$2; shift 2
	cargs=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do cargs="$cargs '$1'"; shift; done
	[ $# -gt 0 ] && shift
	b0=$(date +%s)
	if eval configure_build '"$dir"' "$cargs"; then
		(cd "$dir" && make -j2 check "$@" >check.out 2>&1)
	else
		mkdir -p "$dir" && : >"$dir/build.failed"
	fi
	say "$name (background, nice 19) took $(($(date +%s) - b0)) s"
}
count_bg() {
	if [ -f "$1/build.failed" ]; then failed=$((failed + 1)); else count "$1"; fi
}
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
tarballs=${HETSCHED_SLURM_TARBALLS:-$top/../shared/vendor/slurm}
if [ $matrix = 1 ] && [ ! -d "$tarballs" ]; then
	say "no Slurm source tarballs at $tarballs: other Slurm series not compiled"
	matrix=0
fi
# 7. The newest Slurm series, live: its release tarball installed into
#    /opt (in the background, nice 19, while stage 1 runs) and, after
#    stage 1, a set of integration tests on a cluster of it: the plugins
#    load, a dead node's jobs are requeued and restarted (the node-failure
#    path changed under 25.11), migration by checkpoint and requeue, a
#    report reaches sacct. The whole suite on each series is
#    `contrib/test.sh --slurm X` (doc/slurm-versions.md).
newest_v=${HETSCHED_NEWEST:-26.05}
newest_tests=${HETSCHED_NEWEST_TESTS:-"plugins sched_faults sched_policy spank_report"}
if [ $newest = 1 ] && ! ls "$tarballs"/slurm-"$newest_v".*.tar.gz >/dev/null 2>&1; then
	say "no Slurm $newest_v tarball in $tarballs: the newest series is not tested live"
	newest=0
fi

# 1. The real build (plugins included) and its tests; integration tests run
#    on a local cluster when enabled.
stage "build + tests (integration: $integration) with the background stages"
main_built=0
if configure_build "$broot/main" --with-slurm-source="$slurm_src"; then
	main_built=1
else
	failed=$((failed + 1))
fi
# The background stages start once the main build is done, so they do not
# slow it down.
# 7, first half: Slurm $newest_v installed and the plugins built for it,
# in a background chain of its own (about 700 s of CPU cold, the longest),
# so that stage 7's tests wait only for it.
newest_pid=
if [ $newest = 1 ]; then
	(
		renice -n 19 -p "$(sh -c 'echo $PPID')" >/dev/null 2>&1
		b0=$(date +%s)
		rm -f "$broot/newest.bdir"
		if HETSCHED_SLURM_TARBALLS=$tarballs on_slurm_build "$newest_v" >"$broot/newest.out" 2>&1; then
			echo "$bdir" >"$broot/newest.bdir"
		fi
		say "Slurm $newest_v installed and the plugins built for it (background, nice 19) took $(($(date +%s) - b0)) s"
	) </dev/null &
	newest_pid=$!
fi
(
	# The subshell's own pid is its sh -c child's parent; children inherit
	# the niceness.
	renice -n 19 -p "$(sh -c 'echo $PPID')" >/dev/null 2>&1
	# At nice 19 a test's sender thread can starve for seconds: the unit
	# tests skip their rate-against-wall-clock checks here (stage 1 runs
	# them at normal priority).
	export HS_TIMING_LAX=1
	# 2. The Slurm-free core and its unit tests under ASan + UBSan.
	[ $sanitizers = 0 ] || bg_stage "unit tests under ASan/UBSan" "$broot/asan" \
		--without-slurm "CFLAGS=$san" "LDFLAGS=-fsanitize=address,undefined" --
	# 3. The same unit tests under valgrind (memcheck, leaks are errors).
	[ $valgrind = 0 ] || bg_stage "unit tests under valgrind" "$broot/valgrind" \
		--without-slurm "CFLAGS=-g -O1" -- LOG_COMPILER="$top/contrib/valgrind-wrap.sh"
	# 6. Other Slurm series: each configured once and cached by
	#    bootstrap.sh (about 2 min of CPU per series cold, seconds warm),
	#    only the plugins compiled, with -Werror. Two series by default;
	#    `contrib/compile-matrix.sh` alone does all seven.
	if [ $matrix = 1 ]; then
		b0=$(date +%s)
		mv=${HETSCHED_MATRIX:-"24.11 26.05"}
		[ "$mv" != all ] || mv="22.05 23.11 24.05 24.11 25.05 25.11 26.05"
		# stage 7 configures and builds against $newest_v (its tree must
		# not be configured twice at once)
		[ $newest = 0 ] || mv=$(echo "$mv" | tr ' ' '\n' | grep -vx "$newest_v" | tr '\n' ' ')
		[ -n "$(echo "$mv" | tr -d ' ')" ] || mv=none
		# shellcheck disable=SC2086
		if [ "$mv" = none ]; then
			echo "1..0 # no series left to compile" >"$broot/matrix.out"
		else
			HETSCHED_SLURM_TARBALLS=$tarballs HETSCHED_MATRIX_DIR=$broot/matrix MAKEFLAGS=-j2 \
				"$top/contrib/compile-matrix.sh" $mv >"$broot/matrix.out" 2>&1
		fi
		say "plugins against Slurm $mv (background, nice 19) took $(($(date +%s) - b0)) s"
	fi
) </dev/null &
bg_pid=$!
if [ $main_built = 1 ]; then
	(cd "$broot/main" && make -j"$it_jobs" check HETSCHED_INTEGRATION=$integration >check.out 2>&1)
	count "$broot/main"
fi
# 7, second half: the tests on a cluster of the newest series.
if [ $newest = 1 ]; then
	stage "integration tests on Slurm $newest_v ($newest_tests)"
	wait "$newest_pid"
	if [ -f "$broot/newest.bdir" ]; then
		on_slurm_check "$(cat "$broot/newest.bdir")" "$newest_tests"
	else
		say "Slurm $newest_v was not installed or the plugins not built for it:"
		tail -n 30 "$broot/newest.out" >&2
		failed=$((failed + 1))
	fi
fi
stage "waiting for the background stages"
wait "$bg_pid"
[ $sanitizers = 0 ] || count_bg "$broot/asan"
[ $valgrind = 0 ] || count_bg "$broot/valgrind"
[ $matrix = 0 ] || count_tap "$broot/matrix.out"

# 4. make distcheck: the tarball builds, tests, installs and uninstalls.
if [ $distcheck = 1 ]; then
	stage "make distcheck"
	if (cd "$broot/main" && make -j2 distcheck >distcheck.out 2>&1); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		say "make distcheck failed:"
		tail -n 30 "$broot/main/distcheck.out" >&2
	fi
fi
# 5. The Debian packages: built from this tree, installed, the installed
#    plugins on a local cluster, purged (root only: it installs packages).
if [ $deb = 1 ]; then
	stage "Debian packages (tests/deb/deb_smoke.sh)"
	mkdir -p "$broot"
	HETSCHED_SLURM_SOURCE=$slurm_src "$top/tests/deb/deb_smoke.sh" >"$broot/deb_smoke.out" 2>&1
	count_tap "$broot/deb_smoke.out"
fi
stage ""
say "total $(( $(date +%s) - t0 )) s"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
