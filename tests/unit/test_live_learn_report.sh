#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_live_learn_report.sh — runs test_live_learn_report.py
# (bench/live_learn_report.py: issue 26's live ratios over several demo
# commands, their medians against the targets) with the configured
# Python; TAP on stdout.
py=${PYTHON:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
	echo "1..0 # SKIP no python3"
	exit 0
fi
exec "$py" "${HS_SRCDIR:-.}/tests/unit/test_live_learn_report.py"
