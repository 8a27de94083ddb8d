#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pack_e2e.sh — space sharing end to end: the small workload of
# bench/pack/pack_e2e.sh --quick (four jobs that pair well on two V100s),
# simulated and then run on two real local clusters (sched/hetsched +
# select/hetsched_cons_tres + spank_hetsched, emulated jobs) under
# max_min_fairness and max_min_fairness_packed. Asserts that the simulator
# predicts a gain, that the packed run really packed, that packing beats
# time slicing on the cluster (average JCT from sacct), and that the
# measured ratio is within the stated tolerance of the predicted one
# (doc/packing.md). About three minutes. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
. "$HS_SRCDIR/tests/integration/sched_lib.sh"
it_begin "space sharing pays on the cluster as the simulator predicts (bench/pack/pack_e2e.sh --quick)"

[ -r "$HS_TABLE" ] || bail "Gavel table not found at $HS_TABLE (set HS_GAVEL_DATA)"
out=$(mktemp -d /tmp/hs-it-pack-e2e.XXXXXX)
# the bench brings its clusters up on the first free block from this one,
# which stays reserved for it while this test runs
it_port_reserve pack_e2e || bail "no free port block found"
HS_BUILDDIR=$HS_BUILDDIR HS_GAVEL_DATA=$HS_GAVEL HS_BENCH_PORT_BASE=$it_port \
	bash "$HS_SRCDIR/bench/pack/pack_e2e.sh" --quick --out "$out" >"$out/stdout" 2>"$out/stderr"
rc=$?
diag <"$out/stderr"
diag <"$out/stdout"
[ -r "$out/result.env" ] || bail "the bench wrote no result (exit $rc)"
val() { sed -n "s/^$1=//p" "$out/result.env"; }
lt() { python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$1" "$2"; }
le() { python3 -c 'import sys; sys.exit(not float(sys.argv[1]) <= float(sys.argv[2]))' "$1" "$2"; }
check "the simulator predicts a gain from packing (ratio $(val predicted) < 0.8)" lt "$(val predicted)" 0.8
check "the packed run started jobs onto shared GPUs ($(val pack_starts_packed) pack starts)" \
	test "$(val pack_starts_packed)" -ge 1
check "the unpacked run never shared a GPU" test "$(val pack_starts_unpacked)" = 0
check "every job of both runs completed (sacct)" test -n "$(val measured)"
check "packing beats time slicing on the cluster (avg JCT $(val jct_packed) < $(val jct_unpacked) trace s)" \
	lt "$(val jct_packed)" "$(val jct_unpacked)"
check "measured ratio $(val measured) within $(val tolerance) of the predicted $(val predicted) (relative difference $(val reldiff))" \
	le "$(val reldiff)" "$(val tolerance)"
check "the bench exits 0" test "$rc" = 0
rm -rf "$out"
it_done
