#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_demo_report.sh — runs test_demo_report.py (contrib/demo/report.py,
# the demo's summary and --unknown-models comparison) with the configured
# Python; TAP on stdout.
py=${PYTHON:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
	echo "1..0 # SKIP no python3"
	exit 0
fi
exec "$py" "${HS_SRCDIR:-.}/tests/unit/test_demo_report.py"
