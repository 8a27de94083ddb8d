#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# soak_short.sh — the CI version of the soak test (tests/soak/soak.sh):
# a fixed seed and a 70 s fault phase — mixed workload, slurmctld
# SIGKILLed at a random moment and mid-apply, one slurmd killed and
# restarted, a reconfiguration — then the same final checks (no job lost,
# stuck, run twice at once, or holding GPUs after it ended). TAP output.
# --settled-kills keeps the SIGKILLs out of the 5 s after a start or
# requeue: there the known "lost start" bug (doc/robustness.md) drains a
# node and can leave a job held; drop the option once it is fixed.
# (Requeues after a checkpoint acknowledgement come at any moment, so a
# kill can still hit one: finding 1b, rare in 70 s.)
HS_SRCDIR=${HS_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ "${HETSCHED_INTEGRATION:-0}" != 1 ]; then
	echo "1..0 # SKIP integration tests run only with HETSCHED_INTEGRATION=1 (soak, short)"
	exit 0
fi
exec "$HS_SRCDIR/tests/soak/soak.sh" --seed 11 --duration 70 --settle 240 --settled-kills
